// SPDX-License-Identifier: GPL-3.0-or-later
// The OpenAI simulator's server side: configuration, counters and inspection, routing, replies and
// injected HTTP faults, and the table of responses. The endpoints are in openaisimendpoints.cpp.
#include "openaisim.h"

#include "openaisimrun.h"
#include "openaisimstream.h"
#include "server/httpconnection.h"

#include <QDateTime>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

bool isTrue(const QString &value)
{
    return value.compare("true"_L1, Qt::CaseInsensitive) == 0 || value == "1"_L1;
}

} // namespace

OpenAiSimulator::OpenAiSimulator(QObject *parent)
    : OpenAiSimulator(OpenAiSimConfig(), parent)
{}

OpenAiSimulator::OpenAiSimulator(const OpenAiSimConfig &config, QObject *parent)
    : SimServer(parent)
{
    setBasePath(u"/v1"_s);
    setConfig(config);
    m_startedAt = QDateTime::currentSecsSinceEpoch();
}

OpenAiSimulator::~OpenAiSimulator() = default;

void OpenAiSimulator::setConfig(const OpenAiSimConfig &config)
{
    m_config = config;
    setLimits(config);
    m_faults.reset(config.httpFaults);
    m_createFaultsServed.clear();
}

void OpenAiSimulator::setApiKey(const QString &key)
{
    m_config.apiKey = key;
}

void OpenAiSimulator::setIntervalMs(int ms)
{
    m_config.intervalMs = ms;
}

void OpenAiSimulator::setDeltas(int deltas)
{
    m_config.deltas = deltas;
}

void OpenAiSimulator::setManualAdvance(bool manual)
{
    m_config.manualAdvance = manual;
}

void OpenAiSimulator::setResumeMaxAgeMs(qint64 ms)
{
    m_config.resumeMaxAgeMs = ms;
}

void OpenAiSimulator::setStreamFaults(const StreamFaults &faults)
{
    m_config.streamFaults = faults;
}

void OpenAiSimulator::addHttpFault(const OpenAiHttpFault &fault)
{
    m_config.httpFaults.append(fault);
    m_faults.append(fault);
}

void OpenAiSimulator::clearFaults()
{
    m_config.httpFaults.clear();
    m_config.streamFaults = StreamFaults();
    m_faults.clear();
    m_createFaultsServed.clear();
}

int OpenAiSimulator::requestCount() const
{
    return m_requestTotal;
}

int OpenAiSimulator::requestCount(QByteArrayView method, QStringView path) const
{
    return m_pathCounts.value(QString::fromLatin1(method) + u' ' + path);
}

int OpenAiSimulator::requestCount(OpenAiEndpoint endpoint) const
{
    return m_endpointCounts.value(endpoint);
}

QList<OpenAiRequestRecord> OpenAiSimulator::requests() const
{
    return m_log.records();
}

int OpenAiSimulator::activeStreamCount() const
{
    int count = 0;
    for (const auto &stream : m_streams) {
        if (stream)
            ++count;
    }
    return count;
}

void OpenAiSimulator::resetCounters()
{
    m_log.clear();
    m_pathCounts.clear();
    m_endpointCounts.clear();
    m_requestTotal = 0;
    m_runsCreated = 0;
    m_streamConnections = 0;
    resetRejectedRequestCount();
    m_startingAfterValues.clear();
}

QStringList OpenAiSimulator::responseIds() const
{
    return m_runs.keys();
}

std::optional<OpenAiResponseInfo> OpenAiSimulator::response(const QString &id) const
{
    const OpenAiSimRun *run = m_runs.value(id);
    if (!run)
        return std::nullopt;
    OpenAiResponseInfo info;
    info.id = id;
    info.status = run->statusName();
    info.scenario = run->options().scenario;
    info.background = run->params().background;
    info.stream = run->params().stream;
    info.store = run->params().store;
    info.ended = run->hasEnded();
    info.model = run->params().model;
    info.conversationId = run->params().conversation["id"_L1].toString();
    info.agentName = run->params().agentReference["name"_L1].toString();
    info.agentVersion = run->params().agentReference["version"_L1].toString();
    info.metadata = run->params().metadata;
    info.text = run->outputText();
    info.reasoningText = run->reasoningText();
    info.functionArguments = run->functionArguments();
    info.eventCount = run->events().size();
    info.lastSequenceNumber = info.eventCount - 1;
    for (const OpenAiSimEvent &event : run->events())
        info.eventTypes.append(event.type);
    info.streamConnections = run->streamConnections();
    info.remainingSteps = run->remainingSteps();
    return info;
}

QJsonObject OpenAiSimulator::snapshot(const QString &id) const
{
    const OpenAiSimRun *run = m_runs.value(id);
    return run ? run->snapshot() : QJsonObject();
}

QList<QByteArray> OpenAiSimulator::eventPayloads(const QString &id) const
{
    QList<QByteArray> payloads;
    if (const OpenAiSimRun *run = m_runs.value(id)) {
        for (const OpenAiSimEvent &event : run->events())
            payloads.append(event.data);
    }
    return payloads;
}

int OpenAiSimulator::advance(const QString &id, int steps)
{
    OpenAiSimRun *run = m_runs.value(id);
    return run ? run->advance(steps) : 0;
}

int OpenAiSimulator::advanceToEnd(const QString &id)
{
    OpenAiSimRun *run = m_runs.value(id);
    return run ? run->advance(run->remainingSteps()) : 0;
}

void OpenAiSimulator::setPaused(const QString &id, bool paused)
{
    if (OpenAiSimRun *run = m_runs.value(id))
        run->setPaused(paused);
}

QString OpenAiSimulator::tokenText(int deltas)
{
    QString text;
    for (int i = 0; i < deltas; ++i)
        text += tokenDelta(i);
    return text;
}

QString OpenAiSimulator::hugeDelta(qint64 bytes)
{
    return hugeText(bytes);
}

QString OpenAiSimulator::helpText()
{
    return openAiOptionsHelpText();
}

void OpenAiSimulator::recordStatus(const Exchange &exchange, int status, bool faulted)
{
    if (OpenAiRequestRecord *record = m_log.find(exchange.serial)) {
        record->status = status;
        record->faulted = faulted;
        Q_EMIT requestAnswered(*record);
    }
}

void OpenAiSimulator::route(HttpConnection *connection, const HttpRequest &request)
{
    bool inProject = false;
    const QStringList segments = localPath(request.path, &inProject).split(u'/', Qt::SkipEmptyParts);
    const QByteArray &method = request.method;
    OpenAiEndpoint endpoint = OpenAiEndpoint::Unknown;
    QString id;
    QString conversationId;
    if (inProject && segments == QStringList{u"agents"_s}) {
        if (method == "GET")
            endpoint = OpenAiEndpoint::Agents;
    } else if (segments.value(0) == "v1"_L1 && segments.value(1) == "conversations"_L1) {
        endpoint = conversationEndpoint(segments, method);
        conversationId = segments.value(2);
    } else if (segments.value(0) == "v1"_L1) {
        const QString resource = segments.value(1);
        if (segments.size() == 2 && resource == "responses"_L1 && method == "POST") {
            endpoint = OpenAiEndpoint::Create;
        } else if (segments.size() == 2 && resource == "models"_L1 && method == "GET") {
            endpoint = OpenAiEndpoint::Models;
        } else if (segments.size() == 3 && resource == "responses"_L1) {
            id = segments.at(2);
            if (method == "GET") {
                endpoint = isTrue(request.query.queryItemValue(u"stream"_s)) ? OpenAiEndpoint::Stream
                                                                             : OpenAiEndpoint::Retrieve;
            } else if (method == "DELETE") {
                endpoint = OpenAiEndpoint::Delete;
            }
        } else if (segments.size() == 4 && resource == "responses"_L1) {
            id = segments.at(2);
            if (segments.at(3) == "cancel"_L1 && method == "POST") {
                endpoint = OpenAiEndpoint::Cancel;
            } else if (segments.at(3) == "input_items"_L1 && method == "GET") {
                endpoint = OpenAiEndpoint::InputItems;
            }
        }
    }
    if (endpoint == OpenAiEndpoint::Unknown) {
        id.clear();
        conversationId.clear();
    }

    OpenAiRequestRecord record;
    record.setRequest(request);
    record.endpoint = endpoint;
    record.responseId = id;
    record.conversationId = conversationId;
    record.requestId = newRequestId();
    const Exchange exchange{connection, record.requestId, m_log.append(record)};
    ++m_requestTotal;
    ++m_pathCounts[QString::fromLatin1(method) + u' ' + request.path];
    ++m_endpointCounts[endpoint];
    if (endpoint == OpenAiEndpoint::Stream && request.query.hasQueryItem(u"starting_after"_s)) {
        bool ok = false;
        const qint64 after = request.query.queryItemValue(u"starting_after"_s).toLongLong(&ok);
        if (ok)
            m_startingAfterValues.append(after);
    }
    const OpenAiRequestRecord received = *m_log.find(exchange.serial); // a slot may log more
    Q_EMIT requestReceived(received);

    if (!authorised(request)) {
        const bool provided = request.hasHeader("authorization") || request.hasHeader("api-key");
        if (provided) {
            sendError(exchange, 401,
                      u"Incorrect API key provided. You can find your API key in the simulator's "
                      u"--key option."_s,
                      u"invalid_request_error"_s, QJsonValue(), u"invalid_api_key"_s);
        } else {
            sendError(exchange, 401,
                      u"You didn't provide an API key. You need to provide your API key in an "
                      u"Authorization header using Bearer auth (i.e. Authorization: Bearer "
                      u"YOUR_KEY)."_s);
        }
        return;
    }

    if (const OpenAiHttpFault *fault
        = m_faults.take([endpoint](const OpenAiHttpFault &f) { return f.aimsAt(endpoint); })) {
        sendFault(exchange, *fault);
        return;
    }

    OpenAiSimRun *run = nullptr;
    if (!id.isEmpty()) {
        run = findVisible(id);
        if (!run) {
            sendError(exchange, 404, u"Response with id '%1' not found."_s.arg(id));
            return;
        }
        if (run->takeHttpFault(endpoint)) {
            sendFault(exchange, *run->options().httpFault);
            return;
        }
    }

    switch (endpoint) {
    case OpenAiEndpoint::Create:
        handleCreate(exchange, request);
        break;
    case OpenAiEndpoint::Retrieve:
        sendJson(exchange, 200, run->snapshot());
        break;
    case OpenAiEndpoint::Stream:
        handleStream(exchange, request, run);
        break;
    case OpenAiEndpoint::Cancel:
        handleCancel(exchange, run);
        break;
    case OpenAiEndpoint::Delete:
        handleDelete(exchange, run);
        break;
    case OpenAiEndpoint::InputItems:
        handleInputItems(exchange, run);
        break;
    case OpenAiEndpoint::Models:
        handleModels(exchange);
        break;
    case OpenAiEndpoint::Agents:
        handleAgents(exchange, request);
        break;
    case OpenAiEndpoint::ConversationCreate:
        handleConversationCreate(exchange, request);
        break;
    case OpenAiEndpoint::ConversationGet:
    case OpenAiEndpoint::ConversationDelete:
    case OpenAiEndpoint::ConversationItems:
        handleConversation(exchange, request, endpoint, conversationId);
        break;
    case OpenAiEndpoint::Unknown:
        sendError(exchange, 404, u"Invalid URL (%1 %2)"_s.arg(QString::fromLatin1(method), request.path));
        break;
    }
}

bool OpenAiSimulator::authorised(const HttpRequest &request) const
{
    if (m_config.apiKey.isEmpty())
        return true;
    const QByteArray key = m_config.apiKey.toUtf8();
    const QByteArray authorization = request.header("authorization");
    if (authorization.size() > 7 && authorization.left(7).compare("bearer ", Qt::CaseInsensitive) == 0
        && authorization.mid(7).trimmed() == key)
        return true;
    return request.header("api-key") == key;
}

OpenAiSimRun *OpenAiSimulator::findVisible(const QString &id) const
{
    OpenAiSimRun *run = m_runs.value(id);
    // A foreground response cannot be retrieved while it is in flight (protocol §1.4).
    if (run && !run->params().background && !run->hasEnded())
        return nullptr;
    return run;
}

void OpenAiSimulator::sendJson(const Exchange &exchange, int status, const QJsonObject &body)
{
    if (!exchange.connection)
        return;
    RunwatchSim::sendJson(exchange.connection, status, body,
                          {{QByteArrayLiteral("x-request-id"), exchange.requestId},
                           {QByteArrayLiteral("openai-processing-ms"), QByteArrayLiteral("1")}});
    recordStatus(exchange, status);
}

void OpenAiSimulator::sendError(const Exchange &exchange, int status, const QString &message,
                                const QString &type, const QJsonValue &param, const QJsonValue &code)
{
    if (!exchange.connection)
        return;
    const QJsonObject error{
        {u"message"_s, message},
        {u"type"_s, type},
        {u"param"_s, param.isUndefined() ? QJsonValue() : param},
        {u"code"_s, code.isUndefined() ? QJsonValue() : code},
    };
    RunwatchSim::sendJson(exchange.connection, status, QJsonObject{{u"error"_s, error}},
                          {{QByteArrayLiteral("x-request-id"), exchange.requestId}});
    recordStatus(exchange, status);
}

void OpenAiSimulator::sendFault(const Exchange &exchange, const OpenAiHttpFault &fault)
{
    if (!exchange.connection)
        return;
    HeaderList headers{{QByteArrayLiteral("x-request-id"), exchange.requestId}};
    if (fault.retryAfterSeconds >= 0)
        headers.append({QByteArrayLiteral("Retry-After"), QByteArray::number(fault.retryAfterSeconds)});
    if (fault.retryAfterMs >= 0)
        headers.append({QByteArrayLiteral("retry-after-ms"), QByteArray::number(fault.retryAfterMs)});
    QByteArray body;
    switch (fault.body) {
    case OpenAiFaultBody::Error: {
        QString message;
        QString type;
        QJsonValue code;
        if (fault.status == 429) {
            message = u"Rate limit reached for requests (simulated by runwatch-sim)."_s;
            type = u"requests"_s;
            code = u"rate_limit_exceeded"_s;
        } else if (fault.status == 503) {
            message = u"The server is overloaded or not ready yet."_s;
            type = u"server_error"_s;
        } else if (fault.status >= 500) {
            message = u"The server had an error while processing your request. Sorry about that!"_s;
            type = u"server_error"_s;
        } else {
            message = u"Simulated HTTP %1 error."_s.arg(fault.status);
            type = u"invalid_request_error"_s;
        }
        const QJsonObject error{
            {u"message"_s, message}, {u"type"_s, type}, {u"param"_s, QJsonValue()}, {u"code"_s, code}};
        body = compactJson(QJsonObject{{u"error"_s, error}});
        headers.append({QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/json")});
        break;
    }
    case OpenAiFaultBody::Html: {
        const QByteArray title = QByteArray::number(fault.status) + ' ' + reasonPhrase(fault.status);
        body = "<!DOCTYPE html>\n<html><head><title>" + title + "</title></head>\n<body><h1>" + title
               + "</h1><p>Injected by runwatch-sim.</p></body></html>\n";
        headers.append({QByteArrayLiteral("Content-Type"), QByteArrayLiteral("text/html; charset=utf-8")});
        break;
    }
    case OpenAiFaultBody::Empty:
        break;
    }
    // Content-Type goes last here, as it always did.
    exchange.connection->sendResponse(fault.status, headers, body);
    recordStatus(exchange, fault.status, true);
}

OpenAiSimRun *OpenAiSimulator::createRun(const QString &id, const OpenAiCreateParams &params,
                                         const OpenAiRunOptions &options)
{
    // A standalone server runs for days: finished responses beyond the cap expire (404), the
    // way the real service forgets them after its retention window.
    for (qsizetype i = 0; i < m_runOrder.size() && m_runs.size() >= m_config.maxStoredResponses;) {
        OpenAiSimRun *old = m_runs.value(m_runOrder.at(i));
        if (old && old->hasEnded()) {
            forgetRun(old);
        } else {
            ++i;
        }
    }
    auto *run = new OpenAiSimRun(id, params, options, this);
    m_runs.insert(id, run);
    m_runOrder.append(id);
    ++m_runsCreated;
    m_lastResponseId = id;
    connect(run, &OpenAiSimRun::statusChanged, this,
            [this, id](const QString &status) { Q_EMIT responseStatusChanged(id, status); });
    connect(run, &OpenAiSimRun::eventAdded, this,
            [this, id](qint64 seq, const QByteArray &type) { Q_EMIT eventGenerated(id, seq, type); });
    connect(run, &OpenAiSimRun::ended, this, [this, id] { Q_EMIT responseEnded(id); });
    Q_EMIT responseCreated(id);
    return run;
}

void OpenAiSimulator::forgetRun(OpenAiSimRun *run)
{
    m_runs.remove(run->id());
    m_runOrder.removeOne(run->id());
    run->setPaused(true);
    run->deleteLater(); // may be inside one of its own signals
}

} // namespace RunwatchSim
