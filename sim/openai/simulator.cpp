// SPDX-License-Identifier: GPL-3.0-or-later
#include "simulator.h"

#include "simhttp.h"
#include "simrun.h"
#include "simstream.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QTcpServer>
#include <QTcpSocket>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

constexpr qsizetype kMaxRecords = 20000;
constexpr int kMaxMetadataKeys = 16;
constexpr int kMaxMetadataKeyLength = 64;
constexpr int kMaxMetadataValueLength = 512;

QString jsonTypeName(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Null:
        return u"null"_s;
    case QJsonValue::Bool:
        return u"a boolean"_s;
    case QJsonValue::Double:
        return value.toDouble() == double(value.toInteger()) ? u"an integer"_s : u"a number"_s;
    case QJsonValue::String:
        return u"a string"_s;
    case QJsonValue::Array:
        return u"an array"_s;
    case QJsonValue::Object:
        return u"an object"_s;
    case QJsonValue::Undefined:
        break;
    }
    return u"nothing"_s;
}

QString randomHex(int bytes)
{
    QByteArray raw(bytes, Qt::Uninitialized);
    for (char &c : raw) {
        c = char(QRandomGenerator::global()->bounded(256));
    }
    return QString::fromLatin1(raw.toHex());
}

bool isTrue(const QString &value)
{
    return value.compare("true"_L1, Qt::CaseInsensitive) == 0 || value == "1"_L1;
}

} // namespace

QByteArray RequestRecord::header(QByteArrayView name) const
{
    const QByteArray lower = name.toByteArray().toLower();
    for (const auto &[key, value] : headers) {
        if (key == lower) {
            return value;
        }
    }
    return QByteArray();
}

Simulator::Simulator(QObject *parent)
    : Simulator(SimulatorConfig(), parent)
{}

Simulator::Simulator(const SimulatorConfig &config, QObject *parent)
    : QObject(parent)
    , m_server(new QTcpServer(this))
{
    setConfig(config);
    connect(m_server, &QTcpServer::newConnection, this, &Simulator::onNewConnection);
}

Simulator::~Simulator()
{
    m_server->close();
}

bool Simulator::listen(const QHostAddress &address, quint16 port)
{
    return m_server->listen(address, port);
}

void Simulator::close()
{
    m_server->close();
}

bool Simulator::isListening() const
{
    return m_server->isListening();
}

QString Simulator::errorString() const
{
    return m_server->errorString();
}

quint16 Simulator::port() const
{
    return m_server->serverPort();
}

QHostAddress Simulator::address() const
{
    return m_server->serverAddress();
}

QUrl Simulator::baseUrl() const
{
    QHostAddress host = m_server->serverAddress();
    if (host == QHostAddress::Any || host == QHostAddress::AnyIPv4 || host.isNull()) {
        host = QHostAddress(QHostAddress::LocalHost);
    } else if (host == QHostAddress::AnyIPv6) {
        host = QHostAddress(QHostAddress::LocalHostIPv6);
    }
    QUrl url;
    url.setScheme(u"http"_s);
    url.setHost(host.toString());
    url.setPort(port());
    url.setPath(u"/v1"_s);
    return url;
}

void Simulator::setConfig(const SimulatorConfig &config)
{
    m_config = config;
    m_faults.clear();
    for (const HttpFault &fault : config.httpFaults) {
        m_faults.append(FaultState{fault, 0});
    }
    m_createFaultsServed.clear();
}

void Simulator::setApiKey(const QString &key)
{
    m_config.apiKey = key;
}

void Simulator::setIntervalMs(int ms)
{
    m_config.intervalMs = ms;
}

void Simulator::setDeltas(int deltas)
{
    m_config.deltas = deltas;
}

void Simulator::setManualAdvance(bool manual)
{
    m_config.manualAdvance = manual;
}

void Simulator::setResumeMaxAgeMs(qint64 ms)
{
    m_config.resumeMaxAgeMs = ms;
}

void Simulator::setStreamFaults(const StreamFaults &faults)
{
    m_config.streamFaults = faults;
}

void Simulator::addHttpFault(const HttpFault &fault)
{
    m_config.httpFaults.append(fault);
    m_faults.append(FaultState{fault, 0});
}

void Simulator::clearFaults()
{
    m_config.httpFaults.clear();
    m_config.streamFaults = StreamFaults();
    m_faults.clear();
    m_createFaultsServed.clear();
}

int Simulator::requestCount() const
{
    return m_requestTotal;
}

int Simulator::requestCount(QByteArrayView method, QStringView path) const
{
    return m_pathCounts.value(QString::fromLatin1(method) + u' ' + path);
}

int Simulator::requestCount(Endpoint endpoint) const
{
    return m_endpointCounts.value(endpoint);
}

QList<RequestRecord> Simulator::requests() const
{
    return m_records;
}

int Simulator::activeStreamCount() const
{
    int count = 0;
    for (const auto &session : m_sessions) {
        if (session) {
            ++count;
        }
    }
    return count;
}

void Simulator::resetCounters()
{
    m_records.clear();
    m_firstSerial = m_nextSerial;
    m_pathCounts.clear();
    m_endpointCounts.clear();
    m_requestTotal = 0;
    m_runsCreated = 0;
    m_streamConnections = 0;
    m_rejectedRequests = 0;
    m_startingAfterValues.clear();
}

QStringList Simulator::responseIds() const
{
    return m_runs.keys();
}

std::optional<ResponseInfo> Simulator::response(const QString &id) const
{
    const SimRun *run = m_runs.value(id);
    if (!run) {
        return std::nullopt;
    }
    ResponseInfo info;
    info.id = id;
    info.status = run->statusName();
    info.scenario = run->options().scenario;
    info.background = run->params().background;
    info.stream = run->params().stream;
    info.store = run->params().store;
    info.ended = run->hasEnded();
    info.model = run->params().model;
    info.metadata = run->params().metadata;
    info.text = run->outputText();
    info.reasoningText = run->reasoningText();
    info.functionArguments = run->functionArguments();
    info.eventCount = run->events().size();
    info.lastSequenceNumber = info.eventCount - 1;
    for (const SimEvent &event : run->events()) {
        info.eventTypes.append(event.type);
    }
    info.streamConnections = run->streamConnections();
    info.remainingSteps = run->remainingSteps();
    return info;
}

QJsonObject Simulator::snapshot(const QString &id) const
{
    const SimRun *run = m_runs.value(id);
    return run ? run->snapshot() : QJsonObject();
}

QList<QByteArray> Simulator::eventPayloads(const QString &id) const
{
    QList<QByteArray> payloads;
    if (const SimRun *run = m_runs.value(id)) {
        for (const SimEvent &event : run->events()) {
            payloads.append(event.data);
        }
    }
    return payloads;
}

int Simulator::advance(const QString &id, int steps)
{
    SimRun *run = m_runs.value(id);
    return run ? run->advance(steps) : 0;
}

int Simulator::advanceToEnd(const QString &id)
{
    SimRun *run = m_runs.value(id);
    return run ? run->advance(run->remainingSteps()) : 0;
}

void Simulator::setPaused(const QString &id, bool paused)
{
    if (SimRun *run = m_runs.value(id)) {
        run->setPaused(paused);
    }
}

QString Simulator::tokenText(int deltas)
{
    QString text;
    for (int i = 0; i < deltas; ++i) {
        text += tokenDelta(i);
    }
    return text;
}

QString Simulator::hugeDelta(qint64 bytes)
{
    return hugeText(bytes);
}

QString Simulator::helpText()
{
    return optionsHelpText();
}

void Simulator::onNewConnection()
{
    while (m_server->hasPendingConnections()) {
        QTcpSocket *socket = m_server->nextPendingConnection();
        if (m_openConnections >= m_config.maxConnections) {
            socket->abort();
            socket->deleteLater();
            continue;
        }
        HttpLimits limits;
        limits.maxHeaderBytes = m_config.maxHeaderBytes;
        limits.maxBodyBytes = m_config.maxBodyBytes;
        limits.requestTimeoutMs = m_config.requestTimeoutMs;
        limits.keepAlive = m_config.keepAlive;
        limits.keepAliveIdleMs = m_config.keepAliveIdleMs;
        limits.closeDelimitedStreams = m_config.closeDelimitedStreams;
        auto *connection = new HttpConnection(socket, limits, this);
        ++m_openConnections;
        connect(connection, &HttpConnection::closed, this, [this] { --m_openConnections; });
        connect(connection, &HttpConnection::requestRejected, this, [this] { ++m_rejectedRequests; });
        connect(connection, &HttpConnection::requestReceived, this, &Simulator::handleRequest);
    }
}

RequestRecord *Simulator::recordFor(qint64 serial)
{
    const qint64 index = serial - m_firstSerial;
    if (index < 0 || index >= m_records.size()) {
        return nullptr;
    }
    return &m_records[index];
}

void Simulator::recordStatus(const Exchange &exchange, int status, bool faulted)
{
    if (RequestRecord *record = recordFor(exchange.serial)) {
        record->status = status;
        record->faulted = faulted;
        Q_EMIT requestAnswered(*record);
    }
}

void Simulator::handleRequest(HttpConnection *connection, const HttpRequest &request)
{
    const Exchange exchange{connection, newRequestId(), m_nextSerial++};

    QString path = request.path;
    if (path == "/openai/v1"_L1 || path.startsWith("/openai/v1/"_L1)) {
        path = path.mid(7); // Azure OpenAI v1 layout
    }
    while (path.size() > 1 && path.endsWith(u'/')) {
        path.chop(1);
    }
    const QStringList segments = path.split(u'/', Qt::SkipEmptyParts);
    const QByteArray &method = request.method;
    Endpoint endpoint = Endpoint::Unknown;
    QString id;
    if (segments.value(0) == "v1"_L1) {
        const QString resource = segments.value(1);
        if (segments.size() == 2 && resource == "responses"_L1 && method == "POST") {
            endpoint = Endpoint::Create;
        } else if (segments.size() == 2 && resource == "models"_L1 && method == "GET") {
            endpoint = Endpoint::Models;
        } else if (segments.size() == 3 && resource == "responses"_L1) {
            id = segments.at(2);
            if (method == "GET") {
                endpoint = isTrue(request.query.queryItemValue(u"stream"_s)) ? Endpoint::Stream
                                                                             : Endpoint::Retrieve;
            } else if (method == "DELETE") {
                endpoint = Endpoint::Delete;
            }
        } else if (segments.size() == 4 && resource == "responses"_L1) {
            id = segments.at(2);
            if (segments.at(3) == "cancel"_L1 && method == "POST") {
                endpoint = Endpoint::Cancel;
            } else if (segments.at(3) == "input_items"_L1 && method == "GET") {
                endpoint = Endpoint::InputItems;
            }
        }
    }
    if (endpoint == Endpoint::Unknown) {
        id.clear();
    }

    RequestRecord record;
    record.serial = exchange.serial;
    record.method = request.method;
    record.path = request.path;
    record.query = request.query.toString(QUrl::FullyEncoded);
    record.headers = request.headers;
    record.body = request.body;
    record.endpoint = endpoint;
    record.responseId = id;
    record.requestId = exchange.requestId;
    if (m_records.size() >= kMaxRecords) {
        // A standalone server runs for days: keep the newest half.
        m_records.remove(0, kMaxRecords / 2);
        m_firstSerial += kMaxRecords / 2;
    }
    m_records.append(record);
    ++m_requestTotal;
    ++m_pathCounts[QString::fromLatin1(method) + u' ' + request.path];
    ++m_endpointCounts[endpoint];
    if (endpoint == Endpoint::Stream && request.query.hasQueryItem(u"starting_after"_s)) {
        bool ok = false;
        const qint64 after = request.query.queryItemValue(u"starting_after"_s).toLongLong(&ok);
        if (ok) {
            m_startingAfterValues.append(after);
        }
    }
    Q_EMIT requestReceived(record);

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

    for (FaultState &state : m_faults) {
        const HttpFault &fault = state.fault;
        if ((fault.endpoints.isEmpty() || fault.endpoints.contains(endpoint))
            && (fault.count < 0 || state.served < fault.count)) {
            ++state.served;
            sendFault(exchange, fault);
            return;
        }
    }

    SimRun *run = nullptr;
    if (!id.isEmpty()) {
        run = findVisible(id);
        if (!run) {
            sendNotFound(exchange, id);
            return;
        }
        if (run->takeHttpFault(endpoint)) {
            sendFault(exchange, *run->options().httpFault);
            return;
        }
    }

    switch (endpoint) {
    case Endpoint::Create:
        handleCreate(exchange, request);
        break;
    case Endpoint::Retrieve:
        handleRetrieve(exchange, run);
        break;
    case Endpoint::Stream:
        handleStream(exchange, request, run);
        break;
    case Endpoint::Cancel:
        handleCancel(exchange, run);
        break;
    case Endpoint::Delete:
        handleDelete(exchange, run);
        break;
    case Endpoint::InputItems:
        handleInputItems(exchange, run);
        break;
    case Endpoint::Models:
        handleModels(exchange);
        break;
    case Endpoint::Unknown:
        sendError(exchange, 404, u"Invalid URL (%1 %2)"_s.arg(QString::fromLatin1(method), request.path));
        break;
    }
}

bool Simulator::authorised(const HttpRequest &request) const
{
    if (m_config.apiKey.isEmpty()) {
        return true;
    }
    const QByteArray key = m_config.apiKey.toUtf8();
    const QByteArray authorization = request.header("authorization");
    if (authorization.size() > 7 && authorization.left(7).compare("bearer ", Qt::CaseInsensitive) == 0
        && authorization.mid(7).trimmed() == key) {
        return true;
    }
    return request.header("api-key") == key;
}

SimRun *Simulator::findVisible(const QString &id) const
{
    SimRun *run = m_runs.value(id);
    // A foreground response cannot be retrieved while it is in flight (protocol §1.4).
    if (run && !run->params().background && !run->hasEnded()) {
        return nullptr;
    }
    return run;
}

void Simulator::sendJson(const Exchange &exchange, int status, const QJsonObject &body)
{
    if (!exchange.connection) {
        return;
    }
    exchange.connection->sendResponse(
        status,
        {{QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/json")},
         {QByteArrayLiteral("x-request-id"), exchange.requestId},
         {QByteArrayLiteral("openai-processing-ms"), QByteArrayLiteral("1")}},
        QJsonDocument(body).toJson(QJsonDocument::Compact));
    recordStatus(exchange, status);
}

void Simulator::sendError(const Exchange &exchange, int status, const QString &message, const QString &type,
                          const QJsonValue &param, const QJsonValue &code,
                          const QList<QPair<QByteArray, QByteArray>> &extraHeaders)
{
    if (!exchange.connection) {
        return;
    }
    const QJsonObject error{
        {u"message"_s, message},
        {u"type"_s, type},
        {u"param"_s, param.isUndefined() ? QJsonValue() : param},
        {u"code"_s, code.isUndefined() ? QJsonValue() : code},
    };
    HeaderList headers{{QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/json")},
                       {QByteArrayLiteral("x-request-id"), exchange.requestId}};
    headers.append(extraHeaders);
    exchange.connection->sendResponse(
        status, headers, QJsonDocument(QJsonObject{{u"error"_s, error}}).toJson(QJsonDocument::Compact));
    recordStatus(exchange, status);
}

void Simulator::sendNotFound(const Exchange &exchange, const QString &id)
{
    sendError(exchange, 404, u"Response with id '%1' not found."_s.arg(id));
}

void Simulator::sendFault(const Exchange &exchange, const HttpFault &fault)
{
    if (!exchange.connection) {
        return;
    }
    HeaderList headers{{QByteArrayLiteral("x-request-id"), exchange.requestId}};
    if (fault.retryAfterSeconds >= 0) {
        headers.append({QByteArrayLiteral("Retry-After"), QByteArray::number(fault.retryAfterSeconds)});
    }
    if (fault.retryAfterMs >= 0) {
        headers.append({QByteArrayLiteral("retry-after-ms"), QByteArray::number(fault.retryAfterMs)});
    }
    QByteArray body;
    switch (fault.body) {
    case FaultBody::OpenAIError: {
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
        body = QJsonDocument(QJsonObject{{u"error"_s, error}}).toJson(QJsonDocument::Compact);
        headers.append({QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/json")});
        break;
    }
    case FaultBody::Html: {
        const QByteArray title = QByteArray::number(fault.status) + ' ' + reasonPhrase(fault.status);
        body = "<!DOCTYPE html>\n<html><head><title>" + title + "</title></head>\n<body><h1>" + title
               + "</h1><p>Injected by runwatch-sim.</p></body></html>\n";
        headers.append({QByteArrayLiteral("Content-Type"), QByteArrayLiteral("text/html; charset=utf-8")});
        break;
    }
    case FaultBody::Empty:
        break;
    }
    exchange.connection->sendResponse(fault.status, headers, body);
    recordStatus(exchange, fault.status, true);
}

SimRun *Simulator::createRun(const QString &id, const CreateParams &params, const RunOptions &options)
{
    // A standalone server runs for days: finished responses beyond the cap expire (404), the
    // way the real service forgets them after its retention window.
    for (qsizetype i = 0; i < m_runOrder.size() && m_runs.size() >= m_config.maxStoredResponses;) {
        SimRun *old = m_runs.value(m_runOrder.at(i));
        if (old && old->hasEnded()) {
            forgetRun(old);
        } else {
            ++i;
        }
    }
    auto *run = new SimRun(id, params, options, this);
    m_runs.insert(id, run);
    m_runOrder.append(id);
    ++m_runsCreated;
    m_lastResponseId = id;
    connect(run, &SimRun::statusChanged, this,
            [this, id](const QString &status) { Q_EMIT responseStatusChanged(id, status); });
    connect(run, &SimRun::eventAdded, this,
            [this, id](qint64 seq, const QByteArray &type) { Q_EMIT eventGenerated(id, seq, type); });
    connect(run, &SimRun::ended, this, [this, id] { Q_EMIT responseEnded(id); });
    Q_EMIT responseCreated(id);
    return run;
}

void Simulator::forgetRun(SimRun *run)
{
    m_runs.remove(run->id());
    m_runOrder.removeOne(run->id());
    run->setPaused(true);
    run->deleteLater(); // may be inside one of its own signals
}

void Simulator::handleCreate(const Exchange &exchange, const HttpRequest &request)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(request.body, &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject()) {
        sendError(exchange, 400,
                  u"We could not parse the JSON body of your request. The API expects a JSON "
                  u"object."_s);
        return;
    }
    const QJsonObject body = document.object();
    const auto invalidType = [&](const QString &param, const QString &expected, const QJsonValue &got) {
        sendError(exchange, 400,
                  u"Invalid type for '%1': expected %2, but got %3 instead."_s.arg(param, expected,
                                                                                   jsonTypeName(got)),
                  u"invalid_request_error"_s, param, u"invalid_type"_s);
    };
    const auto boolField = [&](const QString &key, bool fallback, bool *out) {
        const QJsonValue value = body.value(key);
        if (value.isUndefined() || value.isNull()) {
            *out = fallback;
            return true;
        }
        if (!value.isBool()) {
            invalidType(key, u"a boolean"_s, value);
            return false;
        }
        *out = value.toBool();
        return true;
    };

    CreateParams params;
    const QJsonValue model = body.value("model"_L1);
    if (!model.isString() || model.toString().isEmpty()) {
        if (!model.isUndefined() && !model.isNull() && !model.isString()) {
            invalidType(u"model"_s, u"a string"_s, model);
        } else {
            sendError(exchange, 400, u"Missing required parameter: 'model'."_s, u"invalid_request_error"_s,
                      u"model"_s, u"missing_required_parameter"_s);
        }
        return;
    }
    params.model = model.toString();
    if (!boolField(u"background"_s, false, &params.background) || !boolField(u"store"_s, true, &params.store)
        || !boolField(u"stream"_s, false, &params.stream)) {
        return;
    }
    params.input = body.value("input"_L1);
    if (params.input.isUndefined()) {
        params.input = QJsonValue();
    }
    if (!params.input.isNull() && !params.input.isString() && !params.input.isArray()) {
        invalidType(u"input"_s, u"a string or an array"_s, params.input);
        return;
    }
    const QJsonValue metadata = body.value("metadata"_L1);
    if (!metadata.isUndefined() && !metadata.isNull()) {
        if (!metadata.isObject()) {
            invalidType(u"metadata"_s, u"an object"_s, metadata);
            return;
        }
        params.metadata = metadata.toObject();
        if (params.metadata.size() > kMaxMetadataKeys) {
            sendError(exchange, 400,
                      u"Invalid 'metadata': too many properties. Expected an object with at most "
                      u"%1 properties, but got an object with %2 properties instead."_s.arg(kMaxMetadataKeys)
                          .arg(params.metadata.size()),
                      u"invalid_request_error"_s, u"metadata"_s, u"object_above_max_properties"_s);
            return;
        }
        for (auto it = params.metadata.constBegin(); it != params.metadata.constEnd(); ++it) {
            const QString param = u"metadata."_s + it.key();
            if (!it.value().isString()) {
                invalidType(param, u"a string"_s, it.value());
                return;
            }
            if (it.key().size() > kMaxMetadataKeyLength
                || it.value().toString().size() > kMaxMetadataValueLength) {
                sendError(exchange, 400,
                          u"Invalid '%1': metadata keys are limited to %2 and values to %3 "
                          u"characters."_s.arg(param)
                              .arg(kMaxMetadataKeyLength)
                              .arg(kMaxMetadataValueLength),
                          u"invalid_request_error"_s, param, u"string_above_max_length"_s);
                return;
            }
        }
    }
    if (params.background && !params.store) {
        // Protocol §1.3 (MS-CONTRACT row): background requires store=true.
        sendError(exchange, 400,
                  u"Background mode requires store=true; stateless background requests are "
                  u"rejected."_s,
                  u"invalid_request_error"_s, u"background"_s, u"unsupported_parameter"_s);
        return;
    }
    const QJsonValue previous = body.value("previous_response_id"_L1);
    if (previous.isString() && !findVisible(previous.toString())) {
        sendError(exchange, 404, u"Previous response with id '%1' not found."_s.arg(previous.toString()),
                  u"invalid_request_error"_s, u"previous_response_id"_s, u"previous_response_not_found"_s);
        return;
    }
    params.previousResponseId = previous.isString() ? previous : QJsonValue();
    params.instructions
        = body.value("instructions"_L1).isString() ? body.value("instructions"_L1) : QJsonValue();
    params.maxOutputTokens
        = body.value("max_output_tokens"_L1).isDouble() ? body.value("max_output_tokens"_L1) : QJsonValue();
    const QJsonValue obfuscation = body.value("stream_options"_L1).toObject().value("include_obfuscation"_L1);
    params.obfuscation = m_config.obfuscation && obfuscation.toBool(true);
    params.fractionalTimestamps = m_config.fractionalTimestamps;

    RunOptions options;
    if (const auto error
        = resolveRunOptions(m_config, inputTextOf(params.input), params.metadata, &options)) {
        sendError(exchange, 400, error->message, u"invalid_request_error"_s,
                  QString(u"metadata."_s + error->key), u"invalid_value"_s);
        return;
    }
    if (options.httpFault
        && (options.httpFault->endpoints.isEmpty()
            || options.httpFault->endpoints.contains(Endpoint::Create))) {
        // No response exists yet: count the faults per request body, so an SDK-style retry of
        // the same request is what gets through after `count` failures.
        const QByteArray key = QCryptographicHash::hash(request.body, QCryptographicHash::Sha1);
        int &served = m_createFaultsServed[key];
        if (options.httpFault->count < 0 || served < options.httpFault->count) {
            ++served;
            sendFault(exchange, *options.httpFault);
            return;
        }
    }

    SimRun *run = createRun(u"resp_"_s + randomHex(24), params, options);
    run->start();

    if (params.stream) {
        openStream(exchange, run, -1);
        return;
    }
    if (params.background) {
        sendJson(exchange, 200, run->snapshot());
        return;
    }
    // Foreground without stream: the answer is the finished response. Closing the connection
    // cancels it, as for the real API.
    if (run->hasEnded()) {
        sendJson(exchange, 200, run->snapshot());
        if (!params.store) {
            forgetRun(run);
        }
        return;
    }
    connect(
        run, &SimRun::ended, this,
        [this, exchange, run] {
            sendJson(exchange, 200, run->snapshot());
            if (!run->params().store) {
                forgetRun(run);
            }
        },
        Qt::SingleShotConnection);
    connect(exchange.connection, &HttpConnection::closed, run, [run] {
        if (!run->hasEnded()) {
            run->cancel();
        }
    });
}

void Simulator::handleRetrieve(const Exchange &exchange, SimRun *run)
{
    sendJson(exchange, 200, run->snapshot());
}

void Simulator::handleStream(const Exchange &exchange, const HttpRequest &request, SimRun *run)
{
    if (!run->params().background) {
        sendError(exchange, 400,
                  u"This response cannot be streamed because it was not created with "
                  u"background=true."_s,
                  u"invalid_request_error"_s, u"stream"_s);
        return;
    }
    if (!run->params().stream) {
        sendError(exchange, 400,
                  u"This response cannot be streamed because it was not created with "
                  u"stream=true."_s,
                  u"invalid_request_error"_s, u"stream"_s);
        return;
    }
    const qint64 maxAge = run->options().resumeMaxAgeMs;
    if (maxAge == 0 || (maxAge > 0 && run->ageMs() > maxAge)) {
        sendError(exchange, 400,
                  u"This response can no longer be streamed because it is more than 5 minutes "
                  u"old."_s);
        return;
    }
    qint64 startingAfter = -1;
    if (request.query.hasQueryItem(u"starting_after"_s)) {
        bool ok = false;
        startingAfter = request.query.queryItemValue(u"starting_after"_s).toLongLong(&ok);
        if (!ok || startingAfter < -1) {
            sendError(exchange, 400, u"Invalid 'starting_after': expected a non-negative integer."_s,
                      u"invalid_request_error"_s, u"starting_after"_s, u"invalid_value"_s);
            return;
        }
    }
    openStream(exchange, run, startingAfter);
}

void Simulator::openStream(const Exchange &exchange, SimRun *run, qint64 startingAfter)
{
    if (!exchange.connection) {
        return;
    }
    const int index = run->openStreamConnection();
    ++m_streamConnections;
    exchange.connection->beginStream(
        200, {{QByteArrayLiteral("Content-Type"), QByteArrayLiteral("text/event-stream; charset=utf-8")},
              {QByteArrayLiteral("Cache-Control"), QByteArrayLiteral("no-cache")},
              {QByteArrayLiteral("x-request-id"), exchange.requestId}});
    recordStatus(exchange, 200);

    StreamSettings settings;
    settings.faults = run->options().streamFaults;
    settings.faultsActive = settings.faults.connections < 0 || index <= settings.faults.connections;
    settings.lineEnding = m_config.lineEnding;
    settings.sendDone = run->options().sendDone;
    settings.commentIntervalMs = m_config.commentIntervalMs;
    settings.endlessLineMaxBytes = m_config.endlessLineMaxBytes;

    auto *session = new StreamSession(exchange.connection, run, startingAfter, settings, this);
    m_sessions.append(session);
    const QString id = run->id();
    connect(session, &StreamSession::finished, this, [this, id, session] {
        m_sessions.removeIf([session](const QPointer<StreamSession> &s) { return !s || s == session; });
        Q_EMIT streamClosed(id);
    });
    if (!run->params().background) {
        connect(session, &StreamSession::clientGone, run, [run] { run->cancel(); });
        if (!run->params().store) {
            connect(
                run, &SimRun::ended, this, [this, run] { forgetRun(run); }, Qt::SingleShotConnection);
        }
    }
    Q_EMIT streamOpened(id, index);
    session->start();
}

void Simulator::handleCancel(const Exchange &exchange, SimRun *run)
{
    if (!run->params().background) {
        sendError(exchange, 400, u"Cannot cancel a synchronous response."_s);
        return;
    }
    switch (run->cancel()) {
    case SimRun::CancelOutcome::Cancelled:
    case SimRun::CancelOutcome::AlreadyCancelled:
        sendJson(exchange, 200, run->snapshot());
        break;
    case SimRun::CancelOutcome::WasCompleted:
        sendError(exchange, 400, u"Cannot cancel a completed response."_s);
        break;
    case SimRun::CancelOutcome::WasFailed:
        sendError(exchange, 400, u"Cannot cancel a failed response."_s);
        break;
    case SimRun::CancelOutcome::WasIncomplete:
        sendError(exchange, 400, u"Cannot cancel an incomplete response."_s);
        break;
    }
}

void Simulator::handleDelete(const Exchange &exchange, SimRun *run)
{
    if (m_config.rejectInflightDelete && !run->hasEnded()) {
        sendError(exchange, 400, u"Cannot delete an in-flight response."_s);
        return;
    }
    const QString id = run->id();
    forgetRun(run);
    m_deleted.insert(id);
    sendJson(exchange, 200, QJsonObject{{u"id"_s, id}, {u"object"_s, u"response"_s}, {u"deleted"_s, true}});
}

void Simulator::handleInputItems(const Exchange &exchange, SimRun *run)
{
    const QJsonArray items = run->inputItems();
    sendJson(exchange, 200,
             QJsonObject{
                 {u"object"_s, u"list"_s},
                 {u"data"_s, items},
                 {u"first_id"_s, items.isEmpty() ? QJsonValue() : items.first()["id"_L1]},
                 {u"last_id"_s, items.isEmpty() ? QJsonValue() : items.last()["id"_L1]},
                 {u"has_more"_s, false},
             });
}

void Simulator::handleModels(const Exchange &exchange)
{
    QJsonArray data;
    for (const QString &model : m_config.modelIds) {
        data.append(QJsonObject{{u"id"_s, model},
                                {u"object"_s, u"model"_s},
                                {u"created"_s, 1700000000},
                                {u"owned_by"_s, u"runwatch-sim"_s}});
    }
    sendJson(exchange, 200, QJsonObject{{u"object"_s, u"list"_s}, {u"data"_s, data}});
}

} // namespace RunwatchSim
