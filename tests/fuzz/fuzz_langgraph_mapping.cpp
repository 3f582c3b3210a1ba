// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for the LangGraph connector's mapping: interrupts (a thread or its state) as
// input requests and answers as resume values, the status table, and the SSE event mapper.
//
// Input: NUL-separated parts.
//   0  a thread or thread state (JSON text): its pending interrupts
//   1  "RUN_STATUS\nTHREAD_STATUS"
//   2… SSE events, each "type\nid\ndata", mapped in order and applied to a run
// Properties:
//   - nothing crashes, UBSan included;
//   - a review (tool calls) answered with Approve gives one decision per action; an answer that
//     does not fit says why;
//   - the stream only appends to the answer, and the run's sequence cursor never goes back;
//   - replaying the same events again changes nothing.
//
//   fuzz_langgraph_mapping tests/fuzz/corpus/langgraph_mapping
#include "backends/langgraph/langgraphmapper.h"
#include "domain/runreducer.h"
#include "fuzzsupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdint>

using namespace Runwatch;
using namespace Runwatch::LangGraph;

const char *const RunwatchFuzz::kTarget = "langgraph";
using RunwatchFuzz::check;

namespace {

void checkInterrupts(const QByteArray &json)
{
    const QJsonArray interrupts = pendingInterrupts(QJsonDocument::fromJson(json).object());
    if (interrupts.isEmpty())
        return;
    const InputRequest request = inputRequestFor(interrupts);
    QString error;
    InputAnswer approve;
    approve.kind = InputAnswer::Kind::Approve;
    const auto value = resumeValue(request, approve, &error);
    check(value.has_value() || !error.isEmpty(), "a refused answer gave no reason");
    if (value && !request.toolCalls.isEmpty() && interrupts.size() == 1) {
        check(value->toObject().value(QStringLiteral("decisions")).toArray().size()
                  == request.toolCalls.size(),
              "not one decision per action request");
    }
    InputAnswer text;
    text.text = QStringLiteral("yes");
    const auto answered = resumeValue(request, text, &error);
    check(answered.has_value() || !error.isEmpty(), "a refused text answer gave no reason");
}

struct Event
{
    QByteArray type, id, data;
};

Event split(const QByteArray &part)
{
    const qsizetype first = part.indexOf('\n');
    const qsizetype second = first < 0 ? -1 : part.indexOf('\n', first + 1);
    return {first < 0 ? part : part.left(first),
            first < 0 ? QByteArray() : part.mid(first + 1, second < 0 ? -1 : second - first - 1),
            second < 0 ? QByteArray() : part.mid(second + 1)};
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray input = QByteArray::fromRawData(reinterpret_cast<const char *>(data), qsizetype(size));
    const QList<QByteArray> parts = input.split('\0');

    checkInterrupts(parts.value(0));
    const QList<QByteArray> statuses = parts.value(1).split('\n');
    (void)runStatusFor(QString::fromUtf8(statuses.value(0)), QString::fromUtf8(statuses.value(1)));
    (void)threadStatusFor(QString::fromUtf8(statuses.value(0)));

    LangGraphMapper mapper(QStringLiteral("run"));
    Run run;
    run.status = RunStatus::InProgress;
    QList<Event> events;
    for (qsizetype i = 2; i < parts.size(); ++i)
        events << split(parts.at(i));
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (const Event &e : std::as_const(events)) {
        QList<RunEvent> out;
        const qint64 before = run.token.sequence;
        const QString textBefore = run.primaryText.toString();
        (void)mapper.map(e.type, e.data, e.id, out);
        for (const RunEvent &event : std::as_const(out))
            applyEvent(run, event, now);
        check(run.token.sequence >= before, "the run's sequence cursor went back");
        check(run.primaryText.startsWith(textBefore), "the stream took text back");
    }
    // The same events again (a rejoin from -1): nothing changes.
    const QString text = run.primaryText.toString();
    const qsizetype items = run.secondary.size();
    LangGraphMapper again(QStringLiteral("run"));
    bool numbered = true;
    for (const Event &e : std::as_const(events)) {
        bool ok = false;
        numbered = numbered && e.id.toLongLong(&ok) >= 0 && ok;
        QList<RunEvent> out;
        (void)again.map(e.type, e.data, e.id, out);
        for (const RunEvent &event : std::as_const(out))
            applyEvent(run, event, now);
    }
    // Only a stream whose every event has an increasing numeric id is replayed without effect.
    bool increasing = numbered;
    for (qsizetype i = 1; increasing && i < events.size(); ++i)
        increasing = events.at(i).id.toLongLong() > events.at(i - 1).id.toLongLong();
    if (increasing) {
        check(run.primaryText == text, "a replayed stream changed the answer");
        check(run.secondary.size() == items, "a replayed stream added items");
    }
    return 0;
}
