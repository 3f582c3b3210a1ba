// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QSqlDatabase>
#include <QSqlQuery>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>

namespace Runwatch::detail {

// The one place where the store's two engines differ: the embedded SQLite file (the zero-setup
// default) and a team's PostgreSQL database (QPSQL). RunStore, its writer, its readers and the
// migrations speak through this object: how a connection is made and configured, where the schema
// version lives, and the few pieces of SQL the two dialects spell differently. Everything else —
// the tables, the numbered migrations, the write model — is the same text on both.
class StoreEngine
{
public:
    enum class Kind { Sqlite, Postgres };

    virtual ~StoreEngine() = default;

    // What --store or RUNWATCH_STORE names: a file path (SQLite), or
    //   postgresql://user@host:port/database?sslmode=verify-full&sslrootcert=/path/ca.pem
    // (also postgres://). A URL with a password is refused: a password on a command line or in a
    // settings file is readable by others; libpq's own PGPASSWORD, ~/.pgpass and PGSERVICE apply.
    // nullptr with the reason in *error for a location that cannot be used.
    static std::shared_ptr<const StoreEngine> forLocation(const QString &location, QString *error);
    // Whether `location` names a PostgreSQL database rather than a file.
    static bool isDatabaseUrl(const QString &location);
    // `location` fit for a message: a URL without a password someone put in it by mistake.
    static QString redacted(const QString &location);

    virtual Kind kind() const = 0;
    // As given (the file path or the URL): what the readers on other threads open again.
    QString location() const { return m_location; }

    // Before the first connection: SQLite's file and folder are made the owner's only.
    virtual QString prepareLocation() const { return {}; }
    // Adds a connection named `name` for the calling thread, opens and configures it (SQLite: the
    // busy timeout and synchronous mode; PostgreSQL: the lock timeout). False with *error — the
    // server's own words, which tell a wrong password from an unreachable host — and the
    // connection removed again.
    virtual bool openConnection(const QString &name, QString *error) const = 0;
    // Once per store, after open and before the schema is read: serialises migrations between
    // processes where the engine needs it (PostgreSQL's advisory lock; SQLite's file lock does it).
    virtual bool lockSchema(const QSqlDatabase &db, QString *error) const;
    virtual void unlockSchema(const QSqlDatabase &db) const;
    // The schema version stored in the database (0: none yet); *empty when it holds no tables at
    // all (a new store, created silently). nullopt on an error.
    virtual std::optional<int> schemaVersion(const QSqlDatabase &db, bool *empty, QString *error) const = 0;
    // Inside a migration step's transaction: record `version` as the schema's.
    virtual QStringList setSchemaVersion(int version) const = 0;
    // Once per store, after the version check (so a newer store stays untouched), before any step.
    virtual QStringList sessionSetup() const { return {}; }

    // Dialect. `INSERT OR REPLACE` (SQLite) or `INSERT … ON CONFLICT (keys) DO UPDATE` (PostgreSQL):
    // the row with these keys ends up holding these values.
    virtual QString upsert(const QString &table, const QStringList &columns,
                           const QStringList &keys) const = 0;
    // After a CREATE TABLE whose primary key is the whole point of the row (no rowid in SQLite).
    virtual QString tableOptions() const { return {}; }
    // A 64-bit integer column (SQLite's INTEGER is 64-bit already; PostgreSQL's is 32).
    virtual QString bigint() const { return QStringLiteral("INTEGER"); }
    // Milliseconds since the epoch by the database's clock (an SQL expression): leases expire by
    // one clock for every process of a team, whatever their own clocks say. SQLite's database is
    // on this host, so its clock is ours.
    virtual QString nowMs() const
    {
        return QStringLiteral("CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)");
    }
    // `expr` compared without regard to (ASCII) case: COLLATE NOCASE or lower().
    virtual QString caseless(const QString &expr) const = 0;
    // A condition on runs `r`: the continuation token lists `?` (twice bound) among the remote ids
    // the run went through before.
    virtual QString earlierRemoteIdCondition() const = 0;
    // Schema 7: what keeps the search index (SQLite: FTS5 and its triggers, runstore_search.cpp;
    // PostgreSQL: the order runs were stored in, runstore_searchscan.cpp).
    virtual QStringList searchSchema() const = 0;
    // Whether search has a full-text index to ask (FTS5), or reads the candidates' text.
    virtual bool hasTextIndex() const = 0;
    // Whether a forward-only query keeps streaming its rows while other statements run on the same
    // connection (SQLite). PostgreSQL's single-row mode (QPSQL's forward-only) drops the rest of a
    // result at the next statement: a listing that reads each run's output as it goes reads its
    // rows whole first there. Use prepareNestedRead().
    virtual bool streamsUnderOtherStatements() const { return true; }
    // `q` made forward-only where that is safe for a query whose rows are read while other
    // statements run on the same connection.
    void prepareNestedRead(QSqlQuery &q) const { q.setForwardOnly(streamsUnderOtherStatements()); }
    // Begins a read of several statements that must see one snapshot of the store (the history
    // reader's listing and each live run's output). SQLite's open statement keeps its WAL
    // snapshot for the connection already; PostgreSQL's autocommit would take one per statement.
    // endSnapshot() after the read.
    virtual bool beginSnapshot(const QSqlDatabase &) const { return true; }
    virtual void endSnapshot(const QSqlDatabase &) const {}
    // A server's connection can drop (a restart, a network blip, an idle timeout): after a failed
    // write its writer opens a new one for the next try, and a failed open is tried again.
    virtual bool connectionCanDrop() const { return false; }
    // The channel this engine announces changed runs on (NOTIFY, by triggers that every writer
    // fires), or empty where other processes' changes are not pushed (SQLite).
    virtual QString changeChannel() const { return {}; }

protected:
    explicit StoreEngine(QString location)
        : m_location(std::move(location))
    {}

private:
    QString m_location;
};

// Schema 7 on SQLite: FTS5 and the triggers that keep it (runstore_search.cpp).
QStringList sqliteSearchSchema();

// The channel PostgreSQL stores announce a changed run on (payload: its local id).
inline constexpr QLatin1StringView kRunsChannel{"runwatch_runs"};

} // namespace Runwatch::detail
