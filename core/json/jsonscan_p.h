// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The scanner's byte-level steps, inline for JsonScan::Reader's methods in jsonscan.h: a caller
// that walks nested JSON (the A2A event scan) makes one call per member, and an out-of-line call
// for each string it passes was a third of that walk's cost (issue 25). Not API.

#include <QtGlobal>

#include <bit>
#include <cstring>

namespace Runwatch::JsonScan::detail {

inline constexpr int kMaxDepth = 256;

struct Cursor
{
    const char *p;
    const char *end;
    bool hasEscapes = false;
    bool nonAscii = false;

    bool atEnd() const { return p >= end; }
    void skipWs()
    {
        // Compact JSON, the usual case, has none: one comparison.
        if (p == end || static_cast<unsigned char>(*p) > ' ')
            return;
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
            ++p;
    }
};

inline bool isHex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// The first byte of `q[0, 8)` that ends or interrupts a run of plain string bytes: a quote, a
// backslash, a control character or a byte >= 0x80; 8 when there is none. Eight bytes per step
// (SWAR): the strings of a streamed event are most of its bytes (issue 25). The borrow of the
// subtractions can mark a byte after a real hit, never before one, so the lowest mark is exact.
inline int firstSpecial(const char *q)
{
    constexpr quint64 kOnes = 0x0101010101010101ULL;
    constexpr quint64 kHighs = 0x8080808080808080ULL;
    quint64 w;
    std::memcpy(&w, q, sizeof w);
    const auto zeroByte = [](quint64 v) { return (v - kOnes) & ~v & kHighs; };
    const quint64 marks = zeroByte(w ^ (kOnes * '"')) | zeroByte(w ^ (kOnes * '\\'))
                          | ((w - kOnes * 0x20) & ~w & kHighs) | (w & kHighs);
    return marks == 0 ? 8 : std::countr_zero(marks) / 8;
}

// Skips a string starting at the opening quote. UTF-8 validity is checked only when the string
// is decoded: skipping is on the hot path for fields nobody reads.
// Always inlined: the walk calls it for every key and string value it passes.
[[gnu::always_inline]] inline bool skipString(Cursor &c)
{
    ++c.p; // opening quote
    c.hasEscapes = false;
    while (c.p < c.end) {
        // The next quote or backslash, eight bytes at a time while eight are left.
        const char *q = c.p;
        while (q < c.end) {
            if constexpr (std::endian::native == std::endian::little) {
                if (c.end - q >= 8) {
                    const int plain = firstSpecial(q);
                    q += plain;
                    if (plain == 8)
                        continue;
                }
            }
            if (*q == '"' || *q == '\\')
                break;
            // One comparison for both: a control character or a byte >= 0x80.
            const unsigned char byte = static_cast<unsigned char>(*q);
            if (unsigned(byte - 0x20) >= 0x60u) {
                if (byte < 0x20)
                    return false; // raw control characters are not allowed in JSON strings
                c.nonAscii = true;
            }
            ++q;
        }
        if (q >= c.end)
            return false;
        if (*q == '"') {
            c.p = q + 1;
            return true;
        }
        // Backslash escape.
        c.hasEscapes = true;
        if (q + 1 >= c.end)
            return false;
        const char e = q[1];
        switch (e) {
        case '"':
        case '\\':
        case '/':
        case 'b':
        case 'f':
        case 'n':
        case 'r':
        case 't':
            c.p = q + 2;
            break;
        case 'u':
            if (c.end - q < 6 || !isHex(q[2]) || !isHex(q[3]) || !isHex(q[4]) || !isHex(q[5]))
                return false;
            c.p = q + 6;
            break;
        default:
            return false;
        }
    }
    return false;
}

// Past any one value at the cursor (a container's nesting counted from `depth`); false on an error.
bool skipValue(Cursor &c, int depth);

} // namespace Runwatch::JsonScan::detail
