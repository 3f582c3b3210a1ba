// SPDX-License-Identifier: GPL-3.0-or-later
#include "testdata.h"

#include <QDir>
#include <QFile>
#include <QtTest>

namespace RunwatchTest {

QString dataPath(const QString &relative)
{
    return QDir(QStringLiteral(RUNWATCH_TEST_DATA_DIR)).absoluteFilePath(relative);
}

QByteArray readData(const QString &relative)
{
    QFile file(dataPath(relative));
    if (!file.open(QIODevice::ReadOnly)) {
        qWarning("test data missing: %s", qPrintable(file.fileName()));
        return {};
    }
    return file.readAll();
}

} // namespace RunwatchTest
