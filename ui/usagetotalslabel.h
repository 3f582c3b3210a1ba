// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "models/usagetotals.h"

#include <QLabel>
#include <QPointer>
#include <QTimer>

class QAbstractItemModel;

namespace Runwatch {

class PriceBook;

// The status bar's totals of the runs the filter lets through: "12 runs · 1.2M tokens ·
// 3.4000 USD", details in the tooltip. Coalesced: a change of the list (rows in or out, a filter,
// a usage report, new prices) only arms a single-shot timer, and the sum is taken once when it
// fires, so that a burst of deltas or a filter typed letter by letter costs one pass
// (bench_usage_totals measures a pass over 100,000 runs).
class UsageTotalsLabel final : public QLabel
{
    Q_OBJECT
public:
    UsageTotalsLabel(QAbstractItemModel *listed, PriceBook *prices, QWidget *parent = nullptr);

    // Sums now (tests, benchmarks); otherwise it happens when the timer fires.
    void recompute();
    const UsageTotals &totals() const { return m_totals; }
    bool isPending() const { return m_timer.isActive(); }
    void setDelay(int ms) { m_timer.setInterval(ms); }

private:
    void schedule();

    QPointer<QAbstractItemModel> m_listed;
    QPointer<PriceBook> m_prices;
    UsageTotals m_totals;
    QTimer m_timer;
};

} // namespace Runwatch
