// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>

#include <optional>

namespace Runwatch {

// RFC 6901 JSON Pointer ("/task/output/0/text"), used by connection profiles to find fields in
// a job service's own JSON shape. "" addresses the whole document. Parsed once, evaluated often.
class JsonPointer
{
public:
    JsonPointer() = default; // the empty pointer: the whole document

    // nullopt (and *error) for text that is not a pointer: not starting with '/', or a '~' not
    // followed by '0' or '1'.
    static std::optional<JsonPointer> parse(QStringView text, QString *error = nullptr);

    // The value the pointer addresses, or Undefined when any step is missing. Array steps must
    // be canonical indices ("0", "12"; not "01", "-", "+1").
    QJsonValue evaluate(const QJsonValue &document) const;
    QJsonValue evaluate(const QJsonObject &document) const { return evaluate(QJsonValue(document)); }

    // Writes `value` at the pointer inside `document`, creating objects for missing steps.
    // Returns false when a step runs into something that is not an object (arrays included:
    // request bodies are built from objects only) or when the pointer is empty.
    bool set(QJsonObject &document, const QJsonValue &value) const;

    bool isRoot() const { return m_tokens.isEmpty(); }
    const QStringList &tokens() const { return m_tokens; }
    QString toString() const;

    friend bool operator==(const JsonPointer &, const JsonPointer &) = default;

private:
    QStringList m_tokens; // unescaped reference tokens
};

} // namespace Runwatch
