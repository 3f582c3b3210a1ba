// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The OpenAI Responses background-mode simulator on loopback, for tests, the GUI's demo mode
// (in-process) and runwatch-sim. See openaisimconfig.h for scenarios, per-response options and
// fault injection.
//
// Endpoints (base URL …/v1; "/openai/v1/…" is accepted as an alias for Azure-style clients, and
// "/api/projects/<project>/openai/v1/…" for an Azure AI Foundry project):
//   POST   /v1/responses                     create (JSON or SSE when stream:true); a Foundry
//                                            agent_reference and conversation are accepted
//   GET    /v1/responses/{id}                snapshot; ?stream=true[&starting_after=N] → SSE replay+tail
//   POST   /v1/responses/{id}/cancel         §1.5 semantics
//   DELETE /v1/responses/{id}                {"id","object":"response","deleted":true}
//   GET    /v1/responses/{id}/input_items    list
//   GET    /v1/models                        list (for "test connection")
//   POST   /v1/conversations                 {items?, metadata?} → conversation
//   GET    /v1/conversations/{id}            conversation; DELETE → conversation.deleted
//   GET    /v1/conversations/{id}/items      list page (order, limit, after, before)
//   GET    /api/projects/<project>/agents?api-version=v1   the project's prompt agents, paged
// Every answer carries x-request-id. Connections are persistent (HTTP/1.1 keep-alive) unless the
// client asks otherwise; SSE bodies use chunked transfer coding and end after the terminal event
// (OpenAiSimConfig::closeDelimitedStreams: no chunking, the body ends by closing the connection).
// The routes and the inspection API are in openaisim.cpp, the endpoints in openaisimendpoints.cpp,
// the Foundry project (agents, agent_reference, conversations) in openaisimfoundry.cpp.

#include "openaisimoptions.h"
#include "server/requestlog.h"
#include "server/simserver.h"

#include <QByteArray>
#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QPointer>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QUrl>
#include <QUrlQuery>

#include <optional>

namespace RunwatchSim {

class OpenAiSimRun;
class OpenAiSimStream;
struct OpenAiCreateParams;
struct OpenAiRunOptions;

// One request as received, for assertions in tests.
struct OpenAiRequestRecord : RequestRecord
{
    OpenAiEndpoint endpoint = OpenAiEndpoint::Unknown;
    QString responseId;     // for /v1/responses/{id}…, else empty
    QString conversationId; // for /v1/conversations/{id}…, else empty
    QByteArray requestId;   // the x-request-id we answered with
};

// A response as the simulator sees it.
struct OpenAiResponseInfo
{
    QString id;
    QString status; // queued, in_progress, completed, failed, incomplete, cancelled
    OpenAiScenario scenario = OpenAiScenario::Normal;
    bool background = false;
    bool stream = false;
    bool store = true;
    bool ended = false; // no further event will come
    QString model;
    QString conversationId; // empty when not in a conversation
    QString agentName;      // the agent_reference, when the response runs an agent
    QString agentVersion;   // its resolved version
    QJsonObject metadata;
    QString text;          // output_text so far (all message output_text parts)
    QString reasoningText; // reasoning summary text so far
    QString functionArguments;
    qint64 eventCount = 0;
    qint64 lastSequenceNumber = -1;
    QList<QByteArray> eventTypes; // in sequence order
    int streamConnections = 0;    // SSE connections opened on this response, create included
    int remainingSteps = 0;       // generator steps still to run
};

class OpenAiSimulator final : public SimServer
{
    Q_OBJECT

public:
    // The protocol it speaks, by the name of the connector that speaks it (demo mode finds it so).
    static constexpr QLatin1StringView kProtocol{"openai"};

    explicit OpenAiSimulator(QObject *parent = nullptr);
    explicit OpenAiSimulator(const OpenAiSimConfig &config, QObject *parent = nullptr);
    ~OpenAiSimulator() override;

    // Listening, port and baseUrl() (http://127.0.0.1:PORT/v1) come from SimServer.
    // The Foundry project endpoint http://127.0.0.1:PORT/api/projects/<project> (what
    // AIProjectClient takes), and its OpenAI base URL, that endpoint + "/openai/v1".
    QUrl foundryProjectUrl() const;
    QUrl foundryBaseUrl() const;

    // Configuration. Changes apply to responses created afterwards (HTTP faults and auth at once);
    // setConfig() and clearFaults() restart the HTTP fault counters.
    const OpenAiSimConfig &config() const { return m_config; }
    void setConfig(const OpenAiSimConfig &config);
    void setApiKey(const QString &key);
    void setIntervalMs(int ms);
    void setDeltas(int deltas);
    void setManualAdvance(bool manual);
    void setResumeMaxAgeMs(qint64 ms);
    void setStreamFaults(const StreamFaults &faults);
    void addHttpFault(const OpenAiHttpFault &fault);
    void clearFaults();

    // Counters.
    int requestCount() const;
    int requestCount(QByteArrayView method, QStringView path) const;
    int requestCount(OpenAiEndpoint endpoint) const;
    QList<OpenAiRequestRecord> requests() const;
    int runsCreated() const { return m_runsCreated; }
    int streamConnectionsOpened() const { return m_streamConnections; }
    int activeStreamCount() const;
    QList<qint64> startingAfterValues() const { return m_startingAfterValues; }
    void resetCounters();

    // Inspection.
    QStringList responseIds() const;
    QString lastResponseId() const { return m_lastResponseId; }
    std::optional<OpenAiResponseInfo> response(const QString &id) const;
    QJsonObject snapshot(const QString &id) const;            // empty when unknown
    QList<QByteArray> eventPayloads(const QString &id) const; // JSON of every stored event
    bool wasDeleted(const QString &id) const { return m_deleted.contains(id); }
    QStringList conversationIds() const { return m_conversationOrder; }

    // Control of a response's generator (needed with manualAdvance / metadata manual=1).
    int advance(const QString &id, int steps = 1);
    int advanceToEnd(const QString &id);
    void setPaused(const QString &id, bool paused);

    // Expected texts, so tests need not hard-code them.
    static QString tokenText(int deltas);   // "tok0 tok1 … tok<n-1> "
    static QString hugeDelta(qint64 bytes); // the big delta of the "huge" scenario
    static QString helpText();              // scenarios and per-response options

Q_SIGNALS:
    void requestReceived(const RunwatchSim::OpenAiRequestRecord &record);
    void requestAnswered(const RunwatchSim::OpenAiRequestRecord &record);
    void responseCreated(const QString &id);
    void responseStatusChanged(const QString &id, const QString &status);
    void eventGenerated(const QString &id, qint64 sequenceNumber, const QByteArray &type);
    void responseEnded(const QString &id);
    void streamOpened(const QString &id, int connectionIndex);
    void streamClosed(const QString &id);

private:
    struct Exchange
    {
        QPointer<HttpConnection> connection;
        QByteArray requestId;
        qint64 serial = 0;
    };
    // A conversation of the Foundry layout (also served on plain /v1, as OpenAI has them).
    struct Conversation
    {
        QString id;
        qint64 createdAt = 0;
        QJsonObject metadata;
        QJsonArray items;       // oldest first
        QString lastResponseId; // the response that last joined it
    };

    // openaisim.cpp: routes, replies, the run table.
    void route(HttpConnection *connection, const HttpRequest &request) override;
    bool authorised(const HttpRequest &request) const;
    OpenAiSimRun *findVisible(const QString &id) const;
    void sendFault(const Exchange &exchange, const OpenAiHttpFault &fault);
    void sendJson(const Exchange &exchange, int status, const QJsonObject &body);
    void sendError(const Exchange &exchange, int status, const QString &message,
                   const QString &type = QStringLiteral("invalid_request_error"),
                   const QJsonValue &param = QJsonValue(), const QJsonValue &code = QJsonValue());
    void sendInvalidType(const Exchange &exchange, const QString &param, const QString &expected,
                         const QJsonValue &got);
    // Checks a request's metadata (string values, OpenAI's limits); false when it answered 400.
    bool takeMetadata(const Exchange &exchange, const QJsonValue &metadata, QJsonObject *out);
    void recordStatus(const Exchange &exchange, int status, bool faulted = false);
    OpenAiSimRun *createRun(const QString &id, const OpenAiCreateParams &params,
                            const OpenAiRunOptions &options);
    void forgetRun(OpenAiSimRun *run);

    // openaisimendpoints.cpp
    void handleCreate(const Exchange &exchange, const HttpRequest &request);
    void handleStream(const Exchange &exchange, const HttpRequest &request, OpenAiSimRun *run);
    void openStream(const Exchange &exchange, OpenAiSimRun *run, qint64 startingAfter);
    void handleCancel(const Exchange &exchange, OpenAiSimRun *run);
    void handleDelete(const Exchange &exchange, OpenAiSimRun *run);
    void handleInputItems(const Exchange &exchange, OpenAiSimRun *run);
    void handleModels(const Exchange &exchange);

    // openaisimfoundry.cpp
    // The path a request addresses here: "/v1/…" for the Azure layout "/openai/v1/…" and for
    // the configured Foundry project's "/api/projects/<project>/openai/v1/…"; "/agents" for that
    // project's agents (*inProject set for both); empty for anything else in a project.
    QString localPath(const QString &path, bool *inProject) const;
    static OpenAiEndpoint conversationEndpoint(const QStringList &segments, const QByteArray &method);
    void handleAgents(const Exchange &exchange, const HttpRequest &request);
    void handleConversationCreate(const Exchange &exchange, const HttpRequest &request);
    void handleConversation(const Exchange &exchange, const HttpRequest &request, OpenAiEndpoint endpoint,
                            const QString &id);
    // {data, first_id, last_id, has_more} of a list endpoint from `ascending` (oldest first) and
    // the query's order, limit, after and before; nullopt when it answered 400.
    std::optional<QJsonObject> listPage(const Exchange &exchange, const QUrlQuery &query,
                                        const QJsonArray &ascending);
    // The Foundry parts of a create request; false when they answered it (an error). takeAgent
    // sets params->agentReference and params->model when an agent runs; takeConversation sets
    // params->conversation and *last to the conversation's last response, if it is still kept.
    bool takeAgent(const Exchange &exchange, const QJsonObject &body, OpenAiCreateParams *params);
    bool takeConversation(const Exchange &exchange, const QJsonObject &body, OpenAiCreateParams *params,
                          const OpenAiSimRun **last);
    // Appends the run's input items to its conversation now and its output items when it ends.
    void joinConversation(OpenAiSimRun *run);

    OpenAiSimConfig m_config;
    FaultList<OpenAiHttpFault> m_faults;
    QHash<QString, OpenAiSimRun *> m_runs;
    QStringList m_runOrder; // creation order, for maxStoredResponses
    QSet<QString> m_deleted;
    QHash<QByteArray, int> m_createFaultsServed; // per create body, for per-response faults
    QList<QPointer<OpenAiSimStream>> m_streams;
    RequestLog<OpenAiRequestRecord> m_log;
    QHash<QString, int> m_pathCounts; // "METHOD /path"
    QHash<OpenAiEndpoint, int> m_endpointCounts;
    int m_requestTotal = 0;
    int m_runsCreated = 0;
    int m_streamConnections = 0;
    QList<qint64> m_startingAfterValues;
    QString m_lastResponseId;
    QHash<QString, Conversation> m_conversations;
    QStringList m_conversationOrder; // creation order, for maxStoredResponses
    qint64 m_startedAt = 0;          // unix seconds; the agents were "created" before it
};

} // namespace RunwatchSim
