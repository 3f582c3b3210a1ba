// SPDX-License-Identifier: GPL-3.0-or-later
// The A2A connector against the official server: tests/peers/a2a-peer/agent.mjs on @a2a-js/sdk
// (installed by scripts/setup-test-peers.sh). Streams, input required, cancel, resubscribe,
// ListTasks, HTTP+JSON, 0.3 compatibility and API keys, all over loopback.
#include "backends/a2a/a2abackend.h"
#include "engine/runmanager.h"
#include "enginerig.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {

constexpr int kWait = 20000;

// One running peer agent; killed with the object.
class Peer
{
public:
    explicit Peer(const QStringList &args)
    {
        m_process.setWorkingDirectory(QStringLiteral(RUNWATCH_A2A_PEER_DIR));
        m_process.setProcessChannelMode(QProcess::SeparateChannels);
        m_process.start(QStringLiteral(RUNWATCH_NODE),
                        QStringList{u"agent.mjs"_s, u"--port"_s, u"0"_s} + args);
        QElapsedTimer clock;
        clock.start();
        static const QRegularExpression line(u"a2a-peer listening on (\\S+)"_s);
        QByteArray seen;
        while (clock.elapsed() < kWait && m_process.state() != QProcess::NotRunning) {
            m_process.waitForReadyRead(100);
            seen += m_process.readAllStandardOutput();
            const auto m = line.match(QString::fromUtf8(seen));
            if (m.hasMatch()) {
                m_url = QUrl(m.captured(1));
                return;
            }
        }
        m_error = QString::fromUtf8(seen + m_process.readAllStandardError());
    }
    ~Peer()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.terminate();
            if (!m_process.waitForFinished(3000)) {
                m_process.kill();
                m_process.waitForFinished(3000);
            }
        }
    }
    QUrl url() const { return m_url; }
    QString error() const { return m_error; }

private:
    QProcess m_process;
    QUrl m_url;
    QString m_error;
};

// The shared engine rig on one A2A connection to the peer. Its follow policy is slower than
// quickFollowPolicy(): a node process answers in milliseconds, not microseconds.
struct Rig : RunwatchTest::EngineRig
{
    Rig(const QUrl &url, const QJsonObject &options = {}, const QString &key = {})
    {
        FollowPolicy policy;
        policy.reconnectInitial = std::chrono::milliseconds(5);
        policy.reconnectMax = std::chrono::milliseconds(100);
        policy.pollInitial = std::chrono::milliseconds(20);
        policy.pollMax = std::chrono::milliseconds(100);
        manager.setFollowPolicy(policy);
        Connection c = RunwatchTest::plainConnection(u"peer"_s, u"a2a"_s, url, options);
        c.apiKey = key;
        c.auth = key.isEmpty() ? AuthStyle::None : AuthStyle::Bearer;
        QVERIFY(addConnection(c));
    }
    A2aBackend *backend() { return qobject_cast<A2aBackend *>(manager.backend(connectionName)); }
};

using RunwatchTest::waitFor;
using RunwatchTest::waitTerminal;

QString chunks(int n)
{
    QString s;
    for (int i = 0; i < n; ++i)
        s += u"chunk%1 "_s.arg(i);
    return s;
}

} // namespace

class TestA2aPeer final : public QObject
{
    Q_OBJECT

    std::unique_ptr<Peer> m_peer;

private Q_SLOTS:
    void initTestCase()
    {
        const QString node = QStringLiteral(RUNWATCH_NODE);
        if (node.isEmpty() || !QFileInfo(node).isExecutable())
            QFAIL("node is not installed: the @a2a-js/sdk peer cannot run (install Node.js >= 20)");
        const QDir dir(QStringLiteral(RUNWATCH_A2A_PEER_DIR));
        if (!dir.exists(u"node_modules/@a2a-js/sdk/package.json"_s)
            || !dir.exists(u"node_modules/express/package.json"_s))
            QFAIL("tests/peers/a2a-peer/node_modules is missing: run scripts/setup-test-peers.sh (npm ci)");
        m_peer = std::make_unique<Peer>(QStringList{});
        QVERIFY2(m_peer->url().isValid(), qPrintable(u"the peer did not start: "_s + m_peer->error()));
    }
    void cleanupTestCase() { m_peer.reset(); }

    void discoversTheCard()
    {
        Rig rig(m_peer->url());
        const A2a::Discovery d = QCoro::waitFor(rig.backend()->discover());
        QVERIFY2(d.ok(), qPrintable(d.error.message));
        QCOMPARE(d.card->name, u"Runwatch Peer"_s);
        QCOMPARE(d.interface->binding, A2a::Binding::JsonRpc);
        QCOMPARE(d.interface->version, A2a::Version::V10);
        QVERIFY(d.card->streaming);
        QCOMPARE(d.card->skills.size(), 2);
    }

    void streamedChunks()
    {
        Rig rig(m_peer->url());
        const QString id = rig.start(u"chunks 6 10"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QCOMPARE(rig.run(id).primaryText, chunks(6));
        QCOMPARE(rig.run(id).reconciliations, 0);
        QVERIFY(!rig.run(id).error.isError());
    }

    // Leave the stream mid-task and follow again: SubscribeToTask's snapshot plus the live rest
    // give exactly the uninterrupted text.
    void resubscribeMidTask()
    {
        Rig rig(m_peer->url());
        const QString id = rig.start(u"chunks 30 30"_s);
        QVERIFY(waitFor([&] { return rig.run(id).primaryText.size() > 20; }));
        rig.manager.stopFollowing(id);
        QTest::qWait(150); // chunks go by unseen
        rig.manager.follow(id);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QCOMPARE(rig.run(id).primaryText, chunks(30));
        QCOMPARE(rig.run(id).reconciliations, 0);
    }

    void inputRequiredAnswered()
    {
        Rig rig(m_peer->url());
        const QString id = rig.start(u"ask"_s);
        QVERIFY(waitFor([&] { return rig.run(id).status == RunStatus::InputRequired; }));
        QCOMPARE(rig.run(id).input->prompt, u"Which city?"_s);
        InputAnswer answer;
        answer.text = u"Paris"_s;
        rig.manager.respondToRun(id, answer);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QCOMPARE(rig.run(id).primaryText, u"Weather in Paris: sunny."_s);
    }

    void cancel()
    {
        Rig rig(m_peer->url());
        const QString id = rig.start(u"chunks 400 20"_s);
        QVERIFY(waitFor([&] { return !rig.run(id).primaryText.isEmpty(); }));
        QSignalSpy done(&rig.manager, &RunManager::actionFinished);
        rig.manager.cancelRun(id);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Cancelled);
        QVERIFY(done.count() >= 1 || done.wait(kWait));
        QVERIFY(done.first().at(2).value<ActionResult>().ok());
    }

    void cancelFinishedIsNotCancelable()
    {
        Rig rig(m_peer->url());
        const QString id = rig.start(u"chunks 2 1"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        const ActionResult r = QCoro::waitFor(rig.backend()->cancel(rig.run(id).token));
        QVERIFY(r.ok());
        QVERIFY2(r.note.startsWith(u"TaskNotCancelable"_s), qPrintable(r.note));
    }

    void listTasksAndAttach()
    {
        Rig rig(m_peer->url());
        const QString id = rig.start(u"chunks 40 25"_s);
        QVERIFY(waitFor([&] { return !rig.run(id).remoteId.isEmpty(); }));
        const QString remote = rig.run(id).remoteId;
        rig.manager.stopFollowing(id);
        const ListResult listed = QCoro::waitFor(rig.backend()->list());
        QVERIFY2(!listed.error.isError(), qPrintable(listed.error.message));
        const auto it = std::find_if(listed.runs.cbegin(), listed.runs.cend(),
                                     [&](const RemoteRunInfo &i) { return i.remoteId == remote; });
        QVERIFY(it != listed.runs.cend());
        QCOMPARE(it->title, u"chunks 40 25"_s);
        // Forget the run locally, as if another client had started it, then attach by id.
        rig.manager.deleteRun(id, false);
        QVERIFY(waitFor([&] { return !rig.manager.run(id); }));
        const QString attached = rig.manager.attachRemoteRun(u"peer"_s, remote, it->title);
        QVERIFY(!attached.isEmpty() && attached != id);
        QVERIFY(waitTerminal(rig.manager, attached));
        QCOMPARE(rig.run(attached).status, RunStatus::Completed);
        QCOMPARE(rig.run(attached).primaryText, chunks(40));
    }

    void failedTask()
    {
        Rig rig(m_peer->url());
        const QString id = rig.start(u"fail"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Failed);
        QCOMPARE(rig.run(id).error.message, u"The peer failed on purpose."_s);
    }

    void messageReply()
    {
        Rig rig(m_peer->url());
        const QString id = rig.start(u"message"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QCOMPARE(rig.run(id).primaryText, u"Hello from the peer."_s);
    }

    void nonStreamingStartPolls()
    {
        Rig rig(m_peer->url());
        const QString id = rig.start(u"chunks 5 10"_s, false);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).primaryText, chunks(5));
    }

    // The HTTP+JSON binding of the same agent.
    void restBinding()
    {
        Rig rig(m_peer->url(), QJsonObject{{u"binding"_s, u"HTTP+JSON"_s}});
        const QString id = rig.start(u"chunks 20 20"_s);
        QVERIFY(waitFor([&] { return rig.run(id).primaryText.size() > 10; }));
        QCOMPARE(rig.backend()->agentInterface()->binding, A2a::Binding::HttpJson);
        rig.manager.stopFollowing(id);
        QTest::qWait(100);
        rig.manager.follow(id);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.run(id).primaryText, chunks(20));
        QCOMPARE(rig.run(id).reconciliations, 0);

        const QString ask = rig.start(u"ask"_s);
        QVERIFY(waitFor([&] { return rig.run(ask).status == RunStatus::InputRequired; }));
        InputAnswer answer;
        answer.text = u"Rome"_s;
        rig.manager.respondToRun(ask, answer);
        QVERIFY(waitTerminal(rig.manager, ask));
        QCOMPARE(rig.run(ask).primaryText, u"Weather in Rome: sunny."_s);

        const ListResult listed = QCoro::waitFor(rig.backend()->list());
        QVERIFY2(!listed.error.isError(), qPrintable(listed.error.message));
        QVERIFY(listed.runs.size() >= 2);
        ContinuationToken unknown;
        unknown.remoteId = u"nope"_s;
        const ActionResult missing = QCoro::waitFor(rig.backend()->get(unknown));
        QCOMPARE(missing.error.kind, ErrorKind::NotFound);
    }

    // The SDK's opt-in v0.3 layer: the connector speaks 0.3 JSON-RPC to it.
    void legacyCompat03()
    {
        Peer legacy({u"--legacy"_s});
        QVERIFY2(legacy.url().isValid(), qPrintable(legacy.error()));
        Rig rig(legacy.url(), QJsonObject{{u"protocol_version"_s, u"0.3"_s}, {u"binding"_s, u"JSONRPC"_s}});
        const QString id = rig.start(u"chunks 8 10"_s);
        QVERIFY(waitTerminal(rig.manager, id));
        QCOMPARE(rig.backend()->agentInterface()->version, A2a::Version::V03);
        QCOMPARE(rig.run(id).status, RunStatus::Completed);
        QCOMPARE(rig.run(id).rawStatus, u"completed"_s);
        QCOMPARE(rig.run(id).primaryText, chunks(8));

        const QString ask = rig.start(u"ask"_s);
        QVERIFY(waitFor([&] { return rig.run(ask).status == RunStatus::InputRequired; }));
        InputAnswer answer;
        answer.text = u"Bern"_s;
        rig.manager.respondToRun(ask, answer);
        QVERIFY(waitTerminal(rig.manager, ask));
        QCOMPARE(rig.run(ask).primaryText, u"Weather in Bern: sunny."_s);
    }

    void apiKeyFromCard()
    {
        Peer secured({u"--key"_s, u"k-123"_s});
        QVERIFY2(secured.url().isValid(), qPrintable(secured.error()));
        {
            Rig rig(secured.url(), {}, u"k-123"_s);
            const QString id = rig.start(u"chunks 3 5"_s);
            QVERIFY(waitTerminal(rig.manager, id));
            QCOMPARE(rig.run(id).primaryText, chunks(3));
            QCOMPARE(rig.backend()->agentCard()->auth.kind, A2a::AuthScheme::Kind::ApiKeyHeader);
        }
        {
            Rig rig(secured.url());
            const QString id = rig.start(u"chunks 3 5"_s);
            QVERIFY(waitTerminal(rig.manager, id));
            QCOMPARE(rig.run(id).status, RunStatus::Failed);
            QCOMPARE(rig.run(id).error.kind, ErrorKind::Auth);
        }
    }

    // Follow up (issue 16) against the official server: the next turn is a new task in the
    // completed task's contextId, and the agent sees the earlier turn there.
    void followUpInTheSameContext()
    {
        Rig rig(m_peer->url());
        const QString parent = rig.start(u"chunks 2 5"_s);
        QVERIFY(waitTerminal(rig.manager, parent, kWait));
        QCOMPARE(rig.run(parent).status, RunStatus::Completed);
        const QString context = rig.run(parent).token.extra.value(u"contextId"_s).toString();
        QVERIFY(!context.isEmpty());
        QString why;
        const QString child = rig.manager.followUp(parent, u"recall"_s, &why);
        QVERIFY2(!child.isEmpty(), qPrintable(why));
        QVERIFY(waitTerminal(rig.manager, child, kWait));
        const Run &run = rig.run(child);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.parentId, parent);
        QVERIFY(run.remoteId != rig.run(parent).remoteId);
        QCOMPARE(run.token.extra.value(u"contextId"_s).toString(), context);
        QCOMPARE(run.primaryText, u"Earlier in this context: chunks 2 5"_s);
    }

    // A message to a working task against the official server (issue 16): the SDK appends it to
    // the task and hands it to the agent, whose `listen` task folds it into the answer it is
    // still streaming. The same local run goes on: every chunk in order, the note among them,
    // one run, no error.
    void followUpToAWorkingTask()
    {
        Rig rig(m_peer->url());
        const QString id = rig.start(u"listen 30 40"_s);
        QVERIFY(waitFor(
            [&] {
                const Run &r = rig.run(id);
                return r.status == RunStatus::InProgress && !r.primaryText.isEmpty();
            },
            kWait));
        QVERIFY(followUpAllowed(rig.run(id)));
        std::optional<ActionResult> sent;
        connect(&rig.manager, &RunManager::actionFinished, this,
                [&](const QString &rid, RunManager::Action a, const ActionResult &r) {
                    if (rid == id && a == RunManager::Action::FollowUp)
                        sent = r;
                });
        QString why;
        QCOMPARE(rig.manager.followUp(id, u"mind the 2025 figures"_s, &why), id);
        QVERIFY(waitFor([&] { return sent.has_value(); }, kWait));
        QVERIFY2(sent->ok(), qPrintable(sent->error.message));
        QVERIFY(waitTerminal(rig.manager, id, kWait));
        const Run &run = rig.run(id);
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(rig.manager.runIds().size(), 1);
        QVERIFY(!run.error.isError());
        const QString note = u"[noted: mind the 2025 figures] "_s;
        QVERIFY2(run.primaryText.view().count(note) == 1, qPrintable(run.primaryText.toString()));
        QCOMPARE(run.primaryText.toString().remove(note), chunks(30));
    }
};

QTEST_GUILESS_MAIN(TestA2aPeer)
#include "tst_a2a_peer.moc"
