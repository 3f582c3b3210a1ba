// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One event stream of a simulated job (GET …/events): `id:`-numbered events, so a client can
// resume with Last-Event-ID; the stream ends after the "done" event. The stream faults that hit
// it: drop after N events, malformed JSON at an event id, drip.

#include "server/simstream.h"

#include <QString>

namespace RunwatchSim {

struct JobsSimEvent;

class JobsSimStream final : public SimStream
{
    Q_OBJECT

public:
    // The response head must already be written. `faulted`: `faults` apply to this connection.
    JobsSimStream(HttpConnection *connection, const QString &jobId, const StreamFaults &faults, bool faulted,
                  QObject *parent);

    const QString &jobId() const { return m_jobId; }
    // Writes `event`, or cuts the connection when the drop point is reached.
    void send(const JobsSimEvent &event);
    using SimStream::applyDrip;
    using SimStream::end;
    using SimStream::startComments;
    using SimStream::writeRaw;

Q_SIGNALS:
    // A stream fault cut the connection (emitted when the drop is requested).
    void dropped(const QString &jobId);

private:
    QString m_jobId;
};

} // namespace RunwatchSim
