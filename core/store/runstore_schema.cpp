// SPDX-License-Identifier: GPL-3.0-or-later
// RunStore's schema: the migrations from an empty store (or an older Runwatch's) to
// RunStore::SchemaVersion, one transaction per step — the same numbered steps on SQLite and
// PostgreSQL, their few differences spelled by the StoreEngine (storeengine.h).
#include "store/runstore.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>

#include <algorithm>

using namespace Qt::StringLiterals;

Q_DECLARE_LOGGING_CATEGORY(lcStore)

namespace Runwatch {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "RunStore".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(RunStore)
};
} // namespace

bool RunStore::exec(const QString &sql)
{
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    if (!q.exec(sql)) {
        m_error = Text::tr("SQL failed (%1): %2").arg(sql, q.lastError().text());
        qCWarning(lcStore) << m_error;
        return false;
    }
    return true;
}

bool RunStore::migrate()
{
    QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
    // Two processes opening a new database at once would both create its tables.
    if (!m_engine->lockSchema(db, &m_error)) {
        m_error = Text::tr("Cannot read the schema version: %1").arg(m_error);
        return false;
    }
    const bool ok = runMigrations(db);
    m_engine->unlockSchema(db);
    return ok;
}

bool RunStore::runMigrations(const QSqlDatabase &database)
{
    QSqlDatabase db = database;
    QString why;
    // A new store is created at the current schema through the same steps, silently; only an
    // existing older store's upgrade is worth one line.
    bool fresh = false;
    const std::optional<int> stored = m_engine->schemaVersion(db, &fresh, &why);
    if (!stored) {
        m_error = Text::tr("Cannot read the schema version: %1").arg(why);
        return false;
    }
    const int version = *stored;
    if (version > SchemaVersion) {
        m_error
            = Text::tr("The run store %1 was written by a newer Runwatch (schema %2, this version knows %3). "
                       "It was left untouched; use the newer version or another --store.")
                  .arg(m_path)
                  .arg(version)
                  .arg(SchemaVersion);
        return false;
    }
    for (const QString &sql : m_engine->sessionSetup()) {
        if (!exec(sql))
            return false;
    }
    // One transaction per step, so an interrupted upgrade leaves a consistent older version.
    // A switch rather than an array of member pointers: GCC 12's UBSan bounds check misreads the
    // index of such an array (garbage "index 1248740964 out of bounds" with a valid index).
    const auto step = [this](int target) {
        switch (target) {
        case 1:
            return migrateTo1();
        case 2:
            return migrateTo2();
        case 3:
            return migrateTo3();
        case 4:
            return migrateTo4();
        case 5:
            return migrateTo5();
        case 6:
            return migrateTo6();
        case 7:
            return migrateTo7();
        case 8:
            return migrateTo8();
        default:
            return false;
        }
    };
    const auto recordVersion = [this](int target) {
        const QStringList statements = m_engine->setSchemaVersion(target);
        return std::all_of(statements.cbegin(), statements.cend(),
                           [this](const QString &sql) { return exec(sql); });
    };
    for (int target = version + 1; target <= SchemaVersion; ++target) {
        if (!db.transaction()) {
            m_error = db.lastError().text();
            return false;
        }
        if (!step(target) || !recordVersion(target)) {
            db.rollback();
            m_error = Text::tr("Upgrading the run store to schema %1 failed: %2").arg(target).arg(m_error);
            return false;
        }
        if (!db.commit()) {
            m_error = db.lastError().text();
            return false;
        }
    }
    if (!fresh && version < SchemaVersion) {
        qCInfo(lcStore) << "run store" << m_path << "upgraded from schema" << version << "to"
                        << SchemaVersion;
    }
    return true;
}

bool RunStore::migrateTo1()
{
    return exec(u"CREATE TABLE IF NOT EXISTS runs ("
                "local_id TEXT PRIMARY KEY, connection TEXT, backend TEXT, base_url TEXT, "
                "remote_id TEXT, status TEXT, raw_status TEXT, title TEXT, prompt TEXT, model TEXT, "
                "created_at TEXT, updated_at TEXT, finished_at TEXT, token TEXT, primary_text TEXT, "
                "secondary TEXT, error TEXT, input TEXT, capabilities INTEGER, reconciliations INTEGER)"_s)
           && exec(u"CREATE INDEX IF NOT EXISTS runs_remote_id ON runs(remote_id)"_s);
}

bool RunStore::migrateTo2()
{
    return exec(u"CREATE TABLE IF NOT EXISTS connections (name TEXT PRIMARY KEY, config TEXT NOT NULL)"_s)
           && exec(u"CREATE INDEX IF NOT EXISTS runs_created ON runs(created_at)"_s)
           && exec(u"CREATE INDEX IF NOT EXISTS runs_finished ON runs(status, finished_at)"_s);
}

bool RunStore::migrateTo3()
{
    return exec(u"CREATE TABLE run_output (local_id TEXT PRIMARY KEY, primary_text TEXT, secondary TEXT)%1"_s
                    .arg(m_engine->tableOptions()))
           && exec(u"INSERT INTO run_output (local_id, primary_text, secondary) "
                   "SELECT local_id, primary_text, secondary FROM runs"_s)
           && exec(u"ALTER TABLE runs DROP COLUMN primary_text"_s)
           && exec(u"ALTER TABLE runs DROP COLUMN secondary"_s);
}

// Usage, the follow-up link and the operator's deadline (NULL where unknown or unset, so old rows
// read back as "not reported" rather than as zero tokens), and the shared settings.
bool RunStore::migrateTo4()
{
    const QString bigint = m_engine->bigint();
    return exec(u"ALTER TABLE runs ADD COLUMN input_tokens %1"_s.arg(bigint))
           && exec(u"ALTER TABLE runs ADD COLUMN output_tokens %1"_s.arg(bigint))
           && exec(u"ALTER TABLE runs ADD COLUMN reasoning_tokens %1"_s.arg(bigint))
           && exec(u"ALTER TABLE runs ADD COLUMN parent_id TEXT"_s)
           && exec(u"ALTER TABLE runs ADD COLUMN deadline_at TEXT"_s)
           && exec(u"ALTER TABLE runs ADD COLUMN cancel_at_deadline INTEGER"_s)
           && exec(u"CREATE INDEX IF NOT EXISTS runs_parent ON runs(parent_id)"_s)
           && exec(u"CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)"_s);
}

// The structured input a run was started with (JSON text; NULL for a run started from a prompt).
bool RunStore::migrateTo5()
{
    return exec(u"ALTER TABLE runs ADD COLUMN start_input TEXT"_s);
}

// Output that is appended, not rewritten: the primary text in pieces (run_text; `pos` and `len` in
// UTF-16 code units, which SQLite's length() does not count) and one row per secondary item
// (run_items), so a write adds the new piece and the changed items instead of the whole output
// (a 6 MB answer streamed over 17 s used to write 94 MB). Moved over in C++ for the lengths.
bool RunStore::migrateTo6()
{
    const QString bigint = m_engine->bigint();
    if (!exec(u"CREATE TABLE run_text (local_id TEXT NOT NULL, pos %1 NOT NULL, len %1 NOT NULL, "
              "text TEXT NOT NULL, PRIMARY KEY (local_id, pos))%2"_s.arg(bigint, m_engine->tableOptions()))
        || !exec(u"CREATE TABLE run_items (local_id TEXT NOT NULL, idx %1 NOT NULL, item TEXT NOT NULL, "
                 "PRIMARY KEY (local_id, idx))%2"_s.arg(bigint, m_engine->tableOptions()))) {
        return false;
    }
    const QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
    QSqlQuery read(db);
    m_engine->prepareNestedRead(read); // rows inserted as the old ones are read
    QSqlQuery text(db);
    QSqlQuery item(db);
    if (!read.exec(u"SELECT local_id, primary_text, secondary FROM run_output"_s)
        || !text.prepare(u"INSERT INTO run_text (local_id, pos, len, text) VALUES (?, 0, ?, ?)"_s)
        || !item.prepare(u"INSERT INTO run_items (local_id, idx, item) VALUES (?, ?, ?)"_s)) {
        m_error = read.lastError().text() + text.lastError().text() + item.lastError().text();
        return false;
    }
    while (read.next()) {
        const QString localId = read.value(0).toString();
        const QString primary = read.value(1).toString();
        if (!primary.isEmpty()) {
            text.addBindValue(localId);
            text.addBindValue(primary.size());
            text.addBindValue(primary);
            if (!text.exec()) {
                m_error = text.lastError().text();
                return false;
            }
        }
        // A damaged list reads as no items, as it did before.
        const QJsonArray items = QJsonDocument::fromJson(read.value(2).toString().toUtf8()).array();
        for (qsizetype i = 0; i < items.size(); ++i) {
            item.addBindValue(localId);
            item.addBindValue(i);
            item.addBindValue(
                QString::fromUtf8(QJsonDocument(items.at(i).toObject()).toJson(QJsonDocument::Compact)));
            if (!item.exec()) {
                m_error = item.lastError().text();
                return false;
            }
        }
    }
    read.finish();
    return exec(u"DROP TABLE run_output"_s);
}

} // namespace Runwatch
