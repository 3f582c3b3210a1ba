// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the GUI tests of the managed agent session connectors (issue 29) share: the main window on
// one connection to a vendor's simulator (made before the window's engine, destroyed after it),
// and the steps that are the same for every vendor: New Run offers the account's agents through
// the one catalog and starts a session on the agent picked; a session another client held three
// turns in, attached by its id, shows all its turns as one conversation. Each connector's test
// states what differs in its Traits and adds its own panels:
//
//   Sim, Config, Info          the simulator, its configuration and a session's description
//   kBackend, kConnection      the connector's name, the connection's
//   kAgent, kOtherAgent        two agents of the simulated account
//   kShotPrefix                the name grabForReview() gives this connector's pictures
//   turnOver(info)             the session's last turn is over
#include "conversationview.h"
#include "newrundialog.h"
#include "respondpaneltest.h"

#include <QComboBox>
#include <QPlainTextEdit>
#include <QTabWidget>

#include <memory>

namespace RunwatchUiTest {

template<typename Traits>
class AgentSessionsPanelTest : public RespondPanelTest
{
protected:
    using Sim = typename Traits::Sim;

    std::unique_ptr<Sim> m_sim;

    static QString connectionName() { return QString::fromLatin1(Traits::kConnection); }
    static QString agent() { return QString::fromLatin1(Traits::kAgent); }

    void openOnSimulator()
    {
        typename Traits::Config config;
        config.intervalMs = 2;
        m_sim = std::make_unique<Sim>(config);
        QVERIFY(m_sim->listen());
        openWindow();
        m_b->add(connectionName(), QString::fromLatin1(Traits::kBackend), m_sim->baseUrl());
    }
    void closeAll()
    {
        closeWindow();
        m_sim.reset();
    }

    QString startOnAgent(const QString &prompt)
    {
        Runwatch::StartRequest r;
        r.agent = agent();
        r.prompt = prompt;
        return m_b->manager.startRun(connectionName(), r);
    }
    bool waitInput(const QString &id)
    {
        return waitFor([&] {
            const Runwatch::Run *r = run(id);
            return r && r->status == Runwatch::RunStatus::InputRequired && r->input;
        });
    }
    // The session's last turn is over, and the session took `turns` messages so far.
    bool waitTurnsOver(const QString &session, int turns)
    {
        return waitFor([&] {
            const auto info = m_sim->session(session);
            return info && info->turns.size() == turns && Traits::turnOver(*info);
        });
    }

    // --- the steps every connector has -------------------------------------------------------

    void newRunOnAnAgentOfTheAccount()
    {
        using namespace Runwatch;
        NewRunDialog dialog(&m_b->manager);
        QComboBox *agents = dialog.agentBox();
        dialog.setConnection(connectionName());
        QVERIFY(agents->isVisibleTo(&dialog));
        QTRY_VERIFY(agents->findData(agent()) >= 0);
        QVERIFY(agents->findData(QString::fromLatin1(Traits::kOtherAgent)) >= 0);
        agents->setCurrentIndex(agents->findData(agent()));
        dialog.promptEdit()->setPlainText(QStringLiteral("normal deltas=5"));
        const StartRequest request = dialog.request();
        QCOMPARE(request.agent, agent());
        const QString id = m_b->manager.startRun(dialog.connection(), request);
        QVERIFY(waitStatus(id, RunStatus::Completed));
        QCOMPARE(run(id)->remoteId, m_sim->lastSessionId());
        QCOMPARE(m_sim->session(run(id)->remoteId)->agentId, agent());
        QCOMPARE(run(id)->primaryText, m_sim->turnText(run(id)->remoteId));
    }

    // A session another client held three turns in, attached by its id (Browse › attach): the
    // detail pane's conversation shows every turn, each with its message and its answer as the
    // service saved them, the attached (last) one marked as the run shown.
    void attachedSessionShowsItsTurns()
    {
        using namespace Runwatch;
        const QStringList prompts{QStringLiteral("normal deltas=4 plan the trip"),
                                  QStringLiteral("normal deltas=3 cheaper"),
                                  QStringLiteral("normal deltas=5 book it")};
        const QString session = m_sim->startSessionElsewhere(agent(), prompts.at(0));
        QVERIFY(waitTurnsOver(session, 1));
        QVERIFY(m_sim->sendElsewhere(session, prompts.at(1)));
        QVERIFY(waitTurnsOver(session, 2));
        QVERIFY(m_sim->sendElsewhere(session, prompts.at(2)));
        QVERIFY(waitTurnsOver(session, 3));
        const QString id = m_b->manager.attachRemoteRun(connectionName(), session);
        QVERIFY(!id.isEmpty());
        QVERIFY(waitStatus(id, RunStatus::Completed));
        QTRY_COMPARE(m_b->manager.runIds().size(), 3);
        QCOMPARE(run(id)->primaryText, m_sim->turnText(session, 2));
        QTRY_VERIFY(m_window->activateRun(id));
        ConversationView *view = m_window->detailPane()->conversationView();
        QTRY_COMPARE(view->turnCount(), 3);
        QCOMPARE(view->messages(), prompts);
        const QString text = view->toPlainText();
        qsizetype at = 0;
        for (int i = 0; i < 3; ++i) {
            at = text.indexOf(prompts.at(i), at);
            QVERIFY2(at >= 0, qPrintable(text));
            at = text.indexOf(m_sim->turnText(session, i), at);
            QVERIFY2(at >= 0, qPrintable(text));
        }
        QVERIFY2(text.contains(QStringLiteral("Turn 3 · Completed · this run")), qPrintable(text));
        // On a small laptop's screen, the Conversation tab in front, for the eye.
        m_window->resize(1366, 768);
        QTabWidget *tabs = nullptr;
        for (QWidget *w = view->parentWidget(); w && !tabs; w = w->parentWidget())
            tabs = qobject_cast<QTabWidget *>(w);
        QVERIFY(tabs);
        tabs->setCurrentWidget(view);
        grabForReview(QString::fromLatin1(Traits::kShotPrefix) + QStringLiteral("-attached-conversation"));
    }
};

} // namespace RunwatchUiTest
