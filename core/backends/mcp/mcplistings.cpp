// SPDX-License-Identifier: GPL-3.0-or-later
// McpBackend: what the server lists and says of itself — tools/list (agents, New Run), tasks/list
// (list --remote), the description and "Test connection".
#include "mcpbackend.h"

#include "mcplog.h"

#include <QCoreApplication>
#include <QJsonArray>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "McpConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(McpConnector)
};

// Pages of tools/list and tasks/list read at most: a server that never ends its cursor chain
// must not keep a command busy for ever.
constexpr int kMaxPages = 100;

// tasks/list, tools/list and the like take a cursor only when there is one.
QJsonObject cursorParams(const QString &cursor)
{
    return cursor.isEmpty() ? QJsonObject{} : QJsonObject{{u"cursor"_s, cursor}};
}

} // namespace

using namespace Mcp;

QCoro::Task<McpBackend::Tools> McpBackend::listTools(Session session)
{
    QPointer<McpBackend> self = this;
    Tools tools;
    QString cursor;
    for (int page = 0; page < kMaxPages; ++page) {
        const Reply reply = co_await m_transport->call(u"tools/list"_s, cursorParams(cursor), session);
        if (!self) {
            tools.error = RunError::cancelled();
            co_return tools;
        }
        if (!reply.ok()) {
            tools.error = reply.error;
            co_return tools;
        }
        const QJsonObject result = reply.result.toObject();
        for (const QJsonValue &tool : result.value(u"tools"_s).toArray()) {
            if (tool.isObject() && !tool.toObject().value(u"name"_s).toString().isEmpty())
                tools.tools << tool.toObject();
        }
        const QString next = result.value(u"nextCursor"_s).toString();
        if (next.isEmpty() || next == cursor)
            break;
        cursor = next;
    }
    co_return tools;
}

QCoro::Task<ListResult> McpBackend::list()
{
    QPointer<McpBackend> self = this;
    ListResult listed;
    const Opened opened = co_await sessionFor(QJsonObject());
    if (!self) {
        listed.error = RunError::cancelled();
        co_return listed;
    }
    if (!opened.ok()) {
        listed.error = opened.error;
        co_return listed;
    }
    if (opened.session.is2026()) {
        listed.error = RunError::unsupported(Text::tr("listing tasks (MCP 2026-07-28 has no tasks/list)"));
        co_return listed;
    }
    QString cursor;
    for (int page = 0; page < kMaxPages; ++page) {
        const Reply reply = co_await m_transport->call(u"tasks/list"_s, cursorParams(cursor), opened.session);
        if (!self) {
            listed.error = RunError::cancelled();
            co_return listed;
        }
        if (!reply.ok()) {
            listed.error = reply.error;
            co_return listed;
        }
        const QJsonObject result = reply.result.toObject();
        for (const QJsonValue &task : result.value(u"tasks"_s).toArray()) {
            const RemoteRunInfo info = remoteRunFor(task.toObject());
            if (!info.remoteId.isEmpty())
                listed.runs << info;
        }
        const QString next = result.value(u"nextCursor"_s).toString();
        if (next.isEmpty() || next == cursor)
            break;
        cursor = next;
    }
    co_return listed;
}

QCoro::Task<CatalogResult> McpBackend::catalog()
{
    QPointer<McpBackend> self = this;
    CatalogResult catalog;
    const Opened opened = co_await sessionFor(QJsonObject());
    if (!self) {
        catalog.error = RunError::cancelled();
        co_return catalog;
    }
    if (!opened.ok()) {
        catalog.error = opened.error;
        co_return catalog;
    }
    const Tools tools = co_await listTools(opened.session);
    if (!self) {
        catalog.error = RunError::cancelled();
        co_return catalog;
    }
    catalog.error = tools.error;
    for (const QJsonObject &tool : tools.tools)
        catalog.entries << catalogEntryFor(tool);
    co_return catalog;
}

QCoro::Task<ConnectionInfo> McpBackend::describe()
{
    QPointer<McpBackend> self = this;
    ConnectionInfo info;
    info.url = m_connection.baseUrl.toString();
    const Opened opened = co_await sessionFor(QJsonObject());
    if (!self) {
        info.error = RunError::cancelled();
        co_return info;
    }
    if (!opened.ok()) {
        info.error = opened.error;
        co_return info;
    }
    info.protocol = u"MCP %1 (Streamable HTTP)"_s.arg(opened.session.version);
    info.name = m_serverInfo.value(u"name"_s).toString();
    info.version = m_serverInfo.value(u"version"_s).toString();
    const QJsonObject tasks = opened.capabilities.value(u"tasks"_s).toObject();
    if (tasks.value(u"requests"_s).toObject().value(u"tools"_s).toObject().contains(u"call"_s))
        info.capabilities << Text::tr("tool calls as tasks");
    if (tasks.contains(u"list"_s))
        info.capabilities << Text::tr("task list");
    if (tasks.contains(u"cancel"_s))
        info.capabilities << Text::tr("task cancel");
    if (opened.session.is2026()
        && opened.capabilities.value(u"extensions"_s).toObject().contains(u"io.modelcontextprotocol/tasks"_s))
        info.capabilities << Text::tr("tasks extension");
    if (info.capabilities.isEmpty() && !opened.capabilities.isEmpty())
        info.warnings << Text::tr("The server declares no tasks: its tools cannot run as tasks.");
    const Tools tools = co_await listTools(opened.session);
    if (!self) {
        info.error = RunError::cancelled();
        co_return info;
    }
    for (const QJsonObject &tool : tools.tools) {
        info.skills << u"%1 (%2): %3"_s.arg(tool.value(u"name"_s).toString(), taskSupportOf(tool),
                                            tool.value(u"description"_s).toString());
    }
    co_return info;
}

QCoro::Task<ConnectionProbe> McpBackend::probe()
{
    QPointer<McpBackend> self = this;
    ConnectionProbe probe;
    const ConnectionInfo info = co_await describe();
    if (!self)
        co_return probe;
    probe.info = info;
    probe.ok = info.ok();
    probe.kind = info.ok() ? ConnectionProbe::Kind::Described : ConnectionProbe::Kind::Failed;
    probe.error = info.error;
    co_return probe;
}

} // namespace Runwatch
