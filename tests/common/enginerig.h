// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "engine/runmanager.h"

#include <QString>
#include <QUrl>

#include <functional>
#include <utility>

namespace RunwatchTest {

// How long an engine test waits for a run to get somewhere before it fails.
constexpr int kEngineWait = 20000;

// Reconnects and polls within milliseconds: tests do not wait out production's backoff.
Runwatch::FollowPolicy quickFollowPolicy();

// A connection without credentials to `baseUrl`, as the tests' simulators serve them.
Runwatch::Connection plainConnection(const QString &name, const QString &backend, const QUrl &baseUrl,
                                     const QJsonObject &options = {});

// A run as the list models see it: on connection `connection` as "resp_<id>", model "m1",
// started `startedSecsAgo` ago (finished 10 s later when `status` is terminal), able to start,
// get, stream, resume, cancel and delete.
Runwatch::Run listedRun(const QString &id, Runwatch::RunStatus status, const QString &title,
                        const QString &connection = QStringLiteral("alpha"), qint64 startedSecsAgo = 60);

// Turns the event loop (the servers the engine talks to live in it) until `done` holds or `ms`
// have passed; says whether it holds.
bool waitFor(const std::function<bool()> &done, int ms = kEngineWait);
// The run reached a terminal status.
bool waitTerminal(const Runwatch::RunManager &manager, const QString &id, int ms = kEngineWait);
bool waitStatus(const Runwatch::RunManager &manager, const QString &id, Runwatch::RunStatus status,
                int ms = kEngineWait);
// The run waits for input and says what for; false at once when it ends instead.
bool waitInput(const Runwatch::RunManager &manager, const QString &id, int ms = kEngineWait);
// The run is terminal, or following stopped with an error: nothing more will happen to it.
bool waitSettled(const Runwatch::RunManager &manager, const QString &id, int ms = kEngineWait);

// The operator's commands, waited for: the ActionResult the engine reports for this run and
// action (actionFinished), or a Timeout error "no answer" when none comes within `ms`.
Runwatch::ActionResult cancelAndWait(Runwatch::RunManager &manager, const QString &id, int ms = kEngineWait);
Runwatch::ActionResult respondAndWait(Runwatch::RunManager &manager, const QString &id,
                                      const Runwatch::InputAnswer &answer, int ms = kEngineWait);
Runwatch::ActionResult deleteAndWait(Runwatch::RunManager &manager, const QString &id, bool onServer,
                                     int ms = kEngineWait);

// The engine as the end-to-end tests drive it: a RunManager that reconnects and polls quickly
// and one connection that start() uses.
class EngineRig
{
public:
    EngineRig();

    // Adds the connection start() uses; false when the engine does not know its backend.
    bool addConnection(const Runwatch::Connection &connection);
    // Starts a run on that connection; the request names `model` when it is set.
    QString start(const QString &prompt, bool stream = true);
    const Runwatch::Run &run(const QString &id) const { return *manager.run(id); }

    Runwatch::RunManager manager;
    QString connectionName;
    QString model;
};

// The server the engine talks to, as a base class so that it is built before the engine and
// destroyed after it: the engine shuts down against a server that is still there.
template<typename Server>
struct ServerHolder
{
    template<typename... Args>
    explicit ServerHolder(Args &&...args)
        : sim(std::forward<Args>(args)...)
    {}
    Server sim;
};

// An EngineRig with the (simulated or scripted) server it talks to, `sim`.
template<typename Server>
class ServerRig : public ServerHolder<Server>, public EngineRig
{
public:
    template<typename... Args>
    explicit ServerRig(Args &&...serverArgs)
        : ServerHolder<Server>(std::forward<Args>(serverArgs)...)
    {}
};

} // namespace RunwatchTest
