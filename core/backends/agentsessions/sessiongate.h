// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/agentsessions/sessionturn.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonObject>
#include <QMutex>

namespace Runwatch::AgentSessions {

// A connector's table (its mapper): what one wire event means for the session/turn model. `event`
// is the event's JSON object, `sseType` its SSE event name (the JSON's own type wins).
using WireReader = SessionEvent (*)(const QJsonObject &event, QStringView sseType);

// The lossless follow of a session (agent-sessions.md §2, the SDKs' SessionToolRunner): neither
// vendor's stream replays anything, so the live stream is opened first and held, then the saved
// history is read, then what the stream brought meanwhile is applied after it, each id once.
//
// The stream's decoder (on the stream pump's thread) hands every event to frame(); until open()
// they are kept, not mapped. The connector (on its own thread) reads the history and calls open()
// with it: the turn's state from the history, then the kept events, as one list of RunEvents.
// After that frame() maps at once. One mutex guards the two sides, taken once per event: a
// session's events are few (a model request's deltas, a tool call), never the hot path of a
// thousand runs.
class SessionGate
{
public:
    SessionGate(WireReader reader, QString turnId);

    // The turn this run follows, once the service named it (the echo of the user message that
    // started it), before open().
    void setTurn(const QString &turnId);
    // The run's turn is the next one the stream starts (SessionTurn::followNextTurn()).
    void followNextTurn();

    // Stream thread: one event of the live stream.
    void frame(QByteArrayView sseType, QByteArrayView data, QList<RunEvent> &out);
    // Connector thread: the history read (oldest first), then what the stream kept meanwhile:
    // their events, and the turn as they left it. From then on the stream's decoder maps (and
    // may end the turn) on its own thread: whether to read the stream on is decided by `turn`,
    // never by a later look at the gate, or what the decoder mapped meanwhile would be dropped.
    struct Opened
    {
        QList<RunEvent> events;
        SessionTurn turn;
    };
    Opened open(const QList<SessionEvent> &history);

    // Whether the turn is over for this stream: ended, or waiting for a person.
    bool over() const;
    bool isOpen() const;
    // A copy of the turn's state (for the connector's token and tests).
    SessionTurn turn() const;

    // The SessionEvent a wire event's bytes give: its JSON read by `reader`, or Malformed.
    static SessionEvent read(WireReader reader, QByteArrayView sseType, QByteArrayView data);

private:
    struct Kept
    {
        QByteArray type;
        QByteArray data;
    };

    mutable QMutex m_mutex;
    WireReader m_reader;
    SessionTurn m_turn;
    QList<Kept> m_kept;
    bool m_open = false;
};

} // namespace Runwatch::AgentSessions
