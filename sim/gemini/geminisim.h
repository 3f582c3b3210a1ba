// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The Gemini Interactions API simulator on loopback, for tests and `runwatch-sim --gemini`.
// Written from docs/protocols/foundry-agents-and-gemini.md §2, the transcripts in
// tests/data/gemini/ and the shipped code of the official client (@google/genai 3.3.0) only, never
// from a client of ours. Where the client decides a detail, the code says so ("the client: …").
//
// Endpoints (base URL http://127.0.0.1:PORT, the client's httpOptions.baseUrl; {v} is v1 — what
// the client sends by default — v1beta, as the REST reference, or v1alpha):
//   POST   /{v}/interactions {model | agent, input, background?, stream?, store?,
//                             previous_interaction_id?, tools?, agent_config?, …}
//          stream: SSE at once; background: the interaction (in_progress, no steps); neither: the
//          finished interaction (the model's steps only)
//   GET    /{v}/interactions/{id}[?include_input=true]        the stored interaction (input first)
//   GET    /{v}/interactions/{id}?stream=true[&last_event_id=E]  every event after E (all without)
//   POST   /{v}/interactions/{id}/cancel                      background and running only
//   DELETE /{v}/interactions/{id}                             → {}; 404 afterwards
//   GET    /{v}/models, /{v}/models/{m}, /{v}/agents          small lists for New Run
// With a key configured every request needs x-goog-api-key: K (or ?key=K): none → 403
// PERMISSION_DENIED, a wrong one → 400 INVALID_ARGUMENT (API_KEY_INVALID). Errors are Google's
// {"error":{"code","message","status"}}. Routes and inspection: geminisim.cpp; endpoints:
// geminisimendpoints.cpp; scenarios and options: geminisimoptions.h.

#include "geminisimrun.h"
#include "server/requestlog.h"
#include "server/simserver.h"

#include <QHash>
#include <QList>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <optional>

namespace RunwatchSim {

class GeminiSimStream;

struct GeminiRequestRecord : RequestRecord
{
    GeminiEndpoint endpoint = GeminiEndpoint::Unknown;
    QString apiVersion; // "v1", "v1beta", "v1alpha"
    QString interactionId;
};

// An interaction as the simulator sees it, for assertions.
struct GeminiInteractionInfo
{
    QString id;
    QString status;
    QString model;
    QString agent;
    QString previousId;
    bool background = false;
    bool ended = false;
    QString text;            // every text delta, joined
    QStringList outputTexts; // per model_output step
    QList<GeminiSimCall> calls;
    QList<QByteArray> eventTypes;
    QStringList eventIds; // in log order; empty for id-less events
    int streamConnections = 0;
};

class GeminiSimulator final : public SimServer
{
    Q_OBJECT

public:
    // The protocol it speaks, by the name of the connector that speaks it (demo mode finds it so).
    static constexpr QLatin1StringView kProtocol{"gemini"};

    explicit GeminiSimulator(QObject *parent = nullptr);
    explicit GeminiSimulator(const GeminiSimConfig &config, QObject *parent = nullptr);
    ~GeminiSimulator() override;

    const GeminiSimConfig &config() const { return m_config; }
    // Applies to interactions created afterwards (auth and HTTP faults at once; fault counters restart).
    void setConfig(const GeminiSimConfig &config);
    void setIntervalMs(int ms);
    void setStreamFaults(const StreamFaults &faults);
    void addHttpFault(const GeminiHttpFault &fault);
    void clearFaults();

    // Counters and the request log.
    int requestCount() const { return m_requestTotal; }
    int requestCount(GeminiEndpoint endpoint) const { return m_endpointCounts.value(endpoint); }
    QList<GeminiRequestRecord> requests() const { return m_log.records(); }
    int interactionsCreated() const { return m_created; }
    int activeStreamCount() const;
    void resetCounters();

    // Inspection.
    QStringList interactionIds() const { return m_order; }
    QString lastInteractionId() const { return m_order.isEmpty() ? QString() : m_order.last(); }
    std::optional<GeminiInteractionInfo> interaction(const QString &id) const;
    QJsonObject interactionJson(const QString &id) const; // the stored copy; empty when unknown

    static QString helpText();

Q_SIGNALS:
    void requestReceived(const RunwatchSim::GeminiRequestRecord &record);
    void requestAnswered(const RunwatchSim::GeminiRequestRecord &record);
    void interactionCreated(const QString &id);
    void interactionStatusChanged(const QString &id, const QString &status);
    void eventGenerated(const QString &id, int index, const QByteArray &eventType);
    void interactionEnded(const QString &id);
    void streamOpened(const QString &id, int connectionIndex);
    void streamClosed(const QString &id, bool cutByService);

private:
    struct Exchange
    {
        QPointer<HttpConnection> connection;
        qint64 serial = 0;
    };

    // geminisim.cpp
    void route(HttpConnection *connection, const HttpRequest &request) override;
    // True when the request may pass; else the refusal (403 or 400) is sent.
    bool checkKey(const Exchange &exchange, const HttpRequest &request);
    void sendJson(const Exchange &exchange, int status, const QJsonObject &body,
                  const HeaderList &headers = {});
    void sendError(const Exchange &exchange, int status, const QString &message,
                   const QString &code = QString());
    void sendFault(const Exchange &exchange, const GeminiHttpFault &fault);
    void recordStatus(const Exchange &exchange, int status, bool faulted = false);
    // The interaction, or nullptr when unknown, deleted, not stored or expired (then forgotten).
    GeminiSimRun *findRun(const QString &id);
    GeminiSimRun *createRun(const GeminiRunParams &params, const GeminiRunOptions &options);
    void removeRun(GeminiSimRun *run);
    void forgetOldRuns();

    // geminisimendpoints.cpp
    void handleCreate(const Exchange &exchange, const HttpRequest &request, const QString &version);
    void handleGet(const Exchange &exchange, const HttpRequest &request, GeminiSimRun *run);
    void handleStream(const Exchange &exchange, const HttpRequest &request, GeminiSimRun *run);
    void handleCancel(const Exchange &exchange, GeminiSimRun *run);
    void handleDelete(const Exchange &exchange, GeminiSimRun *run);
    void handleModels(const Exchange &exchange, const QString &model);
    void handleAgents(const Exchange &exchange);
    void openStream(const Exchange &exchange, GeminiSimRun *run, qsizetype first);

    GeminiSimConfig m_config;
    FaultList<GeminiHttpFault> m_faults;
    QHash<QString, GeminiSimRun *> m_runs;
    QStringList m_order;
    QList<QPointer<GeminiSimStream>> m_streams;
    RequestLog<GeminiRequestRecord> m_log;
    QHash<GeminiEndpoint, int> m_endpointCounts;
    int m_requestTotal = 0;
    int m_created = 0;
};

} // namespace RunwatchSim
