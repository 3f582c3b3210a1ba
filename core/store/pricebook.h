// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/pricetable.h"

#include <QObject>

namespace Runwatch {

class RunStore;

// The one owner of the operator's price table (RunManager::prices()): loaded from the run store's
// shared settings (kPriceSettingKey), saved there when edited, so that the desktop app and
// `runwatch-cli` (which reads the same key through load()) price every run alike. Front ends
// listen to changed() to re-price what they show; nothing else in core caches a price.
class PriceBook final : public QObject
{
    Q_OBJECT
public:
    explicit PriceBook(QObject *parent = nullptr);

    // Reads the table of `store` (an empty one without a store or without a saved table).
    void setStore(RunStore *store);
    const PriceTable &table() const { return m_table; }
    // The cost of `run`, nullopt without usage or without a price for its model.
    std::optional<double> costOf(const Run &run) const;

    // Replaces the table and saves it to the store (when there is one). False, with the table
    // left as it was, when the store could not write it: the operator must not believe a price
    // is kept that the next start would not find.
    bool setTable(const PriceTable &table);

    // The saved table of `store`, for readers without a PriceBook (the CLI).
    static PriceTable load(const RunStore &store);

Q_SIGNALS:
    void changed();

private:
    RunStore *m_store = nullptr;
    PriceTable m_table;
};

} // namespace Runwatch
