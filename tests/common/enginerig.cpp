// SPDX-License-Identifier: GPL-3.0-or-later
#include "enginerig.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace Runwatch;

namespace RunwatchTest {

FollowPolicy quickFollowPolicy()
{
    FollowPolicy policy;
    policy.reconnectInitial = std::chrono::milliseconds(2);
    policy.reconnectMax = std::chrono::milliseconds(50);
    policy.pollInitial = std::chrono::milliseconds(5);
    policy.pollMax = std::chrono::milliseconds(50);
    return policy;
}

Run listedRun(const QString &id, RunStatus status, const QString &title, const QString &connection,
              qint64 startedSecsAgo)
{
    Run r;
    r.localId = id;
    r.remoteId = u"resp_"_s + id;
    r.connection = connection;
    r.backend = u"openai"_s;
    r.model = u"m1"_s;
    r.title = title;
    r.status = status;
    r.rawStatus = statusName(status);
    r.createdAt = QDateTime::currentDateTimeUtc().addSecs(-startedSecsAgo);
    r.updatedAt = r.createdAt;
    if (isTerminal(status))
        r.finishedAt = r.createdAt.addSecs(10);
    r.capabilities = Capability::Start | Capability::Get | Capability::Stream | Capability::ResumeStream
                     | Capability::Cancel | Capability::Delete;
    return r;
}

Connection plainConnection(const QString &name, const QString &backend, const QUrl &baseUrl,
                           const QJsonObject &options)
{
    Connection c;
    c.name = name;
    c.backend = backend;
    c.baseUrl = baseUrl;
    c.auth = AuthStyle::None;
    c.options = options;
    return c;
}

bool waitFor(const std::function<bool()> &done, int ms)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms) {
        if (done())
            return true;
        // Turns the event loop (and runs deferred deletes) for a few milliseconds.
        QTest::qWait(5);
    }
    return done();
}

bool waitTerminal(const RunManager &manager, const QString &id, int ms)
{
    return waitFor(
        [&] {
            const Run *r = manager.run(id);
            return r && r->isTerminal();
        },
        ms);
}

bool waitStatus(const RunManager &manager, const QString &id, RunStatus status, int ms)
{
    return waitFor(
        [&] {
            const Run *r = manager.run(id);
            return r && r->status == status;
        },
        ms);
}

bool waitInput(const RunManager &manager, const QString &id, int ms)
{
    bool ended = false;
    const bool waiting = waitFor(
        [&] {
            const Run *r = manager.run(id);
            ended = r && r->isTerminal();
            return ended || (r && r->status == RunStatus::InputRequired && r->input);
        },
        ms);
    return waiting && !ended;
}

bool waitSettled(const RunManager &manager, const QString &id, int ms)
{
    return waitFor(
        [&] {
            const Run *r = manager.run(id);
            return r && (r->isTerminal() || (!manager.isFollowing(id) && r->error.isError()));
        },
        ms);
}

namespace {

// Runs `command` and waits for the actionFinished it causes for this run and action.
ActionResult actionAndWait(RunManager &manager, const QString &id, RunManager::Action action,
                           const std::function<void()> &command, int ms)
{
    QSignalSpy done(&manager, &RunManager::actionFinished);
    const auto mine = [&]() -> std::optional<ActionResult> {
        for (const QList<QVariant> &args : std::as_const(done)) {
            if (args.at(0).toString() == id && args.at(1).value<RunManager::Action>() == action)
                return args.at(2).value<ActionResult>();
        }
        return std::nullopt;
    };
    command();
    if (!waitFor([&] { return mine().has_value(); }, ms)) {
        ActionResult none;
        none.error = RunError{ErrorKind::Timeout, {}, u"no answer"_s, false, 0, {}};
        return none;
    }
    return *mine();
}

} // namespace

ActionResult cancelAndWait(RunManager &manager, const QString &id, int ms)
{
    return actionAndWait(
        manager, id, RunManager::Action::Cancel, [&] { manager.cancelRun(id); }, ms);
}

ActionResult respondAndWait(RunManager &manager, const QString &id, const InputAnswer &answer, int ms)
{
    return actionAndWait(
        manager, id, RunManager::Action::Respond, [&] { manager.respondToRun(id, answer); }, ms);
}

ActionResult deleteAndWait(RunManager &manager, const QString &id, bool onServer, int ms)
{
    return actionAndWait(
        manager, id, RunManager::Action::Delete, [&] { manager.deleteRun(id, onServer); }, ms);
}

EngineRig::EngineRig()
{
    manager.setFollowPolicy(quickFollowPolicy());
}

bool EngineRig::addConnection(const Connection &connection)
{
    connectionName = connection.name;
    return manager.addConnection(connection);
}

QString EngineRig::start(const QString &prompt, bool stream)
{
    StartRequest r;
    r.model = model;
    r.prompt = prompt;
    r.stream = stream;
    return manager.startRun(connectionName, r);
}

} // namespace RunwatchTest
