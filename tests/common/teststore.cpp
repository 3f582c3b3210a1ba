// SPDX-License-Identifier: GPL-3.0-or-later
#include "teststore.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QSqlError>
#include <QSqlQuery>
#include <QTcpServer>
#include <QTest>
#include <QUrl>
#include <QUrlQuery>
#include <QUuid>

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <utility>

using namespace Qt::StringLiterals;

namespace RunwatchTest {

namespace {

constexpr auto kAdminConnection = "runwatch-test-admin";

// The newest PostgreSQL 15 (or any) server binaries Debian installed, or a PATH lookup.
QString pgBinary(const QString &tool)
{
    QStringList versions = QDir(u"/usr/lib/postgresql"_s).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    // 15 first: the version the tests are written for; then the others, newest first.
    std::sort(versions.begin(), versions.end(), [](const QString &a, const QString &b) {
        const int x = a == u"15" ? 1000 : a.toInt();
        const int y = b == u"15" ? 1000 : b.toInt();
        return x > y;
    });
    for (const QString &version : versions) {
        const QString path = u"/usr/lib/postgresql/%1/bin/%2"_s.arg(version, tool);
        if (QFile::exists(path))
            return path;
    }
    return tool;
}

struct Account
{
    bool drop = false; // running as root: the server runs as `postgres`
    uid_t uid = 0;
    gid_t gid = 0;
};

// Starts `argv` with stdout and stderr to `log`, as `account`'s user, killed with SIGINT (a fast
// shutdown) should this program die first. The pid, or -1.
pid_t spawn(const QStringList &argv, const Account &account, const QString &log)
{
    QList<QByteArray> args;
    for (const QString &arg : argv)
        args << arg.toLocal8Bit();
    std::vector<char *> cargs;
    for (QByteArray &arg : args)
        cargs.push_back(arg.data());
    cargs.push_back(nullptr);
    const QByteArray logPath = log.toLocal8Bit();
    const pid_t pid = ::fork();
    if (pid != 0)
        return pid;
    // The child: only async-signal-safe calls from here on.
    ::prctl(PR_SET_PDEATHSIG, SIGINT);
    const int fd = ::open(logPath.constData(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (fd >= 0) {
        ::dup2(fd, STDOUT_FILENO);
        ::dup2(fd, STDERR_FILENO);
        ::close(fd);
    }
    if (account.drop) {
        const gid_t gid = account.gid;
        if (::setgroups(1, &gid) != 0 || ::setgid(account.gid) != 0 || ::setuid(account.uid) != 0)
            ::_exit(126);
    }
    ::execv(cargs.front(), cargs.data());
    ::_exit(127);
}

QString readLog(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromLocal8Bit(file.readAll().right(4000)) : QString();
}

} // namespace

bool onPostgres()
{
    return qEnvironmentVariable("RUNWATCH_TEST_STORE") == u"postgresql";
}

QString freshStore(const QTemporaryDir &dir, const QString &name, QString *error)
{
    if (!onPostgres())
        return dir.filePath(name + u".sqlite"_s);
    static std::atomic<int> counter{0};
    QString database = u"t%1_"_s.arg(++counter);
    for (const QChar c : name.toLower())
        database += c.isLetterOrNumber() && c.unicode() < 128 ? c : u'_';
    database.truncate(60);
    QString why;
    PgCluster &cluster = PgCluster::instance();
    if (!cluster.ensureStarted(&why) || !cluster.createDatabase(database, &why)) {
        qWarning("PostgreSQL store not available: %s", qPrintable(why));
        if (error)
            *error = why;
        return {};
    }
    return cluster.url(database);
}

RawStore::RawStore(const QString &location)
    : m_name(u"raw-store-"_s + QUuid::createUuid().toString(QUuid::WithoutBraces))
{
    const bool pg = location.startsWith(u"postgresql://"_s);
    QSqlDatabase db = QSqlDatabase::addDatabase(pg ? u"QPSQL"_s : u"QSQLITE"_s, m_name);
    if (pg) {
        const QUrl url(location);
        db.setHostName(url.host());
        db.setPort(url.port());
        db.setUserName(url.userName());
        db.setDatabaseName(url.path().mid(1));
        QStringList options;
        for (const auto &[key, value] : QUrlQuery(url).queryItems(QUrl::FullyDecoded))
            options << key + u'=' + value;
        db.setConnectOptions(options.join(u';'));
    } else {
        db.setDatabaseName(location);
    }
    if (!db.open())
        m_error = db.lastError().text();
}

RawStore::~RawStore()
{
    {
        QSqlDatabase db = QSqlDatabase::database(m_name, false);
        db.close();
    }
    QSqlDatabase::removeDatabase(m_name);
}

bool RawStore::isOpen() const
{
    return QSqlDatabase::database(m_name, false).isOpen();
}

QSqlDatabase RawStore::db() const
{
    return QSqlDatabase::database(m_name, false);
}

bool RawStore::exec(const QString &sql)
{
    QSqlQuery q(db());
    if (q.exec(sql))
        return true;
    m_error = sql + u": "_s + q.lastError().text();
    return false;
}

QVariant RawStore::value(const QString &sql)
{
    QSqlQuery q(db());
    if (q.exec(sql) && q.next())
        return q.value(0);
    m_error = sql + u": "_s + q.lastError().text();
    return {};
}

PgCluster &PgCluster::instance()
{
    static PgCluster cluster;
    return cluster;
}

QString PgCluster::url(const QString &database) const
{
    return u"postgresql://runwatch@127.0.0.1:%1/%2"_s.arg(m_port).arg(database);
}

bool PgCluster::ensureStarted(QString *error)
{
    if (m_tried) {
        if (error)
            *error = m_error;
        return m_pid > 0;
    }
    m_tried = true;
    const auto fail = [&](const QString &why) {
        m_error = why;
        if (error)
            *error = why;
        return false;
    };
    Account account;
    if (::geteuid() == 0) {
        const passwd *pw = ::getpwnam("postgres");
        if (!pw)
            return fail(u"running as root, and there is no `postgres` user to run the server as"_s);
        account = {.drop = true, .uid = pw->pw_uid, .gid = pw->pw_gid};
    }
    const QString initdb = pgBinary(u"initdb"_s);
    const QString postgres = pgBinary(u"postgres"_s);
    if (!QFile::exists(initdb) || !QFile::exists(postgres))
        return fail(u"PostgreSQL's server is not installed (initdb, postgres; Debian: postgresql)"_s);
    // As root, in /tmp whatever TMPDIR says: the postgres user must reach the folder, and a TMPDIR
    // under /root would not let it.
    const QString base = account.drop ? u"/tmp"_s : QDir::tempPath();
    m_dir = std::make_unique<QTemporaryDir>(base + u"/runwatch-pg-XXXXXX"_s);
    if (!m_dir->isValid())
        return fail(u"cannot create a temporary folder"_s);
    if (account.drop && ::chown(QFile::encodeName(m_dir->path()).constData(), account.uid, account.gid) != 0)
        return fail(u"cannot give the temporary folder to the postgres user"_s);
    const QString pwfile = m_dir->filePath(u"pw"_s);
    {
        QFile file(pwfile);
        if (!file.open(QIODevice::WriteOnly) || file.write(password().toUtf8() + '\n') < 0)
            return fail(u"cannot write the password file"_s);
    }
    // Checked, not cast to void: glibc's fortified chown() must be used (the benchmarks' release
    // build, -D_FORTIFY_SOURCE=2 -Werror, compiles this file too).
    if (account.drop && ::chown(QFile::encodeName(pwfile).constData(), account.uid, account.gid) != 0)
        return fail(u"cannot give the password file to the postgres user"_s);
    const QString data = m_dir->filePath(u"data"_s);
    const QString log = m_dir->filePath(u"log"_s);
    const pid_t init = spawn({initdb, u"-D"_s, data, u"-U"_s, u"runwatch"_s, u"--pwfile"_s, pwfile,
                              u"--auth-host=scram-sha-256"_s, u"--auth-local=scram-sha-256"_s, u"-E"_s,
                              u"UTF8"_s, u"--locale=C.UTF-8"_s, u"--no-sync"_s},
                             account, log);
    int status = 0;
    if (init < 0 || ::waitpid(init, &status, 0) != init || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return fail(u"initdb failed: "_s + readLog(log));
    {
        QTcpServer probe;
        if (!probe.listen(QHostAddress::LocalHost))
            return fail(u"no free port on 127.0.0.1"_s);
        m_port = probe.serverPort();
    }
    // The settings a test cluster needs, then the caller's (later ones win).
    QStringList command{postgres, u"-D"_s, data, u"-p"_s, QString::number(m_port)};
    const QStringList settings
        = QStringList{u"listen_addresses=127.0.0.1"_s, u"unix_socket_directories="_s, u"fsync=off"_s,
                      u"synchronous_commit=off"_s,     u"full_page_writes=off"_s,     u"max_connections=60"_s}
          + m_settings;
    for (const QString &setting : settings)
        command << u"-c"_s << setting;
    const pid_t server = spawn(command, account, log);
    if (server < 0)
        return fail(u"cannot start postgres"_s);
    m_pid = server;
    qAddPostRoutine([] { PgCluster::instance().stop(); });
    // Ready when the postmaster says so in its pid file (PM_STATUS_READY) — or gone.
    bool exited = false;
    const bool ready = QTest::qWaitFor(
        [&] {
            if (::waitpid(server, &status, WNOHANG) == server) {
                exited = true;
                return true;
            }
            QFile pidFile(data + u"/postmaster.pid"_s);
            return pidFile.open(QIODevice::ReadOnly) && pidFile.readAll().contains("ready");
        },
        30000);
    if (!ready || exited) {
        if (!exited)
            stop();
        m_pid = 0;
        return fail(u"the PostgreSQL server did not start: "_s + readLog(log));
    }
    // libpq's own convention, as an operator's environment would have it: never in a URL.
    qputenv("PGPASSWORD", password().toUtf8());
    QSqlDatabase db = QSqlDatabase::addDatabase(u"QPSQL"_s, QLatin1StringView(kAdminConnection));
    db.setHostName(u"127.0.0.1"_s);
    db.setPort(m_port);
    db.setUserName(u"runwatch"_s);
    db.setDatabaseName(u"postgres"_s);
    if (!db.open())
        return fail(u"cannot connect to the test cluster: "_s + db.lastError().text());
    return true;
}

bool PgCluster::createDatabase(const QString &name, QString *error)
{
    QSqlQuery q(QSqlDatabase::database(QLatin1StringView(kAdminConnection), false));
    if (q.exec(u"CREATE DATABASE %1"_s.arg(name)))
        return true;
    if (error)
        *error = q.lastError().text();
    return false;
}

bool PgCluster::enableTls(const QString &certFile, const QString &keyFile, QString *error)
{
    const auto fail = [error](const QString &why) {
        if (error)
            *error = why;
        return false;
    };
    if (m_pid <= 0 || !m_dir)
        return fail(u"the cluster is not running"_s);
    // Copies in the data folder, the server's own (a key must be its owner's alone, or postgres
    // refuses it).
    const QString data = m_dir->filePath(u"data"_s);
    const QString cert = data + u"/runwatch-test-server.crt"_s;
    const QString key = data + u"/runwatch-test-server.key"_s;
    for (const auto &[from, to] : {std::pair{certFile, cert}, std::pair{keyFile, key}}) {
        QFile::remove(to);
        if (!QFile::copy(from, to))
            return fail(u"cannot copy %1 into the cluster"_s.arg(from));
        if (!QFile::setPermissions(to, QFileDevice::ReadOwner | QFileDevice::WriteOwner))
            return fail(u"cannot narrow %1"_s.arg(to));
        if (::geteuid() == 0) {
            const passwd *pw = ::getpwnam("postgres");
            if (!pw || ::chown(QFile::encodeName(to).constData(), pw->pw_uid, pw->pw_gid) != 0)
                return fail(u"cannot give %1 to the postgres user"_s.arg(to));
        }
    }
    QSqlQuery q(QSqlDatabase::database(QLatin1StringView(kAdminConnection), false));
    for (const QString &sql : {u"ALTER SYSTEM SET ssl_cert_file = '%1'"_s.arg(cert),
                               u"ALTER SYSTEM SET ssl_key_file = '%1'"_s.arg(key),
                               u"ALTER SYSTEM SET ssl = on"_s, u"SELECT pg_reload_conf()"_s}) {
        if (!q.exec(sql))
            return fail(sql + u": "_s + q.lastError().text());
    }
    // The postmaster reloads on its signal, a moment later: on once a new session says so.
    QString last;
    const bool on = QTest::qWaitFor(
        [&] {
            const QString name = u"runwatch-test-tls-"_s + QUuid::createUuid().toString(QUuid::WithoutBraces);
            bool ssl = false;
            {
                QSqlDatabase db = QSqlDatabase::addDatabase(u"QPSQL"_s, name);
                db.setHostName(u"127.0.0.1"_s);
                db.setPort(m_port);
                db.setUserName(u"runwatch"_s);
                db.setDatabaseName(u"postgres"_s);
                db.setConnectOptions(u"sslmode=require"_s);
                if (db.open()) {
                    QSqlQuery check(db);
                    ssl = check.exec(u"SHOW ssl"_s) && check.next() && check.value(0).toString() == u"on";
                } else {
                    last = db.lastError().text();
                }
                db.close();
            }
            QSqlDatabase::removeDatabase(name);
            return ssl;
        },
        15000);
    if (!on)
        return fail(u"TLS did not come on: "_s + last + u"\n"_s + readLog(m_dir->filePath(u"log"_s)));
    return true;
}

void PgCluster::stop()
{
    if (QSqlDatabase::contains(QLatin1StringView(kAdminConnection))) {
        QSqlDatabase::database(QLatin1StringView(kAdminConnection), false).close();
        QSqlDatabase::removeDatabase(QLatin1StringView(kAdminConnection));
    }
    if (m_pid <= 0)
        return;
    const pid_t pid = pid_t(m_pid);
    m_pid = 0;
    // A fast shutdown: clients are disconnected and the server ends within a second or two. A
    // plain wait: this runs as the application ends (qAddPostRoutine), with no event loop left.
    ::kill(pid, SIGINT);
    int status = 0;
    ::waitpid(pid, &status, 0);
    m_dir.reset();
}

} // namespace RunwatchTest
