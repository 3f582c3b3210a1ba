// SPDX-License-Identifier: GPL-3.0-or-later
#include "a2asimstream.h"

#include "a2asimwire.h"
#include "server/simserver.h"

#include <utility>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

A2aSimStream::A2aSimStream(HttpConnection *connection, QJsonValue rpcId, bool v03, const StreamFaults &faults,
                           bool faulted, QObject *parent)
    : SimStream(connection, faults, faulted, parent)
    , m_rpcId(std::move(rpcId))
    , m_v03(v03)
{
    beginEventStream(connection, {{QByteArrayLiteral("X-Accel-Buffering"), QByteArrayLiteral("no")}});
}

void A2aSimStream::send(const QJsonObject &response)
{
    if (!isOpen())
        return;
    const QJsonObject result = m_v03 ? responseV03(response) : response;
    const QByteArray frame = sseFrame({}, compactJson(rpcResultEnvelope(m_rpcId, result)));
    if (dropDue()) {
        drop(frame); // "mid" sends half of this event first
        return;
    }
    writeEvent(frame);
    if (dropDue() && faults().dropMode != DropMode::MidEvent)
        drop();
}

void A2aSimStream::sendError(int code, const QString &message)
{
    if (!isOpen())
        return;
    const QString reason = m_v03 ? QString() : u"INTERNAL"_s;
    writeRaw(sseFrame("error", compactJson(rpcErrorEnvelope(m_rpcId, code, message, reason))));
}

} // namespace RunwatchSim
