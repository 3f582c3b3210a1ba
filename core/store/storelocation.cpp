// SPDX-License-Identifier: GPL-3.0-or-later
#include "store/storelocation.h"

#include "store/runstore.h"
#include "store/storeengine.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QMutex>
#include <QSettings>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QUrl>
#include <QUrlQuery>
#include <QUuid>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "StoreLocation".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(StoreLocation)
};

const QString kLocationKey = u"store/location"_s;

// The query options the Run Store dialog has a field for; a URL with others is kept as it is in
// RUNWATCH_STORE or --store, not half-shown in a dialog that would drop the rest on OK.
const QStringList kDialogOptions{u"sslmode"_s, u"sslrootcert"_s, u"service"_s};

const QStringList kSslModes{u"disable"_s, u"allow"_s,     u"prefer"_s,
                            u"require"_s, u"verify-ca"_s, u"verify-full"_s};

QString encoded(const QString &part)
{
    return QString::fromLatin1(QUrl::toPercentEncoding(part));
}

// The key a password is kept under: the same four parts the PostgreSQL engine connects with.
QString passwordKey(const QString &user, const QString &host, int port, const QString &database)
{
    return user + u'\n' + host + u'\n' + QString::number(port) + u'\n' + database;
}

QString passwordKeyFor(const QString &location)
{
    const QUrl url(location, QUrl::StrictMode);
    QString database = url.path(QUrl::FullyDecoded);
    if (database.startsWith(u'/'))
        database.remove(0, 1);
    return passwordKey(url.userName(QUrl::FullyDecoded), url.host(QUrl::FullyDecoded), url.port(-1),
                       database);
}

QMutex &passwordMutex()
{
    static QMutex mutex;
    return mutex;
}

// Read by the writer's thread when it connects, set by the GUI thread.
QHash<QString, QString> &passwords()
{
    static QHash<QString, QString> map;
    return map;
}

// A probe's password for the probe's connection only: the one set before comes back after.
class ScopedPassword
{
public:
    ScopedPassword(QString location, const QString &password)
        : m_location(std::move(location))
    {
        if (password.isEmpty())
            return;
        const QMutexLocker lock(&passwordMutex());
        const QString key = passwordKeyFor(m_location);
        m_active = true;
        m_previous = passwords().value(key);
        passwords().insert(key, password);
    }
    ~ScopedPassword()
    {
        if (m_active)
            setStorePassword(m_location, m_previous);
    }
    ScopedPassword(const ScopedPassword &) = delete;
    ScopedPassword &operator=(const ScopedPassword &) = delete;

private:
    QString m_location;
    QString m_previous;
    bool m_active = false;
};

StoreProbe probed(StoreProbe::Outcome outcome, const QString &message)
{
    StoreProbe probe;
    probe.outcome = outcome;
    probe.message = message;
    return probe;
}

// A SQLite file that is not there yet: fine when its folder exists or can be made.
StoreProbe probeNewFile(const QString &path)
{
    QFileInfo folder(QFileInfo(path).absolutePath());
    while (!folder.exists() && folder.absoluteFilePath() != folder.absolutePath())
        folder = QFileInfo(folder.absolutePath());
    if (!folder.isDir() || !folder.isWritable()) {
        return probed(StoreProbe::Outcome::Unreachable,
                      Text::tr("The folder of %1 cannot be written.").arg(QDir::toNativeSeparators(path)));
    }
    return probed(StoreProbe::Outcome::Empty,
                  Text::tr("There is no run store at %1 yet: Runwatch creates it when it opens it.")
                      .arg(QDir::toNativeSeparators(path)));
}

} // namespace

QString StoreLocation::toLocation() const
{
    if (kind == Kind::ThisComputer)
        return file.isEmpty() ? RunStore::defaultDataPath() : file;
    // Built by hand, not with QUrl: an empty host (a service names it) must still read
    // postgresql://, which QUrl writes as postgresql:/ without an authority.
    QString url = u"postgresql://"_s;
    if (!host.isEmpty()) {
        if (!user.isEmpty())
            url += encoded(user) + u'@';
        url += host.contains(u':') ? u'[' + host + u']' : encoded(host);
        if (port > 0)
            url += u':' + QString::number(port);
    }
    url += u'/' + encoded(database);
    QStringList query;
    if (!sslMode.isEmpty())
        query << u"sslmode="_s + encoded(sslMode);
    if (!sslRootCert.isEmpty())
        query << u"sslrootcert="_s + QString::fromLatin1(QUrl::toPercentEncoding(sslRootCert, "/"));
    if (!service.isEmpty())
        query << u"service="_s + encoded(service);
    if (!query.isEmpty())
        url += u'?' + query.join(u'&');
    return url;
}

std::optional<StoreLocation> StoreLocation::fromLocation(const QString &location, QString *error)
{
    const auto refuse = [error](const QString &why) -> std::optional<StoreLocation> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    StoreLocation result;
    if (!detail::StoreEngine::isDatabaseUrl(location)) {
        if (location.isEmpty())
            return refuse(Text::tr("No run store was named."));
        result.file = location;
        return result;
    }
    const QUrl url(location, QUrl::StrictMode);
    if (!url.isValid())
        return refuse(Text::tr("The run store URL cannot be read: %1").arg(url.errorString()));
    const QUrlQuery query(url);
    if (!url.password().isEmpty() || query.hasQueryItem(u"password"_s))
        return refuse(Text::tr("The run store URL contains a password, which is never kept with it."));
    result.kind = Kind::TeamDatabase;
    result.host = url.host(QUrl::FullyDecoded);
    result.port = url.port(result.host.isEmpty() ? -1 : 5432);
    result.user = url.userName(QUrl::FullyDecoded);
    result.database = url.path(QUrl::FullyDecoded);
    if (result.database.startsWith(u'/'))
        result.database.remove(0, 1);
    for (const auto &[key, value] : query.queryItems(QUrl::FullyDecoded)) {
        if (!kDialogOptions.contains(key)) {
            return refuse(Text::tr("The run store URL has the option %1, which the Run Store settings do not "
                                   "show; keep such a URL in RUNWATCH_STORE or --store.")
                              .arg(key));
        }
        if (key == u"sslmode") {
            result.sslMode = value;
        } else if (key == u"sslrootcert") {
            result.sslRootCert = value;
        } else {
            result.service = value;
        }
    }
    return result;
}

QString StoreLocation::validationError() const
{
    if (kind == Kind::ThisComputer)
        return {};
    if (host.isEmpty() && service.isEmpty())
        return Text::tr("Name the database server's host, or a service that names it.");
    if (!host.isEmpty() && user.isEmpty())
        return Text::tr("Name the database user Runwatch logs in as.");
    if (!host.isEmpty() && (port < 1 || port > 65535))
        return Text::tr("The port must be between 1 and 65535.");
    if (host.contains(u'/') || host.contains(u'@') || host.contains(u' '))
        return Text::tr("The host is a name or an address, without a path or a user.");
    if (!sslMode.isEmpty() && !kSslModes.contains(sslMode))
        return Text::tr("Unknown TLS mode %1.").arg(sslMode);
    if (sslMode.startsWith(u"verify-"_s) && sslRootCert.isEmpty())
        return Text::tr("Checking the server's certificate needs the CA certificate file it was issued by.");
    if (!sslRootCert.isEmpty() && !QFileInfo(sslRootCert).isFile()) {
        return Text::tr("The CA certificate file %1 does not exist.")
            .arg(QDir::toNativeSeparators(sslRootCert));
    }
    QString why;
    if (!fromLocation(toLocation(), &why))
        return why;
    return {};
}

QString StoreLocation::keychainAccount() const
{
    // Its own prefix, as connection keys have theirs (KeyStore::connectionKey): no connection name
    // can make it equal a store's account.
    return u"run-store/"_s + user + u'@' + host + u':' + QString::number(port) + u'/' + database
           + (service.isEmpty() ? QString() : u"?service="_s + service);
}

StoreLocation StoreLocation::fromSettings()
{
    const QString saved = QSettings().value(kLocationKey).toString();
    if (saved.isEmpty())
        return {};
    // A setting that cannot be read (edited by hand) falls back to this computer's file; the
    // dialog shows what is used.
    return fromLocation(saved).value_or(StoreLocation{});
}

void StoreLocation::saveToSettings() const
{
    QSettings settings;
    if (kind == Kind::ThisComputer && file.isEmpty()) {
        settings.remove(kLocationKey);
        return;
    }
    // A URL without a password (fromLocation refuses one, and the fields have none).
    settings.setValue(kLocationKey, toLocation());
}

StoreChoice chooseStore(const QString &commandLine, bool useSettings)
{
    if (!commandLine.isEmpty())
        return {.location = commandLine, .source = StoreChoice::Source::CommandLine};
    if (const QString env = qEnvironmentVariable("RUNWATCH_STORE"); !env.isEmpty())
        return {.location = env, .source = StoreChoice::Source::Environment};
    if (useSettings && QSettings().contains(kLocationKey)) {
        return {.location = StoreLocation::fromSettings().toLocation(),
                .source = StoreChoice::Source::Settings};
    }
    return {.location = RunStore::defaultDataPath(), .source = StoreChoice::Source::Default};
}

void setStorePassword(const QString &location, const QString &password)
{
    const QMutexLocker lock(&passwordMutex());
    const QString key = passwordKeyFor(location);
    if (password.isEmpty()) {
        passwords().remove(key);
    } else {
        passwords().insert(key, password);
    }
}

QString storePassword(const QString &user, const QString &host, int port, const QString &database)
{
    const QMutexLocker lock(&passwordMutex());
    return passwords().value(passwordKey(user, host, port, database));
}

StoreProbe probeStore(const QString &location, const QString &password)
{
    QString why;
    const std::shared_ptr<const detail::StoreEngine> engine
        = detail::StoreEngine::forLocation(location, &why);
    if (!engine)
        return probed(StoreProbe::Outcome::Invalid, why);
    const bool sqlite = engine->kind() == detail::StoreEngine::Kind::Sqlite;
    if (sqlite && !QFileInfo::exists(location))
        return probeNewFile(location);
    const ScopedPassword scoped(location, sqlite ? QString() : password);
    const QString name = u"runwatch-store-probe-"_s + QUuid::createUuid().toString(QUuid::WithoutBraces);
    StoreProbe probe;
    {
        bool opened = false;
        if (sqlite) {
            // Read-only: a test never creates, converts or locks a file it only looks at.
            QSqlDatabase db = QSqlDatabase::addDatabase(u"QSQLITE"_s, name);
            db.setDatabaseName(location);
            db.setConnectOptions(u"QSQLITE_OPEN_READONLY"_s);
            opened = db.open();
            if (!opened)
                why = db.lastError().text();
        } else {
            opened = engine->openConnection(name, &why);
        }
        if (!opened) {
            probe = probed(
                StoreProbe::Outcome::Unreachable,
                Text::tr("Cannot connect to %1: %2").arg(detail::StoreEngine::redacted(location), why));
        } else {
            QSqlDatabase db = QSqlDatabase::database(name, false);
            bool empty = false;
            const std::optional<int> version = engine->schemaVersion(db, &empty, &why);
            if (!version) {
                probe = probed(StoreProbe::Outcome::Unreachable,
                               Text::tr("Connected, but the schema version cannot be read: %1").arg(why));
            } else if (*version > RunStore::SchemaVersion) {
                probe = probed(
                    StoreProbe::Outcome::Newer,
                    Text::tr("This run store was written by a newer Runwatch (schema %1, this version "
                             "knows %2). This version would leave it untouched: update Runwatch or "
                             "choose another store.")
                        .arg(*version)
                        .arg(RunStore::SchemaVersion));
            } else if (*version == 0) {
                probe
                    = probed(StoreProbe::Outcome::Empty,
                             sqlite ? Text::tr("The file holds no run store yet: Runwatch creates its tables "
                                               "when it opens it.")
                                    : Text::tr("Connected. The database holds no run store yet: Runwatch "
                                               "creates its tables when it first opens it, which needs a "
                                               "role that may create tables."));
            } else {
                QSqlQuery count(db);
                if (count.exec(u"SELECT count(*) FROM runs"_s) && count.next())
                    probe.runs = count.value(0).toInt();
                count.finish();
                probe.outcome = StoreProbe::Outcome::Usable;
                probe.message = probe.runs >= 0
                                    ? Text::tr("Connected: a run store (schema %1) with %n run(s).", nullptr,
                                               probe.runs)
                                          .arg(*version)
                                    : Text::tr("Connected: a run store (schema %1).").arg(*version);
                if (*version < RunStore::SchemaVersion) {
                    probe.message += u' '
                                     + Text::tr("This version upgrades it to schema %1 when it opens it, "
                                                "which needs the role that owns its tables.")
                                           .arg(RunStore::SchemaVersion);
                }
            }
            probe.schemaVersion = version.value_or(0);
            db.close();
        }
    }
    QSqlDatabase::removeDatabase(name);
    return probe;
}

} // namespace Runwatch
