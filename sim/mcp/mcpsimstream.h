// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One SSE reply of the MCP simulator: a POST's reply stream (a request's response, and on a
// tasks/result stream the task's queued messages before it) or a session's standalone GET stream.
// Every message is `event: message` + `data: <JSON-RPC>` + a blank line, without `id:` (no
// resumability: the SDK server without an EventStore). The stream faults of the connection (drop
// after N events, malformed JSON at an event's index, drip) and the framing settings (line ending,
// events split into pieces) apply.

#include "server/simstream.h"

#include <QByteArray>
#include <QJsonObject>

namespace RunwatchSim {

struct McpStreamSettings
{
    QByteArray lineEnding = QByteArrayLiteral("\n");
    int splitWrites = 0; // > 0: events go out in pieces of this many bytes
};

class McpSimStream final : public SimStream
{
    Q_OBJECT

public:
    // The response head must already be written; `faulted`: `faults` apply to this connection.
    McpSimStream(HttpConnection *connection, const StreamFaults &faults, bool faulted,
                 const McpStreamSettings &settings, QObject *parent = nullptr);
    ~McpSimStream() override;

    // Writes one message. False when it did not go out whole: the stream is over, or the
    // drop-after fault cut the connection instead.
    bool send(const QJsonObject &message);
    // The reply is complete (the response was the last message).
    void finish() { end(); }

private:
    McpStreamSettings m_settings;
};

} // namespace RunwatchSim
