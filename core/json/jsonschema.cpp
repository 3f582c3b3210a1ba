// SPDX-License-Identifier: GPL-3.0-or-later
#include "jsonschema.h"

#include <QCoreApplication>
#include <QDate>
#include <QDateTime>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QUrl>

#include <cmath>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

// The messages' translation context (lupdate reads Text::tr() under "JsonSchema").
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(JsonSchema)
};

// A schema's "type" as a list ("integer", ["string","null"]); empty when it names none.
QStringList typeNames(const QJsonObject &schema)
{
    const QJsonValue type = schema.value(u"type"_s);
    if (type.isString())
        return {type.toString()};
    QStringList names;
    const QJsonArray list = type.toArray();
    for (const QJsonValue &v : list)
        names << v.toString();
    return names;
}

bool isScalar(const QJsonValue &v)
{
    return v.isString() || v.isDouble();
}

QString scalarTitle(const QJsonValue &v)
{
    return v.isString() ? v.toString() : jsonValueText(v);
}

// A choice: `enum` of strings / numbers, or oneOf / anyOf of {const, title?}. False when the
// schema is no such choice.
bool readChoices(const QJsonObject &schema, QJsonArray *values, QStringList *titles)
{
    if (schema.contains(u"enum"_s)) {
        const QJsonArray list = schema.value(u"enum"_s).toArray();
        for (const QJsonValue &v : list) {
            if (!isScalar(v))
                return false;
            values->append(v);
            *titles << scalarTitle(v);
        }
        return !values->isEmpty();
    }
    for (const QString &key : {u"oneOf"_s, u"anyOf"_s}) {
        if (!schema.contains(key))
            continue;
        const QJsonArray list = schema.value(key).toArray();
        for (const QJsonValue &v : list) {
            const QJsonObject option = v.toObject();
            const QJsonValue value = option.value(u"const"_s);
            if (!isScalar(value))
                return false;
            values->append(value);
            const QString title = option.value(u"title"_s).toString();
            *titles << (title.isEmpty() ? scalarTitle(value) : title);
        }
        return !values->isEmpty();
    }
    return false;
}

std::optional<double> number(const QJsonObject &schema, const QString &key)
{
    const QJsonValue v = schema.value(key);
    if (v.isDouble() && std::isfinite(v.toDouble()))
        return v.toDouble();
    return std::nullopt;
}

std::optional<SchemaField> fieldFrom(const QString &key, const QJsonObject &schema)
{
    SchemaField f;
    f.key = key;
    f.title = schema.value(u"title"_s).toString();
    if (f.title.isEmpty())
        f.title = key;
    f.description = schema.value(u"description"_s).toString();
    f.defaultValue = schema.value(u"default"_s);
    const QStringList types = typeNames(schema);
    if (types.size() > 1)
        return std::nullopt;
    const QString type = types.value(0);
    if (type != u"array" && readChoices(schema, &f.choices, &f.choiceTitles)) {
        f.type = SchemaField::Type::Choice;
        return f;
    }
    if (type == u"string") {
        f.maxLength = schema.value(u"maxLength"_s).isDouble()
                          ? std::optional<qsizetype>(schema.value(u"maxLength"_s).toInteger())
                          : std::nullopt;
        const bool prose = schema.value(u"format"_s).toString() == u"textarea"
                           || (f.maxLength && *f.maxLength > kMultiLineMinLength);
        f.type = prose ? SchemaField::Type::MultiLineText : SchemaField::Type::Text;
        return f;
    }
    if (type == u"integer" || type == u"number") {
        f.type = type == u"integer" ? SchemaField::Type::Integer : SchemaField::Type::Number;
        f.minimum = number(schema, u"minimum"_s);
        f.maximum = number(schema, u"maximum"_s);
        return f;
    }
    if (type == u"boolean") {
        f.type = SchemaField::Type::Boolean;
        return f;
    }
    if (type == u"array") {
        const QJsonObject items = schema.value(u"items"_s).toObject();
        if (!readChoices(items, &f.choices, &f.choiceTitles))
            return std::nullopt;
        f.type = SchemaField::Type::MultiChoice;
        return f;
    }
    return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Validation

QString fieldLabel(const QString &path)
{
    return path.isEmpty() ? Text::tr("The answer") : path;
}

void addError(QStringList *errors, const QString &path, const QString &problem)
{
    errors->append(Text::tr("%1: %2").arg(fieldLabel(path), problem));
}

QString childPath(const QString &path, const QString &key)
{
    return path.isEmpty() ? key : path + u'.' + key;
}

bool hasType(const QJsonValue &v, const QString &type)
{
    if (type == u"string")
        return v.isString();
    if (type == u"number")
        return v.isDouble();
    if (type == u"integer")
        return v.isDouble() && std::isfinite(v.toDouble()) && std::floor(v.toDouble()) == v.toDouble();
    if (type == u"boolean")
        return v.isBool();
    if (type == u"object")
        return v.isObject();
    if (type == u"array")
        return v.isArray();
    if (type == u"null")
        return v.isNull();
    return true; // a type we do not know is not ours to refuse
}

QString typeText(const QString &type)
{
    if (type == u"string")
        return Text::tr("must be text");
    if (type == u"number")
        return Text::tr("must be a number");
    if (type == u"integer")
        return Text::tr("must be a whole number");
    if (type == u"boolean")
        return Text::tr("must be true or false");
    if (type == u"object")
        return Text::tr("must be an object");
    if (type == u"array")
        return Text::tr("must be a list");
    if (type == u"null")
        return Text::tr("must be null");
    return Text::tr("has the wrong type");
}

QString numberText(double v)
{
    return QString::number(v, 'g', 15);
}

bool formatFits(const QString &format, const QString &text)
{
    if (format == u"email") {
        static const QRegularExpression email(u"^[^@\\s]+@[^@\\s]+$"_s);
        return email.match(text).hasMatch();
    }
    if (format == u"uri") {
        const QUrl url(text, QUrl::StrictMode);
        return url.isValid() && !url.scheme().isEmpty();
    }
    if (format == u"date")
        return QDate::fromString(text, Qt::ISODate).isValid();
    if (format == u"date-time")
        return QDateTime::fromString(text, Qt::ISODateWithMs).isValid();
    return true; // textarea and formats we do not check
}

void check(const QJsonObject &schema, const QJsonValue &v, const QString &path, QStringList *errors);

void checkString(const QJsonObject &schema, const QString &text, const QString &path, QStringList *errors)
{
    const qsizetype length = text.toUcs4().size(); // JSON Schema counts code points
    if (schema.value(u"minLength"_s).isDouble() && length < schema.value(u"minLength"_s).toInteger()) {
        const qint64 min = schema.value(u"minLength"_s).toInteger();
        addError(errors, path,
                 min == 1 && text.isEmpty() ? Text::tr("must not be empty")
                                            : Text::tr("must be at least %1 characters long").arg(min));
    }
    if (schema.value(u"maxLength"_s).isDouble() && length > schema.value(u"maxLength"_s).toInteger()) {
        addError(
            errors, path,
            Text::tr("must be at most %1 characters long").arg(schema.value(u"maxLength"_s).toInteger()));
    }
    const QString pattern = schema.value(u"pattern"_s).toString();
    if (!pattern.isEmpty()) {
        // ECMA 262 patterns are unanchored, like QRegularExpression's match(); a pattern Qt
        // cannot read is left to the service.
        const QRegularExpression re(pattern);
        if (re.isValid() && !re.match(text).hasMatch())
            addError(errors, path, Text::tr("does not have the expected form (%1)").arg(pattern));
    }
    const QString format = schema.value(u"format"_s).toString();
    if (!text.isEmpty() && !formatFits(format, text))
        addError(errors, path, Text::tr("is not a valid %1").arg(format));
}

void checkNumber(const QJsonObject &schema, double n, const QString &path, QStringList *errors)
{
    if (const auto min = number(schema, u"minimum"_s); min && n < *min)
        addError(errors, path, Text::tr("must be at least %1").arg(numberText(*min)));
    if (const auto max = number(schema, u"maximum"_s); max && n > *max)
        addError(errors, path, Text::tr("must be at most %1").arg(numberText(*max)));
    if (const auto min = number(schema, u"exclusiveMinimum"_s); min && n <= *min)
        addError(errors, path, Text::tr("must be more than %1").arg(numberText(*min)));
    if (const auto max = number(schema, u"exclusiveMaximum"_s); max && n >= *max)
        addError(errors, path, Text::tr("must be less than %1").arg(numberText(*max)));
}

void checkObject(const QJsonObject &schema, const QJsonObject &o, const QString &path, QStringList *errors)
{
    const QJsonObject properties = schema.value(u"properties"_s).toObject();
    const QJsonArray required = schema.value(u"required"_s).toArray();
    for (const QJsonValue &name : required) {
        if (!o.contains(name.toString()))
            errors->append(Text::tr("%1: is required").arg(childPath(path, name.toString())));
    }
    for (auto it = o.constBegin(); it != o.constEnd(); ++it) {
        if (properties.contains(it.key())) {
            check(properties.value(it.key()).toObject(), it.value(), childPath(path, it.key()), errors);
        } else if (schema.value(u"additionalProperties"_s) == QJsonValue(false)) {
            addError(errors, childPath(path, it.key()), Text::tr("is not a field of this form"));
        }
    }
}

void checkArray(const QJsonObject &schema, const QJsonArray &a, const QString &path, QStringList *errors)
{
    if (schema.value(u"minItems"_s).isDouble() && a.size() < schema.value(u"minItems"_s).toInteger()) {
        addError(errors, path,
                 Text::tr("needs at least %1 entries").arg(schema.value(u"minItems"_s).toInteger()));
    }
    if (schema.value(u"maxItems"_s).isDouble() && a.size() > schema.value(u"maxItems"_s).toInteger()) {
        addError(errors, path,
                 Text::tr("takes at most %1 entries").arg(schema.value(u"maxItems"_s).toInteger()));
    }
    if (schema.value(u"uniqueItems"_s).toBool()) {
        bool repeated = false;
        for (qsizetype i = 1; i < a.size() && !repeated; ++i) {
            for (qsizetype j = 0; j < i && !repeated; ++j) {
                if (a.at(j) == a.at(i)) {
                    addError(errors, path, Text::tr("lists %1 twice").arg(jsonValueText(a.at(i))));
                    repeated = true;
                }
            }
        }
    }
    if (schema.value(u"items"_s).isObject()) {
        const QJsonObject items = schema.value(u"items"_s).toObject();
        for (qsizetype i = 0; i < a.size(); ++i)
            check(items, a.at(i), u"%1[%2]"_s.arg(fieldLabel(path)).arg(i), errors);
    }
}

void check(const QJsonObject &schema, const QJsonValue &v, const QString &path, QStringList *errors)
{
    const QStringList types = typeNames(schema);
    if (!types.isEmpty()) {
        bool fits = false;
        for (const QString &type : types)
            fits = fits || hasType(v, type);
        if (!fits) {
            addError(errors, path, typeText(types.first()));
            return; // the other keywords would only repeat the mismatch
        }
    }
    if (schema.contains(u"enum"_s) && !schema.value(u"enum"_s).toArray().contains(v)) {
        QStringList allowed;
        const QJsonArray list = schema.value(u"enum"_s).toArray();
        for (const QJsonValue &option : list)
            allowed << jsonValueText(option);
        addError(errors, path, Text::tr("must be one of %1").arg(allowed.join(u", "_s)));
    }
    if (schema.contains(u"const"_s) && schema.value(u"const"_s) != v)
        addError(errors, path, Text::tr("must be %1").arg(jsonValueText(schema.value(u"const"_s))));
    for (const QString &key : {u"oneOf"_s, u"anyOf"_s}) {
        if (!schema.value(key).isArray())
            continue;
        int matches = 0;
        const QJsonArray list = schema.value(key).toArray();
        for (const QJsonValue &option : list) {
            QStringList inner;
            check(option.toObject(), v, path, &inner);
            matches += inner.isEmpty() ? 1 : 0;
        }
        if (matches == 0 || (key == u"oneOf" && matches > 1))
            addError(errors, path, Text::tr("is none of the allowed choices"));
    }
    if (v.isString()) {
        checkString(schema, v.toString(), path, errors);
    } else if (v.isDouble()) {
        checkNumber(schema, v.toDouble(), path, errors);
    } else if (v.isObject()) {
        checkObject(schema, v.toObject(), path, errors);
    } else if (v.isArray()) {
        checkArray(schema, v.toArray(), path, errors);
    }
}

} // namespace

std::optional<SchemaForm> SchemaForm::fromSchema(const QJsonObject &schema)
{
    const QStringList types = typeNames(schema);
    if (!(types == QStringList{u"object"_s} || (types.isEmpty() && schema.value(u"properties"_s).isObject())))
        return std::nullopt;
    for (const QString &keyword : {u"$ref"_s, u"allOf"_s, u"anyOf"_s, u"oneOf"_s, u"not"_s, u"if"_s,
                                   u"patternProperties"_s, u"dependentRequired"_s, u"dependentSchemas"_s}) {
        if (schema.contains(keyword))
            return std::nullopt;
    }
    const QJsonObject properties = schema.value(u"properties"_s).toObject();
    if (properties.isEmpty())
        return std::nullopt;
    SchemaForm form;
    form.title = schema.value(u"title"_s).toString();
    form.description = schema.value(u"description"_s).toString();
    // QJsonObject keeps its members sorted, not in the order the service wrote them: the
    // required fields come first in the order `required` lists them, then the rest by name.
    QStringList order;
    const QJsonArray required = schema.value(u"required"_s).toArray();
    for (const QJsonValue &name : required) {
        if (properties.contains(name.toString()) && !order.contains(name.toString()))
            order << name.toString();
    }
    for (auto it = properties.constBegin(); it != properties.constEnd(); ++it) {
        if (!order.contains(it.key()))
            order << it.key();
    }
    for (const QString &key : std::as_const(order)) {
        const QJsonValue property = properties.value(key);
        if (!property.isObject())
            return std::nullopt;
        std::optional<SchemaField> field = fieldFrom(key, property.toObject());
        if (!field)
            return std::nullopt;
        field->required = required.contains(key);
        form.fields << *field;
    }
    return form;
}

QJsonObject SchemaForm::defaults() const
{
    QJsonObject o;
    for (const SchemaField &field : fields) {
        if (!field.defaultValue.isUndefined())
            o.insert(field.key, field.defaultValue);
    }
    return o;
}

QStringList validateJson(const QJsonObject &schema, const QJsonValue &value)
{
    QStringList errors;
    check(schema, value, QString(), &errors);
    return errors;
}

std::optional<QJsonValue> parseJsonValue(const QString &text, QString *error)
{
    // QJsonDocument reads only objects and arrays: a one-element array reads any value, and a
    // second element (text after the value) is refused below.
    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(u"[%1\n]"_s.arg(text).toUtf8(), &parseError);
    if (parseError.error != QJsonParseError::NoError || doc.array().size() != 1) {
        if (error && text.trimmed().isEmpty()) {
            *error = Text::tr("No JSON value given.");
        } else if (error && parseError.error == QJsonParseError::NoError) {
            *error = Text::tr("Not valid JSON: more than one value.");
        } else if (error) {
            *error = Text::tr("Not valid JSON: %1 (at character %2).")
                         .arg(parseError.errorString())
                         .arg(std::max(0, parseError.offset - 1));
        }
        return std::nullopt;
    }
    return doc.array().first();
}

QString jsonValueText(const QJsonValue &value)
{
    const QByteArray wrapped = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return QString::fromUtf8(wrapped.mid(1, wrapped.size() - 2));
}

} // namespace Runwatch
