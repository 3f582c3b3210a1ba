// SPDX-License-Identifier: GPL-3.0-or-later
#include "screenshotplan.h"
#include "uilog.h"

#include "domain/enumnames.h"

#include "conversationview.h"
#include "demomode.h"
#include "detailpane.h"
#include "engine/runmanager.h"
#include "filterbar.h"
#include "inputpanel.h"
#include "mainwindow.h"
#include "models/runformat.h"
#include "newrundialog.h"
#include "runstoredialog.h"
#include "runtableview.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QHeaderView>
#include <QPixmap>
#include <QPlainTextEdit>
#include <QScreen>
#include <QTabWidget>

#include <array>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
constexpr int kPollMs = 100;
constexpr int kSettleTicks = 6; // let the frame timers and the list's coalescing catch up
constexpr int kMinStreamedChars = 520;

// The run a shot selects: "main-window" the streaming run, "input-required" the approval, and
// any other demo run by its DemoMode::Seed name in lower case ("timer", "webhook", "question",
// "options", …), to review every panel by eye; "usage" the streaming run once completed (its
// usage reported), with the usage columns shown and a price set; "agent-session" a managed agent
// session's finished turn (OpenAI Agents, with its usage) and "agent-approval" a managed agent's
// tool call waiting for confirmation (Claude Managed Agents). Unknown names show the streaming run.
DemoMode::Seed seedFor(const QString &shot)
{
    if (shot == u"input-required")
        return DemoMode::Seed::Approval;
    if (shot == u"usage")
        return DemoMode::Seed::Streaming; // the demo's one OpenAI run that completes, with usage
    if (shot == u"agent-session")
        return DemoMode::Seed::AgentTurn;
    if (shot == u"agent-approval")
        return DemoMode::Seed::ToolConfirmation;
    using Seed = DemoMode::Seed;
    static constexpr std::array kSeedNames{
        EnumName{Seed::Completed, "completed"_L1},
        EnumName{Seed::Failed, "failed"_L1},
        EnumName{Seed::Cancelled, "cancelled"_L1},
        EnumName{Seed::Timer, "timer"_L1},
        EnumName{Seed::Webhook, "webhook"_L1},
        EnumName{Seed::Options, "options"_L1},
        EnumName{Seed::Question, "question"_L1},
        EnumName{Seed::Approval, "approval"_L1},
        EnumName{Seed::ToolOutput, "tooloutput"_L1},
        EnumName{Seed::Form, "form"_L1},
        EnumName{Seed::Review, "review"_L1},
        EnumName{Seed::Streaming, "streaming"_L1},
        EnumName{Seed::Research, "research"_L1},
        EnumName{Seed::Agent, "agent"_L1},
        EnumName{Seed::Elicitation, "elicitation"_L1},
        EnumName{Seed::AgentTurn, "agentturn"_L1},
        EnumName{Seed::AgentTools, "agenttools"_L1},
        EnumName{Seed::ToolConfirmation, "toolconfirmation"_L1},
        EnumName{Seed::CallApproval, "callapproval"_L1},
    };
    return fromName(kSeedNames, shot, Qt::CaseInsensitive).value_or(Seed::Streaming);
}
} // namespace

ScreenshotPlan::ScreenshotPlan(MainWindow *window, RunManager *manager, DemoMode *demo, QString dir,
                               QStringList plan, QObject *parent)
    : QObject(parent)
    , m_window(window)
    , m_manager(manager)
    , m_demo(demo)
    , m_dir(std::move(dir))
    , m_plan(std::move(plan))
{
    m_poll.setInterval(kPollMs);
    connect(&m_poll, &QTimer::timeout, this, &ScreenshotPlan::poll);
    m_deadline.setSingleShot(true);
    m_deadline.setInterval(90000);
    connect(&m_deadline, &QTimer::timeout, this, [this] {
        qCWarning(lcUi, "screenshot plan timed out waiting for \"%s\"", qPrintable(m_plan.value(0)));
        QCoreApplication::exit(1);
    });
}

ScreenshotPlan *ScreenshotPlan::fromEnvironment(MainWindow *window, RunManager *manager, DemoMode *demo,
                                                QObject *parent)
{
    const QString dir = qEnvironmentVariable("RUNWATCH_SCREENSHOT_DIR");
    if (dir.isEmpty())
        return nullptr;
    QString plan = qEnvironmentVariable("RUNWATCH_SCREENSHOT_PLAN");
    if (plan.isEmpty())
        plan = u"main-window,input-required"_s;
    return new ScreenshotPlan(window, manager, demo, dir, plan.split(u',', Qt::SkipEmptyParts), parent);
}

void ScreenshotPlan::start()
{
    QDir().mkpath(m_dir);
    m_poll.start();
    m_deadline.start();
}

bool ScreenshotPlan::ready(const QString &shot)
{
    if (!m_demo)
        return true;
    if (m_demo->seededRunIds().size() < DemoMode::seeds().size())
        return false;
    // Every shot shows the whole list: wait until each demo run has settled where it is meant
    // to — the quick ones finished, the others waiting, and the streaming one well into its
    // answer (and still streaming, for the shot that shows it).
    for (const DemoMode::Seed seed : DemoMode::seeds()) {
        const Run *r = m_manager->run(m_demo->runId(seed));
        if (!r)
            return false;
        if (seed == DemoMode::Seed::Streaming) {
            const bool streaming
                = r->status == RunStatus::InProgress && r->primaryText.size() >= kMinStreamedChars;
            if (!streaming && (shot == u"main-window" || r->status != RunStatus::Completed))
                return false;
            // Usage is reported with the completed response.
            if (shot == u"usage" && r->status != RunStatus::Completed)
                return false;
        } else if (r->status != DemoMode::intendedStatus(seed)) {
            return false;
        }
    }
    return true;
}

bool ScreenshotPlan::prepare(const QString &shot)
{
    if (!m_demo)
        return true;
    if (shot == u"usage") {
        // As an operator who watches cost has it: a price for the demo's model (in the demo's
        // throw-away store) and the usage columns shown.
        PriceTable prices;
        prices.currency = u"USD"_s;
        prices.prices << ModelPrice{u"runwatch-sim-1"_s, 1.25, 10};
        m_manager->prices()->setTable(prices);
        const QList<QAction *> toggles = m_window->table()->horizontalHeader()->actions();
        for (int c : {InputTokensColumn, OutputTokensColumn, CostColumn})
            toggles.at(c)->setChecked(true);
        // On a 1366x768 screen eleven columns do not fit beside the detail pane: the operator's
        // choice in the header menu, the columns this shot does not need make room.
        for (int c : {BackendColumn, StartedColumn, LastActivityColumn})
            toggles.at(c)->setChecked(false);
    }
    if (shot == u"agent-session")
        return prepareAgentSession();
    if (shot == u"new-run")
        return prepareNewRun();
    if (shot == u"run-store")
        return prepareRunStore();
    if (shot == u"search") {
        // A full-text query with a phrase and a filter, as an operator types it: the store's
        // index finds the runs whose answer says it.
        m_window->filterBar()->setText(u"\"key exchange\" since:1d"_s);
        return m_window->activateRun(m_demo->runId(DemoMode::Seed::Streaming));
    }
    return m_window->activateRun(m_demo->runId(seedFor(shot)));
}

bool ScreenshotPlan::prepareAgentSession()
{
    // A session of two turns, as an operator has it after one follow-up: the conversation in the
    // detail pane, the selected (second) turn's usage beside it.
    const QString first = m_demo->runId(DemoMode::Seed::AgentTurn);
    if (m_agentFollowUp.isEmpty())
        m_agentFollowUp = m_manager->followUp(first, u"Which of them can go today?"_s);
    const Run *next = m_manager->run(m_agentFollowUp);
    if (!next || next->status != RunStatus::Completed || !m_window->activateRun(m_agentFollowUp))
        return false;
    // Its Conversation tab: both turns, each prompt above its answer.
    QWidget *view = m_window->detailPane()->conversationView();
    for (QTabWidget *tabs : m_window->detailPane()->findChildren<QTabWidget *>()) {
        for (int i = 0; i < tabs->count(); ++i) {
            if (tabs->widget(i) == view || tabs->widget(i)->isAncestorOf(view))
                tabs->setCurrentIndex(i);
        }
    }
    return true;
}

bool ScreenshotPlan::prepareNewRun()
{
    // The New Run dialog over the list, on the connection of the demo's typed-form run (a
    // connector that takes structured input), its JSON field filled in as an operator would.
    const Run *form = m_manager->run(m_demo->runId(DemoMode::Seed::Form));
    if (!form)
        return false;
    m_window->openNewRunDialog();
    auto *dialog = m_window->findChild<NewRunDialog *>();
    if (!dialog)
        return false;
    dialog->setConnection(form->connection);
    dialog->promptEdit()->setPlainText(u"Form: release the Q3 cost report"_s);
    dialog->inputEdit()->setPlainText(
        u"{\n  \"title\": \"Q3 costs\",\n  \"replicas\": 2,\n  \"dry_run\": false\n}"_s);
    return true;
}

bool ScreenshotPlan::prepareRunStore()
{
    // Settings › Run Store… as a team sets it up: its database over TLS checked against its CA.
    m_window->openRunStoreDialog();
    auto *dialog = m_window->findChild<RunStoreDialog *>();
    if (!dialog)
        return false;
    StoreLocation team;
    team.kind = StoreLocation::Kind::TeamDatabase;
    team.host = u"db.example.net"_s;
    team.database = u"runwatch"_s;
    team.user = u"runwatch_team"_s;
    team.sslMode = u"verify-full"_s;
    team.sslRootCert = u"/etc/ssl/team-ca.pem"_s;
    dialog->setLocation(team);
    return true;
}

void ScreenshotPlan::poll()
{
    if (m_plan.isEmpty()) {
        m_poll.stop();
        QCoreApplication::exit(0);
        return;
    }
    const QString shot = m_plan.first();
    if (!m_prepared) {
        if (!ready(shot) || !prepare(shot))
            return;
        m_prepared = true;
        m_settleTicks = 0;
        return;
    }
    if (++m_settleTicks < kSettleTicks)
        return;
    take(shot);
    m_plan.removeFirst();
    m_prepared = false;
}

void ScreenshotPlan::take(const QString &shot)
{
    const QString path = QDir(m_dir).filePath(shot + u".png"_s);
    QDialog *dialog = nullptr;
    for (QDialog *d : m_window->findChildren<QDialog *>()) {
        if (d->isVisible())
            dialog = d;
    }
    // A dialog is its own window: the screen shows it over the main window as the operator sees it.
    const QPixmap pixmap = dialog ? m_window->screen()->grabWindow(0) : m_window->grab();
    if (dialog)
        dialog->reject();
    if (!pixmap.save(path)) {
        qCWarning(lcUi, "could not save %s", qPrintable(path));
    } else {
        qCInfo(lcUi, "saved %s (%dx%d)", qPrintable(path), pixmap.width(), pixmap.height());
    }
}

} // namespace Runwatch
