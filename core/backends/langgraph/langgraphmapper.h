// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/runevent.h"

#include <QByteArrayView>
#include <QHash>
#include <QJsonArray>
#include <QJsonObject>

namespace Runwatch::LangGraph {

// The names the connector keeps in ContinuationToken::extra.
inline constexpr QLatin1StringView kRunId{"run_id"};             // the Agent Server run being followed
inline constexpr QLatin1StringView kAssistantId{"assistant_id"}; // what resumes and follow-ups run on
// The client run id our run was created with (its metadata): a thread's latest run is ours only
// if it carries it (a follow-up's thread has its parent's runs too).
inline constexpr QLatin1StringView kClientRunId{"client_run_id"};
// How many messages the thread held before the current run: its own AI messages come after.
inline constexpr QLatin1StringView kMessagesBefore{"messages_before"};

// The client status of a run (§3 of docs/protocols/langgraph-agent-server.md): the run's status
// and, once it succeeded, its thread's. `success` on an `interrupted` thread waits for a person.
RunStatus runStatusFor(QStringView runStatus, QStringView threadStatus);
// A thread's own status as a run list shows it (list --remote: the deployment's threads).
RunStatus threadStatusFor(QStringView threadStatus);
bool isTerminalRunStatus(QStringView runStatus);

// The interrupts a thread waits at, oldest task first: GET /threads/{t}'s `interrupts` map
// ({task id: [{id, value}]}) or the state's tasks[].interrupts, flattened.
QJsonArray pendingInterrupts(const QJsonObject &threadOrState);
// What the operator is asked for the first pending interrupt: a LangChain human-in-the-loop
// request (action_requests + review_configs) as an approval per action, a string as a question,
// anything else as a question answered with a JSON value. raw keeps the interrupt ids for
// resumeValue().
InputRequest inputRequestFor(const QJsonArray &interrupts);
// The `command.resume` value that answers `request` with `answer`: the HITL decisions in the
// order of the action requests, the text, or the value. With several interrupts pending, the value
// is keyed by the answered interrupt's id (§7). nullopt and *error when the answer does not fit.
std::optional<QJsonValue> resumeValue(const InputRequest &request, const InputAnswer &answer, QString *error);

// The text of a message's `content`: a string, or the texts of its list of blocks joined.
QString contentText(const QJsonValue &content);
// The run's answer as the thread state has it: the texts of the AI messages after the first
// `before` messages, joined (what the run's messages-tuple tokens add up to); before < 0: after
// the last user message.
QString answerFromState(const QJsonObject &state, qsizetype before);

// Maps a run's SSE events (stream modes messages-tuple, updates, custom; §4–§6) to RunEvents.
// Every event's id (0, 1, 2, … per run) becomes its sequence and event id, so a rejoin from
// Last-Event-ID continues without a gap or a repeat and a replay is dropped by the reducer. Pure:
// a value type copied to the thread that decodes the stream and back.
class LangGraphMapper
{
public:
    // `runId`: the run the stream belongs to (the token's), which names its items.
    explicit LangGraphMapper(QString runId = {})
        : m_runId(std::move(runId))
    {}

    enum class Outcome {
        Continue,
        End,    // an `end` event: the run's stream is over (the Python server sends one)
        Failed, // an `error` event: the run failed (the events say how)
    };

    Outcome map(QByteArrayView type, QByteArrayView data, QByteArrayView id, QList<RunEvent> &out);

    // Whether any event of this connection's stream arrived (a join that brings nothing new ends
    // the catch-up after a run finished, §4).
    bool gotEvents() const { return m_gotEvents; }
    void startConnection() { m_gotEvents = false; }
    // The id of the last complete event: where a rejoin starts (Last-Event-ID).
    const QString &lastEventId() const { return m_lastEventId; }
    // The run the stream belongs to: as given, or as its metadata event (event 0) named it.
    const QString &runId() const { return m_runId; }

private:
    void mapMessage(const QJsonValue &data, RunEvent cursor, QList<RunEvent> &out);
    void mapToolCallChunks(const QJsonObject &chunk, RunEvent &cursor, QList<RunEvent> &out);
    void mapUpdates(const QJsonValue &data, const QString &id, RunEvent cursor, QList<RunEvent> &out);

    QString m_runId;
    QString m_lastEventId;
    // The tool call item each (message id, tool call chunk index) streams into: later chunks of a
    // call name only its index.
    QHash<QString, QString> m_toolCallItems;
    bool m_gotEvents = false;
};

} // namespace Runwatch::LangGraph
