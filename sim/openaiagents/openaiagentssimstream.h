// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One SSE connection on a simulated session (GET /agents/sessions/{id}/events): what happens from
// now on — nothing is replayed (§1.6), only the session's state first —, a keep-alive comment
// while nothing else goes out, and the stream faults of this connection.

#include "server/simstream.h"

#include <QPointer>

namespace RunwatchSim {

class OpenAiAgentsSimSession;

class OpenAiAgentsSimStream final : public SimStream
{
    Q_OBJECT

public:
    OpenAiAgentsSimStream(HttpConnection *connection, OpenAiAgentsSimSession *session,
                          const StreamFaults &faults, bool faulted, int heartbeatMs,
                          QObject *parent = nullptr);
    // `first`: a frame to send at once (the session's state), or empty.
    void start(const QByteArray &first);

private:
    void onEvent(const QByteArray &type, const QByteArray &json);

    QPointer<OpenAiAgentsSimSession> m_session;
    int m_heartbeatMs = 0;
};

} // namespace RunwatchSim
