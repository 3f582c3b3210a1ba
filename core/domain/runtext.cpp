// SPDX-License-Identifier: GPL-3.0-or-later
#include "domain/runtext.h"

#include <algorithm>

namespace Runwatch {

namespace {
// Room for what comes next: doubling keeps a growing answer's copies amortized O(1) per
// character; small texts (a title-sized answer, a test's) start with a little room.
qsizetype grownCapacity(qsizetype needed)
{
    constexpr qsizetype kMinimum = 64;
    return std::max(kMinimum, needed < (qsizetype(1) << 40) ? needed * 2 : needed);
}
} // namespace

RunText::Buffer::Buffer(qsizetype capacity)
    : chars(new char16_t[size_t(capacity)])
    , capacity(capacity)
{}

RunText &RunText::assign(QStringView text)
{
    if (text.isEmpty()) {
        clear();
        return *this;
    }
    // A buffer no other copy sees may be written over; any other is left to its copies.
    if (!m_buffer || m_buffer.use_count() != 1 || m_buffer->capacity < text.size())
        m_buffer = std::make_shared<Buffer>(text.size());
    std::copy(text.utf16(), text.utf16() + text.size(), m_buffer->chars.get());
    m_buffer->used.store(text.size(), std::memory_order_relaxed);
    m_size = text.size();
    return *this;
}

RunText &RunText::append(QStringView text)
{
    const qsizetype n = text.size();
    if (n == 0)
        return *this;
    if (m_buffer && n <= m_buffer->capacity - m_size) {
        // In place when this copy is at the buffer's end: claiming the room first means two
        // copies at the same end (a run and its baseline both appended to) never write the same
        // characters — the second finds the end moved and takes a buffer of its own.
        qsizetype end = m_size;
        if (m_buffer->used.compare_exchange_strong(end, m_size + n, std::memory_order_acq_rel)) {
            std::copy(text.utf16(), text.utf16() + n, m_buffer->chars.get() + m_size);
            m_size += n;
            return *this;
        }
    }
    // A text's first characters get a buffer of their size (a run read whole from the store keeps
    // no spare room); a text that grows gets room to grow into.
    auto grown = std::make_shared<Buffer>(m_size == 0 ? n : grownCapacity(m_size + n));
    std::copy(data(), data() + m_size, grown->chars.get());
    std::copy(text.utf16(), text.utf16() + n, grown->chars.get() + m_size);
    m_size += n;
    grown->used.store(m_size, std::memory_order_relaxed);
    m_buffer = std::move(grown);
    return *this;
}

void RunText::truncate(qsizetype size)
{
    // The characters past `size` stay for the copies that see them; this copy's next append
    // moves to a buffer of its own (it is no longer at the end).
    m_size = std::clamp<qsizetype>(size, 0, m_size);
    if (m_size == 0) {
        m_buffer.reset();
    } else if (m_buffer.use_count() == 1) {
        m_buffer->used.store(m_size, std::memory_order_relaxed); // no copy sees past it: room again
    }
}

void RunText::clear()
{
    m_buffer.reset();
    m_size = 0;
}

bool RunText::extends(const RunText &prefix) const
{
    if (prefix.m_size > m_size)
        return false;
    if (prefix.m_buffer == m_buffer)
        return true;
    return view().startsWith(prefix.view());
}

bool operator==(const RunText &a, const RunText &b)
{
    if (a.m_size != b.m_size)
        return false;
    return a.m_buffer == b.m_buffer || a.view() == b.view();
}

} // namespace Runwatch
