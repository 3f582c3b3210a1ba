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
//   kSendEvents                     the endpoint input events go to
//   taken(record)                   the service took the events of that request
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
