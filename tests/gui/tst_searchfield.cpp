// SPDX-License-Identifier: GPL-3.0-or-later
// The search field of the main window against the OpenAI and jobs simulators, on a real store: it
// also finds runs by their answer (RunStore's full-text search), with filters, shows the part found
// in the row's tooltip, and says why on the field when a query is none.
#include "filterbar.h"
#include "mainwindow.h"
#include "models/runfilterproxy.h"
#include "models/runlistmodel.h"
#include "store/runstore.h"
#include "uitesthelpers.h"

#include <QLineEdit>
#include <QTemporaryDir>
#include <QtTest>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;

namespace {
constexpr int kWait = 20000;
} // namespace

class TestSearchField final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    RunStore m_store;
    std::unique_ptr<Engine> m_engine;
    std::unique_ptr<MainWindow> m_window;

private Q_SLOTS:
    void initTestCase()
    {
        isolateSettings();
        QVERIFY(m_store.open(m_dir.filePath(u"runs.sqlite"_s)));
    }

    void init()
    {
        m_engine = std::make_unique<Engine>();
        m_engine->manager.setStore(&m_store);
        m_window = std::make_unique<MainWindow>(&m_engine->manager);
        m_window->resize(1366, 768);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    void cleanup()
    {
        m_window.reset();
        m_engine->manager.setStore(nullptr);
        m_engine.reset();
    }

    void findsRunsByTheirAnswer()
    {
        const QString done = m_engine->start(kSim, u"normal deltas=3 release notes"_s);
        const QString waiting = m_engine->start(kJobs, u"ask_user deltas=4"_s);
        QTRY_COMPARE_WITH_TIMEOUT(m_engine->status(done), RunStatus::Completed, kWait);
        QTRY_COMPARE_WITH_TIMEOUT(m_engine->status(waiting), RunStatus::InputRequired, kWait);
        m_store.flush();
        FilterBar *bar = m_window->filterBar();
        const QString answerWord
            = m_engine->manager.run(done)->primaryText.toString().split(u' ', Qt::SkipEmptyParts).value(1);
        QVERIFY(!answerWord.isEmpty());
        // A word of the answer only: not in any title, id or connection.
        QVERIFY(!m_engine->manager.run(done)->title.contains(answerWord)
                && !m_engine->manager.run(waiting)->title.contains(answerWord));
        bar->setText(answerWord + u" status:completed"_s);
        QTRY_COMPARE(m_window->proxy()->rowCount(), 1);
        QCOMPARE(m_window->proxy()->runId(0), done);
        QVERIFY(bar->searchField()->toolTip().contains(u'1'));
        const QString tip = m_window->proxy()->index(0, TitleColumn).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(u'[' + answerWord + u']'), qPrintable(tip));
        if (const QString shots = qEnvironmentVariable("RUNWATCH_GRAB_DIR"); !shots.isEmpty())
            QVERIFY(m_window->grab().save(shots + u"/search-results.png"_s));
        bar->setText(u"release since:yesterday"_s);
        QTRY_VERIFY(bar->searchField()->toolTip().contains(u"yesterday"_s));
        if (const QString shots = qEnvironmentVariable("RUNWATCH_GRAB_DIR"); !shots.isEmpty())
            QVERIFY(bar->grab().save(shots + u"/search-error.png"_s));
    }
};

QTEST_MAIN(TestSearchField)
#include "tst_searchfield.moc"
