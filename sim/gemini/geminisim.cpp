// SPDX-License-Identifier: GPL-3.0-or-later
// The Gemini simulator's server side: configuration, counters and inspection, routing (versions,
// the API key, injected HTTP faults), replies, and the table of interactions. The endpoints are in
// geminisimendpoints.cpp.
#include "geminisim.h"

#include "geminisimstream.h"
#include "geminisimwire.h"
#include "server/httpconnection.h"

#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

GeminiSimulator::GeminiSimulator(QObject *parent)
    : GeminiSimulator(GeminiSimConfig(), parent)
{}

GeminiSimulator::GeminiSimulator(const GeminiSimConfig &config, QObject *parent)
    : SimServer(parent)
{
    setConfig(config);
}

GeminiSimulator::~GeminiSimulator() = default;

void GeminiSimulator::setConfig(const GeminiSimConfig &config)
{
    m_config = config;
    setLimits(config);
    m_faults.reset(config.httpFaults);
}

void GeminiSimulator::setIntervalMs(int ms)
{
    m_config.intervalMs = ms;
}

void GeminiSimulator::setStreamFaults(const StreamFaults &faults)
{
    m_config.streamFaults = faults;
}

void GeminiSimulator::addHttpFault(const GeminiHttpFault &fault)
{
    m_config.httpFaults.append(fault);
    m_faults.append(fault);
}

void GeminiSimulator::clearFaults()
{
    m_config.httpFaults.clear();
    m_config.streamFaults = StreamFaults();
    m_faults.clear();
}

int GeminiSimulator::activeStreamCount() const
{
    int count = 0;
    for (const auto &stream : m_streams) {
        if (stream && stream->isOpen())
            ++count;
    }
    return count;
}

void GeminiSimulator::resetCounters()
{
    m_log.clear();
    m_endpointCounts.clear();
    m_requestTotal = 0;
    m_created = 0;
    resetRejectedRequestCount();
}

std::optional<GeminiInteractionInfo> GeminiSimulator::interaction(const QString &id) const
{
    const GeminiSimRun *run = m_runs.value(id);
    if (!run)
        return std::nullopt;
    GeminiInteractionInfo info;
    info.id = id;
    info.status = run->statusName();
    info.model = run->params().model;
    info.agent = run->params().agent;
    info.previousId = run->params().previousId;
    info.background = run->params().background;
    info.ended = run->hasEnded();
    info.text = run->text();
    info.outputTexts = run->outputTexts();
    info.calls = run->calls();
    for (const GeminiSimEvent &event : run->events()) {
        info.eventTypes.append(event.type);
        info.eventIds.append(event.eventId);
    }
    info.streamConnections = run->streamConnections();
    return info;
}

QJsonObject GeminiSimulator::interactionJson(const QString &id) const
{
    const GeminiSimRun *run = m_runs.value(id);
    return run ? run->json(true) : QJsonObject();
}

QString GeminiSimulator::helpText()
{
    return geminiOptionsHelpText();
}

void GeminiSimulator::recordStatus(const Exchange &exchange, int status, bool faulted)
{
    if (GeminiRequestRecord *record = m_log.find(exchange.serial)) {
        record->status = status;
        record->faulted = faulted;
        Q_EMIT requestAnswered(*record);
    }
}

void GeminiSimulator::route(HttpConnection *connection, const HttpRequest &request)
{
    QString path = request.path;
    while (path.size() > 1 && path.endsWith(u'/'))
        path.chop(1);
    const QStringList segments = path.split(u'/', Qt::SkipEmptyParts);
    const qsizetype n = segments.size();
    const QByteArray &method = request.method;
    static const QRegularExpression kVersion(u"^v1(alpha|beta)?$"_s);
    const QString version = segments.value(0);
    const QString resource = segments.value(1);
    GeminiEndpoint endpoint = GeminiEndpoint::Unknown;
    QString interactionId;
    if (kVersion.match(version).hasMatch()) {
        if (resource == "interactions"_L1) {
            if (n == 2 && method == "POST") {
                endpoint = GeminiEndpoint::Create;
            } else if (n == 3 && method == "GET") {
                // The client: get() sends stream=false on a plain read and stream=true (with
                // last_event_id when given) to stream; both through encodeFormQuery.
                const QString stream = request.query.queryItemValue(u"stream"_s);
                endpoint
                    = stream == "true"_L1 || stream == "1"_L1 ? GeminiEndpoint::Stream : GeminiEndpoint::Get;
            } else if (n == 3 && method == "DELETE") {
                endpoint = GeminiEndpoint::Delete;
            } else if (n == 4 && segments.at(3) == "cancel"_L1 && method == "POST") {
                endpoint = GeminiEndpoint::Cancel;
            }
            if (endpoint != GeminiEndpoint::Create && endpoint != GeminiEndpoint::Unknown)
                interactionId = segments.at(2);
        } else if (resource == "models"_L1 && (n == 2 || n == 3) && method == "GET") {
            endpoint = GeminiEndpoint::Models;
        } else if (resource == "agents"_L1 && n == 2 && method == "GET") {
            endpoint = GeminiEndpoint::Agents;
        }
    }

    GeminiRequestRecord record;
    record.setRequest(request);
    record.endpoint = endpoint;
    record.apiVersion = endpoint == GeminiEndpoint::Unknown ? QString() : version;
    record.interactionId = interactionId;
    const Exchange exchange{connection, m_log.append(record)};
    ++m_requestTotal;
    ++m_endpointCounts[endpoint];
    Q_EMIT requestReceived(*m_log.find(exchange.serial));

    if (!checkKey(exchange, request))
        return;
    if (const GeminiHttpFault *fault
        = m_faults.take([endpoint](const GeminiHttpFault &f) { return f.aimsAt(endpoint); })) {
        sendFault(exchange, *fault);
        return;
    }
    GeminiSimRun *run = nullptr;
    if (!interactionId.isEmpty()) {
        run = findRun(interactionId);
        if (!run) {
            sendError(exchange, 404, u"Interaction %1 not found."_s.arg(interactionId));
            return;
        }
        if (run->takeHttpFault(endpoint)) {
            sendFault(exchange, *run->options().httpFault);
            return;
        }
    }

    switch (endpoint) {
    case GeminiEndpoint::Create:
        handleCreate(exchange, request, version);
        break;
    case GeminiEndpoint::Get:
        handleGet(exchange, request, run);
        break;
    case GeminiEndpoint::Stream:
        handleStream(exchange, request, run);
        break;
    case GeminiEndpoint::Cancel:
        handleCancel(exchange, run);
        break;
    case GeminiEndpoint::Delete:
        handleDelete(exchange, run);
        break;
    case GeminiEndpoint::Models:
        handleModels(exchange, segments.value(2));
        break;
    case GeminiEndpoint::Agents:
        handleAgents(exchange);
        break;
    case GeminiEndpoint::Unknown:
        sendError(exchange, 404, u"Method not found."_s);
        break;
    }
}

bool GeminiSimulator::checkKey(const Exchange &exchange, const HttpRequest &request)
{
    if (m_config.apiKey.isEmpty())
        return true;
    // The client sends x-goog-api-key on every call and no Authorization header; Google also takes ?key=.
    QByteArray key = request.header("x-goog-api-key");
    if (key.isEmpty())
        key = request.query.queryItemValue(u"key"_s, QUrl::FullyDecoded).toUtf8();
    if (key == m_config.apiKey.toUtf8())
        return true;
    if (key.isEmpty()) {
        sendError(exchange, 403,
                  u"Method doesn't allow unregistered callers (callers without established identity). Please "
                  u"use API Key or other form of API consumer identity to call this API."_s);
        return false;
    }
    QJsonObject body = geminiErrorJson(400, u"API key not valid. Please pass a valid API key."_s);
    QJsonObject error = body.value("error"_L1).toObject();
    error.insert(u"details"_s,
                 QJsonArray{QJsonObject{
                     {u"@type"_s, u"type.googleapis.com/google.rpc.ErrorInfo"_s},
                     {u"reason"_s, u"API_KEY_INVALID"_s},
                     {u"domain"_s, u"googleapis.com"_s},
                     {u"metadata"_s, QJsonObject{{u"service"_s, u"generativelanguage.googleapis.com"_s}}}}});
    body.insert(u"error"_s, error);
    sendJson(exchange, 400, body);
    return false;
}

void GeminiSimulator::sendJson(const Exchange &exchange, int status, const QJsonObject &body,
                               const HeaderList &headers)
{
    if (!exchange.connection)
        return;
    // The client matches replies by Content-Type: application/json (its json() and jsonErr()).
    RunwatchSim::sendJson(exchange.connection, status, body, headers);
    recordStatus(exchange, status);
}

void GeminiSimulator::sendError(const Exchange &exchange, int status, const QString &message,
                                const QString &code)
{
    sendJson(exchange, status, geminiErrorJson(status, message, code));
}

void GeminiSimulator::sendFault(const Exchange &exchange, const GeminiHttpFault &fault)
{
    if (!exchange.connection)
        return;
    HeaderList headers;
    if (fault.retryAfterSeconds >= 0)
        headers.append({QByteArrayLiteral("Retry-After"), QByteArray::number(fault.retryAfterSeconds)});
    if (fault.htmlBody) {
        const QByteArray title = QByteArray::number(fault.status) + ' ' + reasonPhrase(fault.status);
        sendBody(exchange.connection, fault.status, QByteArrayLiteral("text/html; charset=UTF-8"),
                 "<!DOCTYPE html>\n<html lang=en><title>Error " + title + "</title><p><b>" + title
                     + ".</b> <ins>That's an error.</ins><p>Injected by runwatch-sim.</html>\n",
                 headers);
    } else {
        RunwatchSim::sendJson(exchange.connection, fault.status,
                              geminiErrorJson(fault.status, geminiFaultMessage(fault.status)), headers);
    }
    recordStatus(exchange, fault.status, true);
}

GeminiSimRun *GeminiSimulator::findRun(const QString &id)
{
    GeminiSimRun *run = m_runs.value(id);
    if (!run || !run->params().store)
        return nullptr;
    if (run->expired(geminiNowMs())) {
        removeRun(run);
        return nullptr;
    }
    return run;
}

GeminiSimRun *GeminiSimulator::createRun(const GeminiRunParams &params, const GeminiRunOptions &options)
{
    forgetOldRuns();
    const QString id = newGeminiInteractionId();
    auto *run = new GeminiSimRun(id, params, options, this);
    m_runs.insert(id, run);
    m_order.append(id);
    ++m_created;
    connect(run, &GeminiSimRun::statusChanged, this,
            [this, id](const QString &status) { Q_EMIT interactionStatusChanged(id, status); });
    connect(run, &GeminiSimRun::eventAdded, this,
            [this, id, run](int index) { Q_EMIT eventGenerated(id, index, run->events().at(index).type); });
    connect(run, &GeminiSimRun::ended, this, [this, id] { Q_EMIT interactionEnded(id); });
    Q_EMIT interactionCreated(id);
    return run;
}

void GeminiSimulator::removeRun(GeminiSimRun *run)
{
    run->halt();
    m_runs.remove(run->id());
    m_order.removeOne(run->id());
    run->deleteLater();
}

void GeminiSimulator::forgetOldRuns()
{
    // A standalone server runs for days: finished interactions beyond the cap are forgotten (404).
    for (qsizetype i = 0; i < m_order.size() && m_runs.size() >= m_config.maxStoredInteractions;) {
        GeminiSimRun *old = m_runs.value(m_order.at(i));
        if (old && old->hasEnded()) {
            removeRun(old);
        } else {
            ++i;
        }
    }
}

} // namespace RunwatchSim
