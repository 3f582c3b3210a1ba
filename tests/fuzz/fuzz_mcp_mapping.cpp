// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for the MCP tasks mapping (core/backends/mcp): JSON-RPC messages, task objects,
// tool results, elicitations and their answers, the 2026-07-28 DetailedTask, and the tasks/result
// stream reader.
//
// Input: NUL-separated parts.
//   0  a Task object (JSON text): taskEvents, remoteRunFor, taskExtra
//   1  a CallToolResult (JSON text), mapped as completed and as failed
//   2  an elicitation/create params object (JSON text): the request and every kind of answer
//   3  a 2026-07-28 DetailedTask (JSON text)
//   4… SSE data payloads of one tasks/result stream, read in order by a ResultReader
// Properties:
//   - nothing crashes, UBSan included;
//   - a task's events leave a run in a live or terminal status, never Unknown;
//   - a completed result's answer is its text content, a failed one always says why;
//   - an accepted form answer fits the requested schema; a refused one says why; Decline and
//     Dismiss (Reject, the request's dismissChoice) are taken for any request;
//   - the reader ends at most once, emits nothing after its end, and an elicitation it reports
//     is stored with the run (token extra) in the same batch.
//
//   fuzz_mcp_mapping tests/fuzz/corpus/mcp_mapping
#include "backends/mcp/mcpmapper.h"
#include "backends/mcp/mcpmapper2026.h"
#include "backends/mcp/mcprunstream.h"
#include "domain/runreducer.h"
#include "fuzzsupport.h"
#include "json/jsonschema.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <cstdint>

using namespace Runwatch;
using namespace Runwatch::Mcp;

const char *const RunwatchFuzz::kTarget = "mcp";
using RunwatchFuzz::check;

namespace {

Run applied(const QList<RunEvent> &events)
{
    Run run;
    run.status = RunStatus::InProgress;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (const RunEvent &e : events)
        applyEvent(run, e, now);
    return run;
}

QJsonObject objectOf(const QByteArray &json)
{
    return QJsonDocument::fromJson(json).object();
}

void checkTask(const QJsonObject &task)
{
    for (const bool known : {true, false}) {
        const Run run = applied(taskEvents(task, known));
        check(run.status != RunStatus::Unknown, "a task left the run's status unknown");
    }
    (void)remoteRunFor(task);
    (void)taskExtra(task);
    (void)ttlEvent(task.value(QStringLiteral("ttl")).toInteger(-1));
}

void checkResult(const QJsonObject &result)
{
    const Run completed = applied(resultEvents(result, u"completed"));
    if (completed.status == RunStatus::Completed) {
        check(completed.primaryText == resultText(result), "the answer is not the result's text");
    } else {
        check(!completed.error.message.isEmpty(), "an error result without a message");
    }
    const Run failed = applied(resultEvents(result, u"failed"));
    check(failed.status == RunStatus::Failed, "a failed task did not fail the run");
    check(!failed.error.message.isEmpty(), "a failed task without a message");
}

void checkElicitation(const QJsonObject &params)
{
    const InputRequest request = inputRequestFor(0, params, QStringLiteral("s"));
    check(storedInputRequest(QJsonObject{{kElicitation, elicitationEntry(0, params, QStringLiteral("s"))}})
              .has_value(),
          "a stored elicitation could not be read back");
    QList<InputAnswer> answers;
    for (const InputAnswer::Kind kind : {InputAnswer::Kind::Approve, InputAnswer::Kind::Reject,
                                         InputAnswer::Kind::Text, InputAnswer::Kind::Value}) {
        InputAnswer a;
        a.kind = kind;
        a.text = QStringLiteral("fuzz");
        if (const auto form = SchemaForm::fromSchema(request.schema))
            a.value = form->defaults();
        answers << a;
    }
    for (const QString &choice : {QStringLiteral("accept"), QStringLiteral("cancel"), QStringLiteral("x")}) {
        InputAnswer a;
        a.kind = InputAnswer::Kind::Choice;
        a.choice = choice;
        answers << a;
    }
    for (const InputAnswer &a : std::as_const(answers)) {
        QString problem;
        const std::optional<QJsonObject> result = elicitResult(request, a, &problem);
        if (!result) {
            check(!problem.isEmpty(), "an answer refused without a reason");
            continue;
        }
        const QString action = result->value(QStringLiteral("action")).toString();
        check(action == QStringLiteral("accept") || action == QStringLiteral("decline")
                  || action == QStringLiteral("cancel"),
              "an answer with another action");
        if (action == QStringLiteral("accept") && request.reason == InputReason::Question
            && a.kind != InputAnswer::Kind::Choice) {
            check(validateJson(request.schema, result->value(QStringLiteral("content"))).isEmpty(),
                  "an accepted answer does not fit the form");
        }
    }
    // The Respond panel's Decline and Dismiss are enabled whatever the form holds: what they send
    // must be taken for any request, as decline and cancel.
    check(request.declinable && !request.dismissChoice.isEmpty(),
          "an elicitation that cannot be turned down");
    InputAnswer decline;
    decline.kind = InputAnswer::Kind::Reject;
    InputAnswer dismiss;
    dismiss.kind = InputAnswer::Kind::Choice;
    dismiss.choice = request.dismissChoice;
    const std::optional<QJsonObject> declined = elicitResult(request, decline, nullptr);
    const std::optional<QJsonObject> dismissed = elicitResult(request, dismiss, nullptr);
    check(declined && declined->value(QStringLiteral("action")).toString() == QStringLiteral("decline"),
          "Decline was not sent as decline");
    check(dismissed && dismissed->value(QStringLiteral("action")).toString() == QStringLiteral("cancel"),
          "Dismiss was not sent as cancel");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray input = QByteArray::fromRawData(reinterpret_cast<const char *>(data), qsizetype(size));
    const QList<QByteArray> parts = input.split('\0');

    checkTask(objectOf(parts.value(0)));
    checkResult(objectOf(parts.value(1)));
    checkElicitation(objectOf(parts.value(2)));
    (void)applied(Mcp2026::detailedTaskEvents(objectOf(parts.value(3)), {QStringLiteral("k1")}));
    (void)parseMessages(parts.value(0));

    ResultReader reader;
    reader.requestId = QStringLiteral("rw-1");
    reader.taskId = QStringLiteral("t1");
    reader.sessionId = QStringLiteral("s");
    reader.taskStatus = QString::fromUtf8(parts.value(1).left(20));
    bool ended = false;
    for (qsizetype i = 4; i < parts.size(); ++i) {
        QList<RunEvent> out;
        std::optional<StreamEnd> end;
        reader.map(parts.at(i), out, end);
        if (ended) {
            check(out.isEmpty() && !end, "the reader went on after its end");
            continue;
        }
        ended = end.has_value();
        const Run run = applied(out);
        if (run.status == RunStatus::InputRequired)
            check(run.token.extra.value(kElicitation).isObject(), "an elicitation not stored with the run");
    }
    return 0;
}
