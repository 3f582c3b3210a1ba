// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QPointer>

namespace Runwatch {

class MainWindow;
class RunManager;

// RUNWATCH_STARTUP_TRACE=1 makes the app say on stderr when the run list first painted rows and
// when it painted the whole stored history, as milliseconds since the Unix epoch (a benchmark that
// started the process subtracts its own clock reading), with the row count, the resident memory and
// the process's CPU time so far:
//   runwatch-startup: first-rows <ms> <rows> <rss-kB> <cpu-ms>
//   runwatch-startup: list-complete <ms> <rows> <rss-kB> <cpu-ms>
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
};

} // namespace Runwatch
