// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QStringList>
#include <QTimer>

namespace Runwatch {

class DemoMode;
class MainWindow;
class RunManager;

// Test hook for scripts/screenshots.sh: with RUNWATCH_SCREENSHOT_DIR set, the app waits for the
// demo to reach the moments named in RUNWATCH_SCREENSHOT_PLAN (comma separated; default
// "main-window,input-required"), grabs its own window (QWidget::grab) into DIR/<name>.png at
// each, and quits. Exit code 0 when every shot was taken, 1 on timeout.
//   main-window     the streaming run selected, with output, reasoning and a tool call, and every
//                   other demo run listed in the state it settles in (finished or waiting)
//   input-required  the run waiting for approval (a two-step approval's first step) selected, its
//                   Respond panel showing
//   new-run         the New Run dialog over the list, on the typed-form run's connection with its JSON
//                   input filled in (the screen is grabbed, so the dialog shows over the window)
//   run-store       Settings › Run Store… over the list, a team database with TLS filled in
//   search          the list filtered by a full-text query ("key exchange" since:1d), the
//                   streaming run's answer that says it selected
//   agent-session   a managed agent session of two turns (the demo's OpenAI Agents run and a
//                   follow-up), its conversation, the second turn's usage
//   agent-approval  a managed agent's bash command waiting for confirmation (the demo's Claude
//                   Managed Agents run), its Respond panel showing
//   completed, failed, cancelled, timer, webhook, options, question, approval, tooloutput, form,
//   elicitation, agentturn, agenttools, toolconfirmation, callapproval, streaming
//                   that demo run selected (for reviewing every panel; not used by the README)
class ScreenshotPlan final : public QObject
{
    Q_OBJECT
public:
    ScreenshotPlan(MainWindow *window, RunManager *manager, DemoMode *demo, QString dir, QStringList plan,
                   QObject *parent = nullptr);

    // From the environment; nullptr when RUNWATCH_SCREENSHOT_DIR is not set.
    static ScreenshotPlan *fromEnvironment(MainWindow *window, RunManager *manager, DemoMode *demo,
                                           QObject *parent);
    void start();

private:
    void poll();
    bool ready(const QString &shot);
    bool prepare(const QString &shot);
    bool prepareAgentSession();
    bool prepareNewRun();
    bool prepareRunStore();
    void take(const QString &shot);

    MainWindow *m_window;
    RunManager *m_manager;
    DemoMode *m_demo;
    QString m_dir;
    QStringList m_plan;
    QString m_agentFollowUp; // the second turn of the agent-session shot's session
    bool m_prepared = false;
    int m_settleTicks = 0;
    QTimer m_poll;
    QTimer m_deadline;
};

} // namespace Runwatch
