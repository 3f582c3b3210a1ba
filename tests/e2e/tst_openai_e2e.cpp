// SPDX-License-Identifier: GPL-3.0-or-later
// The OpenAI connector and the engine against the simulator over loopback: streaming, drops at
// every event boundary, resume refusal, rate limits, cancel, delete, malformed events.
#include "enginerig.h"
#include "openai/openaisim.h"

#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;
using RunwatchTest::waitTerminal;

namespace {

constexpr int kWait = RunwatchTest::kEngineWait;

struct Rig : RunwatchTest::ServerRig<RunwatchSim::OpenAiSimulator>
{
    explicit Rig(int intervalMs = 1)
    {
        sim.setIntervalMs(intervalMs);
        QVERIFY(sim.listen());
        model = u"runwatch-sim-1"_s;
        QVERIFY(addConnection(RunwatchTest::plainConnection(u"sim"_s, u"openai"_s, sim.baseUrl())));
    }
};

// The usage the simulator sent for a response (its stored Response object), as Runwatch counts it.
TokenUsage simUsage(const RunwatchSim::OpenAiSimulator &sim, const QString &responseId)
{
    const QJsonObject u = sim.snapshot(responseId).value(u"usage"_s).toObject();
    return {u.value(u"input_tokens"_s).toInteger(-1), u.value(u"output_tokens"_s).toInteger(-1),
            u.value(u"output_tokens_details"_s).toObject().value(u"reasoning_tokens"_s).toInteger(-1)};
}

} // namespace

class TestOpenAiEndToEnd final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // A streamed run arrives complete, in order, with the server's id and no reconciliation.
    void fullStreamedRun()
    {
        Rig rig;
        QSignalSpy added(&rig.manager, &RunManager::runAdded);
        const QString id = rig.start(u"normal deltas=50"_s);
        QCOMPARE(added.count(), 1);
        QVERIFY(waitTerminal(rig.manager, id));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.primaryText, RunwatchSim::OpenAiSimulator::tokenText(50));
        QCOMPARE(run.remoteId, rig.sim.lastResponseId());
        QCOMPARE(run.reconciliations, 0);
        QVERIFY(run.token.streamable);
        QCOMPARE(rig.sim.runsCreated(), 1);
        // response.completed's usage, as the simulator sent it.
        QVERIFY(run.usage.inputTokens > 0 && run.usage.outputTokens >= 50);
        QCOMPARE(run.usage, simUsage(rig.sim, run.remoteId));
        // The create request carried background + store + stream.
        const auto create = rig.sim.requests().first();
        QVERIFY(create.body.contains("\"background\":true"));
        QVERIFY(create.body.contains("\"store\":true"));
        QVERIFY(create.body.contains("\"stream\":true"));
    }

    // The connection dropped after every possible number of events of a 50-delta run: the text
    // is byte-identical and nothing is duplicated (resume with starting_after).
    void dropAtEveryEventBoundary_data()
    {
        QTest::addColumn<int>("dropAfter");
        QTest::addColumn<QString>("mode");
        // 50 deltas + 8 lifecycle/structure events = 58 events in the run.
        for (int k = 1; k <= 58; ++k)
            QTest::addRow("close after %d", k) << k << u"close"_s;
        for (int k : {1, 2, 5, 17, 33, 57})
            QTest::addRow("mid-event after %d", k) << k << u"mid"_s;
        for (int k : {3, 29})
            QTest::addRow("reset after %d", k) << k << u"reset"_s;
    }
    void dropAtEveryEventBoundary()
    {
        QFETCH(int, dropAfter);
        QFETCH(QString, mode);
        Rig rig;
        const QString id
            = rig.start(u"normal deltas=50 drop_after=%1 drop_mode=%2"_s.arg(dropAfter).arg(mode));
        QVERIFY(waitTerminal(rig.manager, id, 60000));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.primaryText, RunwatchSim::OpenAiSimulator::tokenText(50));
        QCOMPARE(run.reconciliations, 0);
        QVERIFY(rig.sim.streamConnectionsOpened() >= 2);
        QVERIFY(!rig.sim.startingAfterValues().isEmpty());
        QVERIFY(!run.error.isError());
    }

    // When the server refuses to re-stream, the engine polls the JSON object to the end.
    void resumeRefusedFallsBackToPolling()
    {
        Rig rig;
        rig.sim.setResumeMaxAgeMs(0);
        const QString id = rig.start(u"normal deltas=20 interval_ms=5 drop_after=4"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.primaryText, RunwatchSim::OpenAiSimulator::tokenText(20));
        QVERIFY(rig.sim.requestCount(RunwatchSim::OpenAiEndpoint::Retrieve) >= 1);
    }

    // A non-streaming start is followed by polling GET /responses/{id}.
    void nonStreamingStartPolls()
    {
        Rig rig;
        const QString id = rig.start(u"normal deltas=10 interval_ms=5"_s, false);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QCOMPARE(rig.run(id).primaryText, RunwatchSim::OpenAiSimulator::tokenText(10));
        QVERIFY(!rig.run(id).token.streamable);
        QVERIFY(rig.sim.requestCount(RunwatchSim::OpenAiEndpoint::Retrieve) >= 1);
        // The polled Response object's usage.
        QVERIFY(rig.run(id).usage.outputTokens >= 10);
        QCOMPARE(rig.run(id).usage, simUsage(rig.sim, rig.run(id).remoteId));
        QCOMPARE(rig.sim.requestCount(RunwatchSim::OpenAiEndpoint::Stream), 0);
    }

    // 429 and 503 answers make the client wait at least as long as the server asked.
    void rateLimitWaitsAsAsked_data()
    {
        QTest::addColumn<int>("status");
        QTest::addColumn<int>("retryAfterS");
        QTest::addColumn<int>("retryAfterMs");
        QTest::addColumn<int>("minGapMs");
        QTest::addRow("429 Retry-After 1") << 429 << 1 << -1 << 1000;
        QTest::addRow("503 retry-after-ms 400") << 503 << -1 << 400 << 400;
    }
    void rateLimitWaitsAsAsked()
    {
        QFETCH(int, status);
        QFETCH(int, retryAfterS);
        QFETCH(int, retryAfterMs);
        QFETCH(int, minGapMs);
        Rig rig;
        RunwatchSim::OpenAiHttpFault fault;
        fault.endpoints = {RunwatchSim::OpenAiEndpoint::Create};
        fault.count = 1;
        fault.status = status;
        fault.retryAfterSeconds = retryAfterS;
        fault.retryAfterMs = retryAfterMs;
        rig.sim.addHttpFault(fault);
        QElapsedTimer clock;
        QList<qint64> arrivals;
        clock.start();
        connect(&rig.sim, &RunwatchSim::OpenAiSimulator::requestReceived, this,
                [&](const RunwatchSim::OpenAiRequestRecord &r) {
                    if (r.endpoint == RunwatchSim::OpenAiEndpoint::Create)
                        arrivals << clock.elapsed();
                });
        const QString id = rig.start(u"normal deltas=5"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QCOMPARE(arrivals.size(), 2);
        QVERIFY2(arrivals[1] - arrivals[0] >= minGapMs,
                 qPrintable(u"gap %1 ms"_s.arg(arrivals[1] - arrivals[0])));
        QCOMPARE(rig.sim.runsCreated(), 1);
    }

    // Cancelling a running run ends it cancelled; the text received so far is kept.
    void cancelRunning()
    {
        Rig rig(5);
        const QString id = rig.start(u"long"_s);
        QTRY_VERIFY_WITH_TIMEOUT(rig.run(id).primaryText.size() > 20, kWait);
        QSignalSpy done(&rig.manager, &RunManager::actionFinished);
        rig.manager.cancelRun(id);
        QCOMPARE(rig.run(id).status, RunStatus::Cancelling);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Cancelled);
        QVERIFY(!rig.run(id).primaryText.isEmpty());
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, kWait);
        QVERIFY(done.first().at(2).value<ActionResult>().ok());
    }

    // Cancelling a completed run is "already completed" and changes nothing.
    void cancelCompleted()
    {
        Rig rig;
        const QString id = rig.start(u"normal deltas=3"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        // Bypass the engine's own terminal check: ask the server, as a second client would.
        auto *backend = rig.manager.backend(u"sim"_s);
        const ActionResult r = QCoro::waitFor(backend->cancel(rig.run(id).token));
        QVERIFY(r.ok());
        QCOMPARE(r.note, u"already completed"_s);
        Run copy = rig.run(id);
        for (const RunEvent &e : r.events)
            applyEvent(copy, e);
        QCOMPARE(copy.status, RunStatus::Completed);
        QCOMPARE(copy.primaryText, RunwatchSim::OpenAiSimulator::tokenText(3));
    }

    // Delete removes the run on the server and locally.
    void deleteRun()
    {
        Rig rig;
        const QString id = rig.start(u"normal deltas=3"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        const QString remote = rig.run(id).remoteId;
        QSignalSpy removed(&rig.manager, &RunManager::runRemoved);
        rig.manager.deleteRun(id, true);
        QTRY_COMPARE_WITH_TIMEOUT(removed.count(), 1, kWait);
        QVERIFY(!rig.manager.run(id));
        QVERIFY(rig.sim.wasDeleted(remote));
    }

    // A malformed event stops following with a protocol error and keeps the earlier text.
    void malformedEventKeepsText()
    {
        Rig rig;
        QSignalSpy stopped(&rig.manager, &RunManager::followingStopped);
        // Events 0-4 are lifecycle/structure; deltas start at sequence 5.
        const QString id = rig.start(u"normal deltas=10 malformed_at=9"_s);
        QTRY_COMPARE_WITH_TIMEOUT(stopped.count(), 1, kWait);
        const Run &run = rig.run(id);
        QCOMPARE(run.primaryText, RunwatchSim::OpenAiSimulator::tokenText(4));
        QCOMPARE(run.error.kind, ErrorKind::Protocol);
        QVERIFY2(run.error.message.contains(u"sequence 8"_s), qPrintable(run.error.message));
        QVERIFY(!run.isTerminal());
        QVERIFY(!rig.manager.isFollowing(id));
    }

    // The run fails on the server: status failed with the server's error, text kept.
    void failedRun()
    {
        Rig rig;
        const QString id = rig.start(u"fail deltas=10 fail_after=4"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Failed);
        QCOMPARE(run.error.code, u"server_error"_s);
        QCOMPARE(run.primaryText, RunwatchSim::OpenAiSimulator::tokenText(4));
    }

    void incompleteRun()
    {
        Rig rig;
        const QString id = rig.start(u"incomplete deltas=5"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Incomplete);
        QCOMPARE(rig.run(id).error.code, u"max_output_tokens"_s);
    }

    // Reasoning and tool calls become secondary items; the answer stays clean.
    void reasoningIsSecondary()
    {
        Rig rig;
        const QString id = rig.start(u"reasoning deltas=5"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        const Run &run = rig.run(id);
        QCOMPARE(run.primaryText, RunwatchSim::OpenAiSimulator::tokenText(5));
        bool reasoning = false, tool = false;
        for (const SecondaryItem &item : run.secondary) {
            reasoning = reasoning || (item.kind == SecondaryKind::Reasoning && !item.text.isEmpty());
            tool = tool || (item.kind == SecondaryKind::ToolCall && item.title == u"get_weather");
        }
        QVERIFY(reasoning);
        QVERIFY(tool);
    }

    // One multi-megabyte event (a real OpenAI event can exceed 8 MiB) arrives intact.
    void hugeEvent()
    {
        Rig rig;
        const QString id = rig.start(u"huge deltas=3 huge_bytes=6000000"_s);
        QVERIFY(waitTerminal(rig.manager, id, 60000));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QVERIFY(rig.run(id).primaryText.size() > 6000000);
        QCOMPARE(rig.run(id).reconciliations, 0);
    }

    // A nested `error` event ends the stream; the engine polls and shows the final state.
    void streamErrorEvent()
    {
        Rig rig;
        const QString id = rig.start(u"error deltas=6 fail_after=2"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Failed);
        QCOMPARE(rig.run(id).error.code, u"rate_limit_exceeded"_s);
        QCOMPARE(rig.run(id).primaryText, RunwatchSim::OpenAiSimulator::tokenText(2));
    }

    // Follow up (issue 16): a completed run's next turn is a background response of its own whose
    // previous_response_id is the parent's response, linked to the parent by parentId.
    void followUpCompletedRun()
    {
        Rig rig;
        const QString parent = rig.start(u"normal deltas=8"_s);
        QVERIFY(waitTerminal(rig.manager, parent));
        QCOMPARE(rig.run(parent).status, RunStatus::Completed);
        QVERIFY(followUpAllowed(rig.run(parent)));
        const QString parentResponse = rig.run(parent).remoteId;

        QString why;
        const QString child = rig.manager.followUp(parent, u"normal deltas=5 now shorten it"_s, &why);
        QVERIFY2(!child.isEmpty(), qPrintable(why));
        QVERIFY(waitTerminal(rig.manager, child));
        const Run &run = rig.run(child);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.parentId, parent);
        QCOMPARE(run.primaryText, RunwatchSim::OpenAiSimulator::tokenText(5));
        QVERIFY(run.remoteId != parentResponse);
        QCOMPARE(rig.run(parent).primaryText, RunwatchSim::OpenAiSimulator::tokenText(8));
        // On the wire: a background, stored, streamed create naming the parent's response.
        const auto requests = rig.sim.requests();
        const auto create = std::find_if(requests.rbegin(), requests.rend(), [](const auto &r) {
            return r.method == "POST" && r.path.endsWith(u"/responses"_s);
        });
        QVERIFY(create != requests.rend());
        const QJsonObject body = QJsonDocument::fromJson(create->body).object();
        QCOMPARE(body.value(u"previous_response_id"_s).toString(), parentResponse);
        QCOMPARE(body.value(u"background"_s).toBool(), true);
        QCOMPARE(body.value(u"store"_s).toBool(), true);
        QCOMPARE(body.value(u"stream"_s).toBool(), true);
        QCOMPARE(body.value(u"input"_s).toString(), u"normal deltas=5 now shorten it"_s);
    }

    // Only a completed run can be followed up: anything else is refused before a request is sent.
    void followUpRefusedUnlessCompleted()
    {
        Rig rig;
        const QString failed = rig.start(u"error deltas=4 fail_after=2"_s);
        QVERIFY(waitTerminal(rig.manager, failed));
        QCOMPARE(rig.run(failed).status, RunStatus::Failed);
        QVERIFY(!followUpAllowed(rig.run(failed)));
        const int before = int(rig.sim.requests().size());
        const int runs = int(rig.manager.runIds().size());
        QString why;
        QVERIFY(rig.manager.followUp(failed, u"again"_s, &why).isEmpty());
        QVERIFY(why.contains(u"completed"_s));
        QVERIFY(rig.manager.followUp(u"nope"_s, u"again"_s, &why).isEmpty());
        QCOMPARE(int(rig.sim.requests().size()), before);
        QCOMPARE(int(rig.manager.runIds().size()), runs);
    }
};

QTEST_GUILESS_MAIN(TestOpenAiEndToEnd)
#include "tst_openai_e2e.moc"
