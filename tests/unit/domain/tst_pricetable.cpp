// SPDX-License-Identifier: GPL-3.0-or-later
// The price table and the cost rule (core/domain/pricetable.*), and TokenUsage's arithmetic and JSON.
#include "domain/pricetable.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

class TestPriceTable final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void emptyByDefault()
    {
        const PriceTable table = PriceTable::fromJson({});
        QVERIFY(table.isEmpty());
        Run run;
        run.model = u"gpt-5.4"_s;
        run.usage = {1000, 1000, 0};
        QVERIFY(!costOf(run, table)); // no built-in prices
    }

    void roundTripAndTolerance()
    {
        const QJsonObject stored = QJsonDocument::fromJson(R"({"currency":"USD","models":[
            {"model":"gpt-5.4","input_per_million":1.25,"output_per_million":10},
            {"model":" o3 ","input_per_million":2,"output_per_million":8},
            {"model":"","input_per_million":1,"output_per_million":1},
            {"model":"neg","input_per_million":-1,"output_per_million":1},
            {"model":"str","input_per_million":"1","output_per_million":1},
            {"model":"missing","input_per_million":1},
            "junk", 7]})")
                                       .object();
        const PriceTable table = PriceTable::fromJson(stored);
        QCOMPARE(table.currency, u"USD"_s);
        QCOMPARE(table.prices.size(), 2);
        QCOMPARE(table.prices.at(1).model, u"o3"_s);
        QCOMPARE(PriceTable::fromJson(table.toJson()).prices, table.prices);
        QVERIFY(PriceTable::fromJson(QJsonObject{{u"models"_s, 5}}).isEmpty());
    }

    void modelMatching()
    {
        PriceTable table;
        table.prices = {{u"gpt-4o"_s, 2.5, 10}, {u"gpt-4o-mini"_s, 0.15, 0.6}};
        QCOMPARE(table.priceFor(u"gpt-4o"_s)->model, u"gpt-4o"_s);
        QCOMPARE(table.priceFor(u"gpt-4o-2024-08-06"_s)->model, u"gpt-4o"_s);
        QCOMPARE(table.priceFor(u"gpt-4o-mini-2024-07-18"_s)->model, u"gpt-4o-mini"_s);
        QVERIFY(!table.priceFor(u"gpt-4"_s));
        QVERIFY(!table.priceFor(u"gpt-4omni"_s));
        QVERIFY(!table.priceFor({}));
    }

    // Reasoning tokens are part of output_tokens: billing them again would charge twice.
    void costNeverBillsReasoningTwice()
    {
        const ModelPrice price{u"o3"_s, 2.0, 8.0};
        const auto cost = costOf(TokenUsage{1'000'000, 500'000, 400'000}, price);
        QVERIFY(cost);
        QCOMPARE(*cost, 2.0 + 4.0);
        QCOMPARE(*costOf(TokenUsage{-1, 250'000, -1}, price), 2.0);
        QVERIFY(!costOf(TokenUsage{}, price));
        QVERIFY(!costOf(TokenUsage{-1, -1, 10}, price));
    }

    void runCost()
    {
        PriceTable table;
        table.currency = u"EUR"_s;
        table.prices = {{u"gpt-5.4"_s, 1.0, 2.0}};
        Run run;
        run.model = u"gpt-5.4"_s;
        QVERIFY(!costOf(run, table)); // usage not reported
        run.usage = {3000, 1000, -1};
        QCOMPARE(*costOf(run, table), 0.005);
        QCOMPARE(formatCost(*costOf(run, table), table.currency), u"0.0050 EUR"_s);
        QCOMPARE(formatCost(1.5, {}), u"1.5000"_s);
        run.model = u"other"_s;
        QVERIFY(!costOf(run, table));
    }

    void usageArithmeticAndJson()
    {
        QCOMPARE((TokenUsage{1, -1, -1}.plus({2, 3, -1})), (TokenUsage{3, 3, -1}));
        QCOMPARE(TokenUsage{}.plus({}), TokenUsage{});
        QVERIFY(!TokenUsage{}.isKnown());
        const TokenUsage u{5, 0, -1};
        QCOMPARE(u.toJson().size(), 2);
        QCOMPARE(TokenUsage::fromJson(u.toJson()), u);
        QCOMPARE(TokenUsage::fromJson(QJsonObject{{u"input_tokens"_s, -3}, {u"output_tokens"_s, 1.5}}),
                 TokenUsage{});
        ContinuationToken token;
        token.remoteId = u"r"_s;
        token.usageBase = {10, 2, 1};
        QCOMPARE(ContinuationToken::fromJson(token.toJson()), token);
        QCOMPARE(ContinuationToken::fromJson(QJsonObject{{u"usage_base"_s, u"x"_s}}).usageBase, TokenUsage{});
    }

    void usageSummaryNamesGaps()
    {
        QCOMPARE(usageSummary({12, 3, 2}), u"tokens: 12 input · 3 output (2 reasoning)"_s);
        QCOMPARE(usageSummary({12, -1, -1}), u"tokens: 12 input · output not reported"_s);
    }
};

QTEST_GUILESS_MAIN(TestPriceTable)
#include "tst_pricetable.moc"
