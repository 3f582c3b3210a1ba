// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Helpers shared by the CLI's translation units (cli.cpp, clicommands.cpp, clioutput.cpp).

#include "model/run.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonObject>

namespace Runwatch::Cli {

// The "run" JSON Lines object (type, run, remote_id, backend, status, title).
QJsonObject runObject(const Run &run);

// Runs the event loop until `done()` holds or `timeoutMs` passes (-1: no limit). Returns done().
template <typename Pred>
bool spinUntil(Pred done, int timeoutMs)
{
    QElapsedTimer clock;
    clock.start();
    while (!done()) {
        if (timeoutMs >= 0 && clock.elapsed() >= timeoutMs)
            return false;
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    }
    return true;
}

} // namespace Runwatch::Cli
