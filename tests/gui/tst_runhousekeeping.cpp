// SPDX-License-Identifier: GPL-3.0-or-later
// Export and retention from the main window (issue #4, GUI side): a run exported through the
// Export action holds its prompt and output even when it was listed as a summary; a failed write
// is reported; "Remove finished runs older than…" removes only finished runs older than the
// cutoff, from the store and from the table; the retention setting is kept in QSettings.
#include "engine/retention.h"
#include "mainwindow.h"
#include "runhousekeeping.h"
#include "runtableview.h"
#include "store/runstore.h"
#include "uitesthelpers.h"

#include <QAction>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;

namespace {
constexpr int kWait = 20000;

Run storedRun(const QString &id, RunStatus status, int daysAgo)
{
    Run run;
    run.localId = id;
    run.connection = kSim;
    run.backend = u"openai"_s;
    run.remoteId = u"resp_"_s + id;
    run.title = u"Stored run "_s + id;
    run.prompt = u"prompt of "_s + id;
    run.primaryText = u"output of "_s + id;
    run.status = status;
    run.createdAt = QDateTime::currentDateTimeUtc().addDays(-daysAgo).addSecs(-60);
    run.updatedAt = run.createdAt;
    if (isTerminal(status))
        run.finishedAt = QDateTime::currentDateTimeUtc().addDays(-daysAgo);
    return run;
}
} // namespace

class TestRunHousekeeping final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<RunStore> m_store;
    std::unique_ptr<Engine> m_engine;
    std::unique_ptr<MainWindow> m_window;
    // What the stubbed dialogs were asked and answer.
    QString m_exportPath;
    ExportFormat m_exportFormat = ExportFormat::Markdown;
    QString m_suggested;
    std::optional<int> m_days;
    bool m_confirmAnswer = true;
    QStringList m_confirmTexts;
    QStringList m_errors;

    RunHousekeeping *housekeeping() const { return m_window->housekeeping(); }
    RunManager &manager() const { return m_engine->manager; }

    void select(const QString &id)
    {
        QTRY_VERIFY(m_window->activateRun(id));
        QTRY_COMPARE(m_window->table()->selectedRunIds(), QStringList{id});
    }

    // Puts runs in the store and loads them as the app does: finished ones as summaries.
    void adoptStored(const QList<Run> &runs)
    {
        for (const Run &run : runs)
            QVERIFY(m_store->saveRun(run));
        for (const Run &run : m_store->loadRuns(RunStore::Load::Summary))
            manager().adoptRun(run, false);
    }

    QByteArray readFile(const QString &path)
    {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }

private Q_SLOTS:
    void initTestCase()
    {
        isolateSettings();
        QVERIFY(m_dir.isValid());
    }

    void init()
    {
        QSettings().clear();
        QFile::remove(m_dir.filePath(u"runs.sqlite"_s));
        m_store = std::make_unique<RunStore>();
        QVERIFY(m_store->open(m_dir.filePath(u"runs.sqlite"_s)));
        m_engine = std::make_unique<Engine>();
        manager().setStore(m_store.get());
        m_window = std::make_unique<MainWindow>(&manager());
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        m_exportPath.clear();
        m_suggested.clear();
        m_days.reset();
        m_confirmAnswer = true;
        m_confirmTexts.clear();
        m_errors.clear();
        RunHousekeeping::Prompts prompts;
        prompts.exportPath = [this](const QString &suggested, ExportFormat *format) {
            m_suggested = suggested;
            *format = m_exportFormat;
            return m_exportPath;
        };
        prompts.days = [this](const QString &, const QString &, int) { return m_days; };
        prompts.confirm = [this](const QString &, const QString &text) {
            m_confirmTexts << text;
            return m_confirmAnswer;
        };
        prompts.error
            = [this](const QString &title, const QString &text) { m_errors << title + u": "_s + text; };
        housekeeping()->setPrompts(prompts);
    }

    void cleanup()
    {
        m_window.reset();
        m_engine.reset();
        m_store.reset();
    }

    // Export is there for exactly one selected run, in the File menu and the table's context menu.
    void exportActionEnabledForOneRun()
    {
        QAction *exportAction = housekeeping()->exportAction();
        QVERIFY(m_window->table()->actions().contains(exportAction));
        QVERIFY(!exportAction->isEnabled());
        adoptStored({storedRun(u"aaaa0001"_s, RunStatus::Completed, 1),
                     storedRun(u"aaaa0002"_s, RunStatus::Failed, 1)});
        select(u"aaaa0001"_s);
        QTRY_VERIFY(exportAction->isEnabled());
        m_window->table()->selectAll();
        QTRY_VERIFY(!exportAction->isEnabled());
    }

    // A run listed as a summary (no prompt, no output in memory) exports in full.
    void exportSummaryRunToMarkdown()
    {
        adoptStored({storedRun(u"bbbb0001"_s, RunStatus::Completed, 2)});
        QVERIFY(!manager().run(u"bbbb0001"_s)->outputLoaded); // listed without prompt and output
        select(u"bbbb0001"_s);
        m_exportPath = m_dir.filePath(u"export-summary"_s); // no suffix: the format's is added
        m_exportFormat = ExportFormat::Markdown;
        housekeeping()->exportAction()->trigger();
        QVERIFY(m_errors.isEmpty());
        QVERIFY(m_suggested.endsWith(u"Stored run bbbb0001.md"_s));
        const QByteArray md = readFile(m_exportPath + u".md"_s);
        QVERIFY(md.contains("prompt of bbbb0001"));
        QVERIFY(md.contains("output of bbbb0001"));
    }

    // A run streamed from the simulator exports as JSON with its full text.
    void exportStreamedRunToJson()
    {
        const QString id = m_engine->start(kSim, u"normal deltas=12 interval_ms=2"_s);
        QTRY_COMPARE_WITH_TIMEOUT(m_engine->status(id), RunStatus::Completed, kWait);
        select(id);
        m_exportPath = m_dir.filePath(u"streamed.json"_s);
        m_exportFormat = ExportFormat::Markdown; // the .json suffix wins over the filter
        housekeeping()->exportAction()->trigger();
        QVERIFY(m_errors.isEmpty());
        const QJsonObject o = QJsonDocument::fromJson(readFile(m_exportPath)).object();
        QCOMPARE(o.value(u"prompt"_s).toString(), u"normal deltas=12 interval_ms=2"_s);
        QCOMPARE(o.value(u"output"_s).toString(), RunwatchSim::OpenAiSimulator::tokenText(12));
    }

    // A file that cannot be written is reported, not silently dropped.
    void exportErrorIsReported()
    {
        adoptStored({storedRun(u"cccc0001"_s, RunStatus::Completed, 1)});
        select(u"cccc0001"_s);
        m_exportPath = m_dir.filePath(u"no/such/dir/run.md"_s);
        housekeeping()->exportAction()->trigger();
        QCOMPARE(m_errors.size(), 1);
        QVERIFY(m_errors.first().startsWith(u"Export Failed"_s));
        QVERIFY(!QFile::exists(m_exportPath));
        // Backing out of the dialog writes nothing and reports nothing.
        m_exportPath.clear();
        housekeeping()->exportAction()->trigger();
        QCOMPARE(m_errors.size(), 1);
    }

    // Only finished runs older than the cutoff go, from the store and from the table; a
    // declined confirmation removes nothing.
    void removeOlderThanRemovesOnlyOldFinishedRuns()
    {
        adoptStored({storedRun(u"dddd0001"_s, RunStatus::Completed, 40),
                     storedRun(u"dddd0002"_s, RunStatus::Failed, 31),
                     storedRun(u"dddd0003"_s, RunStatus::Completed, 5),
                     storedRun(u"dddd0004"_s, RunStatus::InputRequired, 60)});
        RunListModel *model = m_window->runModel();
        QTRY_COMPARE(model->rowCount(), 4); // the model inserts in batches
        m_days = 30;
        m_confirmAnswer = false;
        housekeeping()->removeOldAction()->trigger();
        QCOMPARE(m_confirmTexts.size(), 1);
        QVERIFY2(m_confirmTexts.first().contains(u"Remove 2 finished run"_s),
                 qPrintable(m_confirmTexts.first()));
        QCOMPARE(model->rowCount(), 4);
        QCOMPARE(m_store->runCount(), 4);

        m_confirmAnswer = true;
        housekeeping()->removeOldAction()->trigger();
        QTRY_COMPARE(model->rowCount(), 2);
        QCOMPARE(model->rowOf(u"dddd0001"_s), -1);
        QCOMPARE(model->rowOf(u"dddd0002"_s), -1);
        QVERIFY(model->rowOf(u"dddd0003"_s) >= 0);
        QVERIFY(model->rowOf(u"dddd0004"_s) >= 0);
        QVERIFY(!manager().run(u"dddd0001"_s));
        m_store->flush();
        QCOMPARE(m_store->runCount(), 2);
        QVERIFY(m_store->loadRun(u"dddd0003"_s));
        QVERIFY(m_store->loadRun(u"dddd0004"_s));

        // Nothing left to remove: no confirmation is asked.
        housekeeping()->removeOldAction()->trigger();
        QCOMPARE(m_confirmTexts.size(), 2);
    }

    // The setting is stored in QSettings; cancelling the dialog keeps it.
    void retentionSettingIsStored()
    {
        QCOMPARE(Retention::keepDays(), 0);
        m_days = 14;
        housekeeping()->retentionAction()->trigger();
        QCOMPARE(Retention::keepDays(), 14);
        QCOMPARE(QSettings().value(u"retention/keepFinishedDays"_s).toInt(), 14);
        m_days.reset();
        housekeeping()->retentionAction()->trigger();
        QCOMPARE(Retention::keepDays(), 14);
        m_days = 0;
        housekeeping()->retentionAction()->trigger();
        QCOMPARE(Retention::keepDays(), 0);
    }
};

QTEST_MAIN(TestRunHousekeeping)
#include "tst_runhousekeeping.moc"
