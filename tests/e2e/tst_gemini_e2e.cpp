// SPDX-License-Identifier: GPL-3.0-or-later
// The Gemini connector (core/backends/gemini) and the engine against runwatch-sim's Interactions
// API simulator over loopback: streamed and polled runs with the simulator's text, a drop at every
// event boundary and the service's gateway_timeout cuts with the same text, a Deep Research agent
// with its agent_config and thinking summaries, function calls answered in the next interaction
// under the same local run, follow-ups by previous_interaction_id, cancel confirmed by the
// service, delete on the service, the service's failure and error messages, Retry-After on polls,
// and the key only in x-goog-api-key.
#include "awaitwithin.h"
#include "backends/gemini/geminibackend.h"
#include "enginerig.h"
#include "gemini/geminisim.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;
using RunwatchSim::GeminiEndpoint;
using RunwatchTest::waitTerminal;

namespace {

constexpr int kWait = RunwatchTest::kEngineWait;
const QString kKey = u"AIza-e2e-key-0001"_s;
const QString kModel = u"gemini-3-flash-preview"_s;

RunwatchSim::GeminiSimConfig simConfig()
{
    RunwatchSim::GeminiSimConfig config;
    config.apiKey = kKey;
    config.intervalMs = 1;
    return config;
}

struct Rig : RunwatchTest::ServerRig<RunwatchSim::GeminiSimulator>
{
    explicit Rig(const QString &key = kKey)
        : RunwatchTest::ServerRig<RunwatchSim::GeminiSimulator>(simConfig())
    {
        QVERIFY(sim.listen());
        Connection c = RunwatchTest::plainConnection(u"gemini"_s, u"gemini"_s, sim.baseUrl());
        c.auth = AuthStyle::Header;
        c.authHeader = u"x-goog-api-key"_s;
        c.apiKey = key;
        QVERIFY(addConnection(c));
        model = kModel;
    }
    QString startOn(const QString &agent, const QString &prompt, bool stream = true)
    {
        StartRequest r;
        r.agent = agent;
        r.prompt = prompt;
        r.stream = stream;
        return manager.startRun(connectionName, r);
    }
    // The answer the simulator wrote for `interactionId`: its output steps' texts, as the
    // interaction's text joins them.
    QString textOf(const QString &interactionId) const
    {
        const auto info = sim.interaction(interactionId);
        if (!info)
            return u"<unknown interaction %1>"_s.arg(interactionId);
        QStringList texts = info->outputTexts;
        texts.removeAll(QString());
        return texts.join(u"\n\n"_s);
    }
    QList<QJsonObject> creates() const
    {
        QList<QJsonObject> bodies;
        for (const RunwatchSim::GeminiRequestRecord &r : sim.requests()) {
            if (r.endpoint == GeminiEndpoint::Create)
                bodies << QJsonDocument::fromJson(r.body).object();
        }
        return bodies;
    }
    int count(GeminiEndpoint endpoint) const { return sim.requestCount(endpoint); }
};

} // namespace

class TestGeminiEndToEnd final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void streamedRun()
    {
        Rig rig;
        const QString id = rig.start(u"normal deltas=24"_s);
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QVERIFY(!run.primaryText.isEmpty());
        QCOMPARE(run.primaryText, rig.textOf(run.remoteId));
        QCOMPARE(run.reconciliations, 0);
        QVERIFY(run.usage.outputTokens > 0);
        QCOMPARE(rig.count(GeminiEndpoint::Get), 0);
        const QJsonObject body = rig.creates().constFirst();
        QCOMPARE(body.value(u"model"_s).toString(), kModel);
        QVERIFY(body.value(u"background"_s).toBool() && body.value(u"stream"_s).toBool());
        // The key went in x-goog-api-key on every request, never as a bearer token or in the URL.
        for (const RunwatchSim::GeminiRequestRecord &r : rig.sim.requests()) {
            QCOMPARE(r.header("x-goog-api-key"), kKey.toUtf8());
            QVERIFY(r.header("authorization").isEmpty());
            QVERIFY(!r.query.contains(u"key="_s));
            QCOMPARE(r.apiVersion, u"v1beta"_s);
        }
    }

    void polledRun()
    {
        Rig rig;
        const QString id = rig.start(u"normal deltas=12 interval_ms=5"_s, false);
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.primaryText, rig.textOf(run.remoteId));
        QCOMPARE(rig.count(GeminiEndpoint::Stream), 0);
        QVERIFY(rig.count(GeminiEndpoint::Get) >= 1);
        QCOMPARE(rig.creates().constFirst().value(u"stream"_s).toBool(true), false);
    }

    // Polls wait for the service's Retry-After.
    void polledHonoursRetryAfter()
    {
        Rig rig;
        rig.sim.addHttpFault({.endpoints = {GeminiEndpoint::Get},
                              .count = 1,
                              .status = 429,
                              .retryAfterSeconds = 1,
                              .htmlBody = false});
        QElapsedTimer clock;
        QList<qint64> gets;
        QObject::connect(&rig.sim, &RunwatchSim::GeminiSimulator::requestReceived, &rig.sim,
                         [&](const RunwatchSim::GeminiRequestRecord &r) {
                             if (r.endpoint == GeminiEndpoint::Get)
                                 gets << clock.elapsed();
                         });
        clock.start();
        const QString id = rig.start(u"normal deltas=4"_s, false);
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QCOMPARE(rig.run(id).primaryText, rig.textOf(rig.run(id).remoteId));
        QVERIFY(gets.size() >= 2);
        QVERIFY2(gets.at(1) - gets.at(0) >= 950, qPrintable(QString::number(gets.at(1) - gets.at(0))));
    }

    // The first stream connection drops after each event in turn (and mid-event): the run resumes
    // by last_event_id and ends with the simulator's text, each event applied once.
    void dropAtEveryEventBoundary()
    {
        Rig clean;
        const QString reference = clean.start(u"think deltas=6"_s);
        QVERIFY(waitTerminal(clean.manager, reference, kWait));
        const auto info = clean.sim.interaction(clean.run(reference).remoteId);
        QVERIFY(info);
        const qsizetype events = info->eventTypes.size();
        QVERIFY(events > 10);
        const QStringList modes{u"close"_s, u"mid"_s};
        int resumed = 0;
        for (const QString &mode : modes) {
            for (qsizetype k = 1; k < events; ++k) {
                Rig rig;
                const QString id = rig.start(
                    u"think deltas=6 fault_connections=1 drop_after=%1 drop_mode=%2"_s.arg(k).arg(mode));
                QVERIFY2(waitTerminal(rig.manager, id, kWait),
                         qPrintable(u"drop after %1 (%2)"_s.arg(k).arg(mode)));
                const Run &run = rig.run(id);
                QVERIFY2(run.status == RunStatus::Completed,
                         qPrintable(u"drop after %1 (%2): %3 %4"_s.arg(k).arg(mode, statusName(run.status),
                                                                              run.error.toString())));
                QCOMPARE(run.primaryText, rig.textOf(run.remoteId));
                QCOMPARE(run.primaryText, clean.run(reference).primaryText);
                QCOMPARE(run.reconciliations, 0);
                // The search call and the thought are there once each, as without the drop.
                QCOMPARE(run.secondary.size(), clean.run(reference).secondary.size());
                // Dropped before its end: the stream was resumed (interaction.completed is the
                // last event before [DONE]).
                if (k < events - 1) {
                    QVERIFY2(rig.sim.interaction(run.remoteId)->streamConnections >= 2,
                             qPrintable(QString::number(k)));
                }
                resumed += rig.count(GeminiEndpoint::Stream);
            }
        }
        QVERIFY(resumed >= 2 * (events - 2));
    }

    // Retryable trouble never abandons a live run: a 429 on the create is sent again after the
    // service's Retry-After (it was refused before it ran), 503s on the resume are retried, and
    // the run ends with the simulator's text.
    void retryableTroubleIsRetried()
    {
        Rig rig;
        rig.sim.addHttpFault({.endpoints = {GeminiEndpoint::Create},
                              .count = 1,
                              .status = 429,
                              .retryAfterSeconds = 1,
                              .htmlBody = false});
        rig.sim.addHttpFault({.endpoints = {GeminiEndpoint::Stream},
                              .count = 2,
                              .status = 503,
                              .retryAfterSeconds = -1,
                              .htmlBody = true});
        const QString id = rig.start(u"normal deltas=12 fault_connections=1 drop_after=6"_s);
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QVERIFY(!run.error.isError());
        QCOMPARE(run.primaryText, rig.textOf(run.remoteId));
        QCOMPARE(rig.sim.interactionsCreated(), 1);
        QCOMPARE(rig.count(GeminiEndpoint::Create), 2);
        QVERIFY(rig.count(GeminiEndpoint::Stream) >= 3);
        // A resume the service refuses outright (400) is followed by polling instead.
        Rig refused;
        refused.sim.addHttpFault({.endpoints = {GeminiEndpoint::Stream},
                                  .count = -1,
                                  .status = 400,
                                  .retryAfterSeconds = -1,
                                  .htmlBody = false});
        const QString polled
            = refused.start(u"normal deltas=12 interval_ms=5 fault_connections=1 drop_after=6"_s);
        QVERIFY(waitTerminal(refused.manager, polled, kWait));
        QCOMPARE(refused.run(polled).status, RunStatus::Completed);
        QCOMPARE(refused.run(polled).primaryText, refused.textOf(refused.run(polled).remoteId));
        QVERIFY(refused.count(GeminiEndpoint::Get) >= 1);
    }

    // The service cuts long streams (error gateway_timeout, then [DONE]) while the interaction goes
    // on: resumed each time, never a failure.
    void gatewayTimeoutCuts()
    {
        Rig rig;
        const QString id = rig.start(u"normal deltas=30 cut_after=4"_s);
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QVERIFY(!run.error.isError());
        QCOMPARE(run.primaryText, rig.textOf(run.remoteId));
        QVERIFY(rig.sim.interaction(run.remoteId)->streamConnections >= 5);
        // Every resume names the last event id it had.
        int resumes = 0;
        for (const RunwatchSim::GeminiRequestRecord &r : rig.sim.requests()) {
            if (r.endpoint == GeminiEndpoint::Stream) {
                ++resumes;
                QVERIFY2(r.query.contains(u"last_event_id="_s), qPrintable(r.query));
            }
        }
        QVERIFY(resumes >= 4);
    }

    // Deep Research: an agent, in the background, with its agent_config; its thinking summaries and
    // search are secondary output, the report the answer.
    void deepResearchAgent()
    {
        Rig rig;
        const QString id = rig.startOn(Gemini::kDeepResearchAgent, u"research deltas=16"_s);
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.primaryText, rig.textOf(run.remoteId));
        QVERIFY(run.primaryText.contains(u"\n\n"_s)); // two output steps
        QCOMPARE(run.model, Gemini::kDeepResearchAgent);
        const QJsonObject body = rig.creates().constFirst();
        QCOMPARE(body.value(u"agent"_s).toString(), Gemini::kDeepResearchAgent);
        QVERIFY(!body.contains(u"model"_s));
        QCOMPARE(body.value(u"agent_config"_s).toObject().value(u"type"_s).toString(), u"deep-research"_s);
        QVERIFY(body.value(u"background"_s).toBool());
        const auto reasoning
            = std::count_if(run.secondary.cbegin(), run.secondary.cend(), [](const SecondaryItem &i) {
                  return i.kind == SecondaryKind::Reasoning && !i.text.isEmpty();
              });
        const auto tools
            = std::count_if(run.secondary.cbegin(), run.secondary.cend(),
                            [](const SecondaryItem &i) { return i.kind == SecondaryKind::ToolCall; });
        QCOMPARE(reasoning, 2);
        QVERIFY(tools >= 1);
        QCOMPARE(run.token.extra.value(Gemini::kAgent).toString(), Gemini::kDeepResearchAgent);
    }

    // requires_action: the answer is a new interaction (previous_interaction_id + function_result),
    // followed as the same local run to the end.
    void functionCallsAnsweredInTheNextInteraction()
    {
        Rig rig;
        const QString id = rig.start(u"tool_call calls=2 deltas=5"_s);
        QVERIFY(RunwatchTest::waitInput(rig.manager, id, kWait));
        const Run waiting = rig.run(id);
        QCOMPARE(waiting.input->toolCalls.size(), 2);
        const QString first = waiting.remoteId;
        InputAnswer answer;
        answer.toolAnswers = {{waiting.input->toolCalls.at(0).id, u"18 C"_s, false},
                              {waiting.input->toolCalls.at(1).id, u"14:05"_s, false}};
        const ActionResult sent = RunwatchTest::respondAndWait(rig.manager, id, answer);
        QVERIFY2(sent.ok(), qPrintable(sent.error.toString()));
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(rig.manager.runIds().size(), 1);
        QVERIFY(run.remoteId != first);
        QCOMPARE(run.token.previousRemoteIds, QStringList{first});
        QCOMPARE(run.primaryText, rig.textOf(first) + rig.textOf(run.remoteId));
        QVERIFY(run.primaryText.startsWith(u"[%1: 18 C] [%2: 14:05] "_s.arg(
            answer.toolAnswers.at(0).callId, answer.toolAnswers.at(1).callId)));
        const QJsonObject next = rig.creates().constLast();
        QCOMPARE(next.value(u"previous_interaction_id"_s).toString(), first);
        QCOMPARE(next.value(u"model"_s).toString(), kModel);
        const QJsonArray input = next.value(u"input"_s).toArray();
        QCOMPARE(input.size(), 2);
        QCOMPARE(input.at(1).toObject().value(u"type"_s).toString(), u"function_result"_s);
        QCOMPARE(input.at(1).toObject().value(u"result"_s).toString(), u"14:05"_s);
        // The continuation was followed by its stream, as the run was.
        QVERIFY(rig.sim.interaction(run.remoteId)->streamConnections >= 1);
    }

    void followUpByPreviousInteraction()
    {
        Rig rig;
        const QString parent = rig.start(u"normal deltas=3"_s);
        QVERIFY(waitTerminal(rig.manager, parent, kWait));
        QString why;
        const QString child = rig.manager.followUp(parent, u"normal deltas=7"_s, &why);
        QVERIFY2(!child.isEmpty(), qPrintable(why));
        QVERIFY(waitTerminal(rig.manager, child, kWait));
        const Run &run = rig.run(child);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.parentId, parent);
        QCOMPARE(run.primaryText, rig.textOf(run.remoteId));
        const QJsonObject body = rig.creates().constLast();
        QCOMPARE(body.value(u"previous_interaction_id"_s).toString(), rig.run(parent).remoteId);
        QCOMPARE(body.value(u"model"_s).toString(), kModel);
        QCOMPARE(body.value(u"input"_s).toString(), u"normal deltas=7"_s);
    }

    void cancelConfirmedByTheService()
    {
        Rig rig;
        const QString id = rig.start(u"long interval_ms=10"_s);
        QVERIFY(RunwatchTest::waitFor([&] { return rig.run(id).primaryText.size() > 20; }));
        const ActionResult result = RunwatchTest::cancelAndWait(rig.manager, id);
        QVERIFY2(result.ok(), qPrintable(result.error.toString()));
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        QCOMPARE(rig.run(id).status, RunStatus::Cancelled);
        QCOMPARE(rig.sim.interaction(rig.run(id).remoteId)->status, u"cancelled"_s);
        QCOMPARE(rig.count(GeminiEndpoint::Cancel), 1);
    }

    void deleteOnTheService()
    {
        Rig rig;
        const QString id = rig.start(u"tool_call calls=1"_s);
        QVERIFY(RunwatchTest::waitInput(rig.manager, id, kWait));
        InputAnswer answer;
        answer.toolAnswers = {{rig.run(id).input->toolCalls.at(0).id, u"ok"_s, false}};
        QVERIFY(RunwatchTest::respondAndWait(rig.manager, id, answer).ok());
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const QStringList interactions = rig.sim.interactionIds();
        QCOMPARE(interactions.size(), 2);
        const ActionResult deleted = RunwatchTest::deleteAndWait(rig.manager, id, true);
        QVERIFY2(deleted.ok(), qPrintable(deleted.error.toString()));
        QVERIFY(!rig.manager.run(id));
        // Both interactions of the run are gone from the service.
        for (const QString &interaction : interactions)
            QVERIFY(!rig.sim.interaction(interaction));
        QCOMPARE(rig.count(GeminiEndpoint::Delete), 2);
    }

    void failureWithTheServicesMessage()
    {
        Rig rig;
        const QString id = rig.start(u"fail deltas=6 fail_after=3"_s);
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Failed);
        QCOMPARE(run.error.message, u"An internal error has occurred. Please retry."_s);
        QCOMPARE(run.error.code, u"internal"_s);
        QVERIFY(!run.primaryText.isEmpty()); // what it wrote before stays
    }

    void wrongKeyIsTheServicesError()
    {
        Rig rig(u"AIza-wrong"_s);
        const QString id = rig.start(u"normal"_s);
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Failed);
        QCOMPARE(run.error.code, u"INVALID_ARGUMENT"_s);
        QVERIFY2(run.error.message.contains(u"API key not valid"_s), qPrintable(run.error.message));
        QVERIFY(!run.error.message.contains(u"AIza-wrong"_s));
    }

    void catalogFromTheService()
    {
        Rig rig;
        RunBackend *backend = rig.manager.backend(rig.connectionName);
        QVERIFY(backend && backend->capabilities().testFlag(Capability::Catalog));
        const std::optional<CatalogResult> listed = RunwatchTest::awaitWithin(backend->catalog());
        QVERIFY(listed);
        QVERIFY2(!listed->error.isError(), qPrintable(listed->error.toString()));
        QStringList ids;
        for (const CatalogEntry &e : listed->entries)
            ids << e.id;
        QCOMPARE(ids.constFirst(), u"models/"_s + kModel);
        QVERIFY(ids.contains(u"models/gemini-3-pro-preview"_s));
        QVERIFY(ids.contains(Gemini::kDeepResearchAgent));
        QCOMPARE(ids.count(Gemini::kDeepResearchAgent), 1);
        // A model picked from the list runs as that model.
        StartRequest r;
        r.agent = u"models/gemini-3-pro-preview"_s;
        r.prompt = u"normal deltas=2"_s;
        const QString id = rig.manager.startRun(rig.connectionName, r);
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QCOMPARE(rig.creates().constLast().value(u"model"_s).toString(), u"gemini-3-pro-preview"_s);
    }
};

QTEST_GUILESS_MAIN(TestGeminiEndToEnd)
#include "tst_gemini_e2e.moc"
