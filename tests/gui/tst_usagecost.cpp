// SPDX-License-Identifier: GPL-3.0-or-later
// Usage and cost in the window (issue 14): the token columns show what the OpenAI simulator
// reported in `usage`; the Prices dialog sets a price, the cost column, the detail pane and the
// status bar's totals show it, and it is kept in the run store; the totals follow the filter; the
// header's column menu hides and shows columns, kept across a restart of the window, and a header
// state saved before the usage columns existed still restores.
#include "detailpane.h"
#include "filterbar.h"
#include "i18n/translations.h"
#include "mainwindow.h"
#include "models/runfilterproxy.h"
#include "models/runformat.h"
#include "models/runlistmodel.h"
#include "pricesdialog.h"
#include "runtableview.h"
#include "store/runstore.h"
#include "uitesthelpers.h"
#include "usagetotalslabel.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStandardItemModel>
#include <QTableWidget>
#include <QTemporaryDir>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;

namespace {
constexpr int kWait = 30000;

// The usage the simulator reports for a response (its GET body, what the client read).
TokenUsage simulatorUsage(const Engine &engine, const QString &runId)
{
    const Run *run = engine.manager.run(runId);
    const QJsonObject usage = engine.sim.snapshot(run->remoteId).value(u"usage"_s).toObject();
    TokenUsage u;
    u.inputTokens = usage.value(u"input_tokens"_s).toInteger(-1);
    u.outputTokens = usage.value(u"output_tokens"_s).toInteger(-1);
    u.reasoningTokens
        = usage.value(u"output_tokens_details"_s).toObject().value(u"reasoning_tokens"_s).toInteger(-1);
    return u;
}

QString cell(MainWindow &window, const QString &id, int column, int role = Qt::DisplayRole)
{
    RunListModel *model = window.runModel();
    model->flush();
    return model->data(model->index(model->rowOf(id), column), role).toString();
}

QHeaderView *header(MainWindow &window)
{
    return window.table()->horizontalHeader();
}

QAction *columnToggle(MainWindow &window, int column)
{
    return header(window)->actions().at(column);
}

// Fills the dialog's row of `model` and presses OK.
void setPrice(PricesDialog *dialog, const QString &model, const QString &input, const QString &output)
{
    QTableWidget *table = dialog->priceTable();
    int row = -1;
    for (int r = 0; r < table->rowCount(); ++r) {
        if (table->item(r, PricesDialog::ModelColumn)->text() == model)
            row = r;
    }
    QVERIFY2(row >= 0, qPrintable(u"no row for %1"_s.arg(model)));
    table->item(row, PricesDialog::InputColumn)->setText(input);
    table->item(row, PricesDialog::OutputColumn)->setText(output);
}
} // namespace

class TestUsageCost final : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        isolateSettings();
        QVERIFY(m_dir.isValid());
        // As the app does in English: the plural forms make "1 run", "2 runs".
        QCOMPARE(installTranslations(QLocale(QLocale::English)), QStringList{u"runwatch_en"_s});
    }

    void init() { QSettings().clear(); }

    // Columns from the simulator's usage, then a price through the dialog: cost in the list, the
    // detail pane and the totals, and in the store for the next start.
    void columnsAndPriceDialog()
    {
        const QString storePath = m_dir.filePath(u"prices.sqlite"_s);
        QFile::remove(storePath);
        RunStore store;
        QVERIFY(store.open(storePath));
        QString id;
        TokenUsage sent;
        {
            Engine engine;
            engine.manager.setStore(&store);
            MainWindow window(&engine.manager);
            window.resize(1366, 768);
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            // Hidden on a first window (docs/architecture.md, "Usage and cost").
            QVERIFY(window.table()->isColumnHidden(InputTokensColumn));
            QVERIFY(window.table()->isColumnHidden(CostColumn));

            id = engine.start(kSim, u"reasoning deltas=12"_s);
            QTRY_COMPARE_WITH_TIMEOUT(engine.status(id), RunStatus::Completed, kWait);
            sent = simulatorUsage(engine, id);
            QVERIFY(sent.inputTokens > 0 && sent.outputTokens > 0 && sent.reasoningTokens > 0);
            QCOMPARE(engine.manager.run(id)->usage, sent);

            const QLocale locale;
            QTRY_COMPARE(cell(window, id, InputTokensColumn), locale.toString(sent.inputTokens));
            QCOMPARE(cell(window, id, OutputTokensColumn), locale.toString(sent.outputTokens));
            QVERIFY(cell(window, id, OutputTokensColumn, Qt::ToolTipRole)
                        .contains(locale.toString(sent.reasoningTokens) + u" of them reasoning"_s));
            QCOMPARE(cell(window, id, InputTokensColumn, RunListModel::SortValueRole).toLongLong(),
                     sent.inputTokens);
            QCOMPARE(window.runModel()
                         ->data(window.runModel()->index(window.runModel()->rowOf(id), CostColumn),
                                Qt::TextAlignmentRole)
                         .value<Qt::Alignment>(),
                     Qt::AlignRight | Qt::AlignVCenter);
            // No price yet: a dash, and the tooltip says where to set one.
            QCOMPARE(cell(window, id, CostColumn), u"—"_s);
            QCOMPARE(cell(window, id, CostColumn, Qt::ToolTipRole),
                     u"No price set for model runwatch-sim-1 — Settings › Prices…"_s);
            QVERIFY(window.activateRun(id));
            QLabel *usage = window.detailPane()->usageLabel();
            QTRY_VERIFY(usage->isVisible());
            QVERIFY2(usage->text().contains(locale.toString(sent.inputTokens) + u" input"_s),
                     qPrintable(usage->text()));
            QVERIFY(usage->text().contains(u"no price set for runwatch-sim-1"_s));
            window.usageTotals()->recompute();
            QVERIFY2(window.usageTotals()->text().endsWith(u"no prices set"_s),
                     qPrintable(window.usageTotals()->text()));

            // The dialog: the model the run used is listed, without a price (honest default).
            window.pricesAction()->trigger();
            auto *dialog = findTopLevel<PricesDialog>();
            QVERIFY(dialog);
            QTableWidget *table = dialog->priceTable();
            QCOMPARE(table->rowCount(), 1);
            QCOMPARE(table->item(0, PricesDialog::ModelColumn)->text(), u"runwatch-sim-1"_s);
            QVERIFY(table->item(0, PricesDialog::InputColumn)->text().isEmpty());
            QPushButton *ok = dialog->buttons()->button(QDialogButtonBox::Ok);
            // Checked as typed: negative, not a number, one price missing.
            setPrice(dialog, u"runwatch-sim-1"_s, u"-1"_s, u"10"_s);
            QVERIFY(!ok->isEnabled());
            QVERIFY(dialog->errorLabel()->text().contains(u"cannot be negative"_s));
            setPrice(dialog, u"runwatch-sim-1"_s, u"abc"_s, u"10"_s);
            QVERIFY(!ok->isEnabled());
            QVERIFY(dialog->errorLabel()->text().contains(u"must be numbers"_s));
            setPrice(dialog, u"runwatch-sim-1"_s, u"2.5"_s, {});
            QVERIFY(!ok->isEnabled());
            setPrice(dialog, u"runwatch-sim-1"_s, u"2.5"_s, u"10"_s);
            QVERIFY(ok->isEnabled());
            QVERIFY(dialog->errorLabel()->isHidden());
            dialog->currencyEdit()->setText(u"USD"_s);
            QTest::mouseClick(ok, Qt::LeftButton);
            QTRY_VERIFY(!findTopLevel<PricesDialog>());

            const double cost = double(sent.inputTokens) * 2.5 / 1e6 + double(sent.outputTokens) * 10 / 1e6;
            const QString shown = formatCost(cost, u"USD"_s);
            QCOMPARE(cell(window, id, CostColumn), shown);
            QCOMPARE(cell(window, id, CostColumn, RunListModel::SortValueRole).toDouble(), cost);
            // Asking for prices shows the cost column.
            QVERIFY(!window.table()->isColumnHidden(CostColumn));
            QVERIFY(columnToggle(window, CostColumn)->isChecked());
            QTRY_VERIFY2(usage->text().contains(u"cost "_s + shown), qPrintable(usage->text()));
            QTRY_VERIFY2(window.usageTotals()->text().endsWith(shown),
                         qPrintable(window.usageTotals()->text()));
            Engine::stopAll(&engine.manager);
        }
        store.flush();

        // Kept: another store on the same file, and a new engine and window on it.
        RunStore reopened;
        QVERIFY(reopened.open(storePath));
        const PriceTable saved = PriceBook::load(reopened);
        QCOMPARE(saved.currency, u"USD"_s);
        QCOMPARE(saved.prices, (QList<ModelPrice>{{u"runwatch-sim-1"_s, 2.5, 10}}));
        RunManager manager;
        manager.setStore(&reopened);
        QCOMPARE(manager.prices()->table().prices, saved.prices);
        const std::optional<Run> stored = reopened.loadRun(id);
        QVERIFY(stored);
        manager.adoptRun(*stored, false);
        MainWindow window(&manager);
        QTRY_COMPARE(cell(window, id, CostColumn),
                     formatCost(double(sent.inputTokens) * 2.5 / 1e6 + double(sent.outputTokens) * 10 / 1e6,
                                u"USD"_s));
        Engine::stopAll(&manager);
    }

    // The status bar's totals are those of the runs the filter lets through.
    void totalsUnderFilter()
    {
        Engine engine;
        MainWindow window(&engine.manager);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        PriceTable prices;
        prices.currency = u"EUR"_s;
        prices.prices << ModelPrice{u"runwatch-sim"_s, 1, 4}; // covers runwatch-sim-1 by its prefix
        QVERIFY(engine.manager.prices()->setTable(prices));

        const QString a = engine.start(kSim, u"normal deltas=7 alpha"_s);
        const QString b = engine.start(kSim, u"normal deltas=19 bravo words to count"_s);
        QTRY_COMPARE_WITH_TIMEOUT(engine.status(a), RunStatus::Completed, kWait);
        QTRY_COMPARE_WITH_TIMEOUT(engine.status(b), RunStatus::Completed, kWait);
        const TokenUsage ua = simulatorUsage(engine, a);
        const TokenUsage ub = simulatorUsage(engine, b);
        QVERIFY(ua.outputTokens != ub.outputTokens);
        const auto costOfUsage = [](const TokenUsage &u) {
            return double(u.inputTokens) * 1 / 1e6 + double(u.outputTokens) * 4 / 1e6;
        };

        UsageTotalsLabel *totals = window.usageTotals();
        // Coalesced: the label follows by itself once its timer fired.
        QTRY_COMPARE(totals->totals().runs, 2);
        QTRY_COMPARE(totals->totals().tokens(),
                     ua.inputTokens + ua.outputTokens + ub.inputTokens + ub.outputTokens);
        QCOMPARE(totals->totals().unpriced, 0);
        QCOMPARE(totals->text(),
                 u"2 runs · %1 tokens · %2"_s.arg(
                     formatTokensShort(ua.inputTokens + ua.outputTokens + ub.inputTokens + ub.outputTokens),
                     formatCost(costOfUsage(ua) + costOfUsage(ub), u"EUR"_s)));

        window.filterBar()->setText(u"bravo"_s);
        QTRY_COMPARE(totals->totals().runs, 1);
        QCOMPARE(totals->totals().inputTokens, ub.inputTokens);
        QCOMPARE(totals->totals().outputTokens, ub.outputTokens);
        QCOMPARE(totals->text(),
                 u"1 run · %1 tokens · %2"_s.arg(formatTokensShort(ub.inputTokens + ub.outputTokens),
                                                 formatCost(costOfUsage(ub), u"EUR"_s)));
        window.filterBar()->setText(u"alpha"_s);
        QTRY_COMPARE(totals->totals().outputTokens, ua.outputTokens);
        QCOMPARE(totals->totals().runs, 1);

        // New prices re-price the totals; a model without a price is counted as such.
        QVERIFY(
            engine.manager.prices()->setTable(PriceTable{u"EUR"_s, {ModelPrice{u"other-model"_s, 1, 1}}}));
        QTRY_VERIFY2(totals->text().endsWith(u"no prices set"_s), qPrintable(totals->text()));
        QCOMPARE(totals->totals().unpriced, 1);
        window.filterBar()->setText(u"no such run"_s);
        QTRY_COMPARE(totals->text(), u"0 runs"_s);
        Engine::stopAll(&engine.manager);
    }

    // The header's menu hides and shows columns; the choice survives a restart of the window.
    void columnMenuPersists()
    {
        RunManager manager;
        {
            MainWindow window(&manager);
            const QList<QAction *> toggles = header(window)->actions();
            QCOMPARE(toggles.size(), int(RunColumnCount));
            QCOMPARE(toggles.at(InputTokensColumn)->text(), u"Input tokens"_s);
            QVERIFY(!toggles.at(StatusColumn)->isEnabled());
            QVERIFY(!toggles.at(TitleColumn)->isEnabled());
            QVERIFY(toggles.at(ConnectionColumn)->isEnabled());
            QVERIFY(!toggles.at(InputTokensColumn)->isChecked());
            toggles.at(InputTokensColumn)->trigger();
            toggles.at(OutputTokensColumn)->trigger();
            toggles.at(BackendColumn)->trigger();
            QVERIFY(!window.table()->isColumnHidden(InputTokensColumn));
            QVERIFY(!window.table()->isColumnHidden(OutputTokensColumn));
            QVERIFY(window.table()->isColumnHidden(BackendColumn));
            window.close(); // saves, as the app's exit does
        }
        {
            MainWindow window(&manager);
            QVERIFY(!window.table()->isColumnHidden(InputTokensColumn));
            QVERIFY(!window.table()->isColumnHidden(OutputTokensColumn));
            QVERIFY(window.table()->isColumnHidden(CostColumn));
            QVERIFY(window.table()->isColumnHidden(BackendColumn));
            QVERIFY(!window.table()->isColumnHidden(ModelColumn));
            QVERIFY(columnToggle(window, InputTokensColumn)->isChecked());
            QVERIFY(!columnToggle(window, BackendColumn)->isChecked());
            QVERIFY(!columnToggle(window, CostColumn)->isChecked());
            // Shown again from the menu.
            columnToggle(window, BackendColumn)->trigger();
            QVERIFY(!window.table()->isColumnHidden(BackendColumn));
        }
    }

    // A header state saved by a build with only the first eight columns (and no column count):
    // its layout is kept, the usage columns get their defaults (hidden, a usable width).
    void oldHeaderStateRestores()
    {
        QStandardItemModel eight(0, int(InputTokensColumn));
        QTableView old;
        old.setModel(&eight);
        old.horizontalHeader()->setSectionsMovable(true);
        old.setColumnHidden(ModelColumn, true);
        old.horizontalHeader()->resizeSection(ConnectionColumn, 150);
        old.horizontalHeader()->moveSection(ConnectionColumn, 1);
        {
            QSettings s;
            s.setValue(u"runTable/header"_s, old.horizontalHeader()->saveState());
            s.remove(u"runTable/columns"_s);
        }
        RunManager manager;
        MainWindow window(&manager);
        QHeaderView *h = header(window);
        QCOMPARE(h->count(), int(RunColumnCount));
        QVERIFY(window.table()->isColumnHidden(ModelColumn));
        QCOMPARE(h->sectionSize(ConnectionColumn), 150);
        QCOMPARE(h->visualIndex(ConnectionColumn), 1);
        for (int c : {InputTokensColumn, OutputTokensColumn, CostColumn}) {
            QVERIFY(window.table()->isColumnHidden(c));
            QVERIFY(!columnToggle(window, c)->isChecked());
            columnToggle(window, c)->trigger();
            QVERIFY(h->sectionSize(c) >= 84);
        }
        QVERIFY(!window.table()->isColumnHidden(StatusColumn));
        QVERIFY(!window.table()->isColumnHidden(TitleColumn));
    }
};

QTEST_MAIN(TestUsageCost)
#include "tst_usagecost.moc"
