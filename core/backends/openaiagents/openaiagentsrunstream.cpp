// SPDX-License-Identifier: GPL-3.0-or-later
#include "openaiagentsrunstream.h"

#include "openaiagentsbackend.h"
#include "openaiagentslog.h"
#include "openaiagentsmapper.h"

#include <QCoreApplication>
#include <QCoroTimer>
#include <QJsonDocument>
#include <QNetworkReply>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "OpenAiAgentsConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(OpenAiAgentsConnector)
};

// A turn is created shortly after the 202 of its message (§4: about 100 ms); a follow-up that
// cannot watch the stream asks the turns this often, this many times.
constexpr int kTurnChecks = 50;
constexpr std::chrono::milliseconds kTurnCheckEvery{100};

QString lastRootTurn(const QJsonArray &turns)
{
    QString last;
    double newest = -1;
    for (const QJsonValue &value : turns) {
        const QJsonObject turn = value.toObject();
        if (turn.value(u"subagent_id"_s).isString())
            continue;
        const double created = turn.value(u"created_at"_s).toDouble();
        if (created >= newest) {
            newest = created;
            last = turn.value(u"id"_s).toString();
        }
    }
    return last;
}

QJsonArray messageEvent(const QString &prompt)
{
    return QJsonArray{QJsonObject{
        {u"type"_s, u"agent.session.input.message"_s},
        {u"input"_s,
         QJsonArray{QJsonObject{
             {u"role"_s, u"user"_s},
             {u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"input_text"_s}, {u"text"_s, prompt}}}}}}}}};
}

} // namespace

using namespace OpenAiAgents;
using AgentSessions::SessionGate;

SseRunStream::Options OpenAiAgentsRunStream::readOptions(std::chrono::milliseconds stallTimeout)
{
    return {
        .stallTimeout = stallTimeout,
        .deferDrain = true,
        // Keep-alive comments say the stream is alive while the agent works quietly.
        .stallOnBytes = true,
        .retryFromStream = false,
        .oversizeRetryable = false,
        .stalledMessage = Text::tr("Nothing arrived on the session's stream for %1 s; following it again."),
        .timedOutMessage = Text::tr("The session's stream went silent and timed out."),
        .interruptedMessage = Text::tr("The session's stream was interrupted: %1"),
    };
}

OpenAiAgentsRunStream::OpenAiAgentsRunStream(OpenAiAgentsBackend *backend, Kickoff kickoff, QObject *parent)
    : SseRunStream(readOptions(stallTimeoutFor(backend->connection())), parent)
    , m_backend(backend)
    , m_sessionId(kickoff.sessionId)
    , m_gate(std::make_shared<SessionGate>(&sessionEventOf, QString()))
{
    // The run's turn is the next one its session starts.
    m_gate->followNextTurn();
    // Start on the next event-loop turn so the owner can connect to our signals first.
    QTimer::singleShot(0, this, [this, kickoff] {
        if (kickoff.sessionId.isEmpty()) {
            runCreate(kickoff);
        } else {
            runFollowUp(kickoff);
        }
    });
}

OpenAiAgentsRunStream::OpenAiAgentsRunStream(OpenAiAgentsBackend *backend, ContinuationToken token,
                                             QObject *parent)
    : SseRunStream(readOptions(stallTimeoutFor(backend->connection())), parent)
    , m_backend(backend)
    , m_sessionId(token.remoteId)
    , m_gate(std::make_shared<SessionGate>(&sessionEventOf,
                                           token.extra.value(AgentSessions::kTurnKey).toString()))
{
    QTimer::singleShot(0, this, [this] { runFollow(); });
}

QCoro::Task<> OpenAiAgentsRunStream::runCreate(Kickoff kickoff)
{
    QPointer<OpenAiAgentsRunStream> self = this;
    if (!m_backend || isAborted())
        co_return;
    if (kickoff.agent.isEmpty()) {
        endWith(
            {StreamEnd::Reason::Error,
             RunError::client(u"no_agent"_s, Text::tr("Name the agent to run (--agent; agents lists them).")),
             std::nullopt});
        co_return;
    }
    HttpRequest create
        = m_backend->createRequest(kickoff.agent, kickoff.prompt, kickoff.clientRunId, kickoff.stream);
    if (!kickoff.stream) {
        const HttpResponse created = co_await m_backend->httpClient()->send(std::move(create));
        if (!self || isAborted() || !m_backend)
            co_return;
        const QJsonObject session = QJsonDocument::fromJson(created.body).object();
        m_sessionId = session.value(u"id"_s).toString();
        if (!created.ok() || m_sessionId.isEmpty()) {
            const RunError e
                = created.ok()
                      ? created.protocolError(u"no_session_id"_s, Text::tr("The service created no session."))
                      : OpenAiAgentsBackend::httpError(created);
            endWith({StreamEnd::Reason::Error, e, created.retryAfterMs});
            co_return;
        }
        RunEvent started = RunEvent::identity(
            m_sessionId, session.value(u"agent"_s).toObject().value(u"model"_s).toString(), false);
        started.tokenExtra.insert(kAgentKey, kickoff.agent);
        const QList<RunEvent> events{started,
                                     RunEvent::statusChange(RunStatus::InProgress, u"in_progress"_s)};
        deliver(events);
        if (!self)
            co_return;
        endWith({StreamEnd::Reason::ResumeRefused, {}, std::nullopt});
        co_return;
    }
    // The create call's stream is the session's from its first event: nothing to read before it.
    const SessionGate::Opened nothing = m_gate->open({});
    Q_UNUSED(nothing);
    OpenedStream opened = co_await m_backend->httpClient()->openStream(std::move(create), decoderFactory());
    if (!self || isAborted() || !m_backend) {
        discardReply(opened.reply);
        co_return;
    }
    if (!opened.response.ok() || !opened.reply) {
        endWith({StreamEnd::Reason::Error, OpenAiAgentsBackend::httpError(opened.response),
                 opened.response.retryAfterMs});
        co_return;
    }
    if (!isEventStream(opened.response)) {
        discardReply(opened.reply);
        endWith(
            {StreamEnd::Reason::Error,
             unexpectedContentType(opened.response, Text::tr("The session's stream is not an event stream.")),
             std::nullopt});
        co_return;
    }
    qCDebug(lcOpenAiAgents) << "created a session on" << kickoff.agent;
    startReading(opened);
}

QCoro::Task<> OpenAiAgentsRunStream::runFollowUp(Kickoff kickoff)
{
    QPointer<OpenAiAgentsRunStream> self = this;
    if (!m_backend || isAborted())
        co_return;
    // Subscribe before sending work, or the turn's first events are lost (§1.6).
    OpenedStream opened;
    RunError streamError;
    if (kickoff.stream) {
        opened = co_await m_backend->httpClient()->openStream(m_backend->streamRequest(m_sessionId),
                                                              decoderFactory());
        if (!self || isAborted() || !m_backend) {
            discardReply(opened.reply);
            co_return;
        }
        if (!opened.response.ok() || !opened.reply || !isEventStream(opened.response)) {
            streamError = opened.response.ok() ? unexpectedContentType(
                              opened.response, Text::tr("The session's stream is not an event stream."))
                                               : OpenAiAgentsBackend::httpError(opened.response);
            discardReply(opened.reply);
            opened = {};
        }
    }
    // The turns so far: the run's is the next one.
    const OpenAiAgentsBackend::History saved = co_await m_backend->history(m_sessionId);
    if (!self || isAborted() || !m_backend) {
        discardReply(opened.reply);
        co_return;
    }
    if (saved.error.isError()) {
        discardReply(opened.reply);
        endWith({StreamEnd::Reason::Error, saved.error, saved.retryAfterMs});
        co_return;
    }
    const SessionGate::Opened gate = m_gate->open(historyOf(saved.session, saved.turns, saved.items));
    const OpenAiAgentsBackend::Fetched sent
        = co_await m_backend->sendEvents(m_sessionId, messageEvent(kickoff.prompt));
    if (!self || isAborted() || !m_backend) {
        discardReply(opened.reply);
        co_return;
    }
    if (sent.error.isError()) {
        discardReply(opened.reply);
        endWith({StreamEnd::Reason::Error, sent.error, sent.retryAfterMs});
        co_return;
    }
    // The run is known by its session once its message went out: a front end that leaves as soon
    // as the run has its remote id must not leave before.
    RunEvent started = RunEvent::identity(
        m_sessionId, saved.session.value(u"agent"_s).toObject().value(u"model"_s).toString(), kickoff.stream);
    if (!kickoff.agent.isEmpty())
        started.tokenExtra.insert(kAgentKey, kickoff.agent);
    QList<RunEvent> events{started, RunEvent::statusChange(RunStatus::InProgress, u"in_progress"_s)};
    // The history's turns are earlier ones: only its cursor.
    for (const RunEvent &event : gate.events) {
        if (event.type == RunEvent::Type::Cursor)
            events << event;
    }
    if (!opened.reply) {
        // Without a stream, the turn is found in the session's turns.
        const QString turn = co_await newTurn(lastRootTurn(saved.turns));
        if (!self || isAborted() || !m_backend)
            co_return;
        if (!turn.isEmpty())
            started.tokenExtra.insert(AgentSessions::kTurnKey, turn);
        events.first() = started;
        deliver(events);
        if (!self)
            co_return;
        if (!kickoff.stream) {
            endWith({StreamEnd::Reason::ResumeRefused, {}, std::nullopt});
        } else {
            endWith({StreamEnd::Reason::Eof, streamError, std::nullopt});
        }
        co_return;
    }
    deliver(events);
    if (!self || isAborted() || isFinished()) {
        discardReply(opened.reply);
        co_return;
    }
    startReading(opened);
}

QCoro::Task<QString> OpenAiAgentsRunStream::newTurn(QString previous)
{
    QPointer<OpenAiAgentsRunStream> self = this;
    QUrlQuery query;
    query.addQueryItem(u"limit"_s, u"5"_s);
    query.addQueryItem(u"order"_s, u"desc"_s);
    for (int i = 0; i < kTurnChecks; ++i) {
        const OpenAiAgentsBackend::Listed turns = co_await m_backend->listAll(
            OpenAiAgentsBackend::sessionPath(m_sessionId) + u"/turns"_s, query, 1);
        if (!self || isAborted() || !m_backend)
            co_return QString();
        const QString last = lastRootTurn(turns.items);
        if (!turns.error.isError() && !last.isEmpty() && last != previous)
            co_return last;
        co_await QCoro::sleepFor(kTurnCheckEvery);
        if (!self || isAborted() || !m_backend)
            co_return QString();
    }
    co_return QString();
}

QCoro::Task<> OpenAiAgentsRunStream::runFollow()
{
    QPointer<OpenAiAgentsRunStream> self = this;
    if (!m_backend || isAborted() || isFinished())
        co_return;
    // The stream first, held; then the history; then what the stream brought meanwhile (§1.6).
    OpenedStream opened = co_await m_backend->httpClient()->openStream(m_backend->streamRequest(m_sessionId),
                                                                       decoderFactory());
    if (!self || isAborted() || !m_backend) {
        discardReply(opened.reply);
        co_return;
    }
    if (!opened.response.ok() || !opened.reply) {
        endWith({StreamEnd::Reason::Error, OpenAiAgentsBackend::httpError(opened.response),
                 opened.response.retryAfterMs});
        co_return;
    }
    if (!isEventStream(opened.response)) {
        discardReply(opened.reply);
        // The history alone still shows the turn: the engine reads it.
        endWith(
            {StreamEnd::Reason::ResumeRefused,
             unexpectedContentType(opened.response, Text::tr("The session's stream is not an event stream.")),
             std::nullopt});
        co_return;
    }
    const OpenAiAgentsBackend::History saved = co_await m_backend->history(m_sessionId);
    if (!self || isAborted() || !m_backend) {
        discardReply(opened.reply);
        co_return;
    }
    if (saved.error.isError()) {
        discardReply(opened.reply);
        endWith({StreamEnd::Reason::Error, saved.error, saved.retryAfterMs});
        co_return;
    }
    const SessionGate::Opened gate = m_gate->open(historyOf(saved.session, saved.turns, saved.items));
    qCDebug(lcOpenAiAgents) << "session" << m_sessionId << "history" << saved.turns.size() << "turns"
                            << saved.items.size() << "items";
    QList<RunEvent> events{RunEvent::identity(
        m_sessionId, saved.session.value(u"agent"_s).toObject().value(u"model"_s).toString(), true)};
    if (const QString agent = saved.session.value(u"agent"_s).toObject().value(u"id"_s).toString();
        !agent.isEmpty())
        events.first().tokenExtra.insert(kAgentKey, agent);
    events << gate.events;
    deliver(events);
    if (!self || isAborted() || isFinished()) {
        discardReply(opened.reply);
        co_return;
    }
    const AgentSessions::SessionTurn &turn = gate.turn;
    if (turn.ended() || turn.waiting() || !turn.started()) {
        discardReply(opened.reply);
        if (!turn.started() && turn.turnId().isEmpty()) {
            // Attached to a session that has had no turn yet: nothing to follow.
            const QList<RunEvent> idle{RunEvent::statusChange(RunStatus::Completed, u"idle"_s)};
            deliver(idle);
            if (!self)
                co_return;
        } else if (!turn.started()) {
            endWith(
                {StreamEnd::Reason::Error,
                 RunError::protocol(
                     u"turn_not_found"_s,
                     Text::tr("The session's history does not have the run's turn %1.").arg(turn.turnId())),
                 std::nullopt});
            co_return;
        }
        endWith({StreamEnd::Reason::Terminal, {}, std::nullopt});
        co_return;
    }
    startReading(opened);
}

std::unique_ptr<SseDecoder> OpenAiAgentsRunStream::decoderFor(std::shared_ptr<SessionGate> gate)
{
    class Decoder final : public SseDecoder
    {
    public:
        explicit Decoder(std::shared_ptr<SessionGate> gate)
            : m_gate(std::move(gate))
        {}

    private:
        bool handleEvent(const SseEvent &event, QList<RunEvent> &out) override
        {
            if (event.type == "error") {
                // The client yields it and the SDK's helpers give up on the stream: the engine
                // follows again (stream first, then the history).
                const QJsonObject body = QJsonDocument::fromJson(event.data.toByteArray()).object();
                RunError e;
                e.kind = ErrorKind::Server;
                e.retryable = true;
                e = errorOf(body, e);
                if (e.message.isEmpty())
                    e.message = body.value(u"message"_s).toString();
                if (e.message.isEmpty())
                    e.message = Text::tr("The session's stream reported an error.");
                endAfterBatch({StreamEnd::Reason::Eof, e, std::nullopt});
                return false;
            }
            if (event.type == "agent.session.created") {
                // A create stream's first event: the run is known by its session from here on.
                const QJsonObject session = QJsonDocument::fromJson(event.data.toByteArray())
                                                .object()
                                                .value(u"session"_s)
                                                .toObject();
                if (const QString id = session.value(u"id"_s).toString(); !id.isEmpty()) {
                    RunEvent identity = RunEvent::identity(
                        id, session.value(u"agent"_s).toObject().value(u"model"_s).toString(), true);
                    if (const QString agent = session.value(u"agent"_s).toObject().value(u"id"_s).toString();
                        !agent.isEmpty())
                        identity.tokenExtra.insert(kAgentKey, agent);
                    out << identity << RunEvent::statusChange(RunStatus::InProgress, u"in_progress"_s);
                }
            }
            m_gate->frame(event.type, event.data, out);
            if (m_gate->isOpen() && m_gate->over()) {
                endAfterBatch({StreamEnd::Reason::Terminal, {}, std::nullopt});
                return false;
            }
            return true;
        }

        std::shared_ptr<SessionGate> m_gate;
    };
    return std::make_unique<Decoder>(std::move(gate));
}

std::unique_ptr<SseDecoder> OpenAiAgentsRunStream::makeDecoder()
{
    return decoderFor(m_gate);
}

void OpenAiAgentsRunStream::replyGone()
{
    // Its network manager went away: nothing more can arrive. Follow again from the history.
    endWith({StreamEnd::Reason::Eof, {}, std::nullopt});
}

} // namespace Runwatch
