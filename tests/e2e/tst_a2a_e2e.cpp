// SPDX-License-Identifier: GPL-3.0-or-later
// The A2A connector and the engine against the A2A simulator over loopback: discovery, streamed
// tasks, drops at every event boundary (SubscribeToTask + snapshot), input required, cancel,
// ListTasks attach, 0.3 agents, JSON-RPC errors, agent card problems, auth.
#include "a2a/a2asim.h"
#include "backends/a2a/a2abackend.h"
#include "enginerig.h"
#include "simcommandline.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;
using RunwatchSim::A2aSimConfig;
using RunwatchSim::A2aSimulator;
using RunwatchTest::waitFor;
using RunwatchTest::waitStatus;
using RunwatchTest::waitTerminal;

namespace {

constexpr int kWait = RunwatchTest::kEngineWait;

struct Rig : RunwatchTest::ServerRig<A2aSimulator>
{
    explicit Rig(const A2aSimConfig &config = {}, const QJsonObject &options = {}, const QString &key = {})
        : ServerRig(config)
    {
        sim.setIntervalMs(config.intervalMs == A2aSimConfig().intervalMs ? 2 : config.intervalMs);
        QVERIFY(sim.listen());
        Connection c = RunwatchTest::plainConnection(u"agent"_s, u"a2a"_s, sim.baseUrl(), options);
        c.apiKey = key;
        c.auth = key.isEmpty() ? AuthStyle::None : AuthStyle::Bearer;
        QVERIFY(addConnection(c));
    }

    A2aBackend *backend() { return qobject_cast<A2aBackend *>(manager.backend(u"agent"_s)); }

    QList<QJsonObject> rpcBodies(const QString &method) const
    {
        QList<QJsonObject> out;
        for (const auto &r : sim.requests()) {
            if (r.rpcMethod == method)
                out << QJsonDocument::fromJson(r.body).object();
        }
        return out;
    }
};

// No secondary item appears twice (status messages are keyed by messageId).
bool secondaryUnique(const Run &run)
{
    QSet<QString> ids;
    for (const SecondaryItem &i : run.secondary) {
        if (i.id.isEmpty())
            continue;
        if (ids.contains(i.id))
            return false;
        ids.insert(i.id);
    }
    return true;
}

// A task started by someone else: a raw JSON-RPC SendMessage, no Runwatch code involved.
QString startElsewhere(const QUrl &base, const QString &text)
{
    QNetworkAccessManager nam;
    QNetworkRequest request(QUrl(base.toString() + u"/a2a"_s));
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    request.setRawHeader("A2A-Version", "1.0");
    const QByteArray body
        = QJsonDocument(
              QJsonObject{
                  {u"jsonrpc"_s, u"2.0"_s},
                  {u"id"_s, 1},
                  {u"method"_s, u"SendMessage"_s},
                  {u"params"_s,
                   QJsonObject{
                       {u"message"_s, QJsonObject{{u"messageId"_s, u"elsewhere-1"_s},
                                                  {u"role"_s, u"ROLE_USER"_s},
                                                  {u"parts"_s, QJsonArray{QJsonObject{{u"text"_s, text}}}}}},
                       {u"configuration"_s, QJsonObject{{u"returnImmediately"_s, true}}}}}})
              .toJson(QJsonDocument::Compact);
    QNetworkReply *reply = nam.post(request, body);
    QSignalSpy done(reply, &QNetworkReply::finished);
    if (!reply->isFinished() && !done.wait(kWait))
        return {};
    const QJsonObject result
        = QJsonDocument::fromJson(reply->readAll()).object().value(u"result"_s).toObject();
    reply->deleteLater();
    return result.value(u"task"_s).toObject().value(u"id"_s).toString();
}

} // namespace

class TestA2aEndToEnd final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Discovery, then SendStreamingMessage: the artifact chunks arrive as the answer, in order.
    void streamedTaskWithChunkedArtifacts()
    {
        Rig rig;
        const QString id = rig.start(u"normal chunks=30"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.rawStatus, u"TASK_STATE_COMPLETED"_s);
        QCOMPARE(run.primaryText, A2aSimulator::chunkText(30));
        QCOMPARE(run.remoteId, rig.sim.lastTaskId());
        QCOMPARE(run.model, rig.sim.config().agentName); // the agent's name shows where a model would
        QCOMPARE(run.reconciliations, 0);
        QVERIFY(run.token.streamable);
        QVERIFY(!run.error.isError());
        QVERIFY(std::any_of(run.secondary.cbegin(), run.secondary.cend(),
                            [](const SecondaryItem &i) { return i.text == u"Working..."_s; }));
        // The agent card was read and the connection knows the agent.
        QVERIFY(rig.backend()->agentCard());
        QCOMPARE(rig.backend()->agentCard()->name, rig.sim.config().agentName);
        QCOMPARE(rig.backend()->agentCard()->skills.size(), 2);
        QVERIFY(rig.backend()->agentCard()->summary().contains(u"Skills: Chunked answers, Weather"_s));
        // Wire: A2A-Version 1.0, application/json, one user message with one text part.
        QCOMPARE(rig.sim.requestCount(u"SendStreamingMessage"_s), 1);
        for (const auto &r : rig.sim.requests()) {
            if (r.rpcMethod.isEmpty())
                continue;
            QCOMPARE(r.header("a2a-version"), QByteArray("1.0"));
            QCOMPARE(r.header("content-type"), QByteArray("application/json"));
        }
        const QJsonObject message = rig.rpcBodies(u"SendStreamingMessage"_s)
                                        .first()
                                        .value(u"params"_s)
                                        .toObject()
                                        .value(u"message"_s)
                                        .toObject();
        QCOMPARE(message.value(u"role"_s).toString(), u"ROLE_USER"_s);
        QCOMPARE(message.value(u"parts"_s).toArray().size(), 1);
        QCOMPARE(message.value(u"parts"_s).toArray().first().toObject().value(u"text"_s).toString(),
                 u"normal chunks=30"_s);
        // A2A has no delete: the capability is absent.
        QVERIFY(!run.capabilities.testFlag(Capability::Delete));
        QVERIFY(run.capabilities.testFlag(Capability::Respond));
    }

    // The stream breaks after every possible number of events of a 20-chunk task (23 events:
    // task, working, 20 chunks, completed). SubscribeToTask's snapshot bridges the gap: the text
    // is identical, nothing is duplicated, no reconciliation is counted.
    void dropAtEveryEventBoundary_data()
    {
        QTest::addColumn<int>("dropAfter");
        QTest::addColumn<QString>("mode");
        for (int k = 1; k <= 23; ++k)
            QTest::addRow("close after %d", k) << k << u"close"_s;
        for (int k : {1, 2, 7, 15, 22})
            QTest::addRow("mid-event after %d", k) << k << u"mid"_s;
        for (int k : {3, 12})
            QTest::addRow("reset after %d", k) << k << u"reset"_s;
    }
    void dropAtEveryEventBoundary()
    {
        QFETCH(int, dropAfter);
        QFETCH(QString, mode);
        Rig rig;
        const QString id = rig.start(
            u"normal chunks=20 interval_ms=5 drop_after=%1 drop_mode=%2"_s.arg(dropAfter).arg(mode));
        QVERIFY(waitTerminal(rig.manager, id, 60000));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.primaryText, A2aSimulator::chunkText(20));
        QCOMPARE(run.reconciliations, 0);
        QVERIFY(!run.error.isError());
        QVERIFY(secondaryUnique(run));
        if (dropAfter < 23)
            QVERIFY(rig.sim.requestCount(u"SubscribeToTask"_s) + rig.sim.requestCount(u"GetTask"_s) >= 1);
        // An early drop leaves the task running long after the reconnect: the resume went
        // through SubscribeToTask and its snapshot, not just a final GetTask.
        if (dropAfter <= 10)
            QVERIFY(rig.sim.requestCount(u"SubscribeToTask"_s) >= 1);
        QCOMPARE(rig.sim.tasksCreated(), 1);
    }

    // Only the first connection drops, many times over a slower task: the resubscribed stream
    // carries on to the end.
    void resubscribeContinuesLive()
    {
        Rig rig;
        const QString id = rig.start(u"normal chunks=40 interval_ms=5 drop_after=6 fault_connections=1"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).primaryText, A2aSimulator::chunkText(40));
        QCOMPARE(rig.run(id).reconciliations, 0);
        QCOMPARE(rig.sim.requestCount(u"SubscribeToTask"_s), 1);
        QCOMPARE(rig.sim.task(rig.sim.lastTaskId())->streamConnections, 2);
    }

    // Input required, answered through the engine (what the GUI's Respond panel calls): the
    // question shows, the answer goes out on the same task and context, following continues.
    void inputRequiredAnswered()
    {
        Rig rig;
        const QString id = rig.start(u"input"_s);
        QVERIFY(waitStatus(rig.manager, id, RunStatus::InputRequired));
        const Run &run = rig.run(id);
        QVERIFY(run.input);
        QCOMPARE(run.input->prompt, u"Which city?"_s);
        QCOMPARE(run.input->reason, InputReason::Question);
        QVERIFY(!rig.manager.isFollowing(id));

        QSignalSpy done(&rig.manager, &RunManager::actionFinished);
        InputAnswer answer;
        answer.text = u"Paris"_s;
        rig.manager.respondToRun(id, answer);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QCOMPARE(rig.run(id).primaryText, u"Weather in Paris: sunny."_s);
        QVERIFY(!rig.run(id).input);
        QVERIFY(secondaryUnique(rig.run(id)));
        QVERIFY(done.count() >= 1);
        QVERIFY(done.first().at(2).value<ActionResult>().ok());
        // The answer: same taskId and contextId, a new message id.
        const auto task = rig.sim.task(rig.sim.lastTaskId());
        const QList<QJsonObject> sends = rig.rpcBodies(u"SendMessage"_s);
        QCOMPARE(sends.size(), 1);
        const QJsonObject message
            = sends.first().value(u"params"_s).toObject().value(u"message"_s).toObject();
        QCOMPARE(message.value(u"taskId"_s).toString(), task->id);
        QCOMPARE(message.value(u"contextId"_s).toString(), task->contextId);
        QCOMPARE(message.value(u"parts"_s).toArray().first().toObject().value(u"text"_s).toString(),
                 u"Paris"_s);
        QCOMPARE(rig.sim.tasksCreated(), 1);
    }

    void authRequiredAnswered()
    {
        Rig rig;
        const QString id = rig.start(u"auth"_s);
        QVERIFY(waitStatus(rig.manager, id, RunStatus::InputRequired));
        QCOMPARE(rig.run(id).input->reason, InputReason::Auth);
        QVERIFY(rig.run(id).input->prompt.contains(u"authorize"_s));
        InputAnswer answer;
        answer.text = u"Lyon"_s;
        rig.manager.respondToRun(id, answer);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).primaryText, u"Weather in Lyon: sunny."_s);
    }

    void answerToFinishedTaskIsRefused()
    {
        Rig rig;
        const QString id = rig.start(u"normal chunks=2"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        InputAnswer answer;
        answer.text = u"late"_s;
        const ActionResult r = QCoro::waitFor(rig.backend()->respond(rig.run(id).token, answer));
        QVERIFY(!r.ok());
        QCOMPARE(r.error.code, u"-32004"_s);
        QVERIFY(r.error.message.contains(u"no longer accepts input"_s));
    }

    void cancelRunning()
    {
        Rig rig;
        const QString id = rig.start(u"long interval_ms=5"_s);
        QVERIFY(waitFor([&] { return rig.run(id).primaryText.size() > 20; }));
        QSignalSpy done(&rig.manager, &RunManager::actionFinished);
        rig.manager.cancelRun(id);
        QCOMPARE(rig.run(id).status, RunStatus::Cancelling);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Cancelled);
        QVERIFY(done.count() >= 1 || done.wait(kWait));
        QVERIFY(done.first().at(2).value<ActionResult>().ok());
        QCOMPARE(rig.sim.requestCount(u"CancelTask"_s), 1);
        QCOMPARE(rig.sim.task(rig.sim.lastTaskId())->state, u"TASK_STATE_CANCELED"_s);
        // What arrived before the cancel is kept and is a prefix of the agent's text.
        QVERIFY(rig.sim.task(rig.sim.lastTaskId())->text.startsWith(rig.run(id).primaryText)
                || rig.run(id).primaryText.startsWith(rig.sim.task(rig.sim.lastTaskId())->text));
    }

    // The agent refuses: TaskNotCancelable, shown as such; the run goes on.
    void cancelRefused()
    {
        Rig rig;
        const QString id = rig.start(u"long interval_ms=5 cancel=refuse"_s);
        QVERIFY(waitFor([&] { return !rig.run(id).primaryText.isEmpty(); }));
        QSignalSpy done(&rig.manager, &RunManager::actionFinished);
        rig.manager.cancelRun(id);
        QVERIFY(done.wait(kWait));
        const ActionResult r = done.first().at(2).value<ActionResult>();
        QVERIFY(!r.ok());
        QCOMPARE(r.error.code, u"-32002"_s);
        QVERIFY2(r.error.message.contains(u"TaskNotCancelable"_s), qPrintable(r.error.message));
        QCOMPARE(rig.run(id).status, RunStatus::InProgress);
        rig.manager.stopFollowing(id);
    }

    // CancelTask on a finished task: the backend confirms with GetTask and says why nothing changed.
    void cancelFinishedTask()
    {
        Rig rig;
        const QString id = rig.start(u"normal chunks=3"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        const ActionResult r = QCoro::waitFor(rig.backend()->cancel(rig.run(id).token));
        QVERIFY(r.ok());
        QCOMPARE(r.note, u"TaskNotCancelable: the task is already completed"_s);
        QCOMPARE(rig.sim.requestCount(u"GetTask"_s), 1);
    }

    // An agent that acknowledges too late: the cancel times out, GetTask says the task runs on.
    void cancelTimesOut()
    {
        Rig rig({}, QJsonObject{{u"cancel_timeout_ms"_s, 300}});
        const QString id = rig.start(u"long interval_ms=5 cancel=slow cancel_delay_ms=2000"_s);
        QVERIFY(waitFor([&] { return !rig.run(id).primaryText.isEmpty(); }));
        QElapsedTimer clock;
        clock.start();
        const ActionResult r = QCoro::waitFor(rig.backend()->cancel(rig.run(id).token));
        QVERIFY(clock.elapsed() < 1900);
        QVERIFY(!r.ok());
        QCOMPARE(r.error.kind, ErrorKind::Timeout);
        QVERIFY2(r.error.message.contains(u"did not confirm"_s), qPrintable(r.error.message));
        QVERIFY(rig.sim.requestCount(u"GetTask"_s) >= 1);
        // The agent's late acknowledgement still arrives: the stream ends cancelled.
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Cancelled);
    }

    // Delete is local only: A2A has none.
    void deleteIsLocalOnly()
    {
        Rig rig;
        const QString id = rig.start(u"normal chunks=2"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        QSignalSpy done(&rig.manager, &RunManager::actionFinished);
        rig.manager.deleteRun(id, true);
        QVERIFY(done.count() >= 1 || done.wait(kWait));
        const ActionResult refused = done.first().at(2).value<ActionResult>();
        QVERIFY(!refused.ok());
        QVERIFY(refused.error.message.contains(u"locally"_s));
        const ActionResult r = QCoro::waitFor(rig.backend()->remove(rig.run(id).token));
        QVERIFY(r.error.message.contains(u"A2A has no delete"_s));
        done.clear();
        rig.manager.deleteRun(id, false);
        QVERIFY(done.count() >= 1 || done.wait(kWait));
        QVERIFY(!rig.manager.run(id));
        QVERIFY(rig.sim.task(rig.sim.lastTaskId())); // the agent still has it
    }

    // ListTasks finds a task started elsewhere; attaching to it follows it to the end with the
    // whole text (the snapshot carries what was produced before we attached).
    void listTasksAttach()
    {
        Rig rig;
        rig.sim.setIntervalMs(5);
        const QString remote = startElsewhere(rig.sim.baseUrl(), u"normal chunks=60"_s);
        QVERIFY(!remote.isEmpty());
        QVERIFY(waitFor([&] { return rig.sim.task(remote)->text.size() > 20; }));
        const ListResult listed = QCoro::waitFor(rig.backend()->list());
        QVERIFY2(!listed.error.isError(), qPrintable(listed.error.message));
        const auto it = std::find_if(listed.runs.cbegin(), listed.runs.cend(),
                                     [&](const RemoteRunInfo &i) { return i.remoteId == remote; });
        QVERIFY(it != listed.runs.cend());
        QCOMPARE(it->status, RunStatus::InProgress);
        QCOMPARE(it->title, u"normal chunks=60"_s);
        QVERIFY(rig.sim.requestCount(u"ListTasks"_s) >= 1);

        QSignalSpy done(&rig.manager, &RunManager::actionFinished);
        const QString id = rig.manager.attachRemoteRun(u"agent"_s, it->remoteId, it->title);
        QVERIFY(!id.isEmpty());
        QCOMPARE(rig.run(id).remoteId, remote);
        QCOMPARE(rig.run(id).title, u"normal chunks=60"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        const Run &attached = rig.run(id);
        QCOMPARE(attached.status, RunStatus::Completed);
        QCOMPARE(attached.primaryText, A2aSimulator::chunkText(60));
        QCOMPARE(attached.reconciliations, 0);
        QCOMPARE(attached.model, rig.sim.config().agentName);
        QVERIFY(attached.token.streamable);
        // Attached while running: GetTask first, then followed live through SubscribeToTask.
        QVERIFY(rig.sim.requestCount(u"GetTask"_s) >= 1);
        QVERIFY(rig.sim.requestCount(u"SubscribeToTask"_s) >= 1);
        QVERIFY(done.count() >= 1);
        QCOMPARE(done.first().at(0).toString(), id);
        QCOMPARE(done.first().at(1).value<RunManager::Action>(), RunManager::Action::Refresh);
        QVERIFY(done.first().at(2).value<ActionResult>().ok());
        QCOMPARE(rig.sim.tasksCreated(), 1);
        // Attaching again gives the same local run, not a second one.
        QCOMPARE(rig.manager.attachRemoteRun(u"agent"_s, remote), id);
        QCOMPARE(rig.manager.runIds().size(), 1);
    }

    // Attaching to an id the agent does not know: TaskNotFound reported, nothing left behind.
    void attachUnknownTask()
    {
        Rig rig;
        QSignalSpy done(&rig.manager, &RunManager::actionFinished);
        QSignalSpy removed(&rig.manager, &RunManager::runRemoved);
        const QString id = rig.manager.attachRemoteRun(u"agent"_s, u"no-such-task"_s);
        QVERIFY(!id.isEmpty());
        QVERIFY(done.count() >= 1 || done.wait(kWait));
        const ActionResult r = done.first().at(2).value<ActionResult>();
        QVERIFY(!r.ok());
        QCOMPARE(r.error.kind, ErrorKind::NotFound);
        QCOMPARE(r.error.code, u"-32001"_s);
        QCOMPARE(removed.count(), 1);
        QVERIFY(!rig.manager.run(id));
        QVERIFY(rig.manager.attachRemoteRun(u"nope"_s, u"x"_s).isEmpty()); // unknown connection
    }

    // describe(): the card as connection info; a broken card is its error.
    void describeFromCard()
    {
        Rig rig;
        const ConnectionInfo info = QCoro::waitFor(rig.backend()->describe());
        QVERIFY2(info.ok(), qPrintable(info.error.message));
        QCOMPARE(info.name, rig.sim.config().agentName);
        QCOMPARE(info.protocol, u"A2A 1.0 (JSONRPC)"_s);
        QCOMPARE(info.skills.size(), 2);
        QVERIFY(info.capabilities.contains(u"streaming"_s));
        QVERIFY(info.warnings.isEmpty());

        A2aSimConfig broken;
        broken.cardMode = A2aSimConfig::CardMode::Malformed;
        Rig bad(broken);
        const ConnectionInfo none = QCoro::waitFor(bad.backend()->describe());
        QVERIFY(!none.ok());
        QCOMPARE(none.error.kind, ErrorKind::Protocol);
        QVERIFY2(none.error.message.contains(u"is not valid JSON"_s), qPrintable(none.error.message));
    }

    // A 0.3 agent: 0.3 card, message/stream, kind discriminators, tasks/resubscribe after drops,
    // tasks/cancel, no ListTasks.
    void version03Agent()
    {
        A2aSimConfig config;
        config.protocol = A2aSimConfig::Protocol::V03;
        Rig rig(config);
        const QString id = rig.start(u"normal chunks=12 drop_after=4"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QCOMPARE(rig.run(id).rawStatus, u"completed"_s);
        QCOMPARE(rig.run(id).primaryText, A2aSimulator::chunkText(12));
        QCOMPARE(rig.run(id).reconciliations, 0);
        QCOMPARE(rig.sim.requestCount(u"message/stream"_s), 1);
        QVERIFY(rig.sim.requestCount(u"tasks/resubscribe"_s) + rig.sim.requestCount(u"tasks/get"_s) >= 1);
        QCOMPARE(rig.sim.requestCount(u"SendStreamingMessage"_s), 0);
        const QJsonObject message = rig.rpcBodies(u"message/stream"_s)
                                        .first()
                                        .value(u"params"_s)
                                        .toObject()
                                        .value(u"message"_s)
                                        .toObject();
        QCOMPARE(message.value(u"kind"_s).toString(), u"message"_s);
        QCOMPARE(message.value(u"role"_s).toString(), u"user"_s);
        QVERIFY(!rig.backend()->capabilities().testFlag(Capability::List));
        const ListResult listed = QCoro::waitFor(rig.backend()->list());
        QVERIFY(listed.error.isError());
        QVERIFY(listed.error.message.contains(u"0.3"_s));

        // Input required and cancel in 0.3.
        const QString ask = rig.start(u"input"_s);
        QVERIFY(waitStatus(rig.manager, ask, RunStatus::InputRequired));
        QCOMPARE(rig.run(ask).input->prompt, u"Which city?"_s);
        InputAnswer answer;
        answer.text = u"Oslo"_s;
        rig.manager.respondToRun(ask, answer);
        QVERIFY(waitTerminal(rig.manager, ask));
        QCOMPARE(rig.run(ask).primaryText, u"Weather in Oslo: sunny."_s);
        QCOMPARE(rig.sim.requestCount(u"message/send"_s), 1);

        const QString longRun = rig.start(u"long interval_ms=5"_s);
        QVERIFY(waitFor([&] { return !rig.run(longRun).primaryText.isEmpty(); }));
        rig.manager.cancelRun(longRun);
        QVERIFY(waitTerminal(rig.manager, longRun));
        QCOMPARE(rig.run(longRun).status, RunStatus::Cancelled);
        QCOMPARE(rig.sim.requestCount(u"tasks/cancel"_s), 1);
    }

    // Resubscribing to a finished 0.3 task: an SSE error event; tasks/get gives the end.
    void version03ResubscribeTerminal()
    {
        A2aSimConfig config;
        config.protocol = A2aSimConfig::Protocol::V03;
        Rig rig(config);
        const QString id = rig.start(u"normal chunks=3"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        ContinuationToken token = rig.run(id).token;
        auto *stream = rig.backend()->follow(token, this);
        QList<RunEvent> events;
        connect(stream, &RunStream::eventsReceived, this, [&](const QList<RunEvent> &e) { events += e; });
        QSignalSpy finished(stream, &RunStream::finished);
        QVERIFY(finished.wait(kWait));
        QCOMPARE(finished.first().first().value<StreamEnd>().reason, StreamEnd::Reason::Terminal);
        QCOMPARE(rig.sim.requestCount(u"tasks/get"_s), 1);
        Run copy = rig.run(id);
        for (const RunEvent &e : events)
            QVERIFY(!applyEvent(copy, e).testFlag(RunChange::Dropped));
        QCOMPARE(copy.primaryText, A2aSimulator::chunkText(3));
        QCOMPARE(copy.status, RunStatus::Completed);
        stream->deleteLater();
    }

    // 1.0 SubscribeToTask on a finished task: plain JSON -32004, then GetTask.
    void subscribeTerminalUsesGetTask()
    {
        Rig rig;
        const QString id = rig.start(u"normal chunks=3"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        auto *stream = rig.backend()->follow(rig.run(id).token, this);
        QSignalSpy finished(stream, &RunStream::finished);
        QVERIFY(finished.wait(kWait));
        QCOMPARE(finished.first().first().value<StreamEnd>().reason, StreamEnd::Reason::Terminal);
        QCOMPARE(rig.sim.requestCount(u"SubscribeToTask"_s), 1);
        QCOMPARE(rig.sim.requestCount(u"GetTask"_s), 1);
        stream->deleteLater();
    }

    // JSON-RPC errors (HTTP 200) become run errors with code and message.
    void jsonRpcErrorOnStart()
    {
        Rig rig;
        rig.sim.addRpcFault(
            {u"SendStreamingMessage"_s, -32602, u"Invalid params: message too long"_s, 1, 200});
        const QString id = rig.start(u"normal"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Failed);
        QCOMPARE(run.error.code, u"-32602"_s);
        QCOMPARE(run.error.kind, ErrorKind::Client);
        QVERIFY(run.error.message.contains(u"message too long"_s));
        QCOMPARE(rig.sim.tasksCreated(), 0);
    }

    // -32603 with HTTP 500 (the JS SDK's internal errors).
    void jsonRpcInternalErrorHttp500()
    {
        Rig rig;
        rig.sim.addRpcFault({u"SendStreamingMessage"_s, -32603, u"Internal error"_s, 1, 500});
        const QString id = rig.start(u"normal"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).error.code, u"-32603"_s);
        QCOMPARE(rig.run(id).error.kind, ErrorKind::Server);
        QCOMPARE(rig.sim.requestCount(u"SendStreamingMessage"_s), 1); // a create is never repeated
    }

    // `event: error` mid-stream: the run error carries the JSON-RPC code; GetTask then gives the
    // failed state; the text so far stays.
    void errorEventMidStream()
    {
        Rig rig;
        const QString id = rig.start(u"error chunks=10 fail_after=4"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Failed);
        QCOMPARE(run.primaryText, A2aSimulator::chunkText(4));
        QVERIFY(run.error.isError());
        QVERIFY(rig.sim.requestCount(u"GetTask"_s) >= 1);
    }

    void failedAndRejected()
    {
        Rig rig;
        const QString failed = rig.start(u"fail chunks=6"_s);
        const QString rejected = rig.start(u"reject"_s);
        QVERIFY(waitTerminal(rig.manager, failed));
        QVERIFY(waitTerminal(rig.manager, rejected));
        QCOMPARE(rig.run(failed).status, RunStatus::Failed);
        QCOMPARE(rig.run(failed).primaryText, A2aSimulator::chunkText(3));
        QCOMPARE(rig.run(failed).error.kind, ErrorKind::Run);
        QCOMPARE(rig.run(failed).error.message, u"The simulated agent failed."_s);
        QCOMPARE(rig.run(rejected).status, RunStatus::Rejected);
        QCOMPARE(rig.run(rejected).error.message, u"The simulated agent rejects this task."_s);
    }

    void messageReplyCompletesAtOnce()
    {
        Rig rig;
        const QString id = rig.start(u"message please"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QCOMPARE(rig.run(id).primaryText, u"Hello from the simulated agent."_s);
        QVERIFY(!rig.run(id).remoteId.isEmpty());
        const ActionResult r = QCoro::waitFor(rig.backend()->get(rig.run(id).token));
        QVERIFY(r.ok());
        QVERIFY(r.events.isEmpty());
        QCOMPARE(rig.sim.requestCount(u"GetTask"_s), 0);
    }

    void multipleArtifactsInOrder()
    {
        Rig rig;
        const QString multi = rig.start(u"multi chunks=5"_s);
        const QString replaced = rig.start(u"replace"_s);
        QVERIFY(waitTerminal(rig.manager, multi));
        QVERIFY(waitTerminal(rig.manager, replaced));
        QCOMPARE(rig.run(multi).primaryText, A2aSimulator::chunkText(5) + u"\n\nIn short: done."_s);
        QCOMPARE(rig.run(multi).reconciliations, 0);
        QCOMPARE(rig.run(replaced).primaryText, u"final answer"_s);
    }

    void statusMessagesAreSecondary()
    {
        Rig rig;
        const QString id = rig.start(u"normal chunks=12 status_every=4 drop_after=9 fault_connections=1"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        const Run &run = rig.run(id);
        QCOMPARE(run.primaryText, A2aSimulator::chunkText(12));
        QStringList progress;
        for (const SecondaryItem &i : run.secondary) {
            if (i.kind == SecondaryKind::Progress)
                progress << i.text;
        }
        QVERIFY2(progress.contains(u"step 4/12"_s) && progress.contains(u"step 8/12"_s),
                 qPrintable(progress.join(u'|')));
        QVERIFY(secondaryUnique(run));
    }

    // An agent that does not stream: SendMessage (non-blocking), then GetTask polls.
    void nonStreamingAgentPolls()
    {
        A2aSimConfig config;
        config.streaming = false;
        Rig rig(config);
        const QString id = rig.start(u"normal chunks=10 interval_ms=5"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QCOMPARE(rig.run(id).primaryText, A2aSimulator::chunkText(10));
        QVERIFY(!rig.run(id).token.streamable);
        QCOMPARE(rig.sim.requestCount(u"SendStreamingMessage"_s), 0);
        QCOMPARE(rig.sim.requestCount(u"SubscribeToTask"_s), 0);
        QVERIFY(rig.sim.requestCount(u"GetTask"_s) >= 1);
        const QJsonObject config1 = rig.rpcBodies(u"SendMessage"_s)
                                        .first()
                                        .value(u"params"_s)
                                        .toObject()
                                        .value(u"configuration"_s)
                                        .toObject();
        QVERIFY(config1.value(u"returnImmediately"_s).toBool());
        QVERIFY(!rig.backend()->capabilities().testFlag(Capability::ResumeStream));
    }

    // Agent card problems are clear connection errors.
    void agentCardProblems_data()
    {
        QTest::addColumn<int>("mode");
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("expected");
        QTest::addRow("missing") << int(A2aSimConfig::CardMode::Missing) << int(ErrorKind::NotFound)
                                 << u"No A2A agent card found"_s;
        QTest::addRow("malformed") << int(A2aSimConfig::CardMode::Malformed) << int(ErrorKind::Protocol)
                                   << u"is not valid JSON"_s;
        QTest::addRow("not a card") << int(A2aSimConfig::CardMode::NoName) << int(ErrorKind::Protocol)
                                    << u"has no \"name\""_s;
        QTest::addRow("html page") << int(A2aSimConfig::CardMode::Html) << int(ErrorKind::Protocol)
                                   << u"is not valid JSON"_s;
    }
    void agentCardProblems()
    {
        QFETCH(int, mode);
        QFETCH(int, kind);
        QFETCH(QString, expected);
        A2aSimConfig config;
        config.cardMode = A2aSimConfig::CardMode(mode);
        Rig rig(config);
        const QString id = rig.start(u"normal"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Failed);
        QCOMPARE(int(run.error.kind), kind);
        QVERIFY2(run.error.message.contains(expected), qPrintable(run.error.message));
        QVERIFY2(run.error.message.contains(u"/.well-known/agent"_s), qPrintable(run.error.message));
        const A2a::Discovery d = QCoro::waitFor(rig.backend()->discover());
        QVERIFY(!d.ok());
        QCOMPARE(d.error.message, run.error.message);
    }

    // An older agent with only /.well-known/agent.json is found through the fallback.
    void legacyCardPath()
    {
        A2aSimConfig config;
        config.cardMode = A2aSimConfig::CardMode::LegacyPath;
        Rig rig(config);
        const QString id = rig.start(u"normal chunks=4"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).primaryText, A2aSimulator::chunkText(4));
        QCOMPARE(rig.backend()->agentCard()->source.path(), u"/.well-known/agent.json"_s);
    }

    void versionHeaderRequired()
    {
        // The simulator refuses 1.0 requests without the header, as @a2a-js/sdk does; our
        // requests all carry it (checked in streamedTaskWithChunkedArtifacts). Here: the error
        // such a server gives is reported as VersionNotSupported.
        Rig rig;
        rig.sim.addRpcFault(
            {u"SendStreamingMessage"_s, -32009, u"A2A-Version 0.3 is not supported"_s, 1, 200});
        const QString id = rig.start(u"normal"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        QVERIFY(rig.run(id).error.message.startsWith(u"VersionNotSupported"_s));
    }

    // runwatch-sim --a2a [--a2a-version 0.3] [--a2a-no-streaming] serves this simulator.
    void simulatorCommandLine()
    {
        using RunwatchSim::CommandLineResult;
        const CommandLineResult a = RunwatchSim::parseCommandLine(
            {u"runwatch-sim"_s, u"--a2a"_s, u"--a2a-version"_s, u"0.3"_s, u"--a2a-no-streaming"_s});
        QCOMPARE(a.action, CommandLineResult::Action::Run);
        QVERIFY(a.options.a2a);
        QVERIFY(a.options.a2aLegacy);
        QVERIFY(!a.options.a2aStreaming);
        const CommandLineResult b = RunwatchSim::parseCommandLine({u"runwatch-sim"_s, u"--a2a"_s});
        QVERIFY(b.options.a2a && !b.options.a2aLegacy && b.options.a2aStreaming);
        const CommandLineResult bad
            = RunwatchSim::parseCommandLine({u"runwatch-sim"_s, u"--a2a"_s, u"--a2a-version"_s, u"2.0"_s});
        QCOMPARE(bad.action, CommandLineResult::Action::Error);
        QVERIFY(bad.message.contains(u"1.0 or 0.3"_s));
    }

    // Auth as the card says: bearer, or an API key header.
    void authFromCard_data()
    {
        QTest::addColumn<int>("scheme");
        QTest::addColumn<QByteArray>("header");
        QTest::addRow("bearer") << int(A2aSimConfig::AuthScheme::Bearer) << QByteArray("authorization");
        QTest::addRow("api key header")
            << int(A2aSimConfig::AuthScheme::ApiKeyHeader) << QByteArray("x-api-key");
    }
    void authFromCard()
    {
        QFETCH(int, scheme);
        QFETCH(QByteArray, header);
        A2aSimConfig config;
        config.apiKey = u"s3cret"_s;
        config.authScheme = A2aSimConfig::AuthScheme(scheme);
        {
            Rig rig(config, {}, u"s3cret"_s);
            const QString id = rig.start(u"normal chunks=3"_s);
            QVERIFY(waitTerminal(rig.manager, id));
            QCOMPARE(rig.run(id).status, RunStatus::Completed);
            const auto requests = rig.sim.requests();
            const auto rpc = std::find_if(requests.cbegin(), requests.cend(),
                                          [](const auto &r) { return !r.rpcMethod.isEmpty(); });
            QVERIFY(rpc != requests.cend());
            QVERIFY(rpc->header(header).endsWith("s3cret"));
            // The card itself is public: no credentials sent there.
            QVERIFY(requests.first().header("authorization").isEmpty());
            QVERIFY(requests.first().header("x-api-key").isEmpty());
        }
        {
            Rig rig(config, {}, u"wrong"_s);
            const QString id = rig.start(u"normal chunks=3"_s);
            QVERIFY(waitTerminal(rig.manager, id));
            QCOMPARE(rig.run(id).error.kind, ErrorKind::Auth);
            QCOMPARE(rig.run(id).error.httpStatus, 401);
        }
    }

    // Follow up (issue 16): a completed task's next turn is a new task in the same contextId
    // (a finished task never restarts), linked to the parent run.
    void followUpInTheSameContext()
    {
        Rig rig;
        const QString parent = rig.start(u"normal chunks=3"_s);
        QVERIFY(waitTerminal(rig.manager, parent, kWait));
        QCOMPARE(rig.run(parent).status, RunStatus::Completed);
        const QString parentTask = rig.run(parent).remoteId;
        const auto parentInfo = rig.sim.task(parentTask);
        QVERIFY(parentInfo.has_value());
        QVERIFY(!parentInfo->contextId.isEmpty());

        QString why;
        const QString child = rig.manager.followUp(parent, u"normal chunks=2 now shorter"_s, &why);
        QVERIFY2(!child.isEmpty(), qPrintable(why));
        QVERIFY(waitTerminal(rig.manager, child, kWait));
        const Run &run = rig.run(child);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.parentId, parent);
        QVERIFY(run.remoteId != parentTask);
        const auto childInfo = rig.sim.task(run.remoteId);
        QVERIFY(childInfo.has_value());
        QCOMPARE(childInfo->contextId, parentInfo->contextId);
        QCOMPARE(run.token.extra.value(u"contextId"_s).toString(), parentInfo->contextId);
        // The message carried the context and no task id (that would address the finished task).
        const QList<QJsonObject> sends = rig.rpcBodies(u"SendStreamingMessage"_s);
        QVERIFY(!sends.isEmpty());
        const QJsonObject message = sends.last().value(u"params"_s).toObject().value(u"message"_s).toObject();
        QCOMPARE(message.value(u"contextId"_s).toString(), parentInfo->contextId);
        QVERIFY(!message.contains(u"taskId"_s));
    }
};

QTEST_GUILESS_MAIN(TestA2aEndToEnd)
#include "tst_a2a_e2e.moc"
