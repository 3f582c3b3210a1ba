// SPDX-License-Identifier: GPL-3.0-or-later
#include "a2adelivered.h"

#include "domain/stringhash.h"

namespace Runwatch::A2a {

namespace {

constexpr qsizetype kMaxRemembered = 20000;

// The upper half of the id's hash: it picks the slot and stays in it, so that growing needs no
// hash again.
quint32 idTag(size_t hash)
{
    const auto tag = quint32(quint64(hash) >> 32);
    return tag != 0 ? tag : 1;
}

} // namespace

DeliveredItems::Slot &DeliveredItems::slotFor(quint32 tag)
{
    if ((m_used + 1) * 4 > m_slots.size() * 3) {
        if (m_used >= kMaxRemembered) {
            m_slots.fill(Slot{});
            m_used = 0;
        } else {
            // Grow: the entries are distinct ids, each goes to the first free slot from its tag.
            const QList<Slot> old
                = std::exchange(m_slots, QList<Slot>(std::max<qsizetype>(64, m_slots.size() * 2)));
            const quint32 mask = quint32(m_slots.size()) - 1;
            Slot *slots = m_slots.data();
            for (const Slot &entry : old) {
                if (entry.id == 0)
                    continue;
                quint32 i = entry.id & mask;
                while (slots[i].id != 0)
                    i = (i + 1) & mask;
                slots[i] = entry;
            }
        }
    }
    const quint32 mask = quint32(m_slots.size()) - 1;
    Slot *slots = m_slots.data();
    for (quint32 i = tag & mask;; i = (i + 1) & mask) {
        Slot &slot = slots[i];
        if (slot.id == tag)
            return slot;
        if (slot.id == 0) {
            slot.id = tag;
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
        // The text's made odd: never the 0 of an item not delivered yet.
        const auto text = quint32(seededStringHash(e.text)) | 1;
        Slot &slot = slotFor(idTag(seededStringHash(e.itemId)));
        if (slot.text == text)
            return true;
        slot.text = text;
        return false;
    });
}

} // namespace Runwatch::A2a
