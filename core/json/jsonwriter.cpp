// SPDX-License-Identifier: GPL-3.0-or-later
#include "jsonwriter.h"

namespace Runwatch {

namespace {

void appendUtf8(QByteArray &out, char32_t c)
{
    if (c < 0x80) {
        out += char(c);
    } else if (c < 0x800) {
        out += char(0xC0 | (c >> 6));
        out += char(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        out += char(0xE0 | (c >> 12));
        out += char(0x80 | ((c >> 6) & 0x3F));
        out += char(0x80 | (c & 0x3F));
    } else {
        out += char(0xF0 | (c >> 18));
        out += char(0x80 | ((c >> 12) & 0x3F));
        out += char(0x80 | ((c >> 6) & 0x3F));
        out += char(0x80 | (c & 0x3F));
    }
}

} // namespace

void appendJsonString(QByteArray &out, QStringView text)
{
    static constexpr char kHex[] = "0123456789abcdef";
    const char16_t *p = text.utf16();
    const char16_t *const end = p + text.size();
    // Most text is ASCII: room for it up front, one reallocation at most for the rest.
    out.reserve(out.size() + text.size() + 2);
    out += '"';
    while (p < end) {
        // A run of characters that need no escaping and are ASCII goes out in one append.
        const char16_t *run = p;
        while (p < end && *p >= 0x20 && *p < 0x80 && *p != u'"' && *p != u'\\')
            ++p;
        if (p != run) {
            const qsizetype n = p - run;
            const qsizetype at = out.size();
            out.resize(at + n);
            char *dst = out.data() + at;
            for (qsizetype i = 0; i < n; ++i)
                dst[i] = char(run[i]);
            continue;
        }
        const char16_t c = *p++;
        switch (c) {
        case u'"':
            out += "\\\"";
            continue;
        case u'\\':
            out += "\\\\";
            continue;
        case u'\n':
            out += "\\n";
            continue;
        case u'\r':
            out += "\\r";
            continue;
        case u'\t':
            out += "\\t";
            continue;
        case u'\b':
            out += "\\b";
            continue;
        case u'\f':
            out += "\\f";
            continue;
        default:
            break;
        }
        if (c < 0x20) {
            const char escape[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
            out.append(escape, sizeof escape);
        } else if (QChar::isHighSurrogate(c) && p < end && QChar::isLowSurrogate(*p)) {
            appendUtf8(out, QChar::surrogateToUcs4(c, *p++));
        } else if (QChar::isSurrogate(c)) {
            appendUtf8(out, 0xFFFD);
        } else {
            appendUtf8(out, c);
        }
    }
    out += '"';
}

JsonObjectWriter::JsonObjectWriter(QByteArray &out)
    : m_out(out)
{
    m_out += '{';
}

void JsonObjectWriter::writeKey(QLatin1StringView key)
{
    if (!m_first)
        m_out += ',';
    m_first = false;
    appendJsonString(m_out, QString(key));
    m_out += ':';
}

JsonObjectWriter &JsonObjectWriter::addString(QLatin1StringView key, QStringView value)
{
    writeKey(key);
    appendJsonString(m_out, value);
    return *this;
}

JsonObjectWriter &JsonObjectWriter::addInt(QLatin1StringView key, qint64 value)
{
    writeKey(key);
    m_out += QByteArray::number(value);
    return *this;
}

JsonObjectWriter &JsonObjectWriter::addBool(QLatin1StringView key, bool value)
{
    writeKey(key);
    m_out += value ? "true" : "false";
    return *this;
}

JsonObjectWriter &JsonObjectWriter::addRaw(QLatin1StringView key, QByteArrayView json)
{
    writeKey(key);
    m_out += json;
    return *this;
}

void JsonObjectWriter::close()
{
    m_out += '}';
}

} // namespace Runwatch
