// SPDX-License-Identifier: GPL-3.0-or-later
// pch.h and Qt Test: the headers every test parses on top of the product's. Precompiled once for
// the tests (target runwatch_test_pch, cmake/RunwatchBuildSpeed.cmake): parsing them took 40 % of
// a test's compile in the sanitized build, the longest stage of CI.
#include "pch.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
