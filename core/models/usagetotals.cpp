// SPDX-License-Identifier: GPL-3.0-or-later
#include "usagetotals.h"

#include "runfilterproxy.h"
#include "runformat.h"
#include "runlistmodel.h"

#include <QCoreApplication>
#include <QHash>

using namespace Qt::StringLiterals;

namespace Runwatch {

void UsageTotals::add(const Run &run, const ModelPrice *price)
{
    ++runs;
    const TokenUsage &u = run.usage;
    if (!u.isKnown())
        return;
    ++withUsage;
    inputTokens += qMax<qint64>(0, u.inputTokens);
    outputTokens += qMax<qint64>(0, u.outputTokens);
    reasoningTokens += qMax<qint64>(0, u.reasoningTokens);
    const auto c = price ? costOf(u, *price) : std::nullopt;
    if (c) {
        ++priced;
        cost += *c;
    } else {
        ++unpriced;
    }
}

UsageTotals usageTotals(const QAbstractItemModel *model, const PriceTable &prices)
{
    UsageTotals totals;
    if (!model)
        return totals;
    const auto *proxy = qobject_cast<const RunFilterProxy *>(model);
    const RunListModel *runs = proxy ? proxy->runModel() : qobject_cast<const RunListModel *>(model);
    if (!runs)
        return totals;
    QHash<QString, const ModelPrice *> priceOf;
    const int rows = model->rowCount();
    for (int r = 0; r < rows; ++r) {
        const int source = proxy ? proxy->mapToSource(proxy->index(r, 0)).row() : r;
        const Run *run = runs->runAt(source);
        if (!run)
            continue;
        auto it = priceOf.constFind(run->model);
        if (it == priceOf.cend())
            it = priceOf.insert(run->model, prices.priceFor(run->model));
        totals.add(*run, *it);
    }
    return totals;
}

QString formatUsageTotals(const UsageTotals &totals, const QString &currency)
{
    QString text = QCoreApplication::translate("UsageTotals", "%n run(s)", nullptr, totals.runs);
    if (totals.withUsage == 0)
        return text;
    text += u" · "_s
            + QCoreApplication::translate("UsageTotals", "%1 tokens").arg(formatTokensShort(totals.tokens()));
    if (totals.priced == 0)
        return text + u" · "_s + QCoreApplication::translate("UsageTotals", "no prices set");
    text += u" · "_s + formatCost(totals.cost, currency);
    if (totals.unpriced > 0) {
        text += u" · "_s
                + QCoreApplication::translate("UsageTotals", "%n without a price", nullptr, totals.unpriced);
    }
    return text;
}

QString usageTotalsDetails(const UsageTotals &totals, const QString &currency)
{
    QStringList lines;
    lines << QCoreApplication::translate("UsageTotals", "Runs listed: %1").arg(totals.runs);
    lines << QCoreApplication::translate("UsageTotals", "Runs that reported token usage: %1")
                 .arg(totals.withUsage);
    lines << QCoreApplication::translate("UsageTotals", "Input tokens: %1")
                 .arg(formatTokens(totals.inputTokens));
    lines << QCoreApplication::translate("UsageTotals", "Output tokens: %1 (%2 reasoning)")
                 .arg(formatTokens(totals.outputTokens), formatTokens(totals.reasoningTokens));
    if (totals.priced > 0) {
        lines << QCoreApplication::translate("UsageTotals", "Cost of %n priced run(s): %1", nullptr,
                                             totals.priced)
                     .arg(formatCost(totals.cost, currency));
    }
    if (totals.unpriced > 0) {
        lines << QCoreApplication::translate("UsageTotals",
                                             "%n run(s) without a price for their model (Settings › Prices…)",
                                             nullptr, totals.unpriced);
    }
    return lines.join(u'\n');
}

} // namespace Runwatch
