// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/sserunstream.h"
#include "mcptransport.h"

#include <QPointer>
#include <QTimer>

namespace Runwatch {

class McpBackend;

// What a new run needs: the tool and its arguments.
struct McpKickoff
{
    QString tool;
    QJsonValue arguments{QJsonValue::Undefined};
    bool stream = true;
};

namespace Mcp {

// Reads a tasks/result stream (§4, §5) on the thread that reads its body: progress notifications
// become the progress item; an elicitation/create is the run's question — stored with the run at
// once (it is delivered only once) and the end of this read; the response to our request is the
// task's result. A value, made with what the read needs.
struct ResultReader
{
    QJsonValue requestId; // our tasks/result request's id
    QString taskId;
    QString sessionId;
    QString taskStatus; // what tasks/get said before the read
    QString statusMessage;
    bool ended = false;
    // Maps one SSE event's data; sets *end once the read is over.
    void map(QByteArrayView data, QList<RunEvent> &out, std::optional<StreamEnd> &end);
};

} // namespace Mcp

// One following of an MCP task: a kickoff (tools/list checks the tool, tools/call creates the
// task) or a resume of a known task, then tasks/get every pollInterval (never sooner) until the task
// ends or asks for input, then tasks/result read as a stream. Ends with:
//   Terminal       the task ended (its result read), or waits for the operator's answer
//   Eof            a tasks/result stream closed without its answer: the engine follows again
//   ResumeRefused  not followed (--no-stream): the engine polls get()
//   Error          a request failed (retryable or not; a lost session that took the task along)
class McpRunStream final : public SseRunStream
{
    Q_OBJECT
public:
    McpRunStream(McpBackend *backend, McpKickoff kickoff, QObject *parent);
    McpRunStream(McpBackend *backend, ContinuationToken token, QObject *parent);

    // The poll interval when the server names none (the SDK client's fallback, §4).
    static constexpr qint64 kDefaultPollMs = 1000;
    // The ttl asked for a new task: a person may take a while to answer; the server may give less.
    static constexpr qint64 kRequestedTtlMs = 24 * 3600 * 1000;

private:
    static Options readOptions(std::chrono::milliseconds stallTimeout);

    QCoro::Task<> runKickoff(McpKickoff kickoff);
    QCoro::Task<> poll();
    QCoro::Task<> poll2026(QJsonObject task);
    QCoro::Task<> readResult(QJsonObject task);
    void schedulePoll(qint64 afterMs);
    void endWithError(const RunError &error, std::optional<qint64> retryAfterMs = std::nullopt);
    std::unique_ptr<SseDecoder> makeDecoder() override;
    bool consumeBytes(QByteArrayView bytes) override;
    void bodyEnded() override;

    QPointer<McpBackend> m_backend;
    ContinuationToken m_token;
    Mcp::Session m_session;
    Mcp::ResultReader m_reader;
    QByteArray m_plainBody; // a tasks/result answered with JSON instead of SSE
    QTimer m_pollTimer;
};

} // namespace Runwatch
