// SPDX-License-Identifier: GPL-3.0-or-later
// A task's plan: one step per interval. The tools that ask stop after `ask_after` steps and wait
// for the answer; fail stops after `fail_after` steps. What a step, a question, an answer and an
// end look like on the wire is the SDK server's (mcp-tasks.md §3–§6); the texts are the tools'
// own choice.
#include "mcpsimtask.h"

#include "mcpsimwire.h"

#include <QTimer>

#include <algorithm>
#include <limits>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

// A task that nobody reads with tasks/result must not grow without end: past this many queued
// messages the oldest progress notification goes [guessed: the SDK's queue has no default bound].
constexpr qsizetype kMaxQueued = 1000;

QString topicOf(const McpTaskParams &params)
{
    return params.arguments.value("topic"_L1).toString();
}

} // namespace

McpSimTask::McpSimTask(const QString &id, const McpTaskParams &params, const McpCallOptions &options,
                       QObject *parent)
    : QObject(parent)
    , m_id(id)
    , m_params(params)
    , m_options(options)
    , m_createdMs(mcpNowMs())
    , m_updatedMs(m_createdMs)
    , m_timer(new QTimer(this))
    , m_inputTimer(new QTimer(this))
{
    m_expiresMs = m_createdMs + m_params.ttlMs.value_or(0);
    m_timer->setInterval(m_options.intervalMs);
    connect(m_timer, &QTimer::timeout, this, &McpSimTask::onTick);
    m_inputTimer->setSingleShot(true);
    connect(m_inputTimer, &QTimer::timeout, this, [this] {
        // What the SDK's request timeout makes of an unanswered elicitInput.
        failInput(mcpErrorText(kMcpRequestTimeout, u"Request timed out"_s));
    });
}

McpSimTask::~McpSimTask() = default;

QString McpSimTask::statusName() const
{
    switch (m_status) {
    case Status::Working:
        return u"working"_s;
    case Status::InputRequired:
        return u"input_required"_s;
    case Status::Completed:
        return u"completed"_s;
    case Status::Failed:
        return u"failed"_s;
    case Status::Cancelled:
        return u"cancelled"_s;
    }
    return QString();
}

void McpSimTask::start()
{
    m_timer->start();
}

bool McpSimTask::cancel()
{
    if (isTerminal())
        return false;
    m_timer->stop();
    stopInput();
    m_queue.clear();
    setStatus(Status::Cancelled, u"Client cancelled task execution."_s);
    return true;
}

void McpSimTask::halt()
{
    m_timer->stop();
    m_inputTimer->stop();
}

bool McpSimTask::asks() const
{
    return m_params.tool == McpTool::Approve || m_params.tool == McpTool::Ask
           || m_params.tool == McpTool::SignIn;
}

void McpSimTask::onTick()
{
    if (m_status != Status::Working)
        return;
    if (asks() && !m_asked && m_step >= m_options.askAfter) {
        ask();
        return;
    }
    if (m_params.tool == McpTool::Fail && m_step >= m_options.failAfter) {
        if (m_options.failStatusOnly) {
            m_timer->stop();
            setStatus(Status::Failed, u"Failed: simulated failure after %1 steps"_s.arg(m_step));
            return;
        }
        fail(u"Simulated failure after %1 steps: %2 could not be finished."_s.arg(m_step).arg(
            topicOf(m_params)));
        return;
    }
    if (m_step >= m_options.steps) {
        complete();
        return;
    }
    m_text += mcpPieceText(m_step, m_options.replyWords);
    ++m_step;
    const QString message = u"Writing part %1 of %2"_s.arg(m_step).arg(m_options.steps);
    if ((m_params.progressToken.isString() || m_params.progressToken.isDouble()) && !m_params.revision2026) {
        // The SDK server queues progress for the tasks/result stream: the tools/call reply stream
        // closed with the CreateTaskResult (§3).
        queue(mcpNotificationMessage(u"notifications/progress"_s,
                                     QJsonObject{{u"progressToken"_s, m_params.progressToken},
                                                 {u"progress"_s, m_step},
                                                 {u"total"_s, m_options.steps},
                                                 {u"message"_s, message},
                                                 {u"_meta"_s, mcpRelatedTaskMeta(m_id)}}));
    }
    setStatus(Status::Working, message);
}

void McpSimTask::ask()
{
    m_asked = true;
    const bool url = m_params.tool == McpTool::SignIn;
    // The SDK's elicitInput refuses before sending when the client did not declare the mode; the
    // tool reports it in its result (observed: the message, after the tool's own text).
    if (url ? !m_params.urlElicitation : !m_params.formElicitation) {
        fail(u"Could not ask for input: "_s
             + (url ? u"Client does not support url elicitation."_s
                    : u"Client does not support form elicitation."_s));
        return;
    }
    McpInputRequest input;
    input.url = url;
    input.key = u"elicit-%1"_s.arg(++m_inputsAsked); // 2026 keys are never reused
    QString waitingFor;
    if (m_params.tool == McpTool::Approve) {
        input.params
            = QJsonObject{{u"mode"_s, u"form"_s},
                          {u"message"_s, u"Go ahead with the plan for \"%1\"?"_s.arg(topicOf(m_params))},
                          {u"requestedSchema"_s, mcpApprovalSchema()}};
        waitingFor = u"Waiting for approval"_s;
    } else if (m_params.tool == McpTool::Ask) {
        input.params = QJsonObject{
            {u"mode"_s, u"form"_s},
            {u"message"_s, u"Which angle should the report on \"%1\" take?"_s.arg(topicOf(m_params))},
            {u"requestedSchema"_s, mcpQuestionSchema()}};
        waitingFor = u"Waiting for an answer"_s;
    } else {
        const QString elicitationId = u"sign-in-"_s + m_id;
        input.params
            = QJsonObject{{u"mode"_s, u"url"_s},
                          {u"message"_s, u"Sign in to the report service to continue."_s},
                          {u"url"_s, QString(u"https://example.com/runwatch-sim/sign-in?task="_s + m_id)},
                          {u"elicitationId"_s, elicitationId}};
        waitingFor = u"Waiting for sign-in"_s;
    }
    if (!m_params.revision2026) {
        input.requestId = m_requestIds ? m_requestIds() : 0;
        input.params.insert(u"_meta"_s, mcpRelatedTaskMeta(m_id));
        // Queued for tasks/result, never sent on the GET stream (§5).
        queue(mcpRequestMessage(input.requestId, u"elicitation/create"_s, input.params));
    }
    m_input = input;
    if (m_options.inputTimeoutMs >= 0)
        m_inputTimer->start(int(qMin<qint64>(m_options.inputTimeoutMs, std::numeric_limits<int>::max())));
    setStatus(Status::InputRequired, waitingFor + u": "_s + input.params.value("message"_L1).toString());
    Q_EMIT inputRequested();
}

bool McpSimTask::answer(qint64 requestId, const QJsonObject &result)
{
    if (!m_input || m_input->requestId != requestId || m_status != Status::InputRequired)
        return false;
    resumeAfterInput(result);
    return true;
}

bool McpSimTask::answerError(qint64 requestId, int code, const QString &message)
{
    if (!m_input || m_input->requestId != requestId || m_status != Status::InputRequired)
        return false;
    failInput(mcpErrorText(code, message));
    return true;
}

bool McpSimTask::answerKey(const QString &key, const QJsonObject &response)
{
    if (!m_input || m_input->key != key || m_status != Status::InputRequired)
        return false;
    resumeAfterInput(response);
    return true;
}

void McpSimTask::failInput(const QString &why)
{
    if (!m_input || isTerminal())
        return;
    stopInput();
    fail(u"Could not ask for input: "_s + why);
}

void McpSimTask::stopInput()
{
    m_input.reset();
    m_inputTimer->stop();
}

void McpSimTask::resumeAfterInput(const QJsonObject &result)
{
    const QString action = result.value("action"_L1).toString();
    const QJsonObject content = result.value("content"_L1).toObject();
    const bool form = !m_input->url;
    if (action == "accept"_L1 && form) {
        // The SDK's elicitInput checks accepted content against the requested schema and throws.
        const QString why
            = mcpCheckAgainstSchema(m_input->params.value("requestedSchema"_L1).toObject(), content);
        if (!why.isEmpty()) {
            failInput(
                mcpErrorText(kMcpInvalidParams,
                             u"Elicitation response content does not match requested schema: "_s + why));
            return;
        }
    }
    stopInput();
    if (action == "decline"_L1 || action == "cancel"_L1 || action != "accept"_L1) {
        // Reported to the tool, which finishes normally with its own result (§5).
        m_text.clear();
        m_prefix = action == "decline"_L1 ? u"Declined: nothing was written."_s
                                          : u"Cancelled: nothing was written."_s;
        m_step = m_options.steps;
        complete();
        return;
    }
    if (m_params.tool == McpTool::Approve) {
        m_prefix = content.value("approve"_L1).toBool() ? u"Approved"_s : u"Not approved"_s;
        QStringList details;
        for (const QString &key : {u"reason"_s, u"priority"_s, u"budget"_s}) {
            if (content.contains(key))
                details.append(key + u": "_s + content.value(key).toVariant().toString());
        }
        if (!details.isEmpty())
            m_prefix += u" ("_s + details.join(u", "_s) + u')';
        m_prefix += u". "_s;
    } else if (m_params.tool == McpTool::Ask) {
        m_prefix = u"Answer: "_s + content.value("answer"_L1).toString() + u". "_s;
    } else {
        m_prefix = u"Signed in. "_s;
    }
    setStatus(Status::Working, u"Input received"_s);
}

void McpSimTask::complete()
{
    m_timer->stop();
    QJsonObject result = mcpTextResult(m_prefix + m_text);
    result.insert(u"structuredContent"_s, QJsonObject{{u"topic"_s, topicOf(m_params)}, {u"parts"_s, m_step}});
    m_result = result;
    // storeTaskResult leaves the status message as it was (observed).
    setStatus(Status::Completed);
}

void McpSimTask::fail(const QString &text)
{
    m_timer->stop();
    m_result = mcpTextResult(text, true);
    // The status message stays the last working one: stale, as observed (§4).
    setStatus(Status::Failed);
}

void McpSimTask::setStatus(Status status, const QString &message)
{
    const bool ends = !isTerminal() && status >= Status::Completed;
    m_status = status;
    if (!message.isEmpty())
        m_statusMessage = message;
    m_updatedMs = mcpNowMs();
    if (ends) {
        m_timer->stop();
        // The store starts the ttl again at the end (InMemoryTaskStore).
        m_expiresMs = m_updatedMs + m_params.ttlMs.value_or(0);
    }
    Q_EMIT changed();
    if (ends)
        Q_EMIT ended();
}

void McpSimTask::queue(const QJsonObject &message)
{
    if (m_queue.size() >= kMaxQueued) {
        const auto progress = std::find_if(m_queue.begin(), m_queue.end(), [](const QJsonObject &m) {
            return m.value("method"_L1).toString() == "notifications/progress"_L1;
        });
        if (progress != m_queue.end())
            m_queue.erase(progress);
    }
    m_queue.append(message);
    Q_EMIT messageQueued();
}

QJsonObject McpSimTask::json2025() const
{
    QJsonObject task{
        {u"taskId"_s, m_id},
        {u"status"_s, statusName()},
        {u"ttl"_s, m_params.ttlMs ? QJsonValue(double(*m_params.ttlMs)) : QJsonValue(QJsonValue::Null)},
        {u"createdAt"_s, mcpTime(m_createdMs)},
        {u"lastUpdatedAt"_s, mcpTime(m_updatedMs)},
        {u"pollInterval"_s, m_options.pollIntervalMs}};
    if (!m_statusMessage.isEmpty())
        task.insert(u"statusMessage"_s, m_statusMessage);
    return task;
}

QJsonObject McpSimTask::json2026(bool detailed) const
{
    QJsonObject task{
        {u"taskId"_s, m_id},
        {u"status"_s, statusName()},
        {u"createdAt"_s, mcpTime(m_createdMs)},
        {u"lastUpdatedAt"_s, mcpTime(m_updatedMs)},
        {u"ttlMs"_s, m_params.ttlMs ? QJsonValue(double(*m_params.ttlMs)) : QJsonValue(QJsonValue::Null)},
        {u"pollIntervalMs"_s, m_options.pollIntervalMs}};
    if (!m_statusMessage.isEmpty())
        task.insert(u"statusMessage"_s, m_statusMessage);
    if (!detailed)
        return task;
    if (m_status == Status::InputRequired && m_input) {
        // Repeated on every poll until answered (§9).
        task.insert(u"inputRequests"_s,
                    QJsonObject{{m_input->key, QJsonObject{{u"method"_s, u"elicitation/create"_s},
                                                           {u"params"_s, m_input->params}}}});
    } else if (m_status == Status::Completed && m_result) {
        QJsonObject result = *m_result;
        result.insert(u"resultType"_s,
                      u"complete"_s); // [guessed] the inline result as a complete CallToolResult
        task.insert(u"result"_s, result);
    } else if (m_status == Status::Failed) {
        // `error` carries JSON-RPC errors only (§9): the failure as the tool's InternalError.
        const QString message = m_result ? mcpResultText(*m_result) : m_statusMessage;
        task.insert(u"error"_s, QJsonObject{{u"code"_s, kMcpInternalError}, {u"message"_s, message}});
    }
    return task;
}

} // namespace RunwatchSim
