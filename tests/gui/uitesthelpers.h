// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Shared set-up for the widget tests: the OpenAI simulator and the demo agent behind a
// RunManager, and helpers to find dialogs and rows.

#include "demoagentbackend.h"
#include "engine/runmanager.h"
#include "models/runlistmodel.h"
#include "net/httpclient.h"
#include "openai/openaisim.h"

#include <QApplication>
#include <QSettings>
#include <QStandardPaths>
#include <QWidget>
#include <QtTest>

namespace RunwatchUiTest {

using namespace Qt::StringLiterals;

inline const QString kSim = u"sim"_s;
inline const QString kAgent = u"agent"_s;

// Settings and data of the tests go to a throw-away test location, never the user's.
inline void isolateSettings()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(u"RunwatchTest"_s);
    QCoreApplication::setApplicationName(u"runwatch-uitest"_s);
    QSettings().clear();
}

struct Engine
{
    RunwatchSim::OpenAiSimulator sim;
    Runwatch::RunManager manager;

    Engine()
    {
        sim.setIntervalMs(2);
        QVERIFY(sim.listen());
        Runwatch::FollowPolicy policy;
        policy.reconnectInitial = std::chrono::milliseconds(5);
        policy.reconnectMax = std::chrono::milliseconds(50);
        policy.pollInitial = std::chrono::milliseconds(10);
        policy.pollMax = std::chrono::milliseconds(50);
        manager.setFollowPolicy(policy);
        manager.setBackendFactory(&Runwatch::createBackendWithDemo);
        Runwatch::Connection c;
        c.name = kSim;
        c.backend = u"openai"_s;
        c.baseUrl = sim.baseUrl();
        c.auth = Runwatch::AuthStyle::None;
        c.defaultModel = u"runwatch-sim-1"_s;
        QVERIFY(manager.addConnection(c));
        Runwatch::Connection a;
        a.name = kAgent;
        a.backend = QString::fromLatin1(Runwatch::DemoAgentBackend::kKind);
        a.baseUrl = QUrl(u"demo-agent:local"_s);
        a.auth = Runwatch::AuthStyle::None;
        QVERIFY(manager.addConnection(a));
        agent()->setStepIntervalMs(3);
    }

    ~Engine() { stopAll(&manager); }

    // The front ends' exit path, while the simulators are still alive: every stream and
    // request ends and its coroutine unwinds (RunManager::shutdown), so that none is left
    // suspended when the test process exits (LeakSanitizer reports such frames).
    static void stopAll(Runwatch::RunManager *manager)
    {
        manager->shutdown();
        QVERIFY(Runwatch::HttpClient::liveRequests() == 0);
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    }

    Runwatch::DemoAgentBackend *agent() const
    {
        return qobject_cast<Runwatch::DemoAgentBackend *>(manager.backend(kAgent));
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
