// SPDX-License-Identifier: GPL-3.0-or-later
#include "claudeagentssimstream.h"

#include "claudeagentssimrun.h"

namespace RunwatchSim {

ClaudeAgentsSimStream::ClaudeAgentsSimStream(HttpConnection *connection, ClaudeAgentsSimSession *session,
                                             const StreamFaults &faults, bool faulted, bool previews,
                                             int heartbeatMs, QObject *parent)
    : SimStream(connection, faults, faulted, parent)
    , m_session(session)
    , m_previews(previews)
    , m_heartbeatMs(heartbeatMs)
{}

void ClaudeAgentsSimStream::start()
{
    connect(m_session, &ClaudeAgentsSimSession::frame, this, &ClaudeAgentsSimStream::onFrame);
    // session.deleted ends every live stream (§2.2); a session forgotten ends them too.
    connect(m_session, &ClaudeAgentsSimSession::deleted, this, [this] { end(); });
    connect(m_session, &QObject::destroyed, this, [this] { end(); });
    applyDrip();
    if (m_heartbeatMs > 0)
        startComments(m_heartbeatMs, QByteArrayLiteral("event: ping\ndata: {\"type\":\"ping\"}\n\n"));
    // Faults due before any event (drop after 0): cut at once.
    if (dropDue() && faults().dropMode != DropMode::MidEvent)
        drop();
}

void ClaudeAgentsSimStream::onFrame(const QByteArray &type, const QByteArray &json, bool preview)
{
    if (isDone() || (preview && !m_previews))
        return;
    const QByteArray bytes = sseFrame(type, json);
    if (dropDue()) {
        drop(bytes);
        return;
    }
    writeEvent(bytes);
    // A drop due after this event: cut now rather than wait for one that may never come.
    if (dropDue() && faults().dropMode != DropMode::MidEvent)
        drop();
}

} // namespace RunwatchSim
