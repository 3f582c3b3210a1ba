// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// runwatch-sim: an OpenAI Responses background-mode server on loopback, for tests, the GUI's demo
// mode (in-process) and standalone use. See simconfig.h for scenarios, per-response options and
// fault injection.
//
// Endpoints (base URL …/v1; "/openai/v1/…" is accepted as an alias for Azure-style clients):
//   POST   /v1/responses                     create (JSON or SSE when stream:true)
//   GET    /v1/responses/{id}                snapshot; ?stream=true[&starting_after=N] → SSE replay+tail
//   POST   /v1/responses/{id}/cancel         §1.5 semantics
//   DELETE /v1/responses/{id}                {"id","object":"response","deleted":true}
//   GET    /v1/responses/{id}/input_items    list
//   GET    /v1/models                        list (for "test connection")
// Every answer carries x-request-id. Connections are persistent (HTTP/1.1 keep-alive) unless the
// client asks otherwise; SSE bodies use chunked transfer coding and end after the terminal event
// (SimulatorConfig::closeDelimitedStreams: no chunking, the body ends by closing the connection).
//
// Threading: the Simulator and everything it creates live in the thread that owns it. To keep it
// off the GUI thread, create it (and call listen()) in a worker thread.

#include "simconfig.h"

#include <QByteArray>
#include <QHash>
#include <QHostAddress>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QObject>
#include <QPair>
#include <QPointer>
#include <QSet>
#include <QString>
#include <QUrl>

#include <optional>

class QTcpServer;

namespace RunwatchSim {

class HttpConnection;
class SimRun;
class StreamSession;
struct CreateParams;
struct HttpRequest;
struct RunOptions;

// One request as received, for assertions in tests.
struct RequestRecord
{
    qint64 serial = 0; // 1, 2, … since the last resetCounters()
    QByteArray method;
    QString path;                                 // decoded, without query
    QString query;                                // raw query string, may be empty
    QList<QPair<QByteArray, QByteArray>> headers; // names lower-cased
    QByteArray body;
    Endpoint endpoint = Endpoint::Unknown;
    QString responseId;   // for /v1/responses/{id}…, else empty
    QByteArray requestId; // the x-request-id we answered with
    int status = 0;       // status we answered with; 0 while not answered yet
    bool faulted = false; // answered by an injected HTTP fault

    QByteArray header(QByteArrayView name) const;
};

// A response as the simulator sees it.
struct ResponseInfo
{
    QString id;
    QString status; // queued, in_progress, completed, failed, incomplete, cancelled
    Scenario scenario = Scenario::Normal;
    bool background = false;
    bool stream = false;
    bool store = true;
    bool ended = false; // no further event will come
    QString model;
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

class Simulator final : public QObject
{
    Q_OBJECT

public:
    explicit Simulator(QObject *parent = nullptr);
    explicit Simulator(const SimulatorConfig &config, QObject *parent = nullptr);
    ~Simulator() override;

    bool listen(const QHostAddress &address = QHostAddress::LocalHost, quint16 port = 0);
    void close();
    bool isListening() const;
    QString errorString() const;
    quint16 port() const;
    QHostAddress address() const;
    // http://127.0.0.1:PORT/v1
    QUrl baseUrl() const;

    // Configuration. Changes apply to responses created afterwards (HTTP faults and auth at once);
    // setConfig() and clearFaults() restart the HTTP fault counters.
    const SimulatorConfig &config() const { return m_config; }
    void setConfig(const SimulatorConfig &config);
    void setApiKey(const QString &key);
    void setIntervalMs(int ms);
    void setDeltas(int deltas);
    void setManualAdvance(bool manual);
    void setResumeMaxAgeMs(qint64 ms);
    void setStreamFaults(const StreamFaults &faults);
    void addHttpFault(const HttpFault &fault);
    void clearFaults();

    // Counters.
    int requestCount() const;
    int requestCount(QByteArrayView method, QStringView path) const;
    int requestCount(Endpoint endpoint) const;
    QList<RequestRecord> requests() const;
    int runsCreated() const { return m_runsCreated; }
    int streamConnectionsOpened() const { return m_streamConnections; }
    int activeStreamCount() const;
    int rejectedRequestCount() const { return m_rejectedRequests; } // unparseable/oversized
    QList<qint64> startingAfterValues() const { return m_startingAfterValues; }
    void resetCounters();

    // Inspection.
    QStringList responseIds() const;
    QString lastResponseId() const { return m_lastResponseId; }
    std::optional<ResponseInfo> response(const QString &id) const;
    QJsonObject snapshot(const QString &id) const;            // empty when unknown
    QList<QByteArray> eventPayloads(const QString &id) const; // JSON of every stored event
    bool wasDeleted(const QString &id) const { return m_deleted.contains(id); }

    // Control of a response's generator (needed with manualAdvance / metadata manual=1).
    int advance(const QString &id, int steps = 1);
    int advanceToEnd(const QString &id);
    void setPaused(const QString &id, bool paused);

    // Expected texts, so tests need not hard-code them.
    static QString tokenText(int deltas);   // "tok0 tok1 … tok<n-1> "
    static QString hugeDelta(qint64 bytes); // the big delta of the "huge" scenario
    static QString helpText();              // scenarios and per-response options

Q_SIGNALS:
    void requestReceived(const RunwatchSim::RequestRecord &record);
    void requestAnswered(const RunwatchSim::RequestRecord &record);
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
    struct FaultState
    {
        HttpFault fault;
        int served = 0;
    };

    void onNewConnection();
    void handleRequest(HttpConnection *connection, const HttpRequest &request);
    void handleCreate(const Exchange &exchange, const HttpRequest &request);
    void handleRetrieve(const Exchange &exchange, SimRun *run);
    void handleStream(const Exchange &exchange, const HttpRequest &request, SimRun *run);
    void handleCancel(const Exchange &exchange, SimRun *run);
    void handleDelete(const Exchange &exchange, SimRun *run);
    void handleInputItems(const Exchange &exchange, SimRun *run);
    void handleModels(const Exchange &exchange);

    bool authorised(const HttpRequest &request) const;
    SimRun *findVisible(const QString &id) const;
    void sendFault(const Exchange &exchange, const HttpFault &fault);
    void sendJson(const Exchange &exchange, int status, const QJsonObject &body);
    void sendError(const Exchange &exchange, int status, const QString &message,
                   const QString &type = QStringLiteral("invalid_request_error"),
                   const QJsonValue &param = QJsonValue(), const QJsonValue &code = QJsonValue(),
                   const QList<QPair<QByteArray, QByteArray>> &extraHeaders = {});
    void sendNotFound(const Exchange &exchange, const QString &id);
    void openStream(const Exchange &exchange, SimRun *run, qint64 startingAfter);
    void recordStatus(const Exchange &exchange, int status, bool faulted = false);
    RequestRecord *recordFor(qint64 serial);
    SimRun *createRun(const QString &id, const CreateParams &params, const RunOptions &options);
    void forgetRun(SimRun *run);

    SimulatorConfig m_config;
    QTcpServer *m_server = nullptr;
    QList<FaultState> m_faults;
    QHash<QString, SimRun *> m_runs;
    QStringList m_runOrder; // creation order, for maxStoredResponses
    QSet<QString> m_deleted;
    QHash<QByteArray, int> m_createFaultsServed; // per create body, for per-response faults
    QList<QPointer<StreamSession>> m_sessions;
    QList<RequestRecord> m_records;
    QHash<QString, int> m_pathCounts; // "METHOD /path"
    QHash<Endpoint, int> m_endpointCounts;
    int m_requestTotal = 0;
    qint64 m_firstSerial = 1;
    qint64 m_nextSerial = 1;
    int m_runsCreated = 0;
    int m_streamConnections = 0;
    int m_rejectedRequests = 0;
    int m_openConnections = 0;
    QList<qint64> m_startingAfterValues;
    QString m_lastResponseId;
};

} // namespace RunwatchSim
