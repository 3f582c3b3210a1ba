// SPDX-License-Identifier: GPL-3.0-or-later
// The SQLite engine (the default: a file on this computer) and the choice between the engines.
// PostgreSQL's is storeengine_pg.cpp.
#include "store/storeengine.h"

#include "store/privatefiles.h"
#include "store/storeengine_pg.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>
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

QString defaultDataFolder()
{
    QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    if (dir.isEmpty())
        dir = QDir::homePath() + u"/.local/share/runwatch"_s;
    return dir;
}

class SqliteEngine final : public StoreEngine
{
public:
    explicit SqliteEngine(QString path)
        : StoreEngine(std::move(path))
    {}

    Kind kind() const override { return Kind::Sqlite; }

    QString prepareLocation() const override
    {
        const QString &path = location();
        // ":memory:" and the like have no files to protect.
        if (path.startsWith(u':'))
            return {};
        const bool ownFolder
            = QFileInfo(path).absolutePath() == QFileInfo(defaultDataFolder()).absolutePath();
        return makeStoreFilesPrivate(path, ownFolder);
    }

    bool openConnection(const QString &name, QString *error) const override
    {
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(u"QSQLITE"_s, name);
            db.setDatabaseName(location());
            // Several processes (GUI, CLI watchers) share the file: wait for locks instead of failing.
            db.setConnectOptions(u"QSQLITE_BUSY_TIMEOUT=5000"_s);
            QSqlQuery pragma(db);
            // The journal mode is the file's (set once by sessionSetup); synchronous is per connection.
            if (db.open() && pragma.exec(u"PRAGMA synchronous=NORMAL"_s))
                return true;
            if (error)
                *error = db.isOpen() ? pragma.lastError().text() : db.lastError().text();
            db.close();
        }
        QSqlDatabase::removeDatabase(name);
        return false;
    }

    std::optional<int> schemaVersion(const QSqlDatabase &db, bool *empty, QString *error) const override
    {
        QSqlQuery q(db);
        if (!q.exec(u"PRAGMA user_version"_s) || !q.next()) {
            *error = q.lastError().text();
            return std::nullopt;
        }
        const int version = q.value(0).toInt();
        q.finish(); // an open statement would keep a read transaction and block the WAL switch
        *empty = false;
        if (version == 0) {
            if (!q.exec(u"SELECT count(*) FROM sqlite_master"_s) || !q.next()) {
                *error = q.lastError().text();
                return std::nullopt;
            }
            *empty = q.value(0).toInt() == 0;
            q.finish();
        }
        return version;
    }

    QStringList setSchemaVersion(int version) const override
    {
        return {u"PRAGMA user_version = %1"_s.arg(version)};
    }

    QStringList sessionSetup() const override { return {u"PRAGMA journal_mode=WAL"_s}; }

    QString upsert(const QString &table, const QStringList &columns, const QStringList &) const override
    {
        // REPLACE, not ON CONFLICT DO UPDATE: the FTS5 triggers (runstore_search.cpp) index a
        // piece or an item on its insert, which a REPLACE fires and an upsert's update does not.
        return u"INSERT OR REPLACE INTO %1 (%2) VALUES (%3)"_s.arg(
            table, columns.join(u", "_s), QString(u"?,"_s).repeated(columns.size()).chopped(1));
    }

    QString tableOptions() const override { return u" WITHOUT ROWID"_s; }

    QString caseless(const QString &expr) const override { return expr + u" COLLATE NOCASE"_s; }

    QString earlierRemoteIdCondition() const override
    {
        // instr() keeps the JSON out of it for almost every row; CASE keeps json_each off a token
        // that is not JSON (it would fail the whole query).
        return u"instr(r.token, ?) > 0 AND CASE WHEN json_valid(r.token) THEN EXISTS "
               "(SELECT 1 FROM json_each(r.token, '$.previous_remote_ids') WHERE value = ?) ELSE 0 END"_s;
    }

    QStringList searchSchema() const override { return sqliteSearchSchema(); }

    bool hasTextIndex() const override { return true; }
};

} // namespace

bool StoreEngine::isDatabaseUrl(const QString &location)
{
    return location.startsWith(u"postgresql://"_s, Qt::CaseInsensitive)
           || location.startsWith(u"postgres://"_s, Qt::CaseInsensitive);
}

QString StoreEngine::redacted(const QString &location)
{
    if (!isDatabaseUrl(location))
        return location;
    QUrl url(location);
    QUrlQuery query(url);
    query.removeAllQueryItems(u"password"_s);
    query.removeAllQueryItems(u"sslpassword"_s);
    url.setQuery(query);
    return url.toString(QUrl::RemovePassword);
}

std::shared_ptr<const StoreEngine> StoreEngine::forLocation(const QString &location, QString *error)
{
    if (isDatabaseUrl(location))
        return makePostgresEngine(location, error);
    if (location.isEmpty()) {
        if (error)
            *error = Text::tr("No run store was named.");
        return nullptr;
    }
    return std::make_shared<SqliteEngine>(location);
}

bool StoreEngine::lockSchema(const QSqlDatabase &, QString *) const
{
    return true;
}

void StoreEngine::unlockSchema(const QSqlDatabase &) const
{}

} // namespace Runwatch::detail
