// SPDX-License-Identifier: GPL-3.0-or-later
#include "openaiagentssimstream.h"

#include "openaiagentssimsession.h"

namespace RunwatchSim {

OpenAiAgentsSimStream::OpenAiAgentsSimStream(HttpConnection *connection, OpenAiAgentsSimSession *session,
                                             const StreamFaults &faults, bool faulted, int heartbeatMs,
                                             QObject *parent)
    : SimStream(connection, faults, faulted, parent)
    , m_session(session)
    , m_heartbeatMs(heartbeatMs)
{}

void OpenAiAgentsSimStream::start(const QByteArray &first)
{
    connect(m_session, &OpenAiAgentsSimSession::eventSent, this, &OpenAiAgentsSimStream::onEvent);
    connect(m_session, &OpenAiAgentsSimSession::deleted, this, [this] { end(); });
    connect(m_session, &QObject::destroyed, this, [this] { end(); });
    applyDrip();
    if (m_heartbeatMs > 0)
        startComments(m_heartbeatMs, QByteArrayLiteral(": keep-alive\n\n"));
    if (dropDue() && faults().dropMode != DropMode::MidEvent) {
        drop();
        return;
    }
    if (!first.isEmpty())
        writeEvent(first);
}

void OpenAiAgentsSimStream::onEvent(const QByteArray &type, const QByteArray &json)
{
    if (isDone())
        return;
    const QByteArray bytes = sseFrame(type, json);
    if (dropDue()) {
        drop(bytes);
        return;
    }
    writeEvent(bytes);
    if (dropDue() && faults().dropMode != DropMode::MidEvent)
        drop();
}

} // namespace RunwatchSim
