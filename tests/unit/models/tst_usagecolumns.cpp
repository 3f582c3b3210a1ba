// SPDX-License-Identifier: GPL-3.0-or-later
// Usage and cost in the run list model (no widgets): the token and cost cells, their sort values
// and tooltips; a usage-only change repaints only those cells, new prices one range over the cost
// column; the totals of the rows a filter lets through; the PriceBook's round trip through a real
// run store.
#include "engine/runmanager.h"
#include "i18n/translations.h"
#include "models/runfilterproxy.h"
#include "models/runlistmodel.h"
#include "models/usagetotals.h"
#include "store/pricebook.h"
#include "store/runstore.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {

Run makeRun(const QString &id, const QString &title, const QString &model, TokenUsage usage)
{
    Run r;
    r.localId = id;
    r.remoteId = u"resp_"_s + id;
    r.connection = u"alpha"_s;
    r.backend = u"openai"_s;
    r.model = model;
    r.title = title;
    r.status = RunStatus::Completed;
    r.createdAt = QDateTime::currentDateTimeUtc().addSecs(-60);
    r.updatedAt = r.finishedAt = r.createdAt.addSecs(10);
    r.usage = usage;
    return r;
}

TokenUsage usage(qint64 in, qint64 out, qint64 reasoning = -1)
{
    TokenUsage u;
    u.inputTokens = in;
    u.outputTokens = out;
    u.reasoningTokens = reasoning;
    return u;
}

PriceTable prices()
{
    PriceTable t;
    t.currency = u"USD"_s;
    t.prices << ModelPrice{u"gpt-x"_s, 1.0, 2.0};
    return t;
}

} // namespace

class TestUsageColumns final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        // As both front ends do in English: the plural forms make "1 run", "4 runs".
        QCOMPARE(installTranslations(QLocale(QLocale::English)), QStringList{u"runwatch_en"_s});
    }

    void cellsAndSortValues()
    {
        RunManager manager;
        manager.prices()->setTable(prices());
        manager.adoptRun(makeRun(u"a"_s, u"A"_s, u"gpt-x-2025-01-01"_s, usage(1234, 5678, 90)), false);
        manager.adoptRun(makeRun(u"b"_s, u"B"_s, u"gpt-x"_s, TokenUsage{}), false);
        manager.adoptRun(makeRun(u"c"_s, u"C"_s, u"other"_s, usage(10, 20)), false);
        RunListModel model(&manager);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto at = [&](const QString &id, int column, int role = Qt::DisplayRole) {
            return model.data(model.index(model.rowOf(id), column), role);
        };
        QCOMPARE(model.headerData(CostColumn, Qt::Horizontal).toString(), u"Cost"_s);
        const QLocale locale;
        QCOMPARE(at(u"a"_s, InputTokensColumn).toString(), locale.toString(qint64(1234)));
        QCOMPARE(at(u"a"_s, OutputTokensColumn).toString(), locale.toString(qint64(5678)));
        QVERIFY(
            at(u"a"_s, OutputTokensColumn, Qt::ToolTipRole).toString().contains(u"90 of them reasoning"_s));
        // 1234 at 1/M + 5678 at 2/M, the snapshot priced by its base model's entry.
        QCOMPARE(at(u"a"_s, CostColumn).toString(), u"0.0126 USD"_s);
        QCOMPARE(at(u"a"_s, CostColumn, RunListModel::SortValueRole).toDouble(), (1234 + 2 * 5678) / 1e6);
        QCOMPARE(at(u"a"_s, InputTokensColumn, RunListModel::SortValueRole).toLongLong(), 1234);
        QCOMPARE(at(u"a"_s, CostColumn, Qt::TextAlignmentRole).value<Qt::Alignment>(),
                 Qt::AlignRight | Qt::AlignVCenter);
        // Nothing reported: a dash, sorted below zero, and the tooltip says so.
        QCOMPARE(at(u"b"_s, InputTokensColumn).toString(), u"—"_s);
        QCOMPARE(at(u"b"_s, InputTokensColumn, RunListModel::SortValueRole).toLongLong(), -1);
        QCOMPARE(at(u"b"_s, CostColumn).toString(), u"—"_s);
        QVERIFY(at(u"b"_s, CostColumn, Qt::ToolTipRole).toString().contains(u"reported no token usage"_s));
        QCOMPARE(at(u"b"_s, CostColumn, RunListModel::SortValueRole).toDouble(), -1.0);
        // No price for the model.
        QCOMPARE(at(u"c"_s, CostColumn).toString(), u"—"_s);
        QCOMPARE(at(u"c"_s, CostColumn, Qt::ToolTipRole).toString(),
                 u"No price set for model other — Settings › Prices…"_s);

        // Sorted by the raw cost: no usage, no price, then the priced run.
        RunFilterProxy proxy;
        proxy.setSourceModel(&model);
        proxy.sort(CostColumn, Qt::DescendingOrder);
        QCOMPARE(proxy.data(proxy.index(0, TitleColumn)).toString(), u"A"_s);
    }

    void usageOnlyChangeTouchesUsageCells()
    {
        RunManager manager;
        manager.adoptRun(makeRun(u"a"_s, u"A"_s, u"gpt-x"_s, usage(1, 2)), false);
        manager.adoptRun(makeRun(u"b"_s, u"B"_s, u"gpt-x"_s, usage(3, 4)), false);
        RunListModel model(&manager);
        model.setUpdateInterval(20);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        // What the engine emits when only the reported usage moved (RunChange::Usage).
        Q_EMIT manager.runChanged(u"b"_s, RunChange::Usage | RunChange::Cursor);
        Q_EMIT manager.runChanged(u"b"_s, RunChange::Usage);
        QCOMPARE(changed.count(), 0); // coalesced
        QTRY_COMPARE(changed.count(), 1);
        QCOMPARE(changed.first().at(0).value<QModelIndex>(),
                 model.index(model.rowOf(u"b"_s), InputTokensColumn));
        QCOMPARE(changed.first().at(1).value<QModelIndex>(), model.index(model.rowOf(u"b"_s), CostColumn));
        QVERIFY(changed.first().at(2).value<QList<int>>().contains(RunListModel::SortValueRole));
        // With a status change the whole row is signalled, once.
        changed.clear();
        Q_EMIT manager.runChanged(u"a"_s, RunChange::Usage);
        Q_EMIT manager.runChanged(u"a"_s, RunChange::Status);
        QTRY_COMPARE(changed.count(), 1);
        QCOMPARE(changed.first().at(0).value<QModelIndex>().column(), 0);
        QCOMPARE(changed.first().at(1).value<QModelIndex>().column(), RunColumnCount - 1);
    }

    void newPricesRepriceTheCostColumn()
    {
        RunManager manager;
        for (int i = 0; i < 5; ++i)
            manager.adoptRun(makeRun(u"r%1"_s.arg(i), u"R"_s, u"gpt-x"_s, usage(1000000, 0)), false);
        RunListModel model(&manager);
        QCOMPARE(model.data(model.index(0, CostColumn)).toString(), u"—"_s);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QVERIFY(manager.prices()->setTable(prices()));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.first().at(0).value<QModelIndex>(), model.index(0, CostColumn));
        QCOMPARE(changed.first().at(1).value<QModelIndex>(), model.index(4, CostColumn));
        QCOMPARE(model.data(model.index(3, CostColumn)).toString(), u"1.0000 USD"_s);
        // The same table again changes nothing.
        QVERIFY(manager.prices()->setTable(prices()));
        QCOMPARE(changed.count(), 1);
    }

    void totalsOfTheFilteredRows()
    {
        RunManager manager;
        manager.prices()->setTable(prices());
        manager.adoptRun(makeRun(u"a"_s, u"alpha report"_s, u"gpt-x"_s, usage(1000, 2000, 500)), false);
        manager.adoptRun(makeRun(u"b"_s, u"bravo report"_s, u"gpt-x"_s, usage(3000, 4000)), false);
        manager.adoptRun(makeRun(u"c"_s, u"charlie"_s, u"unpriced-model"_s, usage(5, -1)), false);
        manager.adoptRun(makeRun(u"d"_s, u"delta report"_s, u"gpt-x"_s, TokenUsage{}), false);
        RunListModel model(&manager);
        RunFilterProxy proxy;
        proxy.setSourceModel(&model);

        UsageTotals all = usageTotals(&proxy, manager.prices()->table());
        QCOMPARE(all.runs, 4);
        QCOMPARE(all.withUsage, 3);
        QCOMPARE(all.priced, 2);
        QCOMPARE(all.unpriced, 1);
        QCOMPARE(all.inputTokens, 4005);
        QCOMPARE(all.outputTokens, 6000);
        QCOMPARE(all.reasoningTokens, 500);
        QCOMPARE(all.cost, (4000 + 2 * 6000) / 1e6);
        QCOMPARE(formatUsageTotals(all, u"USD"_s),
                 u"4 runs · %1 tokens · 0.0160 USD · 1 without a price"_s.arg(QLocale().toString(10.0, 'f', 1)
                                                                              + u"k"_s));

        proxy.setText(u"report"_s);
        const UsageTotals reports = usageTotals(&proxy, manager.prices()->table());
        QCOMPARE(reports.runs, 3);
        QCOMPARE(reports.unpriced, 0);
        QCOMPARE(reports.tokens(), 10000);
        proxy.setText(u"delta"_s);
        QCOMPARE(formatUsageTotals(usageTotals(&proxy, manager.prices()->table()), u"USD"_s), u"1 run"_s);
        proxy.setText(u"charlie"_s);
        QCOMPARE(formatUsageTotals(usageTotals(&proxy, manager.prices()->table()), u"USD"_s),
                 u"1 run · 5 tokens · no prices set"_s);
        // The model itself (no proxy) sums every row.
        QCOMPARE(usageTotals(&model, manager.prices()->table()).runs, 4);
    }

    void shortTokenCounts()
    {
        const QLocale locale;
        QCOMPARE(formatTokensShort(950), u"950"_s);
        QCOMPARE(formatTokensShort(12345), locale.toString(12.3, 'f', 1) + u"k"_s);
        QCOMPARE(formatTokensShort(1234567), locale.toString(1.2, 'f', 1) + u"M"_s);
        QCOMPARE(formatTokensShort(123456789), u"123M"_s);
    }

    // Saved in the store's settings; a new store on the same file (another process: the CLI)
    // reads it back, a RunManager given that store prices with it.
    void priceBookRoundTrip()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(u"runs.sqlite"_s);
        {
            RunStore store;
            QVERIFY(store.open(path));
            PriceBook book;
            QSignalSpy changed(&book, &PriceBook::changed);
            book.setStore(&store);
            QVERIFY(book.table().isEmpty()); // the honest default
            QCOMPARE(changed.count(), 0);
            QVERIFY(book.setTable(prices()));
            QCOMPARE(changed.count(), 1);
            store.flush();
        }
        RunStore reopened;
        QVERIFY(reopened.open(path));
        QCOMPARE(PriceBook::load(reopened).prices, prices().prices);
        RunManager manager;
        QSignalSpy changed(manager.prices(), &PriceBook::changed);
        manager.setStore(&reopened);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(manager.prices()->table().currency, u"USD"_s);
        QCOMPARE(manager.prices()->costOf(makeRun(u"x"_s, u"X"_s, u"gpt-x"_s, usage(1000000, 1000000))), 3.0);
    }
};

QTEST_GUILESS_MAIN(TestUsageColumns)
#include "tst_usagecolumns.moc"
