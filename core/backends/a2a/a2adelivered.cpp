// SPDX-License-Identifier: GPL-3.0-or-later
#include "a2adelivered.h"

#include <QHash>

namespace Runwatch::A2a {

namespace {

constexpr qsizetype kMaxRemembered = 20000;

} // namespace

DeliveredItems::Slot &DeliveredItems::slotFor(size_t id)
{
    if ((m_used + 1) * 2 > m_slots.size()) {
        if (m_used >= kMaxRemembered) {
            m_slots.fill(Slot{});
            m_used = 0;
        } else {
            // Grow: the ids are hashes already, each goes to the first free slot of the new table.
            const QList<Slot> old
                = std::exchange(m_slots, QList<Slot>(std::max<qsizetype>(64, m_slots.size() * 2)));
            const size_t mask = size_t(m_slots.size()) - 1;
            for (const Slot &entry : old) {
                if (entry.id == 0)
                    continue;
                size_t i = entry.id & mask;
                while (m_slots.at(qsizetype(i)).id != 0)
                    i = (i + 1) & mask;
                m_slots[qsizetype(i)] = entry;
            }
        }
    }
    const size_t mask = size_t(m_slots.size()) - 1;
    Slot *slots = m_slots.data();
    for (size_t i = id & mask;; i = (i + 1) & mask) {
        Slot &slot = slots[i];
        if (slot.id == id)
            return slot;
        if (slot.id == 0) {
            slot.id = id;
            ++m_used;
            return slot;
        }
    }
}

void DeliveredItems::dropRepeats(QList<RunEvent> &events)
{
    events.removeIf([this](const RunEvent &e) {
        if (e.type != RunEvent::Type::SecondarySnapshot || e.itemId.isEmpty())
            return false;
        const size_t seed = QHashSeed::globalSeed();
        // Never 0, the mark of an empty slot; the text's made odd, never the 0 of one not
        // delivered yet (the id's low bits pick the slot: they stay as they are).
        const size_t idHash = qHash(e.itemId, seed);
        const size_t id = idHash != 0 ? idHash : 1;
        const size_t text = qHash(e.text, seed) | 1;
        Slot &slot = slotFor(id);
        if (slot.text == text)
            return true;
        slot.text = text;
        return false;
    });
}

} // namespace Runwatch::A2a
