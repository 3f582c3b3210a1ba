// SPDX-License-Identifier: GPL-3.0-or-later
#include "usagetotalslabel.h"

#include "domain/boundedwait.h"
#include "models/runfilterproxy.h"
#include "models/runformat.h"
#include "store/pricebook.h"

using namespace Qt::StringLiterals;

namespace Runwatch {

UsageTotalsLabel::UsageTotalsLabel(QAbstractItemModel *listed, PriceBook *prices, QWidget *parent)
    : QLabel(parent)
    , m_listed(listed)
    , m_prices(prices)
{
    setObjectName(u"usageTotals"_s);
    setAccessibleName(tr("Totals of the listed runs"));
    setAccessibleDescription(tr("Number of runs the filter lets through, their tokens and their cost"));
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_timer.setObjectName(u"usageTotals"_s);
    m_timer.setSingleShot(true);
    m_timer.setInterval(250);
    m_timer.setTimerType(kChoreTimer);
    connect(&m_timer, &QTimer::timeout, this, &UsageTotalsLabel::recompute);
    if (listed) {
        connect(listed, &QAbstractItemModel::rowsInserted, this, &UsageTotalsLabel::schedule);
        connect(listed, &QAbstractItemModel::rowsRemoved, this, &UsageTotalsLabel::schedule);
        connect(listed, &QAbstractItemModel::modelReset, this, &UsageTotalsLabel::schedule);
        // Only what can move a sum: the token and cost cells (a whole-row change covers them);
        // the duration ticker's cells do not.
        connect(listed, &QAbstractItemModel::dataChanged, this,
                [this](const QModelIndex &topLeft, const QModelIndex &bottomRight) {
                    if (topLeft.column() <= CostColumn && bottomRight.column() >= InputTokensColumn)
                        schedule();
                });
        if (auto *proxy = qobject_cast<RunFilterProxy *>(listed))
            connect(proxy, &RunFilterProxy::filterChanged, this, &UsageTotalsLabel::schedule);
    }
    if (prices)
        connect(prices, &PriceBook::changed, this, &UsageTotalsLabel::schedule);
    recompute();
}

void UsageTotalsLabel::schedule()
{
    // Not restarted while armed: a steady stream of changes still updates the totals every
    // interval instead of postponing them for as long as it lasts.
    if (!m_timer.isActive())
        m_timer.start();
}

void UsageTotalsLabel::recompute()
{
    m_timer.stop();
    const PriceTable prices = m_prices ? m_prices->table() : PriceTable{};
    m_totals = usageTotals(m_listed, prices);
    setText(formatUsageTotals(m_totals, prices.currency));
    setToolTip(usageTotalsDetails(m_totals, prices.currency));
}

} // namespace Runwatch
