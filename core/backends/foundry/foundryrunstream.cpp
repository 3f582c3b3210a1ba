// SPDX-License-Identifier: GPL-3.0-or-later
#include "foundryrunstream.h"

#include "foundrybackend.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkReply>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "FoundryConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(FoundryConnector)
};
} // namespace

FoundryRunStream::FoundryRunStream(FoundryBackend *backend, HttpRequest request, Mode mode,
                                   std::chrono::milliseconds stallTimeout, QObject *parent, RunError refused)
    : SseRunStream(Options{.stallTimeout = stallTimeout}, parent)
    , m_backend(backend)
    , m_mode(mode)
{
    // Start on the next event-loop turn so the owner can connect to our signals first.
    QTimer::singleShot(0, this, [this, request, refused] { run(request, refused); });
}

FoundryRunStream::FoundryRunStream(FoundryBackend *backend, ContinuationToken token,
                                   std::chrono::milliseconds stallTimeout, QObject *parent)
    : SseRunStream(Options{.stallTimeout = stallTimeout}, parent)
    , m_backend(backend)
    , m_mode(Mode::Poll)
{
    QTimer::singleShot(0, this, [this, token] { poll(token); });
}

QCoro::Task<> FoundryRunStream::poll(ContinuationToken token)
{
    QPointer<FoundryRunStream> self = this;
    if (!m_backend || isAborted())
        co_return;
    const ActionResult result = co_await m_backend->get(token);
    if (!self || isAborted())
        co_return;
    if (!result.ok()) {
        endWith({StreamEnd::Reason::Error, result.error, result.retryAfterMs});
        co_return;
    }
    deliver(result.events);
    if (!self)
        co_return;
    RunStatus status = RunStatus::Unknown;
    for (const RunEvent &e : result.events) {
        if (e.type == RunEvent::Type::Status)
            status = e.status;
    }
    const bool over = isTerminal(status) || status == RunStatus::InputRequired;
    endWith({over ? StreamEnd::Reason::Terminal : StreamEnd::Reason::Eof, {}, std::nullopt});
}

QCoro::Task<> FoundryRunStream::run(HttpRequest request, RunError refused)
{
    QPointer<FoundryRunStream> self = this;
    if (refused.isError()) {
        endWith({StreamEnd::Reason::Error, refused, std::nullopt});
        co_return;
    }
    if (!m_backend || isAborted())
        co_return;
    if (m_prelude) {
        HttpRequest prelude = std::move(*m_prelude);
        m_prelude.reset();
        const HttpResponse added = co_await m_backend->send(std::move(prelude));
        if (!self || isAborted() || !m_backend)
            co_return;
        // Without the message on the thread a run would answer the previous turn again.
        if (!added.ok()) {
            endWith({StreamEnd::Reason::Error, added.error, added.retryAfterMs});
            co_return;
        }
    }
    if (m_mode == Mode::CreateJson) {
        const HttpResponse response = co_await m_backend->send(std::move(request));
        if (!self || isAborted())
            co_return;
        if (!response.ok()) {
            endWith({StreamEnd::Reason::Error, response.error, response.retryAfterMs});
            co_return;
        }
        const QJsonObject run = QJsonDocument::fromJson(response.body).object();
        if (run.value(u"id"_s).toString().isEmpty() || run.value(u"status"_s).toString().isEmpty()) {
            endWith({StreamEnd::Reason::Error,
                     response.protocolError(
                         u"unexpected_body"_s,
                         Text::tr("The service answered the create request with something that is "
                                  "not a run object.")),
                     std::nullopt});
            co_return;
        }
        deliver(Foundry::mapRunObject(run));
        if (!self)
            co_return;
        // Queued as a rule: the engine polls from here (no stream to resume).
        endWith({StreamEnd::Reason::Eof, {}, std::nullopt});
        co_return;
    }

    OpenedStream opened = co_await m_backend->openStream(std::move(request), decoderFactory());
    if (!self || isAborted()) {
        discardReply(opened.reply);
        co_return;
    }
    if (!opened.response.ok() || !opened.reply) {
        endWith({StreamEnd::Reason::Error, opened.response.error, opened.response.retryAfterMs});
        co_return;
    }
    if (!isEventStream(opened.response)) {
        discardReply(opened.reply);
        const QByteArray contentType = opened.response.header("content-type");
        endWith({StreamEnd::Reason::Error,
                 unexpectedContentType(opened.response,
                                       Text::tr("Expected an event stream but the service sent %1.")
                                           .arg(contentType.isEmpty() ? Text::tr("no content type")
                                                                      : QString::fromLatin1(contentType))),
                 std::nullopt});
        co_return;
    }
    startReading(opened);
}

std::unique_ptr<SseDecoder> FoundryRunStream::makeDecoder()
{
    class Decoder final : public SseDecoder
    {
    public:
        explicit Decoder(FoundryMapper mapper)
            : m_mapper(std::move(mapper))
        {}

    private:
        std::any readerState() const override { return m_mapper; }

        bool handleEvent(const SseEvent &event, QList<RunEvent> &out) override
        {
            switch (m_mapper.map(event.type, event.data, out)) {
            case FoundryMapper::Outcome::Continue:
                return true;
            case FoundryMapper::Outcome::Terminal:
                // Read the messages once more before ending: the text becomes the service's own.
                settleAfterBatch();
                return false;
            case FoundryMapper::Outcome::NeedsInput:
                endAfterBatch({StreamEnd::Reason::Terminal, {}, std::nullopt});
                return false;
            case FoundryMapper::Outcome::Done:
                // [DONE] without a terminal event: the run goes on without this stream.
                endAfterBatch({StreamEnd::Reason::Eof, {}, std::nullopt});
                return false;
            case FoundryMapper::Outcome::StreamError:
                endAfterBatch({StreamEnd::Reason::Error, m_mapper.error(), std::nullopt});
                return false;
            case FoundryMapper::Outcome::Malformed: {
                // The run itself may be fine: poll it rather than give up (nothing is lost that way).
                RunError error = m_mapper.error();
                error.retryable = true;
                endAfterBatch({StreamEnd::Reason::Error, error, std::nullopt});
                return false;
            }
            }
            return true;
        }

        FoundryMapper m_mapper;
    };
    return std::make_unique<Decoder>(m_mapper);
}

void FoundryRunStream::decoderState(const std::any &state)
{
    if (const auto *mapper = std::any_cast<FoundryMapper>(&state))
        m_mapper = *mapper;
}

void FoundryRunStream::settle()
{
    reconcile(m_mapper.threadId(), m_mapper.runId());
}

QCoro::Task<> FoundryRunStream::reconcile(QString threadId, QString runId)
{
    QPointer<FoundryRunStream> self = this;
    if (!m_backend || threadId.isEmpty() || runId.isEmpty()) {
        endWith({StreamEnd::Reason::Terminal, {}, std::nullopt});
        co_return;
    }
    const FoundryTextResult text = co_await m_backend->runText(threadId, runId);
    if (!self || isAborted())
        co_return;
    if (text.error.isError() || text.truncation.isError()) {
        // The streamed text stands (a cut list's text could only be shorter, and listAll has
        // logged the cut); the run is over either way.
        endWith({StreamEnd::Reason::Terminal, {}, std::nullopt});
        co_return;
    }
    RunEvent snapshot = RunEvent::primarySnapshot(text.text);
    snapshot.verify = true;
    deliver({snapshot});
    if (!self)
        co_return;
    endWith({StreamEnd::Reason::Terminal, {}, std::nullopt});
}

void FoundryRunStream::bodyEnded()
{
    if (m_mapper.runId().isEmpty() && !m_mapper.threadId().isEmpty()) {
        identify(m_mapper.threadId(), {StreamEnd::Reason::Eof, {}, std::nullopt});
        return;
    }
    SseRunStream::bodyEnded();
}

void FoundryRunStream::bodyBroken(StreamEnd end)
{
    if (m_mapper.runId().isEmpty() && !m_mapper.threadId().isEmpty()) {
        identify(m_mapper.threadId(), std::move(end));
        return;
    }
    SseRunStream::bodyBroken(std::move(end));
}

QCoro::Task<> FoundryRunStream::identify(QString threadId, StreamEnd end)
{
    QPointer<FoundryRunStream> self = this;
    detachReply();
    if (!m_backend) {
        endWith(std::move(end));
        co_return;
    }
    // A thread created by POST /threads/runs has exactly this one run.
    const HttpResponse response = co_await m_backend->send(
        m_backend->request("GET", u"/threads/%1/runs?limit=1&order=desc"_s.arg(
                                      QString::fromLatin1(QUrl::toPercentEncoding(threadId)))));
    if (!self || isAborted())
        co_return;
    const QJsonArray runs = QJsonDocument::fromJson(response.body).object().value(u"data"_s).toArray();
    if (response.ok() && !runs.isEmpty())
        deliver(Foundry::mapRunObject(runs.first().toObject()));
    if (!self)
        co_return;
    endWith(std::move(end));
}

void FoundryRunStream::replyGone()
{
    endWith({StreamEnd::Reason::Eof, {}, std::nullopt});
}

} // namespace Runwatch
