// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/run.h"
#include "models/runactions.h"

#include <QFrame>

class QLabel;
class QPushButton;

namespace Runwatch {

// The cancel ladder's next step in the detail pane (issue 31): shown while the selected run's
// cancel has not been confirmed in time (Run::cancelUnconfirmed). Says so with what the server
// last said, and offers the service's stronger cancel where it has one and "Stop Watching…".
// What those do is core's (RunManager::forceCancelRun, stopWatching); this only asks.
class CancelLadderBanner final : public QFrame
{
    Q_OBJECT
public:
    explicit CancelLadderBanner(QWidget *parent = nullptr);

    // Shows the banner for `run` when `actions` offer a next step, hides it otherwise.
    void showRun(const Run &run, const RunActionState &actions);

    QLabel *textLabel() const { return m_text; }
    QPushButton *forceButton() const { return m_force; }
    QPushButton *stopButton() const { return m_stop; }

Q_SIGNALS:
    void forceCancelRequested(const QString &runId);
    void stopWatchingRequested(const QString &runId);

private:
    QString m_runId;
    QLabel *m_text;
    QPushButton *m_force;
    QPushButton *m_stop;
};

} // namespace Runwatch
