// SPDX-License-Identifier: GPL-3.0-or-later
// The PostgreSQL engine: a team's runs in one database, through Qt's QPSQL driver (libpq).
//
// Where it differs from SQLite, and why:
//  - The connection is libpq's: no password ever comes from Runwatch. Without one, libpq looks in
//    PGPASSWORD, ~/.pgpass (or passfile=) and the service file (PGSERVICE, service=), as psql does.
//  - The schema version is a table (runwatch_schema), not a file header, and a session advisory
//    lock keeps two processes from upgrading one database at the same time.
//  - Waiting for a lock: SQLite's busy timeout becomes lock_timeout, so a lock held too long is an
//    error the writer keeps the batch for, as on SQLite, not a write that hangs forever.
//  - INSERT OR REPLACE is INSERT … ON CONFLICT … DO UPDATE; rowids are identity columns.
//  - Search has no FTS5: schema 7 keeps the order runs were stored in (search_runs, an identity
//    column filled by a trigger) and RunStore reads the candidates (runstore_searchscan.cpp).
//  - Changes are pushed: triggers on runs, run_text and run_items NOTIFY runwatch_runs with the
//    run's local id, whoever writes; PostgreSQL folds the notices of one transaction into one.
#include "store/storeengine_pg.h"

#include "store/storelocation.h"

#include <QCoreApplication>
#include <QSqlError>
#include <QSqlQuery>
#include <QUrl>
#include <QUrlQuery>

using namespace Qt::StringLiterals;

namespace Runwatch::detail {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "RunStore".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(RunStore)
};

// The advisory lock migrations hold ("Runw").
constexpr qint64 kSchemaLock = 0x52756e77;

// The libpq keywords a store URL may carry. Nothing secret (password, sslpassword): those belong
// in libpq's own files and variables, never on a command line or in settings.
const QStringList kAllowedOptions{
    u"sslmode"_s,
    u"sslrootcert"_s,
    u"sslcert"_s,
    u"sslkey"_s,
    u"sslcrl"_s,
    u"sslcrldir"_s,
    u"sslsni"_s,
    u"connect_timeout"_s,
    u"service"_s,
    u"host"_s,
    u"hostaddr"_s,
    u"application_name"_s,
    u"target_session_attrs"_s,
    u"passfile"_s,
    u"channel_binding"_s,
    u"gssencmode"_s,
    u"krbsrvname"_s,
    u"keepalives"_s,
    u"keepalives_idle"_s,
    u"keepalives_interval"_s,
    u"keepalives_count"_s,
    u"tcp_user_timeout"_s,
    u"ssl_min_protocol_version"_s,
};

// As QPSQL quotes the values it writes into libpq's connection string.
QString quoted(QString value)
{
    value.replace(u'\\', u"\\\\"_s);
    value.replace(u'\'', u"\\'"_s);
    return u'\'' + value + u'\'';
}

class PostgresEngine final : public StoreEngine
{
public:
    PostgresEngine(QString url, QString host, int port, QString database, QString user, QString options)
        : StoreEngine(std::move(url))
        , m_host(std::move(host))
        , m_port(port)
        , m_database(std::move(database))
        , m_user(std::move(user))
        , m_options(std::move(options))
    {}

    Kind kind() const override { return Kind::Postgres; }

    bool openConnection(const QString &name, QString *error) const override
    {
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(u"QPSQL"_s, name);
            db.setHostName(m_host);
            db.setPort(m_port);
            db.setDatabaseName(m_database);
            db.setUserName(m_user);
            // Normally no password: libpq finds it (PGPASSWORD, ~/.pgpass, the service file). The
            // app may have read one from the OS keychain for exactly this user, server and
            // database (setStorePassword); it lives in this process's memory only.
            if (const QString password = storePassword(m_user, m_host, m_port, m_database);
                !password.isEmpty())
                db.setPassword(password);
            db.setConnectOptions(m_options);
            if (db.open()) {
                QSqlQuery q(db);
                // A lock held by another process longer than this fails the statement (the writer
                // keeps its batch and tries again), as SQLite's busy timeout does.
                // Notices ("already exists, skipping") are no news for an operator.
                if (q.exec(u"SET lock_timeout = '5s'"_s) && q.exec(u"SET client_min_messages = warning"_s))
                    return true;
                if (error)
                    *error = q.lastError().text();
            } else if (error) {
                // libpq's own words: "password authentication failed for user …", "Connection
                // refused", "could not translate host name …".
                *error = db.lastError().databaseText().trimmed();
                if (error->isEmpty())
                    *error = db.lastError().text();
            }
            db.close();
        }
        QSqlDatabase::removeDatabase(name);
        return false;
    }

    bool lockSchema(const QSqlDatabase &db, QString *error) const override
    {
        QSqlQuery q(db);
        if (q.exec(u"SELECT pg_advisory_lock(%1)"_s.arg(kSchemaLock)))
            return true;
        *error = q.lastError().text();
        return false;
    }

    void unlockSchema(const QSqlDatabase &db) const override
    {
        QSqlQuery(db).exec(u"SELECT pg_advisory_unlock(%1)"_s.arg(kSchemaLock));
    }

    std::optional<int> schemaVersion(const QSqlDatabase &db, bool *empty, QString *error) const override
    {
        QSqlQuery q(db);
        if (!q.exec(u"SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema()"_s)
            || !q.next()) {
            *error = q.lastError().text();
            return std::nullopt;
        }
        *empty = q.value(0).toLongLong() == 0;
        if (!q.exec(u"SELECT to_regclass('runwatch_schema') IS NOT NULL"_s) || !q.next()) {
            *error = q.lastError().text();
            return std::nullopt;
        }
        if (!q.value(0).toBool())
            return 0;
        if (!q.exec(u"SELECT coalesce(max(version), 0) FROM runwatch_schema"_s) || !q.next()) {
            *error = q.lastError().text();
            return std::nullopt;
        }
        return q.value(0).toInt();
    }

    QStringList setSchemaVersion(int version) const override
    {
        return {u"CREATE TABLE IF NOT EXISTS runwatch_schema (version INTEGER NOT NULL)"_s,
                u"DELETE FROM runwatch_schema"_s,
                u"INSERT INTO runwatch_schema (version) VALUES (%1)"_s.arg(version)};
    }

    QString upsert(const QString &table, const QStringList &columns, const QStringList &keys) const override
    {
        QStringList sets;
        for (const QString &column : columns) {
            if (!keys.contains(column))
                sets << u"%1 = excluded.%1"_s.arg(column);
        }
        return u"INSERT INTO %1 (%2) VALUES (%3) ON CONFLICT (%4) DO UPDATE SET %5"_s.arg(
            table, columns.join(u", "_s), QString(u"?,"_s).repeated(columns.size()).chopped(1),
            keys.join(u", "_s), sets.join(u", "_s));
    }

    QString bigint() const override { return u"BIGINT"_s; }
    // clock_timestamp(), not now(): now() stands still for a whole transaction.
    QString nowMs() const override
    {
        return u"CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)"_s;
    }

    QString caseless(const QString &expr) const override { return u"lower(%1)"_s.arg(expr); }

    QString earlierRemoteIdCondition() const override
    {
        // strpos() keeps the JSON out of it for almost every row; runwatch_jsonb() reads a damaged
        // token as NULL instead of failing the whole query.
        return u"strpos(r.token, ?) > 0 AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(CASE WHEN "
               "jsonb_typeof(runwatch_jsonb(r.token) -> 'previous_remote_ids') = 'array' THEN "
               "runwatch_jsonb(r.token) -> 'previous_remote_ids' ELSE CAST('[]' AS jsonb) END) AS e(id) "
               "WHERE e.id = ?)"_s;
    }

    QStringList searchSchema() const override
    {
        return {
            // A database this step was begun on before starts again from nothing: derived data.
            u"DROP TRIGGER IF EXISTS runs_search_runs ON runs"_s,
            u"DROP TRIGGER IF EXISTS runs_notify ON runs"_s,
            u"DROP TRIGGER IF EXISTS run_text_notify ON run_text"_s,
            u"DROP TRIGGER IF EXISTS run_items_notify ON run_items"_s,
            u"DROP TABLE IF EXISTS search_runs"_s,
            u"CREATE OR REPLACE FUNCTION runwatch_jsonb(t text) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS "
            "$$ BEGIN RETURN t::jsonb; EXCEPTION WHEN others THEN RETURN NULL; END $$"_s,
            // The order runs were stored in, newest first in a search's answer (SQLite: the rowid
            // of search_runs).
            u"CREATE TABLE search_runs (n BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "
            "local_id TEXT NOT NULL UNIQUE)"_s,
            u"CREATE OR REPLACE FUNCTION runwatch_search_runs() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            "IF TG_OP = 'INSERT' THEN INSERT INTO search_runs (local_id) VALUES (NEW.local_id) "
            "ON CONFLICT (local_id) DO NOTHING; ELSE DELETE FROM search_runs WHERE local_id = OLD.local_id; "
            "END IF; RETURN NULL; END $$"_s,
            u"CREATE TRIGGER runs_search_runs AFTER INSERT OR DELETE ON runs FOR EACH ROW "
            "EXECUTE FUNCTION runwatch_search_runs()"_s,
            u"INSERT INTO search_runs (local_id) SELECT local_id FROM runs ORDER BY created_at, local_id"_s,
            // Every writer announces what it changed (LISTEN runwatch_runs): one notice per run
            // and transaction, however many pieces it appended.
            u"CREATE OR REPLACE FUNCTION runwatch_notify() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            "PERFORM pg_notify('%1', CASE WHEN TG_OP = 'DELETE' THEN OLD.local_id ELSE NEW.local_id END); "
            "RETURN NULL; END $$"_s.arg(kRunsChannel),
            u"CREATE TRIGGER runs_notify AFTER INSERT OR UPDATE OR DELETE ON runs FOR EACH ROW "
            "EXECUTE FUNCTION runwatch_notify()"_s,
            u"CREATE TRIGGER run_text_notify AFTER INSERT OR UPDATE OR DELETE ON run_text FOR EACH ROW "
            "EXECUTE FUNCTION runwatch_notify()"_s,
            u"CREATE TRIGGER run_items_notify AFTER INSERT OR UPDATE OR DELETE ON run_items FOR EACH ROW "
            "EXECUTE FUNCTION runwatch_notify()"_s,
        };
    }

    bool hasTextIndex() const override { return false; }

    bool connectionCanDrop() const override { return true; }

    bool streamsUnderOtherStatements() const override { return false; }

    bool beginSnapshot(const QSqlDatabase &db) const override
    {
        return QSqlQuery(db).exec(u"BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"_s);
    }

    void endSnapshot(const QSqlDatabase &db) const override { QSqlQuery(db).exec(u"COMMIT"_s); }

    QString changeChannel() const override { return kRunsChannel; }

private:
    QString m_host;
    int m_port = -1;
    QString m_database;
    QString m_user;
    QString m_options;
};

} // namespace

std::shared_ptr<const StoreEngine> makePostgresEngine(const QString &location, QString *error)
{
    const auto refuse = [error](const QString &why) {
        if (error)
            *error = why;
        return nullptr;
    };
    const QUrl url(location, QUrl::StrictMode);
    if (!url.isValid())
        return refuse(Text::tr("The run store URL %1 cannot be read: %2").arg(location, url.errorString()));
    const QUrlQuery query(url);
    if (!url.password().isEmpty() || query.hasQueryItem(u"password"_s)
        || query.hasQueryItem(u"sslpassword"_s)) {
        // Not echoed: the URL holds the password.
        return refuse(Text::tr("The run store URL contains a password. Passwords are never taken from a "
                               "command line or a settings file: put it in ~/.pgpass, a service file "
                               "(PGSERVICE) or PGPASSWORD, and leave it out of the URL."));
    }
    if (!QSqlDatabase::isDriverAvailable(u"QPSQL"_s)) {
        return refuse(Text::tr("A PostgreSQL run store needs Qt's PostgreSQL driver (QPSQL; Debian: "
                               "libqt6sql6-psql), which is not installed."));
    }
    QStringList options;
    bool timeout = false;
    bool name = false;
    for (const auto &[key, value] : query.queryItems(QUrl::FullyDecoded)) {
        if (!kAllowedOptions.contains(key))
            return refuse(Text::tr("The run store URL has an option Runwatch does not pass on: %1").arg(key));
        // QPSQL reads ';' as the separator of its options.
        if (value.contains(u';'))
            return refuse(Text::tr("The run store URL's option %1 contains a ';'.").arg(key));
        options << key + u'=' + quoted(value);
        timeout = timeout || key == u"connect_timeout";
        name = name || key == u"application_name";
    }
    // An unreachable server is an error within seconds, not a window that hangs.
    if (!timeout)
        options << u"connect_timeout=5"_s;
    if (!name)
        options << u"application_name=runwatch"_s;
    QString database = url.path(QUrl::FullyDecoded);
    if (database.startsWith(u'/'))
        database.remove(0, 1);
    return std::make_shared<PostgresEngine>(location, url.host(QUrl::FullyDecoded), url.port(-1), database,
                                            url.userName(QUrl::FullyDecoded), options.join(u';'));
}

} // namespace Runwatch::detail
