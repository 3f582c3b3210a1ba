// SPDX-License-Identifier: GPL-3.0-or-later
#include "resumablewait.h"

#include <QTimer>

#include <utility>

namespace Runwatch::detail {

bool ResumableWait::complete()
{
    if (m_done)
        return false;
    m_done = true;
    if (m_waiter) {
        // No context object on purpose: Qt then uses one of this thread that outlives us all.
        // This object would not do: the frame resumed is the one that owns it.
        QTimer::singleShot(0, [handle = std::exchange(m_waiter, {})] { handle.resume(); });
    }
    return true;
}

} // namespace Runwatch::detail
