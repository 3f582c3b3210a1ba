// SPDX-License-Identifier: GPL-3.0-or-later
#include "store/pricebook.h"

#include "store/runstore.h"

namespace Runwatch {

PriceBook::PriceBook(QObject *parent)
    : QObject(parent)
{}

PriceTable PriceBook::load(const RunStore &store)
{
    return PriceTable::fromJson(store.setting(QString::fromLatin1(kPriceSettingKey)));
}

void PriceBook::setStore(RunStore *store)
{
    m_store = store;
    PriceTable loaded = store ? load(*store) : PriceTable{};
    if (loaded.currency == m_table.currency && loaded.prices == m_table.prices)
        return;
    m_table = std::move(loaded);
    Q_EMIT changed();
}

std::optional<double> PriceBook::costOf(const Run &run) const
{
    return Runwatch::costOf(run, m_table);
}

bool PriceBook::setTable(const PriceTable &table)
{
    if (m_store && !m_store->saveSetting(QString::fromLatin1(kPriceSettingKey), table.toJson()))
        return false;
    if (table.currency == m_table.currency && table.prices == m_table.prices)
        return true;
    m_table = table;
    Q_EMIT changed();
    return true;
}

} // namespace Runwatch
