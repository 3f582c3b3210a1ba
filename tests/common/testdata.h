// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>

namespace RunwatchTest {

// Absolute path of a file under tests/data/.
QString dataPath(const QString &relative);
// Whole file under tests/data/; fails the current test (QFAIL-style warning + empty) when absent.
QByteArray readData(const QString &relative);

} // namespace RunwatchTest
