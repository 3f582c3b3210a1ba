// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArrayView>
#include <QString>

#include "jsonscan_p.h"

#include <optional>

namespace Runwatch::JsonScan {

// A validating single-pass scanner over one JSON object's top-level members, used on the hot
// path (one call per streamed delta) where building a QJsonDocument would cost more than
// everything else together (docs/performance-targets.md: ~780 ns per delta). Values are returned as raw
// spans; only the ones a caller asks for get decoded.

struct Member
{
    QByteArrayView key;   // raw key bytes between the quotes (escapes not decoded)
    QByteArrayView value; // raw value span (strings include their quotes)
    bool keyHasEscapes = false;
};

// Calls onMember for every top-level member, in order. Returns false if `json` is not exactly
// one well-formed JSON object (with optional surrounding whitespace); members seen before the
// error may already have been reported. Nesting deeper than 256 levels is rejected.
template<typename F>
bool forEachMember(QByteArrayView json, F &&onMember);

// Decodes a raw JSON string value (with quotes). nullopt if it is not a valid string or not
// valid UTF-8.
std::optional<QString> decodeString(QByteArrayView raw);

// Parses a raw JSON number that is an integer within qint64. nullopt otherwise.
std::optional<qint64> decodeInteger(QByteArrayView raw);

// A single pass over nested JSON for a caller that reads a few members at known places and
// skips the rest (an A2A event nests its text five levels deep: forEachMember on each level
// would scan the bytes once per level). Validates what it passes exactly as forEachMember does.
// After nextMember() or nextElement() answers true the caller consumes that one value: skip(),
// or enterObject()/enterArray() and its members or elements to the end.
class Reader
{
public:
    explicit Reader(QByteArrayView json);

    // The first byte of the value at the cursor (0 at the end).
    char peek() const { return m_p < m_end ? *m_p : '\0'; }
    bool enterObject();
    bool enterArray();
    // The next member of the object entered last, with the cursor at its value; false at the
    // object's end (consumed) or on an error.
    bool nextMember(QByteArrayView &key, bool &keyHasEscapes);
    // The next element of the array entered last; false at its end (consumed) or on an error.
    bool nextElement();
    // Past the value at the cursor; its raw span (empty on an error).
    QByteArrayView skip();
    // Nothing but whitespace after the top-level value, and no error on the way.
    bool finish();
    bool failed() const { return m_failed; }
    // A byte >= 0x80 was in a string it passed: UTF-8 is checked only on what gets decoded.
    bool sawNonAscii() const { return m_nonAscii; }

    // Where a walk is, to go on from there in other JSON that begins with the same bytes: they
    // would be read the same way (A2a::ScanMemo). Taken right after an enterObject() or
    // enterArray(), where the walk's next step reads nothing before the cursor.
    struct Mark
    {
        qsizetype offset = 0; // bytes read
        int depth = 0;
        bool nonAscii = false;
    };
    Mark mark() const { return {qsizetype(m_p - m_begin), m_depth, m_nonAscii}; }
    // The reader of `json`, whose first mark.offset bytes are those of the marked JSON, at the
    // mark: as if it had read them.
    static Reader resumed(QByteArrayView json, const Mark &mark);
    // The containers entered and not yet left.
    int depth() const { return m_depth; }

private:
    bool fail();
    // At the end of the container entered last (consumed, true), or past the comma before its
    // next value (false).
    bool closes(char close);
    bool enter(char open);

    const char *m_begin;
    const char *m_p;
    const char *m_end;
    int m_depth = 0;
    bool m_first = false; // no member or element of the container entered last read yet
    bool m_failed = false;
    bool m_nonAscii = false;
};

// Inline: one call per member of every level a caller walks (see jsonscan_p.h).
inline bool Reader::fail()
{
    m_failed = true;
    m_p = m_end;
    return false;
}

inline bool Reader::enter(char open)
{
    if (m_failed || peek() != open || m_depth > detail::kMaxDepth)
        return fail();
    ++m_p;
    ++m_depth;
    m_first = true;
    return true;
}

inline bool Reader::enterObject()
{
    return enter('{');
}

inline bool Reader::enterArray()
{
    return enter('[');
}

inline bool Reader::closes(char close)
{
    detail::Cursor c{m_p, m_end};
    c.skipWs();
    m_p = c.p;
    if (m_p < m_end && *m_p == close) {
        ++m_p;
        --m_depth;
        m_first = false; // the parent has read this value
        return true;
    }
    if (m_first) {
        m_first = false;
        return false;
    }
    if (m_p >= m_end || *m_p != ',')
        return !fail();
    ++m_p;
    return false;
}

inline bool Reader::nextMember(QByteArrayView &key, bool &keyHasEscapes)
{
    if (m_failed || closes('}') || m_failed)
        return false;
    detail::Cursor c{m_p, m_end};
    c.skipWs();
    if (c.atEnd() || *c.p != '"')
        return fail();
    const char *keyStart = c.p + 1;
    if (!detail::skipString(c))
        return fail();
    key = QByteArrayView(keyStart, c.p - 1 - keyStart);
    keyHasEscapes = c.hasEscapes;
    m_nonAscii = m_nonAscii || c.nonAscii;
    c.skipWs();
    if (c.atEnd() || *c.p != ':')
        return fail();
    ++c.p;
    c.skipWs();
    m_p = c.p;
    return true;
}

inline bool Reader::nextElement()
{
    if (m_failed || closes(']') || m_failed)
        return false;
    detail::Cursor c{m_p, m_end};
    c.skipWs();
    m_p = c.p;
    return true;
}

inline QByteArrayView Reader::skip()
{
    detail::Cursor c{m_p, m_end};
    // A string, the usual value, without the general skip's call.
    const bool skipped = !m_failed && (peek() == '"' ? detail::skipString(c) : detail::skipValue(c, m_depth));
    if (!skipped) {
        fail();
        return {};
    }
    m_nonAscii = m_nonAscii || c.nonAscii;
    const QByteArrayView value(m_p, c.p - m_p);
    m_p = c.p;
    m_first = false;
    return value;
}

// Implementation detail of forEachMember: a type-erased callback.
struct MemberSink
{
    void *context;
    void (*call)(void *context, const Member &member);
};
bool scanObject(QByteArrayView json, MemberSink sink);

template<typename F>
bool forEachMember(QByteArrayView json, F &&onMember)
{
    using Fn = std::remove_reference_t<F>;
    MemberSink sink{const_cast<void *>(static_cast<const void *>(&onMember)),
                    [](void *ctx, const Member &m) { (*static_cast<Fn *>(ctx))(m); }};
    return scanObject(json, sink);
}

} // namespace Runwatch::JsonScan
