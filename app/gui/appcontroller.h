// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "engine/runmanager.h"
#include "store/runstore.h"

#include "mainwindow.h"

#include <QObject>
#include <QPointer>
#include <QTemporaryDir>

#include <memory>

class QSystemTrayIcon;

namespace Runwatch {

class ConnectionRegistry;
class DeadlineWatcher;
class DemoMode;
class HistoryWindow;
class Notifier;
class KeyStore;
class StartupTrace;
class StuckRunWatcher;
class TrayStatus;

struct AppOptions
{
    bool demo = false; // --demo: the embedded simulators even when connections exist
    QString storePath; // --store PATH
    QString palette;   // --palette light|dark (default: the platform's)
    bool showHelp = false;
    bool showVersion = false;
    QString error; // a bad command line
};

// Builds the desktop app: engine, store, connection profiles and keys, notifications, the
// window, and the embedded demo on first launch (or with --demo).
class AppController final : public QObject
{
    Q_OBJECT
public:
    explicit AppController(AppOptions options, QObject *parent = nullptr);
    ~AppController() override;

    static AppOptions parseArguments(const QStringList &arguments);
    static QString usage();
    // Fusion with a dark or light palette; anything else keeps the platform look.
    static void applyPalette(const QString &name);

    // Creates and shows the window. False (with *error) only for fatal problems.
    bool start(QString *error = nullptr);

    RunManager *manager() { return &m_manager; }
    MainWindow *window() const { return m_window; }
    DemoMode *demo() const { return m_demo; }
    bool isDemo() const { return m_demo != nullptr; }
    // The user's store (open or not) and why it is that one (--store, RUNWATCH_STORE, Settings ›
    // Run Store…, or the default file).
    RunStore *store() { return &m_store; }
    StoreChoice storeChoice() const { return m_storeChoice; }

private:
    // Stuck runs and deadlines: the core rules, their notifications, their badges.
    void setUpRunWatchers();
    void startDemo();
    void loadSavedRuns(const QStringList &problems);
    void historyLoaded();

    // A few screenfuls of finished runs besides the live ones; the rest is read as it is scrolled to.
    static constexpr int kFirstHistoryPage = 500;

    AppOptions m_options;
    StoreChoice m_storeChoice;
    // Declared before the manager: it flushes into its store when it is destroyed.
    RunStore m_store; // the user's runs and connection profiles
    std::unique_ptr<QTemporaryDir> m_demoStoreDir;
    std::unique_ptr<RunStore> m_demoStore; // demo mode: the runs, thrown away at exit
    RunManager m_manager;
    KeyStore *m_keychain = nullptr;
    ConnectionRegistry *m_registry = nullptr;
    Notifier *m_notifier = nullptr;
    StuckRunWatcher *m_stuck = nullptr;
    DeadlineWatcher *m_deadlines = nullptr;
    QSystemTrayIcon *m_tray = nullptr;
    TrayStatus *m_trayStatus = nullptr;
    DemoMode *m_demo = nullptr;
    StartupTrace *m_startupTrace = nullptr;
    HistoryWindow *m_history = nullptr; // which stored runs the manager holds
    QPointer<MainWindow> m_window;
};

} // namespace Runwatch
