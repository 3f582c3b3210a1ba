// SPDX-License-Identifier: GPL-3.0-or-later
// The A2A connector's pure parts: TaskState mapping, parts, discriminators, errors, agent cards,
// the A2aMapper, and the recorded transcripts of the protocol reference (§12) replayed
// through the same path the connector's stream uses (SseParser → decode → classify → tracker →
// applyEvent).
#include "backends/a2a/a2acard.h"
#include "backends/a2a/a2amapper.h"
#include "backends/a2a/a2areply.h"
#include "domain/runevent.h"
#include "domain/runreducer.h"
#include "net/sseparser.h"
#include "testdata.h"

#include <QJsonDocument>
#include <QtTest>

using namespace Runwatch;
using namespace Runwatch::A2a;
using namespace Qt::StringLiterals;

namespace {

struct Replayed
{
    Run run;
    QList<RunEvent> events;
    QList<ProtocolError> errors;
    QStringList malformed;
    A2aMapper tracker;
};

QJsonObject object(const char *json)
{
    return QJsonDocument::fromJson(QByteArray(json)).object();
}

// Feeds an SSE body the way A2aRunStream does and applies the result to a run.
Replayed replaySse(const QByteArray &sse, Binding binding, Run start = {})
{
    Replayed r;
    r.run = std::move(start);
    SseParser parser;
    parser.feed(sse, [&](const SseEvent &event) {
        const Reply reply = binding == Binding::JsonRpc ? decodeJsonRpc(event.data) : decodeRest(event.data);
        if (reply.error) {
            r.errors << *reply.error;
            return;
        }
        if (!reply.malformed.isEmpty()) {
            r.malformed << reply.malformed;
            return;
        }
        r.tracker.apply(classify(reply.result), r.events);
    });
    for (const RunEvent &e : std::as_const(r.events))
        applyEvent(r.run, e);
    return r;
}

int countItemsWithId(const Run &run, const QString &id)
{
    return int(std::count_if(run.secondary.cbegin(), run.secondary.cend(),
                             [&](const SecondaryItem &i) { return i.id == id; }));
}

bool hasSecondaryText(const Run &run, const QString &text)
{
    return std::any_of(run.secondary.cbegin(), run.secondary.cend(),
                       [&](const SecondaryItem &i) { return i.text == text; });
}

} // namespace

// URLs in raw strings are written with JSON's \/ escape: moc (6.4) reads "//" inside a raw
// string as a comment and then finds no class in this file.
class TestA2aMapping final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void states_data()
    {
        QTest::addColumn<QString>("wire");
        QTest::addColumn<RunStatus>("expected");
        const QList<std::pair<QStringList, RunStatus>> table{
            {{u"submitted"_s, u"TASK_STATE_SUBMITTED"_s}, RunStatus::Queued},
            {{u"working"_s, u"TASK_STATE_WORKING"_s}, RunStatus::InProgress},
            {{u"completed"_s, u"TASK_STATE_COMPLETED"_s}, RunStatus::Completed},
            {{u"failed"_s, u"TASK_STATE_FAILED"_s}, RunStatus::Failed},
            {{u"canceled"_s, u"TASK_STATE_CANCELED"_s, u"TASK_STATE_CANCELLED"_s}, RunStatus::Cancelled},
            {{u"input-required"_s, u"TASK_STATE_INPUT_REQUIRED"_s}, RunStatus::InputRequired},
            {{u"auth-required"_s, u"TASK_STATE_AUTH_REQUIRED"_s}, RunStatus::InputRequired},
            {{u"rejected"_s, u"TASK_STATE_REJECTED"_s}, RunStatus::Rejected},
            {{u"unknown"_s, u"TASK_STATE_UNSPECIFIED"_s, u""_s, u"TASK_STATE_PAUSED"_s}, RunStatus::Unknown},
        };
        for (const auto &[names, status] : table) {
            for (const QString &n : names)
                QTest::addRow("%s", n.isEmpty() ? "(empty)" : qPrintable(n)) << n << status;
        }
    }
    void states()
    {
        QFETCH(QString, wire);
        QFETCH(RunStatus, expected);
        QCOMPARE(mapState(wire), expected);
    }

    void parts()
    {
        const QJsonArray v10
            = QJsonDocument::fromJson(
                  R"([{"text":"a"},{"text":"b","mediaType":"text/plain"},{"data":{"k":1}},{"url":"https:\/\/x/f.pdf","filename":"f.pdf"},{"raw":"AAE="}])")
                  .array();
        QCOMPARE(partsText(v10), u"ab{\"k\":1}[file f.pdf][file]"_s);
        const QJsonArray v03
            = QJsonDocument::fromJson(
                  R"([{"kind":"text","text":"x"},{"kind":"data","data":{"a":true}},{"kind":"file","file":{"uri":"https:\/\/y/z.png","name":"z.png"}}])")
                  .array();
        QCOMPARE(partsText(v03), u"x{\"a\":true}[file z.png]"_s);
        QCOMPARE(partsText(QJsonArray{}), QString());
        QCOMPARE(partsText(QJsonArray{1, u"s"_s, QJsonValue()}), QString()); // nonsense is skipped
    }

    void classifyShapes()
    {
        QCOMPARE(classify(object(R"({"task":{"id":"t"}})")).kind, StreamItem::Kind::Task);
        QCOMPARE(classify(object(R"({"statusUpdate":{"taskId":"t"}})")).kind, StreamItem::Kind::StatusUpdate);
        QCOMPARE(classify(object(R"({"artifactUpdate":{"taskId":"t"}})")).kind,
                 StreamItem::Kind::ArtifactUpdate);
        QCOMPARE(classify(object(R"({"message":{"messageId":"m"}})")).kind, StreamItem::Kind::Message);
        QCOMPARE(classify(object(R"({"kind":"status-update","taskId":"t"})")).kind,
                 StreamItem::Kind::StatusUpdate);
        QCOMPARE(classify(object(R"({"kind":"artifact-update"})")).kind, StreamItem::Kind::ArtifactUpdate);
        QCOMPARE(classify(object(R"({"kind":"task","id":"t"})")).kind, StreamItem::Kind::Task);
        QCOMPARE(classify(object(R"({"kind":"message","messageId":"m","parts":[]})")).kind,
                 StreamItem::Kind::Message);
        // Bare objects of GetTask / CancelTask and the 0.3 spec example without `kind`.
        QCOMPARE(classify(object(R"({"id":"t","status":{"state":"working"}})")).kind, StreamItem::Kind::Task);
        QCOMPARE(classify(object(R"({"taskId":"t","artifact":{"parts":[]}})")).kind,
                 StreamItem::Kind::ArtifactUpdate);
        QCOMPARE(classify(object(R"({"kind":"future-thing"})")).kind, StreamItem::Kind::Unknown);
        QCOMPARE(classify(object(R"({"hello":1})")).kind, StreamItem::Kind::Unknown);
        QCOMPARE(classify(QJsonValue(3)).kind, StreamItem::Kind::Unknown);
        QCOMPARE(classify(object(R"({"task":"not an object"})")).kind, StreamItem::Kind::Unknown);
    }

    void errors()
    {
        const Reply v1 = decodeJsonRpc(RunwatchTest::readData(u"a2a/jsonrpc-1.0-error.json"_s));
        QVERIFY(v1.error);
        QCOMPARE(v1.error->code, -32001);
        QCOMPARE(v1.error->reason, u"TASK_NOT_FOUND"_s);
        const RunError e = toRunError(*v1.error);
        QCOMPARE(e.kind, ErrorKind::NotFound);
        QCOMPARE(e.code, u"-32001"_s);
        QVERIFY(e.message.contains(u"Task not found: nope"_s));
        QVERIFY(e.message.startsWith(u"TaskNotFound"_s));

        const Reply rest = decodeRest(RunwatchTest::readData(u"a2a/rest-1.0-error.json"_s), 404);
        QVERIFY(rest.error);
        QCOMPARE(rest.error->code, -32001); // from ErrorInfo.reason, not the HTTP status in `code`
        QCOMPARE(rest.error->httpStatus, 404);

        const QList<QByteArray> lines = RunwatchTest::readData(u"a2a/jsonrpc-0.3-errors.txt"_s).split('\n');
        QCOMPARE(decodeJsonRpc(lines.at(0)).error->code, -32001);
        const Reply notFound = decodeJsonRpc(lines.at(1));
        QCOMPARE(notFound.error->code, -32601);
        QCOMPARE(toRunError(*notFound.error).kind, ErrorKind::Client);

        // JSON-RPC internal error: retryable server error; TaskNotCancelable: a client error that
        // names itself.
        QVERIFY(toRunError(ProtocolError{-32603, u"boom"_s, {}, 500}).retryable);
        QCOMPARE(toRunError(ProtocolError{-32603, u"boom"_s, {}, 500}).kind, ErrorKind::Server);
        QVERIFY(
            toRunError(ProtocolError{-32002, u"no"_s, {}, 200}).message.startsWith(u"TaskNotCancelable"_s));
        QCOMPARE(toRunError(ProtocolError{-32009, u"v"_s, {}, 200}).kind, ErrorKind::Client);

        // RFC 9457 body and plain garbage.
        const auto problem
            = parseErrorBody(R"({"type":"about:blank","title":"Not Found","detail":"no task"})", 404);
        QVERIFY(problem);
        QCOMPARE(problem->message, u"no task"_s);
        QCOMPARE(problem->code, -32001);
        QVERIFY(!parseErrorBody("<html>", 500));
        QVERIFY(!decodeJsonRpc("{\"jsonrpc\":\"2.0\",\"id\":1}").malformed.isEmpty());
        QVERIFY(!decodeJsonRpc("[1,2]").malformed.isEmpty());
        QVERIFY(!decodeJsonRpc("{truncated").malformed.isEmpty());
    }

    void cardV10()
    {
        const QByteArray json = R"({"name":"Runwatch Peer","description":"Test agent","supportedInterfaces":[
            {"url":"http:\/\/127.0.0.1:42501/a2a/jsonrpc","protocolBinding":"JSONRPC","tenant":"","protocolVersion":"1.0"},
            {"url":"http:\/\/127.0.0.1:42501/a2a/rest","protocolBinding":"HTTP+JSON","tenant":"","protocolVersion":"1.0"},
            {"url":"http:\/\/127.0.0.1:42501/grpc","protocolBinding":"GRPC","tenant":"","protocolVersion":"1.0"}],
            "version":"1.0.0","capabilities":{"streaming":true,"pushNotifications":false,"extensions":[]},
            "securitySchemes":{},"securityRequirements":[],"defaultInputModes":["text/plain"],
            "skills":[{"id":"chunks","name":"Chunked output","description":"d","tags":["test"]}],"signatures":[]})";
        const CardParse p
            = parseAgentCard(json, QUrl(u"http://127.0.0.1:42501/.well-known/agent-card.json"_s));
        QVERIFY2(p.card, qPrintable(p.error));
        QCOMPARE(p.card->name, u"Runwatch Peer"_s);
        QCOMPARE(p.card->interfaces.size(), 2);
        QCOMPARE(p.card->otherInterfaces.size(), 1); // gRPC is declared but not usable here
        QVERIFY(p.card->streaming);
        QCOMPARE(p.card->skills.size(), 1);
        QCOMPARE(p.card->skills.first().name, u"Chunked output"_s);
        QCOMPARE(p.card->auth.kind, AuthScheme::Kind::None);
        const auto jsonRpc = selectInterface(*p.card);
        QVERIFY(jsonRpc);
        QCOMPARE(jsonRpc->binding, Binding::JsonRpc);
        QCOMPARE(jsonRpc->version, Version::V10);
        const auto rest = selectInterface(*p.card, u"HTTP+JSON"_s);
        QVERIFY(rest);
        QCOMPARE(rest->url.path(), u"/a2a/rest"_s);
        QVERIFY(!selectInterface(*p.card, {}, u"0.3"_s));
        QVERIFY(p.card->summary().contains(u"Skills: Chunked output"_s));
        QVERIFY(p.card->summary().contains(u"A2A 1.0 over JSONRPC"_s));
    }

    void cardV03()
    {
        const QByteArray json
            = R"({"protocolVersion":"0.3.0","name":"Old agent","description":"d","url":"/a2a",
            "preferredTransport":"JSONRPC","additionalInterfaces":[{"url":"http:\/\/h/rest","transport":"HTTP+JSON"}],
            "capabilities":{"streaming":false},"securitySchemes":{"bearer":{"type":"http","scheme":"bearer"}},
            "security":[{"bearer":[]}],"skills":[]})";
        const CardParse p = parseAgentCard(json, QUrl(u"http://h:9/.well-known/agent.json"_s));
        QVERIFY2(p.card, qPrintable(p.error));
        QCOMPARE(p.card->interfaces.size(), 2);
        const auto i = selectInterface(*p.card);
        QCOMPARE(i->version, Version::V03);
        QCOMPARE(i->url, QUrl(u"http://h:9/a2a"_s)); // relative URL resolved against the card's
        QVERIFY(!p.card->streaming);
        QCOMPARE(p.card->auth.kind, AuthScheme::Kind::Bearer);
    }

    void cardCompatPrefers10()
    {
        const QByteArray json = R"({"name":"Both","supportedInterfaces":[
            {"url":"http:\/\/h/a","protocolBinding":"JSONRPC","protocolVersion":"0.3"},
            {"url":"http:\/\/h/b","protocolBinding":"JSONRPC","protocolVersion":"1.0.1"}]})";
        const CardParse p = parseAgentCard(json, QUrl(u"http://h/.well-known/agent-card.json"_s));
        QVERIFY(p.card);
        QCOMPARE(selectInterface(*p.card)->url.path(), u"/b"_s);
        QCOMPARE(selectInterface(*p.card, {}, u"0.3"_s)->url.path(), u"/a"_s);
    }

    void cardSecurity_data()
    {
        QTest::addColumn<QByteArray>("schemes");
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("name");
        QTest::addRow("1.0 api key header") << QByteArray(
            R"("securitySchemes":{"k":{"apiKeySecurityScheme":{"location":"header","name":"X-API-Key"}}},"securityRequirements":[{"schemes":{"k":{"list":[]}}}])")
                                            << int(AuthScheme::Kind::ApiKeyHeader) << u"X-API-Key"_s;
        QTest::addRow("@a2a-js/sdk 1.3.0 oneof form") << QByteArray(
            R"("securitySchemes":{"key":{"scheme":{"$case":"apiKeySecurityScheme","value":{"description":"","location":"header","name":"X-API-Key"}}}},"securityRequirements":[{"schemes":{"key":{"list":[]}}}])")
                                                      << int(AuthScheme::Kind::ApiKeyHeader)
                                                      << u"X-API-Key"_s;
        QTest::addRow("1.0 bearer") << QByteArray(
            R"("securitySchemes":{"b":{"httpAuthSecurityScheme":{"scheme":"Bearer"}}})")
                                    << int(AuthScheme::Kind::Bearer) << QString();
        QTest::addRow("0.3 api key query") << QByteArray(
            R"("securitySchemes":{"q":{"type":"apiKey","in":"query","name":"key"}},"security":[{"q":[]}])")
                                           << int(AuthScheme::Kind::ApiKeyQuery) << u"key"_s;
        QTest::addRow("oauth2 is a bearer token")
            << QByteArray(R"("securitySchemes":{"o":{"oauth2SecurityScheme":{"flows":{}}}})")
            << int(AuthScheme::Kind::Bearer) << QString();
        QTest::addRow("requirement order wins") << QByteArray(
            R"("securitySchemes":{"a":{"type":"http","scheme":"bearer"},"z":{"type":"apiKey","in":"header","name":"Z"}},"security":[{"z":[]}])")
                                                << int(AuthScheme::Kind::ApiKeyHeader) << u"Z"_s;
        QTest::addRow("mtls only: nothing usable")
            << QByteArray(R"("securitySchemes":{"m":{"mtlsSecurityScheme":{}}})")
            << int(AuthScheme::Kind::None) << QString();
    }
    void cardSecurity()
    {
        QFETCH(QByteArray, schemes);
        QFETCH(int, kind);
        QFETCH(QString, name);
        const QByteArray json = R"({"name":"S","url":"http:\/\/h/a",)" + schemes + "}";
        const CardParse p = parseAgentCard(json, QUrl(u"http://h/"_s));
        QVERIFY2(p.card, qPrintable(p.error));
        QCOMPARE(int(p.card->auth.kind), kind);
        QCOMPARE(p.card->auth.name, name);
        if (kind == int(AuthScheme::Kind::None))
            QVERIFY(!p.card->auth.note.isEmpty());
    }

    void cardErrors_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("expected");
        QTest::addRow("truncated") << QByteArray(R"({"name":"x","supportedInterfaces":[{"url":)")
                                   << u"not valid JSON"_s;
        QTest::addRow("html") << QByteArray("<html><title>Sign in</title></html>") << u"not valid JSON"_s;
        QTest::addRow("array") << QByteArray("[1]") << u"not a JSON object"_s;
        QTest::addRow("no name") << QByteArray(R"({"status":"ok"})") << u"has no \"name\""_s;
        QTest::addRow("no interface") << QByteArray(R"({"name":"x"})") << u"declares no interface"_s;
        QTest::addRow("grpc only") << QByteArray(
            R"({"name":"x","supportedInterfaces":[{"url":"http:\/\/h","protocolBinding":"GRPC","protocolVersion":"1.0"}]})")
                                   << u"offers no interface Runwatch can use"_s;
        QTest::addRow("version 0.1") << QByteArray(
            R"({"name":"x","url":"http:\/\/h","protocolVersion":"0.1.0"})")
                                     << u"offers no interface"_s;
    }
    void cardErrors()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, expected);
        const CardParse p = parseAgentCard(json, QUrl(u"http://h/.well-known/agent-card.json"_s));
        QVERIFY(!p.card);
        QVERIFY2(p.error.contains(expected), qPrintable(p.error));
        QVERIFY(p.error.contains(u"http://h/.well-known/agent-card.json"_s));
    }

    // §12.1: Task → working → two chunks (the first without append/lastChunk) → completed.
    void transcriptJsonRpc10Stream()
    {
        const Replayed r
            = replaySse(RunwatchTest::readData(u"a2a/jsonrpc-1.0-stream.sse"_s), Binding::JsonRpc);
        QVERIFY(r.errors.isEmpty() && r.malformed.isEmpty());
        QCOMPARE(r.run.remoteId, u"7d680f84-9fd9-47a8-9e24-9165f9ab1fdc"_s);
        QCOMPARE(r.run.primaryText, u"You said: hello. Done."_s);
        QCOMPARE(r.run.status, RunStatus::Completed);
        QCOMPARE(r.run.rawStatus, u"TASK_STATE_COMPLETED"_s);
        QCOMPARE(r.run.reconciliations, 0);
        QVERIFY(hasSecondaryText(r.run, u"Working..."_s));
        QCOMPARE(r.tracker.contextId(), u"c36f6a6d-b772-455e-9543-32b88cfaa0ad"_s);
        QVERIFY(r.tracker.isEndState());
        int deltas = 0;
        for (const RunEvent &e : r.events)
            deltas += e.type == RunEvent::Type::PrimaryDelta;
        QCOMPARE(deltas, 2); // one per chunk: the text streams
    }

    // §12.2: the stream ends waiting for "Which city?".
    void transcriptInputRequired()
    {
        const Replayed r
            = replaySse(RunwatchTest::readData(u"a2a/jsonrpc-1.0-input-required.sse"_s), Binding::JsonRpc);
        QCOMPARE(r.run.status, RunStatus::InputRequired);
        QVERIFY(r.run.input);
        QCOMPARE(r.run.input->reason, InputReason::Question);
        QCOMPARE(r.run.input->prompt, u"Which city?"_s);
        QCOMPARE(r.run.input->raw.value(u"taskId"_s).toString(), u"c718f4bc-14cd-4491-8748-7b7aaf946633"_s);
        QCOMPARE(r.run.input->raw.value(u"contextId"_s).toString(),
                 u"437fe03c-b025-4623-bb0e-3bd9772716f7"_s);
        QVERIFY(r.tracker.isEndState());
        QVERIFY(r.run.primaryText.isEmpty());
    }

    // §12.3: a blocking SendMessage reply (wrapped in result.task) at INPUT_REQUIRED.
    void transcriptSendMessageReply()
    {
        const Reply reply
            = decodeJsonRpc(RunwatchTest::readData(u"a2a/jsonrpc-1.0-sendmessage-input-required.json"_s));
        QVERIFY(reply.ok());
        A2aMapper tracker;
        QList<RunEvent> events;
        tracker.apply(classify(reply.result), events);
        Run run;
        for (const RunEvent &e : events)
            applyEvent(run, e);
        QCOMPARE(run.remoteId, u"02754306-5af8-4053-a833-13de3923da3d"_s);
        QCOMPARE(run.status, RunStatus::InputRequired);
        QCOMPARE(run.input->prompt, u"Which city?"_s);
        // The question is both the status message and in history: one secondary item, not two.
        QCOMPARE(countItemsWithId(run, u"a2a-msg:a96ba503-5e1d-4ccd-8d49-72ef5e8fbdf3"_s), 1);
    }

    // §12.4: SubscribeToTask on a running task (snapshot first), then cancelled elsewhere.
    void transcriptSubscribeThenCancel()
    {
        QByteArray sse = RunwatchTest::readData(u"a2a/jsonrpc-1.0-subscribe-cancel.sse"_s);
        sse.replace("\"history\":[\xE2\x80\xA6]", "\"history\":[]"); // elided by the reference
        const Replayed r = replaySse(sse, Binding::JsonRpc);
        QVERIFY(r.malformed.isEmpty());
        QCOMPARE(r.run.remoteId, u"89c5c2b9-d976-4f9e-999c-9259103610b5"_s);
        QCOMPARE(r.run.status, RunStatus::Cancelled);
        QCOMPARE(r.run.rawStatus, u"TASK_STATE_CANCELED"_s);
        QVERIFY(r.run.primaryText.isEmpty()); // progress only, no artifact
        QVERIFY(hasSecondaryText(r.run, u"step 2/40"_s));
        QVERIFY(hasSecondaryText(r.run, u"step 5/40"_s));
    }

    // §12.5: HTTP+JSON, bare StreamResponses.
    void transcriptRest10Stream()
    {
        const Replayed r = replaySse(RunwatchTest::readData(u"a2a/rest-1.0-stream.sse"_s), Binding::HttpJson);
        QVERIFY(r.errors.isEmpty() && r.malformed.isEmpty());
        QCOMPARE(r.run.primaryText, u"You said: hi rest. Done."_s);
        QCOMPARE(r.run.status, RunStatus::Completed);
    }

    // §12.6: 0.3 JSON-RPC with kind discriminators, kebab-case states, explicit append:false.
    void transcriptJsonRpc03Stream()
    {
        const Replayed r
            = replaySse(RunwatchTest::readData(u"a2a/jsonrpc-0.3-stream.sse"_s), Binding::JsonRpc);
        QCOMPARE(r.run.remoteId, u"c279d02d-23e1-4354-8a04-c93dec6f5b28"_s);
        QCOMPARE(r.run.primaryText, u"You said: hello. Done."_s);
        QCOMPARE(r.run.status, RunStatus::Completed);
        QCOMPARE(r.run.rawStatus, u"completed"_s);
        QCOMPARE(r.run.reconciliations, 0);
    }

    // §12.7: the spec's REST example, whose artifact has no artifactId.
    void transcriptSpecRestExample()
    {
        const Replayed r
            = replaySse(RunwatchTest::readData(u"a2a/rest-1.0-spec-example.sse"_s), Binding::HttpJson);
        QCOMPARE(r.run.remoteId, u"task-uuid"_s);
        QCOMPARE(r.run.primaryText, u"# Climate Change Report\n\n"_s);
        QCOMPARE(r.run.status, RunStatus::Completed);
    }

    // §12.8: the 0.3 spec example: three sections appended, bare objects with `kind`.
    void transcriptSpec03Example()
    {
        QByteArray sse = RunwatchTest::readData(u"a2a/jsonrpc-0.3-spec-example.sse"_s);
        sse.replace("\"history\":[\xE2\x80\xA6]", "\"history\":[]");
        // The reference shortened repeated ids to "9b6934dd-…"; in the spec they are one artifact.
        sse.replace("9b6934dd-\xE2\x80\xA6", "9b6934dd-37e3-4eb1-8766-962efaab63a1");
        const Replayed r = replaySse(sse, Binding::JsonRpc);
        QVERIFY(r.malformed.isEmpty());
        QCOMPARE(r.run.primaryText, u"<section 1...><section 2...><section 3...>"_s);
        QCOMPARE(r.run.status, RunStatus::Completed);
    }

    // Cutting each transcript after every event and continuing from a snapshot of the agent's
    // state (what SubscribeToTask starts with) gives the uninterrupted text, without counting
    // a reconciliation.
    void transcriptResumeFromSnapshot()
    {
        const QByteArray sse = RunwatchTest::readData(u"a2a/jsonrpc-1.0-stream.sse"_s);
        const QList<QByteArray> events = sse.split('\n');
        QList<QByteArray> dataLines;
        for (const QByteArray &l : events) {
            if (l.startsWith("data: "))
                dataLines << l;
        }
        QCOMPARE(dataLines.size(), 5);
        const QString taskSnapshotTemplate = QString::fromUtf8(
            R"({"task":{"id":"7d680f84-9fd9-47a8-9e24-9165f9ab1fdc","contextId":"c","status":{"state":"%1"},"artifacts":[%2]}})");
        const QStringList artifactsAfter{
            u""_s, u""_s, u""_s,
            QString::fromUtf8(R"({"artifactId":"result-1","parts":[{"text":"You said: hello. "}]})"),
            QString::fromUtf8(
                R"({"artifactId":"result-1","parts":[{"text":"You said: hello. "},{"text":"Done."}]})")};
        const QStringList stateAfter{u"TASK_STATE_SUBMITTED"_s, u"TASK_STATE_WORKING"_s,
                                     u"TASK_STATE_WORKING"_s, u"TASK_STATE_WORKING"_s,
                                     u"TASK_STATE_COMPLETED"_s};
        for (int cut = 1; cut < dataLines.size(); ++cut) {
            QByteArray first;
            for (int i = 0; i < cut; ++i)
                first += dataLines.at(i) + "\n\n";
            Replayed a = replaySse(first, Binding::JsonRpc);
            // The reconnect: snapshot of the agent as of the cut, then the rest of the events.
            const QString snapshot
                = taskSnapshotTemplate.arg(stateAfter.at(cut - 1), artifactsAfter.at(cut - 1));
            QByteArray second
                = "data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":" + snapshot.toUtf8() + "}\n\n";
            for (int i = cut; i < dataLines.size(); ++i)
                second += dataLines.at(i) + "\n\n";
            const Replayed b = replaySse(second, Binding::JsonRpc, a.run);
            QCOMPARE(b.run.primaryText, u"You said: hello. Done."_s);
            QCOMPARE(b.run.status, RunStatus::Completed);
            QCOMPARE(b.run.reconciliations, 0);
        }
    }

    void trackerMissingFieldsAreFalse()
    {
        A2aMapper t;
        QList<RunEvent> events;
        // Two chunks of one artifact, neither says append: the second replaces the first (§6).
        t.apply(
            classify(object(
                R"({"artifactUpdate":{"taskId":"t","artifact":{"artifactId":"a","parts":[{"text":"one"}]}}})")),
            events);
        t.apply(
            classify(object(
                R"({"artifactUpdate":{"taskId":"t","artifact":{"artifactId":"a","parts":[{"text":"two"}]}}})")),
            events);
        QCOMPARE(t.primaryText(), u"two"_s);
        // A status without a state is TASK_STATE_UNSPECIFIED (ProtoJSON drops the default).
        t.apply(classify(object(R"({"statusUpdate":{"taskId":"t","status":{}}})")), events);
        QCOMPARE(t.status(), RunStatus::Unknown);
        QCOMPARE(t.rawState(), u"TASK_STATE_UNSPECIFIED"_s);
    }

    void trackerArtifactsInOrder()
    {
        A2aMapper t;
        QList<RunEvent> events;
        t.apply(
            classify(object(
                R"({"artifactUpdate":{"taskId":"t","artifact":{"artifactId":"r","parts":[{"text":"A"}]}}})")),
            events);
        t.apply(
            classify(object(
                R"({"artifactUpdate":{"taskId":"t","artifact":{"artifactId":"s","parts":[{"text":"B"}]}}})")),
            events);
        t.apply(
            classify(object(
                R"({"artifactUpdate":{"taskId":"t","artifact":{"artifactId":"s","parts":[{"text":"C"}]},"append":true,"lastChunk":true}})")),
            events);
        QCOMPARE(t.primaryText(), u"A\n\nBC"_s);
        Run run;
        for (const RunEvent &e : events)
            applyEvent(run, e);
        QCOMPARE(run.primaryText, t.primaryText());
        QCOMPARE(run.reconciliations, 0);
        // Appending to an earlier artifact changes the middle: a snapshot, not a delta.
        QList<RunEvent> more;
        t.apply(
            classify(object(
                R"({"artifactUpdate":{"taskId":"t","artifact":{"artifactId":"r","parts":[{"text":"+"}]},"append":true}})")),
            more);
        QCOMPARE(more.size(), 1);
        QCOMPARE(more.first().type, RunEvent::Type::PrimarySnapshot);
        QCOMPARE(more.first().text, u"A+\n\nBC"_s);
    }

    void trackerAnsweredQuestion()
    {
        // The JS SDK republishes the stored task (still INPUT_REQUIRED) after our answer.
        A2aMapper t;
        QList<RunEvent> events;
        t.apply(classify(object(R"({"task":{"id":"t","status":{"state":"TASK_STATE_INPUT_REQUIRED",
            "message":{"messageId":"q","role":"ROLE_AGENT","parts":[{"text":"Which city?"}]}},
            "history":[{"messageId":"q","role":"ROLE_AGENT","parts":[{"text":"Which city?"}]},
                       {"messageId":"runwatch-answer-1","role":"ROLE_USER","parts":[{"text":"Paris"}]}]}})")),
                events);
        QCOMPARE(t.status(), RunStatus::InProgress);
        QVERIFY(!t.isEndState());
        QVERIFY(std::none_of(events.cbegin(), events.cend(),
                             [](const RunEvent &e) { return e.type == RunEvent::Type::InputRequired; }));
        // Without our answer in the history it is still a question.
        A2aMapper u;
        QList<RunEvent> e2;
        u.apply(classify(object(R"({"task":{"id":"t","status":{"state":"input-required"},
            "history":[{"messageId":"m","role":"user","parts":[{"text":"hi"}]}]}})")),
                e2);
        QCOMPARE(u.status(), RunStatus::InputRequired);
        QVERIFY(u.isEndState());
    }

    void trackerAuthRequired()
    {
        A2aMapper t;
        QList<RunEvent> events;
        t.apply(classify(object(
                    R"({"statusUpdate":{"taskId":"t","status":{"state":"TASK_STATE_AUTH_REQUIRED"}}})")),
                events);
        QCOMPARE(t.status(), RunStatus::InputRequired);
        QVERIFY(!t.isEndState()); // the stream may go on after out-of-band credentials (§5.1)
        const auto it = std::find_if(events.cbegin(), events.cend(), [](const RunEvent &e) {
            return e.type == RunEvent::Type::InputRequired;
        });
        QVERIFY(it != events.cend());
        QCOMPARE(it->input->reason, InputReason::Auth);
        QVERIFY(!it->input->prompt.isEmpty());
    }

    void trackerMessageReply()
    {
        A2aMapper t(u"Agent"_s);
        QList<RunEvent> events;
        t.apply(
            classify(object(
                R"({"message":{"messageId":"m1","contextId":"c","role":"ROLE_AGENT","parts":[{"text":"Hi!"}]}})")),
            events);
        Run run;
        for (const RunEvent &e : events)
            applyEvent(run, e);
        QCOMPARE(run.remoteId, u"m1"_s);
        QCOMPARE(run.model, u"Agent"_s);
        QCOMPARE(run.primaryText, u"Hi!"_s);
        QCOMPARE(run.status, RunStatus::Completed);
        QVERIFY(t.isEndState());
    }

    void trackerFailedCarriesMessage()
    {
        A2aMapper t;
        QList<RunEvent> events;
        t.apply(
            classify(object(
                R"({"kind":"status-update","taskId":"t","status":{"state":"failed","message":{"kind":"message","messageId":"x","role":"agent","parts":[{"kind":"text","text":"disk full"}]}},"final":true})")),
            events);
        Run run;
        for (const RunEvent &e : events)
            applyEvent(run, e);
        QCOMPARE(run.status, RunStatus::Failed);
        QCOMPARE(run.error.kind, ErrorKind::Run);
        QCOMPARE(run.error.message, u"disk full"_s);
    }
};

QTEST_GUILESS_MAIN(TestA2aMapping)
#include "tst_a2a_mapping.moc"
