// SPDX-License-Identifier: GPL-3.0-or-later
// The A2A simulator's JSON-RPC methods (§3-§8): send (blocking, non-blocking, streaming; answers to
// INPUT_REQUIRED), get, list, cancel and subscribe. Routing and framing are in a2asim.cpp.
#include "a2asim.h"

#include "a2asimrun.h"
#include "a2asimstream.h"
#include "a2asimwire.h"
#include "server/httpconnection.h"

#include <QJsonArray>
#include <QTimer>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

A2aSimRun *A2aSimulator::findTask(const Exchange &exchange, const QString &id)
{
    A2aSimRun *task = m_tasks.value(id);
    if (!task)
        sendRpcError(exchange, -32001, u"Task not found: %1"_s.arg(id));
    return task;
}

A2aSimStream *A2aSimulator::openStream(const Exchange &exchange, A2aSimRun *task)
{
    const StreamFaults &faults = task->options().faults;
    const bool faulted = faults.hitConnection(task->nextConnectionIndex());
    auto *stream = new A2aSimStream(exchange.connection, exchange.rpcId, v03(), faults, faulted, this);
    ++m_streamConnections;
    task->attach(stream);
    recordStatus(exchange, 200);
    return stream;
}

void A2aSimulator::sendOnceStream(const Exchange &exchange, const QJsonObject &response)
{
    auto *stream = new A2aSimStream(exchange.connection, exchange.rpcId, v03(), {}, false, this);
    ++m_streamConnections;
    stream->send(response);
    stream->end();
    stream->deleteLater();
}

void A2aSimulator::sendErrorStream(const Exchange &exchange, int code, const QString &message)
{
    auto *stream = new A2aSimStream(exchange.connection, exchange.rpcId, v03(), {}, false, this);
    ++m_streamConnections;
    stream->sendError(code, message);
    stream->end();
    stream->deleteLater();
}

void A2aSimulator::replyWithTask(const Exchange &exchange, A2aSimRun *task, bool streaming, bool blocking)
{
    if (streaming) {
        A2aSimStream *stream = openStream(exchange, task);
        stream->send({{u"task"_s, task->snapshot()}});
    } else if (blocking) {
        QPointer<A2aSimRun> guard = task;
        task->addWaiter([this, exchange, guard] {
            if (guard)
                sendResult(exchange, shaped({{u"task"_s, guard->snapshot()}}));
        });
    } else {
        sendResult(exchange, shaped({{u"task"_s, task->snapshot()}}));
    }
}

void A2aSimulator::handleSend(const Exchange &exchange, const QJsonObject &params, bool streaming)
{
    const QJsonObject message = params.value(u"message"_s).toObject();
    if (message.isEmpty() || !message.value(u"parts"_s).isArray() || a2aMessageText(message).isEmpty()) {
        sendRpcError(exchange, -32602, u"message with at least one text part is required."_s);
        return;
    }
    if (streaming && !m_config.streaming) {
        sendRpcError(exchange, -32004, u"Streaming is not supported by this agent."_s);
        return;
    }
    const QJsonObject configuration = params.value(u"configuration"_s).toObject();
    // 1.0: blocking unless returnImmediately; 0.3: non-blocking unless blocking:true.
    const bool blocking = v03() ? configuration.value(u"blocking"_s).toBool(false)
                                : !configuration.value(u"returnImmediately"_s).toBool(false);

    const QString taskId = message.value(u"taskId"_s).toString();
    if (!taskId.isEmpty()) {
        A2aSimRun *task = findTask(exchange, taskId);
        if (!task)
            return;
        const QString contextId = message.value(u"contextId"_s).toString();
        if (!contextId.isEmpty() && contextId != task->contextId()) {
            sendRpcError(exchange, -32602, u"contextId does not match the task's context."_s);
            return;
        }
        if (task->isTerminal()) {
            sendRpcError(exchange, -32004,
                         u"Task %1 is in a terminal state and cannot be modified."_s.arg(taskId));
            return;
        }
        if (task->takesMessagesWhileWorking()) {
            task->fold(message);
            replyWithTask(exchange, task, streaming, blocking);
            return;
        }
        if (!task->isInterrupted()) {
            sendRpcError(exchange, -32004,
                         u"Task %1 is working and does not take further messages."_s.arg(taskId));
            return;
        }
        task->answer(message);
        replyWithTask(exchange, task, streaming, blocking);
        return;
    }

    const A2aRunOptions options = resolveRunOptions(m_config, a2aMessageText(message));
    const QString contextId = message.value(u"contextId"_s).toString(a2aUuid());
    if (options.scenario == A2aScenario::Message) {
        const QJsonObject answer{
            {u"messageId"_s, a2aUuid()},
            {u"contextId"_s, contextId},
            {u"role"_s, u"ROLE_AGENT"_s},
            {u"parts"_s, QJsonArray{QJsonObject{{u"text"_s, u"Hello from the simulated agent."_s}}}}};
        if (streaming) {
            sendOnceStream(exchange, {{u"message"_s, answer}});
        } else {
            sendResult(exchange, shaped({{u"message"_s, answer}}));
        }
        return;
    }
    // Multi-turn memory: the tasks started earlier in this context are the conversation so far.
    QStringList earlier;
    for (const QString &id : std::as_const(m_taskOrder)) {
        if (const A2aSimRun *t = m_tasks.value(id); t && t->contextId() == contextId)
            earlier << t->prompt();
    }
    auto *task = new A2aSimRun(a2aUuid(), contextId, options, message, this);
    task->setEarlierTurns(earlier);
    connect(task, &A2aSimRun::stateChanged, this, &A2aSimulator::taskStateChanged);
    m_tasks.insert(task->id(), task);
    m_taskOrder.append(task->id());
    ++m_tasksCreated;
    m_lastTaskId = task->id();
    Q_EMIT taskCreated(task->id());
    replyWithTask(exchange, task, streaming, blocking);
    task->start();
}

void A2aSimulator::handleGet(const Exchange &exchange, const QJsonObject &params)
{
    A2aSimRun *task = findTask(exchange, params.value(u"id"_s).toString());
    if (!task)
        return;
    const int history = params.contains(u"historyLength"_s) ? params.value(u"historyLength"_s).toInt() : -1;
    const QJsonObject t = task->snapshot(history);
    sendResult(exchange, v03() ? QJsonValue(taskV03(t)) : QJsonValue(t));
}

void A2aSimulator::handleList(const Exchange &exchange, const QJsonObject &params)
{
    int pageSize = params.value(u"pageSize"_s).toInt(50);
    if (pageSize < 1 || pageSize > 100) {
        sendRpcError(exchange, -32602, u"pageSize must be between 1 and 100."_s);
        return;
    }
    const int offset = params.value(u"pageToken"_s).toString().toInt();
    const QString contextId = params.value(u"contextId"_s).toString();
    const int history = params.contains(u"historyLength"_s) ? params.value(u"historyLength"_s).toInt() : -1;
    const bool artifacts = params.value(u"includeArtifacts"_s).toBool(false);
    QList<A2aSimRun *> tasks;
    for (const QString &id : std::as_const(m_taskOrder)) {
        A2aSimRun *t = m_tasks.value(id);
        if (t && (contextId.isEmpty() || t->contextId() == contextId))
            tasks.prepend(t); // newest first
    }
    std::stable_sort(tasks.begin(), tasks.end(),
                     [](const A2aSimRun *a, const A2aSimRun *b) { return a->timestamp() > b->timestamp(); });
    QJsonArray page;
    for (qsizetype i = offset; i < tasks.size() && page.size() < pageSize; ++i)
        page.append(tasks.at(i)->snapshot(history, artifacts));
    const qsizetype next = offset + page.size();
    sendResult(exchange,
               QJsonObject{{u"tasks"_s, page},
                           {u"nextPageToken"_s, next < tasks.size() ? QString::number(next) : QString()},
                           {u"pageSize"_s, pageSize},
                           {u"totalSize"_s, int(tasks.size())}});
}

void A2aSimulator::handleCancel(const Exchange &exchange, const QJsonObject &params)
{
    const QString id = params.value(u"id"_s).toString();
    A2aSimRun *task = findTask(exchange, id);
    if (!task)
        return;
    const auto answer = [this, exchange](A2aSimRun *t) {
        sendResult(exchange, v03() ? QJsonValue(taskV03(t->snapshot())) : QJsonValue(t->snapshot()));
    };
    if (task->state() == A2aState::Canceled) {
        answer(task); // idempotent, as in the JS SDK (§8)
        return;
    }
    if (task->isTerminal() || task->options().cancel == u"refuse"_s) {
        sendRpcError(exchange, -32002, u"Task %1 cannot be canceled (state %2)."_s.arg(id, task->state()));
        return;
    }
    if (task->options().cancel == u"slow"_s) {
        // The agent acknowledges late, like an executor that finishes its step first.
        QPointer<A2aSimRun> guard = task;
        QTimer::singleShot(task->options().cancelDelayMs, this, [guard, answer] {
            if (!guard)
                return;
            if (!guard->isTerminal())
                guard->cancel();
            answer(guard);
        });
        return;
    }
    task->cancel();
    answer(task);
}

void A2aSimulator::handleSubscribe(const Exchange &exchange, const QJsonObject &params)
{
    const QString id = params.value(u"id"_s).toString();
    A2aSimRun *task = findTask(exchange, id);
    if (!task)
        return;
    if (!m_config.streaming) {
        sendRpcError(exchange, -32004, u"Streaming is not supported by this agent."_s);
        return;
    }
    if (task->isTerminal()) {
        const QString message = u"Task %1 is in a terminal state and cannot be subscribed to."_s.arg(id);
        if (v03()) {
            sendErrorStream(exchange, -32004,
                            message); // 0.3: an SSE stream that carries only the error (§6, JS SDK compat)
        } else {
            sendRpcError(exchange, -32004, message); // 1.0: plain JSON
        }
        return;
    }
    // The first event is the task as it is now; then everything that follows (§6).
    A2aSimStream *stream = openStream(exchange, task);
    stream->send({{u"task"_s, task->snapshot()}});
}

} // namespace RunwatchSim
