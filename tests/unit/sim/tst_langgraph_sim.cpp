// SPDX-License-Identifier: GPL-3.0-or-later
// The LangGraph Agent Server simulator against a plain QNetworkAccessManager (never the client's
// code): docs/protocols/langgraph-agent-server.md as the simulator serves it, checked against the
// real server's transcripts in tests/data/langgraph/ where they exist.
#include "langgraphsimclient.h"
#include "simcommandline.h"
#include "testdata.h"

using namespace LangGraphSimTest;
using namespace RunwatchSim;
using namespace Qt::StringLiterals;

class TestLangGraphSim final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Health, version, and one system assistant per graph with the real server's ids.
    void meta()
    {
        LangGraphSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        QCOMPARE(client.send("GET", u"/ok"_s).json().value(u"ok"_s).toBool(), true);
        const QJsonObject info = client.send("GET", u"/info"_s).json();
        QCOMPARE(info.value(u"version"_s).toString(), u"1.5.1-sim"_s);
        QCOMPARE(info.value(u"context"_s).toString(), u"js"_s);

        const Reply all = client.send("POST", u"/assistants/search"_s, QJsonObject{{u"limit"_s, 100}});
        QCOMPARE(all.status, 200);
        QCOMPARE(all.header("x-pagination-total"), QByteArray("5"));
        QHash<QString, QString> ids;
        for (const QJsonValue &a : all.array()) {
            const QJsonObject assistant = a.toObject();
            QCOMPARE(assistant.value(u"name"_s), assistant.value(u"graph_id"_s));
            ids.insert(assistant.value(u"graph_id"_s).toString(),
                       assistant.value(u"assistant_id"_s).toString());
        }
        QCOMPARE(ids.size(), 5);
        // The ids the real server gave the same graphs (tests/data/langgraph/*).
        QCOMPARE(ids.value(u"echo"_s), u"046b5dc7-2108-582c-9c6c-31d556d138f0"_s);
        QCOMPARE(ids.value(u"approval"_s), u"e234584d-b7bf-527f-9d06-ba77f8f5172d"_s);
        QCOMPARE(ids.value(u"fail"_s), u"05aba144-f405-553c-afd1-8aa6d1a597db"_s);
        QCOMPARE(ids.value(u"slow"_s), u"cad1b5ad-d177-59d1-ab39-5e327188ed3a"_s);

        const Reply paged
            = client.send("POST", u"/assistants/search"_s, QJsonObject{{u"limit"_s, 2}, {u"offset"_s, 4}});
        QCOMPARE(paged.array().size(), 1);
        QCOMPARE(paged.header("x-pagination-total"), QByteArray("5"));
        const QJsonArray echo
            = client.send("POST", u"/assistants/search"_s, QJsonObject{{u"graph_id"_s, u"echo"_s}}).array();
        QCOMPARE(echo.size(), 1);
        QCOMPARE(client.send("GET", u"/assistants/"_s + ids.value(u"question"_s)).json().value(u"graph_id"_s),
                 QJsonValue(u"question"_s));
        QCOMPARE(client.send("GET", u"/assistants/slow"_s).json().value(u"assistant_id"_s),
                 QJsonValue(ids.value(u"slow"_s)));
        const Reply missing = client.send("GET", u"/assistants/nope"_s);
        QCOMPARE(missing.status, 404);
        QVERIFY(missing.header("content-type").startsWith("text/plain"));
    }

    // A resumable echo run: the whole stream after the end (-1), after k, and nothing without the
    // header; the joined tokens are the thread's last AI message.
    void echoRunAndReplay()
    {
        LangGraphSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const Reply created = client.send("POST", u"/threads"_s, QJsonObject{{u"metadata"_s, QJsonObject{}}});
        const QString thread = created.json().value(u"thread_id"_s).toString();
        QCOMPARE(created.json().value(u"status"_s).toString(), u"idle"_s);
        QVERIFY(!created.json().contains(u"values"_s));
        const Reply r = client.createRun(
            thread, QJsonObject{{u"assistant_id"_s, u"echo"_s},
                                {u"input"_s, QJsonObject{{u"messages"_s, userInput(u"hi"_s)}}}});
        QCOMPARE(r.status, 200);
        const QJsonObject run = r.json();
        const QString id = run.value(u"run_id"_s).toString();
        QCOMPARE(run.value(u"status"_s).toString(), u"pending"_s);
        QVERIFY(run.value(u"kwargs"_s).toObject().value(u"resumable"_s).toBool());
        QCOMPARE(r.header("content-location"), u"/threads/%1/runs/%2"_s.arg(thread, id).toUtf8());
        QVERIFY(r.header("location").isEmpty());
        QVERIFY(waitEnded(sim, id));

        const Reply raw = Client::finish(client.startJoin(thread, id, "-1"));
        QVERIFY(raw.header("content-type").startsWith("text/event-stream"));
        QVERIFY(raw.body.startsWith("event: metadata\ndata: {"));
        const QList<Ev> events = parseSse(raw.body);
        QCOMPARE(events.size(), 9);
        for (qsizetype i = 0; i < events.size(); ++i) {
            QCOMPARE(events.at(i).id, i);
            QCOMPARE(events.at(i).fields, QByteArray("edi"));
        }
        QCOMPARE(events.at(0).json().value(u"run_id"_s).toString(), id);
        QCOMPARE(events.at(0).json().value(u"attempt"_s).toInt(), 1);
        QCOMPARE(events.at(1).event, QByteArray("custom"));
        QCOMPARE(events.at(1).json(), (QJsonObject{{u"phase"_s, u"drafting"_s}}));
        const QString text = u"Echo: hi w1é w2日本 w3🎉 w4 w5é"_s;
        QCOMPARE(tokensText(events), text);
        QSet<QString> messageIds;
        for (const Ev &e : events) {
            if (e.event == "messages") {
                QCOMPARE(e.array().at(0).toObject().value(u"type"_s).toString(), u"ai"_s);
                messageIds.insert(e.array().at(0).toObject().value(u"id"_s).toString());
                QCOMPARE(e.array().at(1).toObject().value(u"langgraph_node"_s).toString(), u"respond"_s);
            }
        }
        QCOMPARE(messageIds.size(), 1);
        QVERIFY(messageIds.begin()->startsWith(u"run-"_s));
        const QJsonArray update
            = events.last().json().value(u"respond"_s).toObject().value(u"messages"_s).toArray();
        QCOMPARE(update.at(0).toObject().value(u"content"_s).toString(), text);
        QVERIFY(!namesOf(events).contains("error") && !namesOf(events).contains("end"));

        QCOMPARE(client.send("GET", u"/threads/%1/runs/%2"_s.arg(thread, id)).json().value(u"status"_s),
                 QJsonValue(u"success"_s));
        const QJsonObject t = client.send("GET", u"/threads/"_s + thread).json();
        QCOMPARE(t.value(u"status"_s).toString(), u"idle"_s);
        QCOMPARE(t.value(u"interrupts"_s).toObject(), QJsonObject());
        QCOMPARE(t.value(u"metadata"_s).toObject().value(u"graph_id"_s).toString(), u"echo"_s);
        const QJsonObject state = client.send("GET", u"/threads/%1/state"_s.arg(thread)).json();
        QCOMPARE(lastAiText(state), text);
        QCOMPARE(state.value(u"next"_s).toArray(), QJsonArray());

        const QList<Ev> tail = client.join(thread, id, "3");
        QCOMPARE(idsOf(tail), (QList<qint64>{4, 5, 6, 7, 8}));
        QCOMPARE(tail.first().data, events.at(4).data);
        const Reply none = Client::finish(client.startJoin(thread, id));
        QCOMPARE(none.status, 200);
        QVERIFY(parseSse(none.body).isEmpty());
        QVERIFY(none.ms >= 40); // open until closeDelayMs after the end

        // A second turn keeps the history; "long N" sets the token count.
        const QString second = client.run(thread, u"echo"_s, u"more long 3"_s);
        QVERIFY(waitEnded(sim, second));
        const QJsonObject after = client.send("GET", u"/threads/%1/state"_s.arg(thread)).json();
        QCOMPARE(after.value(u"values"_s).toObject().value(u"messages"_s).toArray().size(), 4);
        QCOMPARE(lastAiText(after), u"Echo: more long 3 w1é w2日本"_s);
    }

    // POST …/runs/stream: the run created and its whole stream in the answer; no Location header.
    void createAndStream()
    {
        LangGraphSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const QString thread = client.createThread();
        const QJsonObject body{{u"assistant_id"_s, u"echo"_s},
                               {u"input"_s, QJsonObject{{u"messages"_s, userInput(u"hi"_s)}}},
                               {u"stream_mode"_s, QJsonArray::fromStringList(kModes)},
                               {u"stream_resumable"_s, true}};
        const Reply r = client.send("POST", u"/threads/%1/runs/stream"_s.arg(thread), body);
        QCOMPARE(r.status, 200);
        QVERIFY(r.header("content-type").startsWith("text/event-stream"));
        QVERIFY(r.header("location").isEmpty());
        const QString id = sim.lastRunId();
        QCOMPARE(r.header("content-location"), u"/threads/%1/runs/%2"_s.arg(thread, id).toUtf8());
        const QList<Ev> events = parseSse(r.body);
        QCOMPARE(events.size(), 9);
        QCOMPARE(events.first().json().value(u"run_id"_s).toString(), id);
        QCOMPARE(tokensText(events), u"Echo: hi w1é w2日本 w3🎉 w4 w5é"_s);
        QCOMPARE(client.join(thread, id, "-1").size(), 9); // still resumable afterwards
    }

    // The simulator's stream and thread shapes against the real server's transcripts.
    void matchesRecordings()
    {
        LangGraphSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const QString thread = client.createThread();
        const QString id = client.run(thread, u"echo"_s, u"hi"_s);
        QVERIFY(waitEnded(sim, id));
        const QList<Ev> ours = client.join(thread, id, "-1");
        const QList<Ev> real = parseSse(RunwatchTest::readData(u"langgraph/echo-stream.sse"_s));
        QVERIFY(!real.isEmpty());
        QCOMPARE(namesOf(ours), namesOf(real));
        QCOMPARE(idsOf(ours), idsOf(real));
        QCOMPARE(tokensText(ours), tokensText(real));
        const auto keys = [](const QJsonValue &v) {
            QStringList k = v.toObject().keys();
            k.sort();
            return k;
        };
        QCOMPARE(keys(ours.at(2).array().at(0)), keys(real.at(2).array().at(0)));
        QCOMPARE(keys(ours.at(2).array().at(1)), keys(real.at(2).array().at(1)));
        QCOMPARE(
            keys(ours.last().json().value(u"respond"_s).toObject().value(u"messages"_s).toArray().at(0)),
            keys(real.last().json().value(u"respond"_s).toObject().value(u"messages"_s).toArray().at(0)));
        QCOMPARE(keys(ours.at(0).json()), keys(real.at(0).json()));
        // Runs and threads have the real fields.
        const QJsonObject cancelled
            = QJsonDocument::fromJson(RunwatchTest::readData(u"langgraph/cancelled-run.json"_s)).object();
        const QJsonObject run = client.send("GET", u"/threads/%1/runs/%2"_s.arg(thread, id)).json();
        QCOMPARE(keys(run), keys(cancelled));
        QCOMPARE(keys(run.value(u"kwargs"_s)), keys(cancelled.value(u"kwargs"_s)));
        const QJsonObject failThread
            = QJsonDocument::fromJson(RunwatchTest::readData(u"langgraph/fail-thread.json"_s)).object();
        QCOMPARE(keys(client.send("GET", u"/threads/"_s + thread).json()), keys(failThread));
        const QJsonObject failState
            = QJsonDocument::fromJson(RunwatchTest::readData(u"langgraph/fail-state.json"_s)).object();
        const QJsonObject state = client.send("GET", u"/threads/%1/state"_s.arg(thread)).json();
        QCOMPARE(keys(state), keys(failState));
        QCOMPARE(keys(state.value(u"checkpoint"_s)), keys(failState.value(u"checkpoint"_s)));
    }

    // No Last-Event-ID on a published log: only what comes from now on, no gap.
    void liveJoinWithoutHeader()
    {
        LangGraphSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const QString thread = client.createThread();
        const QString id = client.run(thread, u"echo"_s, u"x long 40 delay 10"_s);
        QTRY_VERIFY_WITH_TIMEOUT(sim.run(id)->eventNames.size() >= 10, 5000);
        const QList<Ev> events = client.join(thread, id);
        QVERIFY(!events.isEmpty());
        QVERIFY(events.first().id >= 10);
        QCOMPARE(events.last().id, qint64(sim.run(id)->eventNames.size() - 1));
        for (qsizetype i = 1; i < events.size(); ++i)
            QCOMPARE(events.at(i).id, events.at(i - 1).id + 1);
        QVERIFY(sim.run(id)->resumable);
        QCOMPARE(client.join(thread, id, "-1").size(), sim.run(id)->eventNames.size());
    }

    // The trap: a first join without the header before the first event makes the log a queue;
    // from then on each event reaches one reader only, and nothing can be replayed.
    void nonResumableTrap()
    {
        LangGraphSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const QString thread = client.createThread();
        const QString id = client.run(thread, u"echo"_s, u"x long 20 delay 10 queued_ms=300"_s);
        QNetworkReply *first = client.startJoin(thread, id);
        QTRY_VERIFY_WITH_TIMEOUT(sim.run(id)->streamConnections == 1, 5000);
        QVERIFY(!sim.run(id)->resumable);
        QNetworkReply *second = client.startJoin(thread, id, "-1");
        const QList<Ev> a = parseSse(Client::finish(first).body);
        const QList<Ev> b = parseSse(Client::finish(second).body);
        QVERIFY(!a.isEmpty());
        QVERIFY(!b.isEmpty());
        QList<qint64> all = idsOf(a) + idsOf(b);
        std::sort(all.begin(), all.end());
        QList<qint64> expected;
        for (qint64 i = 0; i < sim.run(id)->eventNames.size(); ++i)
            expected.append(i);
        QCOMPARE(all, expected); // every event once, split between the readers
        QVERIFY(client.join(thread, id, "-1").isEmpty());

        // A join with the header came first: the log stays resumable, and a later join without it
        // (still before the first event) gets everything too.
        const QString kept = client.run(thread, u"echo"_s, u"z long 5 queued_ms=600"_s);
        QNetworkReply *withHeader = client.startJoin(thread, kept, "-1");
        QTRY_VERIFY_WITH_TIMEOUT(sim.run(kept)->streamConnections == 1, 5000);
        QNetworkReply *without = client.startJoin(thread, kept);
        QTRY_VERIFY_WITH_TIMEOUT(sim.run(kept)->streamConnections == 2, 5000);
        QCOMPARE(sim.run(kept)->status, u"pending"_s); // both joined before the first event
        QCOMPARE(parseSse(Client::finish(withHeader).body).size(), 8);
        QCOMPARE(parseSse(Client::finish(without).body).size(), 8);
        QVERIFY(sim.run(kept)->resumable);
        QCOMPARE(client.join(thread, kept, "-1").size(), 8);

        // A run created without stream_resumable: the queue keeps events until someone reads.
        const QString plain = client.run(thread, u"echo"_s, u"y"_s, kModes, false);
        QVERIFY(waitEnded(sim, plain));
        QCOMPARE(client.join(thread, plain).size(), 9);
        QVERIFY(client.join(thread, plain, "-1").isEmpty());
    }

    // pending → running, a busy thread (no values), 422 for a second run, cancel 202 at once.
    void busyThreadAndCancel()
    {
        LangGraphSimConfig config = fastConfig();
        config.queuedMs = 100;
        LangGraphSimulator sim(config);
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const QString thread = client.createThread();
        const QString id = client.run(thread, u"slow"_s, u"go"_s);
        QCOMPARE(sim.run(id)->status, u"pending"_s);
        const QJsonObject queued = client.send("GET", u"/threads/"_s + thread).json();
        QCOMPARE(queued.value(u"status"_s).toString(), u"busy"_s);
        QVERIFY(waitStatus(sim, id, u"running"_s));
        QTRY_VERIFY_WITH_TIMEOUT(sim.run(id)->text.size() > 20, 5000);
        QCOMPARE(client.send("GET", u"/threads/%1/runs/%2"_s.arg(thread, id)).json().value(u"status"_s),
                 QJsonValue(u"running"_s));
        const QJsonObject busy = client.send("GET", u"/threads/"_s + thread).json();
        QCOMPARE(busy.value(u"status"_s).toString(), u"busy"_s);
        QVERIFY(!busy.contains(u"values"_s));
        QVERIFY(!busy.contains(u"interrupts"_s));
        const Reply refused = client.createRun(
            thread, QJsonObject{{u"assistant_id"_s, u"slow"_s},
                                {u"input"_s, QJsonObject{{u"messages"_s, userInput(u"x"_s)}}}});
        QCOMPARE(refused.status, 422);
        QVERIFY(refused.header("content-type").startsWith("text/plain"));
        QCOMPARE(QString::fromUtf8(refused.body), kBusy);

        QNetworkReply *live = client.startJoin(thread, id, "-1");
        QTRY_VERIFY_WITH_TIMEOUT(sim.activeStreamCount() == 1, 5000);
        const Reply cancelled
            = client.send("POST", u"/threads/%1/runs/%2/cancel?action=interrupt"_s.arg(thread, id));
        QCOMPARE(cancelled.status, 202);
        QVERIFY(cancelled.body.isEmpty());
        QVERIFY(cancelled.ms < 300);
        QCOMPARE(client.send("GET", u"/threads/%1/runs/%2"_s.arg(thread, id)).json().value(u"status"_s),
                 QJsonValue(u"interrupted"_s));
        const QJsonObject idle = client.send("GET", u"/threads/"_s + thread).json();
        QCOMPARE(idle.value(u"status"_s).toString(), u"idle"_s);
        QVERIFY(!idle.contains(u"values"_s)); // as the real server after a cancel
        const QList<Ev> streamed = parseSse(Client::finish(live).body);
        QVERIFY(tokensText(streamed).size() > 20);
        QVERIFY(tokensText(streamed).size() < 300 * 4);
        QVERIFY(!namesOf(streamed).contains("error"));
        // Again on the finished run: 202, nothing changes.
        QCOMPARE(client.send("POST", u"/threads/%1/runs/%2/cancel"_s.arg(thread, id)).status, 202);
        QCOMPARE(sim.run(id)->status, u"interrupted"_s);

        // With `wait` (any value) the dev server answers 204 once the run is gone.
        const QString next = client.run(thread, u"slow"_s, u"again"_s);
        QVERIFY(waitStatus(sim, next, u"running"_s));
        const Reply waited
            = client.send("POST", u"/threads/%1/runs/%2/cancel?wait=0&action=interrupt"_s.arg(thread, next));
        QCOMPARE(waited.status, 204);
        QVERIFY(waited.ms >= 40);
        QCOMPARE(sim.run(next)->status, u"interrupted"_s);
    }

    // action=rollback: the run and the thread end in error, as on the JS dev server.
    void rollback()
    {
        LangGraphSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const QString thread = client.createThread();
        const QString id = client.run(thread, u"slow"_s, u"go"_s);
        QTRY_VERIFY_WITH_TIMEOUT(sim.run(id)->text.size() > 10, 5000);
        QCOMPARE(client.send("POST", u"/threads/%1/runs/%2/cancel?action=rollback"_s.arg(thread, id)).status,
                 202);
        QCOMPARE(sim.run(id)->status, u"error"_s);
        const QJsonObject t = client.send("GET", u"/threads/"_s + thread).json();
        QCOMPARE(t.value(u"status"_s).toString(), u"error"_s);
        QCOMPARE(onlyInterrupt(t).second, QJsonObject()); // {task_id: []}
        QVERIFY(!onlyInterrupt(t).first.isEmpty());
        const QList<Ev> events = client.join(thread, id, "-1");
        QCOMPARE(events.last().event, QByteArray("error"));
        QCOMPARE(events.last().json(),
                 (QJsonObject{{u"error"_s, u"Error"_s}, {u"message"_s, u"rollback"_s}}));
        QCOMPARE(client.send("POST", u"/threads/%1/runs/%2/cancel?action=nope"_s.arg(thread, id)).status,
                 422);
    }

    // The human-in-the-loop interrupt in the thread, its state and the stream; resumed with
    // decisions it answers as the real graph does.
    void approvalInterruptAndResume()
    {
        LangGraphSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const QString thread = client.createThread();
        const QString id = client.run(thread, u"approval"_s, u"send the report"_s);
        QVERIFY(waitEnded(sim, id));
        QCOMPARE(sim.run(id)->status, u"success"_s); // the run that stops at interrupt() succeeded
        const QList<Ev> events = client.join(thread, id, "-1");
        const QList<Ev> recorded = parseSse(RunwatchTest::readData(u"langgraph/approval-stream.sse"_s));
        QCOMPARE(namesOf(events), namesOf(recorded));
        QCOMPARE(tokensText(events), tokensText(recorded));

        const QJsonObject t = client.send("GET", u"/threads/"_s + thread).json();
        QCOMPARE(t.value(u"status"_s).toString(), u"interrupted"_s);
        const auto [taskId, pending] = onlyInterrupt(t);
        const QJsonObject real
            = QJsonDocument::fromJson(RunwatchTest::readData(u"langgraph/approval-thread.json"_s)).object();
        QCOMPARE(pending.value(u"value"_s), onlyInterrupt(real).second.value(u"value"_s));
        const QString interruptId = pending.value(u"id"_s).toString();
        QVERIFY(QRegularExpression(u"^[0-9a-f]{32}$"_s).match(interruptId).hasMatch());
        const QJsonObject streamed
            = events.last().json().value(u"__interrupt__"_s).toArray().at(0).toObject();
        QCOMPARE(streamed.value(u"id"_s).toString(), interruptId);
        QCOMPARE(streamed.value(u"value"_s), pending.value(u"value"_s));
        const QJsonObject state = client.send("GET", u"/threads/%1/state"_s.arg(thread)).json();
        QCOMPARE(state.value(u"next"_s).toArray(), (QJsonArray{u"review"_s}));
        const QJsonObject task = state.value(u"tasks"_s).toArray().at(0).toObject();
        QCOMPARE(task.value(u"id"_s).toString(), taskId);
        QCOMPARE(task.value(u"interrupts"_s).toArray().at(0).toObject(), pending);
        QCOMPARE(lastAiText(state),
                 u"Plan: email the report to ops@example.com, then delete the draft /tmp/x."_s);
        const QJsonArray found = client
                                     .send("POST", u"/threads/search"_s,
                                           QJsonObject{{u"status"_s, u"interrupted"_s}, {u"limit"_s, 10}})
                                     .array();
        QCOMPARE(found.size(), 1);
        QCOMPARE(found.at(0).toObject().value(u"thread_id"_s).toString(), thread);

        const QJsonObject decisions{{u"decisions"_s, QJsonArray{QJsonObject{{u"type"_s, u"approve"_s}},
                                                                QJsonObject{{u"type"_s, u"reject"_s},
                                                                            {u"message"_s, u"not now"_s}}}}};
        const QString resumed = client.resume(thread, u"approval"_s, decisions);
        QVERIFY(waitEnded(sim, resumed));
        const QList<Ev> answer = client.join(thread, resumed, "-1");
        const QList<Ev> realAnswer
            = parseSse(RunwatchTest::readData(u"langgraph/approval-resume-stream.sse"_s));
        QCOMPARE(tokensText(answer), tokensText(realAnswer));
        QCOMPARE(tokensText(answer), u"send_email: approved; delete_file: rejected (reason: not now)"_s);
        QCOMPARE(answer.at(1).array().at(1).toObject().value(u"checkpoint_ns"_s).toString(),
                 u"review:"_s + taskId);
        const QJsonObject done = client.send("GET", u"/threads/"_s + thread).json();
        QCOMPARE(done.value(u"status"_s).toString(), u"idle"_s);
        QCOMPARE(done.value(u"values"_s).toObject().value(u"messages"_s).toArray().size(), 3);
        QCOMPARE(lastAiText(client.send("GET", u"/threads/%1/state"_s.arg(thread)).json()),
                 tokensText(answer));
    }

    // interrupt("What city?") answered with a plain value and with an {interrupt id: value} map;
    // `values` mode carries the state and the interrupt too.
    void questionResume()
    {
        LangGraphSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const QStringList modes{u"messages-tuple"_s, u"updates"_s, u"values"_s};
        for (const bool byId : {false, true}) {
            const QString thread = client.createThread();
            const QString id = client.run(thread, u"question"_s, u"weather?"_s, modes);
            QVERIFY(waitEnded(sim, id));
            const QList<Ev> asked = client.join(thread, id, "-1");
            QCOMPARE(namesOf(asked), (QList<QByteArray>{"metadata", "values", "updates", "values"}));
            QCOMPARE(
                asked.last().json().value(u"__interrupt__"_s).toArray().at(0).toObject().value(u"value"_s),
                QJsonValue(u"What city?"_s));
            const QJsonObject t = client.send("GET", u"/threads/"_s + thread).json();
            QCOMPARE(t.value(u"status"_s).toString(), u"interrupted"_s);
            const QJsonObject pending = onlyInterrupt(t).second;
            QCOMPARE(pending.value(u"value"_s).toString(), u"What city?"_s);
            const QString city = byId ? u"Oslo"_s : u"Paris"_s;
            const QJsonValue answer = byId
                                          ? QJsonValue(QJsonObject{{pending.value(u"id"_s).toString(), city}})
                                          : QJsonValue(city);
            const QString resumed = client.resume(thread, u"question"_s, answer, modes);
            QVERIFY(waitEnded(sim, resumed));
            const QList<Ev> events = client.join(thread, resumed, "-1");
            QCOMPARE(tokensText(events), u"Weather for %1: sunny"_s.arg(city));
            QCOMPARE(events.last().event, QByteArray("values"));
            QCOMPARE(lastAiText(QJsonObject{{u"values"_s, events.last().json()}}), tokensText(events));
            QCOMPARE(client.send("GET", u"/threads/"_s + thread).json().value(u"status"_s),
                     QJsonValue(u"idle"_s));
        }
    }

    // The fail graph: tokens, then the error event; run and thread error; the task's error is a
    // JSON-encoded string and the thread lists the task with no interrupts.
    void failure()
    {
        LangGraphSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const QString thread = client.createThread();
        const QString id = client.run(thread, u"fail"_s, u"x"_s);
        QVERIFY(waitEnded(sim, id));
        const QList<Ev> events = client.join(thread, id, "-1");
        QCOMPARE(namesOf(events), namesOf(parseSse(RunwatchTest::readData(u"langgraph/fail-stream.sse"_s))));
        QCOMPARE(tokensText(events), u"Working on it, then failing"_s);
        QCOMPARE(events.last().event, QByteArray("error"));
        QCOMPARE(events.last().json(),
                 (QJsonObject{{u"error"_s, u"Error"_s}, {u"message"_s, u"graph exploded on purpose"_s}}));
        QCOMPARE(sim.run(id)->status, u"error"_s);
        const QJsonObject t = client.send("GET", u"/threads/"_s + thread).json();
        QCOMPARE(t.value(u"status"_s).toString(), u"error"_s);
        QCOMPARE(t.value(u"interrupts"_s).toObject().size(), 1);
        QCOMPARE(t.value(u"interrupts"_s).toObject().begin().value().toArray(), QJsonArray());
        const QJsonObject state = client.send("GET", u"/threads/%1/state"_s.arg(thread)).json();
        QCOMPARE(state.value(u"next"_s).toArray(), (QJsonArray{u"explode"_s}));
        const QJsonValue error = state.value(u"tasks"_s).toArray().at(0).toObject().value(u"error"_s);
        const QJsonObject real
            = QJsonDocument::fromJson(RunwatchTest::readData(u"langgraph/fail-state.json"_s)).object();
        QCOMPARE(error, real.value(u"tasks"_s).toArray().at(0).toObject().value(u"error"_s));
        QCOMPARE(state.value(u"values"_s).toObject().value(u"messages"_s).toArray().size(), 1);
    }

    // threads/search filters and pages; runs are listed oldest first (as 1.5.1); deletes; 404s, 400s.
    void searchListsAndErrors()
    {
        LangGraphSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const QString a = client.createThread(QJsonObject{{u"owner"_s, u"me"_s}});
        const QString b = client.createThread();
        const QString c = client.createThread();
        const QString r1 = client.run(a, u"echo"_s, u"one"_s);
        QVERIFY(waitEnded(sim, r1));
        const QString r2 = client.run(a, u"echo"_s, u"two"_s);
        QVERIFY(waitEnded(sim, r2));
        QVERIFY(waitEnded(sim, client.run(b, u"question"_s, u"q"_s)));
        QVERIFY(waitEnded(sim, client.run(c, u"fail"_s, u"f"_s)));
        const auto search
            = [&](const QJsonObject &body) { return client.send("POST", u"/threads/search"_s, body); };
        QCOMPARE(
            search(QJsonObject{{u"status"_s, u"error"_s}}).array().at(0).toObject().value(u"thread_id"_s),
            QJsonValue(c));
        QCOMPARE(search(QJsonObject{{u"status"_s, u"idle"_s}}).array().size(), 1);
        QCOMPARE(search(QJsonObject{{u"metadata"_s, QJsonObject{{u"owner"_s, u"me"_s}}}}).array().size(), 1);
        const Reply newest = search(QJsonObject{{u"limit"_s, 1}});
        QCOMPARE(newest.header("x-pagination-total"), QByteArray("3"));
        QCOMPARE(newest.array().at(0).toObject().value(u"thread_id"_s), QJsonValue(c)); // updated_at desc
        const QJsonArray oldest = search(QJsonObject{{u"limit"_s, 2},
                                                     {u"offset"_s, 1},
                                                     {u"sort_by"_s, u"created_at"_s},
                                                     {u"sort_order"_s, u"asc"_s}})
                                      .array();
        QCOMPARE(oldest.size(), 2);
        QCOMPARE(oldest.at(0).toObject().value(u"thread_id"_s), QJsonValue(b));

        // Oldest first, as the JS server 1.5.1: limit=1 is the thread's first run.
        const QJsonArray runs = client.send("GET", u"/threads/%1/runs?limit=10"_s.arg(a)).array();
        QCOMPARE(runs.size(), 2);
        QCOMPARE(runs.at(0).toObject().value(u"run_id"_s), QJsonValue(r1));
        const QJsonArray second = client.send("GET", u"/threads/%1/runs?limit=1&offset=1"_s.arg(a)).array();
        QCOMPARE(second.size(), 1);
        QCOMPARE(second.at(0).toObject().value(u"run_id"_s), QJsonValue(r2));
        QCOMPARE(client.send("GET", u"/threads/%1/runs?status=success&limit=1"_s.arg(a)).array().size(), 1);
        QCOMPARE(client.send("DELETE", u"/threads/%1/runs/%2"_s.arg(a, r1)).status, 204);
        QCOMPARE(client.send("GET", u"/threads/%1/runs/%2"_s.arg(a, r1)).status, 404);

        const Reply noAssistant = client.createRun(b, QJsonObject{{u"assistant_id"_s, u"nope"_s}});
        QCOMPARE(noAssistant.status, 404);
        QVERIFY(noAssistant.body.startsWith("No assistant found for \"nope\""));
        const QString unknown = u"01a22414-0000-7000-8000-000000000000"_s;
        QCOMPARE(client.send("GET", u"/threads/"_s + unknown).status, 404);
        QCOMPARE(client.send("GET", u"/threads/not-a-uuid"_s).status, 400);
        const Reply lost = Client::finish(client.startJoin(a, unknown, "-1"));
        QCOMPARE(lost.status, 200);
        QCOMPARE(parseSse(lost.body).value(0).event, QByteArray("error"));
        QCOMPARE(parseSse(lost.body).value(0).data, QByteArray("\"Run not found\""));
        QCOMPARE(client.send("POST", u"/threads/%1/runs/%2/cancel"_s.arg(a, unknown)).status, 404);
        QCOMPARE(client.send("DELETE", u"/threads/"_s + a).status, 204);
        QCOMPARE(client.send("GET", u"/threads/"_s + a).status, 404);
        QCOMPARE(sim.run(r2), std::nullopt);
    }

    // HTTP faults on chosen endpoints, a stream cut after N events (rejoined from the last id),
    // split writes, malformed JSON, the API key.
    void faults()
    {
        LangGraphSimConfig config = fastConfig();
        config.apiKey = u"secret"_s;
        LangGraphSimulator sim(config);
        QVERIFY(sim.listen());
        sim.addHttpFault(*langGraphHttpFaultFromSpec(u"status=503,count=1,on=create,retry-after=2"));
        Client client(sim.baseUrl());
        QCOMPARE(client.send("GET", u"/ok"_s).status, 401);
        const QList<QPair<QByteArray, QByteArray>> key{{"X-Api-Key", "secret"}};
        const QString thread
            = client.send("POST", u"/threads"_s, QJsonObject{}, key).json().value(u"thread_id"_s).toString();
        const QJsonObject body{
            {u"assistant_id"_s, u"echo"_s},
            {u"input"_s, QJsonObject{{u"messages"_s, userInput(u"hi drop_after=3 split=7"_s)}}},
            {u"stream_mode"_s, QJsonArray::fromStringList(kModes)},
            {u"stream_resumable"_s, true}};
        const Reply refused = client.send("POST", u"/threads/%1/runs"_s.arg(thread), body, key);
        QCOMPARE(refused.status, 503);
        QCOMPARE(refused.header("retry-after"), QByteArray("2"));
        QCOMPARE(sim.runsCreated(), 0);
        const QString id = client.send("POST", u"/threads/%1/runs"_s.arg(thread), body, key)
                               .json()
                               .value(u"run_id"_s)
                               .toString();
        QVERIFY(waitEnded(sim, id));
        const auto join = [&](const QByteArray &last) {
            return parseSse(
                Client::finish(
                    client.start("GET", u"/threads/%1/runs/%2/stream"_s.arg(thread, id), {},
                                 key + QList<QPair<QByteArray, QByteArray>>{{"Last-Event-ID", last}}))
                    .body);
        };
        const QList<Ev> cut = join("-1");
        QCOMPARE(idsOf(cut), (QList<qint64>{0, 1, 2}));
        const QList<Ev> rest = join("2");
        QCOMPARE(idsOf(rest), (QList<qint64>{3, 4, 5}));
        QCOMPARE(tokensText(cut + rest + join("5") + join("8")),
                 u"Echo: hi drop_after=3 split=7 w1é w2日本 w3🎉 w4 w5é"_s);

        const QJsonObject broken{{u"assistant_id"_s, u"echo"_s},
                                 {u"input"_s, QJsonObject{{u"messages"_s, userInput(u"x"_s)}}},
                                 {u"metadata"_s, QJsonObject{{u"malformed_at"_s, 2}}},
                                 {u"stream_resumable"_s, true}};
        const QString bad = client.send("POST", u"/threads/%1/runs"_s.arg(thread), broken, key)
                                .json()
                                .value(u"run_id"_s)
                                .toString();
        QVERIFY(waitEnded(sim, bad));
        const QList<Ev> events = parseSse(
            Client::finish(client.start("GET", u"/threads/%1/runs/%2/stream"_s.arg(thread, bad), {},
                                        key + QList<QPair<QByteArray, QByteArray>>{{"Last-Event-ID", "-1"}}))
                .body);
        QJsonParseError error{};
        QJsonDocument::fromJson(events.at(2).data, &error);
        QVERIFY(error.error != QJsonParseError::NoError);
        const QJsonObject wrong{{u"assistant_id"_s, u"echo"_s},
                                {u"metadata"_s, QJsonObject{{u"tokens"_s, u"many"_s}}}};
        QCOMPARE(client.send("POST", u"/threads/%1/runs"_s.arg(thread), wrong, key).status, 422);
    }

    void commandLine()
    {
        const CommandLineResult r = parseCommandLine(
            {u"runwatch-sim"_s, u"--langgraph"_s, u"--key"_s, u"K"_s, u"--langgraph-close-ms"_s, u"20"_s,
             u"--langgraph-split"_s, u"5"_s, u"--langgraph-fault"_s,
             u"status=429,on=create+join,retry-after=3"_s, u"--drop-after"_s, u"4"_s});
        QCOMPARE(int(r.action), int(CommandLineResult::Action::Run));
        QVERIFY(r.options.langgraph);
        const LangGraphSimConfig &c = r.options.langgraphConfig;
        QCOMPARE(c.apiKey, u"K"_s);
        QCOMPARE(c.closeDelayMs, 20);
        QCOMPARE(c.splitWrites, 5);
        QCOMPARE(c.tokens, 6); // the graph's own count unless --deltas is given
        QCOMPARE(c.streamFaults.dropAfterEvents, 4);
        QCOMPARE(c.httpFaults.size(), 1);
        QVERIFY(c.httpFaults.first().aimsAt(LangGraphEndpoint::JoinStream));
        QVERIFY(!c.httpFaults.first().aimsAt(LangGraphEndpoint::GetRun));
        QCOMPARE(int(parseCommandLine({u"runwatch-sim"_s, u"--langgraph-fault"_s, u"on=nowhere"_s}).action),
                 int(CommandLineResult::Action::Error));
        QVERIFY(parseCommandLine({u"runwatch-sim"_s, u"--help"_s}).message.contains(u"--langgraph"_s));
    }
};

QTEST_GUILESS_MAIN(TestLangGraphSim)
#include "tst_langgraph_sim.moc"
