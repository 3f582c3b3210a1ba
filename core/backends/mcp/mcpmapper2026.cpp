// SPDX-License-Identifier: GPL-3.0-or-later
#include "mcpmapper2026.h"

#include "mcpmapper.h"

#include <QCoreApplication>
#include <QJsonArray>

using namespace Qt::StringLiterals;

namespace Runwatch::Mcp2026 {

namespace {
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(McpConnector)
};
} // namespace

bool isTask(const QJsonObject &result)
{
    return result.value(u"resultType"_s).toString() == "task"_L1
           || !result.value(u"task"_s).toObject().value(u"taskId"_s).toString().isEmpty();
}

QJsonObject taskOf(const QJsonObject &result)
{
    const QJsonObject nested = result.value(u"task"_s).toObject();
    return nested.contains(u"taskId"_s) ? nested : result;
}

QJsonObject taskExtra(const QJsonObject &task)
{
    QJsonObject extra;
    if (const QJsonValue ttl = task.value(u"ttlMs"_s); ttl.isDouble())
        extra.insert(Mcp::kTtlMs, ttl.toInteger());
    if (const QJsonValue poll = task.value(u"pollIntervalMs"_s); poll.isDouble())
        extra.insert(Mcp::kPollIntervalMs, poll.toInteger());
    if (const QString created = task.value(u"createdAt"_s).toString(); !created.isEmpty())
        extra.insert(Mcp::kCreatedAt, created);
    return extra;
}

QList<RunEvent> detailedTaskEvents(const QJsonObject &task, const QStringList &answered)
{
    const QString status = task.value(u"status"_s).toString();
    const QString message = task.value(u"statusMessage"_s).toString();
    if (status == "completed"_L1) {
        // A tool result with isError is a completed task here (§9): the mapping makes it a failure.
        return Mcp::resultEvents(task.value(u"result"_s).toObject(), u"completed", message);
    }
    if (status == "failed"_L1) {
        const QJsonObject error = task.value(u"error"_s).toObject();
        QList<RunEvent> events;
        RunError e
            = Mcp::rpcError(qint64(error.value(u"code"_s).toDouble()), error.value(u"message"_s).toString());
        e.kind = ErrorKind::Run;
        if (e.message.isEmpty())
            e.message = message.isEmpty() ? Text::tr("The tool failed without saying why.") : message;
        events << RunEvent::failure(e) << RunEvent::statusChange(RunStatus::Failed, status);
        return events;
    }
    if (status == "input_required"_L1) {
        const QJsonObject requests = task.value(u"inputRequests"_s).toObject();
        for (auto it = requests.constBegin(); it != requests.constEnd(); ++it) {
            const QJsonObject request = it.value().toObject();
            if (answered.contains(it.key())
                || request.value(u"method"_s).toString() != "elicitation/create"_L1)
                continue;
            InputRequest input = Mcp::inputRequestFor(it.key(), request.value(u"params"_s).toObject(), {});
            input.raw.insert(u"revision"_s, QString(Mcp::kRevision2026));
            input.raw.insert(u"key"_s, it.key());
            QList<RunEvent> events;
            if (!message.isEmpty()) {
                events << RunEvent::secondarySnapshot(SecondaryKind::Progress, Mcp::kStatusItem,
                                                      Text::tr("status"), message);
            }
            events << RunEvent::inputRequired(input)
                   << RunEvent::statusChange(RunStatus::InputRequired, status);
            return events;
        }
        // Every request answered: the server has not taken the answer yet.
        QJsonObject working = task;
        working.insert(u"status"_s, u"working"_s);
        QList<RunEvent> events = Mcp::taskEvents(working);
        events.last().rawStatus = status;
        return events;
    }
    return Mcp::taskEvents(task);
}

QJsonObject updateParams(const QString &taskId, const QString &key, const QJsonObject &elicitResult)
{
    return {{u"taskId"_s, taskId}, {u"inputResponses"_s, QJsonObject{{key, elicitResult}}}};
}

QString inputKeyOf(const InputRequest &request)
{
    return request.raw.value(u"revision"_s).toString() == Mcp::kRevision2026
               ? request.raw.value(u"key"_s).toString()
               : QString();
}

QList<RunEvent> withStoredRequest(const QString &taskId, QList<RunEvent> events)
{
    for (const RunEvent &e : std::as_const(events)) {
        if (e.type != RunEvent::Type::InputRequired || !e.input)
            continue;
        RunEvent identity = RunEvent::identity(taskId, {}, true);
        identity.tokenExtra.insert(Mcp::kElicitation,
                                   Mcp::elicitationEntry(e.input->raw.value(u"key"_s),
                                                         e.input->raw.value(u"params"_s).toObject(), {}));
        events.prepend(identity);
        break;
    }
    return events;
}

} // namespace Runwatch::Mcp2026
