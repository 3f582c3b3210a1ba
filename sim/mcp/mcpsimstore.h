// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The MCP simulator's state: its sessions (2025-11-25: id, negotiated version, the client's
// capabilities, the counter of the server's request ids, the standalone GET stream) and its task
// store with the SDK's visibility rule (InMemoryTaskStore: a task is seen only from the session
// that created it, and tasks created without a session from every session; or, session-free, every
// task from everywhere), ttl expiry, and pages of tasks/list.

#include "mcpsimtask.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <memory>

namespace RunwatchSim {

class McpSimStream;

struct McpSimSession
{
    QString id;
    QString protocolVersion;
    QJsonObject clientCapabilities;
    // The server's request ids on this session: 0, 1, … (they collide with the client's own).
    std::shared_ptr<qint64> nextRequestId = std::make_shared<qint64>(0);
    QPointer<McpSimStream> standalone; // the GET stream, while open
    qint64 lastUsedMs = 0;
    // The store's use count at its last use: the order of uses, which two uses within one
    // millisecond keep too (lastUsedMs does not).
    quint64 lastUse = 0;
};

class McpSimStore
{
public:
    McpSimStore() = default;
    ~McpSimStore();
    Q_DISABLE_COPY_MOVE(McpSimStore)

    void setSessionFree(bool free) { m_sessionFree = free; }
    bool sessionFree() const { return m_sessionFree; }

    McpSimSession *addSession(const QString &protocolVersion, const QJsonObject &clientCapabilities);
    McpSimSession *find(const QString &id) const { return m_sessions.value(id); }
    // The session a request names, now used; nullptr when unknown (or forgotten, or idle past
    // `idleMs` when >= 0: then forgotten now).
    McpSimSession *use(const QString &id, qint64 idleMs);
    // Forgets the session: its tasks stay, their pending input fails (the SDK's server object,
    // where the pending request lives, is gone).
    // `id` may be the session's own: it is not read after the session is deleted.
    void removeSession(const QString &id);
    QStringList sessionIds() const { return m_sessions.keys(); }
    // The id of the session used longest ago; empty when there is none.
    QString leastRecentlyUsed() const;
    int sessionCount() const { return int(m_sessions.size()); }

    // Takes ownership (the task's parent stays as given).
    void addTask(McpSimTask *task);
    // The task as `sessionId` sees it (empty: a call without a session sees every task), or nullptr
    // when unknown, invisible or expired (then forgotten).
    McpSimTask *task(const QString &id, const QString &sessionId);
    // Any task by id, whatever the session (inspection, 2026).
    McpSimTask *anyTask(const QString &id) const { return m_tasks.value(id); }
    // The task of `sessionId` whose pending input is the server's request `requestId`.
    McpSimTask *taskAwaiting(const QString &sessionId, qint64 requestId) const;
    QStringList taskIds() const { return m_order; }
    // Forgets finished tasks beyond `max`, oldest first.
    void trim(int max);

    // One page of tasks/list: up to 10 tasks after `cursor` (a task id; empty: the start), the
    // last one's id in *nextCursor when more follow. False when the cursor is unknown.
    bool page(const QString &cursor, const QString &sessionId, QList<McpSimTask *> *tasks,
              QString *nextCursor);

private:
    bool visible(const McpSimTask *task, const QString &sessionId) const;
    void removeTask(McpSimTask *task);
    void forgetExpired();

    bool m_sessionFree = false;
    quint64 m_uses = 0;
    QHash<QString, McpSimSession *> m_sessions;
    QHash<QString, McpSimTask *> m_tasks;
    QStringList m_order; // tasks in creation order
};

} // namespace RunwatchSim
