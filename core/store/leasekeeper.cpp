// SPDX-License-Identifier: GPL-3.0-or-later
#include "store/leasekeeper.h"

#include "store/storeengine.h"

#include <QLoggingCategory>
#include <QSqlError>
#include <QSqlQuery>

using namespace Qt::StringLiterals;

Q_DECLARE_LOGGING_CATEGORY(lcStore)

namespace Runwatch::detail {

std::optional<QSet<QString>> renewHolderLeases(const QSqlDatabase &db, const StoreEngine &engine,
                                               const QString &holder, int ttlMs, QString *error)
{
    // The rows it changed are the answer (RETURNING: SQLite 3.35, PostgreSQL 8.2): a lease lost to
    // another process is one row fewer, whatever else changed since it was taken.
    QSqlQuery q(db);
    q.setForwardOnly(true);
    q.prepare(u"UPDATE run_leases SET expires_at = %1 + %2 WHERE holder = ? RETURNING local_id"_s
                  .arg(engine.nowMs())
                  .arg(ttlMs));
    q.addBindValue(holder);
    if (!q.exec()) {
        *error = q.lastError().text();
        return std::nullopt;
    }
    QSet<QString> held;
    while (q.next())
        held.insert(q.value(0).toString());
    // SQLite ends the statement, and with it the write, only once its rows have been read.
    q.finish();
    return held;
}

LeaseKeeper::LeaseKeeper(std::shared_ptr<const StoreEngine> engine, QString holder)
    : m_engine(std::move(engine))
    , m_holder(std::move(holder))
    , m_connection(m_engine, u"leases"_s)
{}

std::optional<QStringList> LeaseKeeper::renew(const QSet<QString> &ours, int ttlMs)
{
    QString error;
    const QSqlDatabase db = m_connection.open(&error);
    std::optional<QSet<QString>> held;
    if (db.isOpen())
        held = renewHolderLeases(db, *m_engine, m_holder, ttlMs, &error);
    if (!held) {
        qCWarning(lcStore) << "leases not renewed:" << error;
        m_connection.close();
        return std::nullopt;
    }
    QStringList lost;
    for (const QString &id : ours) {
        if (!held->contains(id))
            lost << id;
    }
    return lost;
}

} // namespace Runwatch::detail
