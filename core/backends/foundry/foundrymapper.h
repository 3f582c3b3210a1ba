// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Azure AI Foundry Agent Service (threads/runs) wire → RunEvents. Wire reference:
// docs/protocols/openai-responses-and-foundry.md §5. Pure: no I/O.

#include "backends/errorobject.h"
#include "domain/runevent.h"

#include <QByteArrayView>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>

namespace Runwatch::Foundry {

// ThreadRun.status → unified status. requires_action is InputRequired; an unknown label is
// Unknown (the caller keeps the raw label).
RunStatus mapStatus(QStringView wireStatus);

// A ThreadRun object (create/get/cancel/submit reply, or the data of a thread.run.* event) as
// events: identity (run id, model; the thread id in tokenExtra), status, the run's error
// (last_error, incomplete_details, expiry), its usage (on the status event) and, for
// requires_action, the input request.
QList<RunEvent> mapRunObject(const QJsonObject &run);

// The run's `usage` (reference §5: prompt_tokens, completion_tokens, total_tokens; null until
// terminal) as input and output tokens; Foundry reports no reasoning count. nullopt when absent,
// null or without a valid count.
std::optional<TokenUsage> usageOf(const QJsonObject &run);

// The input request of a requires_action run: one ToolCallRequest per call, the deadline from
// expires_at. nullopt when the run names no action we know.
std::optional<InputRequest> inputRequestOf(const QJsonObject &run);

// A RunStep object (thread.run.step.* data, or an item of the steps list) as secondary items:
// one per tool call (function, code interpreter, file search, MCP …). Message-creation steps
// give nothing: their text arrives as messages.
QList<RunEvent> mapRunStep(const QJsonObject &step);

// The answer text of a run: every text part of every assistant message, in list order, no
// separator. `messages` must be in ascending order.
QString assistantText(const QJsonArray &messages);

// A paged list (messages, run steps, assistants) read page by page, bounded in total: a service
// that pages on and on, or a thread too big to hold, must not grow the client without end
// (issue 25). What fits is kept, in order (an answer's first messages are still its beginning),
// and a list that was cut says so: truncated(), error().
class ListPages
{
public:
    struct Limits
    {
        qsizetype maxItems = 50000;
        // The pages' bodies together; the page that crosses it is still kept (it is already
        // here), so the total stays below this plus one body (HttpPolicy::maxBodyBytes).
        qint64 maxBytes = 64 * 1024 * 1024;
        int maxPages = 10000; // a cursor that moves on for ever, one item at a time
    };

    ListPages() = default;
    explicit ListPages(Limits limits)
        : m_limits(limits)
    {}

    // Takes one page: its items, its body's size and whether the service says more follow.
    // False when no further page may be read because a limit is reached; if anything was left
    // out (items of this page past the limit, or further pages) the list is truncated.
    bool add(const QJsonArray &page, qint64 bodyBytes, bool hasMore);

    const QJsonArray &items() const { return m_items; }
    bool truncated() const { return m_truncated; }
    // Why the list is incomplete (a protocol error, code "list_too_long"); none when it is not.
    RunError error() const;

private:
    Limits m_limits;
    QJsonArray m_items;
    qint64 m_bytes = 0;
    int m_pages = 0;
    bool m_truncated = false;
};

// The Agent Service's error objects are OpenAI's (backends/errorobject.h).
using Runwatch::mapErrorObject;

// The body of POST …/submit_tool_outputs answering `request` with `answer`: {tool_outputs} or
// {tool_approvals}. An empty object and `error` when the answer does not fit the request (a call
// left unanswered, an unknown call id, text for several calls).
QJsonObject submitBody(const InputRequest &request, const InputAnswer &answer, QString *error);

} // namespace Runwatch::Foundry

namespace Runwatch {

// Maps one SSE event of a Foundry run stream, dispatched on the event name (the JSON has no
// `type`). Stateful only in what the stream must know afterwards.
class FoundryMapper
{
public:
    enum class Outcome {
        Continue,    // keep reading
        Terminal,    // a terminal thread.run.* event: the run ended
        NeedsInput,  // thread.run.requires_action: the stream of this request ends after it
        Done,        // `done` ([DONE]): the stream is over
        StreamError, // an `error` event; error() holds it
        Malformed,   // the event could not be understood; error() holds a protocol error
    };

    Outcome map(QByteArrayView eventName, QByteArrayView data, QList<RunEvent> &out);

    const RunError &error() const { return m_error; }
    // From the last thread.run.* event (empty until one arrived); the thread id also from
    // thread.created.
    const QString &runId() const { return m_runId; }
    const QString &threadId() const { return m_threadId; }
    // Text deltas seen by this stream.
    qint64 deltaCount() const { return m_deltas; }

private:
    Outcome malformed(const QString &why);

    RunError m_error;
    QString m_runId;
    QString m_threadId;
    qint64 m_deltas = 0;
};

} // namespace Runwatch
