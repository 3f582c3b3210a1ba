// SPDX-License-Identifier: GPL-3.0-or-later
// Schema 8: what lets a team's processes share one store without doing a thing twice — a lease per
// followed run (one stream to the service, however many watch it), a claim per answered input
// request (one answer sent), and the operator journal (who did what, when). The same statements on
// SQLite and PostgreSQL (SQLite ≥ 3.24 takes PostgreSQL's ON CONFLICT … DO UPDATE … WHERE); only
// the clock's SQL comes from the engine.
#include "store/runstore.h"

#include "net/threadhandoff.h"
#include "store/leasekeeper.h"

#include <QCoreApplication>
#include <QLoggingCategory>
#include <QSqlError>
#include <QSqlQuery>
#include <QSysInfo>
#include <QUuid>

#ifdef Q_OS_UNIX
#include <cerrno>
#include <csignal>
#include <pwd.h>
#include <unistd.h>
#endif

using namespace Qt::StringLiterals;

Q_DECLARE_LOGGING_CATEGORY(lcStore)

namespace Runwatch {

namespace {
QString isoMs(const QDateTime &at)
{
    return at.toUTC().toString(Qt::ISODateWithMs);
}

// Whether a process of this host with this id still runs (EPERM: it does, as another user).
bool processAlive(qint64 pid)
{
#ifdef Q_OS_UNIX
    if (pid <= 0)
        return false;
    return ::kill(pid_t(pid), 0) == 0 || errno == EPERM;
#else
    Q_UNUSED(pid);
    return true; // no way to tell: the lease expires instead
#endif
}
} // namespace

// Leases expire by the database's clock (StoreEngine::nowMs), so the team's clocks need not
// agree. The journal and the answer claims are ordered by `at` (ISO 8601 UTC with milliseconds).
bool RunStore::migrateTo8()
{
    const QString bigint = m_engine->bigint();
    const QString options = m_engine->tableOptions();
    return exec(u"CREATE TABLE IF NOT EXISTS run_leases (local_id TEXT PRIMARY KEY, holder TEXT NOT NULL, "
                "operator TEXT, host TEXT, pid %1, expires_at %1 NOT NULL)%2"_s.arg(bigint, options))
           && exec(u"CREATE TABLE IF NOT EXISTS run_answers (local_id TEXT NOT NULL, request TEXT NOT NULL, "
                   "holder TEXT, operator TEXT, host TEXT, at TEXT, PRIMARY KEY (local_id, request))%1"_s.arg(
                       options))
           && exec(u"CREATE TABLE IF NOT EXISTS run_journal (id TEXT PRIMARY KEY, local_id TEXT NOT NULL, "
                   "at TEXT NOT NULL, operator TEXT, host TEXT, action TEXT NOT NULL, detail TEXT)%1"_s.arg(
                       options))
           && exec(u"CREATE INDEX IF NOT EXISTS run_journal_run ON run_journal(local_id, at)"_s);
}

RunStore::Operator RunStore::currentOperator()
{
    Operator who;
    who.host = QSysInfo::machineHostName();
    who.name = qEnvironmentVariable("RUNWATCH_OPERATOR");
#ifdef Q_OS_UNIX
    if (who.name.isEmpty()) {
        if (const passwd *pw = ::getpwuid(::getuid()))
            who.name = QString::fromLocal8Bit(pw->pw_name);
    }
#endif
    if (who.name.isEmpty())
        who.name = qEnvironmentVariable("USER", qEnvironmentVariable("USERNAME"));
    return who;
}

bool RunStore::acquireLease(const QString &localId, std::optional<LeaseHolder> *other)
{
    if (other)
        other->reset();
    if (!isOpen())
        return true; // no store, no one else: follow
    // Taken again before an earlier release of it went (a follow-up right after the run ended):
    // that release must not delete the lease taken now. One handed to the writer is either done
    // once this round trip returns (batches go in order) or, kept from a failed batch, dropped.
    m_releases.remove(localId);
    if (m_writer && m_releasing.remove(localId) > 0) {
        detail::invokeAcross(
            m_writer, [writer = m_writer, localId] { writer->cancelRelease(localId); },
            Qt::BlockingQueuedConnection);
    }
    const Operator who = currentOperator();
    const QString now = m_engine->nowMs();
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    // Insert, or take over a lease that is ours or expired: one statement, so two processes
    // cannot both succeed; the rows it changed say whether this one did.
    q.prepare(
        u"INSERT INTO run_leases (local_id, holder, operator, host, pid, expires_at) "
        "VALUES (?, ?, ?, ?, ?, %1 + %2) ON CONFLICT (local_id) DO UPDATE SET holder = excluded.holder, "
        "operator = excluded.operator, host = excluded.host, pid = excluded.pid, "
        "expires_at = excluded.expires_at "
        "WHERE run_leases.holder = excluded.holder OR run_leases.expires_at < %1"_s.arg(now)
            .arg(kLeaseTtlMs));
    q.addBindValue(localId);
    q.addBindValue(m_holderId);
    q.addBindValue(who.name);
    q.addBindValue(who.host);
    q.addBindValue(QCoreApplication::applicationPid());
    if (!q.exec()) {
        m_error = q.lastError().text();
        qCWarning(lcStore) << "lease on" << localId << "not taken:" << m_error;
        return false;
    }
    if (q.numRowsAffected() > 0) {
        m_takenAt.insert(localId, m_renewalSerial);
        return true;
    }
    const std::optional<LeaseHolder> holder = leaseHolder(localId);
    if (!holder)
        return acquireLease(localId, other); // expired or released between the two statements
    // A holder on this host whose process is gone (killed, crashed) holds nothing: the run goes
    // on at once rather than after the lease's life.
    if (holderGone(*holder) && takeFromDeadHolder(localId, *holder)) {
        m_takenAt.insert(localId, m_renewalSerial);
        return true;
    }
    if (other)
        *other = holder;
    return false;
}

QString RunStore::leaseDiagnosis(const QString &localId) const
{
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    q.prepare(
        u"SELECT holder, pid, expires_at - %1 FROM run_leases WHERE local_id = ?"_s.arg(m_engine->nowMs()));
    q.addBindValue(localId);
    if (!q.exec())
        return u"error "_s + q.lastError().text();
    if (!q.next())
        return u"no row"_s;
    return u"holder %1 pid %2 expires in %3 ms"_s.arg(q.value(0).toString())
        .arg(q.value(1).toLongLong())
        .arg(q.value(2).toLongLong());
}

bool RunStore::holderGone(const LeaseHolder &holder)
{
    return holder.host == QSysInfo::machineHostName() && holder.pid != QCoreApplication::applicationPid()
           && !processAlive(holder.pid);
}

bool RunStore::takeFromDeadHolder(const QString &localId, const LeaseHolder &dead)
{
    const Operator who = currentOperator();
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    // Still the dead one's: another process may have taken it meanwhile.
    q.prepare(u"UPDATE run_leases SET holder = ?, operator = ?, host = ?, pid = ?, expires_at = %1 + %2 "
              "WHERE local_id = ? AND holder = ?"_s.arg(m_engine->nowMs())
                  .arg(kLeaseTtlMs));
    q.addBindValue(m_holderId);
    q.addBindValue(who.name);
    q.addBindValue(who.host);
    q.addBindValue(QCoreApplication::applicationPid());
    q.addBindValue(localId);
    q.addBindValue(dead.holder);
    return q.exec() && q.numRowsAffected() > 0;
}

std::optional<QSet<QString>> RunStore::renewLeases()
{
    if (!isOpen())
        return std::nullopt;
    QString error;
    std::optional<QSet<QString>> held = detail::renewHolderLeases(
        QSqlDatabase::database(m_connectionName, false), *m_engine, m_holderId, kLeaseTtlMs, &error);
    if (!held)
        qCWarning(lcStore) << "leases not renewed:" << error;
    return held;
}

bool RunStore::requestLeaseRenewal(QSet<QString> ours)
{
    // Done once the keeper has renewed, not once its answer is here: a long synchronous stretch
    // of this thread (`resume` taking a thousand leases one by one) asks again every few seconds
    // and the keeper renews meanwhile, their answers waiting in the queue.
    if (!m_leaseKeeper || m_renewing.load())
        return false;
    m_renewing.store(true);
    const quint64 serial = ++m_renewalSerial;
    // The answer comes back queued to this object: close() deletes the keeper (after the renewal
    // it was given) before this object can go, and an answer for a store closed or opened again
    // meanwhile (another generation) is dropped.
    detail::invokeAcross(m_leaseKeeper, [this, keeper = m_leaseKeeper, generation = m_readerGeneration,
                                         serial, ours = std::move(ours)] {
        std::optional<QStringList> lost = keeper->renew(ours, kLeaseTtlMs);
        m_renewing.store(false);
        detail::invokeAcross(
            this,
            [this, generation, serial, lost = std::move(lost)] {
                if (generation == m_readerGeneration)
                    settleRenewal(serial, lost);
            },
            Qt::QueuedConnection);
    });
    return true;
}

void RunStore::settleRenewal(quint64 serial, std::optional<QStringList> lost)
{
    // A lease taken (again) since this renewal was asked for is held whatever it found.
    if (lost) {
        lost->removeIf([this, serial](const QString &id) { return m_takenAt.value(id, 0) >= serial; });
    }
    if (serial == m_renewalSerial)
        m_takenAt.clear(); // no renewal asked before those takes is still on its way
    if (lost)
        Q_EMIT leasesRenewed(*lost);
}

bool RunStore::hasUnwrittenState(const QString &localId) const
{
    return m_writer
           && (pendingRun(localId) || inFlight(localId) || m_writer->unwrittenIds().contains(localId));
}

bool RunStore::releasesPending()
{
    settleReleases();
    return !m_releases.isEmpty() || !m_releasing.isEmpty() || m_releaseAll;
}

void RunStore::settleReleases()
{
    if (m_releasing.isEmpty() || !m_writer)
        return;
    // completed() before error(): the writer sets its error before it marks a batch done, so a
    // batch counted done here whose write failed shows its error (and its releases wait).
    const quint64 done = m_writer->completed();
    if (m_writer->error().isEmpty())
        m_releasing.removeIf([done](const auto &entry) { return entry.value() <= done; });
}

// A released lease goes with the batch that writes its run's last state, or with any later one
// (batches are written in order): not before, however many runs wait for a later batch.
detail::RunStoreWriter::LeaseReleases RunStore::takeReleases(quint64 generation)
{
    detail::RunStoreWriter::LeaseReleases releases;
    for (auto it = m_releases.begin(); it != m_releases.end();) {
        if (pendingRun(*it)) {
            ++it;
            continue;
        }
        releases.localIds << *it;
        m_releasing.insert(*it, generation);
        it = m_releases.erase(it);
    }
    if (m_releaseAll && !hasPending()) {
        releases.all = true;
        m_releaseAll = false;
    }
    if (!releases.isEmpty())
        m_releaseGeneration = generation;
    return releases;
}

// Why the writer releases, in the transaction that writes the run's last state, and not this
// connection once it is written: a release here before that transaction commits let another
// process find the lease free beside a stored state that is not terminal yet, take the run over
// and open one more stream to the service for an ended run (and write the run beside this
// process's writer). Waiting for the writer here instead (flush()) would block the GUI thread for
// a round trip per ended run. The lease is held at most a batch longer, and a failed write keeps
// it until the write goes through (or the lease expires: then the stored state is the last word).
void RunStore::releaseLease(const QString &localId)
{
    if (!isOpen())
        return;
    if (hasUnwrittenState(localId)) {
        m_releases.insert(localId);
        // Handed over at once: the lease is not held longer than the write takes.
        if (!m_flushTimer.isActive() || m_flushTimer.remainingTime() > 0)
            m_flushTimer.start(0);
        return;
    }
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    q.prepare(u"DELETE FROM run_leases WHERE local_id = ? AND holder = ?"_s);
    q.addBindValue(localId);
    q.addBindValue(m_holderId);
    q.exec();
}

void RunStore::releaseAllLeases()
{
    if (!isOpen())
        return;
    m_releases.clear();
    if (m_writer
        && (hasPending() || !m_inFlight.isEmpty() || !m_writeError.isEmpty()
            || !m_writer->unwrittenIds().isEmpty())) {
        m_releaseAll = true;
        if (!m_flushTimer.isActive() || m_flushTimer.remainingTime() > 0)
            m_flushTimer.start(0);
        return;
    }
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    q.prepare(u"DELETE FROM run_leases WHERE holder = ?"_s);
    q.addBindValue(m_holderId);
    q.exec();
}

std::optional<RunStore::LeaseHolder> RunStore::leaseHolder(const QString &localId) const
{
    if (!isOpen())
        return std::nullopt;
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    q.prepare(
        u"SELECT holder, operator, host, pid FROM run_leases WHERE local_id = ? AND expires_at >= %1"_s.arg(
            m_engine->nowMs()));
    q.addBindValue(localId);
    if (!q.exec() || !q.next())
        return std::nullopt;
    return LeaseHolder{.holder = q.value(0).toString(),
                       .operatorName = q.value(1).toString(),
                       .host = q.value(2).toString(),
                       .pid = q.value(3).toLongLong()};
}

std::optional<QHash<QString, RunStore::LeaseHolder>> RunStore::leaseHolders() const
{
    if (!isOpen())
        return std::nullopt;
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    q.setForwardOnly(true);
    // The table holds the team's followed runs, not its history: a few thousand rows at most.
    if (!q.exec(u"SELECT local_id, holder, operator, host, pid FROM run_leases WHERE expires_at >= %1"_s.arg(
            m_engine->nowMs()))) {
        m_error = q.lastError().text();
        return std::nullopt;
    }
    QHash<QString, LeaseHolder> holders;
    while (q.next()) {
        holders.insert(q.value(0).toString(), LeaseHolder{.holder = q.value(1).toString(),
                                                          .operatorName = q.value(2).toString(),
                                                          .host = q.value(3).toString(),
                                                          .pid = q.value(4).toLongLong()});
    }
    return holders;
}

RunStore::AnswerClaim RunStore::claimAnswer(const QString &localId, const QString &requestKey)
{
    AnswerClaim claim;
    if (!isOpen()) {
        claim.ours = true;
        return claim;
    }
    const Operator who = currentOperator();
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    // The unique key decides between two answers given at the same moment.
    q.prepare(
        u"INSERT INTO run_answers (local_id, request, holder, operator, host, at) VALUES (?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (local_id, request) DO NOTHING"_s);
    q.addBindValue(localId);
    q.addBindValue(requestKey);
    q.addBindValue(m_holderId);
    q.addBindValue(who.name);
    q.addBindValue(who.host);
    q.addBindValue(isoMs(QDateTime::currentDateTimeUtc()));
    if (!q.exec()) {
        m_error = q.lastError().text();
        claim.failed = true;
        return claim;
    }
    if (q.numRowsAffected() > 0) {
        claim.ours = true;
        return claim;
    }
    q.prepare(u"SELECT operator, host, at FROM run_answers WHERE local_id = ? AND request = ?"_s);
    q.addBindValue(localId);
    q.addBindValue(requestKey);
    if (!q.exec() || !q.next()) {
        // Released between the two statements: the answer is free again.
        return claimAnswer(localId, requestKey);
    }
    claim.operatorName = q.value(0).toString();
    claim.host = q.value(1).toString();
    claim.at = QDateTime::fromString(q.value(2).toString(), Qt::ISODateWithMs);
    return claim;
}

std::optional<RunStore::AnswerClaim> RunStore::lastAnswer(const QString &localId) const
{
    if (!isOpen())
        return std::nullopt;
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    q.prepare(u"SELECT operator, host, at FROM run_answers WHERE local_id = ? ORDER BY at DESC"_s);
    q.addBindValue(localId);
    if (!q.exec() || !q.next())
        return std::nullopt;
    AnswerClaim claim;
    claim.operatorName = q.value(0).toString();
    claim.host = q.value(1).toString();
    claim.at = QDateTime::fromString(q.value(2).toString(), Qt::ISODateWithMs);
    return claim;
}

void RunStore::releaseAnswer(const QString &localId, const QString &requestKey)
{
    if (!isOpen())
        return;
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    q.prepare(u"DELETE FROM run_answers WHERE local_id = ? AND request = ? AND holder = ?"_s);
    q.addBindValue(localId);
    q.addBindValue(requestKey);
    q.addBindValue(m_holderId);
    q.exec();
}

bool RunStore::addJournal(const QString &localId, const QString &action, const QString &detail)
{
    if (!isOpen())
        return false;
    const Operator who = currentOperator();
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    q.prepare(u"INSERT INTO run_journal (id, local_id, at, operator, host, action, detail) "
              "VALUES (?, ?, ?, ?, ?, ?, ?)"_s);
    q.addBindValue(QUuid::createUuid().toString(QUuid::WithoutBraces));
    q.addBindValue(localId);
    q.addBindValue(isoMs(QDateTime::currentDateTimeUtc()));
    q.addBindValue(who.name);
    q.addBindValue(who.host);
    q.addBindValue(action);
    q.addBindValue(detail);
    if (!q.exec()) {
        m_error = q.lastError().text();
        qCWarning(lcStore) << "journal entry not written:" << m_error;
        return false;
    }
    return true;
}

QList<RunStore::JournalEntry> RunStore::journal(const QString &localId) const
{
    QList<JournalEntry> out;
    if (!isOpen())
        return out;
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    q.prepare(
        u"SELECT at, operator, host, action, detail FROM run_journal WHERE local_id = ? ORDER BY at, id"_s);
    q.addBindValue(localId);
    if (!q.exec())
        return out;
    while (q.next()) {
        out << JournalEntry{.at = QDateTime::fromString(q.value(0).toString(), Qt::ISODateWithMs),
                            .operatorName = q.value(1).toString(),
                            .host = q.value(2).toString(),
                            .action = q.value(3).toString(),
                            .detail = q.value(4).toString()};
    }
    return out;
}

} // namespace Runwatch
