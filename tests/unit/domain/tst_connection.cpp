// SPDX-License-Identifier: GPL-3.0-or-later
// The Connection value type (core/connections/connection.*): its JSON round trip, the auth
// style's names (incl. the "api-key" of saved connections and stored runs from before named
// headers) and what a header name and a header value may hold.
#include "connections/connectionoptions.h"
#include "domain/connection.h"

#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

class TestConnection final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void roundTrip_data()
    {
        QTest::addColumn<int>("style");
        QTest::addColumn<QString>("header");
        QTest::addColumn<QString>("name");
        QTest::newRow("bearer") << int(AuthStyle::Bearer) << QString() << u"bearer"_s;
        QTest::newRow("none") << int(AuthStyle::None) << QString() << u"none"_s;
        QTest::newRow("api-key") << int(AuthStyle::Header) << u"api-key"_s << u"header:api-key"_s;
        QTest::newRow("x-goog-api-key")
            << int(AuthStyle::Header) << u"x-goog-api-key"_s << u"header:x-goog-api-key"_s;
        QTest::newRow("X-API-Key") << int(AuthStyle::Header) << u"X-API-Key"_s << u"header:X-API-Key"_s;
    }
    void roundTrip()
    {
        QFETCH(int, style);
        QFETCH(QString, header);
        QFETCH(QString, name);
        Connection c;
        c.name = u"n"_s;
        c.backend = u"jobs"_s;
        c.baseUrl = QUrl(u"https://jobs.example/v1"_s);
        c.auth = AuthStyle(style);
        c.authHeader = header;
        c.apiKey = u"secret-key-never-saved"_s;
        c.options.insert(u"token_command"_s, u"printf tok"_s);
        const QJsonObject json = c.toJson();
        QCOMPARE(json.value(u"auth"_s).toString(), name);
        QVERIFY(!QJsonDocument(json).toJson().contains("secret-key-never-saved"));
        const Connection back = Connection::fromJson(json);
        QCOMPARE(int(back.auth), style);
        QCOMPARE(back.authHeader, header);
        QCOMPARE(back.options, c.options);
        QVERIFY(back.apiKey.isEmpty());
        QCOMPARE(back.toJson(), json);
    }

    // What saved connections and stored runs hold from before: loaded unchanged in meaning.
    void legacyNames()
    {
        const Connection azure
            = Connection::fromJson(QJsonObject{{u"name"_s, u"azure"_s}, {u"auth"_s, u"api-key"_s}});
        QCOMPARE(azure.auth, AuthStyle::Header);
        QCOMPARE(azure.authHeader, u"api-key"_s);
        QCOMPARE(azure.toJson().value(u"auth"_s).toString(), u"header:api-key"_s);
        // No auth at all, or one no version wrote: Bearer, as it always was.
        QCOMPARE(Connection::fromJson(QJsonObject{{u"name"_s, u"a"_s}}).auth, AuthStyle::Bearer);
        QCOMPARE(Connection::fromJson(QJsonObject{{u"auth"_s, u"kerberos"_s}}).auth, AuthStyle::Bearer);
        QCOMPARE(Connection::fromJson(QJsonObject{{u"auth"_s, 42}}).auth, AuthStyle::Bearer);
    }

    void names()
    {
        AuthStyle style = AuthStyle::None;
        QString header = u"kept"_s;
        QVERIFY(!authStyleFromName(u"Bearer", &style, &header));
        QVERIFY(!authStyleFromName(u"", &style, &header));
        QVERIFY(!authStyleFromName(u"api-keys", &style, &header));
        QCOMPARE(style, AuthStyle::None);
        QCOMPARE(header, u"kept"_s);
        QVERIFY(authStyleFromName(u"header:x-api-key", &style, &header));
        QCOMPARE(style, AuthStyle::Header);
        QCOMPARE(header, u"x-api-key"_s);
        QVERIFY(authStyleFromName(u"bearer", &style, &header));
        QCOMPARE(style, AuthStyle::Bearer);
        QVERIFY(header.isEmpty());
        // The name is read as given; whether it is one is isHeaderName's question.
        QVERIFY(authStyleFromName(u"header:bad name", &style, &header));
        QCOMPARE(header, u"bad name"_s);
    }

    void headerNames()
    {
        for (const QString &good : {u"api-key"_s, u"x-api-key"_s, u"x-goog-api-key"_s, u"X-API-Key"_s,
                                    u"Authorization"_s, u"x_custom.key~1"_s, u"!#$%&'*+-.^_`|~"_s})
            QVERIFY2(isHeaderName(good), qPrintable(good));
        for (const QString &bad :
             {QString(), u"x api key"_s, u"x-key:"_s, u"x-key\r\nx-injected"_s, u"x-key\n"_s, u"x\tkey"_s,
              u"(key)"_s, u"k\u00e9y"_s, u"x\"key"_s, u"a/b"_s, u"[k]"_s})
            QVERIFY2(!isHeaderName(bad), qPrintable(bad));
    }

    void headerValues()
    {
        QVERIFY(isHeaderValue(u"sk-proj-abc.DEF_123"_s));
        QVERIFY(isHeaderValue(QString()));
        for (const QString &bad : {u"key\r\nX-Injected: 1"_s, u"key\n"_s, u"\rkey"_s, u"k\u0000ey"_s,
                                   u"k\u007fey"_s, u"k\u001bey"_s})
            QVERIFY(!isHeaderValue(bad));
    }

    // The form's and the CLI's rule: a Header style needs a valid name.
    void validatedAsAnOption()
    {
        Connection c;
        c.backend = u"openai"_s;
        c.baseUrl = QUrl(u"https://api.example/v1"_s);
        c.auth = AuthStyle::Header;
        c.authHeader = u"x-api-key"_s;
        QVERIFY(validateConnectionOptions(c).isEmpty());
        for (const QString &bad : {QString(), u"x api key"_s, u"x-key\r\nx: y"_s}) {
            c.authHeader = bad;
            const QList<ConnectionOptionProblem> problems = validateConnectionOptions(c);
            QCOMPARE(problems.size(), 1);
            QCOMPARE(problems.first().option, u"auth_header"_s);
        }
        // Only the Header style has a name to check.
        c.auth = AuthStyle::Bearer;
        QVERIFY(validateConnectionOptions(c).isEmpty());
        // The token command is every backend's option.
        for (const QString &backend : {u"openai"_s, u"a2a"_s, u"jobs"_s, u"foundry"_s}) {
            QVERIFY(connectionOptionsFor(backend).contains(ConnectionOption::TokenCommand));
            c.backend = backend;
            c.options = {{ConnectionOption::TokenCommand, u"printf tok"_s}};
            QVERIFY2(validateConnectionOptions(c).isEmpty(), qPrintable(backend));
        }
    }
};

QTEST_GUILESS_MAIN(TestConnection)
#include "tst_connection.moc"
