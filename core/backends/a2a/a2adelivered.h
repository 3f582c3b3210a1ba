// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/runevent.h"

#include <QList>

namespace Runwatch::A2a {

// The secondary items an A2A backend has delivered, to drop the ones a Task snapshot repeats
// (every subscribe, poll and answer repeats the task's status messages, and printers such as the
// CLI would show each of them again). An item is kept as the seeded hash of its id and of its
// text: a genuine item taken for a repeat needs both to collide, and no string is copied or
// compared per item. An open-addressing table of 8-byte slots, one cache line away per new item:
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
    // Half of each seeded hash: a genuine item still needs 64 bits of them to collide with one
    // delivered before, and the table at its bound is 256 KB, which a core's cache keeps where
    // 16-byte slots at half load (1 MB) cost a cache miss per new item (issue 25).
    struct Slot
    {
        quint32 id = 0;   // the upper half of the id's hash, never 0 (0: empty); it picks the slot
        quint32 text = 0; // half of the text's hash, never 0 (0: none delivered yet)
    };
    // The slot that holds the id of `tag`, or the empty one that takes it now.
    Slot &slotFor(quint32 tag);

    QList<Slot> m_slots; // a power of two long, at most three quarters full
    qsizetype m_used = 0;
};

} // namespace Runwatch::A2a
