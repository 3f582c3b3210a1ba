// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One SSE connection on one simulated response: replays the stored events after `starting_after`,
// tails new ones, closes after the terminal event, and applies the stream faults of this
// connection (drop, malformed JSON, invalid UTF-8, a never-ending line, drip).

#include "server/simstream.h"

#include <QByteArray>
#include <QPointer>
#include <QString>

namespace RunwatchSim {

class OpenAiSimRun;
struct OpenAiSimEvent;

struct OpenAiStreamSettings
{
    QByteArray lineEnding = QByteArrayLiteral("\n");
    bool sendDone = false;
    int commentIntervalMs = 0;
    qint64 endlessLineMaxBytes = 64 << 20;
};

class OpenAiSimStream final : public SimStream
{
    Q_OBJECT

public:
    // The response head must already be written; `faulted`: the run's stream faults hit this one.
    OpenAiSimStream(HttpConnection *connection, OpenAiSimRun *run, qint64 startingAfter, bool faulted,
                    const OpenAiStreamSettings &settings, QObject *parent = nullptr);
    ~OpenAiSimStream() override;

    void start();
    const QString &responseId() const { return m_responseId; }

Q_SIGNALS:
    // The client went away before the response ended.
    void clientGone();

private:
    void pump();
    QByteArray frame(const OpenAiSimEvent &event) const;
    void startEndlessLine(const OpenAiSimEvent &event);
    void feedEndlessLine();
    void connectionFinished(bool wasDone) override;

    QPointer<OpenAiSimRun> m_run;
    QString m_responseId;
    OpenAiStreamSettings m_settings;
    qint64 m_nextSeq = 0;
    bool m_endless = false;
    qint64 m_endlessWritten = 0;
};

} // namespace RunwatchSim
