// SPDX-License-Identifier: GPL-3.0-or-later
// runwatch-cli --backend gemini as a script runs it: real processes against the Interactions API
// simulator, one store shared between them. The CLI contract of issue 26: start --prompt T
// (--model M | --agent AGENT) [--no-stream] [--follow], watch (also after SIGKILL), status,
// cancel, delete on the service, respond --output CALL_ID=TEXT, followup, agents, the key from
// --api-key-env as x-goog-api-key, and the exit codes every backend has.
#include "cliprocess.h"
#include "gemini/geminisim.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

#include <csignal>
#include <functional>

using namespace Qt::StringLiterals;
using RunwatchSim::GeminiEndpoint;
using RunwatchSim::GeminiSimulator;
using Result = RunwatchTest::CliResult;
using RunwatchTest::firstOfType;
using RunwatchTest::jsonLines;
using RunwatchTest::runIdFrom;

namespace {

constexpr auto kKey = "AIza-cli-key-0001";
constexpr auto kModel = "gemini-3-flash-preview";
constexpr auto kAgent = "deep-research-pro-preview-12-2025";
constexpr int kProcessWait = 120000;

// Turns the event loop (the simulator lives in it) until `done` holds or `ms` have passed.
bool waitUntil(const std::function<bool()> &done, int ms = 30000)
{
    QElapsedTimer clock;
    clock.start();
    while (!done()) {
        if (clock.elapsed() > ms)
            return false;
        QTest::qWait(5);
    }
    return true;
}

} // namespace

class TestGeminiCli final : public QObject
{
    Q_OBJECT

    GeminiSimulator *m_sim = nullptr;
    QTemporaryDir *m_dir = nullptr;

    QStringList globals() const
    {
        return {u"--backend"_s,     u"gemini"_s,        u"--url"_s,   m_sim->baseUrl().toString(),
                u"--api-key-env"_s, u"MY_GEMINI_KEY"_s, u"--store"_s, m_dir->filePath(u"runs.sqlite"_s)};
    }
    QStringList env(const QString &key = QString::fromLatin1(kKey)) const
    {
        return {u"MY_GEMINI_KEY="_s + key};
    }

    Result cli(const QStringList &args, int ms = kProcessWait)
    {
        return RunwatchTest::runCli(globals() + args, this, env(), ms);
    }
    QProcess *launch(const QStringList &args)
    {
        return RunwatchTest::launchCli(QStringLiteral(RUNWATCH_CLI_PATH), globals() + args, this, env());
    }

    // The simulator's answer for an interaction: its output steps' texts, joined as the run's.
    QString textOf(const QString &interactionId) const
    {
        const auto info = m_sim->interaction(interactionId);
        if (!info)
            return u"<unknown interaction %1>"_s.arg(interactionId);
        QStringList texts = info->outputTexts;
        texts.removeAll(QString());
        return texts.join(u"\n\n"_s);
    }
    QString lastText() const { return textOf(m_sim->lastInteractionId()); }

private Q_SLOTS:
    void init()
    {
        RunwatchSim::GeminiSimConfig config;
        config.apiKey = QString::fromLatin1(kKey);
        config.intervalMs = 2;
        m_sim = new GeminiSimulator(config, this);
        QVERIFY(m_sim->listen());
        m_dir = new QTemporaryDir;
        QVERIFY(m_dir->isValid());
    }
    void cleanup()
    {
        delete m_sim;
        delete m_dir;
    }

    // The contract's first line: a model, streamed, followed; the answer on stdout, exit 0.
    void startModelFollow()
    {
        const Result r = cli({u"start"_s, u"--prompt"_s, u"normal deltas=15"_s, u"--model"_s,
                              QString::fromLatin1(kModel), u"--follow"_s});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(QString::fromUtf8(r.out), lastText() + u'\n');
        QVERIFY2(r.err.contains("completed"), r.err.constData());
        QCOMPARE(m_sim->interactionsCreated(), 1);
        for (const RunwatchSim::GeminiRequestRecord &request : m_sim->requests()) {
            QCOMPARE(request.header("x-goog-api-key"), QByteArray(kKey));
            QVERIFY(request.header("authorization").isEmpty());
        }
        // The key is nowhere in what the CLI printed or stored in clear beside the runs.
        QVERIFY(!r.out.contains(kKey) && !r.err.contains(kKey));
    }

    // An agent, polled: --no-stream reads the interaction until it ends.
    void startAgentPolled()
    {
        const Result r = cli({u"start"_s, u"--prompt"_s, u"research deltas=8"_s, u"--agent"_s,
                              QString::fromLatin1(kAgent), u"--no-stream"_s, u"--follow"_s});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QCOMPARE(QString::fromUtf8(r.out), lastText() + u'\n');
        QCOMPARE(m_sim->requestCount(GeminiEndpoint::Stream), 0);
        const QJsonObject body = QJsonDocument::fromJson(m_sim->requests().first().body).object();
        QCOMPARE(body.value(u"agent"_s).toString(), QString::fromLatin1(kAgent));
        QVERIFY(!body.contains(u"model"_s));
    }

    // `watch` killed with SIGKILL mid-run; the next `watch` prints the whole answer once.
    void watchSurvivesSigkill()
    {
        const Result started
            = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"normal deltas=300 interval_ms=10"_s,
                   u"--model"_s, QString::fromLatin1(kModel)});
        QCOMPARE(started.exitCode, 0);
        const QString id = runIdFrom(started.out);
        QVERIFY(!id.isEmpty());
        QProcess *first = launch({u"watch"_s, id});
        QByteArray partial;
        // Far enough in that the store holds a cursor well past the start (it writes every
        // 200 ms): a restart from the beginning would pass a check of the text alone.
        QVERIFY(waitUntil([&] {
            partial += first->readAllStandardOutput();
            return partial.count(' ') >= 100;
        }));
        ::kill(pid_t(first->processId()), SIGKILL);
        QSignalSpy done(first, &QProcess::finished);
        QVERIFY(first->state() == QProcess::NotRunning || done.wait(10000));
        first->deleteLater();
        const qsizetype before = m_sim->requests().size();
        const Result watched = cli({u"watch"_s, id});
        QVERIFY2(watched.exitCode == 0, watched.err.constData());
        const QString expected = lastText();
        QCOMPARE(QString::fromUtf8(watched.out), expected + u'\n');
        QVERIFY(expected.toUtf8().startsWith(partial.left(partial.lastIndexOf(' ') + 1)));
        QCOMPARE(m_sim->interactionsCreated(), 1);
        // The second watch went on from the stored event id, not from the start.
        const QList<RunwatchSim::GeminiRequestRecord> after = m_sim->requests().mid(before);
        QVERIFY(std::any_of(after.cbegin(), after.cend(), [](const RunwatchSim::GeminiRequestRecord &r) {
            return r.query.contains(u"stream=true"_s) && r.query.contains(u"last_event_id="_s);
        }));
    }

    // requires_action: exit 5 with the calls; one respond answers both in the next interaction;
    // watch follows the same run to its end.
    void functionCallsAnswered()
    {
        const Result asked = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"tool_call calls=2 deltas=3"_s,
                                  u"--model"_s, QString::fromLatin1(kModel), u"--follow"_s});
        QCOMPARE(asked.exitCode, 5);
        const QJsonObject request
            = firstOfType(asked.out, u"input_required"_s).value(u"request"_s).toObject();
        QCOMPARE(request.value(u"reason"_s).toString(), u"tool_output"_s);
        const QJsonArray calls = request.value(u"tool_calls"_s).toArray();
        QCOMPARE(calls.size(), 2);
        const QString a = calls.at(0).toObject().value(u"id"_s).toString();
        const QString b = calls.at(1).toObject().value(u"id"_s).toString();
        const QString id = runIdFrom(asked.out);
        const QString first = m_sim->lastInteractionId();

        const Result tooFew = cli({u"respond"_s, id, u"--output"_s, a + u"=sunny"_s});
        QCOMPARE(tooFew.exitCode, 2); // refused before anything is sent
        QCOMPARE(m_sim->interactionsCreated(), 1);

        const Result answered
            = cli({u"respond"_s, id, u"--output"_s, a + u"=sunny"_s, u"--output"_s, b + u"=09:30"_s});
        QVERIFY2(answered.exitCode == 0 || answered.exitCode == 6, answered.err.constData());
        QCOMPARE(m_sim->interactionsCreated(), 2);
        const Result watched = cli({u"watch"_s, id});
        QVERIFY2(watched.exitCode == 0, watched.err.constData());
        const QString expected = textOf(first) + lastText();
        QVERIFY(expected.startsWith(u"[%1: sunny] [%2: 09:30] "_s.arg(a, b)));
        QCOMPARE(QString::fromUtf8(watched.out), expected + u'\n');
        QCOMPARE(m_sim->interaction(m_sim->lastInteractionId())->previousId, first);
    }

    void followUpByPreviousInteraction()
    {
        const Result parent = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"normal deltas=3"_s, u"--model"_s,
                                   QString::fromLatin1(kModel), u"--follow"_s});
        QCOMPARE(parent.exitCode, 0);
        const QString parentId = runIdFrom(parent.out);
        const QString parentInteraction = m_sim->lastInteractionId();
        const Result next
            = cli({u"followup"_s, parentId, u"--prompt"_s, u"normal deltas=6"_s, u"--follow"_s});
        QVERIFY2(next.exitCode == 0, next.err.constData());
        QVERIFY2(QString::fromUtf8(next.out).endsWith(lastText() + u'\n'), next.out.constData());
        QCOMPARE(m_sim->interaction(m_sim->lastInteractionId())->previousId, parentInteraction);
    }

    void cancelAndStatus()
    {
        const Result started = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"long interval_ms=20"_s,
                                    u"--model"_s, QString::fromLatin1(kModel)});
        QCOMPARE(started.exitCode, 0);
        const QString id = runIdFrom(started.out);
        const Result cancelled = cli({u"cancel"_s, id});
        QVERIFY2(cancelled.exitCode == 0 || cancelled.exitCode == 4, cancelled.err.constData());
        QCOMPARE(m_sim->requestCount(GeminiEndpoint::Cancel), 1);
        QTRY_COMPARE_WITH_TIMEOUT(m_sim->interaction(m_sim->lastInteractionId())->status, u"cancelled"_s,
                                  10000);
        const Result status = cli({u"status"_s, id});
        QCOMPARE(status.exitCode, 4);
    }

    void deleteOnTheService()
    {
        const Result done = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"normal deltas=2"_s, u"--model"_s,
                                 QString::fromLatin1(kModel), u"--follow"_s});
        QCOMPARE(done.exitCode, 0);
        const QString id = runIdFrom(done.out);
        const QString interaction = m_sim->lastInteractionId();
        QVERIFY(m_sim->interaction(interaction));
        const Result deleted = cli({u"delete"_s, id});
        QVERIFY2(deleted.exitCode == 0, deleted.err.constData());
        QVERIFY(!m_sim->interaction(interaction));
        QCOMPARE(m_sim->requestCount(GeminiEndpoint::Delete), 1);
        QVERIFY(cli({u"status"_s, id}).exitCode != 0); // gone locally too
    }

    void failureExitCodeAndMessage()
    {
        const Result r = cli({u"start"_s, u"--prompt"_s, u"fail fail_after=2"_s, u"--model"_s,
                              QString::fromLatin1(kModel), u"--follow"_s});
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(r.err.contains("An internal error has occurred. Please retry."), r.err.constData());
    }

    void wrongKey()
    {
        const Result r
            = RunwatchTest::runCli(globals()
                                       + QStringList{u"start"_s, u"--prompt"_s, u"normal"_s, u"--model"_s,
                                                     QString::fromLatin1(kModel), u"--follow"_s},
                                   this, env(u"AIza-wrong"_s), kProcessWait);
        QVERIFY2(r.exitCode != 0, r.out.constData());
        QVERIFY2(r.err.contains("API key not valid"), r.err.constData());
        QVERIFY(!r.err.contains("AIza-wrong"));
    }

    void agentsListsModelsAndAgents()
    {
        const Result r = cli({u"--json"_s, u"agents"_s});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QStringList ids;
        QStringList types;
        for (const QJsonObject &line : jsonLines(r.out)) {
            types << line.value(u"type"_s).toString();
            ids << line.value(u"id"_s).toString();
        }
        // The models first (the default at the top), then the agents.
        QCOMPARE(ids.constFirst(), u"models/"_s + QString::fromLatin1(kModel));
        QCOMPARE(types.constFirst(), u"model"_s);
        const qsizetype agent = ids.indexOf(QString::fromLatin1(kAgent));
        QVERIFY(agent > 0);
        QCOMPARE(types.at(agent), u"agent"_s);
    }
};

QTEST_GUILESS_MAIN(TestGeminiCli)
#include "tst_gemini_cli.moc"
