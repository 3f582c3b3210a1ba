// SPDX-License-Identifier: GPL-3.0-or-later
#include "langgraphrunstream.h"

#include "langgraphbackend.h"
#include "langgraphlog.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QNetworkReply>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "LangGraphConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(LangGraphConnector)
};

QString encoded(const QString &id)
{
    return QString::fromLatin1(QUrl::toPercentEncoding(id));
}

} // namespace

using namespace LangGraph;

SseRunStream::Options LangGraphRunStream::readOptions(std::chrono::milliseconds stallTimeout)
{
    return {
        .stallTimeout = stallTimeout,
        .stalledMessage = Text::tr("Nothing arrived on the run's stream for %1 s; joining it again."),
        .timedOutMessage = Text::tr("The run's stream went silent and timed out."),
        .interruptedMessage = Text::tr("The run's stream was interrupted: %1"),
    };
}

LangGraphRunStream::LangGraphRunStream(LangGraphBackend *backend, Kickoff kickoff, QObject *parent)
    : SseRunStream(readOptions(stallTimeoutFor(backend->connection())), parent)
    , m_backend(backend)
{
    // Start on the next event-loop turn so the owner can connect to our signals first.
    QTimer::singleShot(0, this, [this, kickoff] { runKickoff(kickoff); });
}

LangGraphRunStream::LangGraphRunStream(LangGraphBackend *backend, ContinuationToken token, QObject *parent)
    : SseRunStream(readOptions(stallTimeoutFor(backend->connection())), parent)
    , m_backend(backend)
    , m_token(std::move(token))
    , m_mapper(m_token.extra.value(kRunId).toString())
{
    QTimer::singleShot(
        0, this, [this] { m_token.extra.value(kRunId).toString().isEmpty() ? afterClose() : runJoin(); });
}

QCoro::Task<> LangGraphRunStream::runKickoff(Kickoff kickoff)
{
    QPointer<LangGraphRunStream> self = this;
    if (!m_backend || isAborted())
        co_return;
    if (kickoff.assistant.isEmpty()) {
        endWith(
            {StreamEnd::Reason::Error,
             RunError::client(u"no_assistant"_s, Text::tr("Name the assistant or graph to run (--agent).")),
             std::nullopt});
        co_return;
    }
    qsizetype messagesBefore = 0;
    if (kickoff.threadId.isEmpty()) {
        QJsonObject metadata{{u"title"_s, kickoff.title}};
        if (!kickoff.clientRunId.isEmpty())
            metadata.insert(u"runwatch_client_run_id"_s, kickoff.clientRunId);
        // A thread created twice is an empty thread left over, not a second run: safe to repeat.
        const QJsonObject body{{u"metadata"_s, metadata}};
        HttpRequest create = m_backend->jsonRequest("POST", u"/threads"_s, body);
        const HttpResponse created = co_await m_backend->httpClient()->send(std::move(create));
        if (!self || isAborted() || !m_backend)
            co_return;
        const QJsonObject thread = QJsonDocument::fromJson(created.body).object();
        kickoff.threadId = thread.value(u"thread_id"_s).toString();
        if (!created.ok() || kickoff.threadId.isEmpty()) {
            const RunError e = created.ok() ? created.protocolError(
                                   u"no_thread_id"_s, Text::tr("The Agent Server created no thread."))
                                            : LangGraphBackend::httpError(created);
            endWith({StreamEnd::Reason::Error, e, created.retryAfterMs});
            co_return;
        }
    } else {
        // A follow-up: where this run's messages begin in the thread's state.
        const LangGraphBackend::Fetched state
            = co_await m_backend->fetchObject(u"/threads/%1/state"_s.arg(encoded(kickoff.threadId)));
        if (!self || isAborted() || !m_backend)
            co_return;
        messagesBefore = state.object.value(u"values"_s).toObject().value(u"messages"_s).toArray().size();
    }
    m_token.remoteId = kickoff.threadId;
    RunEvent thread = RunEvent::identity(kickoff.threadId, {}, kickoff.stream);
    thread.tokenExtra.insert(kAssistantId, kickoff.assistant);
    thread.tokenExtra.insert(kMessagesBefore, messagesBefore);
    if (!kickoff.clientRunId.isEmpty())
        thread.tokenExtra.insert(kClientRunId, kickoff.clientRunId);
    const QList<RunEvent> threadEvents{thread};
    deliver(threadEvents);
    if (!self || isAborted() || !m_backend)
        co_return;

    HttpRequest r = m_backend->jsonRequest(
        "POST", u"/threads/%1/runs"_s.arg(encoded(kickoff.threadId)),
        LangGraphBackend::runBody(kickoff.assistant, kickoff.input, kickoff.clientRunId));
    // Never repeated once it may have arrived: the thread would refuse a second run (422), or run
    // it twice with another multitask strategy. A lost reply is reconciled from the thread's runs.
    r.idempotent = false;
    const HttpResponse response = co_await m_backend->httpClient()->send(std::move(r));
    if (!self || isAborted() || !m_backend)
        co_return;
    QJsonObject run = QJsonDocument::fromJson(response.body).object();
    if (!response.ok()) {
        const RunError error = LangGraphBackend::httpError(response);
        const bool mayExist = error.kind == ErrorKind::Network || error.kind == ErrorKind::Timeout
                              || error.kind == ErrorKind::Server;
        if (mayExist) {
            // The thread's latest run is ours if it carries our client run id (currentRun()).
            ContinuationToken probe;
            probe.remoteId = kickoff.threadId;
            probe.extra.insert(kClientRunId, kickoff.clientRunId);
            const LangGraphBackend::Fetched latest = co_await m_backend->currentRun(probe);
            if (!self || isAborted() || !m_backend)
                co_return;
            if (latest.ok() && !kickoff.clientRunId.isEmpty())
                run = latest.object;
        }
        if (run.value(u"run_id"_s).toString().isEmpty()) {
            endWith({StreamEnd::Reason::Error, error, response.retryAfterMs});
            co_return;
        }
    }
    const QString runId = run.value(u"run_id"_s).toString();
    if (runId.isEmpty()) {
        endWith({StreamEnd::Reason::Error,
                 response.protocolError(u"no_run_id"_s, Text::tr("The Agent Server's reply names no run.")),
                 std::nullopt});
        co_return;
    }
    qCDebug(lcLangGraph) << "started run" << runId << "on thread" << kickoff.threadId;
    m_token.extra.insert(kRunId, runId);
    m_mapper = LangGraphMapper(runId);
    RunEvent started = RunEvent::identity(kickoff.threadId, {}, kickoff.stream);
    started.tokenExtra.insert(kRunId, runId);
    const QList<RunEvent> startedEvents{
        started,
        RunEvent::statusChange(RunStatus::InProgress, run.value(u"status"_s).toString(u"pending"_s))};
    deliver(startedEvents);
    if (!self || isAborted() || !m_backend)
        co_return;
    if (!kickoff.stream) {
        endWith({StreamEnd::Reason::ResumeRefused, {}, std::nullopt});
        co_return;
    }
    co_await runJoin();
}

QCoro::Task<> LangGraphRunStream::runJoin()
{
    QPointer<LangGraphRunStream> self = this;
    if (!m_backend || isAborted() || isFinished())
        co_return;
    const QString runId = m_token.extra.value(kRunId).toString();
    HttpRequest request = m_backend->request(
        "GET", u"/threads/%1/runs/%2/stream"_s.arg(encoded(m_token.remoteId), encoded(runId)));
    request.headers.emplaceBack("Accept", "text/event-stream");
    request.headers.emplaceBack("Cache-Control", "no-cache");
    // Always: a first join without it makes the run's event log non-resumable on the JS server,
    // and every rejoin then loses events (§5). -1 is "from the first event".
    const QString lastEventId = m_token.eventId.isEmpty() ? u"-1"_s : m_token.eventId;
    request.headers.emplaceBack("Last-Event-ID", lastEventId.toUtf8());
    OpenedStream opened = co_await m_backend->httpClient()->openStream(std::move(request), decoderFactory());
    if (!self || isAborted()) {
        discardReply(opened.reply);
        co_return;
    }
    if (!opened.response.ok() || !opened.reply) {
        endWith({StreamEnd::Reason::Error, LangGraphBackend::httpError(opened.response),
                 opened.response.retryAfterMs});
        co_return;
    }
    if (!isEventStream(opened.response)) {
        discardReply(opened.reply);
        endWith(
            {StreamEnd::Reason::ResumeRefused,
             unexpectedContentType(opened.response,
                                   Text::tr("The run's stream answered with %1 instead of an event stream; "
                                            "polling instead.")
                                       .arg(QString::fromLatin1(opened.response.header("content-type")))),
             std::nullopt});
        co_return;
    }
    startReading(opened);
}

std::unique_ptr<SseDecoder> LangGraphRunStream::makeDecoder()
{
    // A new connection: whether it brings anything is what ends the catch-up (§4).
    m_mapper.startConnection();
    class Decoder final : public SseDecoder
    {
    public:
        explicit Decoder(LangGraphMapper mapper)
            : m_mapper(std::move(mapper))
        {}

    private:
        std::any readerState() const override { return m_mapper; }

        bool handleEvent(const SseEvent &event, QList<RunEvent> &out) override
        {
            // An `end` or `error` event is followed by the close of the body, after which the
            // run and its thread are read (afterClose()), as after any close.
            m_mapper.map(event.type, event.data, event.id, out);
            return true;
        }

        LangGraphMapper m_mapper;
    };
    return std::make_unique<Decoder>(m_mapper);
}

void LangGraphRunStream::decoderState(const std::any &state)
{
    if (const auto *mapper = std::any_cast<LangGraphMapper>(&state)) {
        m_mapper = *mapper;
        if (!m_mapper.lastEventId().isEmpty())
            m_token.eventId = m_mapper.lastEventId();
    }
}

void LangGraphRunStream::bodyEnded()
{
    // A clean close says nothing on the JS server: no end event, no heartbeat (§4).
    detachReply();
    afterClose();
}

QCoro::Task<> LangGraphRunStream::afterClose()
{
    QPointer<LangGraphRunStream> self = this;
    if (!m_backend || isAborted() || isFinished())
        co_return;
    const bool broughtEvents = m_mapper.gotEvents();
    m_mapper.startConnection();
    const LangGraphBackend::Fetched run = co_await m_backend->currentRun(m_token);
    if (!self || isAborted() || isFinished() || !m_backend)
        co_return;
    if (!run.ok()) {
        endWith({StreamEnd::Reason::Error, run.error, std::nullopt});
        co_return;
    }
    const QString runId = run.object.value(u"run_id"_s).toString();
    if (m_token.extra.value(kRunId).toString() != runId) {
        // Attached by thread id: now the run is known.
        m_token.extra.insert(kRunId, runId);
        m_mapper = LangGraphMapper(runId);
        RunEvent identity = RunEvent::identity(m_token.remoteId, {}, true);
        identity.tokenExtra.insert(kRunId, runId);
        identity.tokenExtra.insert(kAssistantId, run.object.value(u"assistant_id"_s));
        const QList<RunEvent> identityEvents{identity};
        deliver(identityEvents);
        if (!self || isAborted() || isFinished() || !m_backend)
            co_return;
        co_await runJoin();
        co_return;
    }
    const QString status = run.object.value(u"status"_s).toString();
    if (!isTerminalRunStatus(status)) {
        if (broughtEvents) {
            co_await runJoin();
        } else {
            // Open and closed with nothing new while the run goes on: the engine joins again
            // after its reconnect delay rather than us in a tight loop.
            endWith({StreamEnd::Reason::Eof, {}, std::nullopt});
        }
        co_return;
    }
    if (broughtEvents) {
        // Over, but events may have come after our last one: one more join drains them.
        co_await runJoin();
        co_return;
    }
    const ActionResult final = co_await m_backend->finalEvents(m_token, run.object);
    if (!self || isAborted() || isFinished() || !m_backend)
        co_return;
    if (!final.ok()) {
        endWith({StreamEnd::Reason::Error, final.error, std::nullopt});
        co_return;
    }
    deliver(final.events);
    if (!self || isAborted() || isFinished())
        co_return;
    endWith({StreamEnd::Reason::Terminal, {}, std::nullopt});
}

} // namespace Runwatch
