// SPDX-License-Identifier: GPL-3.0-or-later
// The JSON-Schema subset of typed answers (core/json/jsonschema): which schemas become a form and
// how their fields read (each type, bounds, choices, required, defaults, the multi-line rule),
// which fall back to the JSON editor, and what validateJson() refuses, naming the field.
#include "json/jsonschema.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {

QJsonObject json(const char *text)
{
    QJsonParseError error{};
    const QJsonObject o = QJsonDocument::fromJson(QByteArray(text), &error).object();
    if (error.error != QJsonParseError::NoError)
        qFatal("bad test JSON: %s", text);
    return o;
}

QJsonValue value(const char *text)
{
    return parseJsonValue(QString::fromUtf8(text)).value_or(QJsonValue(QJsonValue::Undefined));
}

// The release form the jobs simulator's "form" scenario asks for, plus a multi-choice field.
const char *const kRelease = R"({"type":"object","title":"Release details",
  "properties":{
    "title":{"type":"string","title":"Release title","minLength":1,"maxLength":80},
    "replicas":{"type":"integer","title":"Replicas","minimum":1,"maximum":10,"default":2},
    "budget":{"type":"number","minimum":0,"maximum":5000},
    "dry_run":{"type":"boolean","default":true},
    "region":{"type":"string","enum":["eu-west","us-east"]},
    "tier":{"oneOf":[{"const":"s","title":"Small"},{"const":"l","title":"Large"}]},
    "notes":{"type":"string","format":"textarea"},
    "summary":{"type":"string","maxLength":500},
    "email":{"type":"string","format":"email"},
    "code":{"type":"string","pattern":"^[A-Z]{3}$"},
    "channels":{"type":"array","items":{"enum":["email","chat","pager"]},"maxItems":2,"uniqueItems":true,
                "default":["chat"]}},
  "required":["title","replicas","region"],
  "additionalProperties":false})";

const SchemaField *field(const SchemaForm &form, const QString &key)
{
    for (const SchemaField &f : form.fields) {
        if (f.key == key)
            return &f;
    }
    return nullptr;
}

QString joined(const QStringList &errors)
{
    return errors.join(u" | "_s);
}

} // namespace

class TestJsonSchema : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void formFieldsByType()
    {
        const auto form = SchemaForm::fromSchema(json(kRelease));
        QVERIFY(form);
        QCOMPARE(form->title, u"Release details"_s);
        QCOMPARE(form->fields.size(), 11);
        // Required fields first, in `required` order (QJsonObject does not keep member order).
        QCOMPARE(form->fields.at(0).key, u"title"_s);
        QCOMPARE(form->fields.at(1).key, u"replicas"_s);
        QCOMPARE(form->fields.at(2).key, u"region"_s);

        const SchemaField *title = field(*form, u"title"_s);
        QCOMPARE(title->type, SchemaField::Type::Text);
        QCOMPARE(title->title, u"Release title"_s);
        QVERIFY(title->required);
        QCOMPARE(title->maxLength.value_or(-1), 80);

        const SchemaField *replicas = field(*form, u"replicas"_s);
        QCOMPARE(replicas->type, SchemaField::Type::Integer);
        QCOMPARE(replicas->minimum.value_or(-1), 1.0);
        QCOMPARE(replicas->maximum.value_or(-1), 10.0);
        QCOMPARE(replicas->defaultValue, QJsonValue(2));

        const SchemaField *budget = field(*form, u"budget"_s);
        QCOMPARE(budget->type, SchemaField::Type::Number);
        QCOMPARE(budget->title, u"budget"_s); // no title: the key
        QVERIFY(!budget->required);

        QCOMPARE(field(*form, u"dry_run"_s)->type, SchemaField::Type::Boolean);
        QCOMPARE(field(*form, u"dry_run"_s)->defaultValue, QJsonValue(true));

        const SchemaField *region = field(*form, u"region"_s);
        QCOMPARE(region->type, SchemaField::Type::Choice);
        QCOMPARE(region->choices, (QJsonArray{u"eu-west"_s, u"us-east"_s}));
        QCOMPARE(region->choiceTitles, (QStringList{u"eu-west"_s, u"us-east"_s}));

        const SchemaField *tier = field(*form, u"tier"_s);
        QCOMPARE(tier->type, SchemaField::Type::Choice);
        QCOMPARE(tier->choices, (QJsonArray{u"s"_s, u"l"_s}));
        QCOMPARE(tier->choiceTitles, (QStringList{u"Small"_s, u"Large"_s}));

        const SchemaField *channels = field(*form, u"channels"_s);
        QCOMPARE(channels->type, SchemaField::Type::MultiChoice);
        QCOMPARE(channels->choices.size(), 3);
    }

    void multiLineRule()
    {
        const auto form = SchemaForm::fromSchema(json(kRelease));
        QVERIFY(form);
        QCOMPARE(field(*form, u"notes"_s)->type, SchemaField::Type::MultiLineText);   // format textarea
        QCOMPARE(field(*form, u"summary"_s)->type, SchemaField::Type::MultiLineText); // maxLength > 200
        QCOMPARE(field(*form, u"email"_s)->type, SchemaField::Type::Text);
        const auto exact = SchemaForm::fromSchema(
            json(R"({"properties":{"s":{"type":"string","maxLength":200}}})")); // no "type": properties do
        QVERIFY(exact);
        QCOMPARE(exact->fields.first().type, SchemaField::Type::Text);
    }

    void defaults()
    {
        const auto form = SchemaForm::fromSchema(json(kRelease));
        QVERIFY(form);
        QCOMPARE(form->defaults(), json(R"({"replicas":2,"dry_run":true,"channels":["chat"]})"));
    }

    void fallbackOutsideTheSubset_data()
    {
        QTest::addColumn<QByteArray>("schema");
        QTest::newRow("not an object") << QByteArray(R"({"type":"string"})");
        QTest::newRow("no properties") << QByteArray(R"({"type":"object"})");
        QTest::newRow("nested object") << QByteArray(R"({"properties":{"a":{"type":"object"}}})");
        QTest::newRow("type union") << QByteArray(R"({"properties":{"a":{"type":["string","null"]}}})");
        QTest::newRow("$ref") << QByteArray(R"({"properties":{"a":{"$ref":"defs.json"}}})");
        QTest::newRow("root oneOf") << QByteArray(R"({"properties":{"a":{"type":"string"}},"oneOf":[]})");
        QTest::newRow("array of objects")
            << QByteArray(R"({"properties":{"a":{"type":"array","items":{"type":"object"}}}})");
        QTest::newRow("enum of objects") << QByteArray(R"({"properties":{"a":{"enum":[{"x":1}]}}})");
        QTest::newRow("property not an object") << QByteArray(R"({"properties":{"a":true}})");
    }

    void fallbackOutsideTheSubset()
    {
        QFETCH(QByteArray, schema);
        QVERIFY(!SchemaForm::fromSchema(json(schema.constData())));
    }

    void validAnswers()
    {
        const QJsonObject schema = json(kRelease);
        QCOMPARE(joined(validateJson(schema, value(R"({"title":"v2","replicas":3,"region":"eu-west"})"))),
                 QString());
        QCOMPARE(
            joined(validateJson(schema, value(R"({"title":"v2","replicas":10,"region":"us-east","budget":0,
            "dry_run":false,"tier":"l","notes":"a\nb","email":"a@b.c","code":"ABC","channels":["email","pager"]})"))),
            QString());
    }

    void eachProblemNamesItsField_data()
    {
        QTest::addColumn<QByteArray>("answer");
        QTest::addColumn<QString>("expected");
        QTest::newRow("required") << QByteArray(R"({"title":"v2","region":"eu-west"})")
                                  << u"replicas: is required"_s;
        QTest::newRow("integer type") << QByteArray(R"({"title":"v2","replicas":2.5,"region":"eu-west"})")
                                      << u"replicas: must be a whole number"_s;
        QTest::newRow("number as text") << QByteArray(R"({"title":"v2","replicas":"3","region":"eu-west"})")
                                        << u"replicas: must be a whole number"_s;
        QTest::newRow("below minimum") << QByteArray(R"({"title":"v2","replicas":0,"region":"eu-west"})")
                                       << u"replicas: must be at least 1"_s;
        QTest::newRow("above maximum") << QByteArray(R"({"title":"v2","replicas":11,"region":"eu-west"})")
                                       << u"replicas: must be at most 10"_s;
        QTest::newRow("number maximum")
            << QByteArray(R"({"title":"v2","replicas":1,"region":"eu-west","budget":5000.5})")
            << u"budget: must be at most 5000"_s;
        QTest::newRow("boolean type")
            << QByteArray(R"({"title":"v2","replicas":1,"region":"eu-west","dry_run":"true"})")
            << u"dry_run: must be true or false"_s;
        QTest::newRow("enum") << QByteArray(R"({"title":"v2","replicas":1,"region":"mars"})")
                              << u"region: must be one of \"eu-west\", \"us-east\""_s;
        QTest::newRow("oneOf const") << QByteArray(
            R"({"title":"v2","replicas":1,"region":"eu-west","tier":"m"})")
                                     << u"tier: is none of the allowed choices"_s;
        QTest::newRow("empty string")
            << QByteArray(R"({"title":"","replicas":1,"region":"eu-west"})") << u"title: must not be empty"_s;
        QTest::newRow("too long") << QByteArray(R"({"title":")" + QByteArray(81, 'x')
                                                + R"(","replicas":1,"region":"eu-west"})")
                                  << u"title: must be at most 80 characters long"_s;
        QTest::newRow("pattern") << QByteArray(
            R"({"title":"v","replicas":1,"region":"eu-west","code":"abc"})")
                                 << u"code: does not have the expected form (^[A-Z]{3}$)"_s;
        QTest::newRow("format") << QByteArray(
            R"({"title":"v","replicas":1,"region":"eu-west","email":"nope"})")
                                << u"email: is not a valid email"_s;
        QTest::newRow("array item") << QByteArray(
            R"({"title":"v","replicas":1,"region":"eu-west","channels":["fax"]})")
                                    << u"channels[0]: must be one of \"email\", \"chat\", \"pager\""_s;
        QTest::newRow("maxItems") << QByteArray(
            R"({"title":"v","replicas":1,"region":"eu-west","channels":["email","chat","pager"]})")
                                  << u"channels: takes at most 2 entries"_s;
        QTest::newRow("uniqueItems") << QByteArray(
            R"({"title":"v","replicas":1,"region":"eu-west","channels":["chat","chat"]})")
                                     << u"channels: lists \"chat\" twice"_s;
        QTest::newRow("unknown field") << QByteArray(R"({"title":"v","replicas":1,"region":"eu-west","x":1})")
                                       << u"x: is not a field of this form"_s;
        QTest::newRow("not an object") << QByteArray(R"([1])") << u"The answer: must be an object"_s;
    }

    void eachProblemNamesItsField()
    {
        QFETCH(QByteArray, answer);
        QFETCH(QString, expected);
        const QJsonValue v = value(answer.constData());
        QVERIFY2(!v.isUndefined(), answer.constData());
        QCOMPARE(joined(validateJson(json(kRelease), v)), expected);
    }

    void exclusiveBoundsAndNestedPaths()
    {
        const QJsonObject schema
            = json(R"({"type":"object","properties":{"p":{"type":"object","required":["q"],"properties":{
                      "q":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1}}}}})");
        QCOMPARE(joined(validateJson(schema, value(R"({"p":{"q":0.5}})"))), QString());
        QCOMPARE(joined(validateJson(schema, value(R"({"p":{"q":0}})"))), u"p.q: must be more than 0"_s);
        QCOMPARE(joined(validateJson(schema, value(R"({"p":{"q":1}})"))), u"p.q: must be less than 1"_s);
        QCOMPARE(joined(validateJson(schema, value(R"({"p":{}})"))), u"p.q: is required"_s);
    }

    void keywordsOutsideTheValidatorAreNotRefused()
    {
        // A keyword we do not check is the service's to enforce, never a reason to refuse.
        // (An escaped literal: moc misreads a raw string with an unbalanced bracket.)
        const QJsonObject schema
            = json("{\"type\":\"object\",\"if\":{\"required\":[\"a\"]},\"properties\":{\"a\":"
                   "{\"type\":\"string\",\"contentMediaType\":\"x\",\"pattern\":\"(?<bad\"}}}");
        QCOMPARE(joined(validateJson(schema, value(R"({"a":"anything"})"))), QString());
        QCOMPARE(joined(validateJson({}, value(R"("no schema at all")"))), QString());
    }

    void parseJsonValues()
    {
        QString error;
        QCOMPARE(parseJsonValue(u"42"_s).value_or(QJsonValue()), QJsonValue(42));
        QCOMPARE(parseJsonValue(u" \"x\" "_s).value_or(QJsonValue()), QJsonValue(u"x"_s));
        QCOMPARE(parseJsonValue(u"false"_s).value_or(QJsonValue()), QJsonValue(false));
        QCOMPARE(parseJsonValue(u"null"_s).value_or(QJsonValue(1)), QJsonValue(QJsonValue::Null));
        QCOMPARE(parseJsonValue(u"{\"a\":[1,2]}"_s).value_or(QJsonValue()),
                 QJsonValue(json(R"({"a":[1,2]})")));
        QVERIFY(!parseJsonValue(u"{\"a\":"_s, &error));
        QVERIFY(error.startsWith(u"Not valid JSON"_s));
        QVERIFY(!parseJsonValue(u"1 2"_s, &error));
        QVERIFY(!parseJsonValue(u"1] [2"_s, &error)); // no escape from the wrapping array
        QVERIFY(!parseJsonValue(u"   "_s, &error));
        QCOMPARE(error, u"No JSON value given."_s);
        QCOMPARE(jsonValueText(QJsonValue(u"a\"b"_s)), u"\"a\\\"b\""_s);
        QCOMPARE(jsonValueText(QJsonValue(3)), u"3"_s);
    }
};

QTEST_GUILESS_MAIN(TestJsonSchema)
#include "tst_jsonschema.moc"
