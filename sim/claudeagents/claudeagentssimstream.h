// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One SSE connection on a simulated session (GET /v1/sessions/{id}/events/stream): frames
// `event: <type>` and `data: <json>` of what happens from now on — nothing is replayed (§2.6) —,
// the previews only when the client asked for them (event_deltas[]=agent.message), a heartbeat
// (event: ping) while nothing else goes out, and the stream faults of this connection.

#include "server/simstream.h"

#include <QPointer>

namespace RunwatchSim {

class ClaudeAgentsSimSession;

class ClaudeAgentsSimStream final : public SimStream
{
    Q_OBJECT

public:
    // The response head must already be written; `faulted`: the stream faults hit this one.
    ClaudeAgentsSimStream(HttpConnection *connection, ClaudeAgentsSimSession *session,
                          const StreamFaults &faults, bool faulted, bool previews, int heartbeatMs,
                          QObject *parent = nullptr);

    void start();

private:
    void onFrame(const QByteArray &type, const QByteArray &json, bool preview);

    QPointer<ClaudeAgentsSimSession> m_session;
    bool m_previews = false;
    int m_heartbeatMs = 0;
};

} // namespace RunwatchSim
