// SPDX-License-Identifier: GPL-3.0-or-later
#include "a2asimrun.h"

#include "a2asimstream.h"
#include "a2asimwire.h"

#include <QStringList>

#include <algorithm>
#include <utility>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

using Step = A2aSimRun::Step;

Step status(const QString &state, const QString &text = {})
{
    Step s;
    s.type = Step::Type::Status;
    s.state = state;
    s.text = text;
    return s;
}

Step chunk(const QString &text, bool append, bool last, const QString &artifactId = u"result-1"_s,
           const QString &name = u"result.txt"_s)
{
    Step s;
    s.type = Step::Type::Chunk;
    s.text = text;
    s.append = append;
    s.lastChunk = last;
    s.artifactId = artifactId;
    s.artifactName = name;
    return s;
}

QList<Step> chunkSteps(const A2aRunOptions &o, int count)
{
    QList<Step> steps;
    for (int i = 0; i < count; ++i) {
        steps << chunk(u"tok%1 "_s.arg(i), i > 0, i == o.chunks - 1);
        if (o.statusEvery > 0 && (i + 1) % o.statusEvery == 0 && i + 1 < count)
            steps << status(A2aState::Working, u"step %1/%2"_s.arg(i + 1).arg(o.chunks));
    }
    return steps;
}

QList<Step> firstTurn(const A2aRunOptions &o)
{
    QList<Step> steps{status(A2aState::Working, u"Working..."_s)};
    switch (o.scenario) {
    case A2aScenario::Normal:
    case A2aScenario::Long:
    case A2aScenario::Listen:
        steps << chunkSteps(o, o.chunks) << status(A2aState::Completed);
        break;
    case A2aScenario::Fail:
        steps << chunkSteps(o, std::min(o.failAfter, o.chunks))
              << status(A2aState::Failed, u"The simulated agent failed."_s);
        break;
    case A2aScenario::Reject:
        steps = {status(A2aState::Rejected, u"The simulated agent rejects this task."_s)};
        break;
    case A2aScenario::Input:
        steps << status(A2aState::InputRequired, u"Which city?"_s);
        break;
    case A2aScenario::Auth:
        steps << status(A2aState::AuthRequired, u"Please authorize the simulated agent."_s);
        break;
    case A2aScenario::Error: {
        steps << chunkSteps(o, std::min(o.failAfter, o.chunks));
        Step e;
        e.type = Step::Type::StreamError;
        e.text = u"Simulated internal error."_s;
        steps << e;
        break;
    }
    case A2aScenario::Multi:
        for (int i = 0; i < o.chunks; ++i)
            steps << chunk(u"tok%1 "_s.arg(i), i > 0, i == o.chunks - 1, u"report"_s, u"report.md"_s);
        steps << chunk(u"In short: "_s, false, false, u"summary"_s, u"summary.md"_s)
              << chunk(u"done."_s, true, true, u"summary"_s, u"summary.md"_s) << status(A2aState::Completed);
        break;
    case A2aScenario::Replace:
        steps << chunk(u"draft "_s, false, false) << chunk(u"final answer"_s, false, true)
              << status(A2aState::Completed);
        break;
    case A2aScenario::Recall: // setEarlierTurns() fills the answer in
    case A2aScenario::Message:
        break;
    }
    return steps;
}

QList<Step> recallTurn(const QStringList &earlier)
{
    const QString previous
        = earlier.isEmpty() ? u"No earlier turns."_s : u"Previous prompt: %1."_s.arg(earlier.constLast());
    return {status(A2aState::Working, u"Working..."_s),
            chunk(u"Earlier turns in this context: %1. "_s.arg(earlier.size()), false, false),
            chunk(previous, true, true), status(A2aState::Completed)};
}

} // namespace

A2aSimRun::A2aSimRun(QString id, QString contextId, A2aRunOptions options, const QJsonObject &userMessage,
                     QObject *parent)
    : QObject(parent)
    , m_id(std::move(id))
    , m_contextId(std::move(contextId))
    , m_options(std::move(options))
    , m_state(A2aState::Submitted)
{
    m_history.append(storedUserMessage(userMessage, m_id, m_contextId));
    m_prompt = a2aMessageText(userMessage).trimmed();
    m_timestamp = a2aTimestamp();
    m_steps = m_options.scenario == A2aScenario::Recall ? recallTurn({}) : firstTurn(m_options);
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, [this] { step(); });
}

A2aSimRun::~A2aSimRun() = default;

bool A2aSimRun::isTerminal() const
{
    return isTerminalA2aState(m_state);
}

bool A2aSimRun::isInterrupted() const
{
    return isInterruptedA2aState(m_state);
}

QString A2aSimRun::text() const
{
    QStringList texts;
    for (const Artifact &a : m_artifacts) {
        QString t;
        for (const QJsonValue &p : a.parts)
            t += p.toObject().value(u"text"_s).toString();
        if (!t.isEmpty())
            texts << t;
    }
    return texts.join(u"\n\n"_s);
}

QJsonObject A2aSimRun::statusObject() const
{
    QJsonObject status{{u"state"_s, m_state}, {u"timestamp"_s, m_timestamp}};
    if (!m_statusMessage.isEmpty())
        status.insert(u"message"_s, m_statusMessage);
    return status;
}

QJsonObject A2aSimRun::snapshot(int historyLength, bool includeArtifacts) const
{
    QJsonObject t{{u"id"_s, m_id}, {u"contextId"_s, m_contextId}, {u"status"_s, statusObject()}};
    if (includeArtifacts && !m_artifacts.isEmpty()) {
        QJsonArray a;
        for (const Artifact &x : m_artifacts)
            a.append(QJsonObject{{u"artifactId"_s, x.id}, {u"name"_s, x.name}, {u"parts"_s, x.parts}});
        t.insert(u"artifacts"_s, a);
    }
    if (historyLength != 0 && !m_history.isEmpty()) {
        QJsonArray h = m_history;
        while (historyLength > 0 && h.size() > historyLength)
            h.removeFirst();
        t.insert(u"history"_s, h);
    }
    return t;
}

void A2aSimRun::attach(A2aSimStream *stream)
{
    ++m_streamConnections;
    m_streams.append(stream);
}

void A2aSimRun::start()
{
    scheduleNext();
}

void A2aSimRun::answer(const QJsonObject &message)
{
    const QString text = a2aMessageText(message).trimmed();
    m_history.append(storedUserMessage(message, m_id, m_contextId));
    m_steps = {status(A2aState::Working, u"Looking it up..."_s),
               chunk(u"Weather in %1: "_s.arg(text), false, false), chunk(u"sunny."_s, true, true),
               status(A2aState::Completed)};
    m_next = 0;
    scheduleNext();
}

bool A2aSimRun::takesMessagesWhileWorking() const
{
    return m_options.scenario == A2aScenario::Listen && m_state == A2aState::Working;
}

void A2aSimRun::fold(const QJsonObject &message)
{
    m_history.append(storedUserMessage(message, m_id, m_contextId));
    // Into the answer before its next chunk (or before the end when every chunk is out), so
    // that the text the agent streams from now on reflects the message.
    qsizetype at = m_next;
    while (at < m_steps.size() && m_steps.at(at).type != Step::Type::Chunk
           && !isTerminalA2aState(m_steps.at(at).state))
        ++at;
    // The artifact's first chunk replaces whatever came before it (append false): a message that
    // arrives before it is noted after it, or the first chunk would wipe the note.
    if (at < m_steps.size() && m_steps.at(at).type == Step::Type::Chunk && !m_steps.at(at).append)
        ++at;
    const bool last = at >= m_steps.size() || m_steps.at(at).type != Step::Type::Chunk;
    if (at > 0 && m_steps.at(at - 1).lastChunk && at - 1 >= m_next) {
        // Noted after a chunk still to be sent as the last: the note is the last one now.
        m_steps[at - 1].lastChunk = false;
    }
    m_steps.insert(at, chunk(u"[noted: %1] "_s.arg(a2aMessageText(message).trimmed()), true, last));
    if (!m_timer.isActive())
        scheduleNext();
}

void A2aSimRun::setEarlierTurns(const QStringList &prompts)
{
    if (m_options.scenario == A2aScenario::Recall && m_next == 0)
        m_steps = recallTurn(prompts);
}

void A2aSimRun::addWaiter(std::function<void()> done)
{
    m_waiters.append(std::move(done));
}

void A2aSimRun::cancel()
{
    m_timer.stop();
    m_steps.clear();
    m_next = 0;
    setStatus(A2aState::Canceled, {});
    broadcast(statusEvent());
    finishTurn();
}

void A2aSimRun::scheduleNext()
{
    if (m_next < m_steps.size())
        m_timer.start(m_options.intervalMs);
}

QJsonObject A2aSimRun::agentMessage(const QString &text) const
{
    return {{u"messageId"_s, a2aUuid()},
            {u"contextId"_s, m_contextId},
            {u"taskId"_s, m_id},
            {u"role"_s, u"ROLE_AGENT"_s},
            {u"parts"_s, QJsonArray{QJsonObject{{u"text"_s, text}, {u"mediaType"_s, u"text/plain"_s}}}}};
}

void A2aSimRun::setStatus(const QString &state, const QString &text)
{
    m_state = state;
    m_timestamp = a2aTimestamp();
    m_statusMessage = text.isEmpty() ? QJsonObject() : agentMessage(text);
    // Like the JS SDK, status messages are also kept in the history.
    if (!m_statusMessage.isEmpty())
        m_history.append(m_statusMessage);
    Q_EMIT stateChanged(m_id, m_state);
}

QJsonObject A2aSimRun::statusEvent() const
{
    return {{u"statusUpdate"_s,
             QJsonObject{{u"taskId"_s, m_id}, {u"contextId"_s, m_contextId}, {u"status"_s, statusObject()}}}};
}

void A2aSimRun::broadcast(const QJsonObject &response)
{
    ++m_events;
    for (const QPointer<A2aSimStream> &s : std::as_const(m_streams)) {
        if (s)
            s->send(response);
    }
}

void A2aSimRun::finishTurn()
{
    // Terminal or waiting: streams close (§0.5), blocking senders get their answer.
    for (const QPointer<A2aSimStream> &s : std::as_const(m_streams)) {
        if (s) {
            s->end();
            s->deleteLater();
        }
    }
    m_streams.clear();
    const auto waiters = std::exchange(m_waiters, {});
    for (const auto &w : waiters)
        w();
}

void A2aSimRun::step()
{
    if (m_next >= m_steps.size() || isTerminal())
        return;
    const Step s = m_steps.at(m_next++);
    switch (s.type) {
    case Step::Type::Status:
        setStatus(s.state, s.text);
        broadcast(statusEvent());
        if (isTerminal() || isInterrupted()) {
            finishTurn();
            return;
        }
        break;
    case Step::Type::Chunk: {
        auto it = std::find_if(m_artifacts.begin(), m_artifacts.end(),
                               [&](const Artifact &a) { return a.id == s.artifactId; });
        const QJsonObject part{{u"text"_s, s.text}, {u"mediaType"_s, u"text/plain"_s}};
        if (it == m_artifacts.end()) {
            m_artifacts.append(Artifact{s.artifactId, s.artifactName, QJsonArray{part}});
        } else if (s.append) {
            it->parts.append(part);
        } else {
            it->parts = QJsonArray{part};
        }
        QJsonObject update{{u"taskId"_s, m_id},
                           {u"contextId"_s, m_contextId},
                           {u"artifact"_s, QJsonObject{{u"artifactId"_s, s.artifactId},
                                                       {u"name"_s, s.artifactName},
                                                       {u"parts"_s, QJsonArray{part}}}}};
        // ProtoJSON leaves false out (§0.6).
        if (s.append)
            update.insert(u"append"_s, true);
        if (s.lastChunk)
            update.insert(u"lastChunk"_s, true);
        broadcast({{u"artifactUpdate"_s, update}});
        break;
    }
    case Step::Type::StreamError:
        ++m_events;
        for (const QPointer<A2aSimStream> &c : std::as_const(m_streams)) {
            if (c)
                c->sendError(-32603, s.text);
        }
        setStatus(A2aState::Failed, s.text);
        finishTurn();
        return;
    }
    scheduleNext();
}

} // namespace RunwatchSim
