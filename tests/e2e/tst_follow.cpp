// SPDX-License-Identifier: GPL-3.0-or-later
// The following policy over a real network path: the OpenAI connector, the engine and the CLI
// against the simulator behind a relay (CuttingProxy) that cuts event streams after a few events,
// refuses connections for a long stretch, or answers 401. Retryable trouble never ends following;
// only answers that waiting cannot change, or the operator's bound, do.
#include "cliprocess.h"
#include "cuttingproxy.h"
#include "enginerig.h"
#include "openai/openaisim.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;
using RunwatchTest::CuttingProxy;
using RunwatchTest::waitFor;
using RunwatchTest::waitTerminal;

namespace {

constexpr int kWait = RunwatchTest::kEngineWait;

QUrl throughProxy(const QUrl &base, const CuttingProxy &proxy)
{
    QUrl url = base;
    url.setPort(proxy.port());
    return url;
}

// The simulator, the relay in front of it, and the engine talking to the relay.
struct Rig : RunwatchTest::ServerRig<RunwatchSim::OpenAiSimulator>
{
    explicit Rig(quint32 seed, const FollowPolicy &policy = RunwatchTest::quickFollowPolicy())
    {
        sim.setIntervalMs(1);
        QVERIFY(sim.listen());
        proxy = std::make_unique<CuttingProxy>(quint16(sim.baseUrl().port()), seed);
        QVERIFY(proxy->listen());
        manager.setFollowPolicy(policy);
        model = u"runwatch-sim-1"_s;
        QVERIFY(addConnection(
            RunwatchTest::plainConnection(u"sim"_s, u"openai"_s, throughProxy(sim.baseUrl(), *proxy))));
    }
    std::unique_ptr<CuttingProxy> proxy;
};

} // namespace

class TestFollow final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Every stream (the create's and each resume) is cut after 1–5 events, random but seeded:
    // hundreds of reconnects, each making progress, and the text is byte-identical.
    void streamCutEveryFewEventsNeverGivesUp()
    {
        constexpr int kDeltas = 900;
        Rig rig(20261125);
        rig.proxy->setCutAfter(1, 5);
        QSignalSpy stopped(&rig.manager, &RunManager::followingStopped);
        const QString id = rig.start(u"normal deltas=%1"_s.arg(kDeltas));
        QVERIFY(waitTerminal(rig.manager, id, 120000));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.primaryText, RunwatchSim::OpenAiSimulator::tokenText(kDeltas));
        QCOMPARE(stopped.count(), 0);
        QVERIFY2(rig.proxy->cuts() >= 200, qPrintable(QString::number(rig.proxy->cuts())));
        QVERIFY(!run.connectionLost);
    }

    // The service cannot be reached for a long stretch (connections refused, twice as many tries
    // as the old bound of 8; the follow policy scales its waits down to milliseconds, but each try
    // still includes the HTTP client's own two retries, ~1.5 s), then comes back: the run resumes
    // by itself and its text is whole.
    void refusedForALongStretchThenBack()
    {
        constexpr int kDeltas = 300;
        FollowPolicy policy = RunwatchTest::quickFollowPolicy();
        policy.reconnectInitial = std::chrono::milliseconds(1);
        policy.reconnectMax = std::chrono::milliseconds(10);
        Rig rig(7, policy);
        rig.sim.setIntervalMs(5);
        QSignalSpy stopped(&rig.manager, &RunManager::followingStopped);
        const QString id = rig.start(u"normal deltas=%1"_s.arg(kDeltas));
        QVERIFY(waitFor([&] { return rig.run(id).primaryText.size() >= 20; }));
        rig.proxy->refuse();
        int shown = 0;
        QVERIFY(waitFor(
            [&] {
                const Run &run = rig.run(id);
                // The state an operator sees: reconnecting, when the next try is due, and why.
                if (run.connectionLost && run.nextTryAt.isValid() && !run.lostReason.isEmpty())
                    shown = std::max(shown, run.failedTries);
                return shown >= 16;
            },
            120000));
        QVERIFY(rig.manager.isFollowing(id));
        QCOMPARE(stopped.count(), 0);
        QVERIFY(rig.proxy->resume());
        QVERIFY(waitTerminal(rig.manager, id, 60000));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QCOMPARE(rig.run(id).primaryText, RunwatchSim::OpenAiSimulator::tokenText(kDeltas));
        QCOMPARE(stopped.count(), 0);
        QVERIFY(!rig.run(id).connectionLost);
    }

    // A 401 on the resume cannot get better by waiting: following stops with the server's reason,
    // the text received so far is kept.
    void unauthorizedStopsWithAClearError()
    {
        FollowPolicy policy = RunwatchTest::quickFollowPolicy();
        // Time for the test to switch the relay to answering 401 after the first cut.
        policy.reconnectInitial = std::chrono::milliseconds(400);
        Rig rig(3, policy);
        rig.proxy->setCutAfter(6, 6);
        QSignalSpy stopped(&rig.manager, &RunManager::followingStopped);
        const QString id = rig.start(u"normal deltas=40"_s);
        QVERIFY(waitFor([&] { return rig.proxy->cuts() >= 1; }));
        const QByteArray body
            = R"({"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","code":"invalid_api_key"}})";
        rig.proxy->answerWith(
            "HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: "
            + QByteArray::number(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
        QVERIFY(stopped.wait(kWait));
        const RunError error = stopped.first().at(1).value<RunError>();
        QCOMPARE(error.kind, ErrorKind::Auth);
        QCOMPARE(error.httpStatus, 401);
        QVERIFY2(error.message.contains(u"Incorrect API key provided."_s), qPrintable(error.toString()));
        const Run &run = rig.run(id);
        QCOMPARE(run.error, error);
        QVERIFY(!run.isTerminal());
        QVERIFY(!run.primaryText.isEmpty());
        QVERIFY(!run.connectionLost);
        QVERIFY(!rig.manager.isFollowing(id));
        QCOMPARE(stopped.count(), 1);
    }

    // runwatch-cli start --follow --give-up-after 1s, the service unreachable after a few events:
    // "reconnecting, next try in N s" on stderr (a `status` line with "reconnecting" in JSON), then
    // it stops after the bound with one error line and exit code 1.
    void cliShowsReconnectingAndHonoursGiveUpAfter_data()
    {
        QTest::addColumn<bool>("json");
        QTest::addRow("text") << false;
        QTest::addRow("json") << true;
    }
    void cliShowsReconnectingAndHonoursGiveUpAfter()
    {
        QFETCH(bool, json);
        RunwatchSim::OpenAiSimulator sim;
        sim.setIntervalMs(20);
        QVERIFY(sim.listen());
        CuttingProxy proxy(quint16(sim.baseUrl().port()), 1);
        QVERIFY(proxy.listen());
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QStringList args{u"--url"_s, throughProxy(sim.baseUrl(), proxy).toString(), u"--store"_s,
                         dir.filePath(u"runs.sqlite"_s)};
        if (json)
            args << u"--json"_s;
        args << u"start"_s << u"--prompt"_s << u"long deltas=400"_s << u"--follow"_s << u"--give-up-after"_s
             << u"1s"_s;
        QElapsedTimer clock;
        QProcess *cli = RunwatchTest::launchCli(QStringLiteral(RUNWATCH_CLI_PATH), args, this);
        QVERIFY(waitFor([&] { return proxy.bytesDown() > 3000; }));
        proxy.refuse();
        clock.start();
        const RunwatchTest::CliResult result = RunwatchTest::finishCli(cli, 60000);
        QVERIFY(!result.timedOut);
        QCOMPARE(result.exitCode, 1);
        // Not before the bound, and not long after it (the default backoff is clamped to it).
        QVERIFY2(clock.elapsed() >= 1000 && clock.elapsed() < 15000,
                 qPrintable(QString::number(clock.elapsed())));
        if (!json) {
            const QList<QByteArray> lines = result.err.split('\n');
            int reconnecting = 0, errors = 0;
            for (const QByteArray &line : lines) {
                if (line.startsWith("[reconnecting] next try in "))
                    ++reconnecting;
                if (line.startsWith("[error] ")) {
                    ++errors;
                    QVERIFY2(line.contains("Stopped following after 1") && line.contains("without progress"),
                             line.constData());
                }
            }
            QVERIFY2(reconnecting >= 1, result.err.constData());
            QVERIFY2(errors == 1, result.err.constData());
            return;
        }
        int reconnecting = 0, errors = 0;
        for (const QByteArray &line : result.out.split('\n')) {
            if (line.isEmpty())
                continue;
            const QJsonObject o = QJsonDocument::fromJson(line).object();
            QVERIFY2(!o.isEmpty(), line.constData());
            const QString type = o.value(u"type"_s).toString();
            if (type == u"status" && o.value(u"reconnecting"_s).toBool()) {
                ++reconnecting;
                QVERIFY(o.value(u"next_try_ms"_s).toDouble() >= 0);
                QVERIFY(o.value(u"failed_tries"_s).toInt() >= 1);
                QVERIFY(!o.value(u"reason"_s).toString().isEmpty());
            }
            if (type == u"error") {
                ++errors;
                QCOMPARE(o.value(u"code"_s).toString(), u"gave_up"_s);
            }
        }
        QVERIFY2(reconnecting >= 1, result.out.constData());
        QVERIFY2(errors == 1, result.out.constData());
    }

    // The reasoning + tool-call scenario (response.created then response.queued, summary parts,
    // output_item.done and response.completed repeating the finished items): each fact is one
    // line, in text and in JSON; a fresh store says nothing about its schema.
    void eachLinePrintedOnce()
    {
        RunwatchSim::OpenAiSimulator sim;
        sim.setIntervalMs(1);
        QVERIFY(sim.listen());
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto start = [&](const QString &store, bool json) {
            QStringList args{u"--url"_s, sim.baseUrl().toString(), u"--store"_s, dir.filePath(store)};
            if (json)
                args << u"--json"_s;
            // queued_ms: in_progress comes a second after created/queued, so that the run line
            // shows "queued" however late a loaded machine reads the first events.
            args << u"start"_s << u"--prompt"_s << u"reasoning deltas=3 queued_ms=1000"_s << u"--follow"_s;
            return RunwatchTest::runCli(args, this);
        };

        const RunwatchTest::CliResult text = start(u"text.sqlite"_s, false);
        QCOMPARE(text.exitCode, 0);
        QCOMPARE(text.out, QByteArray("tok0 tok1 tok2 \n"));
        const QList<QByteArray> err = text.err.split('\n');
        QVERIFY2(err.size() == 8 && err.last().isEmpty(), text.err.constData());
        const QByteArray runLine = err.at(0);
        QVERIFY2(runLine.startsWith("run ") && runLine.endsWith(") queued"), runLine.constData());
        const QByteArray localId = runLine.split(' ').at(1);
        const QList<QByteArray> expected{
            runLine,
            "[status] queued",
            "[status] in_progress",
            "[reasoning Reasoning] step0 step1 step2 ",
            R"([tool_call get_weather] get_weather({"location":"Paris","unit":"celsius"}))",
            "[status] completed",
            "[end] " + localId + " completed",
            "",
        };
        QCOMPARE(err, expected);

        const RunwatchTest::CliResult json = start(u"json.sqlite"_s, true);
        QCOMPARE(json.exitCode, 0);
        QCOMPARE(json.err, QByteArray());
        QStringList lines;
        QString reasoningId, toolId;
        for (const QByteArray &line : json.out.split('\n')) {
            if (line.isEmpty())
                continue;
            const QJsonObject o = QJsonDocument::fromJson(line).object();
            QVERIFY2(!o.isEmpty(), line.constData());
            const QString type = o.value(u"type"_s).toString();
            if (type == u"run") {
                lines << u"run "_s + o.value(u"status"_s).toString();
            } else if (type == u"status") {
                lines << u"status "_s + o.value(u"status"_s).toString();
            } else if (type == u"delta") {
                // Deltas may be merged (one line per network read): compare the text they add up to.
                if (lines.last().startsWith(u"delta "_s)) {
                    lines.last() += o.value(u"text"_s).toString();
                } else {
                    lines << u"delta "_s + o.value(u"text"_s).toString();
                }
            } else if (type == u"secondary") {
                const QString item = o.value(u"item"_s).toString();
                QString &id = o.value(u"kind"_s).toString() == u"reasoning" ? reasoningId : toolId;
                if (id.isEmpty())
                    id = item;
                QCOMPARE(item, id); // one item each
                lines << u"secondary %1 %2%3"_s.arg(o.value(u"kind"_s).toString(),
                                                    o.value(u"final"_s).toBool() ? u"final "_s : QString(),
                                                    o.value(u"text"_s).toString());
            } else {
                lines << type + u' ' + o.value(u"status"_s).toString();
            }
        }
        const QStringList expectedJson{
            u"run queued"_s,
            u"status queued"_s,
            u"status in_progress"_s,
            u"secondary reasoning step0 "_s,
            u"secondary reasoning step1 "_s,
            u"secondary reasoning step2 "_s,
            u"secondary reasoning final step0 step1 step2 "_s,
            u"secondary tool_call get_weather("_s,
            u"secondary tool_call {\"location\":"_s,
            u"secondary tool_call \"Paris\","_s,
            u"secondary tool_call \"unit\":\"celsius\"}"_s,
            u"secondary tool_call final get_weather({\"location\":\"Paris\",\"unit\":\"celsius\"})"_s,
            u"delta tok0 tok1 tok2 "_s,
            u"status completed"_s,
            u"end completed"_s,
        };
        QCOMPARE(lines, expectedJson);
    }

    // A usage error, not a silent default: the bound needs a duration.
    void giveUpAfterNeedsADuration()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QStringList base{u"--url"_s, u"http://127.0.0.1:9/v1"_s, u"--store"_s,
                               dir.filePath(u"runs.sqlite"_s)};
        for (const QString &bad : {u"soon"_s, u"-5s"_s, u"0"_s}) {
            const auto result = RunwatchTest::finishCli(RunwatchTest::launchCli(
                QStringLiteral(RUNWATCH_CLI_PATH),
                base + QStringList{u"watch"_s, u"r"_s, u"--give-up-after"_s, bad}, this));
            QCOMPARE(result.exitCode, 2);
            QVERIFY(result.err.contains("--give-up-after needs a duration"));
        }
        // start without --follow does not follow: the bound would mean nothing.
        const auto result = RunwatchTest::finishCli(RunwatchTest::launchCli(
            QStringLiteral(RUNWATCH_CLI_PATH),
            base + QStringList{u"start"_s, u"--prompt"_s, u"x"_s, u"--give-up-after"_s, u"5s"_s}, this));
        QCOMPARE(result.exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestFollow)
#include "tst_follow.moc"
