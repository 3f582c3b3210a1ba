// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/runbackend.h"
#include "domain/runevent.h"

#include <QHash>
#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>

#include <optional>

namespace Runwatch::AgentSessions {

// The session/turn model of the vendors' hosted agent sessions (issue 29; docs/protocols/
// agent-sessions.md §3): a session is a conversation, a user message starts a turn, and a turn is
// one local run. Both vendors send a live stream that replays nothing and keep a saved history
// (Claude: the event log; OpenAI: items and turns) whose entries carry unique ids. What the two
// share is here; what a wire event means is each connector's own table (its mapper), which turns
// every event into one SessionEvent, so that a change of a beta is one edit in that table.

// One event of a session, in the model's terms.
struct SessionEvent
{
    enum class Kind {
        Other,        // nothing for the turn; its id still counts as applied
        UserMessage,  // a user message: starts a turn (`id`), `text` its words
        Interrupt,    // the user interrupted the turn (a cancel that the service confirms by ending it)
        PreviewStart, // a live preview of output `key` opened (streams only, never in the history)
        PreviewText,  // live text of output `key`, appended to the answer until its saved form comes
        PreviewEnd,   // the previews open so far closed without their saved output (a model request
                      // ended early: interrupted or failed); their text leaves the answer
        Output,       // the saved text of output `key`: the answer's part, replacing its preview
        Item,         // a secondary item `id`: itemKind, title, text (thinking, tool use, results)
        Call,         // a tool call a person may have to answer (`call`); also shown as item `id`
        Answered,     // the calls `ids` got their answer (a confirmation or a tool result)
        Running,      // the session works (`raw`: the service's status, e.g. rescheduling)
        Waiting,      // the session waits for a person: the calls `ids` block it (`calls`: the
                      // calls themselves, when the service names them with the wait)
        TurnEnd,      // the turn ended: `end` (Completed, Failed, Cancelled), `raw` the reason;
                      // `usage`, when known, the turn's whole usage (a vendor with turn objects)
        Problem,      // an error: `error`; `retrying` (the service tries again) or the turn's reason
        Usage,        // the tokens of one model request (`usage`), added to the turn's
        Deleted,      // the session was deleted: nothing follows
        Malformed,    // the event could not be read: `error` says why, `text` what arrived
    };
    Kind kind = Kind::Other;
    QString id;  // the event's unique id (duplicates dropped by it, the run's cursor); may be empty
    QString key; // PreviewStart/PreviewText/Output: the output the text belongs to
    QString text;
    QString title;
    SecondaryKind itemKind = SecondaryKind::Log;
    QString raw;
    RunStatus end = RunStatus::Completed;
    std::optional<ToolCallRequest> call;
    // Waiting: the calls the wait names, registered as Call events would (OpenAI's typed
    // required_actions carry them with the wait); a typed form (`form`, a schema) is answered alone.
    QList<ToolCallRequest> calls;
    std::optional<InputRequest> form;
    QStringList ids;
    RunError error;
    bool retrying = false;
    // Usage: the model request it counts ended, and with it the previews it opened (Claude's
    // span.model_request_end): what they showed without a saved output leaves the answer.
    bool closesPreviews = false;
    TokenUsage usage;
};

// The state of the one turn a run follows, fed with a session's events and giving RunEvents. A
// value type without I/O (fuzzed through the connectors' mappers). It is fed twice over: the saved
// history (history(), then historyEvents(): the turn as it stands, every event the same whatever
// was applied before, so that a reattach changes nothing the run already has), then the live
// stream (live(): each event once, in order). An event whose id was applied already is dropped.
//
// The answer is the turn's saved outputs joined by a blank line. A preview's text is shown as it
// streams; when the saved output (or the end of the previews) arrives and the preview differs,
// the answer is sent whole as the service saved it (RunEvent::authoritative), so a preview never
// stays in the answer.
class SessionTurn
{
public:
    // `turnId`: the user message that started the run's turn (events before it are earlier
    // turns'); empty to take the last turn the history shows (attach by session id).
    explicit SessionTurn(QString turnId = {});

    // The run's turn is the next one the live stream starts (a service that names a new turn only
    // on its stream, OpenAI's turn.created after a 202 without ids): the history's turns are
    // earlier ones, and the first live UserMessage is the run's, announced as an identity event
    // with its id (kTurnKey).
    void followNextTurn();

    // Events of the saved history, oldest first: the state only.
    void history(const SessionEvent &event);
    // The turn as the history left it: the turn's identity extra (kTurnKey when it was found),
    // its items, its answer (authoritative), its usage, its status and what it waits for.
    // `cursor`: put on the last event as its id (the last history event applied).
    QList<RunEvent> historyEvents() const;
    // Attached by session id (no turn id given): the history's turns before the last one, oldest
    // first, each with its message and its state as historyEvents() gives a turn's (no cursor:
    // their runs are never followed), so that the conversation shows them (issue 29).
    const QList<EarlierTurn> &earlierTurns() const { return m_earlier; }
    // The words of the message that started the turn, where the service says them.
    const QString &prompt() const { return m_prompt; }

    // One live event: what changed, appended to `out`.
    void live(const SessionEvent &event, QList<RunEvent> &out);

    // The turn ended (completed, failed, cancelled) or the session is gone: nothing more to follow.
    bool ended() const { return m_ended; }
    // The turn waits for a person.
    bool waiting() const { return !m_blocking.isEmpty() && !m_ended; }
    // The turn's user message (found in the history when it was not given).
    const QString &turnId() const { return m_turnId; }
    // Whether the turn's user message was seen.
    bool started() const { return m_started; }
    // The last event id applied.
    const QString &lastId() const { return m_lastId; }
    // The text of the turn's answer as saved so far (the outputs joined).
    QString savedText() const;
    // What the turn waits for now (nullopt when it does not).
    std::optional<InputRequest> pendingRequest() const;
    // The status the turn is in, and its raw word.
    RunStatus status() const;
    QString rawStatus() const { return m_raw; }
    // Events dropped because their id was applied already.
    qint64 droppedRepeats() const { return m_dropped; }

private:
    // Applies `event` to the state; false for an event that is not news (a repeat, another
    // turn's). Fills `out` with what changed when `emit` is set.
    bool apply(const SessionEvent &event, QList<RunEvent> *out);
    void resetTurn(const QString &turnId, const QString &prompt);
    QList<RunEvent> turnEvents() const; // historyEvents() of a started turn, without the cursor
    QString shownText() const;          // saved outputs + the open previews, as the run shows it now
    RunEvent usageEvent() const;

    struct Item
    {
        QString id;
        SecondaryKind kind = SecondaryKind::Log;
        QString title;
        QString text;
    };

    QString m_turnId;
    QString m_prompt;
    QList<EarlierTurn> m_earlier;
    bool m_latest = false; // no turn id was given: each user message of the history starts the turn
    bool m_next = false;   // the first live user message starts the turn (followNextTurn())
    bool m_started = false;
    bool m_ended = false;
    bool m_interrupted = false;
    QSet<QString> m_seen;
    QString m_lastId;
    qint64 m_dropped = 0;
    QList<Item> m_items;
    QHash<QString, qsizetype> m_itemAt;
    QStringList m_outputs;                     // saved outputs' texts, in order
    QStringList m_outputKeys;                  // their keys
    QList<QPair<QString, QString>> m_previews; // open previews: key, text so far
    QHash<QString, ToolCallRequest> m_calls;
    QHash<QString, InputRequest> m_forms; // typed forms the turn may wait on, by their id
    QStringList m_blocking;               // calls the turn waits on
    RunStatus m_status = RunStatus::InProgress;
    QString m_raw;
    RunError m_failure; // the reason the turn failed (a problem's or the end's)
    TokenUsage m_usage;
    bool m_usageKnown = false;
    bool m_previewShown = false; // the run shows text that no saved output confirmed yet
};

// ContinuationToken::extra key of a session run: the user message that started its turn.
inline constexpr QLatin1StringView kTurnKey{"turn"};

// get()'s answer from a turn fed with the saved history: `session` (the connector's Identity of
// the session: its remote id, model, agent) and the turn's history events, and for a run attached
// by session id the earlier turns (each under the same identity, so that a follow-up from one of
// them finds its agent) and the turn's message.
void putTurnState(const SessionTurn &turn, const RunEvent &session, ActionResult &result);

} // namespace Runwatch::AgentSessions
