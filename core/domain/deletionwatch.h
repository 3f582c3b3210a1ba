// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <utility>

namespace Runwatch {

// Tells an object's own code whether a call out of it (a signal, a reader it was given) deleted
// it. A member of the object: its destruction, part of the object's, marks every call out in
// progress. Cheaper than a QPointer per call, which touches the object's QObject private data —
// a cold cache line per stream per frame with hundreds of live streams.
class DeletionWatch
{
public:
    DeletionWatch() = default;
    DeletionWatch(const DeletionWatch &) = delete;
    DeletionWatch &operator=(const DeletionWatch &) = delete;
    ~DeletionWatch()
    {
        if (m_deleted)
            *m_deleted = true;
    }

    // Runs `callOut`; false when the object was deleted meanwhile (then nothing of it may be
    // touched). Calls out may nest: the deletion marks each one in progress.
    template<typename CallOut>
    bool survives(CallOut &&callOut)
    {
        bool deleted = false;
        bool *const outer = std::exchange(m_deleted, &deleted);
        std::forward<CallOut>(callOut)();
        if (deleted) {
            if (outer)
                *outer = true;
            return false;
        }
        m_deleted = outer;
        return true;
    }

private:
    bool *m_deleted = nullptr;
};

} // namespace Runwatch
