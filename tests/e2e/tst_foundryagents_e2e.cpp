// SPDX-License-Identifier: GPL-3.0-or-later
// Azure AI Foundry's current agents through the OpenAI connector (foundry-agents-and-gemini.md §1)
// and the engine against the simulator's Foundry project over loopback: a run on an agent
// (agent_reference, a conversation of its own, no model), its follow-up and its tool answers in
// the same conversation under the agent the service resolved, a turn in a busy conversation waited
// out, the project's agents listed, an agent name the connector refuses before anything is sent,
// a drop at every event boundary resumed with starting_after, and the Entra token command (at
// start, near expiry, once after a 401, never logged).
#include "backends/openai/openaibackend.h"
#include "enginerig.h"
#include "openai/openaisim.h"

#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <QCoro/QCoroTask>

using namespace Runwatch;
using namespace Qt::StringLiterals;
using RunwatchTest::waitTerminal;

namespace {

constexpr int kWait = RunwatchTest::kEngineWait;

// The simulator's default agents (researcher v3, writer v1) and two that refuse a parameter.
RunwatchSim::OpenAiSimConfig withRefusingAgents()
{
    RunwatchSim::OpenAiSimConfig config;
    config.agents.append({.name = u"no-stream"_s,
                          .version = 1,
                          .model = {},
                          .description = {},
                          .instructions = {},
                          .refusesStream = true});
    config.agents.append({.name = u"no-background"_s,
                          .version = 1,
                          .model = {},
                          .description = {},
                          .instructions = {},
                          .refusesBackground = true});
    config.agents.append({.name = u"neither"_s,
                          .version = 1,
                          .model = {},
                          .description = {},
                          .instructions = {},
                          .refusesBackground = true,
                          .refusesStream = true});
    return config;
}

struct Rig : RunwatchTest::ServerRig<RunwatchSim::OpenAiSimulator>
{
    explicit Rig(const RunwatchSim::OpenAiSimConfig &config = withRefusingAgents(),
                 const QJsonObject &options = {})
        : RunwatchTest::ServerRig<RunwatchSim::OpenAiSimulator>(config)
    {
        sim.setIntervalMs(1);
        QVERIFY(sim.listen());
        QVERIFY(addConnection(
            RunwatchTest::plainConnection(u"foundry"_s, u"openai"_s, sim.foundryBaseUrl(), options)));
    }
    QString startOnAgent(const QString &agent, const QString &prompt)
    {
        StartRequest r;
        r.agent = agent;
        r.prompt = prompt;
        return manager.startRun(connectionName, r);
    }
    // The JSON bodies of the create requests, in order.
    QList<QJsonObject> creates() const
    {
        QList<QJsonObject> bodies;
        for (const RunwatchSim::OpenAiRequestRecord &r : sim.requests()) {
            if (r.endpoint == RunwatchSim::OpenAiEndpoint::Create)
                bodies << QJsonDocument::fromJson(r.body).object();
        }
        return bodies;
    }
    // The simulator's text for a run: what it generated for the response the run follows.
    QString simText(const QString &runId) const
    {
        const auto info = sim.response(run(runId).remoteId);
        return info ? info->text : u"<unknown response>"_s;
    }
};

// An Entra-style access token: a JWT whose `exp` claim is `exp` (what TokenSource reads to know
// when to run the command again). Header and signature are never checked here.
QByteArray jwt(qint64 exp)
{
    const auto part = [](const QByteArray &json) {
        return json.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
    };
    return part(R"({"alg":"RS256","typ":"JWT"})") + '.'
           + part(QJsonDocument(QJsonObject{{u"aud"_s, u"https://ai.azure.com"_s}, {u"exp"_s, exp}})
                      .toJson(QJsonDocument::Compact))
           + ".c2lnbmF0dXJl";
}

// Every message logged while it lives, debug included, kept instead of printed: a token must be
// in none of them.
class LogCapture
{
public:
    LogCapture()
    {
        s_lines.clear();
        QLoggingCategory::setFilterRules(u"*.debug=true"_s);
        m_previous = qInstallMessageHandler(&LogCapture::handle);
    }
    ~LogCapture()
    {
        qInstallMessageHandler(m_previous);
        QLoggingCategory::setFilterRules(QString());
    }
    LogCapture(const LogCapture &) = delete;
    LogCapture &operator=(const LogCapture &) = delete;
    static const QStringList &lines() { return s_lines; }

private:
    static void handle(QtMsgType, const QMessageLogContext &context, const QString &message)
    {
        s_lines << QString::fromUtf8(context.category ? context.category : "") + u' ' + message;
    }
    static inline QStringList s_lines;
    QtMessageHandler m_previous = nullptr;
};

// How many of the run's secondary items have this id.
qsizetype notesOf(const Run &run, const QString &itemId)
{
    return std::count_if(run.secondary.cbegin(), run.secondary.cend(),
                         [&itemId](const SecondaryItem &item) { return item.id == itemId; });
}

} // namespace

class TestFoundryAgentsEndToEnd final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // --agent NAME: a conversation is created, then a background streamed response names the
    // agent and the conversation and no model; the run keeps both for its next turns.
    void runOnAnAgent()
    {
        Rig rig;
        const QString id = rig.startOnAgent(u"researcher"_s, u"normal deltas=20"_s);
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.primaryText, RunwatchSim::OpenAiSimulator::tokenText(20));
        QCOMPARE(rig.sim.conversationIds().size(), 1);
        const QString conversation = rig.sim.conversationIds().constFirst();
        const QList<QJsonObject> creates = rig.creates();
        QCOMPARE(creates.size(), 1);
        const QJsonObject body = creates.constFirst();
        QCOMPARE(body.value(u"agent_reference"_s).toObject(),
                 (QJsonObject{{u"type"_s, u"agent_reference"_s}, {u"name"_s, u"researcher"_s}}));
        QCOMPARE(body.value(u"conversation"_s).toString(), conversation);
        QVERIFY(!body.contains(u"model"_s));
        QVERIFY(!body.contains(u"agent"_s)); // refused by the service: never sent
        QVERIFY(body.value(u"background"_s).toBool() && body.value(u"stream"_s).toBool());
        // The service's echo: the conversation, and the agent at the version it resolved.
        QCOMPARE(run.token.extra.value(u"conversation"_s).toString(), conversation);
        QCOMPARE(run.token.extra.value(u"agent_reference"_s).toObject().value(u"version"_s).toString(),
                 u"3"_s);
    }

    // A follow-up is the next response of the same conversation, on the agent's resolved version,
    // without previous_response_id (the two exclude each other).
    void followUpInTheConversation()
    {
        Rig rig;
        const QString parent = rig.startOnAgent(u"writer:1"_s, u"normal deltas=5"_s);
        QVERIFY(waitTerminal(rig.manager, parent, kWait));
        QString why;
        const QString child = rig.manager.followUp(parent, u"normal deltas=7"_s, &why);
        QVERIFY2(!child.isEmpty(), qPrintable(why));
        QVERIFY(waitTerminal(rig.manager, child, kWait));
        QCOMPARE(rig.run(child).status, RunStatus::Completed);
        QCOMPARE(rig.run(child).primaryText, RunwatchSim::OpenAiSimulator::tokenText(7));
        QCOMPARE(rig.sim.conversationIds().size(), 1);
        const QList<QJsonObject> creates = rig.creates();
        QCOMPARE(creates.size(), 2);
        const QJsonObject next = creates.at(1);
        QCOMPARE(next.value(u"conversation"_s).toString(), rig.sim.conversationIds().constFirst());
        QVERIFY(!next.contains(u"previous_response_id"_s));
        QVERIFY(!next.contains(u"model"_s));
        QCOMPARE(next.value(u"agent_reference"_s).toObject().value(u"name"_s).toString(), u"writer"_s);
        QCOMPARE(next.value(u"agent_reference"_s).toObject().value(u"version"_s).toString(), u"1"_s);
    }

    // A function call ends the agent's response completed; the output is the next response in the
    // same conversation, and the run goes on as the same local run.
    void toolOutputInTheConversation()
    {
        Rig rig;
        const QString id = rig.startOnAgent(u"researcher"_s, u"tool_call calls=1 deltas=4"_s);
        QVERIFY(RunwatchTest::waitFor([&] {
            const Run *r = rig.manager.run(id);
            return r && r->status == RunStatus::InputRequired && r->input;
        }));
        const Run &waiting = rig.run(id);
        QCOMPARE(waiting.input->toolCalls.size(), 1);
        InputAnswer answer;
        answer.toolAnswers = {{waiting.input->toolCalls.constFirst().id, u"42"_s, false}};
        rig.manager.respondToRun(id, answer);
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(rig.manager.runIds().size(), 1);
        const QList<QJsonObject> creates = rig.creates();
        QCOMPARE(creates.size(), 2);
        const QJsonObject answerBody = creates.at(1);
        QCOMPARE(answerBody.value(u"conversation"_s).toString(), rig.sim.conversationIds().constFirst());
        QVERIFY(!answerBody.contains(u"previous_response_id"_s));
        QVERIFY(!answerBody.contains(u"model"_s));
        const QJsonObject output = answerBody.value(u"input"_s).toArray().at(0).toObject();
        QCOMPARE(output.value(u"type"_s).toString(), u"function_call_output"_s);
        QCOMPARE(output.value(u"output"_s).toString(), u"42"_s);
    }

    // One turn at a time: a second turn while the first is in flight is refused with 409
    // conversation_locked; the connector waits and posts it again only then. Exactly one response
    // is created for it, and it runs to its end.
    void busyConversationIsWaitedOut()
    {
        Rig rig;
        const QString first = rig.startOnAgent(u"researcher"_s, u"normal deltas=200 interval_ms=5"_s);
        QVERIFY(RunwatchTest::waitFor([&] {
            const Run *r = rig.manager.run(first);
            return r && r->status == RunStatus::InProgress
                   && !r->token.extra.value(u"conversation"_s).isUndefined();
        }));
        OpenAiBackend backend(
            RunwatchTest::plainConnection(u"second"_s, u"openai"_s, rig.sim.foundryBaseUrl()));
        StartRequest next;
        next.prompt = u"normal deltas=3"_s;
        RunStream *stream = backend.followUp(rig.run(first).token, next, &backend);
        QSignalSpy finished(stream, &RunStream::finished);
        QVERIFY(finished.wait(kWait));
        const auto end = finished.constFirst().constFirst().value<StreamEnd>();
        QVERIFY2(end.reason == StreamEnd::Reason::Terminal, qPrintable(end.error.toString()));
        QVERIFY(waitTerminal(rig.manager, first, kWait));
        QCOMPARE(rig.run(first).status, RunStatus::Completed);

        int refused = 0;
        int taken = 0;
        for (const RunwatchSim::OpenAiRequestRecord &r : rig.sim.requests()) {
            if (r.endpoint != RunwatchSim::OpenAiEndpoint::Create)
                continue;
            if (r.status == 409)
                ++refused;
            if (r.status == 200)
                ++taken;
        }
        QVERIFY(refused >= 1);
        QCOMPARE(taken, 2);
        QCOMPARE(rig.sim.responseIds().size(), 2);
        QCOMPARE(rig.sim.conversationIds().size(), 1);
        QCoro::waitFor(backend.shutdown());
    }

    // An agent that will not stream: the create is refused with 400 naming `stream`, made again in
    // the background without a stream, and the run followed by polling to the same text; why is
    // noted on the run once.
    void refusedStreamIsPolled()
    {
        Rig rig;
        const QString id = rig.startOnAgent(u"no-stream"_s, u"normal deltas=9"_s);
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.primaryText, RunwatchSim::OpenAiSimulator::tokenText(9));
        const QList<QJsonObject> creates = rig.creates();
        QCOMPARE(creates.size(), 2);
        QVERIFY(creates.at(0).value(u"stream"_s).toBool());
        QVERIFY(!creates.at(1).value(u"stream"_s).toBool());
        QVERIFY(creates.at(1).value(u"background"_s).toBool());
        QCOMPARE(creates.at(1).value(u"conversation"_s), creates.at(0).value(u"conversation"_s));
        QCOMPARE(rig.sim.responseIds().size(), 1);
        QCOMPARE(notesOf(run, u"runwatch-refused-stream"_s), 1);
        QVERIFY(rig.sim.requestCount(RunwatchSim::OpenAiEndpoint::Retrieve) >= 1); // polled
    }

    // An agent that will not run in the background: created again without it, streamed to its
    // end; why is noted on the run once.
    void refusedBackgroundStillRuns()
    {
        Rig rig;
        const QString id = rig.startOnAgent(u"no-background"_s, u"normal deltas=6"_s);
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.primaryText, RunwatchSim::OpenAiSimulator::tokenText(6));
        const QList<QJsonObject> creates = rig.creates();
        QCOMPARE(creates.size(), 2);
        QVERIFY(creates.at(0).value(u"background"_s).toBool());
        QVERIFY(!creates.at(1).contains(u"background"_s));
        QVERIFY(creates.at(1).value(u"stream"_s).toBool());
        QCOMPARE(rig.sim.responseIds().size(), 1);
        QCOMPARE(notesOf(run, u"runwatch-refused-background"_s), 1);
    }

    // An agent that refuses both: a create without either would answer only when the run is over,
    // so none is sent; the run fails with the service's refusal and why, nothing created.
    void refusedBothFailsClearly()
    {
        Rig rig;
        const QString id = rig.startOnAgent(u"neither"_s, u"normal deltas=3"_s);
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Failed);
        QVERIFY2(run.error.message.contains(u"both background mode and streaming"_s),
                 qPrintable(run.error.message));
        const QList<QJsonObject> creates = rig.creates();
        QCOMPARE(creates.size(), 2); // as asked, then without background; never without both
        QVERIFY(creates.at(1).value(u"stream"_s).toBool());
        QCOMPARE(rig.sim.responseIds().size(), 0);
    }

    // A name the connector cannot turn into an agent_reference is refused with nothing sent.
    void emptyAgentNameIsRefused()
    {
        Rig rig;
        const QString id = rig.startOnAgent(u":3"_s, u"normal"_s);
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        QCOMPARE(rig.run(id).status, RunStatus::Failed);
        QCOMPARE(rig.run(id).error.code, u"bad_agent"_s);
        QCOMPARE(rig.sim.requestCount(), 0);
    }

    // The stream dropped after each event of an agent run in turn (closed between events, and cut
    // in the middle of the next one): the connector resumes with starting_after, and the run ends
    // with the simulator's text, every event applied once, in the same conversation.
    void dropAtEveryEventBoundary()
    {
        Rig clean;
        const QString reference = clean.startOnAgent(u"researcher"_s, u"normal deltas=12"_s);
        QVERIFY(waitTerminal(clean.manager, reference, kWait));
        QCOMPARE(clean.run(reference).status, RunStatus::Completed);
        const auto info = clean.sim.response(clean.run(reference).remoteId);
        QVERIFY(info);
        const qint64 events = info->eventCount;
        QVERIFY(events > 12);
        const QString expected = RunwatchSim::OpenAiSimulator::tokenText(12);
        QCOMPARE(clean.run(reference).primaryText, expected);
        for (const QString &mode : {u"close"_s, u"mid"_s}) {
            for (qint64 k = 1; k < events; ++k) {
                const QString where = u"drop after %1 (%2)"_s.arg(k).arg(mode);
                Rig rig;
                const QString id = rig.startOnAgent(
                    u"researcher"_s, u"normal deltas=12 drop_after=%1 drop_mode=%2"_s.arg(k).arg(mode));
                QVERIFY2(waitTerminal(rig.manager, id, kWait), qPrintable(where));
                const Run &run = rig.run(id);
                QVERIFY2(run.status == RunStatus::Completed,
                         qPrintable(where + u": "_s + run.error.toString()));
                QCOMPARE(run.primaryText, rig.simText(id));
                QCOMPARE(run.primaryText, expected);
                QCOMPARE(run.reconciliations, 0);
                QVERIFY2(!run.error.isError(), qPrintable(where));
                // Resumed on the stream, from where it was cut: never a second response, never
                // a second conversation, never the whole stream again from the start.
                QVERIFY2(rig.sim.response(run.remoteId)->streamConnections >= 2, qPrintable(where));
                const QList<qint64> after = rig.sim.startingAfterValues();
                QVERIFY2(!after.isEmpty(), qPrintable(where));
                // Sequence numbers start at 0: the first k events are 0 … k-1.
                QVERIFY2(after.constFirst() == k - 1,
                         qPrintable(where + u": starting_after=%1"_s.arg(after.constFirst())));
                QCOMPARE(rig.sim.responseIds().size(), 1);
                QCOMPARE(rig.sim.conversationIds().size(), 1);
                QCOMPARE(rig.creates().size(), 1);
                QCOMPARE(run.token.extra.value(u"conversation"_s).toString(),
                         rig.sim.conversationIds().constFirst());
            }
        }
    }

    // The project endpoint with an Entra token command: the command runs at start; its token is
    // near its expiry (exp in 2 minutes, inside the 5-minute margin), so it runs again before the
    // next request, and the fresh token then serves every request after; the service rotates
    // and refuses the token once (401): the command runs once more and the request is sent
    // again. No token is logged (debug included) or kept on the run.
    void tokenCommand()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString tokens = dir.filePath(u"tokens"_s);
        const QString count = dir.filePath(u"count"_s);
        const qint64 now = QDateTime::currentSecsSinceEpoch();
        const QByteArray nearExpiry = jwt(now + 120);
        const QByteArray fresh = jwt(now + 3600);
        const QByteArray rotated = jwt(now + 7200);
        {
            QFile f(tokens);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(nearExpiry + '\n' + fresh + '\n' + rotated + '\n');
        }
        // The n-th run of the command prints the n-th token.
        const QString command
            = u"printf x >> '%1'; n=$(wc -c < '%1'); sed -n \"${n}p\" '%2'"_s.arg(count, tokens);
        const auto runs = [&count] {
            QFile f(count);
            return f.open(QIODevice::ReadOnly) ? int(f.readAll().count('x')) : 0;
        };
        const auto bearers = [](const RunwatchSim::OpenAiSimulator &sim) {
            QList<QByteArray> out;
            for (const RunwatchSim::OpenAiRequestRecord &r : sim.requests())
                out << r.header("authorization");
            return out;
        };

        LogCapture log;
        // No key yet: the simulator takes any token, and its log shows which one each request
        // carried.
        Rig rig(withRefusingAgents(), QJsonObject{{u"token_command"_s, command}});
        const QString first = rig.startOnAgent(u"researcher"_s, u"normal deltas=5"_s);
        QVERIFY(waitTerminal(rig.manager, first, kWait));
        QCOMPARE(rig.run(first).status, RunStatus::Completed);
        QCOMPARE(rig.run(first).primaryText, rig.simText(first));
        QList<QByteArray> sent = bearers(rig.sim);
        QVERIFY(sent.size() >= 2); // the conversation, then the response in it
        QCOMPARE(sent.at(0), "Bearer " + nearExpiry);
        for (qsizetype i = 1; i < sent.size(); ++i)
            QCOMPARE(sent.at(i), "Bearer " + fresh);
        QCOMPARE(runs(), 2); // at start, near expiry; not per request

        // Now the service takes only the rotated token: the fresh one is refused once.
        rig.sim.setApiKey(QString::fromLatin1(rotated));
        rig.sim.resetCounters();
        const QString second = rig.startOnAgent(u"writer"_s, u"normal deltas=6"_s);
        QVERIFY(waitTerminal(rig.manager, second, kWait));
        QCOMPARE(rig.run(second).status, RunStatus::Completed);
        QCOMPARE(rig.run(second).primaryText, rig.simText(second));
        QCOMPARE(runs(), 3);
        const QList<RunwatchSim::OpenAiRequestRecord> requests = rig.sim.requests();
        QVERIFY(requests.size() >= 3);
        QCOMPARE(requests.at(0).status, 401);
        QCOMPARE(requests.at(0).header("authorization"), "Bearer " + fresh);
        QCOMPARE(requests.at(1).endpoint, requests.at(0).endpoint); // the refused request, again
        for (qsizetype i = 1; i < requests.size(); ++i) {
            QVERIFY(requests.at(i).status != 401);
            QCOMPARE(requests.at(i).header("authorization"), "Bearer " + rotated);
        }

        // The tokens are in no message and nowhere on the runs.
        QVERIFY(!log.lines().isEmpty()); // the capture did see the connector's debug lines
        for (const QByteArray &token : {nearExpiry, fresh, rotated}) {
            const QString text = QString::fromLatin1(token);
            const QString signatureLess = text.section(u'.', 0, 1);
            for (const QString &line : log.lines())
                QVERIFY2(!line.contains(signatureLess), qPrintable(line));
            for (const QString &id : {first, second}) {
                const Run &run = rig.run(id);
                QVERIFY(!QJsonDocument(run.token.toJson()).toJson().contains(signatureLess.toLatin1()));
                QVERIFY(!run.primaryText.contains(signatureLess));
                QVERIFY(!run.error.toString().contains(signatureLess));
                for (const SecondaryItem &item : run.secondary)
                    QVERIFY(!item.text.contains(signatureLess) && !item.title.contains(signatureLess));
            }
        }
    }

    // The project's agents, every page, with their version and model; a plain OpenAI base lists
    // none.
    void agentsOfTheProject()
    {
        RunwatchSim::OpenAiSimConfig config;
        config.agents.clear();
        for (int i = 0; i < 130; ++i)
            config.agents.append({u"agent-%1"_s.arg(i, 3, 10, QChar(u'0')), 2, u"runwatch-sim-1"_s, {}, {}});
        RunwatchSim::OpenAiSimulator sim(config);
        QVERIFY(sim.listen());
        OpenAiBackend foundry(RunwatchTest::plainConnection(u"f"_s, u"openai"_s, sim.foundryBaseUrl()));
        QVERIFY(foundry.capabilities().testFlag(Capability::Catalog));
        const CatalogResult listed = QCoro::waitFor(foundry.catalog());
        QVERIFY2(!listed.error.isError(), qPrintable(listed.error.message));
        QCOMPARE(listed.entries.size(), 130);
        QStringList names;
        for (const CatalogEntry &e : listed.entries)
            names << e.id;
        names.sort();
        QCOMPARE(names.constFirst(), u"agent-000"_s);
        QCOMPARE(names.constLast(), u"agent-129"_s);
        QCOMPARE(listed.entries.constFirst().version, u"2"_s);
        QCOMPARE(listed.entries.constFirst().detail, u"runwatch-sim-1"_s);
        QVERIFY(sim.requestCount() >= 2); // paged

        OpenAiBackend plain(RunwatchTest::plainConnection(u"p"_s, u"openai"_s, sim.baseUrl()));
        QVERIFY(!plain.capabilities().testFlag(Capability::Catalog));
        QCOMPARE(QCoro::waitFor(plain.catalog()).error.code, u"unsupported"_s);
        QCoro::waitFor(foundry.shutdown());
        QCoro::waitFor(plain.shutdown());
    }
};

QTEST_GUILESS_MAIN(TestFoundryAgentsEndToEnd)
#include "tst_foundryagents_e2e.moc"
