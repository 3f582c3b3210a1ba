// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QSqlDatabase>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

namespace RunwatchTest {

// The store tests run on both engines: one test program, two ctest entries (runwatch_add_store_test
// in tests/CMakeLists.txt), the second with RUNWATCH_TEST_STORE=postgresql. On PostgreSQL each
// store is a new database in a throwaway cluster this program starts (PgCluster), so the tests'
// "a new file per test" holds on both.
bool onPostgres();

// A new, empty store called `name`: a file in `dir` on SQLite, a new database on PostgreSQL.
// Empty, with the reason in *error, when the cluster cannot start: the test fails, never skips.
QString freshStore(const QTemporaryDir &dir, const QString &name, QString *error = nullptr);

// A connection of its own to a store location (a file or a URL), for checks and damage behind the
// store's back; closed and removed when it goes.
class RawStore
{
public:
    explicit RawStore(const QString &location);
    ~RawStore();
    RawStore(const RawStore &) = delete;
    RawStore &operator=(const RawStore &) = delete;

    bool isOpen() const;
    QString error() const { return m_error; }
    QSqlDatabase db() const;
    // False with error() set.
    bool exec(const QString &sql);
    // The first column of the first row, or an invalid QVariant.
    QVariant value(const QString &sql);

private:
    QString m_name;
    QString m_error;
};

// A PostgreSQL cluster of this test program's own: initdb in a temporary folder, the server on
// 127.0.0.1 and a free port (no unix socket), password authentication (scram-sha-256) for the
// superuser "runwatch" — whose password the program gets in PGPASSWORD, as an operator's libpq
// would — stopped and removed when the program ends. As root (CI) the server runs as the
// `postgres` user: initdb and postgres refuse root.
class PgCluster
{
public:
    static PgCluster &instance();
    // A server setting ("name=value", e.g. track_commit_timestamp=on) for the cluster's start,
    // after the defaults (so it wins over them); no effect once started. For bench_team_store,
    // which needs more connections and the commits' timestamps.
    void addServerSetting(const QString &setting) { m_settings << setting; }
    // Starts the cluster once; false with the reason (a missing tool, a server that did not come
    // up within 30 s, with its log).
    bool ensureStarted(QString *error);
    int port() const { return m_port; }
    static QString password() { return QStringLiteral("runwatch-test-pw"); }
    // postgresql://runwatch@127.0.0.1:<port>/<database>
    QString url(const QString &database) const;
    // Creates an empty database.
    bool createDatabase(const QString &name, QString *error);
    // Turns TLS on for the connections made after it returns (ssl=on, reloaded, no restart): the
    // server presents `certFile` (PEM, signed by the test's own CA) with the key `keyFile`.
    // Connections without TLS still work (pg_hba's host lines take both).
    bool enableTls(const QString &certFile, const QString &keyFile, QString *error);
    void stop();

private:
    PgCluster() = default;
    ~PgCluster() = default;

    std::unique_ptr<QTemporaryDir> m_dir;
    QStringList m_settings;
    qint64 m_pid = 0;
    int m_port = 0;
    bool m_tried = false;
    QString m_error;
};

} // namespace RunwatchTest
