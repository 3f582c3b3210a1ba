// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "store/threadconnection.h"

#include <QObject>
#include <QSet>
#include <QString>

#include <memory>
#include <optional>

namespace Runwatch::detail {

class StoreEngine;

// Renews every lease of `holder` by `ttlMs` from the database's clock, in one statement; returns
// the ids it renewed (those `holder` still holds), nullopt with *error on a database error.
std::optional<QSet<QString>> renewHolderLeases(const QSqlDatabase &db, const StoreEngine &engine,
                                               const QString &holder, int ttlMs, QString *error);

// The renewal on a thread and a connection of its own (RunStore::requestLeaseRenewal). Lives in
// RunStore's lease thread and is deleted there.
class LeaseKeeper final : public QObject
{
public:
    LeaseKeeper(std::shared_ptr<const StoreEngine> engine, QString holder);

    // On the keeper's thread: the leases of `ours` the holder no longer holds; nullopt on a
    // database error (the connection is made again for the next renewal).
    std::optional<QStringList> renew(const QSet<QString> &ours, int ttlMs);

private:
    std::shared_ptr<const StoreEngine> m_engine;
    QString m_holder;
    ThreadConnection m_connection;
};

} // namespace Runwatch::detail
