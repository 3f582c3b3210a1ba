// SPDX-License-Identifier: GPL-3.0-or-later
// The run store holds prompts, answers, token commands and the URLs keys go to: its folder is
// created 0700 and its files (the database and SQLite's -wal/-shm) 0600 whatever the umask, and a
// store found wider (an older version's, a copy) is narrowed when opened.
#include "store/runstore.h"

#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace Qt::StringLiterals;
using namespace Runwatch;

namespace {

// The mode bits as ls shows them in octal: 0700, 0600, 0644 …
int modeOf(const QString &path)
{
    struct stat st = {};
    if (::stat(QFile::encodeName(path).constData(), &st) != 0)
        return -1;
    return int(st.st_mode & 0777);
}

Run sampleRun()
{
    Run run;
    run.localId = u"r1"_s;
    run.connection = u"alpha"_s;
    run.backend = u"openai"_s;
    run.title = u"secret prompt"_s;
    run.status = RunStatus::InProgress;
    run.createdAt = QDateTime::currentDateTimeUtc();
    return run;
}

} // namespace

class TestStorePermissions final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        // The usual umask: everything would be created readable by everyone.
        m_oldMask = ::umask(022);
    }
    void cleanup() { ::umask(m_oldMask); }

    void createdForTheOwnerOnly()
    {
        QTemporaryDir tmp;
        const QString folder = tmp.filePath(u"data/runwatch"_s);
        const QString path = folder + u"/runs.sqlite"_s;
        RunStore store;
        QVERIFY2(store.open(path), qPrintable(store.errorString()));
        QVERIFY(store.saveRun(sampleRun()));
        store.flush();
        QCOMPARE(modeOf(folder), 0700);
        QCOMPARE(modeOf(path), 0600);
        // WAL mode: the companions exist while the store is open, with the database's mode.
        QVERIFY(QFileInfo::exists(path + u"-wal"_s));
        QCOMPARE(modeOf(path + u"-wal"_s), 0600);
        QCOMPARE(modeOf(path + u"-shm"_s), 0600);
    }

    void widerFilesAreNarrowed()
    {
        QTemporaryDir tmp;
        const QString path = tmp.filePath(u"runs.sqlite"_s);
        {
            RunStore store;
            QVERIFY2(store.open(path), qPrintable(store.errorString()));
            QVERIFY(store.saveRun(sampleRun()));
        }
        QVERIFY(::chmod(QFile::encodeName(path).constData(), 0644) == 0);
        QCOMPARE(modeOf(path), 0644);
        ::chmod(QFile::encodeName(tmp.path()).constData(), 0755);

        RunStore store;
        QVERIFY2(store.open(path), qPrintable(store.errorString()));
        QCOMPARE(modeOf(path), 0600);
        QVERIFY(store.loadRun(u"r1"_s).has_value()); // nothing lost on the way
        // A folder the operator chose (not Runwatch's own, not made here) is left as it is.
        QCOMPARE(modeOf(tmp.path()), 0755);
    }

private:
    mode_t m_oldMask = 022;
};

QTEST_GUILESS_MAIN(TestStorePermissions)
#include "tst_storepermissions.moc"
