// SPDX-License-Identifier: GPL-3.0-or-later
#include "openairunstream.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkReply>

#include <utility>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "OpenAiConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(OpenAiConnector)
};
} // namespace

namespace {

// A 4xx on a resume means the server will not replay this response (too old, not created with
// stream:true, …). Polling the JSON object still works then (protocol reference §1.4).
bool isResumeRefusal(const RunError &error)
{
    return error.kind == ErrorKind::Client || error.kind == ErrorKind::Conflict;
}

} // namespace

OpenAiRunStream::OpenAiRunStream(HttpClient *http, HttpRequest request, Mode mode, OpenAiMapper mapper,
                                 std::chrono::milliseconds stallTimeout, QObject *parent)
    : SseRunStream(Options{.stallTimeout = stallTimeout}, parent)
    , m_http(http)
    , m_mode(mode)
    , m_mapper(std::move(mapper))
{
    // Start on the next event-loop turn so the owner can connect to our signals first.
    QTimer::singleShot(0, this, [this, request] { run(request); });
}

QCoro::Task<bool> OpenAiRunStream::withNewConversation(HttpRequest &request)
{
    QPointer<OpenAiRunStream> self = this;
    HttpRequest create = std::move(*m_conversation);
    m_conversation.reset();
    const HttpResponse response = co_await m_http->send(std::move(create));
    if (!self || isAborted())
        co_return false;
    if (!response.ok()) {
        endWith({StreamEnd::Reason::Error, response.error, response.retryAfterMs});
        co_return false;
    }
    const QJsonObject conversation = QJsonDocument::fromJson(response.body).object();
    const QString id = conversation.value(u"id"_s).toString();
    if (id.isEmpty()) {
        const RunError e = response.protocolError(
            {}, Text::tr("The server answered the conversation request without a conversation id."));
        endWith({StreamEnd::Reason::Error, e, std::nullopt});
        co_return false;
    }
    QJsonObject body = QJsonDocument::fromJson(request.body).object();
    body.insert(OpenAi::kConversation, id);
    request.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
    co_return true;
}

bool OpenAiRunStream::dropRefusedParameter(HttpRequest &request, HttpResponse &refusal)
{
    if (m_mode == Mode::Resume || refusal.status != 400)
        return false;
    QJsonObject body = QJsonDocument::fromJson(request.body).object();
    if (!body.value(OpenAi::kAgentReference).isObject())
        return false;
    const QJsonObject error = QJsonDocument::fromJson(refusal.body).object().value(u"error"_s).toObject();
    const QString param = error.value(u"param"_s).toString();
    if ((param != u"background"_s && param != u"stream"_s) || !body.value(param).toBool())
        return false;
    const QString other = param == u"stream"_s ? u"background"_s : u"stream"_s;
    if (!body.value(other).toBool()) {
        // Neither background nor a stream: the create would answer only once the run is over, far
        // past any time-to-headers limit, and a run cut off there could not be found again. Not
        // sent: the run fails with the service's refusal and why Runwatch stops there.
        refusal.error.message
            += u" — "_s
               + Text::tr("The service refuses both background mode and streaming for this "
                          "agent: Runwatch cannot follow a run that answers only when it is "
                          "over.");
        return false;
    }
    const QString why = refusal.error.message.isEmpty() ? refusal.error.toString() : refusal.error.message;
    QString note;
    if (param == u"stream"_s) {
        // Background without a stream answers with the response at once: the engine polls it.
        body.insert(u"stream"_s, false);
        m_mode = Mode::CreateJson;
        request.headers.removeIf(
            [](const auto &header) { return header.first.compare("accept", Qt::CaseInsensitive) == 0; });
        note = Text::tr("The service refused streaming for this agent (%1). Runwatch follows the run by "
                        "polling it instead.")
                   .arg(why);
    } else {
        // Without background a streamed create still names the response at once and brings its
        // events; should that stream break, the run cannot be streamed again and is polled.
        body.remove(u"background"_s);
        note = Text::tr("The service refused background mode for this agent (%1). The run was created "
                        "without it; if its stream breaks, Runwatch polls it.")
                   .arg(why);
    }
    request.body = QJsonDocument(body).toJson(QJsonDocument::Compact);
    m_notes << RunEvent::secondarySnapshot(SecondaryKind::Log, u"runwatch-refused-"_s + param,
                                           Text::tr("Followed otherwise"), note);
    return true;
}

void OpenAiRunStream::prepareBatch(QList<RunEvent> &batch)
{
    if (!batch.isEmpty() && !m_notes.isEmpty())
        batch.append(std::exchange(m_notes, {}));
}

QCoro::Task<> OpenAiRunStream::run(HttpRequest request)
{
    QPointer<OpenAiRunStream> self = this;
    if (!m_http || isAborted())
        co_return;
    if (m_refusal) {
        endWith({StreamEnd::Reason::Error, *m_refusal, std::nullopt});
        co_return;
    }
    if (m_conversation) {
        const bool created = co_await withNewConversation(request);
        if (!self || !created)
            co_return;
    }

    // At most three rounds: the create as asked, and once more for each parameter refused.
    for (;;) {
        if (m_mode == Mode::CreateJson) {
            HttpResponse response = co_await m_http->send(request);
            if (!self || isAborted())
                co_return;
            if (!response.ok() && dropRefusedParameter(request, response))
                continue;
            if (!response.ok()) {
                endWith({StreamEnd::Reason::Error, response.error, response.retryAfterMs});
                co_return;
            }
            const QJsonDocument doc = QJsonDocument::fromJson(response.body);
            if (!doc.isObject()) {
                const RunError e
                    = response.protocolError({}, Text::tr("The server answered the create request with "
                                                          "something that is not a Response object."));
                endWith({StreamEnd::Reason::Error, e, std::nullopt});
                co_return;
            }
            QList<RunEvent> events = OpenAi::mapResponseObject(doc.object());
            events.append(std::exchange(m_notes, {}));
            Q_EMIT eventsReceived(events);
            if (!self)
                co_return;
            RunStatus status = RunStatus::Unknown;
            for (const RunEvent &e : events) {
                if (e.type == RunEvent::Type::Status)
                    status = e.status;
            }
            endWith({isTerminal(status) ? StreamEnd::Reason::Terminal : StreamEnd::Reason::Eof,
                     {},
                     std::nullopt});
            co_return;
        }

        OpenedStream opened = co_await m_http->openStream(request, decoderFactory());
        if (!self || isAborted()) {
            discardReply(opened.reply);
            co_return;
        }
        if (!opened.response.ok() && dropRefusedParameter(request, opened.response)) {
            discardReply(opened.reply);
            continue; // without the refused parameter: streamed again, or created and polled
        }
        if (!opened.response.ok() || !opened.reply) {
            const RunError &error = opened.response.error;
            const bool refused = m_mode == Mode::Resume && isResumeRefusal(error);
            endWith({refused ? StreamEnd::Reason::ResumeRefused : StreamEnd::Reason::Error, error,
                     opened.response.retryAfterMs});
            co_return;
        }
        if (!isEventStream(opened.response)) {
            discardReply(opened.reply);
            const QByteArray contentType = opened.response.header("content-type");
            RunError e = unexpectedContentType(
                opened.response, Text::tr("Expected an event stream but the server sent %1.")
                                     .arg(contentType.isEmpty() ? Text::tr("no content type")
                                                                : QString::fromLatin1(contentType)));
            e.requestId = QString::fromUtf8(opened.response.header("x-request-id"));
            endWith({StreamEnd::Reason::Error, e, std::nullopt});
            co_return;
        }
        startReading(opened);
        co_return;
    }
}

std::unique_ptr<SseDecoder> OpenAiRunStream::decoderFor(OpenAiMapper mapper)
{
    // Everything the mapping needs travels in the mapper, by value: the decoder is used by the
    // stream pump's thread alone once the stream hands it over.
    class Decoder final : public SseDecoder
    {
    public:
        explicit Decoder(OpenAiMapper mapper)
            : m_mapper(std::move(mapper))
        {}

    private:
        bool handleEvent(const SseEvent &event, QList<RunEvent> &out) override
        {
            switch (m_mapper.map(event.type, event.data, out)) {
            case OpenAiMapper::Outcome::Continue:
                return true;
            case OpenAiMapper::Outcome::Terminal:
                endAfterBatch({StreamEnd::Reason::Terminal, {}, std::nullopt});
                return false;
            case OpenAiMapper::Outcome::StreamError:
            case OpenAiMapper::Outcome::Malformed:
                endAfterBatch({StreamEnd::Reason::Error, m_mapper.error(), std::nullopt});
                return false;
            }
            return true;
        }

        OpenAiMapper m_mapper;
    };
    return std::make_unique<Decoder>(std::move(mapper));
}

std::unique_ptr<SseDecoder> OpenAiRunStream::makeDecoder()
{
    return decoderFor(m_mapper);
}

void OpenAiRunStream::replyGone()
{
    // Its network manager went away: nothing more can arrive. Reconnect from the cursor.
    endWith({StreamEnd::Reason::Eof, {}, std::nullopt});
}

} // namespace Runwatch
