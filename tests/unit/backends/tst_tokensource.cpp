// SPDX-License-Identifier: GPL-3.0-or-later
// TokenSource (core/backends/tokensource.*), the token command every connector may use: what its
// environment holds (no API keys of ours or of other services), its output bounded and checked,
// and a JWT's expiry.
#include "awaitwithin.h"
#include "backends/tokensource.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;
using RunwatchTest::awaitWithin;

class TestTokenSource final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void environmentHasNoKeys()
    {
        QProcessEnvironment given;
        given.insert(u"PATH"_s, u"/usr/bin:/bin"_s);
        given.insert(u"HOME"_s, u"/home/op"_s);
        given.insert(u"AZURE_CONFIG_DIR"_s, u"/home/op/.azure"_s);
        for (const QString &name :
             {u"OPENAI_API_KEY"_s, u"RUNWATCH_API_KEY"_s, u"ANTHROPIC_API_KEY"_s, u"GEMINI_API_KEY"_s,
              u"AZURE_OPENAI_API_KEY"_s, u"langsmith_api_key"_s, u"SERVICE_APIKEY"_s, u"RUNWATCH_STORE"_s})
            given.insert(name, u"value-of-"_s + name);
        given.insert(u"MY_KEY_VAR"_s, u"sk-the-connections-key"_s); // --api-key-env MY_KEY_VAR
        const QProcessEnvironment env = TokenSource::commandEnvironment(given, u"sk-the-connections-key"_s);
        QCOMPARE(env.keys(), (QStringList{u"AZURE_CONFIG_DIR"_s, u"HOME"_s, u"PATH"_s}));
    }

    // The same seen from inside a command: the variables of this process, then `env`.
    void commandSeesNoKeys()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString envFile = dir.filePath(u"env"_s);
        qputenv("OPENAI_API_KEY", "sk-openai-in-env");
        qputenv("RUNWATCH_API_KEY", "sk-runwatch-in-env");
        qputenv("X_SERVICE_API_KEY", "sk-other-in-env");
        qputenv("TOKEN_TEST_MARKER", "visible");
        TokenSource source(u"sk-static-ignored"_s, u"env > '%1'; echo tok-1"_s.arg(envFile));
        const auto result = awaitWithin(source.token());
        qunsetenv("OPENAI_API_KEY");
        qunsetenv("RUNWATCH_API_KEY");
        qunsetenv("X_SERVICE_API_KEY");
        qunsetenv("TOKEN_TEST_MARKER");
        QVERIFY(result && !result->error.isError());
        QCOMPARE(result->token, u"tok-1"_s);
        QFile f(envFile);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray env = f.readAll();
        QVERIFY(env.contains("TOKEN_TEST_MARKER=visible"));
        QVERIFY(!env.contains("_API_KEY="));
        QVERIFY(!env.contains("sk-"));
    }

    void outputChecked_data()
    {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("code");
        QTest::newRow("nothing") << u"true"_s << u"token_command_output"_s;
        QTest::newRow("two lines") << u"printf 'a\\nb\\n'"_s << u"token_command_output"_s;
        QTest::newRow("spaces") << u"echo 'Bearer tok'"_s << u"token_command_output"_s;
        QTest::newRow("control") << u"printf 'tok\\033[0m\\n'"_s << u"token_command_output"_s;
        // Far more than a token, endlessly: read up to the limit, then the command is ended.
        QTest::newRow("endless") << u"yes aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"_s
                                 << u"token_command_output"_s;
        QTest::newRow("too long") << u"head -c 70000 /dev/zero | tr '\\0' a"_s << u"token_command_output"_s;
        QTest::newRow("fails") << u"exit 2"_s << u"token_command_failed"_s;
        QTest::newRow("not found") << u"/nonexistent/get-token"_s << u"token_command_failed"_s;
    }
    void outputChecked()
    {
        QFETCH(QString, command);
        QFETCH(QString, code);
        TokenSource source({}, command);
        const auto result = awaitWithin(source.token(), 30000);
        QVERIFY(result);
        QVERIFY(result->token.isEmpty());
        QCOMPARE(result->error.kind, ErrorKind::Auth);
        QCOMPARE(result->error.code, code);
        QVERIFY(!result->error.message.contains(u"aaaa"_s));
    }

    // A JWT's exp claim is the token's expiry; anything else has none we can read.
    void jwtExpiry()
    {
        const QByteArray payload
            = QByteArray("{\"aud\":\"ai.azure.com\",\"exp\":1800000000}")
                  .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
        const QString jwt = u"eyJhbGciOiJSUzI1NiJ9."_s + QString::fromLatin1(payload) + u".sig"_s;
        QCOMPARE(TokenSource::jwtExpiry(jwt).toSecsSinceEpoch(), 1800000000);
        QVERIFY(!TokenSource::jwtExpiry(u"opaque-token"_s).isValid());
    }

    // A token that expires within the refresh margin is renewed before use; a fresh one is not.
    void expiringTokenIsRenewed()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto jwt = [](qint64 exp) -> QString {
            const QByteArray payload
                = (u"{\"exp\":%1}"_s.arg(exp))
                      .toUtf8()
                      .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
            return u"h."_s + QString::fromLatin1(payload) + u".s"_s;
        };
        const QString file = dir.filePath(u"tok"_s);
        const auto write = [&](const QString &token) {
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(token.toUtf8() + '\n');
        };
        const qint64 now = QDateTime::currentSecsSinceEpoch();
        write(jwt(now + 60)); // inside the margin
        TokenSource source({}, u"cat '%1'"_s.arg(file));
        QCOMPARE(awaitWithin(source.token())->token, jwt(now + 60));
        write(jwt(now + 7200));
        QCOMPARE(awaitWithin(source.token())->token, jwt(now + 7200));
        QCOMPARE(source.commandRuns(), 2);
        QCOMPARE(awaitWithin(source.token())->token, jwt(now + 7200));
        QCOMPARE(source.commandRuns(), 2);
    }
};

QTEST_GUILESS_MAIN(TestTokenSource)
#include "tst_tokensource.moc"
