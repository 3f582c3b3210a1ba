// SPDX-License-Identifier: GPL-3.0-or-later
// The orderly exit (issue 7, LeakSanitizer gate): when a client or the engine is shut down with
// requests in flight (a request the server never answers, a wait between retries, a stream that
// never opened), every coroutine awaiting them resumes and unwinds through its guards before
// the process could exit. A frame still suspended at exit is what LeakSanitizer reports.

#include "backends/a2a/a2abackend.h"
#include "backends/openai/openaibackend.h"
#include "engine/runmanager.h"
#include "net/httpclient.h"
#include "scriptedserver.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

#include <memory>
#include <optional>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;
using namespace Runwatch;
using RunwatchTest::ScriptedReply;
using RunwatchTest::ScriptedServer;

namespace {

// What a probe coroutine saw, and whether its frame was unwound (its locals destroyed).
struct Outcome
{
    bool resumed = false;
    bool unwound = false;
    ErrorKind kind = ErrorKind::None;
};

// A local of the probe's frame: destroyed only when the coroutine runs to its end.
struct FrameGuard
{
    std::shared_ptr<Outcome> outcome;
    ~FrameGuard() { outcome->unwound = true; }
};

// Fire and forget, as the connectors start their requests. Parameters by value.
QCoro::Task<> probe(HttpClient *client, HttpRequest request, std::shared_ptr<Outcome> outcome)
{
    const FrameGuard guard{outcome};
    const HttpResponse response = co_await client->send(std::move(request));
    outcome->resumed = true;
    outcome->kind = response.error.kind;
}

// The same through a backend operation (RunBackend::get), as the engine's polls run.
QCoro::Task<> probeGet(RunBackend *backend, QString remoteId, std::shared_ptr<Outcome> outcome)
{
    const FrameGuard guard{outcome};
    ContinuationToken token;
    token.remoteId = std::move(remoteId);
    const ActionResult result = co_await backend->get(std::move(token));
    outcome->resumed = true;
    outcome->kind = result.error.kind;
}

// And through A2aBackend::describe(), which waits for the agent card.
QCoro::Task<> probeDescribe(RunBackend *backend, std::shared_ptr<Outcome> outcome)
{
    const FrameGuard guard{outcome};
    const ConnectionInfo info = co_await backend->describe();
    outcome->resumed = true;
    outcome->kind = info.error.kind;
}

HttpRequest get(const QUrl &url)
{
    HttpRequest r;
    r.url = url;
    return r;
}

// A 503 that asks for a minute's wait: the request then sleeps between attempts.
ScriptedReply retryInAMinute()
{
    return ScriptedReply::json(503, R"({"error":{"message":"busy"}})", {{"retry-after-ms", "60000"}});
}

// Runs a task to completion under a watchdog; nullopt = timed out. The state is shared: a task
// that completes after the watchdog gave up must not touch a loop that is gone.
template<typename T>
std::optional<T> awaitWithin(QCoro::Task<T> task, int ms = 10000)
{
    struct State
    {
        QEventLoop loop;
        std::optional<T> value;
    };
    auto st = std::make_shared<State>();
    task.then([st](T v) {
        st->value = std::move(v);
        st->loop.quit();
    });
    if (!st->value) {
        QTimer::singleShot(ms, &st->loop, &QEventLoop::quit);
        st->loop.exec();
    }
    return st->value;
}

// Two requests a client leaves suspended: one the server never answers, one waiting a minute
// between retries. start() returns once both are stuck.
struct StuckRequests
{
    ScriptedServer server;
    std::unique_ptr<HttpClient> client = std::make_unique<HttpClient>();
    int sleeps = 0;
    std::shared_ptr<Outcome> silent = std::make_shared<Outcome>();
    std::shared_ptr<Outcome> busy = std::make_shared<Outcome>();

    bool start()
    {
        server.enqueue("/silent", ScriptedReply::neverAnswer());
        server.enqueue("/busy", retryInAMinute());
        client->setSleepObserver([this](std::chrono::milliseconds) { ++sleeps; });
        probe(client.get(), get(server.url(u"/silent"_s)), silent);
        probe(client.get(), get(server.url(u"/busy"_s)), busy);
        return QTest::qWaitFor([this] { return server.requestCount() == 2 && sleeps == 1; }, 5000);
    }
    bool unwound() const { return silent->unwound && busy->unwound; }
    // Both resumed and unwound with Cancelled, and nothing was retried.
    bool endedCancelled() const
    {
        const auto cancelled
            = [](const Outcome &o) { return o.resumed && o.unwound && o.kind == ErrorKind::Cancelled; };
        return cancelled(*silent) && cancelled(*busy) && server.requestCount() == 2;
    }
};

Run adopted(const QString &localId, const QString &remoteId, bool streamable)
{
    Run run;
    run.localId = localId;
    run.connection = u"sim"_s;
    run.backend = u"openai"_s;
    run.remoteId = remoteId;
    run.token.remoteId = remoteId;
    run.token.streamable = streamable;
    run.status = RunStatus::InProgress;
    run.outputLoaded = true;
    return run;
}

} // namespace

class TestShutdown final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // Whatever a test left in flight (a client destroyed mid-request) unwinds once the event loop
    // turns: nothing may still be suspended when the process exits.
    void cleanup() { QTRY_COMPARE_WITH_TIMEOUT(HttpClient::liveRequests(), 0, 5000); }

    void destroyedClientUnwindsEveryAwaitingCoroutine();
    void shutdownTaskCompletesOnceRequestsUnwound_data();
    void shutdownTaskCompletesOnceRequestsUnwound();
    void backendShutdownTaskCompletesOnceItsCoroutinesUnwound_data();
    void backendShutdownTaskCompletesOnceItsCoroutinesUnwound();
    void shutdownWakesARetrySleep();
    void shutdownRefusesNewRequests();
    void engineShutdownUnwindsEverything_data();
    void engineShutdownUnwindsEverything();
    void engineShutdownWaitsForReplacedBackends();
};

void TestShutdown::destroyedClientUnwindsEveryAwaitingCoroutine()
{
    const int before = HttpClient::liveRequests();
    StuckRequests stuck;
    QVERIFY(stuck.start());
    QCOMPARE(HttpClient::liveRequests(), before + 2);

    QElapsedTimer clock;
    clock.start();
    stuck.client.reset();
    // The coroutines resume from the event loop: until it turns, they are still suspended.
    QVERIFY(!stuck.silent->unwound && !stuck.busy->unwound);
    QCOMPARE(HttpClient::liveRequests(), before + 2);
    QTRY_VERIFY_WITH_TIMEOUT(stuck.unwound(), 5000);
    QVERIFY2(clock.elapsed() < 5000, "the retry sleep must be cut short, not waited out");
    QCOMPARE(HttpClient::liveRequests(), before);
    QVERIFY(stuck.endedCancelled());
}

void TestShutdown::shutdownTaskCompletesOnceRequestsUnwound_data()
{
    QTest::addColumn<bool>("destroyClient");
    QTest::newRow("client kept") << false;
    QTest::newRow("client destroyed meanwhile") << true;
}

// HttpClient::shutdown()'s task: the requests end at once, the task completes only when every
// coroutine awaiting them has resumed and unwound, and it does so whether or not the client is
// still there.
void TestShutdown::shutdownTaskCompletesOnceRequestsUnwound()
{
    QFETCH(bool, destroyClient);
    const int before = HttpClient::liveRequests();
    StuckRequests stuck;
    QVERIFY(stuck.start());

    QElapsedTimer clock;
    clock.start();
    QCoro::Task<> stopped = stuck.client->shutdown();
    QVERIFY(stuck.client->isShutDown());
    QVERIFY(!stopped.isReady());
    QVERIFY(!stuck.silent->unwound && !stuck.busy->unwound);
    if (destroyClient)
        stuck.client.reset();
    QTRY_VERIFY_WITH_TIMEOUT(stopped.isReady(), 5000);
    QVERIFY2(clock.elapsed() < 5000, "the retry sleep must be cut short, not waited out");
    // Completed after the frames, never before.
    QVERIFY(stuck.endedCancelled());
    QCOMPARE(HttpClient::liveRequests(), before);

    // Nothing in flight: the task of a second call is done at once.
    if (stuck.client)
        QVERIFY(stuck.client->shutdown().isReady());
}

void TestShutdown::backendShutdownTaskCompletesOnceItsCoroutinesUnwound_data()
{
    QTest::addColumn<QString>("backend");
    QTest::newRow("openai") << u"openai"_s;
    QTest::newRow("a2a") << u"a2a"_s;
}

// RunBackend::shutdown() as RunManager awaits it: a backend operation suspended on a request that
// the server never answers has resumed and unwound when the task completes.
void TestShutdown::backendShutdownTaskCompletesOnceItsCoroutinesUnwound()
{
    QFETCH(QString, backend);
    ScriptedServer server;
    server.enqueue("/v1/responses/resp_1", ScriptedReply::neverAnswer());
    server.enqueue("/agent/.well-known/agent-card.json", ScriptedReply::neverAnswer());
    Connection c;
    c.name = u"sim"_s;
    c.backend = backend;
    c.baseUrl = server.url(backend == u"openai"_s ? u"/v1"_s : u"/agent"_s);
    c.auth = AuthStyle::None;
    std::unique_ptr<RunBackend> b;
    if (backend == u"openai"_s) {
        b = std::make_unique<OpenAiBackend>(c);
    } else {
        b = std::make_unique<A2aBackend>(c);
    }
    const int before = HttpClient::liveRequests();

    auto outcome = std::make_shared<Outcome>();
    if (backend == u"openai"_s) {
        probeGet(b.get(), u"resp_1"_s, outcome);
    } else {
        probeDescribe(b.get(), outcome);
    }
    QTRY_COMPARE_WITH_TIMEOUT(server.requestCount(), 1, 5000);
    QCOMPARE(HttpClient::liveRequests(), before + 1);

    QCoro::Task<> stopped = b->shutdown();
    QVERIFY(!stopped.isReady());
    QVERIFY(!outcome->unwound);
    QTRY_VERIFY_WITH_TIMEOUT(stopped.isReady(), 5000);
    QVERIFY(outcome->resumed);
    QVERIFY(outcome->unwound);
    QCOMPARE(outcome->kind, ErrorKind::Cancelled);
    QCOMPARE(HttpClient::liveRequests(), before);
}

void TestShutdown::shutdownWakesARetrySleep()
{
    ScriptedServer server;
    server.enqueue("/busy", retryInAMinute());
    server.enqueue("/busy", ScriptedReply::json(200, "{}"));
    HttpClient client;
    int sleeps = 0;
    client.setSleepObserver([&sleeps](std::chrono::milliseconds) { ++sleeps; });

    auto task = client.send(get(server.url(u"/busy"_s)));
    QTRY_COMPARE_WITH_TIMEOUT(sleeps, 1, 5000);
    QElapsedTimer clock;
    clock.start();
    client.shutdown();
    const auto response = awaitWithin(std::move(task), 5000);
    QVERIFY(response);
    QVERIFY(clock.elapsed() < 5000);
    QCOMPARE(response->error.kind, ErrorKind::Cancelled);
    QCOMPARE(response->attempts, 1);
    QCOMPARE(server.requestCount(), 1);
}

void TestShutdown::shutdownRefusesNewRequests()
{
    ScriptedServer server;
    server.enqueue("/r", ScriptedReply::json(200, "{}"));
    HttpClient client;
    client.shutdown();
    QVERIFY(client.isShutDown());
    auto task = client.send(get(server.url(u"/r"_s)));
    // Completed before anything went on the wire: nothing for the event loop to resume.
    QVERIFY(task.isReady());
    const auto response = awaitWithin(std::move(task), 1000);
    QVERIFY(response);
    QCOMPARE(response->error.kind, ErrorKind::Cancelled);
    QCOMPARE(response->attempts, 0);
    QCOMPARE(server.requestCount(), 0);
}

void TestShutdown::engineShutdownUnwindsEverything_data()
{
    QTest::addColumn<bool>("explicitShutdown");
    QTest::newRow("shutdown()") << true;
    QTest::newRow("destructor") << false;
}

// The leaks LeakSanitizer found at exit, all at once: a run whose event stream never opens
// (JobsRunStream/OpenAiRunStream suspended in openStream), a cancel the server never answers
// (RunManager::doCancel ← backend cancel), a poll waiting a minute between retries, and a
// stream that is open. After shutdown() nothing is left in flight, and nothing it cut short
// was applied, reported or retried.
void TestShutdown::engineShutdownUnwindsEverything()
{
    QFETCH(bool, explicitShutdown);
    ScriptedServer server;
    server.enqueue("/v1/responses/resp_1", ScriptedReply::neverAnswer());
    server.enqueue("/v1/responses/resp_1/cancel", ScriptedReply::neverAnswer());
    server.enqueue("/v1/responses/resp_2", retryInAMinute());
    server.enqueue("/v1/responses/resp_3", ScriptedReply::hold());
    const int before = HttpClient::liveRequests();

    auto manager = std::make_unique<RunManager>();
    Connection c;
    c.name = u"sim"_s;
    c.backend = u"openai"_s;
    c.baseUrl = server.url(u"/v1"_s);
    c.auth = AuthStyle::None;
    QVERIFY(manager->addConnection(c));
    int sleeps = 0;
    auto *backend = qobject_cast<OpenAiBackend *>(manager->backend(u"sim"_s));
    QVERIFY(backend);
    backend->httpClient()->setSleepObserver([&sleeps](std::chrono::milliseconds) { ++sleeps; });

    manager->adoptRun(adopted(u"r1"_s, u"resp_1"_s, true));
    manager->adoptRun(adopted(u"r2"_s, u"resp_2"_s, false), false);
    manager->adoptRun(adopted(u"r3"_s, u"resp_3"_s, true));
    QTRY_COMPARE_WITH_TIMEOUT(server.requestCount("/v1/responses/resp_1"), 1, 5000);
    manager->cancelRun(u"r1"_s);
    manager->refreshRun(u"r2"_s);
    QTRY_COMPARE_WITH_TIMEOUT(server.requestCount("/v1/responses/resp_1/cancel"), 1, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(sleeps, 1, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(server.heldCount(), 1, 5000);
    QCOMPARE(HttpClient::liveRequests(), before + 3); // stream r1, cancel r1, poll r2

    QSignalSpy finished(manager.get(), &RunManager::actionFinished);
    QSignalSpy stopped(manager.get(), &RunManager::followingStopped);
    QElapsedTimer clock;
    clock.start();
    if (explicitShutdown) {
        manager->shutdown();
        // Right after it returns, without another turn of the event loop.
        QCOMPARE(HttpClient::liveRequests(), before);
        QVERIFY(manager->isShutDown());
        QVERIFY(!manager->isFollowing(u"r1"_s));
        QVERIFY(!manager->isFollowing(u"r3"_s));
        QVERIFY(!manager->run(u"r2"_s)->error.isError());
        QCOMPARE(finished.count(), 0);
        QCOMPARE(stopped.count(), 0);
    }
    manager.reset();
    QCOMPARE(HttpClient::liveRequests(), before);
    QVERIFY2(clock.elapsed() < 5000, "nothing may be waited out");
    QCOMPARE(finished.count(), 0);
    QCOMPARE(stopped.count(), 0);
    QCOMPARE(server.requestCount("/v1/responses/resp_2"), 1); // the poll was not retried
}

// A connection replaced while its backend still had a request in flight: the old backend is
// shut down at once and deleted later, and the engine's shutdown() waits for its coroutines too.
void TestShutdown::engineShutdownWaitsForReplacedBackends()
{
    ScriptedServer server;
    server.enqueue("/v1/responses/resp_1", ScriptedReply::neverAnswer());
    const int before = HttpClient::liveRequests();
    auto manager = std::make_unique<RunManager>();
    Connection c;
    c.name = u"sim"_s;
    c.backend = u"openai"_s;
    c.baseUrl = server.url(u"/v1"_s);
    c.auth = AuthStyle::None;
    QVERIFY(manager->addConnection(c));
    QPointer<RunBackend> old = manager->backend(u"sim"_s);
    auto outcome = std::make_shared<Outcome>();
    probeGet(old, u"resp_1"_s, outcome);
    QTRY_COMPARE_WITH_TIMEOUT(server.requestCount(), 1, 5000);

    QVERIFY(manager->addConnection(c));
    QVERIFY(manager->backend(u"sim"_s) != old);
    QVERIFY(!outcome->unwound);
    manager->shutdown();
    // Right after it returns, without another turn of the event loop.
    QVERIFY(outcome->unwound);
    QCOMPARE(outcome->kind, ErrorKind::Cancelled);
    QCOMPARE(HttpClient::liveRequests(), before);
}

QTEST_GUILESS_MAIN(TestShutdown)
#include "tst_shutdown.moc"
