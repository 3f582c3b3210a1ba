// SPDX-License-Identifier: GPL-3.0-or-later
#include "appcontroller.h"

#include "connections/connectionregistry.h"
#include "connections/keystore.h"
#include "demomode.h"
#include "engine/retention.h"
#include "engine/rundeadlines.h"
#include "engine/stuckruns.h"
#include "icons.h"
#include "mainwindow.h"
#include "models/historywindow.h"
#include "models/runlistmodel.h"
#include "notifier.h"
#include "runtableview.h"
#include "screenshotplan.h"
#include "startuptrace.h"
#include "store/storeengine.h"
#include "store/storelocation.h"
#include "traystatus.h"

#include <QApplication>
#include <QDBusConnection>
#include <QMessageBox>
#include <QPointer>
#include <QStatusBar>
#include <QStyle>
#include <QStyleFactory>
#include <QSystemTrayIcon>
#include <QTimer>

#include <algorithm>
#include <functional>
#include <utility>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

// The rest of the history's start (HistoryWindow::completeStart) comes after the list's first
// paint, or after this long at the latest.
constexpr int kCompleteStartAfterMs = 1000;

// Calls `then` once, a turn or two of the event loop after `widget` first painted (the paint is on
// the screen by then), unless `context` went first.
class AfterFirstPaint final : public QObject
{
public:
    AfterFirstPaint(QWidget *widget, QObject *context, std::function<void()> then)
        : QObject(widget)
        , m_context(context)
        , m_then(std::move(then))
    {
        widget->installEventFilter(this);
    }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Paint && m_then) {
            // Two turns on: what the paint itself posted for the next one (the startup trace's
            // report of it) goes first.
            if (m_context) {
                QTimer::singleShot(0, m_context, [context = m_context, then = std::exchange(m_then, {})] {
                    if (context)
                        QTimer::singleShot(0, context, then);
                });
            }
            watched->removeEventFilter(this);
            deleteLater();
        }
        return QObject::eventFilter(watched, event);
    }

private:
    QPointer<QObject> m_context;
    std::function<void()> m_then;
};

void afterFirstPaint(QWidget *widget, QObject *context, std::function<void()> then)
{
    new AfterFirstPaint(widget, context, std::move(then));
}

} // namespace

AppController::AppController(AppOptions options, QObject *parent)
    : QObject(parent)
    , m_options(std::move(options))
{}

AppController::~AppController()
{
    // The history window reads into the engine: it goes first.
    delete std::exchange(m_history, nullptr);
    delete m_window;
    // End every stream and request while the connectors, the store and the keychain are alive,
    // and let their coroutines unwind before anything they touch goes (RunManager::shutdown).
    m_manager.shutdown();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
}

AppOptions AppController::parseArguments(const QStringList &arguments)
{
    AppOptions o;
    for (qsizetype i = 1; i < arguments.size(); ++i) {
        const QString &a = arguments.at(i);
        if (a == u"--demo") {
            o.demo = true;
        } else if (a == u"--store" || a == u"--palette") {
            if (i + 1 >= arguments.size()) {
                o.error = tr("%1 needs a value").arg(a);
                return o;
            }
            (a == u"--store" ? o.storePath : o.palette) = arguments.at(++i);
        } else if (a == u"--help" || a == u"-h") {
            o.showHelp = true;
        } else if (a == u"--version" || a == u"-v") {
            o.showVersion = true;
        } else if (a.startsWith(u"-platform"_s) || a.startsWith(u"-style"_s)) {
            ++i; // Qt's own options with a value (QApplication left them when unknown)
        } else {
            o.error = tr("unknown argument %1").arg(a);
            return o;
        }
    }
    if (!o.palette.isEmpty() && o.palette != u"dark" && o.palette != u"light")
        o.error = tr("--palette takes light or dark");
    return o;
}

QString AppController::usage()
{
    return tr("Usage: runwatch [--demo] [--store PATH|URL] [--palette light|dark]\n\n"
              "  --demo            start the built-in simulators and demo runs (the default on first\n"
              "                    launch, when no connection is saved); demo runs are not saved\n"
              "  --store PATH|URL  run store: a file, or postgresql://user@host:port/database for a\n"
              "                    team's (default: $RUNWATCH_STORE, else Settings > Run Store...,\n"
              "                    else the platform data directory)\n"
              "  --palette NAME    light or dark colours (Fusion style)\n"
              "  --version         print the version\n");
}

void AppController::applyPalette(const QString &name)
{
    if (name != u"dark" && name != u"light")
        return;
    QApplication::setStyle(QStyleFactory::create(u"Fusion"_s));
    if (name == u"light") {
        QApplication::setPalette(QApplication::style()->standardPalette());
        return;
    }
    QPalette p;
    const QColor window(0x25, 0x28, 0x2d);
    const QColor base(0x1b, 0x1d, 0x21);
    const QColor text(0xe6, 0xe8, 0xeb);
    const QColor muted(0x8f, 0x96, 0xa0);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x22, 0x25, 0x2a));
    p.setColor(QPalette::ToolTipBase, QColor(0x30, 0x34, 0x3a));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, muted);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, QColor(0x2f, 0x33, 0x39));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::white);
    p.setColor(QPalette::Highlight, QColor(0x2f, 0x6f, 0xdb));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x6c, 0xb0, 0xff));
    p.setColor(QPalette::Mid, QColor(0x45, 0x4a, 0x52));
    p.setColor(QPalette::Dark, QColor(0x15, 0x17, 0x1a));
    p.setColor(QPalette::Light, QColor(0x3a, 0x3f, 0x46));
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, QColor(0x6b, 0x71, 0x7a));
    QApplication::setPalette(p);
}

bool AppController::start(QString *error)
{
    // --store, else RUNWATCH_STORE, else Settings › Run Store…, else this computer's file.
    m_storeChoice = chooseStore(m_options.storePath, true);
    const QString storePath = m_storeChoice.location;
    m_keychain = new KeychainKeyStore(false, this);
    if (m_storeChoice.source == StoreChoice::Source::Settings
        && detail::StoreEngine::isDatabaseUrl(storePath)) {
        // The team database's password, if one was saved in the keychain with the choice. Read
        // before the store opens (its writer connects with it too), and waited
        // for: nothing can start before the store is open, and no window exists yet to freeze.
        // None saved: libpq's own conventions (~/.pgpass, PGPASSWORD, a service file).
        const KeyStore::Result password
            = QCoro::waitFor(m_keychain->read(StoreLocation::fromSettings().keychainAccount()));
        if (password.ok())
            setStorePassword(storePath, password.secret);
    }
    QString storeProblem;
    if (!m_store.open(storePath))
        storeProblem = tr("Runs and connections are not saved: %1").arg(m_store.errorString());
    const bool demo = m_options.demo || !ConnectionRegistry::hasSavedProfiles(&m_store);
    if (demo) {
        // Demo runs live on an in-process server that dies with the app: never keep them.
        m_demoStoreDir = std::make_unique<QTemporaryDir>();
        m_demoStore = std::make_unique<RunStore>();
        if (m_demoStore->open(m_demoStoreDir->filePath(u"demo-runs.sqlite"_s)))
            m_manager.setStore(m_demoStore.get());
    } else if (m_store.isOpen()) {
        m_manager.setStore(&m_store);
    }

    m_registry = new ConnectionRegistry(&m_manager, m_keychain, m_store.isOpen() ? &m_store : nullptr, this);
    m_notifier = new Notifier(&m_manager, this);
    if (QSystemTrayIcon::isSystemTrayAvailable()) {
        // Where the desktop has a tray: the count of runs that need a person and a menu of them;
        // its balloon is also the notifications' fallback when no notification service answers
        // on D-Bus (the Notifier uses it only then).
        m_tray = new QSystemTrayIcon(Icons::appIcon(), this);
        m_trayStatus = new TrayStatus(&m_manager, m_tray, this);
        m_tray->show();
        m_notifier->setTrayIcon(m_tray);
    }

    setUpRunWatchers();

    m_window = new MainWindow(&m_manager);
    m_window->runModel()->setWatchers(m_stuck, m_deadlines);
    m_window->setConnectionRegistry(m_registry);
    m_window->setStoreChoice(m_storeChoice);
    m_window->setNotifier(m_notifier);
    if (m_tray) {
        const auto showWindow = [this] {
            m_window->showNormal();
            m_window->raise();
            m_window->activateWindow();
        };
        // A left click shows the window; the context menu (TrayStatus) lists what needs you.
        connect(m_tray, &QSystemTrayIcon::activated, m_window.data(),
                [showWindow](QSystemTrayIcon::ActivationReason why) {
                    if (why == QSystemTrayIcon::Trigger || why == QSystemTrayIcon::DoubleClick)
                        showWindow();
                });
        connect(m_trayStatus, &TrayStatus::showWindowRequested, m_window.data(), showWindow);
        connect(m_trayStatus, &TrayStatus::runActivated, m_window.data(), &MainWindow::activateRun);
        connect(m_trayStatus, &TrayStatus::quitRequested, m_window.data(), &MainWindow::close);
    }
    m_startupTrace = StartupTrace::installIfRequested(m_window, &m_manager, this);
    m_window->show();
    if (!storeProblem.isEmpty())
        m_window->statusBar()->showMessage(storeProblem, 15000);
    // Until the store takes writes again the message stays: what arrives meanwhile lives only in
    // this process.
    connect(&m_store, &RunStore::writeErrorChanged, this, [this](const QString &error) {
        if (!m_window)
            return; // the app is closing: the store's last flush reports to no one
        if (error.isEmpty()) {
            m_window->statusBar()->showMessage(tr("The run store can be written again: every run is saved."),
                                               10000);
            return;
        }
        m_window->statusBar()->showMessage(
            tr("Runs not saved: %1. They are kept in memory and saved when the store can be written.")
                .arg(error));
    });
    // A team store's server connection (PostgreSQL): lost and being made again, or back.
    connect(&m_store, &RunStore::connectionChanged, this, [this](bool connected, const QString &why) {
        if (!m_window)
            return;
        if (connected) {
            m_window->statusBar()->showMessage(tr("Connected to the run store again."), 10000);
            return;
        }
        m_window->statusBar()->showMessage(why);
    });

    if (demo) {
        startDemo();
    } else {
        QCoro::connect(m_registry->load(), this,
                       [this](const QStringList &problems) { loadSavedRuns(problems); });
    }
    if (auto *plan = ScreenshotPlan::fromEnvironment(m_window, &m_manager, m_demo, this))
        plan->start();
    Q_UNUSED(error)
    return true;
}

void AppController::startDemo()
{
    m_demo = new DemoMode(this);
    QString why;
    if (!m_demo->startSimulators(&why)) {
        QMessageBox::warning(m_window, tr("Demo Unavailable"), why);
        delete m_demo;
        m_demo = nullptr;
        return;
    }
    for (const Connection &c : m_demo->connections())
        m_registry->addTransient(c);
    m_window->setModeNote(m_demo->modeNote());
    connect(m_demo, &DemoMode::seeded, this, [this] {
        if (m_window)
            m_window->activateRun(m_demo->streamingRunId());
    });
    m_demo->seed(&m_manager);
}

void AppController::loadSavedRuns(const QStringList &problems)
{
    // Adopt every stored run; follow the unfinished ones whose connection still exists. Finished
    // runs come without their output, which the detail pane loads when one is selected.
    // Retention before loading: expired runs are never adopted, so the list never shows them.
    QStringList notes = problems;
    if (const int days = Retention::keepDays(); days > 0 && m_store.isOpen()) {
        const int removed = Retention::removeFinishedBefore(&m_manager, &m_store, Retention::cutoffFor(days));
        if (removed > 0)
            notes << tr("Removed %n finished run(s) older than %1 day(s).", nullptr, removed).arg(days);
    }
    if (!notes.isEmpty() && m_window)
        m_window->statusBar()->showMessage(notes.join(u"  "_s), 20000);
    // The newest runs and every live run; older runs are read a page at a time when the list is
    // scrolled to its end (HistoryWindow), so a ledger of a million runs starts as fast and as
    // small as one of a thousand (README "A year of a team's history").
    if (!m_store.isOpen()) {
        historyLoaded();
        return;
    }
    m_history = new HistoryWindow(&m_manager, &m_store, this);
    m_history->start(kFirstHistoryPage);
    if (m_window)
        m_window->runModel()->setHistory(m_history);
    // The newest page is the first screenful; the older live runs and the filter bar's counts of
    // the runs not held (a walk of a million rows' status index, on a thread) come after it has
    // painted, or a moment later for a window that does not paint soon (kept in the tray).
    const auto complete = [this] {
        if (!m_history || m_history->startCompleted())
            return;
        m_history->completeStart();
        historyLoaded();
    };
    if (m_window) {
        m_window->runModel()->endBulkLoad();
        afterFirstPaint(m_window->table()->viewport(), this, complete);
    }
    QTimer::singleShot(kCompleteStartAfterMs, this, complete);
}

void AppController::historyLoaded()
{
    // The list model inserts a bulk load a few times a second; the last part need not wait.
    if (m_window)
        m_window->runModel()->endBulkLoad();
    if (m_startupTrace)
        m_startupTrace->historyLoaded();
}

void AppController::setUpRunWatchers()
{
    m_stuck = new StuckRunWatcher(&m_manager, this);
    m_deadlines = new DeadlineWatcher(&m_manager, this);
    m_notifier->watch(m_stuck, m_deadlines);
}

} // namespace Runwatch
