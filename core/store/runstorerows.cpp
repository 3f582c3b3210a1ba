// SPDX-License-Identifier: GPL-3.0-or-later
#include "store/runstorerows.h"

#include "json/jsonschema.h"

#include <QJsonArray>
#include <QJsonDocument>
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

// Output lives in its own table (schema 3) so listing a big history never reads it.
constexpr auto kSelectFull
    = "r.local_id, r.connection, r.backend, r.base_url, r.remote_id, r.status, r.raw_status, "
      "r.title, r.prompt, r.model, r.created_at, r.updated_at, r.finished_at, r.token, "
      "o.primary_text, o.secondary, r.error, r.input, r.capabilities, r.reconciliations, "
      "r.input_tokens, r.output_tokens, r.reasoning_tokens, r.parent_id, r.deadline_at, "
      "r.cancel_at_deadline, "
      "r.start_input "
      "FROM runs r LEFT JOIN run_output o ON o.local_id = r.local_id";
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
    run.primaryText = q.value(14).toString();
    const QJsonArray secondary = QJsonDocument::fromJson(q.value(15).toString().toUtf8()).array();
    for (const QJsonValue &v : secondary)
        run.secondary.append(SecondaryItem::fromJson(v.toObject()));
    run.error = RunError::fromJson(parseObjectText(q.value(16)));
    const QJsonObject input = parseObjectText(q.value(17));
    if (!input.isEmpty())
        run.input = InputRequest::fromJson(input);
    run.capabilities = Capabilities::fromInt(q.value(18).toInt());
    run.reconciliations = q.value(19).toInt();
    run.usage.inputTokens = tokenCount(q.value(20));
    run.usage.outputTokens = tokenCount(q.value(21));
    run.usage.reasoningTokens = tokenCount(q.value(22));
    run.parentId = q.value(23).toString();
    run.deadlineAt = fromIso(q.value(24));
    run.cancelAtDeadline = q.value(25).toInt() != 0;
    if (!q.value(26).isNull()) {
        // A damaged value reads as no input rather than failing the row.
        run.startInput = parseJsonValue(q.value(26).toString()).value_or(QJsonValue(QJsonValue::Undefined));
    }
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
        // Output of finished runs stays on disk until someone looks at it: no join, and the
        // output table is only consulted for the few runs that are still going.
        const QString terminal = QLatin1StringView(kTerminalSql);
        select.replace(
            u"o.primary_text"_s,
            u"CASE WHEN %1 THEN NULL ELSE (SELECT primary_text FROM run_output WHERE local_id = r.local_id) END"_s
                .arg(terminal));
        select.replace(
            u"o.secondary"_s,
            u"CASE WHEN %1 THEN NULL ELSE (SELECT secondary FROM run_output WHERE local_id = r.local_id) END"_s
                .arg(terminal));
        select.replace(u" LEFT JOIN run_output o ON o.local_id = r.local_id"_s, QString());
        // Nor does the list need a finished run's prompt, continuation token or input request:
        // skipping them saves a JSON parse and two allocations per row.
        // Matched with their comma: "r.input" alone would also hit "r.input_tokens".
        for (const QString &column : {u"r.prompt"_s, u"r.token"_s, u"r.input"_s})
            select.replace(column + u',', u"CASE WHEN %1 THEN NULL ELSE %2 END,"_s.arg(terminal, column));
    }
    return select;
}

} // namespace Runwatch::detail
