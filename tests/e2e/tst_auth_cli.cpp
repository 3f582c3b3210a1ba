// SPDX-License-Identifier: GPL-3.0-or-later
// Auth for every connector, on the wire: runwatch-cli against each simulator (openai, a2a, jobs,
// foundry), whose request log holds the headers each request carried.
//  - --auth header:X-Custom-Key sends the key in that header and no Authorization header;
//  - --token-command sends the command's token as Bearer, runs the command again after a 401
//    (once) and sends the request again with the new token;
//  - the command's environment holds none of the *_API_KEY / RUNWATCH_* variables the CLI had.
#include "a2a/a2asim.h"
#include "cliprocess.h"
#include "foundry/foundrysim.h"
#include "jobs/jobssim.h"
#include "openai/openaisim.h"

#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace Qt::StringLiterals;
using Result = RunwatchTest::CliResult;

namespace {

// What a simulator saw of one request.
struct Seen
{
    QString path;
    RunwatchSim::HeaderList headers;

    QByteArray header(QByteArrayView name) const { return RunwatchSim::headerValue(headers, name); }
};

// One simulator of `backend`, requiring `token` as Bearer when it is not empty.
class Service
{
public:
    Service(const QString &backend, const QString &token)
        : m_backend(backend)
    {
        if (backend == u"openai") {
            RunwatchSim::OpenAiSimConfig config;
            config.apiKey = token;
            config.intervalMs = 2;
            m_openai = std::make_unique<RunwatchSim::OpenAiSimulator>(config);
            m_listening = m_openai->listen();
            m_url = m_openai->baseUrl();
        } else if (backend == u"a2a") {
            RunwatchSim::A2aSimConfig config;
            config.apiKey = token; // the card then asks for Bearer
            m_a2a = std::make_unique<RunwatchSim::A2aSimulator>(config);
            m_a2a->setIntervalMs(2);
            m_listening = m_a2a->listen();
            m_url = m_a2a->baseUrl();
        } else if (backend == u"jobs") {
            RunwatchSim::JobsSimConfig config;
            config.apiKey = token;
            config.intervalMs = 2;
            config.pollRetryAfter = "0.05";
            m_jobs = std::make_unique<RunwatchSim::JobsSimulator>(config);
            m_listening = m_jobs->listen();
            m_url = m_jobs->baseUrl();
        } else {
            RunwatchSim::FoundrySimConfig config;
            config.token = token;
            config.intervalMs = 1;
            m_foundry = std::make_unique<RunwatchSim::FoundrySimulator>(config);
            m_listening = m_foundry->listen();
            m_url = m_foundry->baseUrl();
        }
    }

    bool listening() const { return m_listening; }
    QUrl url() const { return m_url; }

    // A prompt each simulator completes in a few events.
    QStringList start() const
    {
        QStringList args{u"start"_s, u"--prompt"_s,
                         m_backend == u"a2a" ? u"normal chunks=3"_s : u"normal deltas=3"_s, u"--follow"_s};
        if (m_backend == u"foundry")
            args << u"--agent"_s << u"asst_sim_weather"_s;
        return args;
    }

    // Every request but the public agent card (which is fetched without credentials).
    QList<Seen> requests() const
    {
        QList<Seen> out;
        const auto add = [&out](const auto &records) {
            for (const auto &r : records) {
                if (!r.path.startsWith(u"/.well-known/"_s))
                    out.append({r.path, r.headers});
            }
        };
        if (m_openai)
            add(m_openai->requests());
        if (m_a2a)
            add(m_a2a->requests());
        if (m_jobs)
            add(m_jobs->requests());
        if (m_foundry)
            add(m_foundry->requests());
        return out;
    }

private:
    QString m_backend;
    std::unique_ptr<RunwatchSim::OpenAiSimulator> m_openai;
    std::unique_ptr<RunwatchSim::A2aSimulator> m_a2a;
    std::unique_ptr<RunwatchSim::JobsSimulator> m_jobs;
    std::unique_ptr<RunwatchSim::FoundrySimulator> m_foundry;
    bool m_listening = false;
    QUrl m_url;
};

void backends()
{
    QTest::addColumn<QString>("backend");
    for (const QString &backend : {u"openai"_s, u"a2a"_s, u"jobs"_s, u"foundry"_s})
        QTest::newRow(qPrintable(backend)) << backend;
}

} // namespace

class TestAuthCli final : public QObject
{
    Q_OBJECT

    std::unique_ptr<QTemporaryDir> m_dir;

    Result cli(const Service &service, const QString &backend, const QStringList &args,
               const QStringList &env = {})
    {
        const QStringList globals{u"--backend"_s,           backend,      u"--url"_s,
                                  service.url().toString(), u"--store"_s, m_dir->filePath(u"runs.sqlite"_s)};
        return RunwatchTest::runCli(globals + args, this, env);
    }

private Q_SLOTS:
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
    }

    void namedHeader_data() { backends(); }
    void namedHeader()
    {
        QFETCH(QString, backend);
        Service service(backend, {});
        QVERIFY(service.listening());
        const Result r
            = cli(service, backend, QStringList{u"--auth"_s, u"header:X-Custom-Key"_s} + service.start(),
                  {u"RUNWATCH_API_KEY=sk-custom-header-0001"_s});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QList<Seen> seen = service.requests();
        QVERIFY(!seen.isEmpty());
        for (const Seen &request : seen) {
            QVERIFY2(request.header("x-custom-key") == "sk-custom-header-0001", qPrintable(request.path));
            QVERIFY2(request.header("authorization").isEmpty(), qPrintable(request.path));
            QVERIFY2(request.header("api-key").isEmpty(), qPrintable(request.path));
        }
        QVERIFY(!r.out.contains("sk-custom-header-0001") && !r.err.contains("sk-custom-header-0001"));
    }

    // A stored run reattached with no --url: the environment's key now is not this service's (a
    // key for another one, exported for another command): status, watch and resume send none of
    // it to the URL stored with the run, and say so. With --url naming that origin, it goes.
    void reattachSendsNoForeignKey_data() { backends(); }
    void reattachSendsNoForeignKey()
    {
        QFETCH(QString, backend);
        const QString ownKey = u"sk-own-service-0001"_s;
        const QString foreignKey = u"sk-foreign-service-0002"_s;
        Service service(backend, ownKey);
        QVERIFY(service.listening());
        QStringList start = service.start();
        start.removeAll(u"--follow"_s);
        start[2] = backend == u"a2a" ? u"normal chunks=400"_s : u"normal deltas=400"_s; // still going
        const Result started
            = cli(service, backend, QStringList{u"--json"_s} + start, {u"RUNWATCH_API_KEY="_s + ownKey});
        QVERIFY2(started.exitCode == 0, started.err.constData());
        const QString id = RunwatchTest::runIdFrom(started.out);
        QVERIFY(!id.isEmpty());
        const qsizetype before = service.requests().size();

        const QString store = m_dir->filePath(u"runs.sqlite"_s);
        const QStringList env{u"RUNWATCH_API_KEY="_s + foreignKey, u"OPENAI_API_KEY="_s + foreignKey};
        for (const QStringList &command :
             {QStringList{u"status"_s, id}, QStringList{u"watch"_s, id}, QStringList{u"resume"_s}}) {
            const Result r = RunwatchTest::runCli(QStringList{u"--store"_s, store} + command, this, env);
            // status always asks the service; watch and resume only while the run is unfinished.
            if (command.first() == u"status")
                QVERIFY2(r.err.contains("not sending the API key from the environment"), r.err.constData());
            QVERIFY(!r.out.contains(foreignKey.toUtf8()) && !r.err.contains(foreignKey.toUtf8()));
        }
        const QList<Seen> seen = service.requests();
        QVERIFY2(seen.size() > before, "the commands did reach the service");
        for (const Seen &request : seen) {
            QVERIFY2(!request.header("authorization").contains(foreignKey.toUtf8()),
                     qPrintable(request.path));
        }

        // Named by the operator for this command: that origin gets the key.
        const Result named = RunwatchTest::runCli(
            {u"--store"_s, store, u"--url"_s, service.url().toString(), u"status"_s, id}, this, env);
        QVERIFY(!named.err.contains("not sending the API key"));
        QVERIFY(service.requests().last().header("authorization").contains(foreignKey.toUtf8()));
    }

    // The service takes only the second token: the first is refused (401), the command runs
    // once more, and the request goes again with the new one. Meanwhile the command writes its
    // environment to a file: no API key of ours is in it.
    void tokenCommand_data() { backends(); }
    void tokenCommand()
    {
        QFETCH(QString, backend);
        Service service(backend, u"tok-fresh-2"_s);
        QVERIFY(service.listening());
        const QString tokens = m_dir->filePath(u"tokens"_s);
        {
            QFile f(tokens);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("tok-stale-1\ntok-fresh-2\n");
        }
        const QString count = m_dir->filePath(u"count"_s);
        const QString envFile = m_dir->filePath(u"env"_s);
        const QString command
            = u"env > '%1'; printf x >> '%2'; n=$(wc -c < '%2'); sed -n \"${n}p\" '%3'"_s.arg(envFile, count,
                                                                                              tokens);
        const QStringList env{
            u"RUNWATCH_API_KEY=sk-env-runwatch-0001"_s,   u"OPENAI_API_KEY=sk-env-openai-0001"_s,
            u"ANTHROPIC_API_KEY=sk-env-anthropic-0001"_s, u"GEMINI_API_KEY=sk-env-gemini-0001"_s,
            u"MY_SERVICE_KEY=sk-env-named-0001"_s,        u"TOKEN_TEST_MARKER=visible"_s};
        const Result r
            = cli(service, backend,
                  QStringList{u"--api-key-env"_s, u"MY_SERVICE_KEY"_s, u"--token-command"_s, command}
                      + service.start(),
                  env);
        QVERIFY2(r.exitCode == 0, r.err.constData());

        QFile ran(count);
        QVERIFY(ran.open(QIODevice::ReadOnly));
        QCOMPARE(ran.readAll(), QByteArray("xx"));
        const QList<Seen> seen = service.requests();
        QVERIFY(seen.size() >= 2);
        QCOMPARE(seen.first().header("authorization"), QByteArray("Bearer tok-stale-1"));
        for (qsizetype i = 1; i < seen.size(); ++i)
            QVERIFY2(seen.at(i).header("authorization") == "Bearer tok-fresh-2", qPrintable(seen.at(i).path));
        QCOMPARE(seen.at(1).path, seen.first().path); // the refused request, sent again
        QVERIFY(!r.out.contains("tok-") && !r.err.contains("tok-"));

        QFile f(envFile);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray commandEnv = f.readAll();
        QVERIFY(commandEnv.contains("TOKEN_TEST_MARKER=visible")); // it did see the environment
        QVERIFY2(!commandEnv.contains("_API_KEY="), commandEnv.constData());
        QVERIFY2(!commandEnv.contains("sk-env-"), commandEnv.constData());
        QVERIFY2(!commandEnv.contains("RUNWATCH_"), commandEnv.constData());
    }
};

QTEST_GUILESS_MAIN(TestAuthCli)
#include "tst_auth_cli.moc"
