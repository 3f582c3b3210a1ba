// SPDX-License-Identifier: GPL-3.0-or-later
#include "store/storedcounts.h"

#include "store/storeengine.h"

#include <QAtomicInteger>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QThread>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

// Ids per `IN (…)` list: well below both engines' limits on bound values.
constexpr qsizetype kIdsPerQuery = 500;

QAtomicInteger<quint64> connectionSerial;

// Adds the rows of a `SELECT status, COUNT(*) …` to `into`; false on an SQL error (in *error).
bool addCounts(QSqlQuery &q, QMap<RunStatus, int> *into, QString *error)
{
    if (!q.exec()) {
        *error = q.lastError().text();
        return false;
    }
    while (q.next())
        (*into)[statusFromName(q.value(0).toString())] += q.value(1).toInt();
    q.finish();
    return true;
}

} // namespace

StoredCounts::StoredCounts(const QString &location, QStringList held, QObject *parent)
    : QObject(parent)
{
    // `this` outlives the thread: the destructor waits for it.
    m_thread.reset(QThread::create([this, location, held = std::move(held)] {
        Result result = count(location, held);
        // Queued to this object's thread (dropped with the object, should it go first).
        QMetaObject::invokeMethod(
            this, [this, result = std::move(result)] { Q_EMIT finished(result); }, Qt::QueuedConnection);
    }));
    m_thread->start();
}

StoredCounts::~StoredCounts()
{
    if (m_thread)
        m_thread->wait();
}

StoredCounts::Result StoredCounts::count(const QString &location, const QStringList &held)
{
    Result result;
    const std::shared_ptr<const detail::StoreEngine> engine
        = detail::StoreEngine::forLocation(location, &result.error);
    if (!engine)
        return result;
    const QString name = u"runwatch-counts-%1"_s.arg(++connectionSerial);
    if (!engine->openConnection(name, &result.error))
        return result;
    {
        QSqlDatabase db = QSqlDatabase::database(name, false);
        // One snapshot for the count and the held runs' statuses: PostgreSQL's repeatable read,
        // SQLite's deferred transaction (its snapshot is taken by the first read and kept).
        const bool snapshot = engine->kind() == detail::StoreEngine::Kind::Sqlite ? db.transaction()
                                                                                  : engine->beginSnapshot(db);
        if (!snapshot) {
            result.error = db.lastError().text();
        } else {
            QSqlQuery q(db);
            q.setForwardOnly(true);
            // The status index (runs_finished) answers it without reading a row.
            q.prepare(u"SELECT status, COUNT(*) FROM runs GROUP BY status"_s);
            result.ok = addCounts(q, &result.all, &result.error);
            for (qsizetype from = 0; result.ok && from < held.size(); from += kIdsPerQuery) {
                const QStringList ids = held.mid(from, kIdsPerQuery);
                q.prepare(u"SELECT status, COUNT(*) FROM runs WHERE local_id IN (%1) GROUP BY status"_s.arg(
                    QStringList(ids.size(), u"?"_s).join(u',')));
                for (const QString &id : ids)
                    q.addBindValue(id);
                result.ok = addCounts(q, &result.held, &result.error);
            }
            q.finish();
            if (engine->kind() == detail::StoreEngine::Kind::Sqlite) {
                db.commit();
            } else {
                engine->endSnapshot(db);
            }
        }
        db.close();
    }
    QSqlDatabase::removeDatabase(name);
    return result;
}

} // namespace Runwatch
