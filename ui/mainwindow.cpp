// SPDX-License-Identifier: GPL-3.0-or-later
#include "mainwindow.h"

#include "actioncontroller.h"
#include "announcer.h"
#include "browserunsdialog.h"
#include "commandpalettepopup.h"
#include "connections/connectionregistry.h"
#include "connectionsdialog.h"
#include "detailpane.h"
#include "filterbar.h"
#include "icons.h"
#include "models/runfilterproxy.h"
#include "models/runlistmodel.h"
#include "newrundialog.h"
#include "notifier.h"
#include "pricesdialog.h"
#include "rawlogview.h"
#include "runhousekeeping.h"
#include "runstoredialog.h"
#include "runtableview.h"
#include "statusstyle.h"
#include "store/runstore.h"
#include "stuckruledialog.h"
#include "usagetotalslabel.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QGuiApplication>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// The status column fits the widest badge of the language in use ("Fehlgeschlagen" is longer
// than "Failed"); countdowns ("09:44 left") are narrower than that.
int statusColumnWidth(const QFont &font)
{
    int width = 128;
    for (int s = int(RunStatus::Unknown); s <= int(kLastRunStatus); ++s) {
        const BadgeStyle style = badgeStyle(RunStatus(s), false, false, false);
        width = std::max(width, badgeSize(style, font).width() + 12); // the delegate's margins
    }
    return width;
}
} // namespace

MainWindow::MainWindow(RunManager *manager, QWidget *parent)
    : QMainWindow(parent)
    , m_manager(manager)
{
    setObjectName(u"mainWindow"_s);
    setWindowTitle(u"Runwatch"_s);
    setWindowIcon(Icons::appIcon());
    setAccessibleName(u"Runwatch"_s);

    m_model = new RunListModel(manager, this);
    m_proxy = new RunFilterProxy(this);
    m_proxy->setSourceModel(m_model);
    m_recorder = new RawEventRecorder(manager, this);

    m_splitter = new QSplitter(Qt::Horizontal);
    m_splitter->setObjectName(u"mainSplitter"_s);
    m_splitter->setChildrenCollapsible(false);
    auto *left = new QWidget;
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->setSpacing(0);
    m_filterBar = new FilterBar;
    leftLayout->addWidget(m_filterBar);
    m_table = new RunTableView;
    m_table->setModel(m_proxy);
    m_table->sortByColumn(StartedColumn, Qt::DescendingOrder);
    leftLayout->addWidget(m_table, 1);
    m_splitter->addWidget(left);
    m_detail = new DetailPane(manager, m_recorder);
    m_detail->setObjectName(u"detailPane"_s);
    m_detail->setMinimumWidth(360);
    m_splitter->addWidget(m_detail);
    m_splitter->setStretchFactor(0, 3);
    m_splitter->setStretchFactor(1, 2);
    setCentralWidget(m_splitter);

    QHeaderView *header = m_table->horizontalHeader();
    header->resizeSection(StatusColumn, statusColumnWidth(m_table->font()));
    header->resizeSection(TitleColumn, 300);
    header->resizeSection(ConnectionColumn, 100);
    header->resizeSection(BackendColumn, 84);
    header->resizeSection(ModelColumn, 116);
    header->resizeSection(StartedColumn, 72);
    header->resizeSection(DurationColumn, 70);
    header->resizeSection(LastActivityColumn, 84);
    header->resizeSection(InputTokensColumn, 96);
    header->resizeSection(OutputTokensColumn, 100);
    header->resizeSection(CostColumn, 96);
    // Never narrower than the column's title with the sort arrow: translated titles are longer
    // (German "Zuletzt aktiv" for "Last activity").
    for (int c = 0; c < RunColumnCount; ++c) {
        if (c != TitleColumn)
            header->resizeSection(c, std::max(header->sectionSize(c), header->sectionSizeHint(c)));
    }
    // The title takes what the other columns leave, so the table always fills its width.
    header->setSectionResizeMode(TitleColumn, QHeaderView::Stretch);
    // Column chooser on the header's context menu; its choice is kept with the header state.
    for (int c = 0; c < RunColumnCount; ++c) {
        auto *toggle = new QAction(runColumnTitle(c), header);
        toggle->setObjectName(u"toggleColumn%1"_s.arg(c));
        toggle->setCheckable(true);
        toggle->setChecked(!runColumnHiddenByDefault(c));
        m_table->setColumnHidden(c, runColumnHiddenByDefault(c));
        toggle->setEnabled(c != StatusColumn && c != TitleColumn);
        connect(toggle, &QAction::toggled, this, [this, c](bool on) { m_table->setColumnHidden(c, !on); });
        header->addAction(toggle);
    }

    m_actions = new ActionController(manager, m_table, m_detail, this);
    connect(m_actions, &ActionController::newRunRequested, this, &MainWindow::openNewRunDialog);
    connect(m_actions, &ActionController::message, this,
            [this](const QString &text, int ms) { statusBar()->showMessage(text, ms); });
    m_table->addActions(m_actions->runActions());
    m_housekeeping = new RunHousekeeping(manager, m_table, this);
    connect(m_housekeeping, &RunHousekeeping::message, this,
            [this](const QString &text, int ms) { statusBar()->showMessage(text, ms); });
    m_table->addAction(m_housekeeping->exportAction());

    m_toolBar = addToolBar(tr("Actions"));
    m_toolBar->setObjectName(u"actionsToolBar"_s);
    m_toolBar->setMovable(false);
    m_toolBar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_toolBar->setIconSize(QSize(18, 18));
    m_toolBar->addAction(m_actions->newRunAction());
    m_toolBar->addSeparator();
    m_toolBar->addAction(m_actions->cancelAction());
    m_toolBar->addAction(m_actions->deleteAction());
    m_toolBar->addAction(m_actions->resumeAction());
    m_toolBar->addAction(m_actions->respondAction());
    m_toolBar->addAction(m_actions->followUpAction());
    m_toolBar->addAction(m_actions->copyAction());
    auto *spacer = new QWidget;
    spacer->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    m_toolBar->addWidget(spacer);
    buildMenus();
    m_toolBar->addAction(m_connectionsAction);
    // Toolbar buttons carry the actions' names for screen readers.
    for (QAction *a : m_toolBar->actions()) {
        if (QWidget *w = m_toolBar->widgetForAction(a))
            w->setAccessibleName(a->text().remove(u'&').remove(u"…"_s));
    }

    // The live region: what changed, for screen readers and at a glance. Permanent: a temporary
    // status message would hide a normal status bar widget.
    statusBar()->addPermanentWidget(new Announcer(manager, m_table));
    m_modeLabel = new QLabel;
    m_modeLabel->setObjectName(u"modeLabel"_s);
    statusBar()->addPermanentWidget(m_modeLabel);
    m_modeLabel->hide();
    m_totals = new UsageTotalsLabel(m_proxy, manager ? manager->prices() : nullptr);
    statusBar()->addPermanentWidget(m_totals);

    connect(m_filterBar, &FilterBar::categoryChanged, m_proxy, &RunFilterProxy::setCategory);
    connect(m_filterBar, &FilterBar::textChanged, m_proxy, &RunFilterProxy::setText);
    connect(m_filterBar, &FilterBar::searchSubmitted, m_proxy, &RunFilterProxy::refreshSearch);
    connect(m_proxy, &RunFilterProxy::searchChanged, m_filterBar, &FilterBar::setSearchState);
    if (manager)
        m_proxy->setStore(manager->store());
    connect(m_filterBar, &FilterBar::connectionChanged, m_proxy, &RunFilterProxy::setConnection);
    connect(m_proxy, &RunFilterProxy::filterChanged, this, &MainWindow::updateEmptyState);
    // Type-to-filter: letters typed in the list go to the search field; Esc (in either) clears it
    // and leaves the focus in the list.
    connect(m_table, &RunTableView::typedToFilter, m_filterBar, &FilterBar::typeIntoSearch);
    connect(m_table, &RunTableView::clearFilterRequested, this, [this] {
        if (!m_filterBar->text().isEmpty())
            m_filterBar->setText({});
    });
    connect(m_filterBar, &FilterBar::searchLeft, m_table,
            [this] { m_table->setFocus(Qt::ShortcutFocusReason); });
    connect(m_model, &RunListModel::countsChanged, this, [this] {
        m_filterBar->setCounts(m_model->counts());
        updateEmptyState();
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &MainWindow::onSelectionChanged);
    connect(m_proxy, &QAbstractItemModel::rowsRemoved, this, &MainWindow::onSelectionChanged);
    m_filterBar->setCounts(m_model->counts());
    refreshConnections();
    updateEmptyState();
    restoreState();
    m_table->setFocus();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_actions->newRunAction());
    m_connectionsAction = new QAction(Icons::themed(u"connections"_s, palette()), tr("&Connections…"), this);
    m_connectionsAction->setObjectName(u"actionConnections"_s);
    m_connectionsAction->setIconText(tr("Connections"));
    m_connectionsAction->setShortcut(QKeySequence(u"Ctrl+Shift+O"_s));
    m_connectionsAction->setToolTip(tr("Add, edit and test connections (Ctrl+Shift+O)"));
    connect(m_connectionsAction, &QAction::triggered, this, &MainWindow::openConnectionsDialog);
    file->addAction(m_connectionsAction);
    m_browseAction = new QAction(tr("&Browse Runs on Connection…"), this);
    m_browseAction->setObjectName(u"actionBrowseRuns"_s);
    m_browseAction->setShortcut(QKeySequence(u"Ctrl+Shift+B"_s));
    m_browseAction->setToolTip(
        tr("List the runs the service has, started here or elsewhere, and attach to them "
           "(Ctrl+Shift+B)"));
    connect(m_browseAction, &QAction::triggered, this, &MainWindow::openBrowseRunsDialog);
    file->addAction(m_browseAction);
    file->addSeparator();
    file->addAction(m_housekeeping->exportAction());
    file->addAction(m_housekeeping->removeOldAction());
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
    quit->setObjectName(u"actionQuit"_s);
    // The platform's Quit binding is empty on some (Windows, offscreen): Ctrl+Q everywhere.
    if (quit->shortcut().isEmpty())
        quit->setShortcut(QKeySequence(u"Ctrl+Q"_s));

    QMenu *run = menuBar()->addMenu(tr("&Run"));
    for (QAction *a : m_actions->runActions())
        run->addAction(a);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    QAction *search = view->addAction(tr("&Search Runs"), QKeySequence::Find, this,
                                      [this] { m_filterBar->focusSearch(); });
    search->setObjectName(u"actionSearch"_s);
    m_paletteAction = view->addAction(tr("&Command Palette…"), QKeySequence(u"Ctrl+K"_s), this,
                                      &MainWindow::openCommandPalette);
    m_paletteAction->setObjectName(u"actionCommandPalette"_s);
    m_paletteAction->setStatusTip(tr("Find any command or run by typing"));
    view->addAction(tr("Run &List"), QKeySequence(u"Ctrl+L"_s), this,
                    [this] { m_table->setFocus(Qt::ShortcutFocusReason); });
    view->addAction(tr("&Output"), QKeySequence(u"Ctrl+O"_s), this, [this] {
        m_detail->showOutputTab();
        m_detail->setFocus(Qt::ShortcutFocusReason);
    });
    view->addSeparator();
    m_rawLogAction = view->addAction(Icons::themed(u"raw-log"_s, palette()), tr("&Raw Event Log"));
    m_rawLogAction->setObjectName(u"actionRawLog"_s);
    m_rawLogAction->setCheckable(true);
    m_rawLogAction->setShortcut(QKeySequence(u"Ctrl+Shift+E"_s));
    m_rawLogAction->setStatusTip(tr("Record and show the typed events of each run (for debugging)"));
    connect(m_rawLogAction, &QAction::toggled, this, &MainWindow::setRawLogVisible);

    QMenu *settings = menuBar()->addMenu(tr("&Settings"));
    m_notifyAction
        = settings->addAction(Icons::themed(u"notifications"_s, palette()), tr("Desktop &Notifications"));
    m_notifyAction->setObjectName(u"actionNotifications"_s);
    m_notifyAction->setCheckable(true);
    m_notifyAction->setShortcut(QKeySequence(u"Ctrl+Shift+N"_s));
    m_notifyAction->setChecked(true);
    m_notifyAction->setStatusTip(tr("Notify when a run completes, fails or needs input"));
    connect(m_notifyAction, &QAction::toggled, this, [this](bool on) {
        if (m_notifier)
            m_notifier->setEnabled(on);
    });
    settings->addAction(m_housekeeping->retentionAction());
    m_pricesAction = settings->addAction(tr("&Prices…"));
    m_pricesAction->setObjectName(u"actionPrices"_s);
    m_pricesAction->setShortcut(QKeySequence(u"Ctrl+Shift+P"_s));
    m_pricesAction->setStatusTip(tr("Set the price of each model's tokens, to show what runs cost"));
    connect(m_pricesAction, &QAction::triggered, this, &MainWindow::openPricesDialog);
    m_stuckRuleAction = settings->addAction(tr("&Stuck Runs…"));
    m_stuckRuleAction->setObjectName(u"actionStuckRule"_s);
    m_stuckRuleAction->setShortcut(QKeySequence(u"Ctrl+Shift+S"_s));
    m_stuckRuleAction->setStatusTip(tr("Set when a live run without progress counts as stuck"));
    connect(m_stuckRuleAction, &QAction::triggered, this, &MainWindow::openStuckRuleDialog);
    m_runStoreAction = settings->addAction(tr("Run St&ore…"));
    m_runStoreAction->setObjectName(u"actionRunStore"_s);
    m_runStoreAction->setShortcut(QKeySequence(u"Ctrl+Shift+R"_s));
    m_runStoreAction->setStatusTip(tr("Keep runs on this computer or in a team's PostgreSQL database"));
    connect(m_runStoreAction, &QAction::triggered, this, &MainWindow::openRunStoreDialog);

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    QAction *about = help->addAction(tr("&About Runwatch"), QKeySequence::HelpContents, this, [this] {
        QMessageBox::about(this, tr("About Runwatch"),
                           tr("<h3>Runwatch %1</h3><p>A desktop cockpit for long-running AI background "
                              "runs.</p><p>Licensed under the GNU GPL version 3 or later.</p>")
                               .arg(QApplication::applicationVersion()));
    });
    about->setObjectName(u"actionAbout"_s);
}

void MainWindow::setConnectionRegistry(ConnectionRegistry *registry)
{
    m_registry = registry;
    if (registry)
        connect(registry, &ConnectionRegistry::changed, this, &MainWindow::refreshConnections);
    refreshConnections();
}

void MainWindow::setNotifier(Notifier *notifier)
{
    m_notifier = notifier;
    if (!notifier)
        return;
    notifier->setEnabled(m_notifyAction->isChecked());
    connect(notifier, &Notifier::runActivated, this, &MainWindow::activateRun);
    connect(notifier, &Notifier::answerRequested, m_actions, &ActionController::answerRun);
    connect(notifier, &Notifier::respondRequested, this, [this](const QString &id) {
        if (activateRun(id))
            m_actions->respondAction()->trigger();
    });
}

void MainWindow::setModeNote(const QString &note)
{
    m_modeLabel->setText(note);
    m_modeLabel->setVisible(!note.isEmpty());
}

void MainWindow::refreshConnections()
{
    QStringList names = m_manager ? m_manager->connectionNames() : QStringList();
    names.sort(Qt::CaseInsensitive);
    m_filterBar->setConnections(names);
    m_connectionsAction->setEnabled(m_registry != nullptr);
    m_browseAction->setEnabled(!names.isEmpty());
    m_actions->updateActions();
    updateEmptyState();
}

void MainWindow::updateEmptyState()
{
    if (m_model->rowCount() == 0) {
        if (m_manager && m_manager->connectionNames().isEmpty()) {
            m_table->setEmptyText(tr("No connections yet"),
                                  tr("Add one with File ▸ Connections… (Ctrl+Shift+O),\n"
                                     "or start Runwatch with --demo to try it out."));
        } else {
            m_table->setEmptyText(tr("No runs yet"), tr("Start one with New Run (Ctrl+N)."));
        }
    } else if (m_proxy->filter().category() == StatusCategory::Stuck && m_proxy->filter().text().isEmpty()) {
        m_table->setEmptyText(
            tr("No stuck runs"),
            tr("A live run is listed here when it makes no progress for several times\n"
               "its expected duration (the service's estimate, or the median of like runs)."));
    } else {
        m_table->setEmptyText(tr("No runs match"),
                              tr("Clear the search, or pick another status or connection."));
    }
}

void MainWindow::onSelectionChanged()
{
    m_detail->showRuns(m_table->selectedRunIds());
    m_actions->updateActions();
    m_housekeeping->updateActions();
}

void MainWindow::setRawLogVisible(bool visible)
{
    m_recorder->setEnabled(visible);
    m_detail->setRawLogVisible(visible);
}

void MainWindow::openCommandPalette()
{
    if (!m_palette) {
        m_palette = new CommandPalettePopup(m_model, this);
        connect(m_palette, &CommandPalettePopup::runChosen, this, &MainWindow::activateRun);
    }
    m_palette->popup();
}

bool MainWindow::activateRun(const QString &id)
{
    if (!m_manager || !m_manager->run(id))
        return false;
    if (!m_table->selectRun(id)) {
        m_filterBar->setCategory(StatusCategory::All);
        m_filterBar->setText({});
        m_filterBar->setConnection({});
        if (!m_table->selectRun(id))
            return false;
    }
    show();
    raise();
    activateWindow();
    m_table->setFocus();
    return true;
}

void MainWindow::openNewRunDialog()
{
    if (!m_manager)
        return;
    auto *dialog = new NewRunDialog(m_manager, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    if (!m_filterBar->connection().isEmpty())
        dialog->setConnection(m_filterBar->connection());
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const QString id = m_manager->startRun(dialog->connection(), dialog->request());
        activateRun(id);
        m_detail->showOutputTab();
        Q_EMIT runStarted(id);
    });
    dialog->open();
}

void MainWindow::openConnectionsDialog()
{
    if (!m_registry)
        return;
    auto *dialog = new ConnectionsDialog(m_registry, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &ConnectionsDialog::browseRequested, this, &MainWindow::openBrowseRunsDialogOn);
    dialog->open();
}

void MainWindow::openBrowseRunsDialog()
{
    openBrowseRunsDialogOn(m_filterBar->connection());
}

void MainWindow::openBrowseRunsDialogOn(const QString &connection)
{
    if (!m_manager || m_manager->connectionNames().isEmpty())
        return;
    auto *dialog = new BrowseRunsDialog(m_manager, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    if (!connection.isEmpty())
        dialog->setConnection(connection);
    connect(dialog, &BrowseRunsDialog::attached, this, [this](const QStringList &ids) {
        if (!ids.isEmpty())
            activateRun(ids.first());
    });
    dialog->open();
}

void MainWindow::openPricesDialog()
{
    if (!m_manager)
        return;
    auto *dialog = new PricesDialog(m_manager, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this] {
        // The operator just asked for costs: show them where they were hidden.
        if (m_manager && !m_manager->prices()->table().isEmpty() && m_table->isColumnHidden(CostColumn))
            m_table->horizontalHeader()->actions().at(CostColumn)->setChecked(true);
    });
    dialog->open();
}

void MainWindow::openRunStoreDialog()
{
    KeyStore *keychain = m_registry ? m_registry->storeFor(KeyStorage::Keychain) : nullptr;
    auto *dialog = new RunStoreDialog(m_storeChoice, keychain, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &RunStoreDialog::saved, this, [this](const StoreLocation &location) {
        // Opened at the next start, not now: the run list, the followed streams, the saved
        // connections and the history window all belong to the open store, and moving them
        // mid-stream could lose a write on one side or follow a run twice.
        const bool team = location.kind == StoreLocation::Kind::TeamDatabase;
        const QString where = !team                     ? QDir::toNativeSeparators(location.toLocation())
                              : location.host.isEmpty() ? location.service
                                                        : location.host + u'/' + location.database;
        statusBar()->showMessage(
            tr("Run store saved (%1): Runwatch opens it when it starts next.").arg(where), 20000);
    });
    dialog->open();
}

void MainWindow::openStuckRuleDialog()
{
    StuckRunWatcher *watcher = m_model->stuckWatcher();
    if (!watcher)
        return;
    auto *dialog = new StuckRuleDialog(watcher->policy(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        StuckRunWatcher *w = m_model->stuckWatcher();
        if (!w)
            return;
        const StuckPolicy policy = dialog->policy();
        // Saved for the CLI and the next start; a store that refuses leaves the rule as it was.
        if (m_manager && m_manager->store() && !policy.save(m_manager->store())) {
            statusBar()->showMessage(
                tr("The stuck rule could not be saved: %1").arg(m_manager->store()->errorString()), 10000);
            return;
        }
        w->setPolicy(policy);
    });
    dialog->open();
}

void MainWindow::saveState() const
{
    QSettings s;
    s.setValue(u"window/geometry"_s, saveGeometry());
    s.setValue(u"window/state"_s, QMainWindow::saveState());
    s.setValue(u"window/splitter"_s, m_splitter->saveState());
    s.setValue(u"runTable/header"_s, m_table->horizontalHeader()->saveState());
    // How many columns that state knows: columns added later get their defaults on restore.
    s.setValue(u"runTable/columns"_s, int(RunColumnCount));
    s.setValue(u"filter/category"_s, categoryName(m_filterBar->category()));
    s.setValue(u"filter/text"_s, m_filterBar->text());
    s.setValue(u"filter/connection"_s, m_filterBar->connection());
    s.setValue(u"view/rawLog"_s, m_rawLogAction->isChecked());
    s.setValue(u"notifications/enabled"_s, m_notifyAction->isChecked());
}

void MainWindow::restoreState()
{
    QSettings s;
    if (!restoreGeometry(s.value(u"window/geometry"_s).toByteArray())) {
        // The first window fits the screen it opens on (a 1366x768 or 1280x720 laptop included);
        // where the preferred size does not fit, it opens maximized.
        QRect preferred(QPoint(0, 0), QSize(1440, 860));
        if (const QScreen *display = screen())
            preferred.moveCenter(display->availableGeometry().center());
        setGeometry(preferred);
        if (fitToScreen())
            setWindowState(windowState() | Qt::WindowMaximized);
    } else if (!(windowState() & (Qt::WindowMaximized | Qt::WindowFullScreen))) {
        // Saved on a bigger screen, or a screen since gone: Qt restores it as it was.
        fitToScreen();
    }
    QMainWindow::restoreState(s.value(u"window/state"_s).toByteArray());
    const QByteArray splitter = s.value(u"window/splitter"_s).toByteArray();
    if (splitter.isEmpty() || !m_splitter->restoreState(splitter))
        m_splitter->setSizes({900, 540});
    QHeaderView *header = m_table->horizontalHeader();
    const QByteArray headerState = s.value(u"runTable/header"_s).toByteArray();
    if (!headerState.isEmpty() && header->restoreState(headerState)) {
        // A state saved before some columns existed (eight before the usage columns; no count
        // was saved then) shows those columns as Qt appends them, visible and of the default
        // width: give them their own defaults instead.
        const int known = std::clamp(s.value(u"runTable/columns"_s, int(InputTokensColumn)).toInt(), 0,
                                     int(RunColumnCount));
        for (int c = known; c < RunColumnCount; ++c) {
            m_table->setColumnHidden(c, runColumnHiddenByDefault(c));
            header->resizeSection(c, std::max(header->sectionSize(c), 84));
        }
    }
    // Status and title cannot be hidden (their actions are disabled): a state that hid them
    // (hand-edited, or from a build that allowed it) would leave no way back.
    m_table->setColumnHidden(StatusColumn, false);
    m_table->setColumnHidden(TitleColumn, false);
    const QList<QAction *> toggles = header->actions();
    for (int c = 0; c < toggles.size(); ++c)
        toggles.at(c)->setChecked(!m_table->isColumnHidden(c));
    m_filterBar->setCategory(categoryFromName(s.value(u"filter/category"_s).toString()));
    const QString text = s.value(u"filter/text"_s).toString();
    if (!text.isEmpty())
        m_filterBar->setText(text);
    m_filterBar->setConnection(s.value(u"filter/connection"_s).toString());
    m_rawLogAction->setChecked(s.value(u"view/rawLog"_s, false).toBool());
    m_notifyAction->setChecked(s.value(u"notifications/enabled"_s, true).toBool());
}

bool MainWindow::fitToScreen()
{
    const QScreen *display = QGuiApplication::screenAt(geometry().center());
    if (!display)
        display = screen();
    if (!display)
        return false;
    const QRect available = display->availableGeometry();
    // Before the window is shown its frame is unknown: leave room for a usual one (borders, and
    // a title bar on top).
    const QMargins frame(8, 40, 8, 8);
    const QRect room = available.marginsRemoved(frame);
    QRect g = geometry();
    const bool shrunk = g.width() > room.width() || g.height() > room.height();
    g.setSize(g.size().boundedTo(room.size()).expandedTo(minimumSizeHint().boundedTo(room.size())));
    // Keep the whole frame on the screen.
    g.moveLeft(std::clamp(g.left(), room.left(), room.right() + 1 - g.width()));
    g.moveTop(std::clamp(g.top(), room.top(), room.bottom() + 1 - g.height()));
    setGeometry(g);
    return shrunk;
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    // What the store could not take yet lives only in this process: one more try, then the
    // operator decides (a full disk can be cleared while Runwatch waits).
    if (RunStore *store = m_manager ? m_manager->store() : nullptr; store && !store->writeError().isEmpty()) {
        store->flush();
        if (!store->writeError().isEmpty()) {
            QMessageBox box(QMessageBox::Warning, tr("Runs not saved"),
                            tr("The latest output of some runs could not be saved to %1: %2.\n\nIf you quit "
                               "now, it is lost. Free disk space or close what holds the file, then quit "
                               "again.")
                                .arg(QDir::toNativeSeparators(store->path()), store->writeError()),
                            QMessageBox::NoButton, this);
            box.setTextFormat(Qt::PlainText);
            QPushButton *quit = box.addButton(tr("Quit Anyway"), QMessageBox::DestructiveRole);
            QPushButton *stay = box.addButton(tr("Keep Runwatch Open"), QMessageBox::RejectRole);
            box.setDefaultButton(stay);
            box.setEscapeButton(stay);
            box.exec();
            if (box.clickedButton() != quit) {
                event->ignore();
                return;
            }
        }
    }
    saveState();
    QMainWindow::closeEvent(event);
}

} // namespace Runwatch
