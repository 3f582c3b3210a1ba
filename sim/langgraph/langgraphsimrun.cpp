// SPDX-License-Identifier: GPL-3.0-or-later
// The plan of one simulated LangGraph run and its pace: the graph's nodes one after the other
// (tokens, an interrupt, an error), what each does to the thread state, how a cancel stops it, and
// the delivery of its event log. The JSON shapes are in langgraphsimwire.cpp.
#include "langgraphsimrun.h"

#include "langgraphsimstream.h"
#include "langgraphsimwire.h"
#include "server/httpmessage.h"
#include "server/simserver.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QTimer>
#include <QUuid>

#include <mutex>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

const QString kPlan = u"Plan: email the report to ops@example.com, then delete the draft /tmp/x."_s;

// Word plus the whitespace after it, so that joining the tokens gives the text back.
QStringList tokenize(const QString &text)
{
    QStringList tokens;
    QString current;
    for (const QChar c : text) {
        if (!c.isSpace() && !current.isEmpty() && current.back().isSpace()) {
            tokens.append(current);
            current.clear();
        }
        current.append(c);
    }
    if (!current.isEmpty())
        tokens.append(current);
    return tokens;
}

QStringList echoTokens(const QString &prompt, int count)
{
    // Multi-byte words on purpose: a client that splits UTF-8 at chunk borders shows it.
    static const QStringList suffixes{u""_s, u"é"_s, u"日本"_s, u"🎉"_s};
    QStringList tokens{u"Echo: "_s + prompt};
    for (int i = 1; i < count; ++i)
        tokens.append(u" w%1"_s.arg(i) + suffixes.at(i % suffixes.size()));
    return tokens;
}

QString describeDecision(const QJsonValue &decision)
{
    const QJsonObject d = decision.toObject();
    const QString type = d.value("type"_L1).toString();
    if (type == "approve"_L1)
        return u"approved"_s;
    if (type == "reject"_L1) {
        const QString message = d.value("message"_L1).toString();
        return message.isEmpty() ? u"rejected"_s : u"rejected (reason: %1)"_s.arg(message);
    }
    if (type == "edit"_L1)
        return u"edited (%1)"_s.arg(langGraphJsonText(d.value("edited_action"_L1)));
    return u"no valid decision (%1)"_s.arg(
        langGraphJsonText(decision.isUndefined() ? QJsonValue() : decision));
}

bool interruptsAtStart(const QString &node)
{
    return node == "review"_L1 || node == "ask"_L1;
}

QString lastHumanText(const QJsonArray &messages)
{
    for (qsizetype i = messages.size() - 1; i >= 0; --i) {
        const QJsonObject message = messages.at(i).toObject();
        if (message.value("type"_L1).toString() == "human"_L1)
            return langGraphContentText(message.value("content"_L1));
    }
    return QString();
}

} // namespace

qint64 langGraphNowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

QString newLangGraphUuid7()
{
    // Ids made in the same millisecond still sort in creation order (a 12-bit counter after the
    // timestamp): lists that break ties by id keep that order.
    static std::mutex mutex; // simulators may live in several threads (demo mode)
    static quint64 lastMs = 0;
    static quint16 sequence = 0;
    const std::lock_guard lock(mutex);
    quint64 ms = quint64(langGraphNowMs());
    if (ms <= lastMs) {
        ms = lastMs;
        if (++sequence > 0xfff) {
            ++ms;
            sequence = 0;
        }
    } else {
        sequence = quint16(QRandomGenerator::global()->bounded(0x800));
    }
    lastMs = ms;
    QByteArray bytes(16, Qt::Uninitialized);
    for (int i = 0; i < 6; ++i)
        bytes[i] = char((ms >> (8 * (5 - i))) & 0xff);
    bytes[6] = char(0x70 | ((sequence >> 8) & 0x0f));
    bytes[7] = char(sequence & 0xff);
    for (int i = 8; i < 16; ++i)
        bytes[i] = char(QRandomGenerator::global()->bounded(256));
    bytes[8] = char(0x80 | (bytes[8] & 0x3f));
    return QUuid::fromRfc4122(bytes).toString(QUuid::WithoutBraces);
}

LangGraphSimRun::LangGraphSimRun(const QString &id, const LangGraphRunParams &params,
                                 const LangGraphRunOptions &options,
                                 std::shared_ptr<LangGraphSimThread> thread, QObject *parent)
    : QObject(parent)
    , m_id(id)
    , m_params(params)
    , m_options(options)
    , m_thread(std::move(thread))
    , m_createdMs(langGraphNowMs())
    , m_updatedMs(m_createdMs)
    , m_nodes(langGraphNodes(params.graph))
    , m_queue(!params.resumable)
    , m_timer(new QTimer(this))
{
    m_tokens.resize(m_nodes.size());
    m_messageIds.resize(m_nodes.size());
    m_nodeText.resize(m_nodes.size());
    m_timer->setSingleShot(true);
    connect(m_timer, &QTimer::timeout, this, &LangGraphSimRun::onTimer);
}

LangGraphSimRun::~LangGraphSimRun() = default;

QString LangGraphSimRun::statusName() const
{
    switch (m_status) {
    case Status::Pending:
        return u"pending"_s;
    case Status::Running:
        return u"running"_s;
    case Status::Success:
        return u"success"_s;
    case Status::Error:
        return u"error"_s;
    case Status::Interrupted:
        return u"interrupted"_s;
    case Status::Timeout:
        return u"timeout"_s;
    }
    return u"pending"_s;
}

void LangGraphSimRun::start()
{
    m_threadStatusBefore = m_thread->status;
    m_valuesShownBefore = m_thread->valuesShown;
    m_thread->status = u"busy"_s;
    m_thread->activeRunId = m_id;
    m_thread->updatedMs = m_createdMs;
    m_plan.append({Op::Begin, 0, 0});
    // Even with queued_ms=0 the run starts after the answer: the create always reads `pending`.
    m_timer->start(qMax(0, m_options.queuedMs));
}

void LangGraphSimRun::onTimer()
{
    if (!isActive() || m_next >= m_plan.size())
        return;
    const Step step = m_plan.at(m_next++);
    runStep(step);
    scheduleNext();
}

void LangGraphSimRun::scheduleNext()
{
    while (isActive() && m_next < m_plan.size()) {
        const Step step = m_plan.at(m_next);
        if (step.op == Op::Token && m_options.intervalMs > 0) {
            m_timer->start(m_options.intervalMs);
            return;
        }
        ++m_next;
        runStep(step);
    }
}

bool LangGraphSimRun::streams(QLatin1StringView mode) const
{
    return m_params.streamModes.contains(QString(mode));
}

void LangGraphSimRun::runStep(const Step &step)
{
    switch (step.op) {
    case Op::Begin:
        begin();
        break;
    case Op::NodeStart:
        startNode(m_nodes.at(step.node));
        m_messageIds[step.node] = u"run-"_s + newLangGraphUuid7();
        break;
    case Op::Custom:
        if (streams("custom"_L1))
            appendEvent("custom", QJsonObject{{u"phase"_s, u"drafting"_s}});
        break;
    case Op::Interrupt:
        interrupt(step.node);
        break;
    case Op::Token: {
        const QString token = m_tokens.at(step.node).at(step.token);
        m_nodeText[step.node] += token;
        m_text += token;
        if (streams("messages-tuple"_L1)) {
            appendEvent("messages", QJsonArray{langGraphAiChunk(m_messageIds.at(step.node), token),
                                               tupleMetadata(m_nodes.at(step.node))});
        }
        break;
    }
    case Op::NodeEnd:
        endNode(step.node);
        break;
    case Op::Fail:
        fail(step.node);
        break;
    case Op::Success:
        m_thread->task.reset();
        finish(Status::Success, u"idle"_s);
        break;
    }
}

void LangGraphSimRun::begin()
{
    setStatus(Status::Running);
    LangGraphSimThread &thread = *m_thread;
    qsizetype first = m_nodes.size(); // nothing to run unless input or a pending node says so
    std::optional<QJsonValue> resume;
    if (m_params.hasInput) {
        // A new turn starts the graph over: whatever was pending is dropped.
        for (const QJsonValue &message : m_params.inputMessages)
            thread.messages.append(message);
        thread.task.reset();
        first = 0;
        checkpoint(u"loop"_s);
    } else if (thread.task && thread.graph == m_params.graph) {
        // The pending node runs again from its start, with the answer to its interrupt if any.
        first = qMax<qsizetype>(0, m_nodes.indexOf(thread.task->node));
        if (m_params.resume && !thread.task->interrupts.isEmpty()) {
            resume = *m_params.resume;
            // Several interrupts are answered by a map from interrupt id to value.
            const QJsonObject map = resume->toObject();
            const QString id = thread.task->interrupts.first().id;
            if (resume->isObject() && map.contains(id)) {
                bool allIds = true;
                for (auto it = map.begin(); it != map.end(); ++it) {
                    bool known = false;
                    for (const LangGraphSimInterrupt &pending : std::as_const(thread.task->interrupts))
                        known = known || pending.id == it.key();
                    allIds = allIds && known;
                }
                if (allIds)
                    resume = map.value(id);
            }
        }
    }
    thread.graph = m_params.graph;
    appendEvent("metadata", QJsonObject{{u"run_id"_s, m_id}, {u"attempt"_s, 1}});
    if (streams("values"_L1))
        appendEvent("values", QJsonObject{{u"messages"_s, thread.messages}});
    buildPlan(first, resume);
}

void LangGraphSimRun::buildPlan(qsizetype firstNode, const std::optional<QJsonValue> &resume)
{
    for (qsizetype n = firstNode; n < m_nodes.size(); ++n) {
        const QString &node = m_nodes.at(n);
        const bool resumed = n == firstNode && resume.has_value();
        m_plan.append({Op::NodeStart, qint32(n), 0});
        if (m_params.graph == LangGraphGraph::Echo)
            m_plan.append({Op::Custom, qint32(n), 0});
        if (interruptsAtStart(node) && !resumed) {
            m_plan.append({Op::Interrupt, qint32(n), 0});
            return;
        }
        m_tokens[n] = nodeTokens(node, resumed ? resume : std::nullopt);
        for (qsizetype t = 0; t < m_tokens.at(n).size(); ++t)
            m_plan.append({Op::Token, qint32(n), qint32(t)});
        if (m_params.graph == LangGraphGraph::Fail) {
            m_plan.append({Op::Fail, qint32(n), 0});
            return;
        }
        m_plan.append({Op::NodeEnd, qint32(n), 0});
    }
    m_plan.append({Op::Success, 0, 0});
}

QStringList LangGraphSimRun::nodeTokens(const QString &node, const std::optional<QJsonValue> &resume) const
{
    if (node == "respond"_L1)
        return echoTokens(lastHumanText(m_thread->messages), m_options.tokens);
    if (node == "plan"_L1)
        return tokenize(kPlan);
    if (node == "review"_L1) {
        const QJsonArray decisions = resume.value_or(QJsonValue()).toObject().value("decisions"_L1).toArray();
        const QJsonArray requests = langGraphHitlRequest().value("action_requests"_L1).toArray();
        QStringList clauses;
        for (qsizetype i = 0; i < requests.size(); ++i) {
            clauses.append(
                requests.at(i).toObject().value("name"_L1).toString() + u": "_s
                + describeDecision(i < decisions.size() ? decisions.at(i) : QJsonValue::Undefined));
        }
        return tokenize(clauses.join(u"; "_s));
    }
    if (node == "ask"_L1) {
        const QJsonValue answer = resume.value_or(QJsonValue());
        return tokenize(u"Weather for %1: sunny"_s.arg(answer.isString() ? answer.toString()
                                                                         : langGraphJsonText(answer)));
    }
    if (node == "explode"_L1)
        return tokenize(u"Working on it, then failing"_s);
    return {};
}

void LangGraphSimRun::startNode(const QString &node)
{
    LangGraphSimThread &thread = *m_thread;
    // The node a resume continues keeps its task id (the interrupts map is keyed by it).
    const QString taskId = thread.task && thread.task->node == node
                               ? thread.task->id
                               : QUuid::createUuid().toString(QUuid::WithoutBraces);
    thread.task = LangGraphSimTask{taskId, node, {}, QString()};
    m_langgraphStep = thread.step + 1;
}

void LangGraphSimRun::endNode(int node)
{
    LangGraphSimThread &thread = *m_thread;
    const QString &id = m_messageIds.at(node);
    const QString &text = m_nodeText.at(node);
    thread.messages.append(langGraphAiMessage(id, text));
    thread.task.reset();
    checkpoint(u"loop"_s);
    if (streams("updates"_L1)) {
        appendEvent("updates",
                    QJsonObject{{m_nodes.at(node),
                                 QJsonObject{{u"messages"_s, QJsonArray{langGraphAiUpdate(id, text)}}}}});
    }
    if (streams("values"_L1))
        appendEvent("values", QJsonObject{{u"messages"_s, thread.messages}});
}

void LangGraphSimRun::interrupt(int node)
{
    const QJsonValue value
        = m_nodes.at(node) == "review"_L1 ? QJsonValue(langGraphHitlRequest()) : QJsonValue(u"What city?"_s);
    const LangGraphSimInterrupt pending{QString::fromLatin1(randomHex(16)), value};
    m_thread->task->interrupts = {pending};
    const QJsonObject payload{
        {u"__interrupt__"_s, QJsonArray{QJsonObject{{u"id"_s, pending.id}, {u"value"_s, pending.value}}}}};
    if (streams("updates"_L1))
        appendEvent("updates", payload);
    if (streams("values"_L1))
        appendEvent("values", payload);
    // The run that stops at interrupt() succeeded: only the thread says it waits.
    finish(Status::Success, u"interrupted"_s);
}

void LangGraphSimRun::fail(int node)
{
    Q_UNUSED(node)
    const QString message = u"graph exploded on purpose"_s;
    appendEvent("error", QJsonObject{{u"error"_s, u"Error"_s}, {u"message"_s, message}});
    // The task keeps the error as a JSON-encoded string, not an object.
    m_thread->task->error
        = QString::fromUtf8(compactJson(QJsonObject{{u"message"_s, message}, {u"name"_s, u"Error"_s}}));
    finish(Status::Error, u"error"_s);
}

void LangGraphSimRun::finish(Status status, const QString &threadStatus)
{
    m_timer->stop();
    m_updatedMs = langGraphNowMs();
    m_thread->status = threadStatus;
    m_thread->valuesShown = true;
    m_thread->activeRunId.clear();
    m_thread->updatedMs = m_updatedMs;
    setStatus(status);
    Q_EMIT ended();
}

bool LangGraphSimRun::cancel(CancelAction action)
{
    if (!isActive())
        return false;
    m_timer->stop();
    m_updatedMs = langGraphNowMs();
    LangGraphSimThread &thread = *m_thread;
    thread.activeRunId.clear();
    thread.updatedMs = m_updatedMs;
    // The settling apart from the signal: clang-tidy 14 reads a Q_EMIT right after an if/else-if
    // chain as part of its last branch (readability-misleading-indentation).
    const auto settle = [&] {
        if (action == CancelAction::Rollback) {
            // As the JS dev server: the run and the thread end in error (the Python one deletes the run).
            if (published())
                appendEvent("error", QJsonObject{{u"error"_s, u"Error"_s}, {u"message"_s, u"rollback"_s}});
            thread.status = u"error"_s;
            thread.valuesShown = true;
            setStatus(Status::Error);
        } else if (m_status == Status::Pending) {
            thread.status = m_threadStatusBefore;
            thread.valuesShown = m_valuesShownBefore;
            setStatus(Status::Interrupted);
        } else {
            // The real server's thread reads idle with no values (and no interrupts) after this.
            thread.status = u"idle"_s;
            thread.valuesShown = false;
            setStatus(Status::Interrupted);
        }
    };
    settle();
    Q_EMIT ended();
    return true;
}

void LangGraphSimRun::setStatus(Status status)
{
    if (m_status == status)
        return;
    m_status = status;
    Q_EMIT statusChanged(statusName());
}

void LangGraphSimRun::checkpoint(const QString &source)
{
    LangGraphSimThread &thread = *m_thread;
    thread.parentCheckpointId = thread.checkpointId;
    thread.checkpointId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    thread.checkpointMs = langGraphNowMs();
    ++thread.step;
    thread.checkpointMetadata = checkpointMetadata(source, thread.step);
}

void LangGraphSimRun::appendEvent(const QByteArray &event, const QJsonValue &data)
{
    const QByteArray bytes = data.isArray() ? QJsonDocument(data.toArray()).toJson(QJsonDocument::Compact)
                                            : compactJson(data.toObject());
    m_events.append({event, bytes});
    Q_EMIT eventAdded(int(m_events.size() - 1));
    if (m_queue)
        deliverQueue();
}

bool LangGraphSimRun::makeQueueIfFirst()
{
    if (published() || m_logClaimed || m_queue)
        return false;
    m_queue = true;
    m_queueNext = 0;
    return true;
}

void LangGraphSimRun::addQueueReader(LangGraphSimStream *stream)
{
    m_queueReaders.append(stream);
    deliverQueue();
}

void LangGraphSimRun::deliverQueue()
{
    const auto prune = [this] {
        m_queueReaders.removeIf([](const QPointer<LangGraphSimStream> &s) { return !s || !s->isOpen(); });
    };
    prune();
    while (m_queueNext < m_events.size() && !m_queueReaders.isEmpty()) {
        // Each event to one reader, in turn: the others never see it.
        LangGraphSimStream *reader = m_queueReaders.at(m_turn++ % m_queueReaders.size());
        const qsizetype id = m_queueNext++;
        reader->send(m_events.at(id), id);
        prune();
    }
}

bool LangGraphSimRun::takeHttpFault(LangGraphEndpoint endpoint)
{
    return m_options.httpFault && m_options.httpFault->aimsAt(endpoint)
           && takeFault(m_options.httpFault->count, &m_httpFaultsServed);
}

} // namespace RunwatchSim
