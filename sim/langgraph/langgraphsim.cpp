// SPDX-License-Identifier: GPL-3.0-or-later
// The LangGraph simulator's server side: configuration, counters and inspection, routing (auth,
// id validation, injected HTTP faults), replies, and the table of runs. The endpoints are in
// langgraphsimendpoints.cpp.
#include "langgraphsim.h"

#include "langgraphsimstream.h"
#include "langgraphsimwire.h"
#include "server/httpconnection.h"

#include <QJsonDocument>
#include <QUuid>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

bool isUuid(const QString &text)
{
    return text.size() == 36 && !QUuid::fromString(text).isNull();
}

} // namespace

LangGraphSimulator::LangGraphSimulator(QObject *parent)
    : LangGraphSimulator(LangGraphSimConfig(), parent)
{}

LangGraphSimulator::LangGraphSimulator(const LangGraphSimConfig &config, QObject *parent)
    : SimServer(parent)
    , m_startedMs(langGraphNowMs())
{
    setConfig(config);
}

LangGraphSimulator::~LangGraphSimulator() = default;

void LangGraphSimulator::setConfig(const LangGraphSimConfig &config)
{
    m_config = config;
    setLimits(config);
    m_faults.reset(config.httpFaults);
}

void LangGraphSimulator::setIntervalMs(int ms)
{
    m_config.intervalMs = ms;
}

void LangGraphSimulator::setStreamFaults(const StreamFaults &faults)
{
    m_config.streamFaults = faults;
}

void LangGraphSimulator::addHttpFault(const LangGraphHttpFault &fault)
{
    m_config.httpFaults.append(fault);
    m_faults.append(fault);
}

void LangGraphSimulator::clearFaults()
{
    m_config.httpFaults.clear();
    m_config.streamFaults = StreamFaults();
    m_faults.clear();
}

int LangGraphSimulator::activeStreamCount() const
{
    int count = 0;
    for (const auto &stream : m_streams) {
        if (stream && stream->isOpen())
            ++count;
    }
    return count;
}

void LangGraphSimulator::resetCounters()
{
    m_log.clear();
    m_endpointCounts.clear();
    m_requestTotal = 0;
    m_runsCreated = 0;
    resetRejectedRequestCount();
}

std::optional<LangGraphRunInfo> LangGraphSimulator::run(const QString &id) const
{
    const LangGraphSimRun *run = m_runs.value(id);
    if (!run)
        return std::nullopt;
    LangGraphRunInfo info;
    info.id = id;
    info.threadId = run->threadId();
    info.graph = run->params().graph;
    info.status = run->statusName();
    info.text = run->text();
    info.ended = run->hasEnded();
    info.resumable = run->resumable();
    for (const LangGraphSimEvent &event : run->events())
        info.eventNames.append(event.event);
    info.streamConnections = run->streamConnections();
    return info;
}

QJsonObject LangGraphSimulator::runJson(const QString &id) const
{
    const LangGraphSimRun *run = m_runs.value(id);
    return run ? run->json() : QJsonObject();
}

QJsonObject LangGraphSimulator::threadJson(const QString &id) const
{
    const ThreadPtr thread = m_threads.value(id);
    return thread ? langGraphThreadJson(*thread) : QJsonObject();
}

QString LangGraphSimulator::helpText()
{
    return langGraphOptionsHelpText();
}

void LangGraphSimulator::recordStatus(const Exchange &exchange, int status, bool faulted)
{
    if (LangGraphRequestRecord *record = m_log.find(exchange.serial)) {
        record->status = status;
        record->faulted = faulted;
        Q_EMIT requestAnswered(*record);
    }
}

void LangGraphSimulator::route(HttpConnection *connection, const HttpRequest &request)
{
    QString path = request.path;
    while (path.size() > 1 && path.endsWith(u'/'))
        path.chop(1);
    const QStringList segments = path.split(u'/', Qt::SkipEmptyParts);
    const qsizetype n = segments.size();
    const QByteArray &method = request.method;
    const QString resource = segments.value(0);
    const QString second = segments.value(1);
    LangGraphEndpoint endpoint = LangGraphEndpoint::Unknown;
    QString threadId;
    QString runId;
    bool streamCreate = false;
    if (n == 1 && method == "GET" && (resource == "ok"_L1 || resource == "info"_L1)) {
        endpoint = resource == "ok"_L1 ? LangGraphEndpoint::Ok : LangGraphEndpoint::Info;
    } else if (resource == "assistants"_L1 && n == 2) {
        if (second == "search"_L1 && method == "POST") {
            endpoint = LangGraphEndpoint::SearchAssistants;
        } else if (method == "GET") {
            endpoint = LangGraphEndpoint::GetAssistant;
        }
    } else if (resource == "threads"_L1) {
        const QString sub = segments.value(2);
        if (n == 1 && method == "POST") {
            endpoint = LangGraphEndpoint::CreateThread;
        } else if (n == 2 && second == "search"_L1 && method == "POST") {
            endpoint = LangGraphEndpoint::SearchThreads;
        } else if (n == 2) {
            endpoint = method == "GET"      ? LangGraphEndpoint::GetThread
                       : method == "DELETE" ? LangGraphEndpoint::DeleteThread
                                            : LangGraphEndpoint::Unknown;
        } else if (n == 3 && sub == "state"_L1 && method == "GET") {
            endpoint = LangGraphEndpoint::GetState;
        } else if (n == 3 && sub == "runs"_L1) {
            endpoint = method == "POST"  ? LangGraphEndpoint::CreateRun
                       : method == "GET" ? LangGraphEndpoint::ListRuns
                                         : LangGraphEndpoint::Unknown;
        } else if (n == 4 && sub == "runs"_L1 && segments.at(3) == "stream"_L1 && method == "POST") {
            endpoint = LangGraphEndpoint::CreateRun;
            streamCreate = true;
        } else if (n >= 4 && sub == "runs"_L1) {
            runId = segments.at(3);
            const QString action = segments.value(4);
            if (n == 4) {
                endpoint = method == "GET"      ? LangGraphEndpoint::GetRun
                           : method == "DELETE" ? LangGraphEndpoint::DeleteRun
                                                : LangGraphEndpoint::Unknown;
            } else if (n == 5 && action == "stream"_L1 && method == "GET") {
                endpoint = LangGraphEndpoint::JoinStream;
            } else if (n == 5 && action == "cancel"_L1 && method == "POST") {
                endpoint = LangGraphEndpoint::Cancel;
            }
        }
        if (endpoint != LangGraphEndpoint::CreateThread && endpoint != LangGraphEndpoint::SearchThreads)
            threadId = second;
    }
    if (endpoint == LangGraphEndpoint::Unknown) {
        threadId.clear();
        runId.clear();
    }

    LangGraphRequestRecord record;
    record.setRequest(request);
    record.endpoint = endpoint;
    record.threadId = threadId;
    record.runId = runId;
    const Exchange exchange{connection, m_log.append(record)};
    ++m_requestTotal;
    ++m_endpointCounts[endpoint];
    Q_EMIT requestReceived(*m_log.find(exchange.serial));

    if (!authorised(request)) {
        sendText(exchange, 401, u"Unauthorized"_s);
        return;
    }
    if (const LangGraphHttpFault *fault
        = m_faults.take([endpoint](const LangGraphHttpFault &f) { return f.aimsAt(endpoint); })) {
        sendFault(exchange, *fault);
        return;
    }

    ThreadPtr thread;
    if (!threadId.isEmpty()) {
        if (!isUuid(threadId)) {
            sendInvalidUuid(exchange, u"thread_id"_s);
            return;
        }
        thread = m_threads.value(threadId);
        if (!thread) {
            if (endpoint == LangGraphEndpoint::CreateRun) {
                // What 1.5.1 answers for a run on a thread it does not know (multitask "reject").
                sendText(exchange, 422,
                         u"Thread is already running a task. Wait for it to finish or choose a different "
                         u"multitask strategy."_s);
            } else {
                sendText(exchange, 404, u"Thread with ID %1 not found"_s.arg(threadId));
            }
            return;
        }
    }
    LangGraphSimRun *run = nullptr;
    if (!runId.isEmpty()) {
        if (!isUuid(runId)) {
            sendInvalidUuid(exchange, u"run_id"_s);
            return;
        }
        run = m_runs.value(runId);
        if (run && run->threadId() != threadId)
            run = nullptr;
        if (run && run->takeHttpFault(endpoint)) {
            sendFault(exchange, *run->options().httpFault);
            return;
        }
        if (!run && endpoint == LangGraphEndpoint::JoinStream) {
            // The real server opens the stream and says so in it.
            if (exchange.connection) {
                beginEventStream(exchange.connection, {});
                recordStatus(exchange, 200);
                exchange.connection->write(langGraphFrame("error", "\"Run not found\"", -1));
                exchange.connection->endStream();
            }
            return;
        }
        if (!run) {
            sendText(exchange, 404, u"Run not found"_s);
            return;
        }
    }

    switch (endpoint) {
    case LangGraphEndpoint::Ok:
        sendJson(exchange, 200, QJsonObject{{u"ok"_s, true}});
        break;
    case LangGraphEndpoint::Info:
        sendJson(exchange, 200, langGraphInfoJson(m_config.version));
        break;
    case LangGraphEndpoint::SearchAssistants:
        handleSearchAssistants(exchange, request);
        break;
    case LangGraphEndpoint::GetAssistant:
        handleGetAssistant(exchange, second);
        break;
    case LangGraphEndpoint::CreateThread:
        handleCreateThread(exchange, request);
        break;
    case LangGraphEndpoint::SearchThreads:
        handleSearchThreads(exchange, request);
        break;
    case LangGraphEndpoint::GetThread:
        sendJson(exchange, 200, langGraphThreadJson(*thread));
        break;
    case LangGraphEndpoint::DeleteThread:
        handleDeleteThread(exchange, thread);
        break;
    case LangGraphEndpoint::GetState:
        sendJson(exchange, 200, langGraphStateJson(*thread));
        break;
    case LangGraphEndpoint::CreateRun:
        handleCreateRun(exchange, request, thread, streamCreate);
        break;
    case LangGraphEndpoint::ListRuns:
        handleListRuns(exchange, request, *thread);
        break;
    case LangGraphEndpoint::GetRun:
        sendJson(exchange, 200, run->json());
        break;
    case LangGraphEndpoint::DeleteRun:
        run->cancel(LangGraphSimRun::CancelAction::Interrupt);
        removeRun(run);
        sendEmpty(exchange, 204);
        break;
    case LangGraphEndpoint::JoinStream:
        handleJoin(exchange, request, run);
        break;
    case LangGraphEndpoint::Cancel:
        handleCancel(exchange, request, run);
        break;
    case LangGraphEndpoint::Unknown:
        sendBody(exchange.connection, 404, QByteArrayLiteral("text/plain; charset=UTF-8"), "404 Not Found");
        recordStatus(exchange, 404);
        break;
    }
}

bool LangGraphSimulator::authorised(const HttpRequest &request) const
{
    return m_config.apiKey.isEmpty() || request.header("x-api-key") == m_config.apiKey.toUtf8();
}

void LangGraphSimulator::sendJson(const Exchange &exchange, int status, const QJsonObject &body,
                                  const HeaderList &headers)
{
    if (!exchange.connection)
        return;
    RunwatchSim::sendJson(exchange.connection, status, body, headers);
    recordStatus(exchange, status);
}

void LangGraphSimulator::sendJsonArray(const Exchange &exchange, int status, const QJsonArray &body,
                                       const HeaderList &headers)
{
    if (!exchange.connection)
        return;
    sendBody(exchange.connection, status, QByteArrayLiteral("application/json"),
             QJsonDocument(body).toJson(QJsonDocument::Compact), headers);
    recordStatus(exchange, status);
}

void LangGraphSimulator::sendText(const Exchange &exchange, int status, const QString &text)
{
    if (!exchange.connection)
        return;
    sendBody(exchange.connection, status, QByteArrayLiteral("text/plain;charset=UTF-8"), text.toUtf8());
    recordStatus(exchange, status);
}

void LangGraphSimulator::sendEmpty(const Exchange &exchange, int status)
{
    if (!exchange.connection)
        return;
    exchange.connection->sendResponse(status, {}, QByteArray());
    recordStatus(exchange, status);
}

void LangGraphSimulator::sendInvalidUuid(const Exchange &exchange, const QString &field)
{
    // The server validates path ids before it looks them up (a zod error).
    const QJsonObject issue{{u"validation"_s, u"uuid"_s},
                            {u"code"_s, u"invalid_string"_s},
                            {u"message"_s, u"Invalid uuid"_s},
                            {u"path"_s, QJsonArray{field}}};
    sendJson(
        exchange, 400,
        QJsonObject{{u"success"_s, false},
                    {u"error"_s, QJsonObject{{u"issues"_s, QJsonArray{issue}}, {u"name"_s, u"ZodError"_s}}}});
}

void LangGraphSimulator::sendFault(const Exchange &exchange, const LangGraphHttpFault &fault)
{
    if (!exchange.connection)
        return;
    HeaderList headers;
    if (fault.retryAfterSeconds >= 0)
        headers.append({QByteArrayLiteral("Retry-After"), QByteArray::number(fault.retryAfterSeconds)});
    const QByteArray title = QByteArray::number(fault.status) + ' ' + reasonPhrase(fault.status);
    if (fault.htmlBody) {
        sendBody(exchange.connection, fault.status, QByteArrayLiteral("text/html; charset=utf-8"),
                 "<!DOCTYPE html>\n<html><head><title>" + title + "</title></head><body><h1>" + title
                     + "</h1><p>Injected by runwatch-sim.</p></body></html>\n",
                 headers);
    } else {
        sendBody(exchange.connection, fault.status, QByteArrayLiteral("text/plain;charset=UTF-8"),
                 title + " (simulated by runwatch-sim)", headers);
    }
    recordStatus(exchange, fault.status, true);
}

LangGraphSimRun *LangGraphSimulator::createRun(const QString &id, const LangGraphRunParams &params,
                                               const LangGraphRunOptions &options)
{
    forgetOldRuns();
    const ThreadPtr thread = m_threads.value(params.threadId);
    auto *run = new LangGraphSimRun(id, params, options, thread, this);
    m_runs.insert(id, run);
    m_runOrder.append(id);
    thread->runIds.append(id);
    ++m_runsCreated;
    connect(run, &LangGraphSimRun::statusChanged, this,
            [this, id](const QString &status) { Q_EMIT runStatusChanged(id, status); });
    connect(run, &LangGraphSimRun::eventAdded, this,
            [this, id, run](int index) { Q_EMIT eventGenerated(id, index, run->events().at(index).event); });
    connect(run, &LangGraphSimRun::ended, this, [this, id] { Q_EMIT runEnded(id); });
    Q_EMIT runCreated(id);
    return run;
}

void LangGraphSimulator::removeRun(LangGraphSimRun *run)
{
    const QString id = run->id();
    m_runs.remove(id);
    m_runOrder.removeOne(id);
    if (const ThreadPtr thread = m_threads.value(run->threadId()))
        thread->runIds.removeOne(id);
    run->deleteLater();
}

void LangGraphSimulator::forgetOldRuns()
{
    // A standalone server runs for days: finished runs beyond the cap are forgotten (404).
    for (qsizetype i = 0; i < m_runOrder.size() && m_runs.size() >= m_config.maxStoredRuns;) {
        LangGraphSimRun *old = m_runs.value(m_runOrder.at(i));
        if (old && old->hasEnded()) {
            removeRun(old);
        } else {
            ++i;
        }
    }
}

} // namespace RunwatchSim
