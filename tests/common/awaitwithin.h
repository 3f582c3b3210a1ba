// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QEventLoop>
#include <QTimer>

#include <QCoroTask>

#include <exception>
#include <memory>
#include <optional>

namespace RunwatchTest {

// Runs a task to completion under a watchdog: QCoro::waitFor would hang
// forever in 0.8 if the task threw, and a hung test tells nothing. nullopt = timed out or threw.
template<typename T>
std::optional<T> awaitWithin(QCoro::Task<T> task, int ms = 15000)
{
    struct State
    {
        QEventLoop loop;
        std::optional<T> value;
        bool done = false;
    };
    auto st = std::make_shared<State>();
    task.then(
        [st](T v) {
            st->value = std::move(v);
            st->done = true;
            st->loop.quit();
        },
        [st](const std::exception &) {
            st->done = true;
            st->loop.quit();
        });
    if (!st->done) {
        QTimer::singleShot(ms, &st->loop, [st] { st->loop.exit(1); });
        st->loop.exec();
    }
    return st->value;
}

} // namespace RunwatchTest
