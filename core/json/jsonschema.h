// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace Runwatch {

// A JSON Schema a service sends with a question (MCP elicitation, a job's form, a graph's
// interrupt) is shown as a typed form when it stays inside a small subset, and as a JSON editor
// otherwise. Both check the answer with validateJson() before anything is sent.
//
// The form subset: an object (`type: "object"` or just `properties`) whose every property is
// - a string (`minLength`, `maxLength`, `pattern`, `format` email / uri / date / date-time);
//   multi-line when `format` is "textarea" or `maxLength` is above kMultiLineMinLength;
// - a number or an integer (`minimum`, `maximum`, exclusive bounds checked on send);
// - a boolean;
// - a choice: `enum` of strings or numbers, or `oneOf`/`anyOf` of `{const, title}`;
// - several choices: an array whose `items` are such a choice (`minItems`, `maxItems`);
// with `required`, `title`, `description` and `default`. Anything else (nested objects, type
// unions, `$ref`, …) is outside it.

struct SchemaField
{
    enum class Type { Text, MultiLineText, Integer, Number, Boolean, Choice, MultiChoice };

    QString key;   // the property name: the answer's member
    QString title; // the schema's title, else the key
    QString description;
    Type type = Type::Text;
    bool required = false;
    QJsonValue defaultValue{QJsonValue::Undefined}; // none unless the schema gives one
    std::optional<double> minimum;
    std::optional<double> maximum;
    std::optional<qsizetype> maxLength;
    QJsonArray choices;       // Choice / MultiChoice: the values, in the schema's order
    QStringList choiceTitles; // the same choices as shown (the const's title, else the value)
};

// A string past this maxLength reads as prose: a multi-line field.
inline constexpr qsizetype kMultiLineMinLength = 200;

struct SchemaForm
{
    QString title;
    QString description;
    QList<SchemaField> fields; // in the schema's property order

    // nullopt when `schema` is outside the form subset (see above): show a JSON editor.
    static std::optional<SchemaForm> fromSchema(const QJsonObject &schema);
    // The defaults the schema gives, as the answer object they start.
    QJsonObject defaults() const;
};

// Checks `value` against `schema`: type, enum / const, oneOf / anyOf, required, properties,
// additionalProperties: false, string length / pattern / format, number bounds, array items
// and sizes. Keywords outside that are not checked (the service still may refuse). Returns the
// problems, operator-facing and translated, each naming its field ("replicas: must be at most
// 10"); empty when the value fits.
QStringList validateJson(const QJsonObject &schema, const QJsonValue &value);

// Parses JSON text of any value (object, array, string, number, true, false, null). nullopt and
// an operator-facing *error when it is not exactly one JSON value.
std::optional<QJsonValue> parseJsonValue(const QString &text, QString *error = nullptr);

// Compact JSON text of any value.
QString jsonValueText(const QJsonValue &value);

} // namespace Runwatch
