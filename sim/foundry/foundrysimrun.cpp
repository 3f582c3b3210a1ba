// SPDX-License-Identifier: GPL-3.0-or-later
// The plan of one simulated Foundry run and its pace: which steps run, when, and how a submit, a
// cancel or the expiry changes that. The JSON shapes are in foundrysimwire.cpp.
#include "foundrysimrun.h"

#include "server/httpmessage.h"
#include "server/simserver.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QSet>
#include <QTimer>

#include <atomic>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

// Word plus the whitespace after it, so that joining the chunks gives the text back.
QStringList chunkWords(const QString &text)
{
    QStringList chunks;
    QString current;
    for (const QChar c : text) {
        if (!c.isSpace() && !current.isEmpty() && current.back().isSpace()) {
            chunks.append(current);
            current.clear();
        }
        current.append(c);
    }
    if (!current.isEmpty())
        chunks.append(current);
    return chunks;
}

QString randomId(QLatin1StringView prefix)
{
    return QString(prefix) + QString::fromLatin1(randomHex(12));
}

qint64 now()
{
    return QDateTime::currentSecsSinceEpoch();
}

} // namespace

qint64 nextFoundryMessageSerial()
{
    static std::atomic<qint64> serial{0};
    return ++serial;
}

FoundrySimRun::FoundrySimRun(const QString &id, const FoundryRunParams &params,
                             const FoundryRunOptions &options, QObject *parent)
    : QObject(parent)
    , m_id(id)
    , m_params(params)
    , m_options(options)
    , m_timer(new QTimer(this))
    , m_expiry(new QTimer(this))
{
    m_createdAt = now();
    // expires_at is whole seconds on the wire; round up so that it never claims an earlier end.
    m_expiresAt = m_createdAt + (m_options.expiresMs + 999) / 1000;
    if (!m_options.reply.isEmpty()) {
        m_replyChunks = chunkWords(m_options.reply);
        m_options.deltas = int(qMax<qsizetype>(1, m_replyChunks.size()));
        m_options.messages = 1;
        m_options.parts = 1;
        m_options.failAfter = qMin(m_options.failAfter, m_options.deltas);
    }
    m_timer->setSingleShot(true);
    connect(m_timer, &QTimer::timeout, this, &FoundrySimRun::onTimer);
    m_expiry->setSingleShot(true);
    connect(m_expiry, &QTimer::timeout, this, &FoundrySimRun::expire);
    buildPlan();
}

FoundrySimRun::~FoundrySimRun() = default;

QString FoundrySimRun::statusName(Status status)
{
    switch (status) {
    case Status::Queued:
        return u"queued"_s;
    case Status::InProgress:
        return u"in_progress"_s;
    case Status::RequiresAction:
        return u"requires_action"_s;
    case Status::Cancelling:
        return u"cancelling"_s;
    case Status::Cancelled:
        return u"cancelled"_s;
    case Status::Failed:
        return u"failed"_s;
    case Status::Completed:
        return u"completed"_s;
    case Status::Expired:
        return u"expired"_s;
    case Status::Incomplete:
        return u"incomplete"_s;
    }
    return u"queued"_s;
}

bool FoundrySimRun::isTerminal() const
{
    switch (m_status) {
    case Status::Cancelled:
    case Status::Failed:
    case Status::Completed:
    case Status::Expired:
    case Status::Incomplete:
        return true;
    default:
        return false;
    }
}

void FoundrySimRun::buildPlan()
{
    const FoundryScenario scenario = m_options.scenario;
    m_plan.append({Op::InProgress, 0, 0});
    if (scenario == FoundryScenario::Long)
        m_plan.append({Op::CodeStep, 0, 0});
    const bool action = scenario == FoundryScenario::Tool || scenario == FoundryScenario::Tools
                        || scenario == FoundryScenario::Approval || scenario == FoundryScenario::Expire;
    if (action) {
        m_plan.append({Op::Action, 0, 0});
        m_plan.append({Op::InProgress, 0, 0});
        m_plan.append({Op::ActionDone, 0, 0});
    }
    int deltas = 0;
    for (int m = 0; m < m_options.messages; ++m) {
        m_plan.append({Op::MessageStart, m, 0});
        for (int p = 0; p < m_options.parts; ++p) {
            for (int d = 0; d < m_options.deltas; ++d) {
                if (scenario == FoundryScenario::Fail && deltas == m_options.failAfter) {
                    m_plan.append({Op::Failed, m, 0});
                    return;
                }
                m_plan.append({Op::Delta, m, p});
                ++deltas;
            }
        }
        if (scenario == FoundryScenario::Incomplete && m == m_options.messages - 1) {
            m_plan.append({Op::Incomplete, m, 0});
            return;
        }
        m_plan.append({Op::MessageDone, m, 0});
    }
    m_plan.append({scenario == FoundryScenario::Fail ? Op::Failed : Op::Completed, 0, 0});
}

void FoundrySimRun::start()
{
    if (m_started)
        return;
    m_started = true;
    if (m_params.threadCreated)
        appendEvent("thread.created", m_params.threadJson);
    runEvent("thread.run.created");
    runEvent("thread.run.queued");
    m_expiry->start(int(qMin<qint64>(m_options.expiresMs, std::numeric_limits<int>::max())));
    scheduleNext();
}

void FoundrySimRun::scheduleNext()
{
    if (m_waiting || m_ended || m_status == Status::Cancelling || m_next >= m_plan.size())
        return;
    const Step &step = m_plan.at(m_next);
    m_timer->start(step.op == Op::InProgress ? m_options.queuedMs : m_options.intervalMs);
}

void FoundrySimRun::onTimer()
{
    if (m_waiting || m_ended || m_status == Status::Cancelling || m_next >= m_plan.size())
        return;
    const Step step = m_plan.at(m_next++);
    runStep(step);
    scheduleNext();
}

QString FoundrySimRun::deltaText(int index) const
{
    QString text = index == 0 ? m_prefix : QString();
    if (!m_replyChunks.isEmpty())
        return text + m_replyChunks.value(index);
    return text + u"tok%1 "_s.arg(index);
}

void FoundrySimRun::runStep(const Step &step)
{
    switch (step.op) {
    case Op::InProgress:
        if (m_startedAt == 0)
            m_startedAt = now();
        setStatus(Status::InProgress);
        runEvent("thread.run.in_progress");
        break;
    case Op::CodeStep: {
        FoundrySimStep code;
        code.id = randomId("step_"_L1);
        code.type = u"tool_calls"_s;
        code.createdAt = now();
        code.calls.append({randomId("call_"_L1), u"code_interpreter"_s, QString(), u"print(6 * 7)"_s,
                           QString(), u"42"_s, true, false});
        m_steps.append(code);
        appendEvent("thread.run.step.created", stepJson(m_steps.last()));
        m_steps.last().status = u"completed"_s;
        m_steps.last().completedAt = now();
        appendEvent("thread.run.step.completed", stepJson(m_steps.last()));
        break;
    }
    case Op::Action: {
        FoundrySimStep tools;
        tools.id = randomId("step_"_L1);
        tools.type = u"tool_calls"_s;
        tools.createdAt = now();
        if (m_options.scenario == FoundryScenario::Approval) {
            m_actionType = u"submit_tool_approval"_s;
            tools.calls.append({randomId("call_"_L1), u"mcp"_s, u"search_docs"_s,
                                u"{\"query\":\"background runs\"}"_s, u"docs"_s, QString(), false, false});
        } else {
            m_actionType = u"submit_tool_outputs"_s;
            tools.calls.append({randomId("call_"_L1), u"function"_s, u"get_weather"_s,
                                u"{\"location\":\"Seattle\"}"_s, QString(), QString(), false, false});
            if (m_options.scenario == FoundryScenario::Tools) {
                tools.calls.append({randomId("call_"_L1), u"function"_s, u"get_time"_s,
                                    u"{\"timezone\":\"America/Los_Angeles\"}"_s, QString(), QString(), false,
                                    false});
            }
        }
        m_steps.append(tools);
        m_actionStep = int(m_steps.size() - 1);
        appendEvent("thread.run.step.created", stepJson(m_steps.last()));
        m_waiting = true;
        setStatus(Status::RequiresAction);
        runEvent("thread.run.requires_action");
        // The stream of this request ends here; the submit opens the next one.
        appendDone();
        break;
    }
    case Op::ActionDone:
        if (m_actionStep >= 0) {
            m_steps[m_actionStep].status = u"completed"_s;
            m_steps[m_actionStep].completedAt = now();
            appendEvent("thread.run.step.completed", stepJson(m_steps.at(m_actionStep)));
        }
        break;
    case Op::MessageStart: {
        FoundrySimMessage message;
        message.id = randomId("msg_"_L1);
        message.threadId = m_params.threadId;
        message.role = u"assistant"_s;
        message.runId = m_id;
        message.assistantId = m_params.assistantId;
        message.createdAt = now();
        message.serial = nextFoundryMessageSerial();
        message.status = u"in_progress"_s;
        m_messages.append(message);
        FoundrySimStep creation;
        creation.id = randomId("step_"_L1);
        creation.type = u"message_creation"_s;
        creation.createdAt = now();
        creation.messageId = message.id;
        m_steps.append(creation);
        appendEvent("thread.run.step.created", stepJson(creation));
        appendEvent("thread.message.created", messageJson(message));
        appendEvent("thread.message.in_progress", messageJson(message));
        break;
    }
    case Op::Delta: {
        FoundrySimMessage &message = m_messages.last();
        while (message.parts.size() <= step.part)
            message.parts.append(QString());
        const QString text = deltaText(m_deltasDone++);
        message.parts[step.part] += text;
        const QJsonObject part{
            {u"index"_s, step.part},
            {u"type"_s, u"text"_s},
            {u"text"_s, QJsonObject{{u"value"_s, text}, {u"annotations"_s, QJsonArray()}}}};
        appendEvent("thread.message.delta",
                    QJsonObject{{u"id"_s, message.id},
                                {u"object"_s, u"thread.message.delta"_s},
                                {u"delta"_s, QJsonObject{{u"content"_s, QJsonArray{part}}}}});
        break;
    }
    case Op::MessageDone: {
        FoundrySimMessage &message = m_messages.last();
        message.status = u"completed"_s;
        appendEvent("thread.message.completed", messageJson(message));
        for (FoundrySimStep &s : m_steps) {
            if (s.messageId == message.id) {
                s.status = u"completed"_s;
                s.completedAt = now();
                appendEvent("thread.run.step.completed", stepJson(s));
            }
        }
        break;
    }
    case Op::Completed:
        finish(Status::Completed, "thread.run.completed");
        break;
    case Op::Failed:
        if (!m_messages.isEmpty())
            m_messages.last().status = u"incomplete"_s;
        finish(Status::Failed, "thread.run.failed");
        break;
    case Op::Incomplete:
        if (!m_messages.isEmpty()) {
            m_messages.last().status = u"incomplete"_s;
            appendEvent("thread.message.incomplete", messageJson(m_messages.last()));
        }
        finish(Status::Incomplete, "thread.run.incomplete");
        break;
    }
}

QString FoundrySimRun::submit(const QJsonObject &body)
{
    if (m_status != Status::RequiresAction || !m_waiting || m_actionStep < 0)
        return u"Runs in status \"%1\" do not accept tool outputs."_s.arg(statusName());
    const bool approvals = m_actionType == "submit_tool_approval"_L1;
    const QString key = approvals ? u"tool_approvals"_s : u"tool_outputs"_s;
    if (!body.value(key).isArray())
        return u"'%1' is required: the run requires action of type '%2'."_s.arg(key, m_actionType);
    QList<FoundrySimToolCall> &calls = m_steps[m_actionStep].calls;
    QStringList expected;
    for (const FoundrySimToolCall &call : calls)
        expected.append(u"'%1'"_s.arg(call.id));
    QStringList got;
    QHash<QString, QJsonObject> answers;
    for (const QJsonValue &value : body.value(key).toArray()) {
        const QJsonObject answer = value.toObject();
        const QString callId = answer.value("tool_call_id"_L1).toString();
        got.append(u"'%1'"_s.arg(callId));
        if (approvals ? !answer.value("approve"_L1).isBool() : !answer.value("output"_L1).isString()) {
            return u"Each entry of '%1' needs tool_call_id and %2."_s.arg(
                key, approvals ? u"approve (boolean)"_s : u"output (string)"_s);
        }
        answers.insert(callId, answer);
    }
    QStringList sortedExpected = expected;
    QStringList sortedGot = got;
    sortedExpected.sort();
    sortedGot.sort();
    if (sortedExpected != sortedGot) {
        return u"Expected tool outputs for call_ids [%1], got [%2]"_s.arg(expected.join(u", "_s),
                                                                          got.join(u", "_s));
    }
    m_prefix.clear();
    for (FoundrySimToolCall &call : calls) {
        const QJsonObject answer = answers.value(call.id);
        call.answered = true;
        if (approvals) {
            call.approved = answer.value("approve"_L1).toBool();
            m_prefix += u"[%1: %2] "_s.arg(call.approved ? u"approved"_s : u"rejected"_s, call.name);
        } else {
            call.output = answer.value("output"_L1).toString();
            m_prefix += u"[%1: %2] "_s.arg(call.id, call.output);
        }
    }
    m_waiting = false;
    setStatus(Status::Queued);
    runEvent("thread.run.queued");
    scheduleNext();
    return QString();
}

QString FoundrySimRun::cancel()
{
    if (m_status == Status::Cancelling)
        return QString();
    if (isTerminal())
        return u"Cannot cancel run with status '%1'."_s.arg(statusName());
    m_timer->stop();
    m_waiting = false;
    setStatus(Status::Cancelling);
    runEvent("thread.run.cancelling");
    // The service confirms a little later: clients must show "cancelling" until it does.
    QTimer::singleShot(qMax(m_options.intervalMs, 1), this, [this] {
        if (m_status == Status::Cancelling)
            finish(Status::Cancelled, "thread.run.cancelled");
    });
    return QString();
}

void FoundrySimRun::expire()
{
    if (isTerminal() || m_status == Status::Cancelling)
        return;
    m_timer->stop();
    m_waiting = false;
    if (m_actionStep >= 0 && m_steps.at(m_actionStep).status == "in_progress"_L1) {
        m_steps[m_actionStep].status = u"expired"_s;
        appendEvent("thread.run.step.expired", stepJson(m_steps.at(m_actionStep)));
    }
    finish(Status::Expired, "thread.run.expired");
}

void FoundrySimRun::finish(Status status, const QByteArray &eventName)
{
    m_timer->stop();
    m_expiry->stop();
    m_endedAt = now();
    setStatus(status);
    runEvent(eventName);
    appendDone();
    m_ended = true;
    Q_EMIT ended();
}

QList<FoundrySimToolCall> FoundrySimRun::pendingCalls() const
{
    if (m_status != Status::RequiresAction || m_actionStep < 0)
        return {};
    return m_steps.at(m_actionStep).calls;
}

QString FoundrySimRun::text() const
{
    QString text;
    for (const FoundrySimMessage &message : m_messages) {
        for (const QString &part : message.parts)
            text += part;
    }
    return text;
}

void FoundrySimRun::setStatus(Status status)
{
    if (m_status == status)
        return;
    m_status = status;
    Q_EMIT statusChanged(statusName());
}

void FoundrySimRun::appendEvent(const QByteArray &name, const QJsonObject &data)
{
    m_events.append({name, compactJson(data)});
    Q_EMIT eventAdded(int(m_events.size() - 1), name);
}

void FoundrySimRun::appendDone()
{
    m_events.append({QByteArrayLiteral("done"), QByteArrayLiteral("[DONE]")});
    Q_EMIT eventAdded(int(m_events.size() - 1), QByteArrayLiteral("done"));
}

void FoundrySimRun::runEvent(const QByteArray &name)
{
    appendEvent(name, json());
}

bool FoundrySimRun::takeHttpFault(FoundryEndpoint endpoint)
{
    return m_options.httpFault && m_options.httpFault->aimsAt(endpoint)
           && takeFault(m_options.httpFault->count, &m_httpFaultsServed);
}

} // namespace RunwatchSim
