// SPDX-License-Identifier: GPL-3.0-or-later
#include "store/privatefiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
constexpr QFileDevice::Permissions kOwnerFile = QFileDevice::ReadOwner | QFileDevice::WriteOwner;
constexpr QFileDevice::Permissions kOwnerFolder
    = QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner;

// Group or other may do anything at all with it.
bool widerThanOwner(const QFileInfo &info)
{
    constexpr QFileDevice::Permissions kOthers = QFileDevice::ReadGroup | QFileDevice::WriteGroup
                                                 | QFileDevice::ExeGroup | QFileDevice::ReadOther
                                                 | QFileDevice::WriteOther | QFileDevice::ExeOther;
    return (info.permissions() & kOthers) != 0;
}
} // namespace

QString makeStoreFilesPrivate(const QString &databasePath, bool tightenFolder)
{
    const QFileInfo db(databasePath);
    const QString folder = db.absolutePath();
    if (!QFileInfo::exists(folder)) {
        if (!QDir().mkpath(folder))
            return u"cannot create the folder %1"_s.arg(folder);
        tightenFolder = true; // ours: made just now
    }
    if (tightenFolder && widerThanOwner(QFileInfo(folder)) && !QFile::setPermissions(folder, kOwnerFolder))
        return u"cannot restrict the folder %1 to its owner"_s.arg(folder);
    if (!db.exists()) {
        // Created empty and private before SQLite opens it: SQLite gives the -wal, -shm and
        // -journal files the mode of the database file.
        QFile file(databasePath);
        if (!file.open(QIODevice::WriteOnly | QIODevice::NewOnly, kOwnerFile) && !db.exists())
            return u"cannot create %1: %2"_s.arg(databasePath, file.errorString());
    }
    for (const QString &suffix : {QString(), u"-wal"_s, u"-shm"_s, u"-journal"_s}) {
        const QFileInfo info(databasePath + suffix);
        if (info.exists() && widerThanOwner(info) && !QFile::setPermissions(info.filePath(), kOwnerFile))
            return u"cannot restrict %1 to its owner"_s.arg(info.filePath());
    }
    return {};
}

} // namespace Runwatch
