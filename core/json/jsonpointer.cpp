// SPDX-License-Identifier: GPL-3.0-or-later
#include "jsonpointer.h"

#include <QJsonArray>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

// Deeper pointers are certainly a mistake in a profile; the bound keeps set() from building
// absurd documents.
constexpr qsizetype kMaxTokens = 64;

std::optional<qsizetype> arrayIndex(const QString &token)
{
    if (token.isEmpty() || token.size() > 9)
        return std::nullopt;
    if (token.size() > 1 && token.front() == u'0')
        return std::nullopt;
    qsizetype index = 0;
    for (const QChar c : token) {
        if (c < u'0' || c > u'9')
            return std::nullopt;
        index = index * 10 + (c.unicode() - u'0');
    }
    return index;
}

bool setIn(QJsonObject &object, const QStringList &tokens, qsizetype at, const QJsonValue &value)
{
    const QString &key = tokens.at(at);
    if (at == tokens.size() - 1) {
        object.insert(key, value);
        return true;
    }
    const QJsonValue existing = object.value(key);
    if (!existing.isUndefined() && !existing.isNull() && !existing.isObject())
        return false;
    QJsonObject child = existing.toObject();
    if (!setIn(child, tokens, at + 1, value))
        return false;
    object.insert(key, child);
    return true;
}

} // namespace

std::optional<JsonPointer> JsonPointer::parse(QStringView text, QString *error)
{
    const auto fail = [&](const QString &why) -> std::optional<JsonPointer> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    JsonPointer pointer;
    if (text.isEmpty())
        return pointer;
    if (text.front() != u'/')
        return fail(u"JSON pointer \"%1\" must start with '/'"_s.arg(text));
    const auto parts = text.mid(1).split(u'/');
    if (parts.size() > kMaxTokens)
        return fail(u"JSON pointer \"%1\" is deeper than %2 steps"_s.arg(text).arg(kMaxTokens));
    for (const QStringView part : parts) {
        QString token;
        token.reserve(part.size());
        for (qsizetype i = 0; i < part.size(); ++i) {
            const QChar c = part.at(i);
            if (c != u'~') {
                token += c;
                continue;
            }
            const QChar next = i + 1 < part.size() ? part.at(i + 1) : QChar();
            if (next == u'0') {
                token += u'~';
            } else if (next == u'1') {
                token += u'/';
            } else {
                return fail(u"JSON pointer \"%1\": '~' must be followed by 0 or 1"_s.arg(text));
            }
            ++i;
        }
        pointer.m_tokens << token;
    }
    return pointer;
}

QJsonValue JsonPointer::evaluate(const QJsonValue &document) const
{
    QJsonValue current = document;
    for (const QString &token : m_tokens) {
        if (current.isObject()) {
            const QJsonObject object = current.toObject();
            const auto it = object.constFind(token);
            if (it == object.constEnd())
                return QJsonValue(QJsonValue::Undefined);
            current = it.value();
        } else if (current.isArray()) {
            const QJsonArray array = current.toArray();
            const auto index = arrayIndex(token);
            if (!index || *index >= array.size())
                return QJsonValue(QJsonValue::Undefined);
            current = array.at(*index);
        } else {
            return QJsonValue(QJsonValue::Undefined);
        }
    }
    return current;
}

bool JsonPointer::set(QJsonObject &document, const QJsonValue &value) const
{
    if (m_tokens.isEmpty())
        return false;
    return setIn(document, m_tokens, 0, value);
}

QString JsonPointer::toString() const
{
    QString out;
    for (QString token : m_tokens) {
        token.replace(u'~', u"~0"_s);
        token.replace(u'/', u"~1"_s);
        out += u'/' + token;
    }
    return out;
}

} // namespace Runwatch
