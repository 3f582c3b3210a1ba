// SPDX-License-Identifier: GPL-3.0-or-later
// The reads of runs other processes changed: only what is new to the reader's copy of each (the
// rows, the pieces of text past the copy's end, the items), on the caller's connection
// (RunStore::loadChangedRuns) or on the store's reader thread (RunStore::requestChangedRuns).
#include "store/changedrunsreader.h"

#include "store/runstorerows.h"
#include "store/storeengine.h"

#include <QLoggingCategory>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QStringView>

using namespace Qt::StringLiterals;

Q_DECLARE_LOGGING_CATEGORY(lcStore)

namespace Runwatch::detail {

namespace {
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
std::optional<RunText> extendText(const RunText &known, qint64 storedEnd,
                                  const QList<std::pair<qint64, QString>> &pieces)
{
    if (storedEnd < known.size())
        return std::nullopt;
    RunText text = known;
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
            text += QStringView(piece);
        }
    }
    return text.size() == storedEnd ? std::optional<RunText>(std::move(text)) : std::nullopt;
}
} // namespace

bool readChangedRuns(const QSqlDatabase &db, const QStringList &ids, const RunStore::KnownRun &known,
                     QHash<QString, Run> *runs, QString *error)
{
    const auto failed = [error](const QSqlQuery &q) {
        *error = q.lastError().text();
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
        const RunText empty;
        const RunText &knownText = base && base->outputLoaded ? base->primaryText : empty;
        // A run that just ended is read whole once: its last word on the text, whatever a
        // replacement of the same length could have hidden from the piece-wise read.
        const bool justEnded = run.isTerminal() && (!base || !base->isTerminal());
        std::optional<RunText> text;
        if (!justEnded)
            text = extendText(knownText, ends.value(run.localId, 0), pieces.value(run.localId));
        if (text) {
            run.primaryText = std::move(*text);
        } else if (!reader.readOutput(run)) {
            *error = reader.errorString();
            return false;
        }
        run.stored = detail::baselineOf(run);
        const QString id = run.localId;
        runs->emplace(id, std::move(run));
    }
    return true;
}

ChangedRunsReader::ChangedRunsReader(std::shared_ptr<const StoreEngine> engine)
    : m_connection(std::move(engine), u"reader"_s)
{}

std::optional<QHash<QString, Run>> ChangedRunsReader::read(const QStringList &ids,
                                                           const QHash<QString, Run> &known)
{
    QHash<QString, Run> runs;
    if (ids.isEmpty())
        return runs;
    QString error;
    const QSqlDatabase db = m_connection.open(&error);
    if (!db.isOpen()) {
        qCWarning(lcStore) << "run store reader:" << error;
        return std::nullopt;
    }
    const RunStore::KnownRun lookup = [&known](const QString &id) -> const Run * {
        const auto it = known.constFind(id);
        return it == known.cend() ? nullptr : &*it;
    };
    for (qsizetype from = 0; from < ids.size(); from += kChangedRunsPerRound) {
        if (!readChangedRuns(db, ids.mid(from, kChangedRunsPerRound), lookup, &runs, &error)) {
            qCWarning(lcStore) << "run store reader:" << error;
            m_connection.close();
            return std::nullopt;
        }
    }
    return runs;
}

QHash<QString, StoredDeadline> ChangedRunsReader::readDeadlines(const QStringList &ids)
{
    QHash<QString, StoredDeadline> fields;
    if (ids.isEmpty())
        return fields;
    QString error;
    const QSqlDatabase db = m_connection.open(&error);
    if (!db.isOpen()) {
        qCWarning(lcStore) << "run store reader:" << error;
        return fields;
    }
    QSqlQuery q(db);
    q.setForwardOnly(true);
    for (qsizetype from = 0; from < ids.size(); from += kChangedRunsPerRound) {
        const QStringList slice = ids.mid(from, kChangedRunsPerRound);
        q.prepare(u"SELECT local_id, deadline_at, cancel_at_deadline FROM runs WHERE local_id IN (%1)"_s.arg(
            marks(slice.size())));
        bindAll(q, slice);
        if (!q.exec()) {
            qCWarning(lcStore) << "run store reader:" << q.lastError().text();
            m_connection.close();
            return {};
        }
        while (q.next())
            fields.insert(q.value(0).toString(), {fromIso(q.value(1)), q.value(2).toInt() != 0});
        q.finish();
    }
    return fields;
}

} // namespace Runwatch::detail
