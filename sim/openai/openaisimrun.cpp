// SPDX-License-Identifier: GPL-3.0-or-later
// The plan of one simulated response and its pace: which steps run, when, and how a cancel or a
// pause changes that. What each step writes is in openaisimwire.cpp.
#include "openaisimrun.h"

#include "server/httpmessage.h"

#include <QDateTime>
#include <QTimer>

#include <algorithm>
#include <array>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

constexpr int kReasoningDeltas = 3;

// Word plus the whitespace after it, so that joining the chunks gives the text back.
QStringList chunkWords(const QString &text)
{
    QStringList chunks;
    QString current;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
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

QString randomId(const QString &prefix, int bytes)
{
    return prefix + QString::fromLatin1(randomHex(bytes));
}

} // namespace

OpenAiSimRun::OpenAiSimRun(const QString &id, const OpenAiCreateParams &params,
                           const OpenAiRunOptions &options, QObject *parent)
    : QObject(parent)
    , m_id(id)
    , m_params(params)
    , m_options(options)
    , m_timer(new QTimer(this))
{
    m_age.start();
    const qint64 now = QDateTime::currentSecsSinceEpoch() + m_options.clockSkewS;
    m_createdAt = params.fractionalTimestamps ? double(now) + 0.25 : double(now);
    m_status = params.background ? Status::Queued : Status::InProgress;
    if (!m_options.reply.isEmpty())
        m_replyChunks = chunkWords(m_options.reply);
    m_timer->setSingleShot(true);
    connect(m_timer, &QTimer::timeout, this, &OpenAiSimRun::onTimer);
    buildPlan();
}

OpenAiSimRun::~OpenAiSimRun() = default;

QString OpenAiSimRun::statusName(Status status)
{
    switch (status) {
    case Status::Queued:
        return u"queued"_s;
    case Status::InProgress:
        return u"in_progress"_s;
    case Status::Completed:
        return u"completed"_s;
    case Status::Failed:
        return u"failed"_s;
    case Status::Incomplete:
        return u"incomplete"_s;
    case Status::Cancelled:
        return u"cancelled"_s;
    }
    return QString();
}

QString OpenAiSimRun::statusName() const
{
    return statusName(m_status);
}

void OpenAiSimRun::addMessageSteps(int item, int deltas, Op finalItemOp)
{
    m_plan.append({Op::ItemAdded, item, 0});
    m_plan.append({Op::PartAdded, item, 0});
    for (int i = 0; i < deltas; ++i)
        m_plan.append({Op::Delta, item, i});
    m_plan.append({Op::TextDone, item, 0});
    m_plan.append({Op::PartDone, item, 0});
    m_plan.append({finalItemOp, item, 0});
}

void OpenAiSimRun::buildPlan()
{
    const auto newItem = [this](Item::Kind kind) {
        Item item;
        item.kind = kind;
        switch (kind) {
        case Item::Kind::Message:
            item.id = randomId(u"msg_"_s, 16);
            break;
        case Item::Kind::Reasoning:
            item.id = randomId(u"rs_"_s, 16);
            break;
        case Item::Kind::FunctionCall: {
            static const std::array names{u"get_weather"_s, u"get_time"_s, u"lookup"_s};
            const qsizetype calls = std::count_if(m_items.cbegin(), m_items.cend(), [](const Item &i) {
                return i.kind == Item::Kind::FunctionCall;
            });
            item.id = randomId(u"fc_"_s, 16);
            item.callId = randomId(u"call_"_s, 12);
            item.name = names.at(std::size_t(calls) % names.size());
            if (calls >= qsizetype(names.size()))
                item.name += QString::number(calls);
            break;
        }
        case Item::Kind::McpApprovalRequest:
            item.id = randomId(u"mcpr_"_s, 16);
            item.name = u"search_docs"_s;
            item.serverLabel = u"docs"_s;
            item.text = u"{\"query\":\"runwatch\"}"_s;
            break;
        }
        m_items.append(item);
        return int(m_items.size() - 1);
    };
    const auto addFunctionCall = [this, &newItem] {
        const int item = newItem(Item::Kind::FunctionCall);
        m_plan.append({Op::ItemAdded, item, 0});
        for (int i = 0; i < kArgumentChunkCount; ++i) {
            m_plan.append({Op::Delta, item, i});
        }
        m_plan.append({Op::TextDone, item, 0});
        m_plan.append({Op::ItemDone, item, 0});
    };
    const int messageDeltas = m_replyChunks.isEmpty() ? m_options.deltas : int(m_replyChunks.size());

    m_plan.append({Op::Created, 0, 0});
    if (m_params.background) {
        m_plan.append({Op::Queued, 0, 0});
        for (int i = 0; i < m_options.keepalives; ++i)
            m_plan.append({Op::Keepalive, 0, i});
    }
    m_plan.append({Op::InProgress, 0, 0});
    switch (m_options.scenario) {
    case OpenAiScenario::Normal:
    case OpenAiScenario::Long:
    case OpenAiScenario::Huge:
        addMessageSteps(newItem(Item::Kind::Message), messageDeltas, Op::ItemDone);
        m_plan.append({Op::Completed, 0, 0});
        break;
    case OpenAiScenario::Incomplete:
        addMessageSteps(newItem(Item::Kind::Message), messageDeltas, Op::ItemDoneIncomplete);
        m_plan.append({Op::Incomplete, 0, 0});
        break;
    case OpenAiScenario::Fail:
    case OpenAiScenario::Error: {
        const int item = newItem(Item::Kind::Message);
        m_plan.append({Op::ItemAdded, item, 0});
        m_plan.append({Op::PartAdded, item, 0});
        for (int i = 0; i < qMin(m_options.failAfter, messageDeltas); ++i)
            m_plan.append({Op::Delta, item, i});
        m_plan.append({m_options.scenario == OpenAiScenario::Fail ? Op::Failed : Op::ErrorEvent, 0, 0});
        break;
    }
    case OpenAiScenario::Reasoning: {
        const int reasoning = newItem(Item::Kind::Reasoning);
        m_plan.append({Op::ItemAdded, reasoning, 0});
        m_plan.append({Op::PartAdded, reasoning, 0});
        for (int i = 0; i < kReasoningDeltas; ++i)
            m_plan.append({Op::Delta, reasoning, i});
        m_plan.append({Op::TextDone, reasoning, 0});
        m_plan.append({Op::PartDone, reasoning, 0});
        m_plan.append({Op::ItemDone, reasoning, 0});
        addFunctionCall();
        addMessageSteps(newItem(Item::Kind::Message), messageDeltas, Op::ItemDone);
        m_plan.append({Op::Completed, 0, 0});
        break;
    }
    case OpenAiScenario::ToolCall:
        for (int i = 0; i < m_options.calls; ++i)
            addFunctionCall();
        m_plan.append({Op::Completed, 0, 0});
        break;
    case OpenAiScenario::McpApproval: {
        // The request item arrives whole: no argument deltas for approval requests.
        const int item = newItem(Item::Kind::McpApprovalRequest);
        m_plan.append({Op::ItemAdded, item, 0});
        m_plan.append({Op::ItemDone, item, 0});
        m_plan.append({Op::Completed, 0, 0});
        break;
    }
    }
}

int OpenAiSimRun::delayBefore(const Step &step) const
{
    switch (step.op) {
    case Op::InProgress:
        return m_options.queuedMs;
    case Op::Keepalive:
    case Op::Delta:
    case Op::Completed:
    case Op::Failed:
    case Op::Incomplete:
    case Op::ErrorEvent:
        return m_options.intervalMs;
    default:
        return 0;
    }
}

void OpenAiSimRun::start()
{
    if (m_started)
        return;
    m_started = true;
    while (m_next < m_plan.size()
           && (m_plan.at(m_next).op == Op::Created || m_plan.at(m_next).op == Op::Queued))
        runStep(m_plan.at(m_next++));
    scheduleNext();
}

void OpenAiSimRun::scheduleNext()
{
    if (m_ended || m_paused || m_options.manual || !m_started || m_next >= m_plan.size()) {
        m_timer->stop();
        return;
    }
    m_timer->start(delayBefore(m_plan.at(m_next)));
}

void OpenAiSimRun::onTimer()
{
    // With a zero interval whole batches run per tick, so a 100k-event run takes milliseconds
    // without starving the event loop.
    int budget = 512;
    if (!m_ended && m_next < m_plan.size())
        runStep(m_plan.at(m_next++));
    while (!m_ended && m_next < m_plan.size() && delayBefore(m_plan.at(m_next)) == 0 && --budget > 0)
        runStep(m_plan.at(m_next++));
    scheduleNext();
}

int OpenAiSimRun::advance(int steps)
{
    if (!m_started)
        start();
    int done = 0;
    while (done < steps && !m_ended && m_next < m_plan.size()) {
        runStep(m_plan.at(m_next++));
        ++done;
    }
    scheduleNext();
    return done;
}

void OpenAiSimRun::setPaused(bool paused)
{
    m_paused = paused;
    scheduleNext();
}

OpenAiSimRun::CancelOutcome OpenAiSimRun::cancel()
{
    switch (m_status) {
    case Status::Completed:
        return CancelOutcome::WasCompleted;
    case Status::Failed:
        return CancelOutcome::WasFailed;
    case Status::Incomplete:
        return CancelOutcome::WasIncomplete;
    case Status::Cancelled:
        return CancelOutcome::AlreadyCancelled;
    case Status::Queued:
    case Status::InProgress:
        break;
    }
    setStatus(Status::Cancelled);
    switch (m_options.cancelMode) {
    case OpenAiCancelMode::FailedEvent:
        // MS-CONTRACT: the stream of a cancelled response ends with response.failed whose
        // response.status is "cancelled".
        m_timer->stop();
        lifecycleEvent(QByteArrayLiteral("response.failed"));
        m_ended = true;
        Q_EMIT ended();
        break;
    case OpenAiCancelMode::Close:
        m_timer->stop();
        m_ended = true;
        Q_EMIT ended();
        break;
    case OpenAiCancelMode::Flip:
        break; // generation goes on; the terminal step overwrites the status
    }
    return CancelOutcome::Cancelled;
}

bool OpenAiSimRun::takeHttpFault(OpenAiEndpoint endpoint)
{
    return m_options.httpFault && m_options.httpFault->aimsAt(endpoint)
           && takeFault(m_options.httpFault->count, &m_httpFaultsServed);
}

void OpenAiSimRun::setStatus(Status status)
{
    if (m_status == status)
        return;
    m_status = status;
    Q_EMIT statusChanged(statusName(status));
}

void OpenAiSimRun::finishWith(Status status)
{
    setStatus(status);
    const QByteArray type = status == Status::Completed    ? QByteArrayLiteral("response.completed")
                            : status == Status::Incomplete ? QByteArrayLiteral("response.incomplete")
                                                           : QByteArrayLiteral("response.failed");
    lifecycleEvent(type);
    m_ended = true;
    m_timer->stop();
    Q_EMIT ended();
}

} // namespace RunwatchSim
