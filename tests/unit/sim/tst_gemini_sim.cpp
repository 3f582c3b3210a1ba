// SPDX-License-Identifier: GPL-3.0-or-later
// The Gemini Interactions API simulator against a plain QNetworkAccessManager (never the client's
// code): protocol §2 of foundry-agents-and-gemini.md as the simulator serves it, checked against
// the shapes of tests/data/gemini/. The official client's own checks: tests/peers/genai-peer.
#include "geminisimclient.h"
#include "simcommandline.h"
#include "testdata.h"

using namespace GeminiSimTest;
using namespace RunwatchSim;
using namespace Qt::StringLiterals;

namespace {

QStringList keysOf(const QJsonObject &object)
{
    QStringList keys = object.keys();
    keys.sort();
    return keys;
}

} // namespace

class TestGeminiSim final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // A background stream: the lifecycle and step events in order, event ids on deltas only, the
    // [DONE] frame; the stored interaction lists the input first and has the same text.
    void createStreamAndGet()
    {
        GeminiSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const Reply r = client.create(QJsonObject{{u"model"_s, kModel},
                                                  {u"input"_s, u"normal deltas=5"_s},
                                                  {u"background"_s, true},
                                                  {u"stream"_s, true}});
        QCOMPARE(r.status, 200);
        QCOMPARE(r.header("content-type"), QByteArray("text/event-stream"));
        QVERIFY(r.body.endsWith("event: done\ndata: [DONE]\n\n"));
        const QList<Ev> events = parseSse(r.body);
        QCOMPARE(
            typesOf(events),
            (QList<QByteArray>{"interaction.created", "interaction.status_update", "step.start", "step.delta",
                               "step.stop", "step.start", "step.delta", "step.delta", "step.delta",
                               "step.delta", "step.delta", "step.stop", "interaction.completed", "done"}));
        for (const Ev &e : events.mid(0, events.size() - 1)) {
            QCOMPARE(e.json().value(u"event_type"_s).toString().toUtf8(), e.event);
            QCOMPARE(!e.eventId().isEmpty(), e.event == "step.delta");
        }
        const QString id = idOf(events);
        QVERIFY(id.startsWith(u"v1_"_s));
        QCOMPARE(textOf(events), expectedText(5));
        QCOMPARE(sim.interaction(id)->text, expectedText(5));
        const QJsonObject completed = events.at(events.size() - 2).json().value(u"interaction"_s).toObject();
        QCOMPARE(completed.value(u"status"_s).toString(), u"completed"_s);
        const QJsonObject usage = completed.value(u"usage"_s).toObject();
        QCOMPARE(usage.value(u"total_tokens"_s).toInteger(),
                 usage.value(u"total_input_tokens"_s).toInteger()
                     + usage.value(u"total_output_tokens"_s).toInteger()
                     + usage.value(u"total_thought_tokens"_s).toInteger()
                     + usage.value(u"total_tool_use_tokens"_s).toInteger());

        const QJsonObject stored = client.get(id).json();
        QCOMPARE(stored.value(u"status"_s).toString(), u"completed"_s);
        const QJsonArray steps = stored.value(u"steps"_s).toArray();
        QCOMPARE(steps.size(), 3);
        QCOMPARE(steps.at(0)[u"content"_s][0][u"text"_s].toString(), u"normal deltas=5"_s);
        QCOMPARE(steps.at(1)[u"type"_s].toString(), u"thought"_s);
        QVERIFY(!steps.at(1)[u"signature"_s].toString().isEmpty());
        QCOMPARE(steps.at(2)[u"content"_s][0][u"text"_s].toString(), expectedText(5));
        QVERIFY(!stored.contains(u"input"_s));
        QCOMPARE(client.get(id, u"include_input=true"_s).json().value(u"input"_s).toString(),
                 u"normal deltas=5"_s);
        // The client's default version, v1, is the same API.
        QCOMPARE(client.send("GET", u"/v1/interactions/"_s + id).json().value(u"id"_s).toString(), id);
    }

    // Every event and resource shape of the hand-written transcripts, key for key.
    void matchesTranscripts()
    {
        GeminiSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        QHash<QByteArray, QStringList> ours;
        const QList<Ev> mine
            = client.stream(u"think deltas=3"_s) + client.stream(u"tool_call"_s) + client.stream(u"fail"_s);
        for (const Ev &e : mine) {
            if (e.event != "done") {
                ours.insert(e.event + ':' + e.json()[u"delta"_s][u"type"_s].toString().toUtf8(),
                            keysOf(e.json()));
            }
        }
        for (const QString &file :
             {u"thought-stream.sse"_s, u"function-call-stream.sse"_s, u"failed-stream.sse"_s}) {
            for (const Ev &e : parseSse(RunwatchTest::readData(u"gemini/"_s + file))) {
                if (e.event == "done")
                    continue;
                const QByteArray kind = e.event + ':' + e.json()[u"delta"_s][u"type"_s].toString().toUtf8();
                QVERIFY2(ours.contains(kind), kind.constData());
                QCOMPARE(ours.value(kind), keysOf(e.json()));
            }
        }
        const QJsonObject recorded
            = QJsonDocument::fromJson(RunwatchTest::readData(u"gemini/text-interaction.json"_s)).object();
        const QJsonObject stored = client.get(idOf(client.stream(u"normal"_s))).json();
        QCOMPARE(keysOf(stored), keysOf(recorded));
        QCOMPARE(keysOf(stored.value(u"usage"_s).toObject()), keysOf(recorded.value(u"usage"_s).toObject()));
    }

    // GET ?stream=true replays every event after last_event_id, id-less ones included; from the
    // start without it. An unknown id, or last_event_id without stream=true, is refused.
    void resumeByEventId()
    {
        GeminiSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const QList<Ev> all = client.stream(u"think deltas=4"_s);
        const QString id = idOf(all);
        QCOMPARE(typesOf(client.resume(id)), typesOf(all));
        for (qsizetype i = 0; i < all.size(); ++i) {
            if (all.at(i).eventId().isEmpty())
                continue;
            const QList<Ev> rest = client.resume(id, all.at(i).eventId());
            QCOMPARE(typesOf(rest), typesOf(all.mid(i + 1)));
            QCOMPARE(textOf(all.mid(0, i + 1)) + textOf(rest), expectedText(4));
        }
        const Reply unknown = client.get(id, u"stream=true&last_event_id=nope"_s);
        QCOMPARE(unknown.status, 400);
        QCOMPARE(unknown.error().value(u"status"_s).toString(), u"INVALID_ARGUMENT"_s);
        QCOMPARE(client.get(id, u"last_event_id="_s + lastIdOf(all)).status, 400);
    }

    // Background without stream: at once, in_progress and no steps. Neither: the call waits and
    // answers the model's steps only.
    void backgroundAndUnary()
    {
        GeminiSimConfig config = fastConfig();
        config.intervalMs = 20;
        GeminiSimulator sim(config);
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const QJsonObject created
            = client
                  .create(QJsonObject{
                      {u"model"_s, kModel}, {u"input"_s, u"deltas=50"_s}, {u"background"_s, true}})
                  .json();
        QCOMPARE(created.value(u"status"_s).toString(), u"in_progress"_s);
        QCOMPARE(created.value(u"steps"_s).toArray().size(), 0);
        QCOMPARE(created.value(u"object"_s).toString(), u"interaction"_s);
        const QString id = created.value(u"id"_s).toString();
        QCOMPARE(client.get(id).json().value(u"status"_s).toString(), u"in_progress"_s);
        QVERIFY(waitEnded(sim, id));
        QCOMPARE(client.get(id).json().value(u"status"_s).toString(), u"completed"_s);

        const QJsonObject unary
            = client.create(QJsonObject{{u"model"_s, kModel}, {u"input"_s, u"deltas=3"_s}}).json();
        QCOMPARE(unary.value(u"status"_s).toString(), u"completed"_s);
        const QJsonArray steps = unary.value(u"steps"_s).toArray();
        QCOMPARE(steps.first()[u"type"_s].toString(), u"thought"_s);
        QCOMPARE(steps.last()[u"content"_s][0][u"text"_s].toString(), expectedText(3));
        QCOMPARE(client.get(unary.value(u"id"_s).toString()).json()[u"steps"_s][0][u"type"_s].toString(),
                 u"user_input"_s);
        // store: false is not kept.
        const QJsonObject unstored
            = client.create(QJsonObject{{u"model"_s, kModel}, {u"input"_s, u"x"_s}, {u"store"_s, false}})
                  .json();
        QCOMPARE(client.get(unstored.value(u"id"_s).toString()).status, 404);
    }

    // Cancel ends an open stream with interaction.completed `cancelled`; a finished or
    // non-background interaction cannot be cancelled. Delete answers {} and then 404.
    void cancelAndDelete()
    {
        GeminiSimConfig config = fastConfig();
        config.intervalMs = 20;
        GeminiSimulator sim(config);
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        QNetworkReply *open = client.start("POST", u"/v1beta/interactions"_s,
                                           compactJson(QJsonObject{{u"model"_s, kModel},
                                                                   {u"input"_s, u"long"_s},
                                                                   {u"background"_s, true},
                                                                   {u"stream"_s, true}}));
        QTRY_VERIFY(!sim.lastInteractionId().isEmpty()
                    && sim.interaction(sim.lastInteractionId())->text.size() > 5);
        const QString id = sim.lastInteractionId();
        const Reply cancelled = client.send("POST", u"/v1beta/interactions/%1/cancel"_s.arg(id));
        QCOMPARE(cancelled.status, 200);
        QCOMPARE(cancelled.json().value(u"status"_s).toString(), u"cancelled"_s);
        const QList<Ev> events = parseSse(Client::finish(open).body);
        QCOMPARE(typesOf(events).mid(events.size() - 2),
                 (QList<QByteArray>{"interaction.completed", "done"}));
        QCOMPARE(events.at(events.size() - 2).json()[u"interaction"_s][u"status"_s].toString(),
                 u"cancelled"_s);
        const Reply again = client.send("POST", u"/v1beta/interactions/%1/cancel"_s.arg(id));
        QCOMPARE(again.status, 400);
        QCOMPARE(again.error().value(u"status"_s).toString(), u"FAILED_PRECONDITION"_s);
        const QString unary = client.create(QJsonObject{{u"model"_s, kModel}, {u"input"_s, u"deltas=1"_s}})
                                  .json()
                                  .value(u"id"_s)
                                  .toString();
        QCOMPARE(client.send("POST", u"/v1beta/interactions/%1/cancel"_s.arg(unary)).status, 400);

        const Reply deleted = client.send("DELETE", u"/v1beta/interactions/"_s + id);
        QCOMPARE(deleted.status, 200);
        QCOMPARE(deleted.body, QByteArray("{}"));
        const Reply gone = client.get(id);
        QCOMPARE(gone.status, 404);
        QCOMPARE(gone.error().value(u"status"_s).toString(), u"NOT_FOUND"_s);
        QCOMPARE(client.send("DELETE", u"/v1beta/interactions/"_s + id).status, 404);
        // A running one: its stream ends.
        QNetworkReply *running = client.start("POST", u"/v1beta/interactions"_s,
                                              compactJson(QJsonObject{{u"model"_s, kModel},
                                                                      {u"input"_s, u"long"_s},
                                                                      {u"background"_s, true},
                                                                      {u"stream"_s, true}}));
        QTRY_VERIFY(sim.lastInteractionId() != id && sim.activeStreamCount() == 1);
        QCOMPARE(client.send("DELETE", u"/v1beta/interactions/"_s + sim.lastInteractionId()).status, 200);
        QVERIFY(!typesOf(parseSse(Client::finish(running).body)).contains("interaction.completed"));
    }

    // requires_action, then a new interaction answering every call by previous_interaction_id; a
    // text follow-up afterwards is a new turn.
    void functionCallContinuation()
    {
        GeminiSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const QJsonArray tools{QJsonObject{{u"type"_s, u"function"_s}, {u"name"_s, u"search_docs"_s}}};
        const QList<Ev> first
            = client.stream(u"tool_call calls=2 deltas=2"_s, QJsonObject{{u"tools"_s, tools}});
        const QString id = idOf(first);
        QCOMPARE(first.at(first.size() - 2).json()[u"interaction"_s][u"status"_s].toString(),
                 u"requires_action"_s);
        const QList<GeminiSimCall> calls = sim.interaction(id)->calls;
        QCOMPARE(calls.size(), 2);
        QCOMPARE(calls.at(1).name, u"search_docs"_s);
        const QJsonArray steps = client.get(id).json().value(u"steps"_s).toArray();
        QCOMPARE(steps.last()[u"arguments"_s].toObject(), (QJsonObject{{u"query"_s, u"q2"_s}}));
        QCOMPARE(steps.last()[u"id"_s].toString(), calls.at(1).id);

        const auto result = [](const GeminiSimCall &call, const QJsonValue &value) {
            return QJsonObject{
                {u"type"_s, u"function_result"_s}, {u"call_id"_s, call.id}, {u"result"_s, value}};
        };
        const auto answer = [&](const QJsonArray &input) {
            return client.create(QJsonObject{{u"model"_s, kModel},
                                             {u"previous_interaction_id"_s, id},
                                             {u"input"_s, input},
                                             {u"background"_s, true}});
        };
        QCOMPARE(answer(QJsonArray{result(calls.at(0), u"1"_s)}).status, 400);
        const GeminiSimCall stranger{u"call_x"_s, u"x"_s};
        QCOMPARE(answer(QJsonArray{result(calls.at(0), u"1"_s), result(stranger, u"2"_s)}).status, 400);
        const Reply next = answer(QJsonArray{
            result(calls.at(0), QJsonObject{{u"temp"_s, 18}}),
            result(calls.at(1), QJsonArray{QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, u"found"_s}}})});
        QCOMPARE(next.status, 200);
        const QString nextId = next.json().value(u"id"_s).toString();
        QVERIFY(nextId != id);
        QVERIFY(waitEnded(sim, nextId));
        const QString prefix = u"[%1: {\"temp\":18}] [%2: found] "_s.arg(calls.at(0).id, calls.at(1).id);
        QCOMPARE(sim.interaction(nextId)->text, expectedText(2, prefix));
        const QJsonObject stored = client.get(nextId).json();
        QCOMPARE(stored.value(u"previous_interaction_id"_s).toString(), id);
        QCOMPARE(stored[u"steps"_s][0][u"type"_s].toString(), u"function_result"_s);
        // A follow-up text is a turn of its own.
        const QList<Ev> followUp
            = client.stream(u"incomplete deltas=1"_s, QJsonObject{{u"previous_interaction_id"_s, nextId}});
        QCOMPARE(followUp.at(followUp.size() - 2).json()[u"interaction"_s][u"status"_s].toString(),
                 u"incomplete"_s);
        QCOMPARE(textOf(followUp), expectedText(1));
        QCOMPARE(client
                     .create(QJsonObject{{u"model"_s, kModel},
                                         {u"input"_s, u"x"_s},
                                         {u"previous_interaction_id"_s, u"v1_none"_s}})
                     .status,
                 404);
    }

    // Agents run in the background only; their run: thoughts with summaries, a search, the report
    // in two parts. The models and agents lists; refusals for unknown names.
    void agentsAndModels()
    {
        GeminiSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const Reply foreground = client.create(QJsonObject{{u"agent"_s, kAgent}, {u"input"_s, u"x"_s}});
        QCOMPARE(foreground.status, 400);
        QCOMPARE(foreground.error().value(u"code"_s).toInt(), 400);
        QCOMPARE(
            client
                .create(QJsonObject{{u"agent"_s, u"nobody"_s}, {u"input"_s, u"x"_s}, {u"background"_s, true}})
                .status,
            404);
        QCOMPARE(client.create(QJsonObject{{u"model"_s, u"gemini-0"_s}, {u"input"_s, u"x"_s}}).status, 404);
        QCOMPARE(client.create(QJsonObject{{u"model"_s, kModel}, {u"agent"_s, kAgent}, {u"input"_s, u"x"_s}})
                     .status,
                 400);
        const QJsonObject config{{u"type"_s, u"deep-research"_s}, {u"thinking_summaries"_s, u"auto"_s}};
        const QList<Ev> events = client.stream(
            u"Battery recycling deltas=6"_s, QJsonObject{{u"agent"_s, kAgent}, {u"agent_config"_s, config}});
        const QJsonObject created = events.first().json().value(u"interaction"_s).toObject();
        QCOMPARE(created.value(u"agent"_s).toString(), kAgent);
        QCOMPARE(created.value(u"agent_config"_s).toObject(), config);
        QCOMPARE(textOf(events), expectedText(6));
        const QString id = idOf(events);
        QCOMPARE(sim.interaction(id)->outputTexts,
                 (QStringList{expectedText(3), expectedText(6).mid(expectedText(3).size())}));
        QStringList types;
        for (const QJsonValue &step : client.get(id).json().value(u"steps"_s).toArray())
            types.append(step[u"type"_s].toString());
        QCOMPARE(types, (QStringList{u"user_input"_s, u"thought"_s, u"google_search_call"_s,
                                     u"google_search_result"_s, u"model_output"_s, u"thought"_s,
                                     u"model_output"_s}));

        const QJsonArray models = client.send("GET", u"/v1beta/models"_s).json().value(u"models"_s).toArray();
        QCOMPARE(models.size(), 2);
        QCOMPARE(models.first()[u"name"_s].toString(), u"models/"_s + kModel);
        QCOMPARE(client.send("GET", u"/v1/models/"_s + kModel).json().value(u"name"_s).toString(),
                 u"models/"_s + kModel);
        QCOMPARE(client.send("GET", u"/v1beta/agents"_s).json()[u"agents"_s][0][u"id"_s].toString(), kAgent);
    }

    // The service's cut: an error event gateway_timeout and [DONE] after N deltas on every stream,
    // while the interaction goes on; resuming after each cut gives the whole text.
    void gatewayTimeoutCuts()
    {
        GeminiSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        QList<Ev> events = client.stream(u"deltas=10 cut_after=4"_s);
        const QString id = idOf(events);
        QCOMPARE(typesOf(events).mid(events.size() - 2), (QList<QByteArray>{"error", "done"}));
        QCOMPARE(events.at(events.size() - 2).json()[u"error"_s][u"code"_s].toString(), u"gateway_timeout"_s);
        QString text = textOf(events);
        QString last = lastIdOf(events);
        int cuts = 1;
        for (int i = 0; i < 10 && !typesOf(events).contains("interaction.completed"); ++i) {
            events = client.resume(id, last);
            text += textOf(events);
            last = lastIdOf(events, last);
            cuts += typesOf(events).contains("error") ? 1 : 0;
        }
        QCOMPARE(cuts, 2); // 11 deltas (a signature and 10 texts), 4 per stream
        QCOMPARE(text, expectedText(10));
        QCOMPARE(sim.interaction(id)->status, u"completed"_s);
    }

    // A connection lost after every event boundary in turn (each drop mode): the resume from the
    // last event id gives the same text.
    void dropsAtEveryBoundary()
    {
        GeminiSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const int total = int(client.stream(u"deltas=3"_s).size());
        for (const QString &mode : {u"close"_s, u"reset"_s, u"mid"_s}) {
            for (int k = 1; k < total; ++k) {
                const QList<Ev> cut = client.stream(
                    u"deltas=3 fault_connections=1 drop_mode=%1 drop_after=%2"_s.arg(mode).arg(k));
                QVERIFY2(cut.size() <= k, qPrintable(u"%1 %2"_s.arg(mode).arg(k)));
                // A reset may lose what was in flight, the first event included.
                const QString id = sim.lastInteractionId();
                QVERIFY(waitEnded(sim, id));
                const QList<Ev> rest = client.resume(id, lastIdOf(cut));
                QCOMPARE(typesOf(rest).last(), QByteArray("done"));
                QCOMPARE(textOf(cut) + textOf(rest), expectedText(3));
            }
        }
    }

    // CRLF line endings, events in 5-byte pieces, a broken JSON event at a log index.
    void framing()
    {
        GeminiSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const Reply crlf = client.create(QJsonObject{{u"model"_s, kModel},
                                                     {u"input"_s, u"deltas=4 line_ending=crlf split=5"_s},
                                                     {u"background"_s, true},
                                                     {u"stream"_s, true}});
        QVERIFY(crlf.body.contains("event: step.delta\r\ndata: {"));
        QVERIFY(!QByteArray(crlf.body).replace("\r\n", "").contains('\n'));
        QCOMPARE(textOf(parseSse(crlf.body)), expectedText(4));
        const QList<Ev> broken = client.stream(u"deltas=2 malformed_at=3 fault_connections=1"_s);
        QJsonParseError error{};
        QJsonDocument::fromJson(broken.at(3).data, &error);
        QVERIFY(error.error != QJsonParseError::NoError);
        QCOMPARE(textOf(client.resume(idOf(broken))), expectedText(2)); // the next connection is whole
    }

    // A failure: an `error` event internal, interaction.completed failed, errors in the stored one.
    void failure()
    {
        GeminiSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const QList<Ev> events = client.stream(u"fail deltas=6 fail_after=2"_s);
        QCOMPARE(typesOf(events).mid(events.size() - 3),
                 (QList<QByteArray>{"error", "interaction.completed", "done"}));
        QCOMPARE(events.at(events.size() - 3).json()[u"error"_s][u"code"_s].toString(), u"internal"_s);
        QCOMPARE(textOf(events), expectedText(2));
        const QJsonObject stored = client.get(idOf(events)).json();
        QCOMPARE(stored.value(u"status"_s).toString(), u"failed"_s);
        QCOMPARE(stored[u"errors"_s][0][u"code"_s].toString(), u"internal"_s);
    }

    // The key in x-goog-api-key or ?key=; injected HTTP faults with Google's bodies and Retry-After;
    // bad options and paths.
    void authAndFaults()
    {
        GeminiSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        const Reply none = Client(sim.baseUrl(), {}).send("GET", u"/v1beta/models"_s);
        QCOMPARE(none.status, 403);
        QCOMPARE(none.error().value(u"status"_s).toString(), u"PERMISSION_DENIED"_s);
        const Reply wrong = Client(sim.baseUrl(), "nope").send("GET", u"/v1beta/models"_s);
        QCOMPARE(wrong.status, 400);
        QCOMPARE(wrong.error()[u"details"_s][0][u"reason"_s].toString(), u"API_KEY_INVALID"_s);
        QCOMPARE(Client(sim.baseUrl(), {}).send("GET", u"/v1beta/models?key=sim-key"_s).status, 200);

        Client client(sim.baseUrl());
        sim.addHttpFault(*geminiHttpFaultFromSpec(u"status=429,count=1,on=create,retry-after=3"));
        const Reply limited = client.create(QJsonObject{{u"model"_s, kModel}, {u"input"_s, u"x"_s}});
        QCOMPARE(limited.status, 429);
        QCOMPARE(limited.header("retry-after"), QByteArray("3"));
        QCOMPARE(limited.error().value(u"status"_s).toString(), u"RESOURCE_EXHAUSTED"_s);
        QCOMPARE(sim.interactionsCreated(), 0);
        sim.addHttpFault(*geminiHttpFaultFromSpec(u"status=503,on=models,body=html"));
        QVERIFY(client.send("GET", u"/v1beta/models"_s).header("content-type").startsWith("text/html"));
        QVERIFY(sim.requests().last().faulted);

        const QList<Ev> events = client.stream(u"deltas=1 http_error_status=500 http_error_on=get"_s);
        QCOMPARE(client.get(idOf(events)).status, 500);
        QCOMPARE(client.get(idOf(events)).status, 200);
        QCOMPARE(client.create(QJsonObject{{u"model"_s, kModel}, {u"input"_s, u"deltas=many"_s}}).status,
                 400);
        QCOMPARE(client.create(QJsonObject{{u"model"_s, kModel}}).status, 400);
        QCOMPARE(client.send("GET", u"/v2/interactions/x"_s).status, 404);
        QCOMPARE(sim.requests().last().endpoint, GeminiEndpoint::Unknown);
    }

    // A finished interaction is forgotten expires_ms after its end: a late answer finds nothing.
    void expiry()
    {
        GeminiSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const QString id = idOf(client.stream(u"tool_call expires_ms=1000"_s));
        QCOMPARE(client.get(id).status, 200);
        const QJsonObject answer{{u"type"_s, u"function_result"_s},
                                 {u"call_id"_s, sim.interaction(id)->calls.first().id},
                                 {u"result"_s, u"late"_s}};
        QTest::qWait(1100);
        QCOMPARE(client
                     .create(QJsonObject{{u"model"_s, kModel},
                                         {u"previous_interaction_id"_s, id},
                                         {u"input"_s, QJsonArray{answer}}})
                     .status,
                 404);
        QCOMPARE(client.get(id).status, 404);
    }

    void commandLine()
    {
        const CommandLineResult r = parseCommandLine(
            {u"runwatch-sim"_s, u"--gemini"_s, u"--key"_s, u"k"_s, u"--model"_s, u"m1"_s, u"--gemini-agent"_s,
             u"a1"_s, u"--gemini-cut-after"_s, u"9"_s, u"--gemini-split"_s, u"3"_s, u"--line-ending"_s,
             u"crlf"_s, u"--gemini-fault"_s, u"status=503,on=stream"_s, u"--drop-after"_s, u"4"_s});
        QCOMPARE(int(r.action), int(CommandLineResult::Action::Run));
        QVERIFY(r.options.gemini);
        const GeminiSimConfig &c = r.options.geminiConfig;
        QCOMPARE(c.apiKey, u"k"_s);
        QCOMPARE(c.modelIds, QStringList{u"m1"_s});
        QCOMPARE(c.agentIds, QStringList{u"a1"_s});
        QCOMPARE(c.cutAfterDeltas, 9);
        QCOMPARE(c.splitWrites, 3);
        QCOMPARE(c.lineEnding, QByteArray("\r\n"));
        QCOMPARE(c.streamFaults.dropAfterEvents, 4);
        QVERIFY(c.httpFaults.first().aimsAt(GeminiEndpoint::Stream));
        QVERIFY(!c.httpFaults.first().aimsAt(GeminiEndpoint::Get));
        QCOMPARE(int(parseCommandLine({u"runwatch-sim"_s, u"--gemini-fault"_s, u"on=nowhere"_s}).action),
                 int(CommandLineResult::Action::Error));
        QCOMPARE(int(parseCommandLine({u"runwatch-sim"_s, u"--gemini"_s, u"--openai"_s}).action),
                 int(CommandLineResult::Action::Error));
        QVERIFY(parseCommandLine({u"runwatch-sim"_s, u"--help"_s}).message.contains(u"--gemini"_s));
    }
};

QTEST_GUILESS_MAIN(TestGeminiSim)
#include "tst_gemini_sim.moc"
