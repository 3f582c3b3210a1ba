// SPDX-License-Identifier: GPL-3.0-or-later
// runwatch-cli as a user runs it: real processes against the simulator, sharing one store.
#include "cliprocess.h"
#include "loopbackrelays.h"
#include "openai/openaisim.h"
#include "scriptedserver.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <sys/types.h>

using namespace Qt::StringLiterals;
using Result = RunwatchTest::CliResult;
using RunwatchTest::finishCli;
using RunwatchTest::runIdFrom;
using RunwatchTest::ScriptedReply;
using RunwatchTest::ScriptedServer;

class TestCli final : public QObject
{
    Q_OBJECT

    RunwatchSim::OpenAiSimulator *m_sim = nullptr;
    QTemporaryDir *m_dir = nullptr;

    QStringList globals() const
    {
        return {u"--backend"_s, u"openai"_s,
                u"--url"_s,     m_sim->baseUrl().toString(),
                u"--store"_s,   m_dir->filePath(u"runs.sqlite"_s)};
    }

    // Starts the CLI without blocking our event loop (the simulator lives in it).
    QProcess *launch(const QStringList &args, const QStringList &extraEnv = {})
    {
        return RunwatchTest::launchCli(QStringLiteral(RUNWATCH_CLI_PATH), args, this, extraEnv);
    }

    Result cli(const QStringList &args, const QStringList &extraEnv = {})
    {
        return finishCli(launch(globals() + args, extraEnv));
    }

private Q_SLOTS:
    void init()
    {
        m_sim = new RunwatchSim::OpenAiSimulator(this);
        m_sim->setIntervalMs(2);
        QVERIFY(m_sim->listen());
        m_dir = new QTemporaryDir;
        QVERIFY(m_dir->isValid());
    }
    void cleanup()
    {
        delete m_sim;
        delete m_dir;
    }

    // start --follow prints the answer to stdout and exits 0 when completed.
    void startFollowHuman()
    {
        const Result r = cli({u"start"_s, u"--prompt"_s, u"normal deltas=30"_s, u"--follow"_s});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(QString::fromUtf8(r.out), RunwatchSim::OpenAiSimulator::tokenText(30) + u'\n');
        QVERIFY2(r.err.contains("completed"), r.err.constData());
    }

    // The options the Connections dialog edits, given on the command line: the organization and
    // project headers on every request, every request through the proxy; a bad one is refused
    // before anything is sent.
    void headerAndProxyOptions()
    {
        RunwatchTest::Socks5Proxy proxy;
        QVERIFY(proxy.listen());
        const QString proxyUrl = u"socks5://127.0.0.1:%1"_s.arg(proxy.port());
        const Result r = cli({u"--organization"_s, u"org-cli"_s, u"--project"_s, u"proj_cli"_s, u"--proxy"_s,
                              proxyUrl, u"start"_s, u"--prompt"_s, u"normal deltas=5"_s, u"--follow"_s});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(m_sim->requestCount() > 0);
        for (const auto &request : m_sim->requests()) {
            QCOMPARE(request.header("openai-organization"), QByteArray("org-cli"));
            QCOMPARE(request.header("openai-project"), QByteArray("proj_cli"));
        }
        QVERIFY2(proxy.targets().contains(u"127.0.0.1:%1"_s.arg(m_sim->baseUrl().port())),
                 qPrintable(proxy.targets().join(u", "_s)));

        const int before = m_sim->requestCount();
        const Result bad = cli({u"--proxy"_s, u"ftp://127.0.0.1:21"_s, u"start"_s, u"--prompt"_s, u"x"_s});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("option proxy"), bad.err.constData());
        const Result missingCa
            = cli({u"--ca-bundle"_s, m_dir->filePath(u"none.pem"_s), u"start"_s, u"--prompt"_s, u"x"_s});
        QCOMPARE(missingCa.exitCode, 2);
        QVERIFY2(missingCa.err.contains("option ca_bundle"), missingCa.err.constData());
        QCOMPARE(m_sim->requestCount(), before);
    }

    // Secrets never on the command line or in a stored URL: a proxy's password comes from
    // RUNWATCH_PROXY_PASSWORD (argv is visible to every user and kept in shell history), and a
    // service URL with a password (user:password@host) is refused before anything is sent or
    // stored.
    void noPasswordsOnTheCommandLine()
    {
        RunwatchTest::Socks5Proxy proxy;
        QVERIFY(proxy.listen());
        proxy.requireCredentials("ops", "proxy-Secret-91");
        const QString withUser = u"socks5://ops@127.0.0.1:%1"_s.arg(proxy.port());
        const Result viaEnv
            = cli({u"--proxy"_s, withUser, u"start"_s, u"--prompt"_s, u"normal deltas=3"_s, u"--follow"_s},
                  {u"RUNWATCH_PROXY_PASSWORD=proxy-Secret-91"_s});
        QVERIFY2(viaEnv.exitCode == 0, viaEnv.err.constData());
        QCOMPARE(proxy.refusedLogins(), 0);
        QVERIFY(!proxy.targets().isEmpty());

        const int before = m_sim->requestCount();
        const Result onArgv
            = cli({u"--proxy"_s, u"socks5://ops:proxy-Secret-91@127.0.0.1:%1"_s.arg(proxy.port()), u"start"_s,
                   u"--prompt"_s, u"x"_s});
        QCOMPARE(onArgv.exitCode, 2);
        QVERIFY2(onArgv.err.contains("RUNWATCH_PROXY_PASSWORD"), onArgv.err.constData());
        QVERIFY(!onArgv.err.contains("proxy-Secret-91"));

        QUrl secretUrl = m_sim->baseUrl();
        secretUrl.setUserName(u"svc"_s);
        secretUrl.setPassword(u"url-Secret-42"_s);
        const Result inUrl = RunwatchTest::runCli(
            {u"--backend"_s, u"openai"_s, u"--url"_s, secretUrl.toString(), u"--store"_s,
             m_dir->filePath(u"runs.sqlite"_s), u"start"_s, u"--prompt"_s, u"x"_s},
            this);
        QCOMPARE(inUrl.exitCode, 2);
        QVERIFY2(inUrl.err.contains("password"), inUrl.err.constData());
        QVERIFY(!inUrl.err.contains("url-Secret-42"));
        QCOMPARE(m_sim->requestCount(), before);
        // Nothing stored anywhere holds either password.
        QByteArray bytes;
        for (const QString &suffix : {QString(), u"-wal"_s}) {
            QFile file(m_dir->filePath(u"runs.sqlite"_s + suffix));
            if (file.open(QIODevice::ReadOnly))
                bytes += file.readAll();
        }
        QVERIFY(!bytes.isEmpty());
        QVERIFY(!bytes.contains("url-Secret-42") && !bytes.contains("proxy-Secret-91"));
        const Result listed = cli({u"--json"_s, u"list"_s});
        QVERIFY(!listed.out.contains("Secret"));
    }

    // What a server sends is text, not commands to the terminal: escape sequences (an OSC 52
    // clipboard write, a line erase), bell, backspace and carriage return never reach stdout or
    // stderr as such; the visible text does. --json keeps them, escaped by JSON.
    void serverTextCannotDriveTheTerminal()
    {
        // JSON escapes: OSC 52 (clipboard write) ended by BEL, CSI 2K (erase line), CR, BS, C1 CSI.
        const QByteArray hostile
            = "\\u001b]52;c;cm0gLXJmIH4=\\u0007\\u001b[2K\\rvisible\\u0008\\u009b31m text";
        const auto event = [](const QByteArray &type, int n, const QByteArray &members) -> QByteArray {
            return "event: " + type + "\ndata: {\"type\":\"" + type
                   + "\",\"sequence_number\":" + QByteArray::number(n) + ',' + members + "}\n\n";
        };
        const QByteArray created
            = "\"response\":{\"id\":\"resp_t1\",\"model\":\"m\",\"status\":\"queued\",\"output\":[]}";
        const QByteArray failed
            = "\"response\":{\"id\":\"resp_t1\",\"model\":\"m\",\"status\":\"failed\",\"output\":[],"
              "\"error\":{\"code\":\"server_error\",\"message\":\"bad "
              + hostile + "\"}}";
        const QByteArray body
            = event("response.created", 0, created)
              + event("response.output_text.delta", 1, "\"item_id\":\"msg_1\",\"delta\":\"" + hostile + '"')
              + event("response.failed", 2, failed);
        ScriptedServer server;
        server.enqueue("/v1/responses", ScriptedReply::text(200, "text/event-stream", body));
        server.enqueue("/v1/responses", ScriptedReply::text(200, "text/event-stream", body));
        const QStringList common{u"--backend"_s, u"openai"_s,
                                 u"--url"_s,     server.url(u"/v1"_s).toString(),
                                 u"--store"_s,   m_dir->filePath(u"hostile.sqlite"_s)};
        const Result r = RunwatchTest::runCli(
            common + QStringList{u"start"_s, u"--prompt"_s, u"x"_s, u"--follow"_s}, this);
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(r.out.contains("visible") && r.out.contains("text"), r.out.constData());
        QVERIFY2(r.err.contains("bad"), r.err.constData());
        for (const QByteArray &stream : {r.out, r.err}) {
            for (const char c : stream) {
                const auto u = static_cast<unsigned char>(c);
                QVERIFY2(u >= 0x20 || c == '\n' || c == '\t',
                         qPrintable(u"control byte 0x%1 reached the terminal"_s.arg(int(u), 2, 16,
                                                                                    QLatin1Char('0'))));
            }
            QVERIFY(!stream.contains("\xc2\x9b")); // the C1 CSI (U+009B) neither
        }
        const Result json = RunwatchTest::runCli(
            common + QStringList{u"--json"_s, u"start"_s, u"--prompt"_s, u"x"_s, u"--follow"_s}, this);
        QVERIFY2(json.out.contains("\\u001b]52;c;"), json.out.constData());
    }

    // --json prints JSON Lines: run, deltas whose texts add up to the answer, status, end.
    void startFollowJson()
    {
        const Result r
            = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"reasoning deltas=12"_s, u"--follow"_s});
        QCOMPARE(r.exitCode, 0);
        QString text;
        QStringList types;
        QString endStatus;
        for (const QByteArray &line : r.out.split('\n')) {
            if (line.isEmpty())
                continue;
            QJsonParseError err;
            const QJsonObject o = QJsonDocument::fromJson(line, &err).object();
            QVERIFY2(err.error == QJsonParseError::NoError, line.constData());
            QVERIFY(o.contains(u"run"_s));
            const QString type = o.value(u"type"_s).toString();
            types << type;
            if (type == u"delta")
                text += o.value(u"text"_s).toString();
            if (type == u"end")
                endStatus = o.value(u"status"_s).toString();
        }
        QCOMPARE(types.first(), u"run"_s);
        QVERIFY(types.contains(u"secondary"_s));
        QVERIFY(types.contains(u"status"_s));
        QCOMPARE(types.last(), u"end"_s);
        QCOMPARE(endStatus, u"completed"_s);
        QCOMPARE(text, RunwatchSim::OpenAiSimulator::tokenText(12));
    }

    // start in one process; watch from another continues where the run is, without duplicates.
    void startThenWatchFromAnotherProcess()
    {
        const Result started = cli(
            {u"--json"_s, u"start"_s, u"--prompt"_s, u"normal deltas=40 interval_ms=10 drop_after=7"_s});
        QCOMPARE(started.exitCode, 0);
        const QString id = runIdFrom(started.out);
        QVERIFY(!id.isEmpty());
        const Result watched = cli({u"watch"_s, id});
        QCOMPARE(watched.exitCode, 0);
        QCOMPARE(QString::fromUtf8(watched.out), RunwatchSim::OpenAiSimulator::tokenText(40) + u'\n');
        // A second watch of the finished run prints the same text from the store.
        const Result again = cli({u"watch"_s, id});
        QCOMPARE(again.exitCode, 0);
        QCOMPARE(QString::fromUtf8(again.out), RunwatchSim::OpenAiSimulator::tokenText(40) + u'\n');
    }

    // `status` mid-stream stores the service's text so far (a snapshot, ahead of the stream's
    // cursor); a `watch` after it resumes from the cursor and must not repeat that text.
    void statusThenWatchRepeatsNothing()
    {
        const Result started
            = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"normal deltas=40 interval_ms=40"_s});
        QCOMPARE(started.exitCode, 0);
        const QString id = runIdFrom(started.out);
        const QString remote = m_sim->lastResponseId();
        QTRY_VERIFY_WITH_TIMEOUT(QJsonDocument(m_sim->snapshot(remote)).toJson().contains("tok3 "), 10000);
        QCOMPARE(cli({u"status"_s, id}).exitCode, 6); // still running
        const Result watched = cli({u"watch"_s, id});
        QCOMPARE(watched.exitCode, 0);
        QCOMPARE(QString::fromUtf8(watched.out), RunwatchSim::OpenAiSimulator::tokenText(40) + u'\n');
    }

    // cancel from another process waits until the run is cancelled: exit 4; status agrees.
    void cancelFromAnotherProcess()
    {
        const Result started = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"long interval_ms=20"_s});
        QCOMPARE(started.exitCode, 0);
        const QString id = runIdFrom(started.out);
        const Result cancelled = cli({u"cancel"_s, id});
        QCOMPARE(cancelled.exitCode, 4);
        const Result status = cli({u"--json"_s, u"status"_s, id});
        QCOMPARE(status.exitCode, 4);
        QVERIFY(status.out.contains("\"status\":\"cancelled\""));
        // Cancelling again is harmless.
        QCOMPARE(cli({u"cancel"_s, id}).exitCode, 4);
    }

    // Cancelling a completed run says so and exits by the (unchanged) state.
    void cancelCompleted()
    {
        const Result started
            = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"normal deltas=3"_s, u"--follow"_s});
        QCOMPARE(started.exitCode, 0);
        const QString id = runIdFrom(started.out);
        const Result cancelled = cli({u"cancel"_s, id});
        QCOMPARE(cancelled.exitCode, 0);
    }

    // delete removes the run on the server and from the store.
    void deleteRun()
    {
        const Result started
            = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"normal deltas=3"_s, u"--follow"_s});
        const QString id = runIdFrom(started.out);
        const QString remote = m_sim->lastResponseId();
        const Result deleted = cli({u"delete"_s, id});
        QCOMPARE(deleted.exitCode, 0);
        QVERIFY(deleted.out.contains("on the server"));
        QVERIFY(m_sim->wasDeleted(remote));
        QCOMPARE(cli({u"status"_s, id}).exitCode, 1);
    }

    // status --json always names the three token counts (null when not reported) and no "cost"
    // while no price is set (the cost rule itself: tst_pricetable); text status and export agree.
    void usageAndCost()
    {
        const Result started
            = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"normal deltas=5"_s, u"--follow"_s});
        QCOMPARE(started.exitCode, 0);
        const QString id = runIdFrom(started.out);
        const QJsonObject sent = m_sim->snapshot(m_sim->lastResponseId()).value(u"usage"_s).toObject();
        const qint64 input = sent.value(u"input_tokens"_s).toInteger(-1);
        const qint64 output = sent.value(u"output_tokens"_s).toInteger(-1);
        QVERIFY(input > 0 && output >= 5);
        const auto statusJson = [&] {
            const Result r = cli({u"--json"_s, u"status"_s, id});
            const QList<QByteArray> lines = r.out.trimmed().split('\n');
            return QJsonDocument::fromJson(lines.last()).object();
        };
        QJsonObject status = statusJson();
        QCOMPARE(status.value(u"input_tokens"_s).toInteger(), input);
        QCOMPARE(status.value(u"output_tokens"_s).toInteger(), output);
        QCOMPARE(
            status.value(u"reasoning_tokens"_s).toInteger(-1),
            sent.value(u"output_tokens_details"_s).toObject().value(u"reasoning_tokens"_s).toInteger(-2));
        QVERIFY(!status.contains(u"cost"_s)); // no price table: no cost, never a made-up one
        QVERIFY(cli({u"status"_s, id}).out.contains("no price for this model"));

        const QJsonObject exported
            = QJsonDocument::fromJson(cli({u"export"_s, id, u"--format"_s, u"json"_s}).out).object();
        QCOMPARE(exported.value(u"usage"_s).toObject().value(u"input_tokens"_s).toInteger(), input);
        QVERIFY(!exported.contains(u"cost"_s));
        const Result md = cli({u"export"_s, id, u"--format"_s, u"md"_s});
        QVERIFY(md.out.contains(u"| Output tokens | %1 |"_s.arg(output).toUtf8()));

        // A failed response reports no usage: null, not zero, and no cost.
        const Result failed
            = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"fail deltas=2"_s, u"--follow"_s});
        QCOMPARE(failed.exitCode, 3);
        const Result failedStatus = cli({u"--json"_s, u"status"_s, runIdFrom(failed.out)});
        const QJsonObject f = QJsonDocument::fromJson(failedStatus.out.trimmed().split('\n').last()).object();
        QVERIFY(f.contains(u"input_tokens"_s));
        QVERIFY(f.value(u"input_tokens"_s).isNull());
        QVERIFY(f.value(u"output_tokens"_s).isNull());
        QVERIFY(!f.contains(u"cost"_s));
    }

    // Output that cannot be written fails the command: export to a full device (/dev/full), in
    // place or through stdout, and any command whose stdout is full. A file is written whole or
    // not at all.
    void outputThatCannotBeWrittenFails()
    {
        const Result started
            = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"normal deltas=20"_s, u"--follow"_s});
        QCOMPARE(started.exitCode, 0);
        const QString id = runIdFrom(started.out);
        const Result toDevice = cli({u"export"_s, id, u"--output"_s, u"/dev/full"_s});
        QVERIFY2(toDevice.exitCode == 1, toDevice.err.constData());
        QVERIFY2(toDevice.err.contains("/dev/full"), toDevice.err.constData());
        QVERIFY(QFileInfo(u"/dev/full"_s).exists()
                && !QFileInfo(u"/dev/full"_s).isFile()); // still the device

        for (const QStringList &command : {QStringList{u"export"_s, id}, QStringList{u"list"_s, u"--all"_s},
                                           QStringList{u"watch"_s, id}}) {
            const QStringList viaShell{u"-c"_s, u"exec \"$0\" \"$@\" >/dev/full"_s,
                                       QStringLiteral(RUNWATCH_CLI_PATH)};
            const Result r
                = finishCli(RunwatchTest::launchCli(u"/bin/sh"_s, viaShell + globals() + command, this));
            QVERIFY2(r.exitCode == 1, qPrintable(command.join(u' ') + u": "_s + QString::fromUtf8(r.err)));
            QVERIFY2(r.err.contains("cannot write the output"), r.err.constData());
        }

        const QString file = m_dir->filePath(u"run.md"_s);
        const Result ok = cli({u"export"_s, id, u"--output"_s, file});
        QCOMPARE(ok.exitCode, 0);
        QVERIFY(QFileInfo(file).size() > 100);
    }

    // A full disk (here the process's file-size limit, RLIMIT_FSIZE, with SIGXFSZ ignored so
    // writes fail with EFBIG as on a full volume): the store cannot take the run's state. The
    // command prints everything it received, says the store could not be written and exits
    // non-zero; the store keeps what was written before and opens fine afterwards.
    void fullDiskFailsTheCommand()
    {
        const QString store = m_dir->filePath(u"small.sqlite"_s);
        QStringList args{u"-c"_s, u"ulimit -f 400 && trap '' XFSZ && exec \"$0\" \"$@\""_s,
                         QStringLiteral(RUNWATCH_CLI_PATH)};
        args << u"--backend"_s << u"openai"_s << u"--url"_s << m_sim->baseUrl().toString() << u"--store"_s
             << store << u"start"_s << u"--prompt"_s << u"normal deltas=30000 interval_ms=0"_s
             << u"--follow"_s;
        const Result r = finishCli(RunwatchTest::launchCli(u"/bin/bash"_s, args, this), 120000);
        QVERIFY2(r.exitCode == 1, r.err.constData());
        QVERIFY2(r.err.contains("could not be written"), r.err.constData());
        QCOMPARE(QString::fromUtf8(r.out), RunwatchSim::OpenAiSimulator::tokenText(30000) + u'\n');

        // Without the limit: the store opens, and the run is there.
        const Result listed = RunwatchTest::runCli({u"--store"_s, store, u"list"_s, u"--all"_s}, this);
        QCOMPARE(listed.exitCode, 0);
        QVERIFY2(listed.out.contains("normal deltas=30000"), listed.out.constData());
    }

    // Ctrl-C (SIGINT) while following: the CLI exits 130 after saving what it received — the
    // run, its remote id and the text so far are in the store, and `watch` goes on from there to
    // the whole answer, every token once.
    void interruptKeepsWhatWasReceived()
    {
        QProcess *p = launch(globals()
                             + QStringList{u"--json"_s, u"start"_s, u"--prompt"_s,
                                           u"normal deltas=400 interval_ms=10"_s, u"--follow"_s});
        QByteArray out;
        connect(p, &QProcess::readyReadStandardOutput, this, [&] { out += p->readAllStandardOutput(); });
        QTRY_VERIFY_WITH_TIMEOUT(out.contains("tok20 "), 20000);
        ::kill(pid_t(p->processId()), SIGINT);
        QTRY_VERIFY_WITH_TIMEOUT(p->state() == QProcess::NotRunning, 20000);
        out += p->readAllStandardOutput();
        QCOMPARE(p->exitStatus(), QProcess::NormalExit);
        QCOMPARE(p->exitCode(), 130);
        const QString id = runIdFrom(out);
        QVERIFY(!id.isEmpty());
        QVERIFY(!out.contains("tok399 ")); // it was interrupted, not finished

        // What the store holds, without asking the service (list reads the store only).
        const Result listed = cli({u"--json"_s, u"list"_s, u"--all"_s});
        QVERIFY2(listed.out.contains(id.toUtf8()) && listed.out.contains("\"remote_id\":\"resp_"),
                 listed.out.constData());
        const Result watched = cli({u"watch"_s, id});
        QCOMPARE(watched.exitCode, 0);
        QCOMPARE(QString::fromUtf8(watched.out), RunwatchSim::OpenAiSimulator::tokenText(400) + u'\n');
    }

    void exitCodes()
    {
        QCOMPARE(cli({u"start"_s, u"--prompt"_s, u"fail deltas=4"_s, u"--follow"_s}).exitCode, 3);
        QCOMPARE(cli({u"start"_s, u"--prompt"_s, u"incomplete deltas=4"_s, u"--follow"_s}).exitCode, 3);
        QCOMPARE(cli({u"bogus"_s}).exitCode, 2);
        QCOMPARE(cli({u"start"_s}).exitCode, 2);
        QCOMPARE(finishCli(launch({u"--api-key"_s, u"sk-secret"_s, u"list"_s})).exitCode, 2);
    }

    // The key comes from the environment variable named by --api-key-env.
    void apiKeyFromEnvironment()
    {
        m_sim->setApiKey(u"sk-test-123"_s);
        const Result denied = cli({u"start"_s, u"--prompt"_s, u"normal deltas=2"_s, u"--follow"_s});
        QCOMPARE(denied.exitCode, 1);
        QVERIFY2(denied.err.contains("auth"), denied.err.constData());
        const Result ok = finishCli(
            launch(QStringList{u"--api-key-env"_s, u"MY_KEY"_s} + globals()
                       + QStringList{u"start"_s, u"--prompt"_s, u"normal deltas=2"_s, u"--follow"_s},
                   {u"MY_KEY=sk-test-123"_s}));
        QCOMPARE(ok.exitCode, 0);
        QVERIFY(!ok.out.contains("sk-test-123"));
        QVERIFY(!ok.err.contains("sk-test-123"));
    }

    // list shows active runs; --all includes finished ones.
    void list()
    {
        const Result done
            = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"normal deltas=2"_s, u"--follow"_s});
        const Result running = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"long interval_ms=50"_s});
        const QString doneId = runIdFrom(done.out);
        const QString runningId = runIdFrom(running.out);
        const Result active = cli({u"list"_s});
        QCOMPARE(active.exitCode, 0);
        QVERIFY(active.out.contains(runningId.toUtf8()));
        QVERIFY(!active.out.contains(doneId.toUtf8()));
        const Result all = cli({u"list"_s, u"--all"_s});
        QVERIFY(all.out.contains(doneId.toUtf8()));
        QCOMPARE(cli({u"cancel"_s, runningId}).exitCode, 4);
    }

    // list --search: the runs whose prompt or answer hold the words, with filters, as text or
    // JSON with the part that matched; a query that is none is a usage error.
    void listSearch()
    {
        const Result otters
            = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"normal deltas=3 about otters"_s, u"--follow"_s});
        const Result badgers = cli(
            {u"--json"_s, u"start"_s, u"--prompt"_s, u"normal deltas=3 about badgers"_s, u"--follow"_s});
        const QString ottersId = runIdFrom(otters.out);
        const QString badgersId = runIdFrom(badgers.out);
        const Result found = cli({u"list"_s, u"--all"_s, u"--search"_s, u"otters"_s});
        QCOMPARE(found.exitCode, 0);
        QVERIFY(found.out.contains(ottersId.toUtf8()));
        QVERIFY(!found.out.contains(badgersId.toUtf8()));
        QVERIFY2(found.out.contains("[otters]"), found.out.constData());
        // A word of both answers, newest first; a filter that keeps neither.
        const Result both
            = cli({u"--json"_s, u"list"_s, u"--all"_s, u"--search"_s, u"tok1 status:completed"_s});
        QCOMPARE(both.exitCode, 0);
        const QList<QByteArray> lines = both.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        const QJsonObject first = QJsonDocument::fromJson(lines.at(0)).object();
        QCOMPARE(first.value(u"run"_s).toString(), badgersId);
        QVERIFY2(first.value(u"snippet"_s).toString().contains(u"[tok1]"_s), lines.at(0).constData());
        QVERIFY(
            cli({u"list"_s, u"--all"_s, u"--search"_s, u"otters status:failed"_s}).out.trimmed().isEmpty());
        const Result bad = cli({u"list"_s, u"--all"_s, u"--search"_s, u"since:yesterday"_s});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.err.contains("yesterday"));
        QCOMPARE(cli({u"list"_s, u"--search"_s}).exitCode, 2);
    }

    // A malformed event: clear error on stderr, the text before it on stdout, exit 1.
    void malformedEvent()
    {
        const Result r
            = cli({u"start"_s, u"--prompt"_s, u"normal deltas=10 malformed_at=9"_s, u"--follow"_s});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(QString::fromUtf8(r.out), RunwatchSim::OpenAiSimulator::tokenText(4));
        QVERIFY2(r.err.contains("Malformed event"), r.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
