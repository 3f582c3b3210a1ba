// SPDX-License-Identifier: GPL-3.0-or-later
// File ▸ Browse Runs on Connection… against the A2A simulator: two tasks started by another
// client (runwatch-cli processes on a store of their own) are listed by ListTasks with their
// status and title, a task this app already follows is marked and cannot be attached twice,
// and attaching the two by multi-selection adds them to the run list and follows them to the
// end. A jobs API's listing does the same for a job another client started. OpenAI, which has
// no listing, says so and attaches by response id.
#include "browserunsdialog.h"
#include "cliprocess.h"
#include "connections/connectionregistry.h"
#include "connectionsdialog.h"
#include "mainwindow.h"
#include "models/runlistmodel.h"
#include "runtableview.h"
#include "uitesthelpers.h"

#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTreeWidget>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;

namespace {
constexpr int kWait = 30000;
} // namespace

class TestBrowseRuns final : public QObject
{
    Q_OBJECT

    std::unique_ptr<Engine> m_engine;
    std::unique_ptr<MainWindow> m_window;
    std::unique_ptr<QTemporaryDir> m_dir;

    // A second client that knows nothing of this app: runwatch-cli on a store of its own.
    QString startElsewhere(const QString &prompt, const QString &backend = u"a2a"_s)
    {
        const bool jobs = backend == u"jobs";
        const QStringList args{
            u"--backend"_s, backend,
            u"--url"_s,     (jobs ? m_engine->jobs.baseUrl() : m_engine->a2a.baseUrl()).toString(),
            u"--store"_s,   m_dir->filePath(u"other.sqlite"_s),
            u"--json"_s,    u"start"_s,
            u"--prompt"_s,  prompt};
        const RunwatchTest::CliResult r = RunwatchTest::runCli(args, this);
        if (r.exitCode != 0) {
            qWarning("runwatch-cli: %s", r.err.constData());
            return {};
        }
        return jobs ? m_engine->jobs.lastJobId() : m_engine->a2a.lastTaskId();
    }

    BrowseRunsDialog *openDialog(const QString &connection)
    {
        QAction *browse = m_window->findChild<QAction *>(u"actionBrowseRuns"_s);
        if (!browse || !browse->isEnabled())
            return nullptr;
        browse->trigger();
        auto *dialog = findTopLevel<BrowseRunsDialog>();
        if (dialog)
            dialog->setConnection(connection);
        return dialog;
    }

    static QTreeWidgetItem *itemFor(BrowseRunsDialog *dialog, const QString &remoteId)
    {
        const QList<QTreeWidgetItem *> found
            = dialog->runList()->findItems(remoteId, Qt::MatchExactly, BrowseRunsDialog::IdColumn);
        return found.value(0);
    }

private Q_SLOTS:
    void initTestCase() { isolateSettings(); }

    void init()
    {
        QSettings().clear();
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        m_engine = std::make_unique<Engine>();
        m_window = std::make_unique<MainWindow>(&m_engine->manager);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    void cleanup()
    {
        m_window.reset();
        if (m_engine)
            Engine::stopAll(&m_engine->manager);
        m_engine.reset();
        m_dir.reset();
    }

    void browseAndAttachTwoA2aTasks()
    {
        // One task this app started itself: listed too, but marked as attached.
        const QString own = m_engine->start(kA2a, u"normal chunks=200 interval_ms=20"_s);
        QTRY_VERIFY_WITH_TIMEOUT(!m_engine->manager.run(own)->remoteId.isEmpty(), kWait);
        const QString ownRemote = m_engine->manager.run(own)->remoteId;

        const QString first = startElsewhere(u"first elsewhere chunks=60 interval_ms=30"_s);
        QVERIFY(!first.isEmpty());
        const QString second = startElsewhere(u"second elsewhere chunks=60 interval_ms=30"_s);
        QVERIFY(!second.isEmpty());
        QVERIFY(first != second);
        QTRY_VERIFY_WITH_TIMEOUT(!m_engine->a2a.task(first)->text.isEmpty(), kWait);
        QTRY_VERIFY_WITH_TIMEOUT(!m_engine->a2a.task(second)->text.isEmpty(), kWait);
        QCOMPARE(m_engine->manager.runIds().size(), 1);

        BrowseRunsDialog *dialog = openDialog(kA2a);
        QVERIFY(dialog);
        QCOMPARE(dialog->connection(), kA2a);
        QTRY_VERIFY_WITH_TIMEOUT(!dialog->isLoading() && itemFor(dialog, second), kWait);
        QVERIFY(m_engine->a2a.requestCount(u"ListTasks"_s) >= 1);

        QTreeWidgetItem *a = itemFor(dialog, first);
        QTreeWidgetItem *b = itemFor(dialog, second);
        QTreeWidgetItem *mine = itemFor(dialog, ownRemote);
        QVERIFY(a && b && mine);
        QCOMPARE(a->text(BrowseRunsDialog::TitleColumn), u"first elsewhere chunks=60 interval_ms=30"_s);
        QCOMPARE(b->text(BrowseRunsDialog::TitleColumn), u"second elsewhere chunks=60 interval_ms=30"_s);
        QVERIFY(!a->text(BrowseRunsDialog::StatusColumn).isEmpty());
        QVERIFY(a->text(BrowseRunsDialog::LocalColumn).isEmpty());
        // The run this app follows is marked and cannot be selected.
        QVERIFY(!mine->text(BrowseRunsDialog::LocalColumn).isEmpty());
        QVERIFY(!(mine->flags() & Qt::ItemIsSelectable));
        QVERIFY(dialog->messageLabel()->text().contains(u"attached"_s));

        QVERIFY(!dialog->attachButton()->isEnabled());
        dialog->runList()->selectAll();
        QCOMPARE(dialog->runList()->selectedItems().size(), dialog->runList()->topLevelItemCount() - 1);
        QVERIFY(!mine->isSelected());
        // Only the two tasks of the other client (the simulator has no others).
        QCOMPARE(dialog->runList()->topLevelItemCount(), 3);
        QVERIFY(dialog->attachButton()->isEnabled());
        QTest::mouseClick(dialog->attachButton(), Qt::LeftButton);
        QTRY_VERIFY(!dialog->isVisible());

        // Both joined the list and are followed to the end with the whole text.
        QCOMPARE(m_engine->manager.runIds().size(), 3);
        const Run *ra = m_engine->manager.findRun(first);
        const Run *rb = m_engine->manager.findRun(second);
        QVERIFY(ra && rb);
        QCOMPARE(ra->connection, kA2a);
        QCOMPARE(ra->title, u"first elsewhere chunks=60 interval_ms=30"_s);
        QVERIFY(m_window->runModel()->rowOf(ra->localId) >= 0);
        QVERIFY(m_window->runModel()->rowOf(rb->localId) >= 0);
        const QString ida = ra->localId;
        const QString idb = rb->localId;
        QTRY_COMPARE_WITH_TIMEOUT(m_engine->status(ida), RunStatus::Completed, kWait);
        QTRY_COMPARE_WITH_TIMEOUT(m_engine->status(idb), RunStatus::Completed, kWait);
        QCOMPARE(m_engine->manager.run(ida)->primaryText, RunwatchSim::A2aSimulator::chunkText(60));
        QCOMPARE(m_engine->manager.run(idb)->primaryText, RunwatchSim::A2aSimulator::chunkText(60));
        QCOMPARE(m_engine->a2a.tasksCreated(), 3);

        // Browsing again: all three are marked; typing an attached id attaches nothing twice.
        dialog = openDialog(kA2a);
        QVERIFY(dialog);
        QTRY_VERIFY_WITH_TIMEOUT(!dialog->isLoading() && itemFor(dialog, first), kWait);
        for (const QString &remote : {first, second, ownRemote})
            QVERIFY(!(itemFor(dialog, remote)->flags() & Qt::ItemIsSelectable));
        dialog->idEdit()->setText(first);
        QVERIFY(dialog->attachSelected().isEmpty());
        QVERIFY(dialog->messageLabel()->text().contains(first));
        QCOMPARE(m_engine->manager.runIds().size(), 3);
        dialog->reject();
    }

    // A jobs API's listing: the job another client started is listed with its status, attached
    // and followed to the end with the whole text.
    void browseAndAttachAJob()
    {
        const QString job = startElsewhere(u"normal deltas=40 interval_ms=20"_s, u"jobs"_s);
        QVERIFY(!job.isEmpty());
        BrowseRunsDialog *dialog = openDialog(kJobs);
        QVERIFY(dialog);
        QTRY_VERIFY_WITH_TIMEOUT(!dialog->isLoading() && itemFor(dialog, job), kWait);
        QTreeWidgetItem *item = itemFor(dialog, job);
        QVERIFY(!item->text(BrowseRunsDialog::StatusColumn).isEmpty());
        QVERIFY(item->text(BrowseRunsDialog::LocalColumn).isEmpty());
        QVERIFY(item->flags() & Qt::ItemIsSelectable);
        item->setSelected(true);
        QVERIFY(dialog->attachButton()->isEnabled());
        QTest::mouseClick(dialog->attachButton(), Qt::LeftButton);
        QTRY_VERIFY(!dialog->isVisible());
        const Run *run = m_engine->manager.findRun(job);
        QVERIFY(run);
        QCOMPARE(run->connection, kJobs);
        const QString id = run->localId;
        QVERIFY(m_window->runModel()->rowOf(id) >= 0);
        QTRY_COMPARE_WITH_TIMEOUT(m_engine->status(id), RunStatus::Completed, kWait);
        QCOMPARE(m_engine->manager.run(id)->primaryText, RunwatchSim::JobsSimulator::tokenText(0, 40));
        QCOMPARE(m_engine->jobs.jobsCreated(), 1);
    }

    // Connections ▸ a saved connection ▸ Browse runs…: the window's Browse Runs dialog opens on
    // that connection (not on the filter's) and lists the task another client started there.
    void browseFromConnectionsDialog()
    {
        auto *keys = new SessionKeyStore;
        ConnectionRegistry registry(&m_engine->manager, keys, nullptr);
        keys->setParent(&registry);
        // Two saved profiles: the one to browse is not the first.
        for (const QString &name : {kSim, kA2a}) {
            ConnectionProfile profile;
            profile.connection = *m_engine->manager.connection(name);
            QVERIFY(QCoro::waitFor(registry.save(profile, {}, std::nullopt)).ok);
        }
        m_window->setConnectionRegistry(&registry);
        const QString elsewhere = startElsewhere(u"browsed from the connections dialog"_s);
        QVERIFY(!elsewhere.isEmpty());

        QAction *connections = m_window->findChild<QAction *>(u"actionConnections"_s);
        QVERIFY(connections && connections->isEnabled());
        connections->trigger();
        auto *editor = findTopLevel<ConnectionsDialog>();
        QVERIFY(editor);
        editor->startNew();
        QVERIFY(!editor->browseButton()->isEnabled()); // a connection not yet saved has no runs
        editor->selectConnection(kA2a);
        QVERIFY(editor->browseButton()->isEnabled());
        QTest::mouseClick(editor->browseButton(), Qt::LeftButton);
        auto *dialog = findTopLevel<BrowseRunsDialog>();
        QVERIFY(dialog);
        QCOMPARE(dialog->connection(), kA2a);
        QTRY_VERIFY_WITH_TIMEOUT(!dialog->isLoading() && itemFor(dialog, elsewhere), kWait);
        QCOMPARE(itemFor(dialog, elsewhere)->text(BrowseRunsDialog::TitleColumn),
                 u"browsed from the connections dialog"_s);
        dialog->reject();
        editor->reject();
        m_window->setConnectionRegistry(nullptr);
    }

    // OpenAI has no list of background responses: the dialog says so and attaches by id.
    void openAiAttachesById()
    {
        const QString started = m_engine->start(kSim, u"normal deltas=30"_s);
        QTRY_VERIFY_WITH_TIMEOUT(m_engine->manager.run(started)->isTerminal(), kWait);
        const QString responseId = m_engine->manager.run(started)->remoteId;
        QVERIFY(!responseId.isEmpty());
        // Forget it locally, as if another client had started it.
        m_engine->manager.deleteRun(started, false);
        QTRY_VERIFY(!m_engine->manager.run(started));

        BrowseRunsDialog *dialog = openDialog(kSim);
        QVERIFY(dialog);
        QTRY_VERIFY(!dialog->isLoading());
        QVERIFY2(dialog->messageLabel()->text().contains(u"no list"_s),
                 qPrintable(dialog->messageLabel()->text()));
        QVERIFY(!dialog->runList()->isEnabled());
        QVERIFY(!dialog->attachButton()->isEnabled());
        QTest::keyClicks(dialog->idEdit(), responseId);
        QVERIFY(dialog->attachButton()->isEnabled());
        QTest::mouseClick(dialog->attachButton(), Qt::LeftButton);
        QTRY_VERIFY(!dialog->isVisible());
        const Run *attached = m_engine->manager.findRun(responseId);
        QVERIFY(attached);
        const QString id = attached->localId;
        QTRY_COMPARE_WITH_TIMEOUT(m_engine->status(id), RunStatus::Completed, kWait);
        QCOMPARE(m_engine->manager.run(id)->primaryText, RunwatchSim::OpenAiSimulator::tokenText(30));
        // The window selects the attached run.
        QTRY_COMPARE(m_window->table()->selectedRunIds(), QStringList{id});
    }
};

QTEST_MAIN(TestBrowseRuns)
#include "tst_browseruns.moc"
