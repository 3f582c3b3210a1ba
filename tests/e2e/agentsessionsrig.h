// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the end-to-end tests of the managed agent session connectors (issue 29) share: the engine
// with one connection to a vendor's simulator (small pages, so that every listing and every read
// of the history goes over several), runs started on an agent of the account, and what a test
// reads back (a turn's text as the simulator has it, the requests per endpoint, the input events
// the service took, the items a run shows). Each connector's test states what differs in its
// Traits:
//
//   Sim, Config, Record, Endpoint   the simulator's types
//   kBackend, kConnection           the connector's name, the connection's
//   kKey, kAgent, kPageSize         the account's key and agent, the pages' size by default
//   kSendEvents, kCreateSession, kStream   the endpoints input events, new sessions and the live
//                                   stream go to
//   taken(record)                   the service took the events of that request
//   turnOver(info)                  the session's last turn is over
#include "backends/agentsessions/sessionturn.h"
#include "enginerig.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

namespace RunwatchTest {

template<typename Traits>
typename Traits::Config agentSessionsSimConfig(int pageSize)
{
    typename Traits::Config config;
    config.apiKey = QString::fromLatin1(Traits::kKey);
    config.intervalMs = 1;
    config.maxPageSize = pageSize;
    return config;
}

template<typename Traits>
struct AgentSessionsRig : ServerRig<typename Traits::Sim>
{
    using Base = ServerRig<typename Traits::Sim>;

    explicit AgentSessionsRig(int pageSize = Traits::kPageSize,
                              const QString &key = QString::fromLatin1(Traits::kKey))
        : Base(agentSessionsSimConfig<Traits>(pageSize))
    {
        QVERIFY(this->sim.listen());
        Runwatch::Connection c = plainConnection(QString::fromLatin1(Traits::kConnection),
                                                 QString::fromLatin1(Traits::kBackend), this->sim.baseUrl());
        c.auth = Runwatch::AuthStyle::Bearer;
        c.apiKey = key;
        QVERIFY(this->addConnection(c));
    }
    QString startOn(const QString &prompt, bool stream = true)
    {
        Runwatch::StartRequest r;
        r.agent = QString::fromLatin1(Traits::kAgent);
        r.prompt = prompt;
        r.stream = stream;
        return this->manager.startRun(this->connectionName, r);
    }
    QString textOf(const QString &id, int turn = -1) const
    {
        return this->sim.turnText(this->run(id).remoteId, turn);
    }
    int count(typename Traits::Endpoint endpoint) const { return this->sim.requestCount(endpoint); }
    // The input events the service took, in order.
    QList<QJsonObject> sentEvents() const
    {
        QList<QJsonObject> events;
        for (const typename Traits::Record &r : this->sim.requests()) {
            if (r.endpoint != Traits::kSendEvents || !Traits::taken(r))
                continue;
            const QJsonArray sent
                = QJsonDocument::fromJson(r.body).object().value(QStringLiteral("events")).toArray();
            for (const QJsonValue &e : sent)
                events << e.toObject();
        }
        return events;
    }
};

// --- the steps every connector has -----------------------------------------------------------

// A second turn as a follow-up of a finished run: a new run, its parent the first, on the same
// session (no second session created), each run with its own turn's text. The follow-up's id.
template<typename Traits>
QString followUpIsTheNextTurnOfTheSession(AgentSessionsRig<Traits> &rig)
{
    using namespace Runwatch;
    const QString parent = rig.startOn(QStringLiteral("normal deltas=3"));
    if (!waitTerminal(rig.manager, parent))
        return {};
    QString why;
    const QString child = rig.manager.followUp(parent, QStringLiteral("normal deltas=7"), &why);
    if (child.isEmpty()) {
        qWarning("no follow-up: %s", qPrintable(why));
        return {};
    }
    if (!waitTerminal(rig.manager, child))
        return {};
    const Run &run = rig.run(child);
    const bool same = run.status == RunStatus::Completed && run.parentId == parent
                      && run.remoteId == rig.run(parent).remoteId && rig.count(Traits::kCreateSession) == 1
                      && rig.sim.session(run.remoteId)->turns.size() == 2
                      && run.primaryText == rig.textOf(child, 1)
                      && rig.run(parent).primaryText == rig.textOf(parent, 0)
                      && run.token.extra.value(AgentSessions::kTurnKey)
                             != rig.run(parent).token.extra.value(AgentSessions::kTurnKey);
    if (!same)
        qWarning("follow-up %s: %s", qPrintable(child), qPrintable(run.error.toString()));
    return same ? child : QString();
}

// A run started without a stream is read from the saved history: the same text, no stream.
template<typename Traits>
void notStreamedIsRead()
{
    AgentSessionsRig<Traits> rig;
    const QString id = rig.startOn(QStringLiteral("normal deltas=6"), false);
    QVERIFY(waitTerminal(rig.manager, id));
    const Runwatch::Run &run = rig.run(id);
    QCOMPARE(run.status, Runwatch::RunStatus::Completed);
    QCOMPARE(run.primaryText, rig.textOf(id));
    QCOMPARE(rig.count(Traits::kStream), 0);
}

// Through the engine and the real connector: a session another client held three turns in,
// attached by its id, is three runs chained by parentId, each with its message and its text as
// the simulator has it, the first two finished and never followed; a second attach makes none.
template<typename Traits>
void attachShowsEarlierTurns()
{
    using namespace Runwatch;
    AgentSessionsRig<Traits> rig;
    const QStringList prompts{QStringLiteral("normal deltas=4 one"), QStringLiteral("normal deltas=2 two"),
                              QStringLiteral("normal deltas=5 three")};
    const auto turnsOver = [&](const QString &session, int n) {
        return waitFor([&] {
            const auto info = rig.sim.session(session);
            return info && info->turns.size() == n && Traits::turnOver(*info);
        });
    };
    const QString session = rig.sim.startSessionElsewhere(QString::fromLatin1(Traits::kAgent), prompts.at(0));
    QVERIFY(turnsOver(session, 1));
    QVERIFY(rig.sim.sendElsewhere(session, prompts.at(1)));
    QVERIFY(turnsOver(session, 2));
    QVERIFY(rig.sim.sendElsewhere(session, prompts.at(2)));
    QVERIFY(turnsOver(session, 3));
    const QString id = rig.manager.attachRemoteRun(rig.connectionName, session);
    QVERIFY(!id.isEmpty());
    QVERIFY(waitTerminal(rig.manager, id));
    QCOMPARE(rig.manager.runIds().size(), 3);
    QString at = id;
    for (int turn = 2; turn >= 0; --turn) {
        const Run *run = rig.manager.run(at);
        QVERIFY(run);
        QCOMPARE(run->remoteId, session);
        QCOMPARE(run->prompt, prompts.at(turn));
        QCOMPARE(run->primaryText, rig.sim.turnText(session, turn));
        QCOMPARE(run->status, RunStatus::Completed);
        QVERIFY(!rig.manager.isFollowing(at));
        at = run->parentId;
    }
    QVERIFY(at.isEmpty());
    QCOMPARE(rig.manager.attachRemoteRun(rig.connectionName, session), id);
    QVERIFY(!waitFor([&] { return rig.manager.runIds().size() != 3; }, 500));
}

// The items a run shows besides its status changes (their kind, title and text; the ids are the
// session's): what a replay must not repeat.
inline QStringList itemIds(const Runwatch::Run &run)
{
    QStringList ids;
    for (const Runwatch::SecondaryItem &item : run.secondary) {
        if (item.kind != Runwatch::SecondaryKind::StatusChange)
            ids << Runwatch::secondaryKindName(item.kind) + u':' + item.title + u':' + item.text;
    }
    return ids;
}

} // namespace RunwatchTest
