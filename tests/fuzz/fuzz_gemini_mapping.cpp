// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for the Gemini Interactions mapping (core/backends/gemini): the interaction
// resource, the status table, function results, and the SSE event mapper.
//
// Input: NUL-separated parts.
//   0  an interaction resource (JSON text): mapInteraction, its request and function results
//   1  an interaction status
//   2… SSE events, each "type\ndata", mapped in order and applied to a run
// Properties:
//   - nothing crashes, UBSan included;
//   - the resource's events applied twice change nothing the first time did not;
//   - function results answering every call are one per call, or refused with a reason;
//   - the stream only appends to the answer; a cut carries no failure, a failure and a malformed
//     event say why;
//   - replaying the same events on the same mapper (a resume without last_event_id) changes
//     neither the answer nor the items, when every delta has an event_id and the events name one
//     interaction at most (an id-less delta cannot be told from a new one).
//
//   fuzz_gemini_mapping -dict=tests/fuzz/gemini_mapping.dict tests/fuzz/corpus/gemini_mapping
#include "backends/gemini/geminimapper.h"
#include "domain/runreducer.h"
#include "fuzzsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>

#include <cstdint>

using namespace Runwatch;
using namespace Runwatch::Gemini;

const char *const RunwatchFuzz::kTarget = "gemini";
using RunwatchFuzz::check;

namespace {

qsizetype itemCount(const Run &run)
{
    return std::count_if(run.secondary.cbegin(), run.secondary.cend(),
                         [](const SecondaryItem &i) { return i.kind != SecondaryKind::StatusChange; });
}

void checkInteraction(const QByteArray &json)
{
    const QJsonObject interaction = QJsonDocument::fromJson(json).object();
    const QList<RunEvent> events = mapInteraction(interaction);
    Run run;
    run.status = RunStatus::InProgress;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (const RunEvent &e : events)
        applyEvent(run, e, now);
    const QString text = run.primaryText.toString();
    const qsizetype items = itemCount(run);
    for (const RunEvent &e : events)
        applyEvent(run, e, now);
    check(run.primaryText == text, "the same interaction applied twice changed the answer");
    check(itemCount(run) == items, "the same interaction applied twice added items");
    check(outputText(interaction) == text, "the answer is not the interaction's output text");

    if (const auto usage = usageOf(interaction)) {
        check(usage->inputTokens >= -1 && usage->outputTokens >= -1 && usage->reasoningTokens >= -1,
              "a negative token count");
    }
    const std::optional<InputRequest> request = inputRequestOf(interaction);
    if (!request)
        return;
    check(!request->toolCalls.isEmpty(), "a request without calls");
    InputAnswer answer;
    for (const ToolCallRequest &call : request->toolCalls)
        answer.toolAnswers << ToolCallAnswer{call.id, QStringLiteral("42"), false};
    QString error;
    const QJsonArray input = functionResults(*request, answer, &error);
    check(input.size() == request->toolCalls.size() || (input.isEmpty() && !error.isEmpty()),
          "function results are not one per call, and say no reason");
    InputAnswer text1;
    text1.text = QStringLiteral("yes");
    error.clear();
    const QJsonArray single = functionResults(*request, text1, &error);
    check(!single.isEmpty() || !error.isEmpty(), "a refused text answer gave no reason");
}

struct Event
{
    QByteArray type, data;
};

Event split(const QByteArray &part)
{
    const qsizetype newline = part.indexOf('\n');
    return {newline < 0 ? part : part.left(newline), newline < 0 ? QByteArray() : part.mid(newline + 1)};
}

// Whether a replay of `events` must change nothing: every delta has an id, one interaction.
bool replayIsIdempotent(const QList<Event> &events)
{
    QSet<QString> interactions;
    for (const Event &e : events) {
        const QJsonObject o = QJsonDocument::fromJson(e.data).object();
        QString type = o.value(QStringLiteral("event_type")).toString();
        if (type.isEmpty() && e.type != "message")
            type = QString::fromUtf8(e.type);
        if (type == QLatin1StringView("step.delta")
            && o.value(QStringLiteral("event_id")).toString().isEmpty())
            return false;
        const QString id
            = o.value(QStringLiteral("interaction")).toObject().value(QStringLiteral("id")).toString();
        if (!id.isEmpty())
            interactions.insert(id);
        if (const QString other = o.value(QStringLiteral("interaction_id")).toString(); !other.isEmpty())
            interactions.insert(other);
    }
    return interactions.size() <= 1;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray input = QByteArray::fromRawData(reinterpret_cast<const char *>(data), qsizetype(size));
    const QList<QByteArray> parts = input.split('\0');

    checkInteraction(parts.value(0));
    (void)runStatusFor(QString::fromUtf8(parts.value(1)));

    GeminiMapper mapper;
    Run run;
    run.status = RunStatus::InProgress;
    QList<Event> events;
    for (qsizetype i = 2; i < parts.size(); ++i)
        events << split(parts.at(i));
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (const Event &e : std::as_const(events)) {
        QList<RunEvent> out;
        const QString textBefore = run.primaryText.toString();
        const GeminiMapper::Outcome outcome = mapper.map(e.type, e.data, out);
        const bool failure = std::any_of(out.cbegin(), out.cend(),
                                         [](const RunEvent &r) { return r.type == RunEvent::Type::Error; });
        switch (outcome) {
        case GeminiMapper::Outcome::Cut:
            check(!failure, "a cut by the service became a failure");
            check(
                mapper.cut()
                    && mapper.error().code.compare(QLatin1StringView("gateway_timeout"), Qt::CaseInsensitive)
                           == 0,
                "a cut without its reason");
            break;
        case GeminiMapper::Outcome::Failed:
            check(failure && !mapper.error().message.isEmpty(), "a failure without its message");
            break;
        case GeminiMapper::Outcome::Malformed:
            check(mapper.error().kind == ErrorKind::Protocol && !mapper.error().message.isEmpty(),
                  "a malformed event without a protocol error");
            break;
        case GeminiMapper::Outcome::Continue:
        case GeminiMapper::Outcome::Finished:
        case GeminiMapper::Outcome::End:
            break;
        }
        for (const RunEvent &event : std::as_const(out))
            applyEvent(run, event, now);
        check(run.primaryText.startsWith(textBefore), "the stream took text back");
    }
    // The same events again, on the same mapper (a reattach that replays from the start).
    const QString text = run.primaryText.toString();
    const qsizetype items = itemCount(run);
    mapper.startConnection();
    for (const Event &e : std::as_const(events)) {
        QList<RunEvent> out;
        (void)mapper.map(e.type, e.data, out);
        for (const RunEvent &event : std::as_const(out))
            applyEvent(run, event, now);
    }
    if (replayIsIdempotent(events)) {
        check(run.primaryText == text, "a replayed stream changed the answer");
        check(itemCount(run) == items, "a replayed stream added items");
    }
    return 0;
}
