// SPDX-License-Identifier: GPL-3.0-or-later
#include "store/runstorerows.h"

#include "json/jsonschema.h"

#include <QJsonDocument>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

using namespace Qt::StringLiterals;

namespace Runwatch::detail {

// Reads what iso() writes ("2026-01-02T10:00:00.123Z") without the general ISO parser, which
// dominates loading a big history; anything else falls back to it.
QDateTime fromIso(const QVariant &v)
{
    const QString s = v.toString();
    if (s.isEmpty())
        return {};
    auto num = [&s](int from, int len) {
        int n = 0;
        for (int i = from; i < from + len; ++i) {
            const char16_t c = s.at(i).unicode();
            if (c < u'0' || c > u'9')
                return -1;
            n = n * 10 + (c - u'0');
        }
        return n;
    };
    if (s.size() == 24 && s.at(4) == u'-' && s.at(7) == u'-' && s.at(10) == u'T' && s.at(13) == u':'
        && s.at(16) == u':' && s.at(19) == u'.' && s.at(23) == u'Z') {
        const QDate date(num(0, 4), num(5, 2), num(8, 2));
        const QTime time(num(11, 2), num(14, 2), num(17, 2), num(20, 3));
        if (date.isValid() && time.isValid())
            return QDateTime(date, time, Qt::UTC);
    }
    return QDateTime::fromString(s, Qt::ISODateWithMs);
}

namespace {

QJsonObject parseObjectText(const QVariant &v)
{
    return QJsonDocument::fromJson(v.toString().toUtf8()).object();
}

// Output lives in tables of its own (run_text, run_items; schema 6), read by RunRowReader, so
// listing a big history never reads it.
constexpr auto kSelectFull
    = "r.local_id, r.connection, r.backend, r.base_url, r.remote_id, r.status, r.raw_status, "
      "r.title, r.prompt, r.model, r.created_at, r.updated_at, r.finished_at, r.token, "
      "r.error, r.input, r.capabilities, r.reconciliations, "
      "r.input_tokens, r.output_tokens, r.reasoning_tokens, r.parent_id, r.deadline_at, "
      "r.cancel_at_deadline, r.start_input "
      "FROM runs r";
constexpr auto kTerminalSql
    = "r.status IN ('completed','failed','cancelled','incomplete','expired','rejected',"
      "'timed_out','deleted')";

qint64 tokenCount(const QVariant &v)
{
    return v.isNull() ? -1 : v.toLongLong();
}

} // namespace

Run runFromRow(const QSqlQuery &q)
{
    Run run;
    run.localId = q.value(0).toString();
    run.connection = q.value(1).toString();
    run.backend = q.value(2).toString();
    run.baseUrl = q.value(3).toString();
    run.remoteId = q.value(4).toString();
    run.status = statusFromName(q.value(5).toString());
    run.rawStatus = q.value(6).toString();
    run.title = q.value(7).toString();
    run.prompt = q.value(8).toString();
    run.model = q.value(9).toString();
    run.createdAt = fromIso(q.value(10));
    run.updatedAt = fromIso(q.value(11));
    run.finishedAt = fromIso(q.value(12));
    run.token = ContinuationToken::fromJson(parseObjectText(q.value(13)));
    run.error = RunError::fromJson(parseObjectText(q.value(14)));
    const QJsonObject input = parseObjectText(q.value(15));
    if (!input.isEmpty())
        run.input = InputRequest::fromJson(input);
    run.capabilities = Capabilities::fromInt(q.value(16).toInt());
    run.reconciliations = q.value(17).toInt();
    run.usage.inputTokens = tokenCount(q.value(18));
    run.usage.outputTokens = tokenCount(q.value(19));
    run.usage.reasoningTokens = tokenCount(q.value(20));
    run.parentId = q.value(21).toString();
    run.deadlineAt = fromIso(q.value(22));
    run.cancelAtDeadline = q.value(23).toInt() != 0;
    if (!q.value(24).isNull()) {
        // A damaged value reads as no input rather than failing the row.
        run.startInput = parseJsonValue(q.value(24).toString()).value_or(QJsonValue(QJsonValue::Undefined));
    }
    run.inStore = true;
    return run;
}

QJsonObject jsonObjectFromText(const QVariant &v)
{
    return parseObjectText(v);
}

QString selectRuns(bool summary)
{
    QString select = QLatin1StringView(kSelectFull);
    if (summary) {
        // Nor does the list need a finished run's prompt, continuation token or input request:
        // skipping them saves a JSON parse and two allocations per row.
        const QString terminal = QLatin1StringView(kTerminalSql);
        // Matched with their comma: "r.input" alone would also hit "r.input_tokens".
        for (const QString &column : {u"r.prompt"_s, u"r.token"_s, u"r.input"_s})
            select.replace(column + u',', u"CASE WHEN %1 THEN NULL ELSE %2 END,"_s.arg(terminal, column));
    }
    return select;
}

RunRowReader::RunRowReader(const QSqlDatabase &db)
    : m_text(db)
    , m_items(db)
{
    m_text.setForwardOnly(true);
    m_items.setForwardOnly(true);
    m_prepared = m_text.prepare(u"SELECT pos, text FROM run_text WHERE local_id = ? ORDER BY pos"_s)
                 && m_items.prepare(u"SELECT item FROM run_items WHERE local_id = ? ORDER BY idx"_s);
    if (!m_prepared)
        m_error = m_text.lastError().text() + m_items.lastError().text();
}

Run RunRowReader::read(const QSqlQuery &row, bool summary, bool liveOutput)
{
    Run run = runFromRow(row);
    if (summary && (run.isTerminal() || !liveOutput)) {
        run.outputLoaded = false; // RunManager::ensureOutputLoaded() reads it on demand
        // A live run is still written to (a deadline set here): with a baseline its writes send
        // what changed. Without one a summary's write sends only what a finished run's commands
        // change, and a deadline would be lost. (Finished runs go without: 100,000 baselines would
        // double the history's memory.)
        if (!run.isTerminal())
            run.stored = baselineOf(run);
        return run;
    }
    readOutput(run);
    run.stored = baselineOf(run);
    return run;
}

bool RunRowReader::readOutput(Run &run)
{
    run.primaryText.clear();
    run.secondary.clear();
    if (!m_prepared)
        return false;
    m_text.addBindValue(run.localId);
    if (!m_text.exec()) {
        m_error = m_text.lastError().text();
        return false;
    }
    while (m_text.next()) {
        const qint64 pos = m_text.value(0).toLongLong();
        QString piece = m_text.value(1).toString();
        // Pieces follow each other (RunWriteStatements appends at the stored end). Should two
        // overlap after all, what is there first stays and only the part past it is added.
        if (pos < run.primaryText.size()) {
            const qint64 overlap = run.primaryText.size() - pos;
            if (overlap >= piece.size())
                continue;
            piece.remove(0, overlap);
        }
        run.primaryText += piece;
    }
    m_text.finish();
    m_items.addBindValue(run.localId);
    if (!m_items.exec()) {
        m_error = m_items.lastError().text();
        return false;
    }
    while (m_items.next()) {
        // A damaged item is left out rather than failing the run.
        const QJsonObject item = QJsonDocument::fromJson(m_items.value(0).toString().toUtf8()).object();
        if (!item.isEmpty())
            run.secondary.append(SecondaryItem::fromJson(item));
    }
    m_items.finish();
    return true;
}

std::shared_ptr<const Run> baselineOf(const Run &run)
{
    auto baseline = std::make_shared<Run>(run);
    baseline->stored.reset();
    return baseline;
}

} // namespace Runwatch::detail
