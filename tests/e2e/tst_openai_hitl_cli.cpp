// SPDX-License-Identifier: GPL-3.0-or-later
// runwatch-cli answering OpenAI function calls and MCP approvals as a user runs it: real processes
// against the OpenAI simulator, one store shared between them. respond --output (repeatable, one
// request), --text (only pending call; a usage error and nothing sent when several are pending),
// --approve/--reject; `watch RUN` follows the continuation (previous_response_id); input_required
// JSON names each call; tool calls read `name(arguments)`; SIGKILL mid-chain; a Foundry agent's
// call past its 10-minute window is expired (exit 3).
#include "cliprocess.h"
#include "openai/openaisim.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

using namespace Qt::StringLiterals;
using RunwatchSim::OpenAiEndpoint;
using RunwatchSim::OpenAiSimulator;
using Result = RunwatchTest::CliResult;
using RunwatchTest::firstOfType;
using RunwatchTest::runIdFrom;

class TestOpenAiHitlCli final : public QObject
{
    Q_OBJECT

    OpenAiSimulator *m_sim = nullptr;
    QTemporaryDir *m_dir = nullptr;

    QStringList globals() const
    {
        return QStringList{u"--url"_s, m_sim->baseUrl().toString(), u"--store"_s,
                           m_dir->filePath(u"runs.sqlite"_s)};
    }

    Result cli(const QStringList &args, int ms = 60000)
    {
        return RunwatchTest::runCli(globals() + args, this, {}, ms);
    }

    static QStringList start(const QString &prompt)
    {
        return QStringList{u"--json"_s, u"start"_s, u"--prompt"_s, prompt, u"--follow"_s};
    }

    QList<QJsonObject> creates() const
    {
        QList<QJsonObject> bodies;
        for (const auto &r : m_sim->requests()) {
            if (r.endpoint == OpenAiEndpoint::Create)
                bodies << QJsonDocument::fromJson(r.body).object();
        }
        return bodies;
    }

private Q_SLOTS:
    void init()
    {
        m_sim = new OpenAiSimulator(this);
        m_sim->setIntervalMs(2);
        QVERIFY(m_sim->listen());
        m_dir = new QTemporaryDir;
        QVERIFY(m_dir->isValid());
    }
    void cleanup()
    {
        delete m_sim;
        delete m_dir;
    }

    // Two function calls: input_required names both; --text is a usage error and sends nothing;
    // one respond with both outputs makes one request; watch follows the continuation.
    void twoFunctionCalls()
    {
        const Result asked = cli(start(u"tool_call calls=2 deltas=3"_s));
        QCOMPARE(asked.exitCode, 5);
        const QJsonObject input = firstOfType(asked.out, u"input_required"_s);
        QVERIFY2(!input.isEmpty(), asked.out.constData());
        const QJsonObject request = input.value(u"request"_s).toObject();
        QCOMPARE(request.value(u"reason"_s).toString(), u"tool_output"_s);
        const QJsonArray calls = request.value(u"tool_calls"_s).toArray();
        QCOMPARE(calls.size(), 2);
        QCOMPARE(calls.at(0).toObject().value(u"name"_s).toString(), u"get_weather"_s);
        QCOMPARE(calls.at(1).toObject().value(u"name"_s).toString(), u"get_time"_s);
        QCOMPARE(calls.at(0).toObject().value(u"arguments"_s).toString(),
                 u"{\"location\":\"Paris\",\"unit\":\"celsius\"}"_s);
        const QString a = calls.at(0).toObject().value(u"id"_s).toString();
        const QString b = calls.at(1).toObject().value(u"id"_s).toString();
        QVERIFY(a.startsWith(u"call_"_s) && b.startsWith(u"call_"_s));
        const QString id = runIdFrom(asked.out);

        const QString first = m_sim->lastResponseId();
        const qsizetype before = m_sim->requests().size();
        const Result tooFew = cli({u"respond"_s, id, u"--text"_s, u"x"_s});
        QCOMPARE(tooFew.exitCode, 2);
        QVERIFY2(tooFew.err.contains("2 tool calls"), tooFew.err.constData());
        QCOMPARE(m_sim->requests().size(), before); // nothing sent, not even a GET

        const Result answered
            = cli({u"respond"_s, id, u"--output"_s, a + u"=sunny"_s, u"--output"_s, b + u"=09:30"_s});
        QVERIFY2(answered.exitCode == 0 || answered.exitCode == 6, answered.err.constData());
        QCOMPARE(creates().size(), 2);
        const QJsonObject next = creates().at(1);
        QCOMPARE(next.value(u"previous_response_id"_s).toString(), first);
        QVERIFY(m_sim->lastResponseId() != first);
        QCOMPARE(next.value(u"input"_s).toArray().size(), 2);

        const Result watched = cli({u"watch"_s, id});
        QVERIFY2(watched.exitCode == 0, watched.err.constData());
        const QString expected = u"[%1: sunny] [%2: 09:30] "_s.arg(a, b) + OpenAiSimulator::tokenText(3);
        QVERIFY2(QString::fromUtf8(watched.out).endsWith(expected + u'\n'), watched.out.constData());
        QCOMPARE(m_sim->response(m_sim->lastResponseId())->text, expected);
        // The same local run: status names it, now completed.
        const Result status = cli({u"--json"_s, u"status"_s, id});
        QCOMPARE(status.exitCode, 0);
        QCOMPARE(firstOfType(status.out, u"run"_s).value(u"remote_id"_s).toString(), m_sim->lastResponseId());
        // The first response's id still names the run (a script may hold only that one).
        const Result byFirst = cli({u"--json"_s, u"status"_s, first});
        QVERIFY2(byFirst.exitCode == 0, byFirst.err.constData());
        QCOMPARE(firstOfType(byFirst.out, u"run"_s).value(u"run"_s).toString(), id);
        QCOMPARE(firstOfType(byFirst.out, u"run"_s).value(u"remote_id"_s).toString(),
                 m_sim->lastResponseId());
    }

    // One call: --text answers it. In text mode the call reads `name(arguments)`, once.
    void oneCallByText()
    {
        const Result asked = cli({u"start"_s, u"--prompt"_s, u"tool_call deltas=2"_s, u"--follow"_s});
        QCOMPARE(asked.exitCode, 5);
        QCOMPARE(
            asked.err.count(R"([tool_call get_weather] get_weather({"location":"Paris","unit":"celsius"}))"),
            1);
        const QString id = QString::fromUtf8(asked.err.split('\n').first().split(' ').value(1));
        QVERIFY(!id.isEmpty());
        const Result answered = cli({u"respond"_s, id, u"--text"_s, u"12C"_s});
        QVERIFY2(answered.exitCode == 0 || answered.exitCode == 6, answered.err.constData());
        const Result watched = cli({u"watch"_s, id});
        QCOMPARE(watched.exitCode, 0);
        QVERIFY2(watched.out.contains(": 12C] tok0 tok1 "), watched.out.constData());
    }

    void approveAndReject_data()
    {
        QTest::addColumn<QString>("flag");
        QTest::addColumn<QString>("word");
        QTest::newRow("approve") << u"--approve"_s << u"approved"_s;
        QTest::newRow("reject") << u"--reject"_s << u"rejected"_s;
    }
    void approveAndReject()
    {
        QFETCH(QString, flag);
        QFETCH(QString, word);
        const Result asked = cli(start(u"mcp_approval deltas=1"_s));
        QCOMPARE(asked.exitCode, 5);
        const QJsonObject request
            = firstOfType(asked.out, u"input_required"_s).value(u"request"_s).toObject();
        QCOMPARE(request.value(u"reason"_s).toString(), u"approval"_s);
        const QJsonObject call = request.value(u"tool_calls"_s).toArray().at(0).toObject();
        QCOMPARE(call.value(u"name"_s).toString(), u"search_docs"_s);
        QCOMPARE(call.value(u"arguments"_s).toString(), u"{\"query\":\"runwatch\"}"_s);
        const QString id = runIdFrom(asked.out);
        // --output does not approve: refused before anything is sent.
        QCOMPARE(cli({u"respond"_s, id, u"--text"_s, u"yes"_s}).exitCode, 2);
        QCOMPARE(creates().size(), 1);
        const Result answered = cli({u"respond"_s, id, flag});
        QVERIFY2(answered.exitCode == 0 || answered.exitCode == 6, answered.err.constData());
        const Result watched = cli({u"watch"_s, id});
        QCOMPARE(watched.exitCode, 0);
        QVERIFY2(watched.out.contains(u"[%1: search_docs] tok0 "_s.arg(word).toUtf8()),
                 watched.out.constData());
        QCOMPARE(creates().at(1).value(u"input"_s).toArray().at(0).toObject().value(u"approve"_s).toBool(),
                 word == u"approved"_s);
    }

    // SIGKILL of the CLI that follows the continuation, then watch from a new process: the whole
    // text of the chain, identical, once.
    void sigkillMidChain()
    {
        const Result asked = cli(start(u"tool_call deltas=120 interval_ms=15"_s));
        QCOMPARE(asked.exitCode, 5);
        const QString id = runIdFrom(asked.out);
        const QString callId = firstOfType(asked.out, u"input_required"_s)
                                   .value(u"request"_s)
                                   .toObject()
                                   .value(u"tool_calls"_s)
                                   .toArray()
                                   .at(0)
                                   .toObject()
                                   .value(u"id"_s)
                                   .toString();
        QProcess *p = RunwatchTest::launchCli(
            QStringLiteral(RUNWATCH_CLI_PATH),
            globals() + QStringList{u"respond"_s, id, u"--text"_s, u"rain"_s}, this);
        QVERIFY(RunwatchTest::finishCli(p).exitCode != 2);
        QProcess *watching = RunwatchTest::launchCli(QStringLiteral(RUNWATCH_CLI_PATH),
                                                     globals() + QStringList{u"watch"_s, id}, this);
        QTRY_VERIFY_WITH_TIMEOUT(m_sim->responseIds().size() == 2
                                     && m_sim->response(m_sim->lastResponseId())->text.size() > 200,
                                 20000);
        ::kill(pid_t(watching->processId()), SIGKILL);
        const Result killed = RunwatchTest::finishCli(watching, 10000);
        QVERIFY(killed.exitCode != 0);
        QVERIFY(!m_sim->response(m_sim->lastResponseId())->ended);
        const Result watched = cli({u"watch"_s, id});
        QVERIFY2(watched.exitCode == 0, watched.err.constData());
        const QString expected = u"[%1: rain] "_s.arg(callId) + OpenAiSimulator::tokenText(120);
        QCOMPARE(QString::fromUtf8(watched.out), expected + u'\n');
        QCOMPARE(m_sim->response(m_sim->lastResponseId())->text, expected);
        QCOMPARE(creates().size(), 2);
    }

    // A Foundry agent's function call left past the service's 10-minute window (the simulator's
    // clock set back): the run is expired, and start --follow and watch exit 3 saying so.
    void foundryToolWindowExpired()
    {
        const QStringList foundry{u"--url"_s, m_sim->foundryBaseUrl().toString(), u"--store"_s,
                                  m_dir->filePath(u"runs.sqlite"_s)};
        const Result started
            = RunwatchTest::runCli(foundry
                                       + QStringList{u"--json"_s, u"start"_s, u"--prompt"_s,
                                                     u"tool_call deltas=2 clock_skew_s=-700"_s, u"--agent"_s,
                                                     u"researcher"_s, u"--follow"_s},
                                   this, {}, 60000);
        QVERIFY2(started.exitCode == 3, started.err.constData());
        QVERIFY2(started.out.contains("\"expired\""), started.out.constData());
        QVERIFY2(started.out.contains("10-minute window"), started.out.constData());
        const QString id = runIdFrom(started.out);
        QVERIFY(!id.isEmpty());
        const Result watched = RunwatchTest::runCli(foundry + QStringList{u"watch"_s, id}, this, {}, 60000);
        QCOMPARE(watched.exitCode, 3);
        QVERIFY2(watched.err.contains("expired"), watched.err.constData());
        QCOMPARE(creates().size(), 1); // nothing answered
    }
};

QTEST_GUILESS_MAIN(TestOpenAiHitlCli)
#include "tst_openai_hitl_cli.moc"
