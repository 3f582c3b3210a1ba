// SPDX-License-Identifier: GPL-3.0-or-later
// RunStore's reads on this thread's connection: single runs, listings (whole or a page at a time),
// the timings the stuck rule needs and what other processes may change on a followed run. A save
// that is scheduled or being written wins over what the file holds.
#include "store/runstore.h"

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
    if (const Run *run = inFlight(localId))
        return *run;
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

namespace {
// Ids per round of statements: two bound values each in the text query, well inside SQLite's
// limit of 32,766 and PostgreSQL's of 65,535.
constexpr qsizetype kChangedRunsPerRound = 500;

QString marks(qsizetype count)
{
    return QStringList(count, u"?"_s).join(u',');
}

void bindAll(QSqlQuery &q, const QStringList &values)
{
    for (const QString &value : values)
        q.addBindValue(value);
}

// `known`'s text with the stored pieces past its end added, or nullopt when the stored text does
// not go on from it (replaced, cut, or a gap): then it is read whole.
std::optional<QString> extendText(const QString &known, qint64 storedEnd,
                                  const QList<std::pair<qint64, QString>> &pieces)
{
    if (storedEnd < known.size())
        return std::nullopt;
    QString text = known;
    for (const auto &[pos, piece] : pieces) {
        if (pos > text.size())
            return std::nullopt;
        // Pieces are appended at the stored end; one that starts inside the known text was written
        // by a replacement (it starts at 0), which is ours only if it agrees with what we hold.
        const qint64 overlap = text.size() - pos;
        if (overlap > 0) {
            if (overlap > piece.size()
                || QStringView(piece).left(overlap) != QStringView(text).mid(pos, overlap))
                return std::nullopt;
            text += QStringView(piece).mid(overlap);
        } else {
            text += piece;
        }
    }
    return text.size() == storedEnd ? std::optional<QString>(std::move(text)) : std::nullopt;
}
} // namespace

std::optional<QHash<QString, Run>> RunStore::loadChangedRuns(const QStringList &localIds,
                                                             const KnownRun &known) const
{
    if (!isOpen())
        return std::nullopt;
    QHash<QString, Run> runs;
    QStringList toRead;
    QSet<QString> seen;
    for (const QString &id : localIds) {
        if (seen.contains(id))
            continue;
        seen.insert(id);
        // A save that is scheduled or being written wins over what the file holds (loadRun()).
        if (const Run *run = pendingRun(id)) {
            runs.insert(id, *run);
        } else if (const Run *written = inFlight(id)) {
            runs.insert(id, *written);
        } else {
            toRead << id;
        }
    }
    for (qsizetype from = 0; from < toRead.size(); from += kChangedRunsPerRound) {
        if (!readChangedRuns(toRead.mid(from, kChangedRunsPerRound), known, &runs))
            return std::nullopt;
    }
    return runs;
}

// One round: the rows, where each run's stored text ends, the text past what is known, the items.
bool RunStore::readChangedRuns(const QStringList &ids, const KnownRun &known, QHash<QString, Run> *runs) const
{
    const QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
    const auto failed = [this](const QSqlQuery &q) {
        m_error = q.lastError().text();
        return false;
    };
    QSqlQuery q(db);
    q.setForwardOnly(true);
    q.prepare(u"SELECT %1 WHERE r.local_id IN (%2)"_s.arg(detail::selectRuns(false), marks(ids.size())));
    bindAll(q, ids);
    if (!q.exec())
        return failed(q);
    QHash<QString, Run> fresh;
    while (q.next()) {
        Run run = detail::runFromRow(q);
        const QString id = run.localId;
        fresh.emplace(id, std::move(run));
    }
    if (fresh.isEmpty())
        return true; // all gone
    const QStringList found = fresh.keys();
    // Each run's last piece, found through the (local_id, pos) key: a MAX(pos + len) over a
    // run's pieces read every piece of it, 12,000 rows for 50 streaming runs (2.4 ms per call, a
    // fifth of the server's time at 10 processes x 100 runs).
    q.prepare(u"WITH k(id) AS (VALUES %1) SELECT k.id, (SELECT t.pos + t.len FROM run_text t "
              "WHERE t.local_id = k.id ORDER BY t.pos DESC LIMIT 1) FROM k"_s.arg(
                  QStringList(found.size(), u"(CAST(? AS TEXT))"_s).join(u',')));
    bindAll(q, found);
    if (!q.exec())
        return failed(q);
    QHash<QString, qint64> ends;
    while (q.next())
        ends.insert(q.value(0).toString(), q.value(1).toLongLong()); // NULL (no text): 0
    // Only the pieces past the known end: a tailed run's new text, not its whole answer again.
    QStringList rows;
    QList<qint64> knownEnds;
    for (const QString &id : std::as_const(found)) {
        const Run *base = known ? known(id) : nullptr;
        knownEnds << (base && base->outputLoaded ? base->primaryText.size() : 0);
        rows << u"(CAST(? AS TEXT), CAST(? AS BIGINT))"_s;
    }
    // From the piece the known end falls in (the last that starts at or before it), so that the
    // key bounds the scan: "pos + len > known" alone is no index condition, and PostgreSQL read
    // the whole table for it (25 ms per call at 1,000 runs, half the server's time at 10 x 100).
    q.prepare(u"WITH k(id, known) AS (VALUES %1) SELECT t.local_id, t.pos, t.text FROM k JOIN run_text t "
              "ON t.local_id = k.id AND t.pos >= COALESCE((SELECT MAX(p.pos) FROM run_text p "
              "WHERE p.local_id = k.id AND p.pos <= k.known), 0) "
              "WHERE t.pos + t.len > k.known ORDER BY t.local_id, t.pos"_s.arg(rows.join(u',')));
    for (qsizetype i = 0; i < found.size(); ++i) {
        q.addBindValue(found.at(i));
        q.addBindValue(knownEnds.at(i));
    }
    if (!q.exec())
        return failed(q);
    QHash<QString, QList<std::pair<qint64, QString>>> pieces;
    while (q.next())
        pieces[q.value(0).toString()].append({q.value(1).toLongLong(), q.value(2).toString()});
    q.prepare(u"SELECT local_id, item FROM run_items WHERE local_id IN (%1) ORDER BY local_id, idx"_s.arg(
        marks(found.size())));
    bindAll(q, found);
    if (!q.exec())
        return failed(q);
    while (q.next()) {
        const auto it = fresh.find(q.value(0).toString());
        // A damaged item is left out rather than failing the run (RunRowReader does the same).
        const QJsonObject item = detail::jsonObjectFromText(q.value(1));
        if (it != fresh.end() && !item.isEmpty())
            it->secondary.append(SecondaryItem::fromJson(item));
    }
    q.finish();
    detail::RunRowReader reader(db);
    for (auto it = fresh.begin(); it != fresh.end(); ++it) {
        Run &run = *it;
        const Run *base = known ? known(run.localId) : nullptr;
        const QString empty;
        const QString &knownText = base && base->outputLoaded ? base->primaryText : empty;
        // A run that just ended is read whole once: its last word on the text, whatever a
        // replacement of the same length could have hidden from the piece-wise read.
        const bool justEnded = run.isTerminal() && (!base || !base->isTerminal());
        std::optional<QString> text;
        if (!justEnded)
            text = extendText(knownText, ends.value(run.localId, 0), pieces.value(run.localId));
        if (text) {
            run.primaryText = std::move(*text);
        } else if (!reader.readOutput(run)) {
            m_error = reader.errorString();
            return false;
        }
        run.stored = detail::baselineOf(run);
        const QString id = run.localId;
        runs->emplace(id, std::move(run));
    }
    return true;
}

// One row of a listing, as this process sees it: a save that is scheduled or being written wins
// over what the file holds.
Run RunStore::listedRun(const QSqlQuery &q, Load load, detail::RunRowReader *reader) const
{
    const QString localId = q.value(detail::kLocalIdColumn).toString();
    if (const Run *pending = pendingRun(localId))
        return *pending;
    if (const Run *written = inFlight(localId))
        return *written;
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

QHash<QString, RunStore::DeadlineFields> RunStore::readDeadlines(const QStringList &localIds) const
{
    QHash<QString, DeadlineFields> fields;
    if (!isOpen())
        return fields;
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    q.setForwardOnly(true);
    q.prepare(u"SELECT deadline_at, cancel_at_deadline FROM runs WHERE local_id = ?"_s);
    for (const QString &id : localIds) {
        // Handed to the writer and not on disk yet: the file is older than the run's baseline.
        // (A run merely scheduled is fine: its baseline is what was last written.)
        if (inFlight(id))
            continue;
        q.addBindValue(id);
        if (q.exec() && q.next())
            fields.insert(id, {detail::fromIso(q.value(0)), q.value(1).toInt() != 0});
        q.finish();
    }
    return fields;
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
