// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/errorobject.h"
#include "domain/runevent.h"

#include <QByteArrayView>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>

namespace Runwatch::OpenAi {

// The names the connector keeps in ContinuationToken::extra for a response in a conversation (a
// Foundry agent's, protocol reference foundry-agents-and-gemini.md §1.5): the conversation's id,
// and the agent_reference the next turns name again.
inline constexpr QLatin1StringView kConversation{"conversation"};
inline constexpr QLatin1StringView kAgentReference{"agent_reference"};

// `--agent NAME[:VERSION]` as the agent_reference a Foundry project's Responses endpoint takes
// ({type:"agent_reference", name, version?}). "latest" names no version (the service refuses it:
// the agent's latest is what it runs without one). nullopt and *error for an empty name.
std::optional<QJsonObject> agentReference(QStringView spec, QString *error);

// What a Response object says of the conversation it belongs to and the agent it ran, for the
// run's token (kConversation, kAgentReference): empty for a plain response.
QJsonObject tokenExtraOf(const QJsonObject &response);

// Wire status of a Response object → unified status (protocol reference §1.7). A missing or
// unknown label is Unknown; the caller keeps the raw label.
RunStatus mapStatus(QStringView wireStatus);

// The SDKs' output_text: every output_text part of every message item, no separator.
QString aggregateOutputText(const QJsonObject &response);

// The operator's part of a response that completed on function_call or mcp_approval_request
// items (protocol reference §1.8): the calls after its last message, one ToolCallRequest each (a
// function call by its call_id, an approval request by its item id). nullopt when it waits for
// nothing.
std::optional<InputRequest> inputRequestOf(const QJsonObject &response);

// The input items that answer `request` (function_call_output / mcp_approval_response, one per
// call), or an empty array and *error when the answer does not fit (answersForToolCalls).
QJsonArray answerItems(const InputRequest &request, const InputAnswer &answer, QString *error);

// The Response object's `usage` (protocol reference §1.7: input_tokens, output_tokens,
// output_tokens_details.reasoning_tokens): nullopt when absent, null or without a valid count; a
// negative, fractional or non-number count is "not reported".
std::optional<TokenUsage> usageOf(const QJsonObject &response);

// A Response object (JSON GET, cancel reply, or the snapshot inside a lifecycle event) as
// events. `verify` marks the primary snapshot as the end-of-stream check (RunEvent::verify).
QList<RunEvent> mapResponseObject(const QJsonObject &response, bool verify = false);

// OpenAI's error objects (backends/errorobject.h).
using Runwatch::mapErrorObject;

} // namespace Runwatch::OpenAi

namespace Runwatch {

// Maps one SSE event of a Responses stream to RunEvents. Stateful only in what it must remember
// across events (the last sequence number, for error messages). Pure: no I/O.
class OpenAiMapper
{
public:
    enum class Outcome {
        Continue,    // keep reading
        Terminal,    // a terminal lifecycle event was mapped: the stream is complete
        StreamError, // an `error` event: the stream ends; error() holds it
        // The event could not be understood: error() holds a protocol error. Nothing is added
        // to `out`, except for a terminal event whose status is unknown (code "unknown_status"):
        // its snapshot is kept.
        Malformed,
    };

    // `streamable`: the run was created with background + stream, so it can be re-streamed;
    // carried into the Identity events.
    // `cursor`: the last sequence already applied; whole wire events at or below it are dropped
    // here, so a replay after reconnect never reaches the run twice.
    explicit OpenAiMapper(bool streamable = true, qint64 cursor = -1)
        : m_streamable(streamable)
        , m_lastSequence(cursor)
    {}

    Outcome map(QByteArrayView sseType, QByteArrayView data, QList<RunEvent> &out);

    const RunError &error() const { return m_error; }
    qint64 lastSequence() const { return m_lastSequence; }
    // Wire events dropped as duplicates (sequence at or below the cursor).
    qint64 droppedDuplicates() const { return m_dropped; }

private:
    bool mapDeltaFast(QByteArrayView data, QList<RunEvent> &out, bool &handled);
    // True (and counted) when `seq` was already seen.
    bool isDuplicate(qint64 seq);
    Outcome mapGeneral(QByteArrayView sseType, QByteArrayView data, QList<RunEvent> &out);
    Outcome malformed(const QString &why);

    bool m_streamable;
    qint64 m_lastSequence = -1;
    qint64 m_dropped = 0;
    RunError m_error;
};

} // namespace Runwatch
