// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <coroutine>

namespace Runwatch::detail {

// Something one coroutine co_awaits until a Qt signal, a timer or a shutdown completes it
// (HttpAttempt, RetrySleep, the wait for a client's requests to unwind). Owned by the frame that
// awaits it, so it outlives the resumption it schedules.
//
// The waiter is resumed from the event loop, never from inside complete(): the caller of
// complete() is typically a signal of the very reply or timer the coroutine goes on to delete,
// or a loop over the client's waits that the coroutine changes.
class ResumableWait
{
public:
    ResumableWait() = default;
    ResumableWait(const ResumableWait &) = delete;
    ResumableWait &operator=(const ResumableWait &) = delete;

    bool isDone() const { return m_done; }

    struct Awaiter
    {
        ResumableWait *wait;
        bool await_ready() const noexcept { return wait->m_done; }
        void await_suspend(std::coroutine_handle<> handle) noexcept { wait->m_waiter = handle; }
        void await_resume() const noexcept {}
    };
    Awaiter done() { return Awaiter{this}; }

protected:
    ~ResumableWait() = default;

    // Marks the wait done and schedules the waiter's resumption. False when it was done already.
    bool complete();

private:
    std::coroutine_handle<> m_waiter;
    bool m_done = false;
};

} // namespace Runwatch::detail
