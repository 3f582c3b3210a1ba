// SPDX-License-Identifier: GPL-3.0-or-later
// The Gemini connector's requests on the wire (core/backends/gemini: GeminiBackend and its
// stream) against a scripted server: the URL and version, the key in x-goog-api-key only, the
// create body for a model, an agent (with its agent_config), a catalog pick, a follow-up and an
// answer (previous_interaction_id + function_result), the resume by last_event_id with the
// mapper kept across connections, a cut that is no failure, cancel, delete, the service's error
// body, and the catalog from GET /models. Bodies are written with single quotes (json()), not as
// raw strings: moc 6.4 misreads raw strings holding JSON.
#include "awaitwithin.h"
#include "backends/gemini/geminibackend.h"
#include "backends/registry.h"
#include "domain/runreducer.h"
#include "scriptedserver.h"
#include "testdata.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QtTest>

using namespace Runwatch;
using namespace Runwatch::Gemini;
using namespace RunwatchTest;
using namespace Qt::StringLiterals;

namespace {

const QString kKey = u"AIza-test-key-0001"_s;

// JSON written with single quotes, as the bytes it stands for.
QByteArray json(const char *singleQuoted)
{
    return QByteArray(singleQuoted).replace('\'', '"');
}

QJsonObject bodyOf(const RecordedRequest &request)
{
    return QJsonDocument::fromJson(request.body).object();
}

Connection connectionTo(const ScriptedServer &server, const QString &path = {})
{
    Connection c;
    c.name = u"g"_s;
    c.backend = u"gemini"_s;
    c.baseUrl = server.url(path.isEmpty() ? u"/"_s : path);
    c.auth = AuthStyle::Header;
    c.authHeader = u"x-goog-api-key"_s;
    c.apiKey = kKey;
    return c;
}

ScriptedReply sse(const QByteArray &body)
{
    return ScriptedReply::stream(200, {{"Content-Type", "text/event-stream"}}, {{0, body}});
}

ScriptedReply sseFile(const QString &name)
{
    return sse(readData(u"gemini/"_s + name));
}

struct Collected
{
    QList<RunEvent> events;
    std::optional<StreamEnd> end;
};

// Everything a stream delivers until it finishes (or the timeout), applied to `run` too.
Collected collect(RunStream *stream, Run *run = nullptr, int ms = 10000)
{
    Collected c;
    QObject::connect(stream, &RunStream::eventsReceived, stream, [&c, run](const QList<RunEvent> &events) {
        c.events << events;
        for (const RunEvent &e : events) {
            if (run)
                applyEvent(*run, e, QDateTime::currentDateTimeUtc());
        }
    });
    QObject::connect(stream, &RunStream::finished, stream, [&c](const StreamEnd &end) { c.end = end; });
    QElapsedTimer clock;
    clock.start();
    while (!c.end && clock.elapsed() < ms)
        QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents, 50);
    delete stream;
    return c;
}

QString statusOf(const QList<RunEvent> &events)
{
    QString raw;
    for (const RunEvent &e : events) {
        if (e.type == RunEvent::Type::Status)
            raw = e.rawStatus;
    }
    return raw;
}

} // namespace

class TestGeminiBackend : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void registryRow()
    {
        const ConnectorDescriptor *row = connector(u"gemini"_s);
        QVERIFY(row);
        QCOMPARE(row->defaultUrl, "https://generativelanguage.googleapis.com"_L1);
        QCOMPARE(row->defaultAuthHeader, "x-goog-api-key"_L1);
        QCOMPARE(row->apiKeyEnv, "GEMINI_API_KEY"_L1);
        QVERIFY(!row->needsAgent); // a model or an agent
        Connection c;
        c.backend = u"gemini"_s;
        c.baseUrl = QUrl(u"https://generativelanguage.googleapis.com"_s);
        std::unique_ptr<RunBackend> backend(createBackend(c, nullptr));
        QVERIFY(backend);
        QCOMPARE(backend->kind(), u"gemini"_s);
        const Capabilities caps = backend->capabilities();
        for (const Capability cap : {Capability::Start, Capability::Get, Capability::Stream,
                                     Capability::ResumeStream, Capability::Cancel, Capability::Delete,
                                     Capability::Respond, Capability::FollowUp, Capability::Catalog})
            QVERIFY(caps.testFlag(cap));
        QVERIFY(!caps.testFlag(Capability::List)); // the API lists no interactions
    }

    void apiRoot_data()
    {
        QTest::addColumn<QString>("base");
        QTest::addColumn<QString>("version");
        QTest::addColumn<QString>("root");
        QTest::newRow("origin") << u"https://generativelanguage.googleapis.com"_s << QString()
                                << u"https://generativelanguage.googleapis.com/v1beta"_s;
        QTest::newRow("slash") << u"https://generativelanguage.googleapis.com/"_s << QString()
                               << u"https://generativelanguage.googleapis.com/v1beta"_s;
        QTest::newRow("v1 option") << u"https://generativelanguage.googleapis.com"_s << u"v1"_s
                                   << u"https://generativelanguage.googleapis.com/v1"_s;
        QTest::newRow("versioned base") << u"https://generativelanguage.googleapis.com/v1/"_s << u"v1beta"_s
                                        << u"https://generativelanguage.googleapis.com/v1"_s;
        QTest::newRow("proxy prefix")
            << u"https://gw.example.com/google"_s << QString() << u"https://gw.example.com/google/v1beta"_s;
    }
    void apiRoot()
    {
        QFETCH(QString, base);
        QFETCH(QString, version);
        QFETCH(QString, root);
        Connection c;
        c.backend = u"gemini"_s;
        c.baseUrl = QUrl(base);
        if (!version.isEmpty())
            c.options.insert(u"api_version"_s, version);
        GeminiBackend backend(c);
        QCOMPARE(backend.apiRoot().toString(), root);
        QCOMPARE(backend.request("GET", u"/interactions/v1_a"_s).url.toString(),
                 root + u"/interactions/v1_a"_s);
    }

    void targets()
    {
        Connection c;
        c.backend = u"gemini"_s;
        c.baseUrl = QUrl(u"https://generativelanguage.googleapis.com"_s);
        GeminiBackend plain(c);
        const auto target
            = [&](const GeminiBackend &b, const QString &model, const QString &agent) -> QString {
            StartRequest r;
            r.model = model;
            r.agent = agent;
            const Target t = b.targetFor(r);
            return t.agent.isEmpty() ? u"model:"_s + t.model : u"agent:"_s + t.agent;
        };
        QCOMPARE(target(plain, u"gemini-2.5-pro"_s, {}), u"model:gemini-2.5-pro"_s);
        QCOMPARE(target(plain, {}, {}), u"model:"_s + kDefaultModel);
        // An agent wins over the model the CLI fills in by default; a catalog pick of a model is one.
        QCOMPARE(target(plain, u"gemini-2.5-flash"_s, kDeepResearchAgent), u"agent:"_s + kDeepResearchAgent);
        QCOMPARE(target(plain, u"gemini-2.5-flash"_s, u"models/gemini-2.5-pro"_s), u"model:gemini-2.5-pro"_s);
        QCOMPARE(target(plain, u"models/gemini-2.5-pro"_s, {}), u"model:gemini-2.5-pro"_s);
        c.options.insert(ConnectionOption::Agent, kDeepResearchAgent);
        c.defaultModel = u"gemini-2.5-pro"_s;
        GeminiBackend withAgent(c);
        QCOMPARE(target(withAgent, {}, {}), u"agent:"_s + kDeepResearchAgent);
        QCOMPARE(target(withAgent, u"gemini-2.5-flash"_s, {}), u"model:gemini-2.5-flash"_s);
    }

    void createBodies()
    {
        const QJsonObject model = createBody({u"gemini-2.5-flash"_s, {}}, u"Hi"_s, true);
        QCOMPARE(
            QJsonDocument(model).toJson(QJsonDocument::Compact),
            json("{'background':true,'input':'Hi','model':'gemini-2.5-flash','store':true,'stream':true}"));
        const QJsonObject agent = createBody({{}, kDeepResearchAgent}, u"Go"_s, false, u"v1_prev"_s);
        QCOMPARE(
            QJsonDocument(agent).toJson(QJsonDocument::Compact),
            json("{'agent':'deep-research-pro-preview-12-2025','agent_config':{'thinking_summaries':'auto',"
                 "'type':'deep-research'},'background':true,'input':'Go','previous_interaction_id':'v1_prev',"
                 "'store':true,'stream':false}"));
        // Agents without a config of the reference's take none.
        QVERIFY(
            !createBody({{}, u"antigravity-preview-05-2026"_s}, u"x"_s, true).contains(u"agent_config"_s));
        QVERIFY(!createBody({{}, u"antigravity-preview-05-2026"_s}, u"x"_s, true).contains(u"model"_s));
    }

    void streamedStart()
    {
        ScriptedServer server;
        server.enqueue("/v1beta/interactions", sseFile(u"text-stream.sse"_s));
        GeminiBackend backend(connectionTo(server));
        StartRequest r;
        r.prompt = u"Say hello"_s;
        r.model = u"gemini-3-flash-preview"_s;
        Run run;
        const Collected c = collect(backend.start(r, nullptr), &run);
        QVERIFY(c.end);
        QCOMPARE(int(c.end->reason), int(StreamEnd::Reason::Terminal));
        QCOMPARE(server.requestCount(), 1);
        const RecordedRequest &sent = server.requests().first();
        QCOMPARE(sent.method, "POST");
        QCOMPARE(sent.target, "/v1beta/interactions");
        QCOMPARE(sent.header("x-goog-api-key"), kKey.toUtf8());
        QVERIFY(sent.header("authorization").isEmpty());
        QCOMPARE(sent.header("accept"), "text/event-stream");
        QVERIFY(!sent.target.contains("key="));
        const QJsonObject body = bodyOf(sent);
        QCOMPARE(body.value(u"model"_s).toString(), u"gemini-3-flash-preview"_s);
        QCOMPARE(body.value(u"input"_s).toString(), u"Say hello"_s);
        QCOMPARE(body.value(u"background"_s).toBool(), true);
        QCOMPARE(body.value(u"stream"_s).toBool(), true);
        QVERIFY(!body.contains(u"agent"_s));
        const QJsonObject stored
            = QJsonDocument::fromJson(readData(u"gemini/text-interaction.json"_s)).object();
        QCOMPARE(run.remoteId, stored.value(u"id"_s).toString());
        QCOMPARE(run.primaryText, outputText(stored));
        QCOMPARE(run.status, RunStatus::Completed);
        QVERIFY(run.token.streamable);
        QCOMPARE(run.token.extra.value(kAnswerIn).toString(), run.remoteId);
    }

    void agentStartPolled()
    {
        ScriptedServer server;
        server.enqueue("/v1beta/interactions",
                       ScriptedReply::json(200, readData(u"gemini/background-create.json"_s)));
        GeminiBackend backend(connectionTo(server));
        StartRequest r;
        r.prompt = u"Research it"_s;
        r.model = u"gemini-2.5-flash"_s; // what the CLI fills in: the agent wins
        r.agent = kDeepResearchAgent;
        r.stream = false;
        Run run;
        const Collected c = collect(backend.start(r, nullptr), &run);
        QVERIFY(c.end);
        // Not streamed: the engine polls the interaction.
        QCOMPARE(int(c.end->reason), int(StreamEnd::Reason::ResumeRefused));
        const RecordedRequest &sent = server.requests().first();
        QCOMPARE(sent.header("accept"), "application/json");
        const QJsonObject body = bodyOf(sent);
        QCOMPARE(body.value(u"agent"_s).toString(), kDeepResearchAgent);
        QCOMPARE(body.value(u"agent_config"_s).toObject().value(u"type"_s).toString(), u"deep-research"_s);
        QCOMPARE(body.value(u"background"_s).toBool(), true);
        QCOMPARE(body.value(u"stream"_s).toBool(), false);
        QVERIFY(!body.contains(u"model"_s));
        QVERIFY(!run.remoteId.isEmpty());
        QCOMPARE(run.status, RunStatus::InProgress);
        QVERIFY(!run.token.streamable);
        QCOMPARE(run.token.extra.value(kAgent).toString(), kDeepResearchAgent);
    }

    void resumeKeepsTheMapper()
    {
        // The first connection drops right after the second call's step.start, which has no id;
        // the resume after the last id (evt-c01-0003) repeats it, and it must not write
        // `get_time(` into the call's item a second time.
        const QByteArray whole = readData(u"gemini/function-call-stream.sse"_s);
        const qsizetype secondCall = whole.indexOf("call_time_2");
        const qsizetype dropAt = whole.indexOf("\n\n", secondCall) + 2;
        const qsizetype afterLastId = whole.indexOf("\n\n", whole.indexOf("evt-c01-0003")) + 2;
        ScriptedServer server;
        ScriptedReply first = sse(whole.left(dropAt));
        first.dropAfterChunks = true;
        server.enqueue("/v1beta/interactions", first);
        server.enqueue("/v1beta/interactions/v1_call01", sse(whole.mid(afterLastId)));
        GeminiBackend backend(connectionTo(server));
        StartRequest r;
        r.prompt = u"Weather and time in Paris?"_s;
        Run run;
        const Collected c1 = collect(backend.start(r, nullptr), &run);
        QVERIFY(c1.end);
        QVERIFY(c1.end->reason == StreamEnd::Reason::Error || c1.end->reason == StreamEnd::Reason::Eof);
        QCOMPARE(run.token.eventId, u"evt-c01-0003"_s);
        const auto callStarts = [](const QList<RunEvent> &events) {
            return std::count_if(events.cbegin(), events.cend(), [](const RunEvent &e) {
                return e.type == RunEvent::Type::SecondaryDelta && e.text == u"get_time("_s;
            });
        };
        QCOMPARE(callStarts(c1.events), 1);
        const Collected c2 = collect(backend.follow(run.token, nullptr), &run);
        QVERIFY(c2.end);
        QCOMPARE(int(c2.end->reason), int(StreamEnd::Reason::Terminal));
        QCOMPARE(callStarts(c2.events), 0);
        const RecordedRequest resume = server.requests().last();
        QCOMPARE(resume.method, "GET");
        QCOMPARE(resume.target, "/v1beta/interactions/v1_call01?stream=true&last_event_id=evt-c01-0003");
        QCOMPARE(resume.header("x-goog-api-key"), kKey.toUtf8());
        QCOMPARE(run.status, RunStatus::InputRequired);
        QVERIFY(run.input);
        QCOMPARE(run.input->toolCalls.size(), 2);
    }

    void resumeAfterRestart()
    {
        // A fresh backend (another process) resumes from the token alone: the event id is quoted
        // in the query, and the next output step starts with the separator.
        ScriptedServer server;
        server.enqueue(
            "/v1beta/interactions/v1_x",
            sse(json("event: step.start\ndata: {'index':2,'step':{'type':'model_output'},"
                     "'event_type':'step.start'}\n\nevent: step.delta\ndata: {'index':2,'delta':"
                     "{'type':'text','text':'Second.'},'event_id':'e+3/=','event_type':'step.delta'}"
                     "\n\nevent: interaction.completed\ndata: {'interaction':{'id':'v1_x','status':"
                     "'completed'},'event_type':'interaction.completed'}\n\nevent: done\ndata: "
                     "[DONE]\n\n")));
        GeminiBackend backend(connectionTo(server));
        Run run;
        run.remoteId = u"v1_x"_s;
        run.primaryText = u"First."_s;
        run.token.remoteId = u"v1_x"_s;
        run.token.eventId = u"e+2/="_s;
        run.token.streamable = true;
        run.token.extra.insert(kAnswerIn, u"v1_x"_s);
        const Collected c = collect(backend.follow(run.token, nullptr), &run);
        QVERIFY(c.end);
        QCOMPARE(int(c.end->reason), int(StreamEnd::Reason::Terminal));
        QCOMPARE(server.requests().last().target,
                 "/v1beta/interactions/v1_x?stream=true&last_event_id=e%2B2%2F%3D");
        QCOMPARE(run.primaryText, u"First.\n\nSecond."_s);
        QCOMPARE(run.token.eventId, u"e+3/="_s);
    }

    void cutIsNoFailure()
    {
        ScriptedServer server;
        server.enqueue("/v1beta/interactions", sseFile(u"research-cut.sse"_s));
        GeminiBackend backend(connectionTo(server));
        StartRequest r;
        r.prompt = u"Research"_s;
        r.agent = u"deep-research-preview-04-2026"_s;
        Run run;
        run.status = RunStatus::Queued;
        const Collected c = collect(backend.start(r, nullptr), &run);
        QVERIFY(c.end);
        QCOMPARE(int(c.end->reason), int(StreamEnd::Reason::Eof));
        QVERIFY(c.end->error.retryable);
        QVERIFY(!run.error.isError());
        QCOMPARE(run.status, RunStatus::InProgress);
        QCOMPARE(run.token.eventId, u"evt-r01-0007"_s);
        // The resume carries on to the end with the text the stored interaction has.
        server.enqueue("/v1beta/interactions/v1_research01", sseFile(u"research-resume.sse"_s));
        const Collected c2 = collect(backend.follow(run.token, nullptr), &run);
        QVERIFY(c2.end);
        QCOMPARE(int(c2.end->reason), int(StreamEnd::Reason::Terminal));
        const QJsonObject stored
            = QJsonDocument::fromJson(readData(u"gemini/research-interaction.json"_s)).object();
        QCOMPARE(run.primaryText, outputText(stored));
        QCOMPARE(run.status, RunStatus::Completed);
    }

    void followUpByPreviousInteraction()
    {
        ScriptedServer server;
        server.enqueue("/v1beta/interactions", sseFile(u"text-stream.sse"_s), 2);
        GeminiBackend backend(connectionTo(server));
        ContinuationToken parent;
        parent.remoteId = u"v1_parent"_s;
        parent.extra.insert(kAgent, kDeepResearchAgent);
        StartRequest r;
        r.prompt = u"And in 2027?"_s;
        r.model = kDeepResearchAgent; // the engine gives the parent's model: the agent's name
        collect(backend.followUp(parent, r, nullptr));
        QJsonObject body = bodyOf(server.requests().first());
        QCOMPARE(body.value(u"previous_interaction_id"_s).toString(), u"v1_parent"_s);
        QCOMPARE(body.value(u"agent"_s).toString(), kDeepResearchAgent);
        QCOMPARE(body.value(u"input"_s).toString(), u"And in 2027?"_s);
        QVERIFY(!body.contains(u"model"_s));
        // A model's run, followed up without a record of it: on that model.
        ContinuationToken modelParent;
        modelParent.remoteId = u"v1_m"_s;
        r.model = u"gemini-2.5-pro"_s;
        collect(backend.followUp(modelParent, r, nullptr));
        body = bodyOf(server.requests().last());
        QCOMPARE(body.value(u"model"_s).toString(), u"gemini-2.5-pro"_s);
        QCOMPARE(body.value(u"previous_interaction_id"_s).toString(), u"v1_m"_s);
    }

    void respondWithFunctionResults()
    {
        ScriptedServer server;
        server.enqueue("/v1beta/interactions/v1_call01",
                       ScriptedReply::json(200, readData(u"gemini/function-call-interaction.json"_s)));
        server.enqueue(
            "/v1beta/interactions",
            ScriptedReply::json(200, json("{'id':'v1_call02','object':'interaction','status':"
                                          "'in_progress','model':'gemini-3-flash-preview','steps':[]}")));
        GeminiBackend backend(connectionTo(server));
        ContinuationToken token;
        token.remoteId = u"v1_call01"_s;
        token.streamable = true;
        InputAnswer answer;
        answer.toolAnswers
            = {{u"call_weather_1"_s, u"18 C, cloudy"_s, false}, {u"call_time_2"_s, u"14:05"_s, false}};
        const std::optional<ActionResult> result = awaitWithin(backend.respond(token, answer));
        QVERIFY(result);
        QVERIFY2(result->ok(), qPrintable(result->error.toString()));
        QCOMPARE(server.requestCount(), 2);
        const RecordedRequest &post = server.requests().last();
        QCOMPARE(post.method, "POST");
        QVERIFY(!post.header("content-type").isEmpty());
        const QJsonObject body = bodyOf(post);
        QCOMPARE(body.value(u"previous_interaction_id"_s).toString(), u"v1_call01"_s);
        QCOMPARE(body.value(u"model"_s).toString(), u"gemini-3-flash-preview"_s);
        QCOMPARE(body.value(u"background"_s).toBool(), true);
        const QJsonArray input = body.value(u"input"_s).toArray();
        QCOMPARE(input.size(), 2);
        QCOMPARE(QJsonDocument(input.at(0).toObject()).toJson(QJsonDocument::Compact),
                 json("{'call_id':'call_weather_1','name':'get_weather','result':'18 C, cloudy',"
                      "'type':'function_result'}"));
        const auto identity
            = std::find_if(result->events.cbegin(), result->events.cend(),
                           [](const RunEvent &e) { return e.type == RunEvent::Type::Identity; });
        QVERIFY(identity != result->events.cend());
        QCOMPARE(identity->remoteId, u"v1_call02"_s);
        QVERIFY(identity->continuation);
        QVERIFY(identity->streamable); // followed as the run was
    }

    void respondRefusesAWrongAnswer()
    {
        ScriptedServer server;
        server.enqueue("/v1beta/interactions/v1_call01",
                       ScriptedReply::json(200, readData(u"gemini/function-call-interaction.json"_s)));
        GeminiBackend backend(connectionTo(server));
        ContinuationToken token;
        token.remoteId = u"v1_call01"_s;
        InputAnswer answer;
        answer.toolAnswers = {{u"call_weather_1"_s, u"18 C"_s, false}}; // call_time_2 left out
        const std::optional<ActionResult> result = awaitWithin(backend.respond(token, answer));
        QVERIFY(result);
        QVERIFY(!result->ok());
        QCOMPARE(server.requestCount(), 1); // nothing was created
    }

    void cancelAndAlreadyFinished()
    {
        ScriptedServer server;
        server.enqueue(
            "/v1beta/interactions/v1_a/cancel",
            ScriptedReply::json(200, json("{'id':'v1_a','object':'interaction','status':'cancelled',"
                                          "'model':'m','steps':[]}")));
        server.enqueue("/v1beta/interactions/v1_b/cancel",
                       ScriptedReply::json(400, json("{'error':{'code':400,'message':'Interaction is not "
                                                     "running.','status':'FAILED_PRECONDITION'}}")));
        server.enqueue("/v1beta/interactions/v1_b",
                       ScriptedReply::json(200, readData(u"gemini/text-interaction.json"_s)));
        GeminiBackend backend(connectionTo(server));
        ContinuationToken a;
        a.remoteId = u"v1_a"_s;
        std::optional<ActionResult> result = awaitWithin(backend.cancel(a));
        QVERIFY(result && result->ok());
        QCOMPARE(server.requests().first().method, "POST");
        QCOMPARE(statusOf(result->events), u"cancelled"_s);
        ContinuationToken b;
        b.remoteId = u"v1_b"_s;
        result = awaitWithin(backend.cancel(b));
        QVERIFY(result);
        QVERIFY2(result->ok(), qPrintable(result->error.toString()));
        QCOMPARE(result->note, u"already completed"_s);
        QCOMPARE(statusOf(result->events), u"completed"_s);
    }

    void deleteEveryInteractionOfTheRun()
    {
        ScriptedServer server;
        server.enqueue("/v1beta/interactions/v1_2", ScriptedReply::json(200, "{}"));
        server.enqueue("/v1beta/interactions/v1_1",
                       ScriptedReply::json(404, json("{'error':{'code':404,'message':"
                                                     "'Not found.','status':'NOT_FOUND'}}")));
        GeminiBackend backend(connectionTo(server));
        ContinuationToken token;
        token.remoteId = u"v1_2"_s;
        token.previousRemoteIds = {u"v1_1"_s};
        const std::optional<ActionResult> result = awaitWithin(backend.remove(token));
        QVERIFY(result && result->ok());
        QCOMPARE(server.requestCount(), 2);
        QCOMPARE(server.requests().at(0).method, "DELETE");
        QCOMPARE(server.requests().at(0).path, "/v1beta/interactions/v1_2");
        QCOMPARE(server.requests().at(1).path, "/v1beta/interactions/v1_1");
        QCOMPARE(statusOf(result->events), u"deleted"_s);
    }

    void serviceErrors()
    {
        ScriptedServer server;
        server.enqueue(
            "/v1beta/interactions",
            ScriptedReply::json(400, json("{'error':{'code':400,'message':'API key not valid. Please "
                                          "pass a valid API key.','status':'INVALID_ARGUMENT'}}")));
        server.enqueue(
            "/v1beta/interactions/v1_gone",
            ScriptedReply::json(404, json("{'error':{'code':404,'message':'Interaction not found.',"
                                          "'status':'NOT_FOUND'}}")));
        GeminiBackend backend(connectionTo(server));
        StartRequest r;
        r.prompt = u"x"_s;
        const Collected c = collect(backend.start(r, nullptr));
        QVERIFY(c.end);
        QCOMPARE(int(c.end->reason), int(StreamEnd::Reason::Error));
        QCOMPARE(c.end->error.code, u"INVALID_ARGUMENT"_s);
        QCOMPARE(c.end->error.message, u"API key not valid. Please pass a valid API key."_s);
        QCOMPARE(c.end->error.httpStatus, 400);
        QVERIFY(!c.end->error.message.contains(kKey));
        ContinuationToken gone;
        gone.remoteId = u"v1_gone"_s;
        const std::optional<ActionResult> result = awaitWithin(backend.get(gone));
        QVERIFY(result && !result->ok());
        QCOMPARE(result->error.kind, ErrorKind::NotFound);
        QCOMPARE(result->error.code, u"NOT_FOUND"_s);
    }

    void failedStreamIsARunError()
    {
        ScriptedServer server;
        server.enqueue("/v1beta/interactions", sseFile(u"failed-stream.sse"_s));
        GeminiBackend backend(connectionTo(server));
        StartRequest r;
        r.prompt = u"x"_s;
        Run run;
        const Collected c = collect(backend.start(r, nullptr), &run);
        QVERIFY(c.end);
        QCOMPARE(int(c.end->reason), int(StreamEnd::Reason::Terminal));
        QCOMPARE(run.status, RunStatus::Failed);
        QVERIFY(run.error.isError());
        QVERIFY(!run.error.message.isEmpty());
    }

    void catalogListsModelsAndAgents()
    {
        ScriptedServer server;
        server.enqueue(
            "/v1beta/models?pageSize=1000",
            ScriptedReply::json(200, json("{'models':[{'name':'models/gemini-2.5-pro','displayName':"
                                          "'Gemini 2.5 Pro','supportedGenerationMethods':"
                                          "['generateContent']},{'name':'models/text-embedding-004',"
                                          "'supportedGenerationMethods':['embedContent']}],"
                                          "'nextPageToken':'p/2'}")));
        server.enqueue(
            "/v1beta/models?pageSize=1000&pageToken=p%2F2",
            ScriptedReply::json(200, json("{'models':[{'name':'models/gemini-3-flash-preview','displayName':"
                                          "'Gemini 3 Flash Preview','supportedGenerationMethods':"
                                          "['generateContent']}]}")));
        GeminiBackend backend(connectionTo(server));
        const std::optional<CatalogResult> list = awaitWithin(backend.catalog());
        QVERIFY(list);
        QVERIFY2(!list->error.isError(), qPrintable(list->error.toString()));
        QStringList ids;
        for (const CatalogEntry &e : list->entries)
            ids << e.id;
        // The default model first, no embedding model, then the agents.
        QCOMPARE(ids.mid(0, 2),
                 (QStringList{u"models/gemini-3-flash-preview"_s, u"models/gemini-2.5-pro"_s}));
        QCOMPARE(ids.mid(2), knownAgents());
        QCOMPARE(list->entries.first().name, u"Gemini 3 Flash Preview"_s);
        QCOMPARE(server.requests().first().header("x-goog-api-key"), kKey.toUtf8());
    }

    void catalogListsTheServicesAgents()
    {
        ScriptedServer server;
        server.enqueue("/v1beta/agents?page_size=1000",
                       ScriptedReply::json(200, json("{'agents':[{'id':'customer-sentinel'},{'id':"
                                                     "'deep-research-pro-preview-12-2025'}]}")));
        GeminiBackend backend(connectionTo(server));
        const std::optional<CatalogResult> list = awaitWithin(backend.catalog());
        QVERIFY(list);
        QVERIFY2(!list->error.isError(), qPrintable(list->error.toString())); // no model listing: 404
        QStringList ids;
        for (const CatalogEntry &e : list->entries)
            ids << e.id;
        QStringList expected{u"customer-sentinel"_s};
        expected << knownAgents();
        QCOMPARE(ids, expected);
    }

    void catalogWithoutModelListing()
    {
        ScriptedServer server; // answers 404 to everything
        GeminiBackend backend(connectionTo(server));
        const std::optional<CatalogResult> list = awaitWithin(backend.catalog());
        QVERIFY(list);
        QVERIFY(!list->error.isError());
        QCOMPARE(list->entries.size(), knownAgents().size());
        server.enqueue(
            "/v1beta/models?pageSize=1000",
            ScriptedReply::json(403, json("{'error':{'code':403,'message':'Method doesn\\u0027t allow "
                                          "unregistered callers.','status':'PERMISSION_DENIED'}}")));
        const std::optional<CatalogResult> denied = awaitWithin(backend.catalog());
        QVERIFY(denied);
        QCOMPARE(denied->error.kind, ErrorKind::Auth);
        QCOMPARE(denied->error.code, u"PERMISSION_DENIED"_s);
        QCOMPARE(denied->entries.size(), knownAgents().size()); // still offered
    }

    void probeAsksForTheModels()
    {
        ScriptedServer server;
        server.enqueue("/v1beta/models?pageSize=1", ScriptedReply::json(200, json("{'models':[]}")));
        GeminiBackend backend(connectionTo(server));
        const std::optional<ConnectionProbe> probe = awaitWithin(backend.probe());
        QVERIFY(probe);
        QVERIFY(probe->ok);
        QCOMPARE(probe->kind, ConnectionProbe::Kind::Models);
    }
};

QTEST_GUILESS_MAIN(TestGeminiBackend)
#include "tst_gemini_backend.moc"
