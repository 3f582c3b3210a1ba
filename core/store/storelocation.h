// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <optional>

namespace Runwatch {

// Where the run store is, as the app's Settings › Run Store… chooses it: this computer's SQLite
// file, or a team's PostgreSQL database. The rules live here, not in the dialog: building and
// reading the postgresql:// URL that --store and RUNWATCH_STORE take, checking the fields, the
// keychain account of the password, and which choice wins (the command line, then the
// environment, then the saved setting, then the default file).
//
// The password is never part of it: not in the URL, not in the settings. The CLI and scripts use
// libpq's own conventions (PGPASSWORD, ~/.pgpass, a service file); the app may keep it in the OS
// keychain and hand it to this process's connections with setStorePassword().
struct StoreLocation
{
    enum class Kind { ThisComputer, TeamDatabase };

    Kind kind = Kind::ThisComputer;
    QString file; // ThisComputer: the SQLite file; empty: RunStore::defaultDataPath()
    // TeamDatabase. An empty host, database or user is libpq's default (or the service's).
    QString host;
    int port = 5432;
    QString database;
    QString user;
    QString sslMode;     // libpq's sslmode; empty: libpq's default (prefer)
    QString sslRootCert; // the CA file that verify-ca / verify-full check the server against
    QString service;     // an entry of the service file (PGSERVICEFILE, ~/.pg_service.conf)

    // What --store takes: the file's path, or postgresql://user@host:port/database?sslmode=…
    QString toLocation() const;
    // A --store value read back into fields; nullopt with the reason in *error for a URL the
    // fields cannot hold (a password in it, an option the dialog has no field for).
    static std::optional<StoreLocation> fromLocation(const QString &location, QString *error = nullptr);
    // Empty when the fields make a usable location; else what to fix, for the operator.
    QString validationError() const;
    // The OS keychain account of a team database's password: one per user, host, port and
    // database, so a password is only ever given to the server it was saved for.
    QString keychainAccount() const;

    // The saved choice (QSettings, "store/…"; never a password). ThisComputer when none is saved.
    static StoreLocation fromSettings();
    void saveToSettings() const;

    bool operator==(const StoreLocation &) const = default;
};

// The store a front end opens, and why that one.
struct StoreChoice
{
    enum class Source { CommandLine, Environment, Settings, Default };
    QString location;
    Source source = Source::Default;
};
// --store (`commandLine`, empty when not given) wins over RUNWATCH_STORE, which wins over the app's
// saved setting (`useSettings`: the app; the CLI has no settings), then the default file.
StoreChoice chooseStore(const QString &commandLine, bool useSettings);

// The app's password for a team store (read from the OS keychain), held in this process's memory
// and given by the PostgreSQL engine only to connections to the same user, host, port and
// database as `location`. An empty password forgets it (libpq's own conventions apply again).
void setStorePassword(const QString &location, const QString &password);
// The password set for this user, host, port and database, or empty.
QString storePassword(const QString &user, const QString &host, int port, const QString &database);

// What "Test" found at a location, without creating or changing anything there.
struct StoreProbe
{
    enum class Outcome {
        Usable,      // reachable, schema this build knows (or none yet)
        Empty,       // reachable and empty: Runwatch creates its tables on first use
        Newer,       // written by a newer Runwatch: this build would refuse it
        Unreachable, // cannot connect, log in or read (error says why)
        Invalid,     // the location itself is wrong
    };
    Outcome outcome = Outcome::Invalid;
    int schemaVersion = 0;
    int runs = -1;   // how many runs it holds, -1 when not read
    QString message; // for the operator: what was found, or what is wrong

    bool ok() const { return outcome == Outcome::Usable || outcome == Outcome::Empty; }
};
// Connects to `location` (with `password` for this probe only, when not empty), reads its schema
// version and run count and closes again. Blocks for at most the connect timeout (5 s).
StoreProbe probeStore(const QString &location, const QString &password = {});

} // namespace Runwatch
