// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QLatin1StringView>
#include <QStringView>

namespace Runwatch {

// Appends `text` to `out` as a JSON string (RFC 8259), UTF-8 encoded: quote, backslash and the
// control characters escaped (\n, \t … or \u00XX), everything else written as itself, non-BMP
// characters from their surrogate pairs. A lone UTF-16 surrogate cannot be encoded and becomes
// U+FFFD, so the output is always valid UTF-8 and valid JSON.
void appendJsonString(QByteArray &out, QStringView text);

// Writes one flat JSON object into a byte buffer member by member, without building a
// QJsonObject and a QJsonDocument first: the CLI's JSON Lines are written per stream event, where
// building a document per line cost several times what receiving the event did. Members come
// out in the order they are added; keys are trusted literals (escaped all the same).
class JsonObjectWriter
{
public:
    // Starts the object ("{") at the end of `out`.
    explicit JsonObjectWriter(QByteArray &out);
    JsonObjectWriter(const JsonObjectWriter &) = delete;
    JsonObjectWriter &operator=(const JsonObjectWriter &) = delete;

    JsonObjectWriter &addString(QLatin1StringView key, QStringView value);
    JsonObjectWriter &addInt(QLatin1StringView key, qint64 value);
    JsonObjectWriter &addBool(QLatin1StringView key, bool value);
    // `json` must be one complete JSON value (e.g. a nested object from QJsonDocument).
    JsonObjectWriter &addRaw(QLatin1StringView key, QByteArrayView json);
    // Ends the object ("}"); nothing may be added afterwards.
    void close();

private:
    void writeKey(QLatin1StringView key);

    QByteArray &m_out;
    bool m_first = true;
};

} // namespace Runwatch
