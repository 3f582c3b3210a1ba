// SPDX-License-Identifier: GPL-3.0-or-later
// The embedded default: a first launch without saved connections starts the in-process
// simulators, connects the real OpenAI, A2A and jobs connectors to them and seeds runs in every
// interesting state; saved connections skip the demo; --demo forces it; demo runs and
// connections are never written to the user's store.
#include "appcontroller.h"
#include "demomode.h"
#include "detailpane.h"
#include "domain/connection.h"
#include "mainwindow.h"
#include "models/runlistmodel.h"
#include "outputview.h"
#include "runtableview.h"
#include "store/runstore.h"
#include "uitesthelpers.h"

#include <QTemporaryDir>

#include <algorithm>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;

class TestAppController final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString storePath() const { return m_dir.filePath(u"runs.sqlite"_s); }

private Q_SLOTS:
    void initTestCase()
    {
        isolateSettings();
        QVERIFY(m_dir.isValid());
    }

    void init() { QFile::remove(storePath()); }

    void argumentsParse()
    {
        AppOptions o
            = AppController::parseArguments({u"runwatch"_s, u"--demo"_s, u"--store"_s, u"/x.sqlite"_s});
        QVERIFY(o.error.isEmpty());
        QVERIFY(o.demo);
        QCOMPARE(o.storePath, u"/x.sqlite"_s);
        QVERIFY(!AppController::parseArguments({u"runwatch"_s, u"--bogus"_s}).error.isEmpty());
        QVERIFY(!AppController::parseArguments({u"runwatch"_s, u"--store"_s}).error.isEmpty());
        QVERIFY(!AppController::parseArguments({u"runwatch"_s, u"--palette"_s, u"pink"_s}).error.isEmpty());
    }

    // First launch: the demo runs, with a streaming run, finished ones and runs waiting for input.
    void firstLaunchStartsDemo()
    {
        AppOptions options;
        options.storePath = storePath();
        AppController app(options);
        QVERIFY(app.start());
        QVERIFY(app.isDemo());
        RunManager *m = app.manager();
        const QList<std::pair<QString, QString>> kinds{
            {DemoMode::connectionName(u"openai"_s), u"openai"_s},
            {DemoMode::connectionName(u"a2a"_s), u"a2a"_s},
            {DemoMode::connectionName(u"jobs"_s), u"jobs"_s},
            {DemoMode::connectionName(u"foundry"_s), u"foundry"_s},
            {DemoMode::connectionName(u"claude-agents"_s), u"claude-agents"_s},
            {DemoMode::connectionName(u"openai-agents"_s), u"openai-agents"_s}};
        for (const auto &[name, backend] : kinds) {
            QVERIFY2(m->connection(name), qPrintable(name));
            QCOMPARE(m->connection(name)->backend, backend);
            QCOMPARE(m->connection(name)->baseUrl.host(), u"127.0.0.1"_s);
            QVERIFY(m->backend(name));
            QCOMPARE(m->backend(name)->kind(), backend);
        }
        QTRY_COMPARE(app.demo()->seededRunIds().size(), int(DemoMode::seeds().size()));
        const auto countOf = [m](RunStatus s) {
            int n = 0;
            for (const QString &id : m->runIds())
                n += m->run(id)->status == s ? 1 : 0;
            return n;
        };
        // As many in each state as the demo means to show (two finished turns of managed agents, an
        // agent's run and a job completed; a failed and a cancelled one; every kind of wait).
        const QList<DemoMode::Seed> seeds = DemoMode::seeds();
        const auto meant = [&seeds](RunStatus s) {
            return int(std::count_if(seeds.cbegin(), seeds.cend(), [s](DemoMode::Seed seed) {
                return DemoMode::intendedStatus(seed) == s;
            }));
        };
        QCOMPARE(meant(RunStatus::Completed), 4);
        QCOMPARE(meant(RunStatus::InputRequired), 11);
        QTRY_VERIFY_WITH_TIMEOUT(countOf(RunStatus::Completed) == meant(RunStatus::Completed)
                                     && countOf(RunStatus::Failed) == 1 && countOf(RunStatus::Cancelled) == 1
                                     && countOf(RunStatus::InputRequired) == meant(RunStatus::InputRequired),
                                 30000);
        const Run *streaming = m->run(app.demo()->streamingRunId());
        QTRY_VERIFY_WITH_TIMEOUT(!streaming->primaryText.isEmpty(), 30000);
        QCOMPARE(streaming->status, RunStatus::InProgress);
        QVERIFY(!streaming->secondary.isEmpty()); // reasoning and a tool call on the timeline
        QTRY_COMPARE(app.window()->detailPane()->runId(), app.demo()->streamingRunId());
        // Nothing of the demo lands in the user's store.
        RunStore store;
        QVERIFY(store.open(storePath()));
        QVERIFY(store.loadRuns().isEmpty());
        QVERIFY(store.loadConnectionConfigs().isEmpty());
    }

    // With a saved connection the app starts normally; --demo forces the demo anyway.
    void savedConnectionSkipsDemo()
    {
        {
            RunStore store;
            QVERIFY(store.open(storePath()));
            Connection c;
            c.name = u"work"_s;
            c.backend = u"openai"_s;
            c.baseUrl = QUrl(u"http://127.0.0.1:9/v1"_s);
            c.auth = AuthStyle::None;
            QVERIFY(store.saveConnectionConfig(c.name, c.toJson()));
        }
        AppOptions options;
        options.storePath = storePath();
        {
            AppController app(options);
            QVERIFY(app.start());
            QVERIFY(!app.isDemo());
            QTRY_VERIFY(app.manager()->connection(u"work"_s));
            QVERIFY(!app.manager()->connection(DemoMode::connectionName(u"openai"_s)));
        }
        options.demo = true;
        AppController forced(options);
        QVERIFY(forced.start());
        QVERIFY(forced.isDemo());
        QVERIFY(forced.manager()->connection(DemoMode::connectionName(u"openai"_s)));
    }

    // A history bigger than the first page: the newest runs are listed first; scrolling the list to
    // its end reads the older ones a page at a time (HistoryWindow), each once and newest first,
    // and the filter bar counts every stored run once the list has painted (the count of the runs
    // not held comes from a thread). A live run, however old, is held from the start without its
    // output, which is read when the run is shown.
    void historyLoadsNewestFirstInPages()
    {
        const int count = 1800; // the first page, two full pages and a partial one
        const int kLive = 3;    // an old run still in progress
        const QDateTime t0 = QDateTime::currentDateTimeUtc().addDays(-2);
        {
            RunStore store;
            QVERIFY(store.open(storePath()));
            Connection c;
            c.name = u"work"_s;
            c.backend = u"openai"_s;
            c.baseUrl = QUrl(u"http://127.0.0.1:9/v1"_s);
            c.auth = AuthStyle::None;
            QVERIFY(store.saveConnectionConfig(c.name, c.toJson()));
            store.setFlushInterval(1 << 30);
            for (int i = 0; i < count; ++i) {
                Run run;
                run.localId = u"hist%1"_s.arg(i, 5, 10, QLatin1Char('0'));
                run.connection = u"elsewhere"_s; // no such connection: nothing is followed
                run.backend = u"openai"_s;
                run.remoteId = u"resp_%1"_s.arg(i);
                run.createdAt = t0.addSecs(i);
                run.status = i == kLive ? RunStatus::InProgress : RunStatus::Completed;
                run.title = u"run %1"_s.arg(i);
                if (i == kLive) {
                    run.prompt = u"an old run still going"_s;
                    run.primaryText = u"the answer so far"_s;
                } else {
                    run.finishedAt = run.createdAt.addSecs(1);
                }
                store.scheduleSave(run);
            }
            store.flush();
        }
        AppOptions options;
        options.storePath = storePath();
        AppController app(options);
        QSignalSpy added(app.manager(), &RunManager::runAdded);
        QVERIFY(app.start());
        // The newest page; until the list has painted, its counts are those of what is held.
        QCOMPARE(app.manager()->runIds().size(), qsizetype(RunListModel::kHistoryPage));
        const QString live = u"hist%1"_s.arg(kLive, 5, 10, QLatin1Char('0'));
        QVERIFY(!app.manager()->run(live));
        app.window()->runModel()->flush(); // (rows go in from the event loop)
        QCOMPARE(app.window()->runModel()->counts().value(StatusCategory::All), RunListModel::kHistoryPage);
        // Then the old live run, and the whole ledger's counts.
        QTRY_COMPARE(app.window()->runModel()->counts().value(StatusCategory::All), count);
        QVERIFY(app.manager()->run(live));
        QVERIFY(!app.manager()->run(live)->outputLoaded);
        QCOMPARE(app.window()->runModel()->counts().value(StatusCategory::Completed), count - 1);
        QCOMPARE(app.window()->runModel()->counts().value(StatusCategory::Active), 1);
        // As the operator scrolls: each time the list's end is in sight the view asks for more.
        RunTableView *table = app.window()->table();
        app.window()->resize(1366, 768);
        app.window()->show();
        QVERIFY(QTest::qWaitForWindowExposed(app.window()));
        int scrolls = 0;
        while (app.manager()->runIds().size() < count && scrolls < 10) {
            ++scrolls;
            table->scrollToBottom();
            const int expected
                = std::min(count, RunListModel::kHistoryPage * (scrolls + 1) + 1); // + the live run
            QTRY_COMPARE_WITH_TIMEOUT(app.window()->runModel()->rowCount(), expected, 5000);
        }
        QCOMPARE(app.manager()->runIds().size(), qsizetype(count));
        QCOMPARE(scrolls, 3); // a page at a time
        QVERIFY(!app.window()->runModel()->canFetchMore({}));
        QCOMPARE(app.window()->runModel()->counts().value(StatusCategory::All), count);
        QCOMPARE(added.size(), count);
        QStringList order;
        for (const QList<QVariant> &args : std::as_const(added))
            order << args.constFirst().toString();
        // The newest page, the live run, then the others newest first.
        QCOMPARE(order.at(RunListModel::kHistoryPage), live);
        order.removeAt(RunListModel::kHistoryPage);
        for (int i = count - 1, at = 0; i >= 0; --i) {
            if (i != kLive) {
                QCOMPARE(order.at(at++), u"hist%1"_s.arg(i, 5, 10, QLatin1Char('0')));
            }
        }
        QTRY_COMPARE_WITH_TIMEOUT(app.window()->runModel()->rowCount(), count, 10000);
        // Shown (selected, which scrolls the list to it), the live run's stored output is read.
        QVERIFY(!app.manager()->run(live)->outputLoaded);
        QVERIFY(app.window()->activateRun(live));
        QTRY_COMPARE(app.window()->detailPane()->runId(), live);
        QVERIFY(app.manager()->run(live)->outputLoaded);
        QCOMPARE(app.manager()->run(live)->primaryText, u"the answer so far"_s);
        QTRY_VERIFY(app.window()->detailPane()->outputView()->shownText().contains(u"the answer so far"_s));
    }
};

QTEST_MAIN(TestAppController)
#include "tst_appcontroller.moc"
