// SPDX-License-Identifier: GPL-3.0-or-later
#include "jsonscan.h"
#include "jsonscan_p.h"

#include <QStringDecoder>

#include <cstring>
#include <limits>

namespace Runwatch::JsonScan {

using detail::Cursor;
using detail::isHex;
using detail::kMaxDepth;
using detail::skipString;

namespace {

// Past a run of decimal digits.
const char *skipDigits(const char *p, const char *end)
{
    while (p < end && *p >= '0' && *p <= '9')
        ++p;
    return p;
}

bool skipNumber(Cursor &c)
{
    const char *p = c.p;
    if (p < c.end && *p == '-')
        ++p;
    if (p >= c.end)
        return false;
    if (*p == '0') {
        ++p;
    } else if (*p >= '1' && *p <= '9') {
        p = skipDigits(p, c.end);
    } else {
        return false;
    }
    if (p < c.end && *p == '.') {
        const char *digits = p + 1;
        p = skipDigits(digits, c.end);
        if (p == digits)
            return false;
    }
    if (p < c.end && (*p == 'e' || *p == 'E')) {
        ++p;
        if (p < c.end && (*p == '+' || *p == '-'))
            ++p;
        const char *digits = p;
        p = skipDigits(digits, c.end);
        if (p == digits)
            return false;
    }
    c.p = p;
    return true;
}

bool skipLiteral(Cursor &c, const char *word, std::size_t len)
{
    if (std::size_t(c.end - c.p) < len || std::memcmp(c.p, word, len) != 0)
        return false;
    c.p += len;
    return true;
}

bool skipContainer(Cursor &c, int depth, char close)
{
    if (depth > kMaxDepth)
        return false;
    ++c.p; // opening bracket
    c.skipWs();
    if (c.p < c.end && *c.p == close) {
        ++c.p;
        return true;
    }
    while (true) {
        c.skipWs();
        if (close == '}') {
            if (c.atEnd() || *c.p != '"' || !skipString(c))
                return false;
            c.skipWs();
            if (c.atEnd() || *c.p != ':')
                return false;
            ++c.p;
            c.skipWs();
        }
        if (!detail::skipValue(c, depth + 1))
            return false;
        c.skipWs();
        if (c.atEnd())
            return false;
        if (*c.p == ',') {
            ++c.p;
            continue;
        }
        if (*c.p == close) {
            ++c.p;
            return true;
        }
        return false;
    }
}

void appendUtf16(QString &out, char32_t cp)
{
    if (cp >= 0x10000) {
        cp -= 0x10000;
        out += QChar(char16_t(0xD800 + (cp >> 10)));
        out += QChar(char16_t(0xDC00 + (cp & 0x3FF)));
    } else {
        out += QChar(char16_t(cp));
    }
}

unsigned hexValue(const char *p)
{
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
        const char ch = p[i];
        v <<= 4;
        if (ch >= '0' && ch <= '9') {
            v |= unsigned(ch - '0');
        } else if (ch >= 'a' && ch <= 'f') {
            v |= unsigned(ch - 'a' + 10);
        } else {
            v |= unsigned(ch - 'A' + 10);
        }
    }
    return v;
}

bool isAscii(QByteArrayView bytes)
{
    for (const char ch : bytes) {
        if (static_cast<unsigned char>(ch) >= 0x80)
            return false;
    }
    return true;
}

// Decodes UTF-8 strictly; invalid input yields nullopt.
std::optional<QString> decodeUtf8(QByteArrayView bytes)
{
    if (isAscii(bytes))
        return QString::fromLatin1(bytes);
    // ConvertInitialBom: a U+FEFF that opens a string (or the piece after an escape) is text,
    // not a byte-order mark; by default the decoder would drop it (found by fuzz_jsonscan).
    QStringDecoder decoder(QStringDecoder::Utf8,
                           QStringDecoder::Flag::Stateless | QStringDecoder::Flag::ConvertInitialBom);
    QString out = decoder(bytes);
    if (decoder.hasError())
        return std::nullopt;
    return out;
}

} // namespace

bool detail::skipValue(Cursor &c, int depth)
{
    if (c.atEnd())
        return false;
    switch (*c.p) {
    case '"':
        return skipString(c);
    case '{':
        return skipContainer(c, depth, '}');
    case '[':
        return skipContainer(c, depth, ']');
    case 't':
        return skipLiteral(c, "true", 4);
    case 'f':
        return skipLiteral(c, "false", 5);
    case 'n':
        return skipLiteral(c, "null", 4);
    default:
        return skipNumber(c);
    }
}

bool scanObject(QByteArrayView json, MemberSink sink)
{
    Cursor c{json.data(), json.data() + json.size()};
    c.skipWs();
    if (c.atEnd() || *c.p != '{')
        return false;
    ++c.p;
    c.skipWs();
    if (c.p < c.end && *c.p == '}') {
        ++c.p;
        c.skipWs();
        return c.atEnd();
    }
    while (true) {
        c.skipWs();
        if (c.atEnd() || *c.p != '"')
            return false;
        const char *keyStart = c.p + 1;
        if (!skipString(c))
            return false;
        Member member;
        member.key = QByteArrayView(keyStart, c.p - 1 - keyStart);
        member.keyHasEscapes = c.hasEscapes;
        c.skipWs();
        if (c.atEnd() || *c.p != ':')
            return false;
        ++c.p;
        c.skipWs();
        const char *valueStart = c.p;
        if (!detail::skipValue(c, 1))
            return false;
        member.value = QByteArrayView(valueStart, c.p - valueStart);
        sink.call(sink.context, member);
        c.skipWs();
        if (c.atEnd())
            return false;
        if (*c.p == ',') {
            ++c.p;
            continue;
        }
        if (*c.p == '}') {
            ++c.p;
            c.skipWs();
            return c.atEnd();
        }
        return false;
    }
}

Reader::Reader(QByteArrayView json)
    : m_begin(json.data())
    , m_p(json.data())
    , m_end(json.data() + json.size())
{
    Cursor c{m_p, m_end};
    c.skipWs();
    m_p = c.p;
}

Reader Reader::resumed(QByteArrayView json, const Mark &mark)
{
    Reader r(json);
    if (mark.offset > json.size() || mark.depth <= 0) {
        r.fail();
        return r;
    }
    r.m_p = json.data() + mark.offset;
    r.m_depth = mark.depth;
    r.m_first = true;
    r.m_nonAscii = mark.nonAscii;
    return r;
}

bool Reader::finish()
{
    Cursor c{m_p, m_end};
    c.skipWs();
    return !m_failed && m_depth == 0 && c.atEnd();
}

std::optional<QString> decodeString(QByteArrayView raw)
{
    if (raw.size() < 2 || raw.front() != '"' || raw.back() != '"')
        return std::nullopt;
    Cursor check{raw.data(), raw.data() + raw.size()};
    if (!skipString(check) || check.p != check.end)
        return std::nullopt;
    const QByteArrayView body = raw.sliced(1, raw.size() - 2);
    // The skip has seen every byte: plain ASCII needs no second look.
    if (!check.hasEscapes)
        return check.nonAscii ? decodeUtf8(body) : QString::fromLatin1(body);

    QString out;
    out.reserve(body.size());
    const char *p = body.data();
    const char *end = p + body.size();
    while (p < end) {
        const char *run = p;
        while (p < end && *p != '\\')
            ++p;
        if (p > run) {
            const auto piece = decodeUtf8(QByteArrayView(run, p - run));
            if (!piece)
                return std::nullopt;
            out += *piece;
        }
        if (p >= end)
            break;
        const char e = p[1];
        p += 2;
        switch (e) {
        case '"':
            out += u'"';
            break;
        case '\\':
            out += u'\\';
            break;
        case '/':
            out += u'/';
            break;
        case 'b':
            out += u'\b';
            break;
        case 'f':
            out += u'\f';
            break;
        case 'n':
            out += u'\n';
            break;
        case 'r':
            out += u'\r';
            break;
        case 't':
            out += u'\t';
            break;
        case 'u': {
            char32_t cp = hexValue(p);
            p += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                // A high surrogate must be followed by an escaped low surrogate.
                if (end - p >= 6 && p[0] == '\\' && p[1] == 'u') {
                    const char32_t low = hexValue(p + 2);
                    if (low >= 0xDC00 && low <= 0xDFFF) {
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                        p += 6;
                    } else {
                        cp = 0xFFFD;
                    }
                } else {
                    cp = 0xFFFD;
                }
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                cp = 0xFFFD; // lone low surrogate
            }
            appendUtf16(out, cp);
            break;
        }
        default:
            return std::nullopt; // unreachable: validated above
        }
    }
    return out;
}

std::optional<qint64> decodeInteger(QByteArrayView raw)
{
    if (raw.isEmpty())
        return std::nullopt;
    const char *p = raw.data();
    const char *end = p + raw.size();
    bool negative = false;
    if (*p == '-') {
        negative = true;
        ++p;
    }
    // More than 19 digits cannot fit in qint64 (and could overflow the accumulator below).
    if (p >= end || end - p > 19)
        return std::nullopt;
    quint64 value = 0;
    constexpr quint64 limit = quint64(std::numeric_limits<qint64>::max());
    for (; p < end; ++p) {
        if (*p < '0' || *p > '9')
            return std::nullopt;
        value = value * 10 + quint64(*p - '0');
        if (value > limit + (negative ? 1 : 0))
            return std::nullopt;
    }
    if (negative)
        return value == limit + 1 ? std::numeric_limits<qint64>::min() : -qint64(value);
    return qint64(value);
}

} // namespace Runwatch::JsonScan
