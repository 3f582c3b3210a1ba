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
