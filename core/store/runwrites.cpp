// SPDX-License-Identifier: GPL-3.0-or-later
#include "store/runwrites.h"

#include "store/runstorerows.h"
#include "json/jsonschema.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QSqlError>

#include <array>

using namespace Qt::StringLiterals;

Q_DECLARE_LOGGING_CATEGORY(lcStore)

namespace Runwatch::detail {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "RunStore".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(RunStore)
};

QVariant nullText()
{
    return QVariant(QMetaType::fromType<QString>());
}

QVariant tokenValue(qint64 count)
{
    return count >= 0 ? QVariant(count) : QVariant(QMetaType::fromType<qint64>());
}

// One column of `runs` besides local_id: its value, and whether two runs agree on it (cheaper than
// comparing values: no JSON is written to find that a token did not move).
struct Column
{
    QLatin1StringView name;
    // A summary listing reads it (a finished run's prompt, token and input request it leaves on
    // disk), so a summary may write it.
    bool inSummary;
    // What a summary without a baseline writes: what commands on a finished run change.
    bool summaryWhole;
    QVariant (*value)(const Run &);
    bool (*same)(const Run &, const Run &);
};

// clang-format off
const std::array kColumns{
    Column{"connection"_L1, true, false,
           [](const Run &r) { return QVariant(r.connection); },
           [](const Run &a, const Run &b) { return a.connection == b.connection; }},
    Column{"backend"_L1, true, false,
           [](const Run &r) { return QVariant(r.backend); },
           [](const Run &a, const Run &b) { return a.backend == b.backend; }},
    Column{"base_url"_L1, true, false,
           [](const Run &r) { return QVariant(r.baseUrl); },
           [](const Run &a, const Run &b) { return a.baseUrl == b.baseUrl; }},
    Column{"remote_id"_L1, true, false,
           [](const Run &r) { return QVariant(r.remoteId); },
           [](const Run &a, const Run &b) { return a.remoteId == b.remoteId; }},
    Column{"status"_L1, true, true,
           [](const Run &r) { return QVariant(statusName(r.status)); },
           [](const Run &a, const Run &b) { return a.status == b.status; }},
    Column{"raw_status"_L1, true, true,
           [](const Run &r) { return QVariant(r.rawStatus); },
           [](const Run &a, const Run &b) { return a.rawStatus == b.rawStatus; }},
    Column{"title"_L1, true, true,
           [](const Run &r) { return QVariant(r.title); },
           [](const Run &a, const Run &b) { return a.title == b.title; }},
    Column{"prompt"_L1, false, false,
           [](const Run &r) { return QVariant(r.prompt); },
           [](const Run &a, const Run &b) { return a.prompt == b.prompt; }},
    Column{"model"_L1, true, false,
           [](const Run &r) { return QVariant(r.model); },
           [](const Run &a, const Run &b) { return a.model == b.model; }},
    Column{"created_at"_L1, true, false,
           [](const Run &r) { return QVariant(isoText(r.createdAt)); },
           [](const Run &a, const Run &b) { return a.createdAt == b.createdAt; }},
    Column{"updated_at"_L1, true, true,
           [](const Run &r) { return QVariant(isoText(r.updatedAt)); },
           [](const Run &a, const Run &b) { return a.updatedAt == b.updatedAt; }},
    Column{"finished_at"_L1, true, true,
           [](const Run &r) { return QVariant(isoText(r.finishedAt)); },
           [](const Run &a, const Run &b) { return a.finishedAt == b.finishedAt; }},
    Column{"token"_L1, false, false,
           [](const Run &r) { return QVariant(compactJsonText(r.token.toJson())); },
           [](const Run &a, const Run &b) { return a.token == b.token; }},
    Column{"error"_L1, true, true,
           [](const Run &r) { return QVariant(r.error.isError() ? compactJsonText(r.error.toJson()) : QString()); },
           [](const Run &a, const Run &b) { return a.error == b.error; }},
    Column{"input"_L1, false, false,
           [](const Run &r) { return QVariant(r.input ? compactJsonText(r.input->toJson()) : QString()); },
           [](const Run &a, const Run &b) { return a.input == b.input; }},
    Column{"capabilities"_L1, true, false,
           [](const Run &r) { return QVariant(r.capabilities.toInt()); },
           [](const Run &a, const Run &b) { return a.capabilities == b.capabilities; }},
    Column{"reconciliations"_L1, true, false,
           [](const Run &r) { return QVariant(r.reconciliations); },
           [](const Run &a, const Run &b) { return a.reconciliations == b.reconciliations; }},
    Column{"input_tokens"_L1, true, false,
           [](const Run &r) { return tokenValue(r.usage.inputTokens); },
           [](const Run &a, const Run &b) { return a.usage.inputTokens == b.usage.inputTokens; }},
    Column{"output_tokens"_L1, true, false,
           [](const Run &r) { return tokenValue(r.usage.outputTokens); },
           [](const Run &a, const Run &b) { return a.usage.outputTokens == b.usage.outputTokens; }},
    Column{"reasoning_tokens"_L1, true, false,
           [](const Run &r) { return tokenValue(r.usage.reasoningTokens); },
           [](const Run &a, const Run &b) { return a.usage.reasoningTokens == b.usage.reasoningTokens; }},
    Column{"parent_id"_L1, true, false,
           [](const Run &r) { return r.parentId.isEmpty() ? nullText() : QVariant(r.parentId); },
           [](const Run &a, const Run &b) { return a.parentId == b.parentId; }},
    Column{"deadline_at"_L1, true, false,
           [](const Run &r) { return QVariant(isoText(r.deadlineAt)); },
           [](const Run &a, const Run &b) { return a.deadlineAt == b.deadlineAt; }},
    Column{"cancel_at_deadline"_L1, true, false,
           [](const Run &r) { return QVariant(r.cancelAtDeadline ? 1 : 0); },
           [](const Run &a, const Run &b) { return a.cancelAtDeadline == b.cancelAtDeadline; }},
    Column{"start_input"_L1, true, false,
           [](const Run &r) {
               return r.startInput.isUndefined() ? nullText() : QVariant(jsonValueText(r.startInput));
           },
           [](const Run &a, const Run &b) { return a.startInput == b.startInput; }},
};
// clang-format on
static_assert(kColumns.size() <= 32, "column masks are 32 bits");

constexpr quint32 kAllColumns = (quint32(1) << kColumns.size()) - 1;

quint32 columnMask(bool (*include)(const Column &))
{
    quint32 mask = 0;
    for (size_t i = 0; i < kColumns.size(); ++i) {
        if (include(kColumns.at(i)))
            mask |= quint32(1) << i;
    }
    return mask;
}

QString itemText(const SecondaryItem &item)
{
    return QString::fromUtf8(QJsonDocument(item.toJson()).toJson(QJsonDocument::Compact));
}
} // namespace

QString isoText(const QDateTime &dt)
{
    return dt.isValid() ? dt.toUTC().toString(Qt::ISODateWithMs) : QString();
}

QString placeholders(qsizetype n)
{
    return QString(u"?,"_s).repeated(n).chopped(1);
}

QString compactJsonText(const QJsonObject &o)
{
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

bool RunWriteStatements::prepare(const QSqlDatabase &db, std::shared_ptr<const StoreEngine> engine,
                                 QString *error)
{
    m_db = db;
    m_engine = std::move(engine);
    m_statements.clear();
    m_upsertText = m_engine->upsert(u"run_text"_s, {u"local_id"_s, u"pos"_s, u"len"_s, u"text"_s},
                                    {u"local_id"_s, u"pos"_s});
    m_upsertItem
        = m_engine->upsert(u"run_items"_s, {u"local_id"_s, u"idx"_s, u"item"_s}, {u"local_id"_s, u"idx"_s});
    // The statements every write may need, prepared now so that a schema that does not fit is
    // found when the store opens, not at the first write.
    QString why;
    for (const QString &sql :
         {u"SELECT 1 FROM runs WHERE local_id = ?"_s,
          u"SELECT pos + len FROM run_text WHERE local_id = ? ORDER BY pos DESC LIMIT 1"_s, m_upsertItem}) {
        if (!statement(sql)) {
            why = m_prepareError;
            break;
        }
    }
    if (!why.isEmpty() || m_statements.size() != 3) {
        if (error)
            *error = Text::tr("Cannot prepare the run store's statements: %1").arg(why);
        m_statements.clear();
        m_db = {};
        return false;
    }
    return true;
}

QSqlQuery *RunWriteStatements::statement(const QString &sql)
{
    if (const auto it = m_statements.constFind(sql); it != m_statements.cend())
        return it->get();
    auto q = std::make_shared<QSqlQuery>(m_db);
    if (!q->prepare(sql)) {
        m_prepareError = q->lastError().text();
        if (m_prepareError.trimmed().isEmpty())
            m_prepareError = Text::tr("the connection to the store is closed");
        qCWarning(lcStore) << "cannot prepare" << sql << m_prepareError;
        return nullptr;
    }
    m_statements.insert(sql, q);
    return q.get();
}

bool RunWriteStatements::exec(QSqlQuery *q, QString *error)
{
    if (!q) {
        if (error && error->isEmpty())
            *error = m_prepareError;
        return false;
    }
    const bool ok = q->exec();
    if (!ok && error && error->isEmpty())
        *error = q->lastError().text();
    return ok;
}

Run RunWrite::toRun() const
{
    Run copy = *run;
    copy.stored = baseline;
    copy.inStore = inStore;
    return copy;
}

RunWriteStatements::Outcome RunWriteStatements::write(const Run &run, const Run *baseline, bool inStore,
                                                      QString *error, bool inTransaction)
{
    if (!m_db.isValid())
        return Outcome::Failed;
    QString why;
    // Not "try BEGIN and see": PostgreSQL answers a nested BEGIN with a warning, not an error, and
    // the COMMIT after it would end the writer's batch halfway.
    const bool ownTransaction = !inTransaction && m_db.transaction();
    bool ok = true;
    bool present = true;
    bool wholeOutput = !baseline || !baseline->outputLoaded;
    if (!inStore) {
        bool inserted = false;
        ok = insertRun(run, &inserted, &why);
        // Already there (written by another process under the same id): it is ours, whole.
        if (ok && !inserted)
            ok = updateColumns(run, kAllColumns, &present, &why);
    } else if (!baseline) {
        const quint32 mask
            = run.outputLoaded ? kAllColumns : columnMask([](const Column &c) { return c.summaryWhole; });
        ok = updateColumns(run, mask, &present, &why);
    } else {
        quint32 mask = 0;
        for (size_t i = 0; i < kColumns.size(); ++i) {
            const Column &column = kColumns.at(i);
            // A summary's prompt, token and input were never read: empty in memory is no change.
            if (!run.outputLoaded && !column.inSummary)
                continue;
            if (!column.same(run, *baseline))
                mask |= quint32(1) << i;
        }
        ok = mask ? updateColumns(run, mask, &present, &why) : rowExists(run.localId, &present, &why);
    }
    if (ok && present && run.outputLoaded) {
        ok = writeText(run, wholeOutput ? nullptr : baseline, &why)
             && writeItems(run, wholeOutput ? nullptr : baseline, &why);
    }
    if (!ok) {
        if (why.isEmpty())
            why = m_prepareError;
        if (error)
            *error = Text::tr("Cannot save run %1: %2").arg(run.localId, why);
        if (ownTransaction)
            m_db.rollback();
        return Outcome::Failed;
    }
    if (ownTransaction && !m_db.commit()) {
        if (error)
            *error = Text::tr("Cannot save run %1: %2").arg(run.localId, m_db.lastError().text());
        m_db.rollback();
        return Outcome::Failed;
    }
    return present ? Outcome::Written : Outcome::Gone;
}

bool RunWriteStatements::insertRun(const Run &run, bool *inserted, QString *error)
{
    QStringList names{u"local_id"_s};
    for (const Column &column : kColumns)
        names << column.name;
    QSqlQuery *q = statement(u"INSERT INTO runs (%1) VALUES (%2) ON CONFLICT (local_id) DO NOTHING"_s.arg(
        names.join(u", "_s), placeholders(names.size())));
    if (!q)
        return false;
    q->addBindValue(run.localId);
    for (const Column &column : kColumns)
        q->addBindValue(column.value(run));
    const bool ok = exec(q, error);
    *inserted = ok && q->numRowsAffected() > 0;
    q->finish();
    return ok;
}

bool RunWriteStatements::updateColumns(const Run &run, quint32 mask, bool *found, QString *error)
{
    QStringList sets;
    for (size_t i = 0; i < kColumns.size(); ++i) {
        if (mask & (quint32(1) << i))
            sets << kColumns.at(i).name + u" = ?"_s;
    }
    QSqlQuery *q = statement(u"UPDATE runs SET %1 WHERE local_id = ?"_s.arg(sets.join(u", "_s)));
    if (!q)
        return false;
    for (size_t i = 0; i < kColumns.size(); ++i) {
        if (mask & (quint32(1) << i))
            q->addBindValue(kColumns.at(i).value(run));
    }
    q->addBindValue(run.localId);
    const bool ok = exec(q, error);
    *found = ok && q->numRowsAffected() > 0;
    q->finish();
    return ok;
}

bool RunWriteStatements::rowExists(const QString &localId, bool *found, QString *error)
{
    QSqlQuery *q = statement(u"SELECT 1 FROM runs WHERE local_id = ?"_s);
    if (!q)
        return false;
    q->addBindValue(localId);
    const bool ok = exec(q, error);
    *found = ok && q->next();
    q->finish();
    return ok;
}

bool RunWriteStatements::writeText(const Run &run, const Run *baseline, QString *error)
{
    const RunText &text = run.primaryText;
    if (!baseline)
        return replaceText(run.localId, text, error);
    // Both share the run's buffer while the text only grew: no character is compared then.
    const RunText &base = baseline->primaryText;
    if (text == base)
        return true;
    // Where the stored text ends: this process's baseline unless another one wrote in between.
    QSqlQuery *end
        = statement(u"SELECT pos + len FROM run_text WHERE local_id = ? ORDER BY pos DESC LIMIT 1"_s);
    if (!end)
        return false;
    end->addBindValue(run.localId);
    if (!exec(end, error))
        return false;
    const qint64 storedEnd = end->next() ? end->value(0).toLongLong() : 0;
    end->finish();
    if (storedEnd == base.size() && text.extends(base))
        return appendText(run.localId, base.size(), QStringView(text).mid(base.size()), error);
    // The text was replaced here (a server snapshot that disagreed), or another process wrote
    // this run's text too. Rare: read what is stored and settle it.
    RunRowReader reader(m_db);
    Run stored;
    stored.localId = run.localId;
    if (!reader.readOutput(stored)) {
        if (error)
            *error = reader.errorString();
        return false;
    }
    const RunText &onDisk = stored.primaryText;
    if (onDisk == base)
        return replaceText(run.localId, text, error); // ours is the newer version
    if (text.extends(onDisk))
        return appendText(run.localId, onDisk.size(), QStringView(text).mid(onDisk.size()), error);
    if (onDisk.extends(text))
        return true;                              // the other process is further along the same text
    return replaceText(run.localId, text, error); // they disagree: the last writer's text stands
}

bool RunWriteStatements::replaceText(const QString &localId, QStringView text, QString *error)
{
    QSqlQuery *clear = statement(u"DELETE FROM run_text WHERE local_id = ?"_s);
    if (!clear)
        return false;
    clear->addBindValue(localId);
    const bool ok = exec(clear, error);
    clear->finish();
    return ok && (text.isEmpty() || appendText(localId, 0, text, error));
}

bool RunWriteStatements::appendText(const QString &localId, qsizetype pos, QStringView piece, QString *error)
{
    if (piece.isEmpty())
        return true;
    QSqlQuery *q = statement(m_upsertText);
    if (!q)
        return false;
    q->addBindValue(localId);
    q->addBindValue(qint64(pos));
    q->addBindValue(qint64(piece.size()));
    q->addBindValue(piece.toString());
    const bool ok = exec(q, error);
    q->finish();
    return ok;
}

bool RunWriteStatements::writeItems(const Run &run, const Run *baseline, QString *error)
{
    const QList<SecondaryItem> &items = run.secondary;
    qsizetype from = 0; // items before `from` are stored as they are
    if (baseline) {
        const QList<SecondaryItem> &base = baseline->secondary;
        if (items.constData() == base.constData() && items.size() == base.size())
            return true; // the same list, untouched since the last write
        const qsizetype common = std::min(items.size(), base.size());
        for (qsizetype i = 0; i < common; ++i) {
            if (!(items.at(i) == base.at(i)) && !writeItem(run.localId, i, items.at(i), error))
                return false;
        }
        from = common;
        if (items.size() >= base.size()) {
            for (qsizetype i = from; i < items.size(); ++i) {
                if (!writeItem(run.localId, i, items.at(i), error))
                    return false;
            }
            return true;
        }
    }
    // Whole, or fewer items than before: what lies past the list goes.
    QSqlQuery *trim = statement(u"DELETE FROM run_items WHERE local_id = ? AND idx >= ?"_s);
    if (!trim)
        return false;
    trim->addBindValue(run.localId);
    trim->addBindValue(qint64(baseline ? items.size() : 0));
    const bool ok = exec(trim, error);
    trim->finish();
    if (!ok)
        return false;
    for (qsizetype i = from; i < items.size(); ++i) {
        if (!writeItem(run.localId, i, items.at(i), error))
            return false;
    }
    return true;
}

bool RunWriteStatements::writeItem(const QString &localId, qsizetype index, const SecondaryItem &item,
                                   QString *error)
{
    QSqlQuery *q = statement(m_upsertItem);
    if (!q)
        return false;
    q->addBindValue(localId);
    q->addBindValue(qint64(index));
    q->addBindValue(itemText(item));
    const bool ok = exec(q, error);
    q->finish();
    return ok;
}

} // namespace Runwatch::detail
