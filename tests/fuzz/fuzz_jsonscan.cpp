// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for JsonScan (the hot-path JSON scanner) with QJsonDocument as the oracle.
//
// The two must agree on validity wherever both are strict. Qt's parser is more lenient than
// RFC 8259 in a few known ways (tests/unit/json/tst_jsonscan.cpp): raw control characters inside strings,
// unknown escapes such as \q, "1." or ".1" (digits on one side of the point), a leading UTF-8
// BOM, and nesting deeper than our cap of 256 levels. Inputs that can trigger one of these are
// compared in one direction only: the scanner may be stricter there, never more lenient.
// Conversely Qt is stricter on numbers that overflow a double, and the scanner checks UTF-8 only
// when a string is decoded (skipping is the hot path): there Qt may reject what the scanner takes.
//
// Where the scanner accepts, every member must exist in Qt's object with the same decoded key,
// string values must decode to the same text, and integer literals to the same qint64.
// decodeString and decodeInteger are also checked on the raw input itself.
//
//   fuzz_jsonscan -dict=tests/fuzz/jsonscan.dict tests/fuzz/corpus/jsonscan
#include "fuzzsupport.h"
#include "json/jsonscan.h"

#include <QHash>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QStringDecoder>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace Runwatch;
using namespace Qt::StringLiterals;

const char *const RunwatchFuzz::kTarget = "JsonScan";
using RunwatchFuzz::check;
using RunwatchFuzz::violation;

namespace {

bool isValidUtf8(QByteArrayView bytes)
{
    QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    // decode() is lazy: the conversion (and the error state) happens on assignment to QString.
    const QString text = decoder(bytes);
    return !decoder.hasError();
}

bool isEscapeChar(char c)
{
    return c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' || c == 'r' || c == 't'
           || c == 'u';
}

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

// True when the input contains something on which Qt is known to be more lenient than RFC 8259
// (see the file comment). A lexical walk, not a parser: it only has to find the triggers.
bool qtMayBeLenient(QByteArrayView json)
{
    if (json.startsWith("\xef\xbb\xbf"))
        return true;
    bool inString = false;
    int depth = 0;
    for (qsizetype i = 0; i < json.size(); ++i) {
        const char c = json[i];
        if (inString) {
            if (c == '"') {
                inString = false;
            } else if (c == '\\') {
                if (i + 1 >= json.size() || !isEscapeChar(json[i + 1]))
                    return true;
                ++i; // the escaped character (a \u's hex digits are plain characters)
            } else if (static_cast<unsigned char>(c) < 0x20) {
                return true;
            }
            continue;
        }
        if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            if (++depth > 256)
                return true;
        } else if (c == '}' || c == ']') {
            --depth;
        } else if (c == '.'
                   && (i == 0 || !isDigit(json[i - 1]) || i + 1 >= json.size() || !isDigit(json[i + 1]))) {
            return true; // "1." and ".1": Qt takes a fraction with digits on one side only
        }
    }
    return false;
}

// Qt keeps an escaped lone surrogate (\ud800) as is; decodeString replaces it with U+FFFD by
// design (tst_jsonscan lonelySurrogateBecomesReplacement). Compare after the same replacement.
QString withReplacedLoneSurrogates(QString text)
{
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (c.isHighSurrogate() && i + 1 < text.size() && text.at(i + 1).isLowSurrogate()) {
            ++i;
        } else if (c.isSurrogate()) {
            text[i] = QChar::ReplacementCharacter;
        }
    }
    return text;
}

// Qt rejects a number whose magnitude overflows a double ("1e400") or whose exponent is absurd
// ("0.5e-0999999919999999"); RFC 8259 §9 lets parsers limit the range, and the scanner, which
// never converts skipped numbers, accepts them. Finds any number-like token outside strings that
// strtod reports out of range (overflow or underflow).
bool hasHugeNumber(QByteArrayView json)
{
    bool inString = false;
    for (qsizetype i = 0; i < json.size(); ++i) {
        const char c = json[i];
        if (inString) {
            if (c == '\\') {
                ++i;
            } else if (c == '"') {
                inString = false;
            }
            continue;
        }
        if (c == '"') {
            inString = true;
            continue;
        }
        if (c != '-' && !isDigit(c))
            continue;
        qsizetype end = i + 1;
        while (end < json.size()
               && (isDigit(json[end]) || json[end] == '.' || json[end] == 'e' || json[end] == 'E'
                   || json[end] == '+' || json[end] == '-'))
            ++end;
        const QByteArray token = json.sliced(i, end - i).toByteArray();
        errno = 0;
        const double value = std::strtod(token.constData(), nullptr);
        if (std::isinf(value) || errno == ERANGE)
            return true;
        i = end - 1;
    }
    return false;
}

// Qt 6.4 drops one raw (UTF-8 encoded) U+FEFF at the very start of a string, key or value, as if
// it were a byte-order mark; an escaped \ufeff, or one further in, is kept. decodeString keeps
// it: it is text. Strings that start so are not compared.
bool qtDropsLeadingBom(QByteArrayView json)
{
    return json.contains("\"\xef\xbb\xbf");
}

// -?[0-9]+ : what decodeInteger must parse exactly like strtoll.
bool isIntegerLiteral(QByteArrayView raw)
{
    qsizetype i = raw.startsWith('-') ? 1 : 0;
    if (i >= raw.size())
        return false;
    for (; i < raw.size(); ++i) {
        if (!isDigit(raw[i]))
            return false;
    }
    return true;
}

void checkInteger(QByteArrayView raw)
{
    const std::optional<qint64> mine = JsonScan::decodeInteger(raw);
    if (!isIntegerLiteral(raw)) {
        check(!mine, "decodeInteger accepted something that is not an integer literal");
        return;
    }
    bool ok = false;
    const qint64 reference = raw.toByteArray().toLongLong(&ok);
    // Leading zeros are not JSON (the scanner never hands such a span over): decodeInteger may
    // refuse them, but what it accepts must still be right.
    const qsizetype firstDigit = raw.startsWith('-') ? 1 : 0;
    const bool leadingZero = raw.size() > firstDigit + 1 && raw[firstDigit] == '0';
    check(bool(mine) == ok || (leadingZero && !mine), "decodeInteger disagrees with toLongLong on range");
    if (mine)
        check(*mine == reference, "decodeInteger value differs from toLongLong");
}

// decodeString on its own: whatever it accepts Qt must accept as a string and decode alike.
void checkString(QByteArrayView raw)
{
    const std::optional<QString> mine = JsonScan::decodeString(raw);
    if (!mine || qtMayBeLenient(raw) || qtDropsLeadingBom(raw))
        return;
    QJsonParseError error{};
    const QByteArray wrapped = "{\"k\":" + raw.toByteArray() + '}';
    const QJsonDocument doc = QJsonDocument::fromJson(wrapped, &error);
    check(error.error == QJsonParseError::NoError && doc.isObject(), "decodeString accepted what Qt rejects");
    const QJsonValue value = doc.object().value(u"k"_s);
    check(value.isString(), "decodeString accepted a non-string");
    check(withReplacedLoneSurrogates(value.toString()) == *mine, "decodeString differs from Qt's decoding");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
    const QByteArrayView json(reinterpret_cast<const char *>(bytes), qsizetype(size));

    QList<JsonScan::Member> members;
    const bool ok = JsonScan::forEachMember(json, [&](const JsonScan::Member &m) { members.append(m); });

    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(json.toByteArray(), &error);
    const bool qtOk = error.error == QJsonParseError::NoError && doc.isObject();

    const bool lenient = qtMayBeLenient(json);
    const bool stricter = !isValidUtf8(json) || hasHugeNumber(json);
    if (!lenient && !stricter) {
        check(ok == qtOk, "validity differs from QJsonDocument on strict input");
    } else if (!stricter) {
        check(!ok || qtOk, "the scanner accepted what even lenient Qt rejects");
    } else if (!lenient) {
        check(ok || !qtOk, "the scanner rejected what even strict Qt accepts");
    }

    if (ok && qtOk) {
        // Keys compared with lone surrogates replaced as decodeString does; skipped in the rare
        // case where that makes two of Qt's keys collide.
        const QJsonObject qtObject = doc.object();
        QHash<QString, QJsonValue> object;
        for (auto it = qtObject.constBegin(); it != qtObject.constEnd(); ++it)
            object.insert(withReplacedLoneSurrogates(it.key()), it.value());
        const bool keysComparable = object.size() == qtObject.size() && !qtDropsLeadingBom(json);
        // Qt keeps the last of duplicate keys; so does this map.
        QHash<QString, QByteArrayView> last;
        for (const JsonScan::Member &m : std::as_const(members)) {
            const QByteArray quoted = '"' + m.key.toByteArray() + '"';
            const std::optional<QString> key = JsonScan::decodeString(quoted);
            check(key.has_value(), "a member key of a valid document does not decode");
            last.insert(*key, m.value);
        }
        check(!keysComparable || last.size() == object.size(), "member count differs from QJsonObject");
        for (auto it = last.cbegin(); keysComparable && it != last.cend(); ++it) {
            check(object.contains(it.key()), "a key is missing from QJsonObject");
            const QJsonValue value = object.value(it.key());
            const QByteArrayView raw = it.value();
            if (raw.startsWith('"')) {
                const std::optional<QString> text = JsonScan::decodeString(raw);
                check(text.has_value(), "a string value of a valid document does not decode");
                check(value.isString() && withReplacedLoneSurrogates(value.toString()) == *text,
                      "string value differs from Qt");
            } else if (isIntegerLiteral(raw)) {
                check(value.isDouble(), "an integer literal is not a number to Qt");
                const std::optional<qint64> n = JsonScan::decodeInteger(raw);
                // Qt keeps integers that fit in qint64 exactly (QCborValue underneath).
                if (n)
                    check(value.toInteger(*n == 0 ? 1 : 0) == *n, "integer value differs from Qt");
            }
        }
    }

    // Scanner spans are exactly the raw values: each one decodes like Qt (strings, integers)
    // and the decoders are total on arbitrary input too.
    for (const JsonScan::Member &m : std::as_const(members)) {
        checkInteger(m.value);
        checkString(m.value);
    }
    checkInteger(json);
    checkString(json);
    return 0;
}
