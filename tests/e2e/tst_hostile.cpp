// SPDX-License-Identifier: GPL-3.0-or-later
// Hostile servers (issue 7): the engine and the OpenAI connector against a simulator and a
// scripted server that misbehave. Every case must end with a clear run error (kind + message),
// keep the text received before the fault, and neither hang nor crash. All waits are bounded.
#include "backends/openai/openaibackend.h"
#include "enginerig.h"
#include "openai/openaisim.h"
#include "scriptedserver.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QtTest>

#include <optional>

using namespace Runwatch;
using namespace Qt::StringLiterals;
using RunwatchTest::ScriptedReply;
using RunwatchTest::ScriptedServer;

namespace {

constexpr int kWait = 30000;

Connection connectionTo(const QUrl &baseUrl, const QJsonObject &options = {})
{
    Connection c = RunwatchTest::plainConnection(u"hostile"_s, u"openai"_s, baseUrl, options);
    c.defaultModel = u"runwatch-sim-1"_s;
    return c;
}

// One SSE event as the Responses API frames it.
QByteArray sseEvent(const QByteArray &type, int sequence, const QByteArray &members = {})
{
    return "event: " + type + "\ndata: {\"type\":\"" + type + "\",\"sequence_number\":"
           + QByteArray::number(sequence) + (members.isEmpty() ? QByteArray() : ',' + members) + "}\n\n";
}

QByteArray response(const QByteArray &status, const QByteArray &text = {})
{
    QByteArray output = "[]";
    if (!text.isEmpty()) {
        output = "[{\"type\":\"message\",\"id\":\"msg_1\",\"content\":[{\"type\":\"output_text\",\"text\":\""
                 + text + "\"}]}]";
    }
    return "\"response\":{\"id\":\"resp_h1\",\"model\":\"m\",\"status\":\"" + status
           + "\",\"output\":" + output + '}';
}

QByteArray opening(const QByteArray &firstText)
{
    return sseEvent("response.created", 0, response("queued"))
           + sseEvent("response.in_progress", 1, response("in_progress"))
           + sseEvent("response.output_text.delta", 2,
                      "\"item_id\":\"msg_1\",\"delta\":\"" + firstText + '"');
}

const RunwatchTest::HeaderList kSse{{"Content-Type", "text/event-stream"}};

// The connector alone against the simulator, its streams stalling after 0.7 s without an event.
struct StallRig
{
    StallRig()
    {
        sim.setIntervalMs(1);
        const bool listening = sim.listen();
        backend.emplace(connectionTo(sim.baseUrl(), {{u"stall_timeout_ms"_s, 700}}));
        QVERIFY(listening);
    }
    // A stream of the answer `prompt` asks the simulator for.
    RunStream *start(const QString &prompt, QObject *parent)
    {
        StartRequest request;
        request.prompt = prompt;
        return backend->start(request, parent);
    }
    RunwatchSim::OpenAiSimulator sim;
    std::optional<OpenAiBackend> backend;
};

} // namespace

class TestHostile final : public QObject
{
    Q_OBJECT

    struct SimRig : RunwatchTest::ServerRig<RunwatchSim::OpenAiSimulator>
    {
        explicit SimRig(const QJsonObject &options = {},
                        const FollowPolicy &policy = RunwatchTest::quickFollowPolicy())
        {
            sim.setIntervalMs(1);
            QVERIFY(sim.listen());
            manager.setFollowPolicy(policy);
            QVERIFY(addConnection(connectionTo(sim.baseUrl(), options)));
        }
    };

    // `sim` is a scripted server here: each test writes what it answers.
    struct ScriptRig : RunwatchTest::ServerRig<ScriptedServer>
    {
        explicit ScriptRig(const QJsonObject &options = {},
                           const FollowPolicy &policy = RunwatchTest::quickFollowPolicy())
        {
            QVERIFY(sim.isListening());
            manager.setFollowPolicy(policy);
            QVERIFY(addConnection(connectionTo(sim.url(u"/v1"_s), options)));
        }
    };

private Q_SLOTS:
    // An event over the connection's limit (max_event_bytes) ends following with a Protocol
    // error; the delta before it is kept.
    void eventLargerThanLimit()
    {
        SimRig rig({{u"max_event_bytes"_s, 64 * 1024}});
        QSignalSpy stopped(&rig.manager, &RunManager::followingStopped);
        const QString id = rig.start(u"huge deltas=3 huge_bytes=1000000"_s);
        QVERIFY(stopped.wait(kWait));
        const Run &run = *rig.manager.run(id);
        QCOMPARE(run.error.kind, ErrorKind::Protocol);
        QCOMPARE(run.error.code, u"event_too_large"_s);
        QVERIFY2(run.error.message.contains(u"64 KiB limit"_s), qPrintable(run.error.message));
        QCOMPARE(run.primaryText, RunwatchSim::OpenAiSimulator::tokenText(1));
        QVERIFY(!rig.manager.isFollowing(id));
    }

    // A `data:` line that never ends is cut off at the parser's default limit (no knob set):
    // memory stays bounded and the earlier deltas are kept.
    void neverEndingLine()
    {
        SimRig rig;
        QSignalSpy stopped(&rig.manager, &RunManager::followingStopped);
        // Events 0-4 are lifecycle/structure; deltas start at sequence 5.
        const QString id = rig.start(u"normal deltas=10 endless_line_at=8"_s);
        QVERIFY(stopped.wait(120000));
        const Run &run = *rig.manager.run(id);
        QCOMPARE(run.error.kind, ErrorKind::Protocol);
        QCOMPARE(run.error.code, u"event_too_large"_s);
        QVERIFY(!run.error.message.isEmpty());
        QCOMPARE(run.primaryText, RunwatchSim::OpenAiSimulator::tokenText(3));
    }

    // Invalid UTF-8 in a text delta: a Protocol error that names the last good event.
    void invalidUtf8()
    {
        SimRig rig;
        QSignalSpy stopped(&rig.manager, &RunManager::followingStopped);
        const QString id = rig.start(u"normal deltas=10 invalid_utf8_at=8"_s);
        QVERIFY(stopped.wait(kWait));
        const Run &run = *rig.manager.run(id);
        QCOMPARE(run.error.kind, ErrorKind::Protocol);
        QCOMPARE(run.error.code, u"malformed_event"_s);
        QVERIFY2(run.error.message.contains(u"UTF-8"_s), qPrintable(run.error.message));
        QVERIFY2(run.error.message.contains(u"after sequence 7"_s), qPrintable(run.error.message));
        QCOMPARE(run.primaryText, RunwatchSim::OpenAiSimulator::tokenText(3));
        QVERIFY(!run.isTerminal());
    }

    // A 200 with an HTML body (a captive portal, a misconfigured proxy) where the API should
    // answer: on create nothing was received and the run fails; on resume and on poll the text
    // streamed before is kept.
    void htmlWithStatus200_data()
    {
        QTest::addColumn<QString>("endpoint");
        QTest::addColumn<bool>("stream");
        QTest::addColumn<QString>("prompt");
        QTest::addColumn<int>("keptDeltas");
        QTest::addColumn<QString>("code");
        QTest::addRow("create (stream)")
            << u"create"_s << true << u"normal deltas=5"_s << 0 << u"unexpected_content_type"_s;
        QTest::addRow("create (json)") << u"create"_s << false << u"normal deltas=5"_s << 0 << QString();
        QTest::addRow("resume") << u"stream"_s << true << u"normal deltas=10 drop_after=7"_s << 2
                                << u"unexpected_content_type"_s;
        QTest::addRow("poll") << u"get"_s << false << u"normal deltas=5"_s << 0 << QString();
    }
    void htmlWithStatus200()
    {
        QFETCH(QString, endpoint);
        QFETCH(bool, stream);
        QFETCH(QString, prompt);
        QFETCH(int, keptDeltas);
        QFETCH(QString, code);
        SimRig rig;
        RunwatchSim::OpenAiHttpFault fault;
        fault.endpoints = *RunwatchSim::openAiEndpointsFromList(endpoint);
        fault.count = -1;
        fault.status = 200;
        fault.body = RunwatchSim::OpenAiFaultBody::Html;
        rig.sim.addHttpFault(fault);
        QSignalSpy stopped(&rig.manager, &RunManager::followingStopped);
        QSignalSpy actions(&rig.manager, &RunManager::actionFinished);
        const QString id = rig.start(prompt, stream);
        QTRY_VERIFY_WITH_TIMEOUT(stopped.count() + actions.count() > 0, kWait);
        const Run &run = *rig.manager.run(id);
        QCOMPARE(run.error.kind, ErrorKind::Protocol);
        if (!code.isEmpty())
            QCOMPARE(run.error.code, code);
        QVERIFY2(!run.error.message.isEmpty(), qPrintable(run.error.toString()));
        QCOMPARE(run.error.httpStatus, 200);
        if (endpoint == u"create"_s) {
            QCOMPARE(run.status, RunStatus::Failed);
        } else {
            QVERIFY(!run.remoteId.isEmpty());
        }
        if (keptDeltas > 0)
            QCOMPARE(run.primaryText, RunwatchSim::OpenAiSimulator::tokenText(keptDeltas));
        QVERIFY(!rig.manager.isFollowing(id));
    }

    // A terminal event with a status nobody knows would otherwise be followed for ever: it ends
    // with a Protocol error naming the status, the raw label and the text are kept, and the
    // client does not come back for more.
    void unknownTerminalStatus()
    {
        ScriptRig rig;
        rig.sim.enqueue(
            "/v1/responses",
            ScriptedReply::stream(
                200, kSse,
                {{0, opening("Hello ")},
                 {5, sseEvent("response.output_text.delta", 3, "\"item_id\":\"msg_1\",\"delta\":\"world\"")},
                 {5, sseEvent("response.completed", 4, response("pondering", "Hello world"))}}));
        QSignalSpy stopped(&rig.manager, &RunManager::followingStopped);
        const QString id = rig.start(u"x"_s);
        QVERIFY(stopped.wait(kWait));
        const Run &run = *rig.manager.run(id);
        QCOMPARE(run.error.kind, ErrorKind::Protocol);
        QCOMPARE(run.error.code, u"unknown_status"_s);
        QVERIFY2(run.error.message.contains(u"\"pondering\""_s), qPrintable(run.error.message));
        QCOMPARE(run.rawStatus, u"pondering"_s);
        QCOMPARE(run.status, RunStatus::Unknown);
        QCOMPARE(run.primaryText, u"Hello world"_s);
        QVERIFY(!rig.manager.isFollowing(id));
        // Nothing is pending that could ask again: every request so far was the create.
        QCOMPARE(rig.sim.requestCount(), 1);
    }

    // An unknown status on the way (not terminal) is only shown raw: the run goes on.
    void unknownIntermediateStatus()
    {
        ScriptRig rig;
        rig.sim.enqueue(
            "/v1/responses",
            ScriptedReply::stream(200, kSse,
                                  {{0, opening("Hello ")},
                                   {5, sseEvent("response.in_progress", 3, response("thinking_hard"))},
                                   {5, sseEvent("response.completed", 4, response("completed", "Hello "))}}));
        const QString id = rig.start(u"x"_s);
        QTRY_VERIFY_WITH_TIMEOUT(rig.manager.run(id)->isTerminal(), kWait);
        const Run &run = *rig.manager.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.primaryText, u"Hello "_s);
        QVERIFY(!run.error.isError());
        bool sawUnknown = false;
        for (const SecondaryItem &item : run.secondary)
            sawUnknown = sawUnknown || item.text.contains(statusLabel(RunStatus::Unknown));
        QVERIFY(sawUnknown); // shown as a status change, not an error
    }

    // The stream drops; the resume is redirected to another host (another port): refused
    // without connecting there, a clear Protocol error, text kept.
    void redirectToAnotherHostOnResume()
    {
        ScriptRig rig;
        ScriptedServer elsewhere;
        QVERIFY(elsewhere.isListening());
        rig.sim.enqueue("/v1/responses", ScriptedReply::stream(200, kSse, {{0, opening("kept ")}}));
        rig.sim.enqueue(
            "/v1/responses/resp_h1",
            ScriptedReply::redirect(307, elsewhere.url(u"/v1/responses/resp_h1?stream=true"_s).toEncoded()));
        QSignalSpy stopped(&rig.manager, &RunManager::followingStopped);
        const QString id = rig.start(u"x"_s);
        QVERIFY(stopped.wait(kWait));
        const Run &run = *rig.manager.run(id);
        QCOMPARE(run.error.kind, ErrorKind::Protocol);
        QCOMPARE(run.error.code, u"cross_origin_redirect"_s);
        QVERIFY2(run.error.message.contains(QString::number(elsewhere.port())),
                 qPrintable(run.error.message));
        QCOMPARE(run.primaryText, u"kept "_s);
        QCOMPARE(elsewhere.requestCount(), 0);
    }

    // A server that sends one byte per second never completes an event: the stall timer (not
    // the transfer timeout, which bytes keep resetting) ends the stream, the engine reconnects,
    // and when the server keeps dripping it gives up within bounds. Text before the stall stays.
    void dripOneBytePerSecond()
    {
        FollowPolicy policy = RunwatchTest::quickFollowPolicy();
        // Gives up at the second stall (0.8 s after the first, no progress in between).
        policy.giveUpAfter = std::chrono::milliseconds(500);
        ScriptRig rig({{u"stall_timeout_ms"_s, 800}}, policy);
        QList<ScriptedReply::Chunk> drip;
        const QByteArray next
            = sseEvent("response.output_text.delta", 3, "\"item_id\":\"msg_1\",\"delta\":\"never\"");
        for (int i = 0; i < 20; ++i)
            drip.append({1000, next.mid(i, 1)});
        QList<ScriptedReply::Chunk> create{{0, opening("before stall ")}};
        create.append(drip);
        rig.sim.enqueue("/v1/responses", ScriptedReply::stream(200, kSse, create));
        rig.sim.enqueue("/v1/responses/resp_h1", ScriptedReply::stream(200, kSse, drip));
        QSignalSpy stopped(&rig.manager, &RunManager::followingStopped);
        QSignalSpy changed(&rig.manager, &RunManager::runChanged);
        QElapsedTimer clock;
        clock.start();
        const QString id = rig.start(u"x"_s);
        QVERIFY(stopped.wait(kWait));
        // Two stalls of 0.8 s and a short backoff, not the 20 s the drip would take.
        QVERIFY2(clock.elapsed() < 10000, qPrintable(QString::number(clock.elapsed())));
        const Run &run = *rig.manager.run(id);
        QVERIFY(run.error.isError());
        QVERIFY2(!run.error.message.isEmpty(), qPrintable(run.error.toString()));
        QCOMPARE(run.primaryText, u"before stall "_s);
        QCOMPARE(rig.sim.requestCount("/v1/responses/resp_h1"), 1);
        QVERIFY(!rig.manager.isFollowing(id));
    }

    // The same at the connector: the stream itself ends with Timeout "stalled", retryable.
    void stallEndsStream()
    {
        StallRig rig;
        QElapsedTimer clock;
        clock.start();
        RunStream *stream = rig.start(u"normal deltas=5 drip_ms=1000"_s, this);
        QSignalSpy finished(stream, &RunStream::finished);
        QVERIFY(finished.wait(kWait));
        const auto end = finished.first().first().value<StreamEnd>();
        QCOMPARE(end.reason, StreamEnd::Reason::Error);
        QCOMPARE(end.error.kind, ErrorKind::Timeout);
        QCOMPARE(end.error.code, u"stalled"_s);
        QVERIFY(end.error.retryable);
        QVERIFY2(end.error.message.contains(u"0.7 s"_s), qPrintable(end.error.message));
        QVERIFY(clock.elapsed() < 5000);
        stream->deleteLater();
    }

    // The streams of a thread share one stall watch (StallWatch): each keeps its own deadline.
    // One quiet for longer than the timeout stalls; one beside it whose deltas come more often
    // than that streams to its end, through several of the watch's looks.
    void stallWatchKeepsEachStreamsDeadline()
    {
        StallRig rig;
        RunStream *stalls = rig.start(u"normal deltas=5 drip_ms=1500"_s, this);
        RunStream *streams = rig.start(u"normal deltas=8 interval_ms=250"_s, this);
        QSignalSpy stalled(stalls, &RunStream::finished);
        QSignalSpy ended(streams, &RunStream::finished);
        QVERIFY(stalled.wait(kWait));
        QCOMPARE(stalled.first().first().value<StreamEnd>().error.code, u"stalled"_s);
        QVERIFY(ended.count() > 0 || ended.wait(kWait));
        const auto end = ended.first().first().value<StreamEnd>();
        QVERIFY2(end.reason == StreamEnd::Reason::Terminal, qPrintable(end.error.toString()));
        stalls->deleteLater();
        streams->deleteLater();
    }
};

QTEST_GUILESS_MAIN(TestHostile)
#include "tst_hostile.moc"
