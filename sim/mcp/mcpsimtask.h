// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One simulated task: the tool's timer-driven work (status messages, progress, text pieces), its
// status and status message, the input it asks for (an elicitation) and the answer, its stored
// result, its ttl, and — in the 2025-11-25 revision — the queue of messages only tasks/result
// delivers (progress notifications and the elicitation request, each once). Both revisions' JSON
// of the task.

#include "mcpsimoptions.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QObject>
#include <QString>

#include <functional>
#include <optional>

class QTimer;

namespace RunwatchSim {

// What started the task (tools/call), checked by the endpoint.
struct McpTaskParams
{
    McpTool tool = McpTool::Write;
    QJsonObject arguments;
    QString sessionId; // the session whose tools/call created it; empty: none (2026, or no session)
    bool revision2026 = false;
    QJsonValue progressToken{QJsonValue::Undefined}; // params._meta.progressToken; undefined: none
    std::optional<qint64> ttlMs;                     // nullopt: ttl null (kept while the server runs)
    // The client's capabilities.elicitation: form (also `{}`), url.
    bool formElicitation = false;
    bool urlElicitation = false;
};

// The input a task waits for: one elicitation/create.
struct McpInputRequest
{
    QString key;           // 2026: its key in inputRequests
    qint64 requestId = -1; // 2025: the server's JSON-RPC request id (its session's counter)
    QJsonObject params;    // elicitation/create params (2025: with the related-task meta)
    bool url = false;
};

class McpSimTask final : public QObject
{
    Q_OBJECT

public:
    enum class Status { Working, InputRequired, Completed, Failed, Cancelled };

    McpSimTask(const QString &id, const McpTaskParams &params, const McpCallOptions &options,
               QObject *parent = nullptr);
    ~McpSimTask() override;

    // 2025: where the ids of the server's requests come from (the session's counter, shared with
    // the session's other tasks).
    void setRequestIdSource(std::function<qint64()> source) { m_requestIds = std::move(source); }
    // The work starts at its pace.
    void start();
    // `cancelled` at once ("Client cancelled task execution."), the queue and the pending input
    // dropped. False when the task is terminal already.
    bool cancel();
    // Stops the work without a word (the task is forgotten).
    void halt();

    // 2025: the answer to the server's request `requestId`; false when it is not this task's
    // pending one (then nothing happens: the SDK drops an answer nobody waits for).
    bool answer(qint64 requestId, const QJsonObject &result);
    bool answerError(qint64 requestId, int code, const QString &message);
    // 2026: the answer under `key` of inputRequests; false when no request waits under it.
    bool answerKey(const QString &key, const QJsonObject &response);
    // The pending input can no longer be answered (its session ended): the tool fails.
    void failInput(const QString &why);

    const QString &id() const { return m_id; }
    const McpTaskParams &params() const { return m_params; }
    const McpCallOptions &options() const { return m_options; }
    Status status() const { return m_status; }
    // "working", "input_required", "completed", "failed", "cancelled".
    QString statusName() const;
    bool isTerminal() const { return m_status >= Status::Completed; }
    const QString &statusMessage() const { return m_statusMessage; }
    // The stored CallToolResult; none for a cancelled task, or one failed with a status only.
    const std::optional<QJsonObject> &result() const { return m_result; }
    const std::optional<McpInputRequest> &pendingInput() const { return m_input; }
    int inputsAsked() const { return m_inputsAsked; }
    bool expired(qint64 nowMs) const { return m_params.ttlMs && nowMs >= m_expiresMs; }

    // 2025: the messages waiting for tasks/result, oldest first; takeQueued() when one is written.
    const QList<QJsonObject> &queued() const { return m_queue; }
    QJsonObject takeQueued() { return m_queue.takeFirst(); }
    // Counts a tasks/result (2025) connection; 1 = the first.
    int openResultStream() { return ++m_resultStreams; }
    int resultStreams() const { return m_resultStreams; }

    // 2025 Task: taskId, status, ttl, createdAt, lastUpdatedAt, pollInterval, statusMessage?.
    QJsonObject json2025() const;
    // 2026 Task (taskId, status, statusMessage?, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs);
    // `detailed`: plus result (completed), error (failed) or inputRequests (input_required).
    QJsonObject json2026(bool detailed) const;

Q_SIGNALS:
    // Status or status message changed.
    void changed();
    // A message was queued for tasks/result.
    void messageQueued();
    void inputRequested();
    // Reached a terminal status.
    void ended();

private:
    void onTick();
    void ask();
    void complete();
    void fail(const QString &text);
    void setStatus(Status status, const QString &message = QString());
    void queue(const QJsonObject &message);
    void resumeAfterInput(const QJsonObject &result);
    void stopInput();
    bool asks() const;

    QString m_id;
    McpTaskParams m_params;
    McpCallOptions m_options;
    std::function<qint64()> m_requestIds;
    Status m_status = Status::Working;
    QString m_statusMessage;
    qint64 m_createdMs = 0;
    qint64 m_updatedMs = 0;
    qint64 m_expiresMs = 0;
    int m_step = 0;
    bool m_asked = false;
    int m_inputsAsked = 0;
    QString m_text;
    QString m_prefix; // what the answer to the input adds before the text
    std::optional<QJsonObject> m_result;
    std::optional<McpInputRequest> m_input;
    QList<QJsonObject> m_queue;
    int m_resultStreams = 0;
    QTimer *m_timer = nullptr;
    QTimer *m_inputTimer = nullptr;
};

} // namespace RunwatchSim
