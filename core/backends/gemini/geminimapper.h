// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/runevent.h"

#include <QByteArrayView>
#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QSet>

#include <optional>

namespace Runwatch::Gemini {

// The Gemini Interactions API (§2 of docs/protocols/foundry-agents-and-gemini.md, the steps model
// of @google/genai 3.3.0) mapped to RunEvents; GeminiBackend (geminibackend.h) is the connector.
//
// Items: every step that is not the answer becomes the secondary item `<interaction id>#<n>`,
// where n is the step's stream index. A stored interaction (GET) lists the input steps first
// (user_input; function_result in a continuation), which the stream does not number, so there n
// counts from the first step after them: streamed and polled steps land on the same item.
// Answer: the text of the model_output steps, the steps' texts joined by a blank line.

// The client status of an interaction status (§2 The interaction); Unknown for anything else.
RunStatus runStatusFor(QStringView status);

// `arguments` as compact JSON text: an object or array serialised, a string kept as it is (the
// wire already holds JSON text there), anything else as its JSON literal.
QString compactJson(const QJsonValue &value);

// A text content list ([{type:"text", text}], a thought's summary or an output's content), or a
// single content object or string: its texts run together. Images and other media carry no text.
QString contentText(const QJsonValue &content);

// The item id of step `index` of interaction `interactionId`.
QString itemIdFor(const QString &interactionId, qint64 index);

// The answer a stored or returned interaction holds: the text parts of its model_output steps,
// each step's texts run together, the steps joined by "\n\n" (empty steps left out).
QString outputText(const QJsonObject &interaction);

// The interaction's `usage` as TokenUsage: input = total_input_tokens + total_tool_use_tokens,
// output = total_output_tokens + total_thought_tokens, reasoning = total_thought_tokens (Runwatch
// counts reasoning inside the output, as OpenAI does, and Gemini bills thoughts as output; so
// input + output = total_tokens). nullopt when no count is valid.
std::optional<TokenUsage> usageOf(const QJsonObject &interaction);

// The failure an interaction reports: its `errors` (the first one's code, every message), or a
// generic message for a `failed` interaction without any. kind None when it reports none.
RunError errorOf(const QJsonObject &interaction);

// The secondary item a finished step shows as (a thought's summary, a call, a result), with the
// given item id; nullopt for the steps that are no item (user_input, model_output without an
// error, a thought without a summary text).
std::optional<RunEvent> stepItem(const QString &itemId, const QJsonObject &step);

// What a run waits for when its interaction ended `requires_action` with `calls` (function
// calls without a result): a ToolOutput request naming them. raw.interaction_id is the
// interaction the answer continues (previous_interaction_id).
InputRequest toolOutputRequest(const QString &interactionId, const QList<ToolCallRequest> &calls);

// The pending function calls of a `requires_action` interaction (function_call steps with no
// function_result step naming them) as its request; nullopt for any other status or no call.
std::optional<InputRequest> inputRequestOf(const QJsonObject &interaction);

// A GET or create reply (the interaction resource) as events: identity, the items of its steps,
// the answer as a primary snapshot carrying the usage, the failure, the status, and for
// `requires_action` the input request.
QList<RunEvent> mapInteraction(const QJsonObject &interaction);

// The `input` of the continuation interaction that answers `request` (§2 Function calls): one
// {type:"function_result", call_id, name, result} per call, in the request's order, the result
// the operator's text. Empty, with the reason in *error, when the answer does not fit
// (answersForToolCalls: every call answered exactly once).
QJsonArray functionResults(const InputRequest &request, const InputAnswer &answer, QString *error);

// Maps an interaction's SSE events (§2 Streaming) one by one. A value type: the connector keeps it
// across reconnections, since a resume (`last_event_id`) replays every event after the last id,
// id-less ones included, and this mapping must apply each of them once:
//  - appended output (text, a thought's summary, a call's arguments) comes from deltas, each
//    event_id once; what a step's start appends (a call's `name(`) comes once per step index;
//  - the other id-less events (step.stop, status updates, interaction.completed) give snapshots,
//    statuses and requests, which repeat harmlessly.
// A delta without an event_id (none observed) cannot be told from its repeat: it is applied.
// Pure: no I/O.
class GeminiMapper
{
public:
    // `interactionId`: the interaction the stream belongs to, when known before its
    // interaction.created (a resume starts after it). `streamable`: the interaction runs in the
    // background and can be streamed again (carried into the Identity events).
    explicit GeminiMapper(QString interactionId = {}, bool streamable = true)
        : m_interactionId(std::move(interactionId))
        , m_streamable(streamable)
    {}

    enum class Outcome {
        Continue,
        // interaction.completed: the interaction ended, or waits for function results; [DONE]
        // follows.
        Finished,
        // An `error` event with code gateway_timeout: the service cut a long stream while the
        // interaction goes on. Not a failure: resume from lastEventId() (error() says why).
        Cut,
        // Any other `error` event: the failure (with the service's message) is in `out` and in
        // error(). The interaction's own status, which follows or a GET gives, decides the end.
        Failed,
        // The event could not be read (not JSON, a step without an index): a note in `out`
        // keeps it on the run, error() says what was wrong, nothing else of it is applied, and
        // the stream can go on. Also an interaction.completed whose status nobody knows: what
        // it said is applied, and error() (unknown_status) says why following cannot end well.
        Malformed,
        // `data: [DONE]` / `event: done`: the stream is over (after a Cut too).
        End,
    };

    Outcome map(QByteArrayView type, QByteArrayView data, QList<RunEvent> &out);

    // The last event_id seen: where a resume starts (last_event_id).
    const QString &lastEventId() const { return m_lastEventId; }
    // The interaction the stream belongs to, as given or as its interaction.created named it.
    const QString &interactionId() const { return m_interactionId; }
    // The last Cut, Failed or Malformed outcome's reason.
    const RunError &error() const { return m_error; }
    // Events dropped because their event_id had been applied already (a replay).
    qint64 droppedRepeats() const { return m_dropped; }
    // Whether interaction.completed arrived; whether the service cut this connection's stream.
    bool finished() const { return m_finished; }
    bool cut() const { return m_cut; }
    // A new connection (a resume): forgets that the last one was cut, keeps everything else.
    void startConnection() { m_cut = false; }
    // A mapper made anew for a resume (the app restarted; its state was not kept): whether the
    // interaction's answer has text already, so that the next output step's text starts with the
    // separator, as outputText() has it.
    void setAnswerHasText(bool hasText) { m_anyText = hasText; }
    // The output step the answer's last text came from (-1: none yet): kept with the stream's
    // cursor, so that a mapper made anew after a restart knows the deltas it resumes with go on
    // with that step (no separator) and a later step's start with one.
    qint64 answerStep() const { return m_answerStep; }
    // A mapper made anew for a resume whose answer's last text came from output step `step`.
    void resumeAnswerAt(qint64 step)
    {
        m_anyText = true;
        if (step >= 0) {
            stepAt(step).hasText = true;
            m_answerStep = step;
        }
    }
    // A copy for the stream's next connection: everything but the event ids applied, which a
    // resume never brings again (it starts after the last one). The connector takes one after
    // every read; a copy that shared the growing id set would make the decoder's next insert copy
    // all of it.
    GeminiMapper forResume() const
    {
        GeminiMapper copy = *this;
        copy.m_seenIds = {};
        return copy;
    }

private:
    // What the mapping remembers of one step (by its stream index).
    struct Step
    {
        QString item;      // its item id, fixed when the step is first seen
        qint64 index = -1; // its stream index
        QString type;      // from step.start, or the first delta's kind
        QString callId;    // function_call / *_call id, function_result / *_result call_id
        QString name;      // a function's name
        QString text;      // a thought's summary so far
        QString arguments; // arguments_delta fragments joined, or the start's arguments
        QJsonValue result; // a *_result's result
        bool isError = false;
        bool started = false; // step.start seen: the step is known from its beginning
        bool streamedArgs = false;
        bool hasText = false; // model_output: some text of it was mapped
    };

    // The step at `index`, made on first sight.
    Step &stepAt(qint64 index);
    Outcome mapStepStart(const QJsonObject &event, RunEvent &cursor, QList<RunEvent> &out);
    Outcome mapStepDelta(const QJsonObject &event, RunEvent &cursor, QList<RunEvent> &out);
    void mapStepStop(qint64 index, RunEvent &cursor, QList<RunEvent> &out);
    void mapStatus(const QString &raw, const QJsonObject &interaction, RunEvent &cursor,
                   QList<RunEvent> &out);
    void adoptInteraction(const QString &id);
    void appendText(Step &step, const QString &text, RunEvent &cursor, QList<RunEvent> &out);
    // A thought's summary text, from its start or a delta: kept on the step, sent as reasoning.
    void appendSummary(Step &step, const QString &text, RunEvent &cursor, QList<RunEvent> &out);
    // The step as a step object of the resource, for stepItem(): the same item text either way.
    QJsonObject stepObject(const Step &step) const;
    Outcome malformed(QByteArrayView type, QByteArrayView data, const QString &why, RunEvent &cursor,
                      QList<RunEvent> &out);

    QString m_interactionId;
    QString m_lastEventId;
    QHash<qint64, Step> m_steps;
    QSet<QString> m_seenIds; // event_ids applied: a replay's repeats are dropped
    RunError m_error;
    qint64 m_dropped = 0;
    bool m_streamable = true;
    bool m_anyText = false;   // some answer text was mapped (the next step's text starts with "\n\n")
    qint64 m_answerStep = -1; // the output step of the answer's last text
    bool m_finished = false;
    bool m_cut = false;
};

} // namespace Runwatch::Gemini
