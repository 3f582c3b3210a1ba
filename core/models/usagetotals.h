// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/pricetable.h"

#include <QString>

class QAbstractItemModel;

namespace Runwatch {

// The token usage and cost of a set of runs (the status bar's totals of the runs the filter
// lets through). Counts a service did not report add nothing; a run with usage but no price for
// its model is counted in `unpriced`, so that a total is never shown as complete when it is not.
struct UsageTotals
{
    int runs = 0;
    int withUsage = 0; // runs that reported any count
    int priced = 0;    // of those, runs with a price for their model
    int unpriced = 0;  // of those, runs without one
    qint64 inputTokens = 0;
    qint64 outputTokens = 0; // reasoning included (OpenAI counts it within output)
    qint64 reasoningTokens = 0;
    double cost = 0;

    void add(const Run &run, const ModelPrice *price);
    qint64 tokens() const { return inputTokens + outputTokens; }
};

// Sums the runs listed by `model`, a RunFilterProxy over a RunListModel (or the RunListModel
// itself), in one pass. Price lookups are cached per model name for the pass: one hash lookup
// per run instead of a scan of the table.
UsageTotals usageTotals(const QAbstractItemModel *model, const PriceTable &prices);

// "12 run(s) · 1.2M tokens · 3.4000 USD", "· 2 without a price" when some could not be priced,
// "· no prices set" when none could. Just "12 run(s)" when no run reported usage.
QString formatUsageTotals(const UsageTotals &totals, const QString &currency);
// The details for a tooltip: input, output, reasoning with digit grouping, priced runs.
QString usageTotalsDetails(const UsageTotals &totals, const QString &currency);

} // namespace Runwatch
