// SPDX-License-Identifier: GPL-3.0-or-later
#include "mcpsimstream.h"

#include "server/simserver.h"

namespace RunwatchSim {

McpSimStream::McpSimStream(HttpConnection *connection, const StreamFaults &faults, bool faulted,
                           const McpStreamSettings &settings, QObject *parent)
    : SimStream(connection, faults, faulted, parent)
    , m_settings(settings)
{
    applyDrip();
}

McpSimStream::~McpSimStream() = default;

bool McpSimStream::send(const QJsonObject &message)
{
    if (!isOpen())
        return false;
    QByteArray data = compactJson(message);
    if (faulted() && faults().malformedAt == eventsWritten())
        data.truncate(data.size() / 2); // unbalanced braces: never valid JSON
    const QByteArray frame = sseFrame("message", data, -1, m_settings.lineEnding);
    if (dropDue()) {
        drop(frame);
        return false;
    }
    if (m_settings.splitWrites > 0) {
        // Every piece its own write (its own chunk): the client must join frames itself, also
        // where a piece ends between the CR and the LF of a CRLF.
        qsizetype at = 0;
        for (; at + m_settings.splitWrites < frame.size(); at += m_settings.splitWrites)
            writeRaw(frame.mid(at, m_settings.splitWrites));
        writeEvent(frame.mid(at));
    } else {
        writeEvent(frame);
    }
    return true;
}

} // namespace RunwatchSim
