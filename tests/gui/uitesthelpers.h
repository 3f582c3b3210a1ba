// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Shared set-up for the widget tests: the OpenAI, A2A, jobs and Foundry simulators behind a RunManager,
// each reached through its real connector, and helpers to find dialogs and rows.

#include "engine/runmanager.h"
#include "models/runlistmodel.h"
#include "net/httpclient.h"

#include "a2a/a2asim.h"
#include "foundry/foundrysim.h"
#include "jobs/jobssim.h"
#include "openai/openaisim.h"

#include <QApplication>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>
#include <QWidget>
#include <QtTest>

namespace RunwatchUiTest {

using namespace Qt::StringLiterals;

inline const QString kSim = u"sim"_s;         // OpenAI Responses: streams, never asks
inline const QString kA2a = u"a2a-agent"_s;   // A2A: asks questions (input-required)
inline const QString kJobs = u"jobs"_s;       // jobs: questions, approvals, options, webhooks, timers
inline const QString kFoundry = u"foundry"_s; // Foundry: tool outputs, MCP approvals, expiry, cancel

// Settings and data of the tests go to a throw-away test location, never the user's.
inline void isolateSettings()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(u"RunwatchTest"_s);
    // One settings file per test program: ctest -j runs GUI tests side by side, and a shared file
    // let one test's clear() undo another's saved window state (seen under ASan, tst_mainwindow).
    QCoreApplication::setApplicationName(u"runwatch-uitest-"_s
                                         + QFileInfo(QCoreApplication::applicationFilePath()).baseName());
    QSettings().clear();
}

struct Engine
{
    static RunwatchSim::JobsSimConfig jobsConfig()
    {
        RunwatchSim::JobsSimConfig c;
        c.intervalMs = 2;
        c.pollRetryAfter = "0.02";
        return c;
    }

    // Declared before the manager, which goes first: its streams end while the servers live.
    RunwatchSim::OpenAiSimulator sim;
    RunwatchSim::A2aSimulator a2a;
    RunwatchSim::JobsSimulator jobs{jobsConfig()};
    RunwatchSim::FoundrySimulator foundry;
    Runwatch::RunManager manager;

    Engine()
    {
        sim.setIntervalMs(2);
        a2a.setIntervalMs(2);
        QVERIFY(sim.listen());
        QVERIFY(a2a.listen());
        QVERIFY(jobs.listen());
        foundry.setIntervalMs(2);
        QVERIFY(foundry.listen());
        Runwatch::FollowPolicy policy;
        policy.reconnectInitial = std::chrono::milliseconds(5);
        policy.reconnectMax = std::chrono::milliseconds(50);
        policy.pollInitial = std::chrono::milliseconds(10);
        policy.pollMax = std::chrono::milliseconds(50);
        manager.setFollowPolicy(policy);
        add(kSim, u"openai"_s, sim.baseUrl(), u"runwatch-sim-1"_s);
        add(kA2a, u"a2a"_s, a2a.baseUrl());
        add(kJobs, u"jobs"_s, jobs.baseUrl());
        add(kFoundry, u"foundry"_s, foundry.baseUrl(), {}, QJsonObject{{u"agent"_s, u"asst_sim_weather"_s}});
    }

    ~Engine() { stopAll(&manager); }

    void add(const QString &name, const QString &backend, const QUrl &url, const QString &model = {},
             const QJsonObject &options = {})
    {
        Runwatch::Connection c;
        c.name = name;
        c.backend = backend;
        c.baseUrl = url;
        c.auth = Runwatch::AuthStyle::None;
        c.defaultModel = model;
        c.options = options;
        QVERIFY(manager.addConnection(c));
    }

    // The front ends' exit path, while the simulators are still alive: every stream and
    // request ends and its coroutine unwinds (RunManager::shutdown), so that none is left
    // suspended when the test process exits (LeakSanitizer reports such frames).
    static void stopAll(Runwatch::RunManager *manager)
    {
        manager->shutdown();
        QVERIFY(Runwatch::HttpClient::liveRequests() == 0);
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    }

    QString start(const QString &connection, const QString &prompt, bool stream = true)
    {
        Runwatch::StartRequest r;
        r.prompt = prompt;
        r.stream = stream;
        return manager.startRun(connection, r);
    }

    Runwatch::RunStatus status(const QString &id) const
    {
        const Runwatch::Run *run = manager.run(id);
        return run ? run->status : Runwatch::RunStatus::Unknown;
    }

    // The answers the jobs simulator received for a run of the jobs connection.
    QList<QJsonObject> jobAnswers(const QString &id) const
    {
        const Runwatch::Run *run = manager.run(id);
        const auto job = run ? jobs.job(run->remoteId) : std::nullopt;
        return job ? job->answers : QList<QJsonObject>{};
    }
};

// The newest visible top-level widget of type T (dialogs are opened non-modally with open()).
template<typename T>
T *findTopLevel(const QString &objectName = {})
{
    const QWidgetList widgets = QApplication::topLevelWidgets();
    for (auto it = widgets.crbegin(); it != widgets.crend(); ++it) {
        auto *w = qobject_cast<T *>(*it);
        if (w && w->isVisible() && (objectName.isEmpty() || w->objectName() == objectName))
            return w;
    }
    return nullptr;
}

} // namespace RunwatchUiTest
