// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QMetaObject>
#include <QObject>

#include <memory>
#include <utility>

#if defined(__SANITIZE_THREAD__)
#define RUNWATCH_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RUNWATCH_TSAN 1
#endif
#endif

#ifdef RUNWATCH_TSAN
#include <condition_variable>
#include <mutex>
#endif

namespace Runwatch::detail {

#ifdef RUNWATCH_TSAN
// One for every hand-off: the receiving side must find it without reading anything the caller
// wrote for the call (that is what TSan is to see ordered).
inline std::mutex &handOffMutex()
{
    static std::mutex mutex;
    return mutex;
}
#endif

// Runs `f` in `target`'s thread (QMetaObject::invokeMethod) — the one way work and data cross
// between Runwatch's threads (stream pump, store writer). Debian's Qt is not built with
// ThreadSanitizer, so TSan cannot see the ordering Qt's event queue gives a queued call (its
// mutex is a futex inside libQt6Core). Under TSan the hand-off also goes through a std::mutex,
// whose pthread calls TSan does see: the caller holds it while the call is posted, `f` takes it
// before it runs, and a blocking call waits on a condition variable for `f` to end. The
// threaded tests' TSan stage then reports real races, not the event queue. Plain
// invokeMethod otherwise.
template<typename F>
void invokeAcross(QObject *target, F f, Qt::ConnectionType type = Qt::QueuedConnection)
{
#ifdef RUNWATCH_TSAN
    struct Gate
    {
        std::condition_variable ended;
        bool done = false;
    };
    auto gate = std::make_shared<Gate>();
    std::unique_lock lock(handOffMutex());
    QMetaObject::invokeMethod(
        target,
        [f = std::move(f), gate]() mutable {
            {
                const std::lock_guard posted(handOffMutex());
            }
            f();
            {
                const std::lock_guard finished(handOffMutex());
                gate->done = true;
            }
            gate->ended.notify_all();
        },
        Qt::QueuedConnection);
    if (type == Qt::BlockingQueuedConnection)
        gate->ended.wait(lock, [&gate] { return gate->done; });
#else
    QMetaObject::invokeMethod(target, std::move(f), type);
#endif
}

} // namespace Runwatch::detail
