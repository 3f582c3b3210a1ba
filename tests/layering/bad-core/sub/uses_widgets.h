// SPDX-License-Identifier: GPL-3.0-or-later
// Fixture for the layering check's self-test (tst_layering_selftest, expected to fail): a "core"
// header that pulls in a widget. Never compiled.
#pragma once
#include <QMainWindow>
#include <QString>
