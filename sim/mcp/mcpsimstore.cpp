// SPDX-License-Identifier: GPL-3.0-or-later
#include "mcpsimstore.h"

#include "mcpsimwire.h"

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

constexpr int kPageSize = 10; // InMemoryTaskStore's PAGE_SIZE

} // namespace

McpSimStore::~McpSimStore()
{
    qDeleteAll(m_sessions);
}

McpSimSession *McpSimStore::addSession(const QString &protocolVersion, const QJsonObject &clientCapabilities)
{
    auto *session = new McpSimSession;
    session->id = newMcpSessionId();
    session->protocolVersion = protocolVersion;
    session->clientCapabilities = clientCapabilities;
    session->lastUsedMs = mcpNowMs();
    session->lastUse = ++m_uses;
    m_sessions.insert(session->id, session);
    return session;
}

McpSimSession *McpSimStore::use(const QString &id, qint64 idleMs)
{
    McpSimSession *session = m_sessions.value(id);
    if (!session)
        return nullptr;
    const qint64 now = mcpNowMs();
    if (idleMs >= 0 && now - session->lastUsedMs > idleMs) {
        removeSession(id);
        return nullptr;
    }
    session->lastUsedMs = now;
    session->lastUse = ++m_uses;
    return session;
}

void McpSimStore::removeSession(const QString &id)
{
    McpSimSession *session = m_sessions.take(id);
    if (!session)
        return;
    for (McpSimTask *task : std::as_const(m_tasks)) {
        if (task->params().sessionId == id && task->pendingInput())
            task->failInput(mcpErrorText(kMcpConnectionClosed, u"Connection closed"_s));
    }
    delete session;
}

QString McpSimStore::leastRecentlyUsed() const
{
    const McpSimSession *oldest = nullptr;
    for (const McpSimSession *session : m_sessions) {
        if (!oldest || session->lastUse < oldest->lastUse)
            oldest = session;
    }
    return oldest ? oldest->id : QString();
}

void McpSimStore::addTask(McpSimTask *task)
{
    forgetExpired();
    m_tasks.insert(task->id(), task);
    m_order.append(task->id());
}

bool McpSimStore::visible(const McpSimTask *task, const QString &sessionId) const
{
    const QString &owner = task->params().sessionId;
    return m_sessionFree || sessionId.isEmpty() || owner.isEmpty() || owner == sessionId;
}

McpSimTask *McpSimStore::task(const QString &id, const QString &sessionId)
{
    McpSimTask *task = m_tasks.value(id);
    if (!task)
        return nullptr;
    if (task->expired(mcpNowMs())) {
        removeTask(task);
        return nullptr;
    }
    return visible(task, sessionId) ? task : nullptr;
}

McpSimTask *McpSimStore::taskAwaiting(const QString &sessionId, qint64 requestId) const
{
    for (McpSimTask *task : m_tasks) {
        const auto &input = task->pendingInput();
        if (input && input->requestId == requestId && task->params().sessionId == sessionId
            && !task->params().revision2026)
            return task;
    }
    return nullptr;
}

void McpSimStore::removeTask(McpSimTask *task)
{
    task->halt();
    m_tasks.remove(task->id());
    m_order.removeOne(task->id());
    task->deleteLater();
}

void McpSimStore::forgetExpired()
{
    const qint64 now = mcpNowMs();
    for (qsizetype i = 0; i < m_order.size();) {
        McpSimTask *task = m_tasks.value(m_order.at(i));
        if (task && task->expired(now)) {
            removeTask(task);
        } else {
            ++i;
        }
    }
}

void McpSimStore::trim(int max)
{
    // A standalone server runs for days: finished tasks beyond the cap are forgotten.
    for (qsizetype i = 0; i < m_order.size() && m_tasks.size() >= max;) {
        McpSimTask *task = m_tasks.value(m_order.at(i));
        if (task && task->isTerminal()) {
            removeTask(task);
        } else {
            ++i;
        }
    }
}

bool McpSimStore::page(const QString &cursor, const QString &sessionId, QList<McpSimTask *> *tasks,
                       QString *nextCursor)
{
    forgetExpired();
    QList<McpSimTask *> all;
    for (const QString &id : std::as_const(m_order)) {
        McpSimTask *task = m_tasks.value(id);
        if (visible(task, sessionId))
            all.append(task);
    }
    qsizetype start = 0;
    if (!cursor.isEmpty()) {
        const auto at
            = std::find_if(all.cbegin(), all.cend(), [&](const McpSimTask *t) { return t->id() == cursor; });
        if (at == all.cend())
            return false;
        start = (at - all.cbegin()) + 1;
    }
    *tasks = all.mid(start, kPageSize);
    nextCursor->clear();
    if (start + kPageSize < all.size())
        *nextCursor = tasks->last()->id();
    return true;
}

} // namespace RunwatchSim
