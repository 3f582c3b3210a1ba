// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "store/storelocation.h"

#include <QMainWindow>
#include <QPointer>

class QLabel;
class QSplitter;
class QToolBar;

namespace Runwatch {

class ActionController;
class CommandPalettePopup;
class ConnectionRegistry;
class DetailPane;
class FilterBar;
class Notifier;
class RawEventRecorder;
class RunFilterProxy;
class RunListModel;
class RunHousekeeping;
class RunManager;
class RunTableView;
class UsageTotalsLabel;

// The cockpit: filter bar and run table on the left, the selected run's detail pane on the
// right, the operator's actions in the toolbar, menus and the table's context menu. Window
// geometry, column layout, splitter and filters are remembered in QSettings.
class MainWindow final : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(RunManager *manager, QWidget *parent = nullptr);
    ~MainWindow() override;

    void setConnectionRegistry(ConnectionRegistry *registry);
    void setNotifier(Notifier *notifier);
    // Shown permanently in the status bar (e.g. "Demo mode: runs are not saved").
    void setModeNote(const QString &note);

    // Selects a run, widening the filter if it hides the run; raises the window.
    bool activateRun(const QString &id);
    void openNewRunDialog();
    void openConnectionsDialog();
    // The remote runs of a connection (the filter's, else the first), to attach.
    void openBrowseRunsDialog();
    // Opens on `connection` (empty: the first); the Connections dialog asks for its own.
    void openBrowseRunsDialogOn(const QString &connection);
    // Settings › Prices…: the per-model price table (PricesDialog).
    void openPricesDialog();
    // Settings › Stuck Runs…: the stuck rule of the model's StuckRunWatcher (StuckRuleDialog).
    void openStuckRuleDialog();
    // Settings › Run Store…: this computer's file or a team's database (RunStoreDialog), for the
    // next start. `storeChoice` is the store this process opened and why (setStoreChoice).
    void openRunStoreDialog();
    void setStoreChoice(const StoreChoice &choice) { m_storeChoice = choice; }

    RunListModel *runModel() const { return m_model; }
    RunFilterProxy *proxy() const { return m_proxy; }
    RunTableView *table() const { return m_table; }
    FilterBar *filterBar() const { return m_filterBar; }
    DetailPane *detailPane() const { return m_detail; }
    ActionController *actions() const { return m_actions; }
    RunHousekeeping *housekeeping() const { return m_housekeeping; }
    QToolBar *toolBar() const { return m_toolBar; }
    RawEventRecorder *recorder() const { return m_recorder; }
    UsageTotalsLabel *usageTotals() const { return m_totals; }
    QAction *pricesAction() const { return m_pricesAction; }
    QAction *stuckRuleAction() const { return m_stuckRuleAction; }
    QAction *runStoreAction() const { return m_runStoreAction; }
    // View › Command Palette (Ctrl+K) and its popup, made when first opened.
    QAction *commandPaletteAction() const { return m_paletteAction; }
    CommandPalettePopup *commandPalette() const { return m_palette; }
    void openCommandPalette();

    void saveState() const;
    void restoreState();

Q_SIGNALS:
    // A run was started from the New Run dialog.
    void runStarted(const QString &id);

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void buildMenus();
    void onSelectionChanged();
    void updateEmptyState();
    void setRawLogVisible(bool visible);
    void refreshConnections();
    // Shrinks and moves the window until its frame lies on the available geometry of its
    // screen; true when it had to shrink.
    bool fitToScreen();

    QPointer<RunManager> m_manager;
    QPointer<ConnectionRegistry> m_registry;
    QPointer<Notifier> m_notifier;
    RunListModel *m_model = nullptr;
    RunFilterProxy *m_proxy = nullptr;
    RawEventRecorder *m_recorder = nullptr;
    RunTableView *m_table = nullptr;
    FilterBar *m_filterBar = nullptr;
    DetailPane *m_detail = nullptr;
    ActionController *m_actions = nullptr;
    RunHousekeeping *m_housekeeping = nullptr;
    QSplitter *m_splitter = nullptr;
    QToolBar *m_toolBar = nullptr;
    QAction *m_rawLogAction = nullptr;
    QAction *m_notifyAction = nullptr;
    QAction *m_connectionsAction = nullptr;
    QAction *m_browseAction = nullptr;
    QLabel *m_modeLabel = nullptr;
    UsageTotalsLabel *m_totals = nullptr;
    QAction *m_stuckRuleAction = nullptr;
    QAction *m_pricesAction = nullptr;
    QAction *m_runStoreAction = nullptr;
    StoreChoice m_storeChoice;
    QAction *m_paletteAction = nullptr;
    CommandPalettePopup *m_palette = nullptr;
};

} // namespace Runwatch
