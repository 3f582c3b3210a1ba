// SPDX-License-Identifier: GPL-3.0-or-later
// RunStore's reads on this thread's connection: single runs, listings (whole or a page at a time),
// the timings the stuck rule needs and what other processes may change on a followed run. A save
// that is scheduled or being written wins over what the file holds.
#include "store/runstore.h"

#include "net/threadhandoff.h"
#include "store/changedrunsreader.h"
#include "store/runstorerows.h"

#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QStringView>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Runwatch {

std::optional<Run> RunStore::queryOne(const QString &condition, const QString &value) const
{
    if (!isOpen())
        return std::nullopt;
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    q.prepare(u"SELECT %1 WHERE %2 LIMIT 1"_s.arg(detail::selectRuns(false), condition));
    // Every `?` of the condition stands for the same value.
    for (qsizetype i = condition.count(u'?'); i > 0; --i)
        q.addBindValue(value);
    if (!q.exec() || !q.next())
        return std::nullopt;
    detail::RunRowReader reader(QSqlDatabase::database(m_connectionName, false));
    return reader.read(q, false);
}

std::optional<Run> RunStore::loadRun(const QString &localId) const
{
    if (const Run *run = pendingRun(localId))
        return *run;
    if (const detail::RunWrite *write = inFlight(localId))
        return write->toRun();
    return queryOne(u"r.local_id = ?"_s, localId);
}

std::optional<Run> RunStore::findRun(const QString &idOrRemoteId) const
{
    if (auto run = loadRun(idOrRemoteId))
        return run;
    // Several local runs can share a remote id (a thread whose follow-ups are runs on it): the
    // latest is the one a script means.
    if (auto run = queryOne(u"r.remote_id = ? ORDER BY r.created_at DESC"_s, idOrRemoteId))
        return run;
    // A run that went on in new remote objects (an OpenAI response continued with
    // previous_response_id) is found by every id it went through: a script may hold the first.
    return queryOne(m_engine->earlierRemoteIdCondition(), idOrRemoteId);
}

bool RunStore::pushesChanges() const
{
    return m_engine && !m_engine->changeChannel().isEmpty();
}

QStringList RunStore::takeUnwritten(const QStringList &localIds, QHash<QString, Run> *runs) const
{
    QStringList toRead;
    QSet<QString> seen;
    for (const QString &id : localIds) {
        if (seen.contains(id))
            continue;
        seen.insert(id);
        // A save that is scheduled or being written wins over what the file holds (loadRun()).
        if (const Run *run = pendingRun(id)) {
            runs->insert(id, *run);
        } else if (const detail::RunWrite *written = inFlight(id)) {
            runs->insert(id, written->toRun());
        } else {
            toRead << id;
        }
    }
    return toRead;
}

std::optional<QHash<QString, Run>> RunStore::loadChangedRuns(const QStringList &localIds,
                                                             const KnownRun &known) const
{
    if (!isOpen())
        return std::nullopt;
    QHash<QString, Run> runs;
    const QStringList toRead = takeUnwritten(localIds, &runs);
    const QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
    for (qsizetype from = 0; from < toRead.size(); from += detail::kChangedRunsPerRound) {
        if (!detail::readChangedRuns(db, toRead.mid(from, detail::kChangedRunsPerRound), known, &runs,
                                     &m_error))
            return std::nullopt;
    }
    return runs;
}

bool RunStore::requestChangedRuns(const QStringList &localIds, QHash<QString, Run> known)
{
    if (!m_reader)
        return false;
    QHash<QString, Run> runs;
    QStringList toRead = takeUnwritten(localIds, &runs);
    // The answer comes back queued to this object: close() deletes the reader (after the reads
    // it was given) before this object can go, and a store closed or opened again meanwhile
    // (another generation) answers that nothing was read.
    detail::invokeAcross(m_reader, [this, reader = m_reader, generation = m_readerGeneration, localIds,
                                    toRead = std::move(toRead), known = std::move(known),
                                    runs = std::move(runs)]() mutable {
        std::optional<QHash<QString, Run>> read = reader->read(toRead, known);
        const bool ok = read.has_value();
        if (read)
            runs.insert(*read);
        detail::invokeAcross(
            this,
            [this, generation, localIds, ok, runs = std::move(runs)] {
                const bool current = generation == m_readerGeneration;
                Q_EMIT changedRunsRead(localIds, current ? runs : QHash<QString, Run>(), ok && current);
            },
            Qt::QueuedConnection);
    });
    return true;
}

// One row of a listing, as this process sees it: a save that is scheduled or being written wins
// over what the file holds.
Run RunStore::listedRun(const QSqlQuery &q, Load load, detail::RunRowReader *reader) const
{
    const QString localId = q.value(detail::kLocalIdColumn).toString();
    if (const Run *pending = pendingRun(localId))
        return *pending;
    if (const detail::RunWrite *written = inFlight(localId))
        return written->toRun();
    return reader->read(q, load != Load::Full, load != Load::Listing);
}

QList<Run> RunStore::loadRuns(Load load) const
{
    QList<Run> runs;
    if (!isOpen())
        return runs;
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    m_engine->prepareNestedRead(q); // each run's output is read as the rows go by
    // A sequential scan sorted here beats walking the created_at index with a lookup per row.
    if (!q.exec(u"SELECT %1"_s.arg(detail::selectRuns(load != Load::Full))))
        return runs;
    runs.reserve(runCount());
    detail::RunRowReader reader(QSqlDatabase::database(m_connectionName, false));
    while (q.next())
        runs.append(listedRun(q, load, &reader));
    // Sort a permutation, not the runs: a Run is large, and moving each one once beats the
    // n log n moves of sorting them in place (100k runs: ~40 ms less).
    QList<std::pair<qint64, qsizetype>> order;
    order.reserve(runs.size());
    for (qsizetype i = 0; i < runs.size(); ++i)
        order.append({runs.at(i).createdAt.toMSecsSinceEpoch(), i});
    if (std::is_sorted(order.cbegin(), order.cend()))
        return runs;
    std::sort(order.begin(), order.end()); // ties keep insertion order: the index is the second key
    QList<Run> sorted;
    sorted.reserve(runs.size());
    for (const auto &entry : std::as_const(order))
        sorted.append(std::move(runs[entry.second]));
    return sorted;
}

QList<Run> RunStore::loadRunsPage(Load load, int limit, PagePosition *position,
                                  const PageFilter &filter) const
{
    QList<Run> runs;
    if (!isOpen() || !position || position->atEnd || limit <= 0)
        return runs;
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    m_engine->prepareNestedRead(q); // each run's output is read as the rows go by
    // Keyset paging on (created_at, local_id) walks the created_at index: each page costs its own
    // rows, however deep into the history it starts. created_at is never NULL (the writer stores
    // '' for an unknown time, which sorts last). A filter is checked on the rows the walk passes.
    QStringList conditions;
    if (position->started)
        conditions << u"(r.created_at, r.local_id) < (?, ?)"_s;
    if (!filter.statuses.isEmpty())
        conditions << u"r.status IN (%1)"_s.arg(QStringList(filter.statuses.size(), u"?"_s).join(u','));
    if (!filter.connection.isEmpty())
        conditions << u"r.connection = ?"_s;
    const QString where = conditions.isEmpty() ? QString() : u"WHERE "_s + conditions.join(u" AND "_s) + u' ';
    q.prepare(u"SELECT %1 %2ORDER BY r.created_at DESC, r.local_id DESC LIMIT ?"_s.arg(
        detail::selectRuns(load != Load::Full), where));
    if (position->started) {
        q.addBindValue(position->createdAt);
        q.addBindValue(position->localId);
    }
    for (const RunStatus status : filter.statuses)
        q.addBindValue(statusName(status));
    if (!filter.connection.isEmpty())
        q.addBindValue(filter.connection);
    q.addBindValue(limit);
    if (!q.exec()) {
        m_error = q.lastError().text();
        position->atEnd = true;
        return runs;
    }
    runs.reserve(std::min(limit, 4096));
    detail::RunRowReader reader(QSqlDatabase::database(m_connectionName, false));
    while (q.next()) {
        position->createdAt = q.value(detail::kCreatedAtColumn).toString();
        position->localId = q.value(detail::kLocalIdColumn).toString();
        runs.append(listedRun(q, load, &reader));
    }
    position->started = true;
    position->atEnd = runs.size() < limit;
    return runs;
}

bool RunStore::requestDeadlines(const QStringList &localIds)
{
    if (!m_reader)
        return false;
    // Handed to the writer and not on disk yet: the file is older than the run's baseline. (A run
    // merely scheduled is fine: its baseline is what was last written.)
    QStringList ids;
    ids.reserve(localIds.size());
    for (const QString &id : localIds) {
        if (!inFlight(id))
            ids << id;
    }
    detail::invokeAcross(m_reader, [this, reader = m_reader, generation = m_readerGeneration, ids] {
        QHash<QString, StoredDeadline> fields = reader->readDeadlines(ids);
        detail::invokeAcross(
            this,
            [this, generation, fields = std::move(fields)] {
                Q_EMIT deadlinesRead(generation == m_readerGeneration ? fields
                                                                      : QHash<QString, StoredDeadline>());
            },
            Qt::QueuedConnection);
    });
    return true;
}

QList<Run> RunStore::loadCompletedTimings(const QString &connection, const QString &model) const
{
    QList<Run> runs;
    if (!isOpen())
        return runs;
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    q.setForwardOnly(true);
    q.prepare(u"SELECT local_id, created_at, finished_at FROM runs WHERE status = ? AND connection = ? "
              "AND COALESCE(model, '') = ?"_s);
    q.addBindValue(statusName(RunStatus::Completed));
    q.addBindValue(connection);
    q.addBindValue(model.isNull() ? QString(u""_s) : model); // a null QString would bind NULL
    if (!q.exec()) {
        m_error = q.lastError().text();
        return runs;
    }
    while (q.next()) {
        Run &run = runs.emplace_back();
        run.localId = q.value(0).toString();
        run.connection = connection;
        run.model = model;
        run.status = RunStatus::Completed;
        run.createdAt = detail::fromIso(q.value(1));
        run.finishedAt = detail::fromIso(q.value(2));
    }
    return runs;
}

QList<Run> RunStore::loadRunsWithStatus(Load load, const QList<RunStatus> &statuses) const
{
    QList<Run> runs;
    if (!isOpen() || statuses.isEmpty())
        return runs;
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    m_engine->prepareNestedRead(q);
    q.prepare(u"SELECT %1 WHERE r.status IN (%2)"_s.arg(detail::selectRuns(load != Load::Full),
                                                        QStringList(statuses.size(), u"?"_s).join(u',')));
    for (const RunStatus status : statuses)
        q.addBindValue(statusName(status));
    if (!q.exec()) {
        m_error = q.lastError().text();
        return runs;
    }
    detail::RunRowReader reader(QSqlDatabase::database(m_connectionName, false));
    while (q.next())
        runs.append(listedRun(q, load, &reader));
    return runs;
}

QMap<RunStatus, int> RunStore::countByStatus() const
{
    QMap<RunStatus, int> counts;
    if (!isOpen())
        return counts;
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    q.setForwardOnly(true);
    if (!q.exec(u"SELECT status, COUNT(*) FROM runs GROUP BY status"_s)) {
        m_error = q.lastError().text();
        return counts;
    }
    while (q.next())
        counts[statusFromName(q.value(0).toString())] += q.value(1).toInt();
    return counts;
}

int RunStore::runCount() const
{
    if (!isOpen())
        return 0;
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    if (!q.exec(u"SELECT COUNT(*) FROM runs"_s) || !q.next())
        return 0;
    return q.value(0).toInt();
}

} // namespace Runwatch
