// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArrayView>
#include <QString>

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

private:
    bool fail();
    bool closes(char close);

    const char *m_p;
    const char *m_end;
    int m_depth = 0;
    bool m_first = false; // no member or element of the container entered last read yet
    bool m_failed = false;
    bool m_nonAscii = false;
};

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
