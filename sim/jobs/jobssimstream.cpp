// SPDX-License-Identifier: GPL-3.0-or-later
#include "jobssimstream.h"

#include "jobssimrun.h"

namespace RunwatchSim {

JobsSimStream::JobsSimStream(HttpConnection *connection, const QString &jobId, const StreamFaults &faults,
                             bool faulted, QObject *parent)
    : SimStream(connection, faults, faulted, parent)
    , m_jobId(jobId)
{}

void JobsSimStream::send(const JobsSimEvent &event)
{
    if (!isOpen())
        return;
    QByteArray data = event.data;
    if (faulted() && faults().malformedAt == event.id)
        data.truncate(data.size() / 2);
    const QByteArray frame = sseFrame(event.type, data, event.id);
    if (dropDue()) {
        drop(frame);
        Q_EMIT dropped(m_jobId);
        return;
    }
    writeEvent(frame);
    if (event.type == "done")
        end();
}

} // namespace RunwatchSim
