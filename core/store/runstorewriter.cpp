// SPDX-License-Identifier: GPL-3.0-or-later
#include "store/runstorewriter.h"

#include <QHash>
#include <QLoggingCategory>
#include <QMutexLocker>
#include <QSqlError>

#include <algorithm>

using namespace Qt::StringLiterals;

Q_DECLARE_LOGGING_CATEGORY(lcStore)

namespace Runwatch::detail {

RunStoreWriter::RunStoreWriter(std::shared_ptr<const StoreEngine> engine, QString holderId,
                               std::function<void()> changed)
    : m_engine(std::move(engine))
    , m_connection(m_engine, u"writer"_s)
    , m_holderId(std::move(holderId))
    , m_changed(std::move(changed))
{}

RunStoreWriter::~RunStoreWriter()
{
    closeConnection();
}

void RunStoreWriter::closeConnection()
{
    // The prepared statements first: they belong to the connection.
    m_statements = {};
    m_open = false;
    m_connection.close();
}

bool RunStoreWriter::ensureOpen(QString *error)
{
    if (m_open || m_failed)
        return m_open;
    const QSqlDatabase db = m_connection.open(error);
    if (!db.isOpen() || !m_statements.prepare(db, m_engine, error)) {
        qCWarning(lcStore) << "run store writer:" << *error;
        closeConnection();
        // A file that does not open now will not later; a server may be back at the next try.
        m_failed = !m_engine->connectionCanDrop();
        return false;
    }
    m_open = true;
    return true;
}

void RunStoreWriter::write(const QList<RunWrite> &runs, quint64 generation, const LeaseReleases &newReleases)
{
    LeaseReleases releases = std::exchange(m_unwrittenReleases, {});
    for (const QString &id : newReleases.localIds) {
        if (!releases.localIds.contains(id))
            releases.localIds << id;
    }
    releases.all = releases.all || newReleases.all;
    // What failed last time goes again, each run replaced by its newer copy in this batch. The
    // usual case (nothing failed) takes the batch as it is.
    QList<RunWrite> batch = runs;
    if (!m_unwritten.isEmpty()) {
        batch = std::exchange(m_unwritten, {});
        QHash<QString, qsizetype> at;
        for (qsizetype i = 0; i < batch.size(); ++i)
            at.insert(batch.at(i).run->localId, i);
        for (const RunWrite &write : runs) {
            if (const auto it = at.constFind(write.run->localId); it != at.cend()) {
                // The newer state, compared with what is on disk: the failed write's baseline
                // and membership (the newer one's baseline is the failed state, which never got
                // there).
                batch[*it].run = write.run;
            } else {
                at.insert(write.run->localId, batch.size());
                batch.append(write);
            }
        }
    }
    // In one order in every process: a batch takes each run's row locks (runs, then its run_text
    // and run_items rows) as it writes it, and two processes writing the same runs in their own
    // hash orders (an old and a new holder around a take-over) each held a row the other waited
    // for — PostgreSQL's "deadlock detected", or a lock timeout, and the batch written again.
    std::sort(batch.begin(), batch.end(),
              [](const RunWrite &a, const RunWrite &b) { return a.run->localId < b.run->localId; });
    QString error;
    if (QString why; !ensureOpen(&why)) {
        error = why.isEmpty() ? u"cannot open the run store for writing"_s : why;
    } else {
        QSqlDatabase db = m_connection.database();
        db.transaction();
        QStringList gone;
        for (const RunWrite &write : std::as_const(batch)) {
            const auto outcome
                = m_statements.write(*write.run, write.baseline.get(), write.inStore, &error, true);
            if (outcome == RunWriteStatements::Outcome::Failed)
                break;
            if (outcome == RunWriteStatements::Outcome::Gone)
                gone << write.run->localId;
        }
        if (error.isEmpty() && !releases.isEmpty())
            releaseLeases(db, releases, &error);
        if (error.isEmpty() && !gone.isEmpty()) {
            qCInfo(lcStore) << "runs deleted by another process, not written back:" << gone;
            const QMutexLocker lock(&m_errorMutex);
            m_gone << gone;
        }
        if (error.isEmpty() && !db.commit())
            error = db.lastError().text();
        if (!error.isEmpty()) {
            db.rollback();
            // The connection may be what failed (a server restarted): the next try opens a new one.
            if (m_engine->connectionCanDrop()) {
                db = {};
                closeConnection();
            }
        }
    }
    const bool failedBefore = !this->error().isEmpty();
    bool foundGone = false;
    if (error.isEmpty()) {
        setError({});
        const QMutexLocker lock(&m_errorMutex);
        foundGone = !m_gone.isEmpty();
    } else {
        qCWarning(lcStore) << "run store write failed, kept for the next try:" << error;
        m_unwritten = std::move(batch);
        m_unwrittenReleases = std::move(releases);
        setError(error, m_unwritten);
    }
    m_completed.store(generation, std::memory_order_release);
    if (m_changed && (failedBefore || !error.isEmpty() || foundGone))
        m_changed();
}

bool RunStoreWriter::releaseLeases(const QSqlDatabase &db, const LeaseReleases &releases,
                                   QString *error) const
{
    QSqlQuery q(db);
    if (releases.all) {
        q.prepare(u"DELETE FROM run_leases WHERE holder = ?"_s);
        q.addBindValue(m_holderId);
        if (!q.exec()) {
            *error = q.lastError().text();
            return false;
        }
        return true;
    }
    q.prepare(u"DELETE FROM run_leases WHERE local_id = ? AND holder = ?"_s);
    for (const QString &id : releases.localIds) {
        q.addBindValue(id);
        q.addBindValue(m_holderId);
        if (!q.exec()) {
            *error = q.lastError().text();
            return false;
        }
    }
    return true;
}

void RunStoreWriter::cancelRelease(const QString &localId)
{
    m_unwrittenReleases.localIds.removeAll(localId);
}

QString RunStoreWriter::error() const
{
    const QMutexLocker lock(&m_errorMutex);
    return m_error;
}

QStringList RunStoreWriter::takeGone()
{
    const QMutexLocker lock(&m_errorMutex);
    return std::exchange(m_gone, {});
}

void RunStoreWriter::forget(const QString &localId)
{
    m_unwritten.removeIf([&localId](const RunWrite &write) { return write.run->localId == localId; });
    const QMutexLocker lock(&m_errorMutex);
    m_unwrittenIds.removeAll(localId);
}

QStringList RunStoreWriter::unwrittenIds() const
{
    const QMutexLocker lock(&m_errorMutex);
    return m_unwrittenIds;
}

void RunStoreWriter::setError(const QString &error, const QList<RunWrite> &unwritten)
{
    QStringList ids;
    ids.reserve(unwritten.size());
    for (const RunWrite &write : unwritten)
        ids << write.run->localId;
    const QMutexLocker lock(&m_errorMutex);
    m_error = error;
    m_unwrittenIds = std::move(ids);
}

} // namespace Runwatch::detail
