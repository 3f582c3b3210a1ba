// SPDX-License-Identifier: GPL-3.0-or-later
#include "geminirunstream.h"

#include "geminibackend.h"
#include "geminilog.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkReply>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "GeminiConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(GeminiConnector)
};

// A 4xx on a resume means the service will not stream this interaction again (not a background
// one, too old): its object can still be read, so the engine polls.
bool isResumeRefusal(const RunError &error)
{
    return error.kind == ErrorKind::Client || error.kind == ErrorKind::Conflict;
}

} // namespace

using namespace Gemini;

SseRunStream::Options GeminiRunStream::readOptions(std::chrono::milliseconds stallTimeout)
{
    return {
        .stallTimeout = stallTimeout,
        .stalledMessage = Text::tr("Nothing arrived on the interaction's stream for %1 s; resuming it."),
        .timedOutMessage = Text::tr("The interaction's stream went silent and timed out."),
        .interruptedMessage = Text::tr("The interaction's stream was interrupted: %1"),
    };
}

GeminiRunStream::GeminiRunStream(GeminiBackend *backend, HttpRequest request, Mode mode, GeminiMapper mapper,
                                 QJsonObject extra, QObject *parent)
    : SseRunStream(readOptions(stallTimeoutFor(backend->connection())), parent)
    , m_backend(backend)
    , m_mode(mode)
    , m_mapper(std::move(mapper))
    , m_extra(std::move(extra))
{
    // Start on the next event-loop turn so the owner can connect to our signals first.
    QTimer::singleShot(0, this, [this, request] { run(request); });
}

QCoro::Task<> GeminiRunStream::run(HttpRequest request)
{
    QPointer<GeminiRunStream> self = this;
    if (!m_backend || isAborted())
        co_return;
    if (m_refusal) {
        endWith({StreamEnd::Reason::Error, *m_refusal, std::nullopt});
        co_return;
    }
    if (m_mode == Mode::CreateJson) {
        const HttpResponse response = co_await m_backend->httpClient()->send(std::move(request));
        if (!self || isAborted())
            co_return;
        if (!response.ok()) {
            endWith({StreamEnd::Reason::Error, GeminiBackend::httpError(response), response.retryAfterMs});
            co_return;
        }
        deliverInteraction(response);
        co_return;
    }

    OpenedStream opened = co_await m_backend->httpClient()->openStream(std::move(request), decoderFactory());
    if (!self || isAborted()) {
        discardReply(opened.reply);
        co_return;
    }
    if (!opened.response.ok() || !opened.reply) {
        const RunError error = GeminiBackend::httpError(opened.response);
        const bool refused = m_mode == Mode::Resume && isResumeRefusal(error);
        endWith({refused ? StreamEnd::Reason::ResumeRefused : StreamEnd::Reason::Error, error,
                 opened.response.retryAfterMs});
        co_return;
    }
    if (!isEventStream(opened.response)) {
        discardReply(opened.reply);
        const QByteArray contentType = opened.response.header("content-type");
        const RunError e = unexpectedContentType(
            opened.response,
            Text::tr("Expected the interaction's event stream but the service sent %1.")
                .arg(contentType.isEmpty() ? Text::tr("no content type") : QString::fromLatin1(contentType)));
        // A resume answered with the object rather than its stream: reading it is as good.
        endWith({m_mode == Mode::Resume ? StreamEnd::Reason::ResumeRefused : StreamEnd::Reason::Error, e,
                 std::nullopt});
        co_return;
    }
    startReading(opened);
}

void GeminiRunStream::deliverInteraction(const HttpResponse &response)
{
    QPointer<GeminiRunStream> self = this;
    const QJsonDocument doc = QJsonDocument::fromJson(response.body);
    const QJsonObject interaction = doc.object();
    if (interaction.value(u"id"_s).toString().isEmpty()) {
        const RunError e = response.protocolError(u"not_an_interaction"_s,
                                                  Text::tr("The service's answer is not an interaction."));
        endWith({StreamEnd::Reason::Error, e, std::nullopt});
        return;
    }
    QList<RunEvent> events = GeminiBackend::interactionEvents(interaction);
    prepareBatch(events);
    deliver(events);
    if (!self || isFinished())
        return;
    RunStatus status = RunStatus::Unknown;
    for (const RunEvent &e : std::as_const(events)) {
        if (e.type == RunEvent::Type::Status)
            status = e.status;
    }
    // Not streamed: the engine reads the interaction until it ends (honouring Retry-After).
    const bool ended = isTerminal(status) || status == RunStatus::InputRequired;
    endWith({ended ? StreamEnd::Reason::Terminal : StreamEnd::Reason::ResumeRefused, {}, std::nullopt});
}

std::unique_ptr<SseDecoder> GeminiRunStream::decoderFor(GeminiMapper mapper)
{
    // Everything the mapping needs travels in the mapper, by value: the decoder is used by the
    // stream pump's thread alone once the stream hands it over.
    class Decoder final : public SseDecoder
    {
    public:
        explicit Decoder(GeminiMapper mapper)
            : m_mapper(std::move(mapper))
        {}

    private:
        std::any readerState() const override { return m_mapper.forResume(); }

        bool handleEvent(const SseEvent &event, QList<RunEvent> &out) override
        {
            switch (m_mapper.map(event.type, event.data, out)) {
            case GeminiMapper::Outcome::Continue:
            case GeminiMapper::Outcome::Cut: // [DONE] follows; the interaction goes on
                return true;
            case GeminiMapper::Outcome::Failed:
                // interaction.completed (status failed) follows, and ends the stream.
                m_failure = m_mapper.error();
                return true;
            case GeminiMapper::Outcome::Malformed:
                // A note on the run, and the stream goes on; an end nobody knows ends it.
                if (!m_mapper.finished())
                    return true;
                endAfterBatch({StreamEnd::Reason::Error, m_mapper.error(), std::nullopt});
                return false;
            case GeminiMapper::Outcome::Finished:
                endAfterBatch({StreamEnd::Reason::Terminal, {}, std::nullopt});
                return false;
            case GeminiMapper::Outcome::End:
                if (m_mapper.finished()) {
                    endAfterBatch({StreamEnd::Reason::Terminal, {}, std::nullopt});
                } else if (m_failure) {
                    // The failure without the interaction's end: its status is read next.
                    endAfterBatch({StreamEnd::Reason::Error, *m_failure, std::nullopt});
                } else {
                    // Cut by the service (gateway_timeout) or ended early: resumed after the
                    // last event id, never a failure of the run.
                    endAfterBatch({StreamEnd::Reason::Eof, m_mapper.cut() ? m_mapper.error() : RunError{},
                                   std::nullopt});
                }
                return false;
            }
            return true;
        }

        GeminiMapper m_mapper;
        std::optional<RunError> m_failure;
    };
    return std::make_unique<Decoder>(std::move(mapper));
}

std::unique_ptr<SseDecoder> GeminiRunStream::makeDecoder()
{
    m_mapper.startConnection();
    return decoderFor(m_mapper);
}

void GeminiRunStream::decoderState(const std::any &state)
{
    const auto *mapper = std::any_cast<GeminiMapper>(&state);
    if (!mapper)
        return;
    m_mapper = *mapper;
    if (!m_backend)
        return;
    // An interaction that ended needs no resume; one that goes on is resumed from this state by
    // the engine's next follow().
    if (m_mapper.finished()) {
        m_backend->forgetMapper(m_mapper.interactionId());
    } else {
        m_backend->keepMapper(m_mapper);
    }
}

void GeminiRunStream::prepareBatch(QList<RunEvent> &batch)
{
    QString interaction;
    bool text = false;
    for (RunEvent &e : batch) {
        if (e.type == RunEvent::Type::Identity) {
            interaction = e.remoteId;
            for (auto it = m_extra.constBegin(); it != m_extra.constEnd(); ++it)
                e.tokenExtra.insert(it.key(), it.value());
        } else if (e.type == RunEvent::Type::PrimaryDelta || e.type == RunEvent::Type::PrimarySnapshot) {
            text = text || !e.text.isEmpty();
        }
    }
    if (interaction.isEmpty())
        interaction = m_mapper.interactionId();
    // Once per interaction and output step: a stream resumed after a restart (with a fresh
    // mapper) must know that the answer has text and which step it came from, or its next output
    // step would lack the separator, or the rest of the same step would get one.
    const qint64 step = m_mapper.answerStep();
    if (text && !interaction.isEmpty() && (interaction != m_notedIn || step != m_notedStep)) {
        m_notedIn = interaction;
        m_notedStep = step;
        RunEvent noted = RunEvent::identity(interaction, {}, false);
        noted.tokenExtra.insert(kAnswerIn, interaction);
        noted.tokenExtra.insert(kAnswerStep, step);
        batch << noted;
    }
}

void GeminiRunStream::replyGone()
{
    // Its network manager went away: nothing more can arrive. Resume from the cursor.
    endWith({StreamEnd::Reason::Eof, {}, std::nullopt});
}

} // namespace Runwatch
