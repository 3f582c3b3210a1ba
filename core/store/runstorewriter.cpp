// SPDX-License-Identifier: GPL-3.0-or-later
#include "store/runstorewriter.h"

#include "json/jsonschema.h"

#include <QCoreApplication>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QMutexLocker>
#include <QSqlError>
#include <QUuid>

using namespace Qt::StringLiterals;

Q_DECLARE_LOGGING_CATEGORY(lcStore)

namespace Runwatch::detail {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "RunStore".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(RunStore)
};
} // namespace

namespace {
constexpr auto kRunColumns
    = "local_id, connection, backend, base_url, remote_id, status, raw_status, title, prompt, "
      "model, created_at, updated_at, finished_at, token, error, input, capabilities, "
      "reconciliations, input_tokens, output_tokens, reasoning_tokens, parent_id, deadline_at, "
      "cancel_at_deadline, start_input";

QVariant tokenValue(qint64 count)
{
    return count >= 0 ? QVariant(count) : QVariant(QMetaType::fromType<qint64>());
}
} // namespace

QString isoText(const QDateTime &dt)
{
    return dt.isValid() ? dt.toUTC().toString(Qt::ISODateWithMs) : QString();
}

QString compactJsonText(const QJsonObject &o)
{
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

bool RunWriteStatements::prepare(const QSqlDatabase &db, QString *error)
{
    m_upsertRun = std::make_unique<QSqlQuery>(db);
    m_upsertOutput = std::make_unique<QSqlQuery>(db);
    m_updateSummary = std::make_unique<QSqlQuery>(db);
    const bool ok
        = m_upsertRun->prepare(
              u"INSERT OR REPLACE INTO runs (%1) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"_s
                  .arg(QLatin1StringView(kRunColumns)))
          && m_upsertOutput->prepare(
              u"INSERT OR REPLACE INTO run_output (local_id, primary_text, secondary) VALUES (?,?,?)"_s)
          && m_updateSummary->prepare(
              u"UPDATE runs SET status = ?, raw_status = ?, title = ?, updated_at = ?, "
              "finished_at = ?, error = ? WHERE local_id = ?"_s);
    if (!ok) {
        if (error) {
            *error = Text::tr("Cannot prepare the run store's statements: %1")
                         .arg(m_upsertRun->lastError().text());
        }
        m_upsertRun.reset();
        return false;
    }
    return true;
}

bool RunWriteStatements::write(QSqlDatabase &db, const Run &run, QString *error)
{
    if (!m_upsertRun)
        return false;
    if (!run.outputLoaded) {
        QSqlQuery &q = *m_updateSummary;
        q.addBindValue(statusName(run.status));
        q.addBindValue(run.rawStatus);
        q.addBindValue(run.title);
        q.addBindValue(isoText(run.updatedAt));
        q.addBindValue(isoText(run.finishedAt));
        q.addBindValue(run.error.isError() ? compactJsonText(run.error.toJson()) : QString());
        q.addBindValue(run.localId);
        const bool ok = q.exec();
        q.finish();
        if (!ok && error)
            *error = Text::tr("Cannot save run %1: %2").arg(run.localId, q.lastError().text());
        return ok;
    }
    QSqlQuery &q = *m_upsertRun;
    q.addBindValue(run.localId);
    q.addBindValue(run.connection);
    q.addBindValue(run.backend);
    q.addBindValue(run.baseUrl);
    q.addBindValue(run.remoteId);
    q.addBindValue(statusName(run.status));
    q.addBindValue(run.rawStatus);
    q.addBindValue(run.title);
    q.addBindValue(run.prompt);
    q.addBindValue(run.model);
    q.addBindValue(isoText(run.createdAt));
    q.addBindValue(isoText(run.updatedAt));
    q.addBindValue(isoText(run.finishedAt));
    q.addBindValue(compactJsonText(run.token.toJson()));
    q.addBindValue(run.error.isError() ? compactJsonText(run.error.toJson()) : QString());
    q.addBindValue(run.input ? compactJsonText(run.input->toJson()) : QString());
    q.addBindValue(run.capabilities.toInt());
    q.addBindValue(run.reconciliations);
    q.addBindValue(tokenValue(run.usage.inputTokens));
    q.addBindValue(tokenValue(run.usage.outputTokens));
    q.addBindValue(tokenValue(run.usage.reasoningTokens));
    q.addBindValue(run.parentId.isEmpty() ? QVariant(QMetaType::fromType<QString>())
                                          : QVariant(run.parentId));
    q.addBindValue(isoText(run.deadlineAt));
    q.addBindValue(run.cancelAtDeadline ? 1 : 0);
    q.addBindValue(run.startInput.isUndefined() ? QVariant(QMetaType::fromType<QString>())
                                                : QVariant(jsonValueText(run.startInput)));
    QJsonArray secondary;
    for (const SecondaryItem &item : run.secondary)
        secondary.append(item.toJson());
    QSqlQuery &o = *m_upsertOutput;
    o.addBindValue(run.localId);
    o.addBindValue(run.primaryText);
    o.addBindValue(QString::fromUtf8(QJsonDocument(secondary).toJson(QJsonDocument::Compact)));
    const bool ownTransaction = db.transaction();
    const bool ok = q.exec() && o.exec();
    q.finish();
    o.finish();
    if (!ok) {
        if (error) {
            *error = Text::tr("Cannot save run %1: %2 %3")
                         .arg(run.localId, q.lastError().text(), o.lastError().text());
        }
        if (ownTransaction)
            db.rollback();
        return false;
    }
    if (ownTransaction)
        db.commit();
    return true;
}

RunStoreWriter::RunStoreWriter(QString path)
    : m_path(std::move(path))
    , m_connectionName(u"runwatch-store-writer-"_s + QUuid::createUuid().toString(QUuid::WithoutBraces))
{}

RunStoreWriter::~RunStoreWriter()
{
    if (!QSqlDatabase::contains(m_connectionName))
        return;
    m_statements = {};
    {
        QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
        db.close();
    }
    QSqlDatabase::removeDatabase(m_connectionName);
}

bool RunStoreWriter::ensureOpen()
{
    if (m_open || m_failed)
        return m_open;
    // Opened here, on the writer thread: a connection may only be used by its own thread.
    QSqlDatabase db = QSqlDatabase::addDatabase(u"QSQLITE"_s, m_connectionName);
    db.setDatabaseName(m_path);
    db.setConnectOptions(u"QSQLITE_BUSY_TIMEOUT=5000"_s);
    QString error;
    QSqlQuery pragma(db);
    // The journal mode is the file's (RunStore::open set WAL); synchronous is per connection.
    if (!db.open() || !pragma.exec(u"PRAGMA synchronous=NORMAL"_s) || !m_statements.prepare(db, &error)) {
        qCWarning(lcStore) << "run store writer:" << (error.isEmpty() ? db.lastError().text() : error);
        m_failed = true;
        return false;
    }
    m_open = true;
    return true;
}

void RunStoreWriter::write(const QList<Run> &runs, quint64 generation)
{
    // What failed last time goes again, each run replaced by its newer copy in this batch. The
    // usual case (nothing failed) takes the batch as it is.
    QList<Run> batch = runs;
    if (!m_unwritten.isEmpty()) {
        batch = std::exchange(m_unwritten, {});
        QHash<QString, qsizetype> at;
        for (qsizetype i = 0; i < batch.size(); ++i)
            at.insert(batch.at(i).localId, i);
        for (const Run &run : runs) {
            if (const auto it = at.constFind(run.localId); it != at.cend()) {
                batch[*it] = run;
            } else {
                at.insert(run.localId, batch.size());
                batch.append(run);
            }
        }
    }
    QString error;
    if (!ensureOpen()) {
        error = u"cannot open the run store for writing"_s;
    } else {
        QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
        db.transaction();
        for (const Run &run : std::as_const(batch)) {
            if (!m_statements.write(db, run, &error))
                break;
        }
        if (error.isEmpty() && !db.commit())
            error = db.lastError().text();
        if (!error.isEmpty())
            db.rollback();
    }
    if (error.isEmpty()) {
        setError({});
    } else {
        qCWarning(lcStore) << "run store write failed, kept for the next try:" << error;
        m_unwritten = std::move(batch);
        setError(error);
    }
    m_completed.store(generation, std::memory_order_release);
}

QString RunStoreWriter::error() const
{
    const QMutexLocker lock(&m_errorMutex);
    return m_error;
}

void RunStoreWriter::setError(const QString &error)
{
    const QMutexLocker lock(&m_errorMutex);
    m_error = error;
}

} // namespace Runwatch::detail
