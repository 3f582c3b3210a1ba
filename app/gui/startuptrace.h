// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QTimer>

namespace Runwatch {

class MainWindow;
class RunManager;

// RUNWATCH_STARTUP_TRACE=1 makes the app say on stderr when the run list first painted rows and
// when it painted the whole stored history, as milliseconds since the Unix epoch (a benchmark that
// started the process subtracts its own clock reading), with the row count, the resident memory and
// the process's CPU time so far:
//   runwatch-startup: first-rows <ms> <rows> <rss-kB> <cpu-ms>
//   runwatch-startup: list-complete <ms> <rows> <rss-kB> <cpu-ms> <longest-stall-ms>
// The longest stall is the longest the GUI thread went without turning its event loop between the
// two (a 2 ms heartbeat timer's longest gap): how long input or a paint could have waited while
// the history loaded.
// bench_store --app reads these lines. Nothing is installed without the variable.
class StartupTrace final : public QObject
{
    Q_OBJECT
public:
    static StartupTrace *installIfRequested(MainWindow *window, RunManager *manager, QObject *parent);

    // The controller has handed every stored run to the engine.
    void historyLoaded();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    StartupTrace(MainWindow *window, RunManager *manager, QObject *parent);
    void report(const char *what);

    QPointer<MainWindow> m_window;
    RunManager *m_manager;
    bool m_firstRowsReported = false;
    bool m_historyLoaded = false;
    bool m_completeReported = false;
    QTimer m_heartbeat;
    QElapsedTimer m_sinceBeat;
    qint64 m_longestStallMs = 0;
};

} // namespace Runwatch
