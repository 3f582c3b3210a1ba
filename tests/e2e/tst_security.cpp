// SPDX-License-Identifier: GPL-3.0-or-later
// Security basics (issue 7): API keys never reach logs, the store or the CLI's output; plain
// http:// to a host that is not loopback is refused before anything is sent; a redirect to another
// host is never followed, so credentials are never forwarded.
#include "backends/openai/openaibackend.h"
#include "cliprocess.h"
#include "enginerig.h"
#include "openai/openaisim.h"
#include "scriptedserver.h"
#include "store/runstore.h"

#include <QJsonDocument>
#include <QLoggingCategory>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <QCoroTask>

using namespace Runwatch;
using namespace Qt::StringLiterals;
using RunwatchTest::ScriptedReply;
using RunwatchTest::ScriptedServer;
using RunwatchTest::waitSettled;

namespace {

constexpr int kWait = 30000;
const QString kKey = u"sk-runwatch-SECRET-7f3a9c0e5b1d4286"_s;
const QString kWrongKey = u"sk-runwatch-WRONG-a1b2c3d4e5f60718"_s;

// Every message of every category, as the process would print it.
QStringList &captured()
{
    static QStringList lines;
    return lines;
}

void capture(QtMsgType, const QMessageLogContext &context, const QString &message)
{
    captured().append(QString::fromLatin1(context.category ? context.category : "default") + u": "_s
                      + message);
}

bool containsSecret(QByteArrayView text)
{
    // The whole key and its distinctive tail (a truncated echo would still give it away).
    return text.contains(kKey.toUtf8()) || text.contains(kWrongKey.toUtf8())
           || text.contains("7f3a9c0e5b1d4286") || text.contains("a1b2c3d4e5f60718");
}

// Quick, and bounded: a connection that keeps failing is given up, not retried for ever.
FollowPolicy quickPolicy()
{
    FollowPolicy policy = RunwatchTest::quickFollowPolicy();
    policy.giveUpAfter = std::chrono::seconds(2);
    return policy;
}

Connection connection(const QString &name, const QUrl &url, const QString &key)
{
    Connection c;
    c.name = name;
    c.backend = u"openai"_s;
    c.baseUrl = url;
    c.auth = AuthStyle::Bearer;
    c.apiKey = key;
    c.defaultModel = u"runwatch-sim-1"_s;
    return c;
}

QString start(RunManager &manager, const QString &connectionName, const QString &prompt)
{
    StartRequest r;
    r.prompt = prompt;
    return manager.startRun(connectionName, r);
}

// Routes every request of a connection's client through a proxy on loopback, so a test can see
// whether anything would have been sent without sending anything anywhere else.
void routeThroughProxy(RunManager &manager, const QString &connectionName, quint16 proxyPort)
{
    auto *backend = qobject_cast<OpenAiBackend *>(manager.backend(connectionName));
    QVERIFY(backend);
    backend->httpClient()->networkAccessManager()->setProxy(
        QNetworkProxy(QNetworkProxy::HttpProxy, u"127.0.0.1"_s, proxyPort));
}

} // namespace

class TestSecurity final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        // Everything Runwatch and Qt's network stack can say, debug included.
        QLoggingCategory::setFilterRules(u"*.debug=true\nqt.*.debug=false\nqt.network.*.debug=true"_s);
        qInstallMessageHandler(capture);
    }

    void cleanupTestCase() { qInstallMessageHandler(nullptr); }

    // A full life in one process — streamed run with drops and a poll fallback, a failing key,
    // cancel, delete, the store — with all logging on: the key appears in none of it.
    void apiKeyNeverLogged()
    {
        captured().clear();
        RunwatchSim::OpenAiSimulator sim;
        sim.setIntervalMs(1);
        sim.setApiKey(kKey);
        sim.setResumeMaxAgeMs(0); // resume refused: the engine logs it and polls instead
        QVERIFY(sim.listen());
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        {
            RunStore store;
            QVERIFY(store.open(dir.filePath(u"runs.sqlite"_s)));
            RunManager manager;
            manager.setStore(&store);
            manager.setFollowPolicy(quickPolicy());
            QVERIFY(manager.addConnection(connection(u"good"_s, sim.baseUrl(), kKey)));
            QVERIFY(manager.addConnection(connection(u"bad"_s, sim.baseUrl(), kWrongKey)));

            const QString dropped = start(manager, u"good"_s, u"normal deltas=20 drop_after=6"_s);
            const QString failed = start(manager, u"good"_s, u"fail deltas=6"_s);
            const QString refused = start(manager, u"bad"_s, u"normal deltas=3"_s);
            const QString cancelled = start(manager, u"good"_s, u"long"_s);
            QVERIFY(waitSettled(manager, dropped, kWait));
            QVERIFY(waitSettled(manager, failed, kWait));
            QVERIFY(waitSettled(manager, refused, kWait));
            QCOMPARE(manager.run(dropped)->status, RunStatus::Completed);
            QCOMPARE(manager.run(refused)->error.kind, ErrorKind::Auth);
            QTRY_VERIFY_WITH_TIMEOUT(!manager.run(cancelled)->remoteId.isEmpty(), kWait);
            manager.cancelRun(cancelled);
            QVERIFY(waitSettled(manager, cancelled, kWait));
            QSignalSpy removed(&manager, &RunManager::runRemoved);
            manager.deleteRun(dropped, true);
            QVERIFY(removed.wait(kWait));

            for (const QString &id : manager.runIds()) {
                const Run *run = manager.run(id);
                QVERIFY2(!containsSecret(run->error.toString().toUtf8()), qPrintable(run->error.toString()));
                QVERIFY(!containsSecret(QJsonDocument(run->token.toJson()).toJson()));
            }
            QVERIFY(!containsSecret(QJsonDocument(manager.connection(u"good"_s)->toJson()).toJson()));
            store.flush();
        }

        // The key was really in play: the simulator saw it on the wire.
        bool sent = false;
        for (const auto &request : sim.requests())
            sent = sent || request.header("authorization") == "Bearer " + kKey.toUtf8();
        QVERIFY(sent);
        // And the capture works: the engine's own "resume refused" line is there.
        QVERIFY2(captured().join(u'\n').contains(u"resume refused"_s), qPrintable(captured().join(u'\n')));

        const QString log = captured().join(u'\n');
        QVERIFY2(!containsSecret(log.toUtf8()), "an API key was logged");
        QFile db(dir.filePath(u"runs.sqlite"_s));
        QVERIFY(db.open(QIODevice::ReadOnly));
        QVERIFY2(!containsSecret(db.readAll()), "an API key was stored");
    }

    // A server that quotes the key back in its error ("Incorrect API key provided: sk-…") must
    // not get it into the run's error, which is shown, logged and stored.
    void echoedKeyIsRedacted()
    {
        captured().clear();
        ScriptedServer server;
        QVERIFY(server.isListening());
        server.enqueue("/v1/responses", ScriptedReply::openAiError(
                                            401, "Incorrect API key provided: " + kWrongKey.toUtf8() + '.',
                                            "invalid_request_error", "invalid_api_key"));
        RunManager manager;
        manager.setFollowPolicy(quickPolicy());
        QVERIFY(manager.addConnection(connection(u"echo"_s, server.url(u"/v1"_s), kWrongKey)));
        const QString id = start(manager, u"echo"_s, u"x"_s);
        QVERIFY(waitSettled(manager, id, kWait));
        const RunError &error = manager.run(id)->error;
        QCOMPARE(error.kind, ErrorKind::Auth);
        QVERIFY2(error.message.startsWith(u"Incorrect API key provided"_s), qPrintable(error.message));
        QVERIFY2(!containsSecret(error.toString().toUtf8()), qPrintable(error.toString()));
        QVERIFY(!containsSecret(captured().join(u'\n').toUtf8()));
    }

    // runwatch-cli with every logging category on, a good and a wrong key: stdout and stderr
    // never show either.
    void cliNeverPrintsKey_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addRow("start --follow")
            << kKey << QStringList{u"start"_s, u"--prompt"_s, u"normal deltas=5"_s, u"--follow"_s} << 0;
        QTest::addRow("json start --follow")
            << kKey << QStringList{u"--json"_s, u"start"_s, u"--prompt"_s, u"fail deltas=4"_s, u"--follow"_s}
            << 3;
        QTest::addRow("wrong key") << kWrongKey
                                   << QStringList{u"start"_s, u"--prompt"_s, u"normal deltas=5"_s,
                                                  u"--follow"_s}
                                   << -2;
    }
    void cliNeverPrintsKey()
    {
        QFETCH(QString, key);
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        RunwatchSim::OpenAiSimulator sim;
        sim.setIntervalMs(1);
        sim.setApiKey(kKey);
        QVERIFY(sim.listen());
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const RunwatchTest::CliResult cli = RunwatchTest::finishCli(RunwatchTest::launchCli(
            QStringLiteral(RUNWATCH_CLI_PATH),
            QStringList{u"--backend"_s, u"openai"_s, u"--url"_s, sim.baseUrl().toString(), u"--store"_s,
                        dir.filePath(u"runs.sqlite"_s)}
                + args,
            this, {u"RUNWATCH_API_KEY="_s + key, u"QT_LOGGING_RULES=*.debug=true"_s}));
        QVERIFY(!cli.timedOut);
        const QByteArray out = cli.out;
        const QByteArray err = cli.err;
        if (exitCode >= 0) {
            QCOMPARE(cli.exitCode, exitCode);
        } else {
            QVERIFY2(cli.exitCode != 0, err.constData());
        }
        QVERIFY(!out.isEmpty() || !err.isEmpty());
        QVERIFY2(!containsSecret(out), out.constData());
        QVERIFY2(!containsSecret(err), err.constData());
        bool sent = false;
        for (const auto &request : sim.requests())
            sent = sent || request.header("authorization").contains(key.toUtf8());
        QVERIFY(sent);
    }

    // http:// to 10.0.0.1 is refused before a connection is even attempted. Every request of the
    // connection is routed through a proxy on loopback, so "nothing sent" is observable without
    // sending anything to that address; the positive control proves the proxy sees requests.
    void insecureHttpRefusedBeforeConnecting()
    {
        ScriptedServer proxy;
        QVERIFY(proxy.isListening());
        RunManager manager;
        manager.setFollowPolicy(quickPolicy());
        QVERIFY(manager.addConnection(connection(u"plain"_s, QUrl(u"http://10.0.0.1/v1"_s), kKey)));
        routeThroughProxy(manager, u"plain"_s, proxy.port());

        const QString id = start(manager, u"plain"_s, u"x"_s);
        QVERIFY(waitSettled(manager, id, kWait));
        const Run &run = *manager.run(id);
        QCOMPARE(run.status, RunStatus::Failed);
        QCOMPARE(run.error.kind, ErrorKind::Client);
        QCOMPARE(run.error.code, u"insecure_transport"_s);
        QVERIFY2(run.error.message.contains(u"10.0.0.1"_s) && run.error.message.contains(u"https://"_s),
                 qPrintable(run.error.message));
        // The other entry points refuse alike, with no attempt made.
        auto *backend = qobject_cast<OpenAiBackend *>(manager.backend(u"plain"_s));
        ContinuationToken token;
        token.remoteId = u"resp_x"_s;
        const ActionResult polled = QCoro::waitFor(backend->get(token));
        QCOMPARE(polled.error.code, u"insecure_transport"_s);
        QCOMPARE(proxy.requestCount(), 0);

        // Control: explicitly allowed, the request does go out (to our proxy, for a host that
        // cannot resolve, so nothing leaves this machine either way).
        Connection allowed = connection(u"allowed"_s, QUrl(u"http://runwatch-check.invalid/v1"_s), kKey);
        allowed.allowInsecureHttp = true;
        QVERIFY(manager.addConnection(allowed));
        routeThroughProxy(manager, u"allowed"_s, proxy.port());
        const QString control = start(manager, u"allowed"_s, u"x"_s);
        QVERIFY(waitSettled(manager, control, kWait));
        QVERIFY(proxy.requestCount() >= 1);
        QVERIFY(proxy.requests().first().target.contains("runwatch-check.invalid"));
    }

    // A redirect to another host (here: another port) is refused without connecting there, for
    // every redirect status; the same-origin control shows credentials do follow a redirect
    // within the origin, so the check would see them.
    void redirectNeverForwardsCredentials_data()
    {
        QTest::addColumn<int>("status");
        for (int status : {301, 302, 303, 307, 308})
            QTest::addRow("%d", status) << status;
    }
    void redirectNeverForwardsCredentials()
    {
        QFETCH(int, status);
        ScriptedServer origin;
        ScriptedServer elsewhere;
        QVERIFY(origin.isListening() && elsewhere.isListening());
        origin.enqueue("/v1/responses",
                       ScriptedReply::redirect(status, elsewhere.url(u"/v1/responses"_s).toEncoded()));
        RunManager manager;
        manager.setFollowPolicy(quickPolicy());
        QVERIFY(manager.addConnection(connection(u"redirected"_s, origin.url(u"/v1"_s), kKey)));
        const QString id = start(manager, u"redirected"_s, u"x"_s);
        QVERIFY(waitSettled(manager, id, kWait));
        const Run &run = *manager.run(id);
        QCOMPARE(run.error.kind, ErrorKind::Protocol);
        QCOMPARE(run.error.code, u"cross_origin_redirect"_s);
        QCOMPARE(elsewhere.requestCount(), 0);
        QCOMPARE(origin.requestCount(), 1);
        QCOMPARE(origin.requests().first().header("authorization"), "Bearer " + kKey.toUtf8());

        // Control: within the origin the redirect is followed and the header goes along.
        origin.enqueue("/v1/responses",
                       ScriptedReply::redirect(status, origin.url(u"/v1/moved"_s).toEncoded()));
        origin.enqueue("/v1/moved",
                       ScriptedReply::openAiError(500, "control", "server_error", "server_error"));
        const QString control = start(manager, u"redirected"_s, u"x"_s);
        QVERIFY(waitSettled(manager, control, kWait));
        QTRY_VERIFY_WITH_TIMEOUT(origin.requestCount("/v1/moved") >= 1, kWait);
        QCOMPARE(origin.requests("/v1/moved").first().header("authorization"), "Bearer " + kKey.toUtf8());
    }
};

QTEST_GUILESS_MAIN(TestSecurity)
#include "tst_security.moc"
