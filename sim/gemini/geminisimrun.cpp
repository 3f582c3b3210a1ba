// SPDX-License-Identifier: GPL-3.0-or-later
// The plan of one simulated interaction and its pace: the scenario's steps one after the other
// (step.start, its deltas a pace apart, step.stop), the end it comes to (completed,
// requires_action, failed, incomplete, cancelled), and its event log with opaque event ids on the
// deltas. The shapes of steps and deltas are in geminisimwire.cpp.
#include "geminisimrun.h"

#include "geminisimwire.h"
#include "server/simserver.h"

#include <QJsonDocument>
#include <QRandomGenerator>
#include <QTimer>
#include <QtEndian>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

QJsonObject textPart(const QString &text)
{
    return QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, text}};
}

// A signature looks like the service's: opaque base64.
QString signature()
{
    QByteArray bytes(24, Qt::Uninitialized);
    for (char &b : bytes)
        b = char(QRandomGenerator::global()->bounded(256));
    return QString::fromLatin1(bytes.toBase64());
}

// The arguments of the i-th call of `name`, as the model would write them.
QJsonObject callArguments(const QString &name, int i)
{
    if (name == "get_weather"_L1)
        return QJsonObject{{u"city"_s, u"Paris"_s}, {u"unit"_s, u"celsius"_s}};
    if (name == "get_time"_L1)
        return QJsonObject{{u"zone"_s, u"Europe/Paris"_s}};
    return QJsonObject{{u"query"_s, u"q%1"_s.arg(i + 1)}};
}

} // namespace

GeminiSimRun::GeminiSimRun(const QString &id, const GeminiRunParams &params, const GeminiRunOptions &options,
                           QObject *parent)
    : QObject(parent)
    , m_id(id)
    , m_params(params)
    , m_options(options)
    , m_createdMs(geminiNowMs())
    , m_updatedMs(m_createdMs)
    , m_timer(new QTimer(this))
{
    m_idSalt.resize(6);
    for (char &b : m_idSalt)
        b = char(QRandomGenerator::global()->bounded(256));
    m_usage.input = 8 + params.prompt.split(u' ', Qt::SkipEmptyParts).size() + 4 * params.answers.size();
    m_timer->setSingleShot(true);
    connect(m_timer, &QTimer::timeout, this, &GeminiSimRun::onTimer);
    buildPlan();
}

GeminiSimRun::~GeminiSimRun() = default;

QString GeminiSimRun::statusName() const
{
    switch (m_status) {
    case Status::InProgress:
        return u"in_progress"_s;
    case Status::RequiresAction:
        return u"requires_action"_s;
    case Status::Completed:
        return u"completed"_s;
    case Status::Failed:
        return u"failed"_s;
    case Status::Cancelled:
        return u"cancelled"_s;
    case Status::Incomplete:
        return u"incomplete"_s;
    }
    return u"in_progress"_s;
}

bool GeminiSimRun::expired(qint64 nowMs) const
{
    return m_options.expiresMs >= 0 && m_endedMs >= 0 && nowMs - m_endedMs >= m_options.expiresMs;
}

qsizetype GeminiSimRun::indexAfter(const QString &eventId) const
{
    const auto it = m_eventIndex.constFind(eventId);
    return it == m_eventIndex.cend() ? -1 : *it + 1;
}

QStringList GeminiSimRun::outputTexts() const
{
    QStringList texts;
    for (const QJsonValue &value : m_steps) {
        const QJsonObject step = value.toObject();
        if (step.value("type"_L1).toString() != "model_output"_L1)
            continue;
        QString text;
        for (const QJsonValue &part : step.value("content"_L1).toArray())
            text += part.toObject().value("text"_L1).toString();
        texts.append(text);
    }
    return texts;
}

qint32 GeminiSimRun::addStep(const QJsonObject &start, const QList<QJsonObject> &deltas)
{
    const auto step = qint32(m_planned.size());
    m_planned.append({start, deltas});
    m_plan.append({Op::StepStart, step, 0});
    for (qsizetype d = 0; d < deltas.size(); ++d)
        m_plan.append({Op::Delta, step, qint32(d)});
    m_plan.append({Op::StepStop, step, 0});
    return step;
}

void GeminiSimRun::addTextStep(int first, int count, const QString &prefix)
{
    QList<QJsonObject> deltas;
    for (int i = first; i < first + count; ++i) {
        const QString text = (i == first ? prefix : QString()) + geminiDeltaText(i, m_options.replyWords);
        deltas.append(QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, text}});
    }
    addStep(QJsonObject{{u"type"_s, u"model_output"_s}}, deltas);
}

void GeminiSimRun::addThought(const QStringList &summary)
{
    QList<QJsonObject> deltas;
    for (const QString &part : summary)
        deltas.append(QJsonObject{{u"type"_s, u"thought_summary"_s}, {u"content"_s, textPart(part)}});
    // The signature is the last delta of a thought.
    deltas.append(QJsonObject{{u"type"_s, u"thought_signature"_s}, {u"signature"_s, signature()}});
    addStep(QJsonObject{{u"type"_s, u"thought"_s}}, deltas);
}

void GeminiSimRun::addSearch(const QString &query)
{
    const QString callId = u"gs_"_s + QString::fromLatin1(randomHex(4));
    addStep(QJsonObject{{u"type"_s, u"google_search_call"_s}, {u"id"_s, callId}},
            {QJsonObject{{u"type"_s, u"google_search_call"_s},
                         {u"arguments"_s, QJsonObject{{u"queries"_s, QJsonArray{query}}}}}});
    const QJsonObject result{{u"title"_s, u"Search result for %1"_s.arg(query)},
                             {u"url"_s, u"https://example.invalid/search?q=1"_s}};
    addStep(QJsonObject{{u"type"_s, u"google_search_result"_s}, {u"call_id"_s, callId}},
            {QJsonObject{{u"type"_s, u"google_search_result"_s}, {u"result"_s, QJsonArray{result}}}});
}

void GeminiSimRun::addCalls()
{
    static const QStringList kDefaults{u"get_weather"_s, u"get_time"_s, u"lookup"_s};
    const QStringList &names = m_params.functionNames.isEmpty() ? kDefaults : m_params.functionNames;
    for (int i = 0; i < m_options.calls; ++i) {
        const QString name = names.at(i % names.size());
        const QString callId = u"call_"_s + QString::fromLatin1(randomHex(6));
        const QByteArray arguments = compactJson(callArguments(name, i));
        // The arguments arrive as JSON text in two fragments.
        const qsizetype half = arguments.size() / 2;
        const QList<QJsonObject> deltas{
            QJsonObject{{u"type"_s, u"arguments_delta"_s},
                        {u"arguments"_s, QString::fromUtf8(arguments.left(half))}},
            QJsonObject{{u"type"_s, u"arguments_delta"_s},
                        {u"arguments"_s, QString::fromUtf8(arguments.mid(half))}},
        };
        addStep(QJsonObject{{u"type"_s, u"function_call"_s},
                            {u"id"_s, callId},
                            {u"name"_s, name},
                            {u"arguments"_s, QJsonObject()}},
                deltas);
    }
}

void GeminiSimRun::buildPlan()
{
    // A continuation's answer starts by naming the results it was given.
    QString prefix;
    for (qsizetype i = 0; i < m_params.answered.size(); ++i)
        prefix += u"[%1: %2] "_s.arg(m_params.answered.at(i).id, m_params.answers.value(i));
    const int deltas = m_options.deltas;
    const QString topic = m_params.prompt.simplified().left(40);
    switch (m_options.scenario) {
    case GeminiScenario::Normal:
    case GeminiScenario::Long:
    case GeminiScenario::Incomplete:
        addThought({});
        addTextStep(0, deltas, prefix);
        m_finalStatus
            = m_options.scenario == GeminiScenario::Incomplete ? Status::Incomplete : Status::Completed;
        break;
    case GeminiScenario::Think:
        addThought({u"**Finding the answer**\n\n"_s, u"I should search before answering."_s});
        addSearch(topic);
        addTextStep(0, deltas, prefix);
        break;
    case GeminiScenario::Research: {
        addThought({u"**Planning the research**\n\n"_s, u"I will look for recent sources first."_s});
        addSearch(topic);
        const int half = qMax(1, deltas / 2);
        addTextStep(0, half, prefix);
        if (deltas > half) {
            addThought({u"Now the details."_s});
            addTextStep(half, deltas - half);
        }
        break;
    }
    case GeminiScenario::ToolCall:
        addThought({});
        addCalls();
        m_finalStatus = Status::RequiresAction;
        break;
    case GeminiScenario::Fail:
        addTextStep(0, qMin(m_options.failAfter, deltas), prefix);
        // The error comes in the middle of the step: no step.stop.
        m_plan.removeLast();
        m_plan.append({Op::Fail, 0, 0});
        return;
    }
    m_plan.append({Op::Complete, 0, 0});
}

void GeminiSimRun::start()
{
    appendEvent("interaction.created", QJsonObject{{u"interaction"_s, lifecycleJson(false)}});
    appendEvent("interaction.status_update",
                QJsonObject{{u"interaction_id"_s, m_id}, {u"status"_s, statusName()}});
    scheduleNext();
}

void GeminiSimRun::onTimer()
{
    if (!isActive() || m_next >= m_plan.size())
        return;
    runOp(m_plan.at(m_next++));
    scheduleNext();
}

void GeminiSimRun::scheduleNext()
{
    while (isActive() && m_next < m_plan.size()) {
        const PlannedOp op = m_plan.at(m_next);
        if (op.op == Op::Delta && m_options.intervalMs > 0) {
            m_timer->start(m_options.intervalMs);
            return;
        }
        ++m_next;
        runOp(op);
    }
}

void GeminiSimRun::runOp(const PlannedOp &op)
{
    const qsizetype index = m_steps.size() - 1; // the step under way
    switch (op.op) {
    case Op::StepStart: {
        const QJsonObject step = m_planned.at(op.step).start;
        m_steps.append(step);
        appendEvent("step.start", QJsonObject{{u"index"_s, m_steps.size() - 1}, {u"step"_s, step}});
        break;
    }
    case Op::Delta: {
        const QJsonObject delta = m_planned.at(op.step).deltas.at(op.delta);
        QJsonObject step = m_steps.at(index).toObject();
        geminiApplyDelta(&step, delta);
        m_steps.replace(index, step);
        if (delta.value("type"_L1).toString() == "text"_L1) {
            m_text += delta.value("text"_L1).toString();
            ++m_usage.output;
        }
        appendEvent("step.delta", QJsonObject{{u"index"_s, index}, {u"delta"_s, delta}}, true);
        break;
    }
    case Op::StepStop: {
        QJsonObject step = m_steps.at(index).toObject();
        geminiFinishStep(&step);
        m_steps.replace(index, step);
        const QString type = step.value("type"_L1).toString();
        if (type == "thought"_L1) {
            m_usage.thought += 16;
        } else if (type == "google_search_result"_L1) {
            m_usage.toolUse += 40;
        } else if (type == "function_call"_L1) {
            m_usage.output += 10;
            m_calls.append({step.value("id"_L1).toString(), step.value("name"_L1).toString()});
        }
        appendEvent("step.stop", QJsonObject{{u"index"_s, index}});
        break;
    }
    case Op::Fail: {
        const QString message = u"An internal error has occurred. Please retry."_s;
        m_errors = QJsonArray{QJsonObject{{u"code"_s, u"internal"_s}, {u"message"_s, message}}};
        appendEvent("error", QJsonObject{{u"error"_s,
                                          QJsonObject{{u"message"_s, message}, {u"code"_s, u"internal"_s}}}});
        finish(Status::Failed);
        break;
    }
    case Op::Complete:
        finish(m_finalStatus);
        break;
    }
}

void GeminiSimRun::finish(Status status)
{
    m_timer->stop();
    m_updatedMs = geminiNowMs();
    m_endedMs = m_updatedMs;
    setStatus(status);
    appendEvent("interaction.completed", QJsonObject{{u"interaction"_s, lifecycleJson(true)}});
    appendDone();
    Q_EMIT ended();
}

bool GeminiSimRun::cancel()
{
    if (!isActive())
        return false;
    finish(Status::Cancelled);
    return true;
}

void GeminiSimRun::halt()
{
    m_timer->stop();
    m_next = m_plan.size();
}

void GeminiSimRun::setStatus(Status status)
{
    if (m_status == status)
        return;
    m_status = status;
    Q_EMIT statusChanged(statusName());
}

QJsonObject GeminiSimRun::lifecycleJson(bool withUsage) const
{
    QJsonObject interaction{{u"id"_s, m_id},
                            {u"object"_s, u"interaction"_s},
                            {u"status"_s, statusName()},
                            {u"created"_s, geminiTime(m_createdMs)},
                            {u"updated"_s, geminiTime(m_updatedMs)}};
    if (m_params.agent.isEmpty()) {
        interaction.insert(u"model"_s, m_params.model);
    } else {
        interaction.insert(u"agent"_s, m_params.agent);
        if (!m_params.agentConfig.isEmpty())
            interaction.insert(u"agent_config"_s, m_params.agentConfig);
    }
    if (!m_params.previousId.isEmpty())
        interaction.insert(u"previous_interaction_id"_s, m_params.previousId);
    if (withUsage && hasEnded())
        interaction.insert(u"usage"_s, geminiUsageJson(m_usage));
    return interaction;
}

QJsonObject GeminiSimRun::json(bool stored, bool includeInput) const
{
    QJsonObject interaction = lifecycleJson(true);
    if (m_params.agent.isEmpty())
        interaction.insert(u"service_tier"_s, u"standard"_s);
    QJsonArray steps = stored ? m_params.inputSteps : QJsonArray();
    for (const QJsonValue &value : m_steps) {
        QJsonObject step = value.toObject();
        step.remove(u"_arguments"_s); // a call whose arguments are still arriving shows {}
        steps.append(step);
    }
    interaction.insert(u"steps"_s, steps);
    if (!m_errors.isEmpty())
        interaction.insert(u"errors"_s, m_errors);
    if (includeInput)
        interaction.insert(u"input"_s, m_params.input);
    return interaction;
}

void GeminiSimRun::appendEvent(const QByteArray &type, QJsonObject data, bool withId)
{
    const qsizetype index = m_events.size();
    data.insert(u"event_type"_s, QString::fromLatin1(type));
    QString eventId;
    if (withId) {
        // Opaque to clients: a salt of the interaction's and the log index, in URL-safe base64.
        QByteArray raw = m_idSalt;
        raw.resize(raw.size() + 4);
        qToBigEndian(quint32(index), raw.data() + m_idSalt.size());
        eventId = QString::fromLatin1(
            raw.toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
        data.insert(u"event_id"_s, eventId);
        m_eventIndex.insert(eventId, index);
    }
    m_events.append({type, compactJson(data), eventId});
    Q_EMIT eventAdded(int(index));
}

void GeminiSimRun::appendDone()
{
    m_events.append({QByteArrayLiteral("done"), QByteArrayLiteral("[DONE]"), QString()});
    Q_EMIT eventAdded(int(m_events.size() - 1));
}

bool GeminiSimRun::takeHttpFault(GeminiEndpoint endpoint)
{
    return m_options.httpFault && m_options.httpFault->aimsAt(endpoint)
           && takeFault(m_options.httpFault->count, &m_httpFaultsServed);
}

} // namespace RunwatchSim
