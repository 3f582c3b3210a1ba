// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One SSE connection on one simulated interaction (the stream of a create, or GET …?stream=true):
// frames `event: <event_type>` and `data: <json>`, the log from a point on (after
// last_event_id, or from the start), then every new event, up to "[DONE]". The service's own cut
// of long streams (an `error` event gateway_timeout, then [DONE], after cut_after deltas on this
// connection) and the stream faults of this connection: drop after N events, malformed JSON at a
// log index, split writes, the line ending, drip.

#include "server/simstream.h"

#include <QByteArray>
#include <QPointer>
#include <QString>

namespace RunwatchSim {

class GeminiSimRun;

struct GeminiStreamSettings
{
    QByteArray lineEnding = QByteArrayLiteral("\n");
    int splitWrites = 0;     // > 0: frames go out in pieces of this many bytes
    int cutAfterDeltas = -1; // > 0: the service's gateway_timeout after this many deltas
};

class GeminiSimStream final : public SimStream
{
    Q_OBJECT

public:
    // The response head must already be written; `faulted`: the run's stream faults hit this one.
    GeminiSimStream(HttpConnection *connection, GeminiSimRun *run, qsizetype first, bool faulted,
                    const GeminiStreamSettings &settings, QObject *parent = nullptr);
    ~GeminiSimStream() override;

    void start();
    const QString &interactionId() const { return m_interactionId; }
    // The service cut this stream (gateway_timeout).
    bool wasCut() const { return m_cut; }

Q_SIGNALS:
    // The client went away before the stream ended.
    void clientGone();

private:
    void pump();
    void send(const QByteArray &bytes);
    void cutByService();
    void connectionFinished(bool wasDone) override;

    QPointer<GeminiSimRun> m_run;
    QString m_interactionId;
    GeminiStreamSettings m_settings;
    qsizetype m_next = 0;
    int m_deltasWritten = 0;
    bool m_cut = false;
};

} // namespace RunwatchSim
