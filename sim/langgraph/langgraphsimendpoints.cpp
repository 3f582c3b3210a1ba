// SPDX-License-Identifier: GPL-3.0-or-later
// The LangGraph simulator's endpoints: assistants, threads (create, search, delete), starting runs
// (JSON or SSE), listing them, joining a run's stream with the Last-Event-ID rules of protocol §5,
// and cancel.
#include "langgraphsim.h"

#include "langgraphsimstream.h"
#include "langgraphsimwire.h"
#include "server/httpconnection.h"

#include <QJsonDocument>
#include <QTimer>
#include <QUuid>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

const QString kBusy = u"Thread is already running a task. Wait for it to finish or choose a different "
                      u"multitask strategy."_s;

// The body as an object: an empty body is {}; nullopt when it is not JSON at all.
std::optional<QJsonObject> bodyObject(const HttpRequest &request, bool *isObject)
{
    *isObject = true;
    if (request.body.trimmed().isEmpty())
        return QJsonObject();
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(request.body, &error);
    if (error.error != QJsonParseError::NoError)
        return std::nullopt;
    *isObject = document.isObject();
    return document.object();
}

std::optional<LangGraphGraph> graphOf(const QString &assistantId)
{
    if (const auto graph = langGraphGraphFromName(assistantId))
        return graph;
    const QUuid uuid = QUuid::fromString(assistantId);
    for (const LangGraphGraph graph : langGraphGraphs()) {
        if (!uuid.isNull() && uuid == langGraphAssistantId(graph))
            return graph;
    }
    return std::nullopt;
}

// Every key of `filter` has the same value in `metadata`.
bool matches(const QJsonObject &metadata, const QJsonObject &filter)
{
    for (auto it = filter.begin(); it != filter.end(); ++it) {
        if (metadata.value(it.key()) != it.value())
            return false;
    }
    return true;
}

// [offset, offset + limit) of `items`, and the header with how many there are in all.
template<typename T>
QList<T> page(const QList<T> &items, qint64 limit, qint64 offset, HeaderList *headers)
{
    headers->append({QByteArrayLiteral("X-Pagination-Total"), QByteArray::number(items.size())});
    return items.mid(qMin<qint64>(qMax<qint64>(0, offset), items.size()), qMax<qint64>(0, limit));
}

// The state's type of an input message ({role} or {type}), empty when it is none.
QString messageType(const QJsonObject &message)
{
    QString role = message.value("role"_L1).toString(message.value("type"_L1).toString());
    if (role == "user"_L1 || role == "human"_L1)
        return u"human"_s;
    if (role == "assistant"_L1 || role == "ai"_L1)
        return u"ai"_s;
    if (role == "system"_L1 || role == "tool"_L1)
        return role;
    return QString();
}

} // namespace

void LangGraphSimulator::handleSearchAssistants(const Exchange &exchange, const HttpRequest &request)
{
    bool isObject = true;
    const auto body = bodyObject(request, &isObject);
    if (!body || !isObject) {
        sendText(exchange, body ? 422 : 400, u"Malformed JSON in request body"_s);
        return;
    }
    QList<QJsonObject> found;
    for (const LangGraphGraph graph : langGraphGraphs()) {
        const QJsonObject assistant = langGraphAssistantJson(graph, m_startedMs);
        const QString graphId = body->value("graph_id"_L1).toString();
        const QString name = body->value("name"_L1).toString();
        if ((graphId.isEmpty() || graphId == assistant.value("graph_id"_L1).toString())
            && (name.isEmpty() || name == assistant.value("name"_L1).toString())
            && matches(assistant.value("metadata"_L1).toObject(), body->value("metadata"_L1).toObject()))
            found.append(assistant);
    }
    HeaderList headers;
    QJsonArray array;
    for (const QJsonObject &assistant :
         page(found, body->value("limit"_L1).toInteger(10), body->value("offset"_L1).toInteger(0), &headers))
        array.append(assistant);
    sendJsonArray(exchange, 200, array, headers);
}

void LangGraphSimulator::handleGetAssistant(const Exchange &exchange, const QString &id)
{
    if (const auto graph = graphOf(id)) {
        sendJson(exchange, 200, langGraphAssistantJson(*graph, m_startedMs));
    } else {
        sendText(exchange, 404, u"Assistant not found"_s);
    }
}

void LangGraphSimulator::handleCreateThread(const Exchange &exchange, const HttpRequest &request)
{
    bool isObject = true;
    const auto body = bodyObject(request, &isObject);
    if (!body || !isObject) {
        sendText(exchange, body ? 422 : 400, u"Malformed JSON in request body"_s);
        return;
    }
    const QJsonValue metadata = body->value("metadata"_L1);
    if (!metadata.isUndefined() && !metadata.isNull() && !metadata.isObject()) {
        sendText(exchange, 422, u"metadata must be an object"_s);
        return;
    }
    QString id = body->value("thread_id"_L1).toString();
    if (!id.isEmpty()) {
        if (QUuid::fromString(id).isNull()) {
            sendInvalidUuid(exchange, u"thread_id"_s);
            return;
        }
        if (const ThreadPtr existing = m_threads.value(id)) {
            if (body->value("if_exists"_L1).toString() == "do_nothing"_L1) {
                sendJson(exchange, 200, langGraphThreadJson(*existing));
            } else {
                sendText(exchange, 409, u"Thread with ID %1 already exists"_s.arg(id));
            }
            return;
        }
    } else {
        id = newLangGraphUuid7();
    }
    auto thread = std::make_shared<LangGraphSimThread>();
    thread->id = id;
    thread->createdMs = langGraphNowMs();
    thread->updatedMs = thread->createdMs;
    thread->metadata = metadata.toObject();
    m_threads.insert(id, thread);
    sendJson(exchange, 200, langGraphThreadJson(*thread));
}

void LangGraphSimulator::handleSearchThreads(const Exchange &exchange, const HttpRequest &request)
{
    bool isObject = true;
    const auto body = bodyObject(request, &isObject);
    if (!body || !isObject) {
        sendText(exchange, body ? 422 : 400, u"Malformed JSON in request body"_s);
        return;
    }
    const QString status = body->value("status"_L1).toString();
    const QJsonObject metadata = body->value("metadata"_L1).toObject();
    QStringList ids;
    for (const QJsonValue &id : body->value("ids"_L1).toArray())
        ids.append(id.toString());
    const QString sortBy = body->value("sort_by"_L1).toString(u"updated_at"_s);
    const bool ascending = body->value("sort_order"_L1).toString() == "asc"_L1;
    if (sortBy != "updated_at"_L1 && sortBy != "created_at"_L1 && sortBy != "thread_id"_L1
        && sortBy != "status"_L1) {
        sendText(exchange, 422, u"sort_by must be one of thread_id, status, created_at, updated_at"_s);
        return;
    }
    QList<ThreadPtr> found;
    for (const ThreadPtr &thread : std::as_const(m_threads)) {
        if ((status.isEmpty() || thread->status == status) && (ids.isEmpty() || ids.contains(thread->id))
            && matches(thread->metadata, metadata))
            found.append(thread);
    }
    const auto key = [&sortBy](const ThreadPtr &t) -> std::pair<QString, qint64> {
        if (sortBy == "thread_id"_L1)
            return {t->id, 0};
        if (sortBy == "status"_L1)
            return {t->status, 0};
        return {QString(), sortBy == "created_at"_L1 ? t->createdMs : t->updatedMs};
    };
    std::stable_sort(found.begin(), found.end(), [&](const ThreadPtr &a, const ThreadPtr &b) {
        // Ties (same millisecond) by id: v7 ids grow with time.
        const auto ka = std::pair{key(a), a->id};
        const auto kb = std::pair{key(b), b->id};
        return ascending ? ka < kb : kb < ka;
    });
    HeaderList headers;
    QJsonArray array;
    for (const ThreadPtr &thread :
         page(found, body->value("limit"_L1).toInteger(10), body->value("offset"_L1).toInteger(0), &headers))
        array.append(langGraphThreadJson(*thread));
    sendJsonArray(exchange, 200, array, headers);
}

void LangGraphSimulator::handleDeleteThread(const Exchange &exchange, const ThreadPtr &thread)
{
    for (const QString &runId : QStringList(thread->runIds)) {
        if (LangGraphSimRun *run = m_runs.value(runId)) {
            run->cancel(LangGraphSimRun::CancelAction::Interrupt);
            removeRun(run);
        }
    }
    m_threads.remove(thread->id);
    sendEmpty(exchange, 204);
}

void LangGraphSimulator::handleCreateRun(const Exchange &exchange, const HttpRequest &request,
                                         const ThreadPtr &thread, bool stream)
{
    bool isObject = true;
    const auto body = bodyObject(request, &isObject);
    if (!body || !isObject) {
        sendText(exchange, body ? 422 : 400, u"Malformed JSON in request body"_s);
        return;
    }
    const QString assistantId = body->value("assistant_id"_L1).toString();
    if (assistantId.isEmpty()) {
        sendText(exchange, 422, u"assistant_id is required"_s);
        return;
    }
    const auto graph = graphOf(assistantId);
    if (!graph) {
        sendText(exchange, 404,
                 u"No assistant found for \"%1\". Make sure the assistant ID is for a valid assistant or a "
                 u"valid graph ID."_s.arg(assistantId));
        return;
    }
    // multitask_strategy "reject", the default: one run at a time per thread.
    if (!thread->activeRunId.isEmpty()) {
        sendText(exchange, 422, kBusy);
        return;
    }

    LangGraphRunParams params;
    params.threadId = thread->id;
    params.graph = *graph;
    params.assistantId = langGraphAssistantId(*graph).toString(QUuid::WithoutBraces);
    params.userAgent = QString::fromUtf8(request.header("user-agent"));
    static const QStringList kModes{u"values"_s,  u"messages"_s, u"messages-tuple"_s,
                                    u"updates"_s, u"events"_s,   u"debug"_s,
                                    u"custom"_s,  u"tasks"_s,    u"checkpoints"_s};
    const QJsonValue modes = body->value("stream_mode"_L1);
    if (modes.isString()) {
        params.streamModes = {modes.toString()};
    } else if (modes.isArray()) {
        for (const QJsonValue &mode : modes.toArray())
            params.streamModes.append(mode.toString());
    } else if (modes.isUndefined() || modes.isNull()) {
        params.streamModes = {u"values"_s};
    }
    for (const QString &mode : std::as_const(params.streamModes)) {
        if (!kModes.contains(mode)) {
            sendText(exchange, 422, u"Invalid stream_mode \"%1\""_s.arg(mode));
            return;
        }
    }
    const QJsonValue input = body->value("input"_L1);
    const QJsonValue command = body->value("command"_L1);
    if (!input.isUndefined() && !input.isNull()) {
        params.hasInput = true;
        const QJsonValue messages = input.toObject().value("messages"_L1);
        if (!input.isObject() || (!messages.isUndefined() && !messages.isArray())) {
            sendText(exchange, 422, u"input must be an object with a messages array"_s);
            return;
        }
        for (const QJsonValue &value : messages.toArray()) {
            const QJsonObject message = value.toObject();
            const QString type = messageType(message);
            const QJsonValue content = message.value("content"_L1);
            if (type.isEmpty() || !(content.isString() || content.isArray())) {
                sendText(exchange, 422, u"Each input message needs a role (or type) and content"_s);
                return;
            }
            const QString id
                = message.value("id"_L1).toString(QUuid::createUuid().toString(QUuid::WithoutBraces));
            params.inputMessages.append(langGraphInputMessage(type, content, id));
        }
    } else if (command.isObject() && command.toObject().contains("resume"_L1)) {
        params.resume = command.toObject().value("resume"_L1);
    }
    const QJsonValue metadata = body->value("metadata"_L1);
    if (!metadata.isUndefined() && !metadata.isNull() && !metadata.isObject()) {
        sendText(exchange, 422, u"metadata must be an object"_s);
        return;
    }
    params.resumable = body->value("stream_resumable"_L1).toBool();

    // Options come from the newest user text: this request's, else the thread's.
    QString prompt;
    for (const QJsonValue &message : std::as_const(params.inputMessages)) {
        if (message.toObject().value("type"_L1).toString() == "human"_L1)
            prompt = langGraphContentText(message.toObject().value("content"_L1));
    }
    for (qsizetype i = thread->messages.size() - 1; prompt.isEmpty() && i >= 0; --i) {
        const QJsonObject message = thread->messages.at(i).toObject();
        if (message.value("type"_L1).toString() == "human"_L1)
            prompt = langGraphContentText(message.value("content"_L1));
    }
    LangGraphRunOptions options;
    if (const auto error = resolveRunOptions(m_config, *graph, prompt, metadata.toObject(), &options)) {
        sendText(exchange, 422, error->message);
        return;
    }

    const QString graphId = langGraphGraphName(*graph);
    params.metadata = metadata.toObject();
    params.metadata.insert(u"created_by"_s, u"system"_s);
    params.metadata.insert(u"graph_id"_s, graphId);
    params.metadata.insert(u"assistant_id"_s, params.assistantId);
    if (!thread->metadata.contains("graph_id"_L1)) {
        thread->metadata.insert(u"graph_id"_s, graphId);
        thread->metadata.insert(u"assistant_id"_s, params.assistantId);
    }
    if (thread->config.isEmpty() && !params.userAgent.isEmpty())
        thread->config = QJsonObject{{u"configurable"_s, QJsonObject{{u"user-agent"_s, params.userAgent}}}};

    const QString runId = newLangGraphUuid7();
    // The run's own ids go into its kwargs, as the server echoes them.
    QJsonObject configurable{{u"run_id"_s, runId},
                             {u"thread_id"_s, thread->id},
                             {u"graph_id"_s, graphId},
                             {u"assistant_id"_s, params.assistantId}};
    if (!params.userAgent.isEmpty())
        configurable.insert(u"user-agent"_s, params.userAgent);
    params.kwargs = QJsonObject{
        {u"config"_s, QJsonObject{{u"configurable"_s, configurable}, {u"metadata"_s, params.metadata}}},
        {u"context"_s, body->value("context"_L1).isObject() ? body->value("context"_L1) : QJsonObject()},
        {u"stream_mode"_s, QJsonArray::fromStringList(params.streamModes)},
        {u"temporary"_s, false},
        {u"subgraphs"_s, body->value("stream_subgraphs"_L1).toBool()},
        {u"resumable"_s, params.resumable},
    };
    if (params.hasInput) {
        params.kwargs.insert(u"input"_s, input);
    } else if (command.isObject()) {
        params.kwargs.insert(u"command"_s, command);
    }
    LangGraphSimRun *run = createRun(runId, params, options);
    run->start();

    const QByteArray location = "/threads/" + thread->id.toUtf8() + "/runs/" + run->id().toUtf8();
    // No Location header, as the dev server: only Content-Location names the run.
    const HeaderList headers{{QByteArrayLiteral("Content-Location"), location}};
    if (stream) {
        const bool cancelOnDisconnect = body->value("on_disconnect"_L1).toString() == "cancel"_L1;
        // The creator reads the whole log: it creates it, resumable when asked to be.
        run->claimLog();
        openStream(exchange, run, run->resumable() ? std::optional<qsizetype>(0) : std::nullopt,
                   cancelOnDisconnect, headers);
    } else {
        sendJson(exchange, 200, run->json(), headers);
    }
}

void LangGraphSimulator::handleListRuns(const Exchange &exchange, const HttpRequest &request,
                                        const LangGraphSimThread &thread)
{
    bool limitOk = true;
    bool offsetOk = true;
    const QString limitText = request.query.queryItemValue(u"limit"_s);
    const QString offsetText = request.query.queryItemValue(u"offset"_s);
    const qint64 limit = limitText.isEmpty() ? 10 : limitText.toLongLong(&limitOk);
    const qint64 offset = offsetText.isEmpty() ? 0 : offsetText.toLongLong(&offsetOk);
    if (!limitOk || !offsetOk || limit < 0 || offset < 0) {
        sendText(exchange, 422, u"limit and offset must be non-negative integers"_s);
        return;
    }
    const QString status = request.query.queryItemValue(u"status"_s);
    QList<const LangGraphSimRun *> runs;
    for (const QString &id : thread.runIds) {
        const LangGraphSimRun *run = m_runs.value(id);
        if (run && (status.isEmpty() || run->statusName() == status))
            runs.append(run);
    }
    // Oldest first, as 1.5.1 answers (so `limit=1` is a thread's first run, not its latest).
    if (m_config.runsNewestFirst)
        std::reverse(runs.begin(), runs.end());
    HeaderList headers;
    QJsonArray array;
    for (const LangGraphSimRun *run : page(runs, limit, offset, &headers))
        array.append(run->json());
    sendJsonArray(exchange, 200, array);
}

void LangGraphSimulator::handleJoin(const Exchange &exchange, const HttpRequest &request,
                                    LangGraphSimRun *run)
{
    const QString cancelQuery = request.query.queryItemValue(u"cancel_on_disconnect"_s);
    const bool cancelOnDisconnect = cancelQuery == "1"_L1 || cancelQuery == "true"_L1;
    if (!run->resumable()) {
        // A queue: each event to one reader; Last-Event-ID means nothing here.
        openStream(exchange, run, std::nullopt, cancelOnDisconnect);
        return;
    }
    const QByteArray header = request.header("last-event-id").trimmed();
    bool ok = false;
    const qint64 last = header.toLongLong(&ok);
    if (!header.isEmpty() && ok) {
        // -1: from the first event, even after the run ended; k: right after k.
        run->claimLog();
        openStream(exchange, run, qsizetype(qBound<qint64>(0, last < 0 ? 0 : last + 1, run->events().size())),
                   cancelOnDisconnect);
        return;
    }
    if (run->makeQueueIfFirst()) {
        // The trap clients must avoid: the first join came without the header before the first
        // event, and the log stops being resumable for everyone.
        openStream(exchange, run, std::nullopt, cancelOnDisconnect);
        return;
    }
    // No header: only what comes from now on.
    openStream(exchange, run, run->events().size(), cancelOnDisconnect);
}

void LangGraphSimulator::handleCancel(const Exchange &exchange, const HttpRequest &request,
                                      LangGraphSimRun *run)
{
    const QString action = request.query.queryItemValue(u"action"_s);
    if (!action.isEmpty() && action != "interrupt"_L1 && action != "rollback"_L1) {
        sendText(exchange, 422, u"action must be interrupt or rollback"_s);
        return;
    }
    // A finished run: 202 all the same, and nothing changes.
    run->cancel(action == "rollback"_L1 ? LangGraphSimRun::CancelAction::Rollback
                                        : LangGraphSimRun::CancelAction::Interrupt);
    if (!request.query.hasQueryItem(u"wait"_s)) {
        sendEmpty(exchange, 202);
        return;
    }
    // Any `wait` value, even 0 or false, makes the dev server wait for the run's end: 204 later.
    // (A timer of the connection's own, so that the reply goes with the connection if it closes.)
    if (HttpConnection *connection = exchange.connection) {
        auto *later = new QTimer(connection);
        later->setSingleShot(true);
        const qint64 serial = exchange.serial;
        connect(later, &QTimer::timeout, this, [this, connection, serial, later] {
            later->deleteLater();
            sendEmpty(Exchange{connection, serial}, 204);
        });
        later->start(qMax(0, m_config.closeDelayMs));
    }
}

void LangGraphSimulator::openStream(const Exchange &exchange, LangGraphSimRun *run,
                                    std::optional<qsizetype> first, bool cancelOnDisconnect,
                                    const HeaderList &headers)
{
    if (!exchange.connection)
        return;
    beginEventStream(exchange.connection, headers);
    recordStatus(exchange, 200);
    const int index = run->openStreamConnection();
    LangGraphStreamSettings settings;
    settings.splitWrites = run->options().splitWrites;
    settings.closeDelayMs = m_config.closeDelayMs;
    auto *stream = new LangGraphSimStream(exchange.connection, run,
                                          run->options().streamFaults.hitConnection(index), settings, this);
    m_streams.removeIf([](const QPointer<LangGraphSimStream> &s) { return !s; });
    m_streams.append(stream);
    const QString id = run->id();
    connect(stream, &SimStream::finished, this, [this, id] { Q_EMIT streamClosed(id); });
    if (cancelOnDisconnect) {
        const QPointer<LangGraphSimRun> guarded(run);
        connect(stream, &LangGraphSimStream::clientGone, this, [guarded] {
            if (guarded)
                guarded->cancel(LangGraphSimRun::CancelAction::Interrupt);
        });
    }
    Q_EMIT streamOpened(id, index);
    if (first) {
        stream->startLog(*first);
    } else {
        stream->startQueue();
    }
}

} // namespace RunwatchSim
