// SPDX-License-Identifier: GPL-3.0-or-later
#include "claudeagentsrunstream.h"

#include "claudeagentsbackend.h"
#include "claudeagentslog.h"
#include "claudeagentsmapper.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QNetworkReply>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "ClaudeAgentsConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(ClaudeAgentsConnector)
};
} // namespace

using namespace ClaudeAgents;
using AgentSessions::SessionGate;

SseRunStream::Options ClaudeAgentsRunStream::readOptions(std::chrono::milliseconds stallTimeout)
{
    return {
        .stallTimeout = stallTimeout,
        .deferDrain = true,
        // The service's heartbeats (ping events) say the stream is alive while the agent works
        // quietly.
        .stallOnBytes = true,
        .retryFromStream = false,
        .oversizeRetryable = false,
        .stalledMessage = Text::tr("Nothing arrived on the session's stream for %1 s; following it again."),
        .timedOutMessage = Text::tr("The session's stream went silent and timed out."),
        .interruptedMessage = Text::tr("The session's stream was interrupted: %1"),
    };
}

ClaudeAgentsRunStream::ClaudeAgentsRunStream(ClaudeAgentsBackend *backend, Kickoff kickoff, QObject *parent)
    : SseRunStream(readOptions(stallTimeoutFor(backend->connection())), parent)
    , m_backend(backend)
    , m_sessionId(kickoff.sessionId)
    , m_gate(std::make_shared<SessionGate>(&sessionEventOf, QString()))
{
    // Start on the next event-loop turn so the owner can connect to our signals first.
    QTimer::singleShot(0, this, [this, kickoff] { runKickoff(kickoff); });
}

ClaudeAgentsRunStream::ClaudeAgentsRunStream(ClaudeAgentsBackend *backend, ContinuationToken token,
                                             QObject *parent)
    : SseRunStream(readOptions(stallTimeoutFor(backend->connection())), parent)
    , m_backend(backend)
    , m_sessionId(token.remoteId)
    , m_gate(std::make_shared<SessionGate>(&sessionEventOf,
                                           token.extra.value(AgentSessions::kTurnKey).toString()))
{
    QTimer::singleShot(0, this, [this] { runFollow(); });
}

QCoro::Task<> ClaudeAgentsRunStream::runKickoff(Kickoff kickoff)
{
    QPointer<ClaudeAgentsRunStream> self = this;
    if (!m_backend || isAborted())
        co_return;
    QString model;
    if (kickoff.sessionId.isEmpty()) {
        if (kickoff.agent.isEmpty()) {
            endWith({StreamEnd::Reason::Error,
                     RunError::client(u"no_agent"_s,
                                      Text::tr("Name the agent to run (--agent; agents lists them).")),
                     std::nullopt});
            co_return;
        }
        const ClaudeAgentsBackend::Fetched environment = co_await m_backend->environment();
        if (!self || isAborted() || !m_backend)
            co_return;
        if (environment.error.isError()) {
            endWith({StreamEnd::Reason::Error, environment.error, environment.retryAfterMs});
            co_return;
        }
        QJsonObject body{{u"agent"_s, kickoff.agent},
                         {u"environment_id"_s, environment.object.value(u"id"_s).toString()},
                         {u"title"_s, kickoff.prompt.left(200)}};
        if (!kickoff.clientRunId.isEmpty())
            body.insert(u"metadata"_s, QJsonObject{{u"runwatch_client_run_id"_s, kickoff.clientRunId}});
        HttpRequest create = m_backend->jsonRequest("POST", u"/v1/sessions"_s, body);
        // A session created twice is an idle session left over, but never repeated blindly.
        create.idempotent = false;
        const HttpResponse created = co_await m_backend->httpClient()->send(std::move(create));
        if (!self || isAborted() || !m_backend)
            co_return;
        const QJsonObject session = QJsonDocument::fromJson(created.body).object();
        m_sessionId = session.value(u"id"_s).toString();
        if (!created.ok() || m_sessionId.isEmpty()) {
            const RunError e
                = created.ok()
                      ? created.protocolError(u"no_session_id"_s, Text::tr("The service created no session."))
                      : ClaudeAgentsBackend::httpError(created);
            endWith({StreamEnd::Reason::Error, e, created.retryAfterMs});
            co_return;
        }
        qCDebug(lcClaudeAgents) << "created session" << m_sessionId << "on" << kickoff.agent;
        model = session.value(u"agent"_s).toObject().value(u"model"_s).toObject().value(u"id"_s).toString();
    }

    // Subscribe before sending work, or the turn's first events are lost (§2).
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
                                               : ClaudeAgentsBackend::httpError(opened.response);
            discardReply(opened.reply);
            opened = {};
        }
    }
    const QJsonArray message{QJsonObject{
        {u"type"_s, u"user.message"_s},
        {u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, kickoff.prompt}}}}}};
    const ClaudeAgentsBackend::Fetched sent = co_await m_backend->sendEvents(m_sessionId, message);
    if (!self || isAborted() || !m_backend) {
        discardReply(opened.reply);
        co_return;
    }
    const QString turn = sent.object.value(u"data"_s).toArray().at(0).toObject().value(u"id"_s).toString();
    if (sent.error.isError() || turn.isEmpty()) {
        discardReply(opened.reply);
        const RunError e
            = sent.error.isError()
                  ? sent.error
                  : RunError::protocol(u"no_event_id"_s, Text::tr("The service did not echo the message."));
        endWith({StreamEnd::Reason::Error, e, sent.retryAfterMs});
        co_return;
    }
    m_gate->setTurn(turn);
    // The run is known by its session once its turn is: a front end that leaves as soon as the
    // run has its remote id (start without --follow, not streamed) must not leave before the
    // message went out.
    RunEvent started = RunEvent::identity(m_sessionId, model, kickoff.stream);
    started.tokenExtra.insert(AgentSessions::kTurnKey, turn);
    if (!kickoff.agent.isEmpty())
        started.tokenExtra.insert(kAgentKey, kickoff.agent);
    const QList<RunEvent> startedEvents{started, RunEvent::statusChange(RunStatus::InProgress, u"running"_s)};
    deliver(startedEvents);
    if (!self || isAborted() || !m_backend) {
        discardReply(opened.reply);
        co_return;
    }
    if (!kickoff.stream) {
        endWith({StreamEnd::Reason::ResumeRefused, {}, std::nullopt});
        co_return;
    }
    if (!opened.reply) {
        // The message is sent; the engine follows the turn again (stream first, then the log).
        endWith({StreamEnd::Reason::Eof, streamError, opened.response.retryAfterMs});
        co_return;
    }
    co_await catchUp(opened);
}

QCoro::Task<> ClaudeAgentsRunStream::runFollow()
{
    QPointer<ClaudeAgentsRunStream> self = this;
    if (!m_backend || isAborted() || isFinished())
        co_return;
    OpenedStream opened = co_await m_backend->httpClient()->openStream(m_backend->streamRequest(m_sessionId),
                                                                       decoderFactory());
    if (!self || isAborted() || !m_backend) {
        discardReply(opened.reply);
        co_return;
    }
    if (!opened.response.ok() || !opened.reply) {
        endWith({StreamEnd::Reason::Error, ClaudeAgentsBackend::httpError(opened.response),
                 opened.response.retryAfterMs});
        co_return;
    }
    if (!isEventStream(opened.response)) {
        discardReply(opened.reply);
        // The log alone still shows the turn: the engine reads it.
        endWith(
            {StreamEnd::Reason::ResumeRefused,
             unexpectedContentType(opened.response, Text::tr("The session's stream is not an event stream.")),
             std::nullopt});
        co_return;
    }
    co_await catchUp(opened);
}

QCoro::Task<> ClaudeAgentsRunStream::catchUp(OpenedStream opened)
{
    QPointer<ClaudeAgentsRunStream> self = this;
    const ClaudeAgentsBackend::Listed log = co_await m_backend->eventLog(m_sessionId);
    if (!self || isAborted() || !m_backend) {
        discardReply(opened.reply);
        co_return;
    }
    if (log.error.isError()) {
        discardReply(opened.reply);
        endWith({StreamEnd::Reason::Error, log.error, std::nullopt});
        co_return;
    }
    QList<AgentSessions::SessionEvent> history;
    history.reserve(log.items.size());
    for (const QJsonValue &event : log.items)
        history << sessionEventOf(event.toObject(), {});
    const SessionGate::Opened gate = m_gate->open(history);
    qCDebug(lcClaudeAgents) << "session" << m_sessionId << "log" << history.size() << "events";
    deliver(gate.events);
    if (!self || isAborted() || isFinished()) {
        discardReply(opened.reply);
        co_return;
    }
    // The turn as the log (and what the stream kept) left it; what the stream brings from now on
    // comes through the reply, its end included.
    const AgentSessions::SessionTurn &turn = gate.turn;
    if (turn.ended() || turn.waiting() || !turn.started()) {
        discardReply(opened.reply);
        if (!turn.started() && turn.turnId().isEmpty()) {
            // Attached to a session that has had no message yet: nothing to follow.
            const QList<RunEvent> idle{RunEvent::statusChange(RunStatus::Completed, u"idle"_s)};
            deliver(idle);
            if (!self)
                co_return;
        } else if (!turn.started()) {
            endWith(
                {StreamEnd::Reason::Error,
                 RunError::protocol(u"turn_not_found"_s,
                                    Text::tr("The session's event log does not have the run's message %1.")
                                        .arg(turn.turnId())),
                 std::nullopt});
            co_return;
        }
        endWith({StreamEnd::Reason::Terminal, {}, std::nullopt});
        co_return;
    }
    startReading(opened);
}

std::unique_ptr<SseDecoder> ClaudeAgentsRunStream::decoderFor(std::shared_ptr<SessionGate> gate)
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
            // Heartbeats only say the stream lives (the SDK skips them).
            if (event.type == "ping")
                return true;
            if (event.type == "error") {
                // The SDK throws on it and attaches again: so does the engine.
                const QJsonObject body = QJsonDocument::fromJson(event.data.toByteArray()).object();
                RunError e;
                e.kind = ErrorKind::Server;
                e.retryable = true;
                e = errorOf(body, e);
                if (e.message.isEmpty())
                    e.message = Text::tr("The session's stream reported an error.");
                endAfterBatch({StreamEnd::Reason::Eof, e, std::nullopt});
                return false;
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

std::unique_ptr<SseDecoder> ClaudeAgentsRunStream::makeDecoder()
{
    return decoderFor(m_gate);
}

void ClaudeAgentsRunStream::replyGone()
{
    // Its network manager went away: nothing more can arrive. Follow again from the log.
    endWith({StreamEnd::Reason::Eof, {}, std::nullopt});
}

} // namespace Runwatch
