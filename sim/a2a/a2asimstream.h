// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One A2A SSE connection (SendStreamingMessage / SubscribeToTask): every event is a JSON-RPC
// response to the request that opened it, in the 1.0 shape or the 0.3 one; the drop-after stream
// faults apply.

#include "server/simstream.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace RunwatchSim {

class A2aSimStream final : public SimStream
{
    Q_OBJECT

public:
    // Writes the response head. `faulted`: `faults` apply to this connection.
    A2aSimStream(HttpConnection *connection, QJsonValue rpcId, bool v03, const StreamFaults &faults,
                 bool faulted, QObject *parent);

    // `response` in the 1.0 StreamResponse shape.
    void send(const QJsonObject &response);
    // A JSON-RPC error as an `event: error`.
    void sendError(int code, const QString &message);
    using SimStream::end;

private:
    QJsonValue m_rpcId;
    bool m_v03 = false;
};

} // namespace RunwatchSim
