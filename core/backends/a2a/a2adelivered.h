// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/runevent.h"

#include <QList>

namespace Runwatch::A2a {

// The secondary items an A2A backend has delivered, to drop the ones a Task snapshot repeats
// (every subscribe, poll and answer repeats the task's status messages, and printers such as the
// CLI would show each of them again). An item is kept as the seeded hash of its id and of its
// text: a genuine item taken for a repeat needs both to collide, and no string is copied or
// compared per item. An open-addressing table of 16-byte slots, one cache line away per new item:
// a live task with tens of thousands of distinct status messages paid most of its per-item cost
// in QHash's nodes (issue 25). Forgets everything past a bound: in a long-lived GUI, forgetting
// only costs a repeated line.
class DeliveredItems
{
public:
    // Removes from `events` the SecondarySnapshot events delivered before with the same text and
    // remembers the rest.
    void dropRepeats(QList<RunEvent> &events);

private:
    struct Slot
    {
        size_t id = 0;   // the id's hash, never 0 (0: empty)
        size_t text = 0; // the text's hash
    };
    // The slot that holds `id`, or the empty one that takes it now (its text 0: none yet).
    Slot &slotFor(size_t id);

    QList<Slot> m_slots; // a power of two long, at most half full
    qsizetype m_used = 0;
};

} // namespace Runwatch::A2a
