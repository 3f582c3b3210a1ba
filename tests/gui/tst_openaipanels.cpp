// SPDX-License-Identifier: GPL-3.0-or-later
// The main window on an OpenAI connection, against runwatch-sim's OpenAI simulator on loopback
// through the real connector (issue 16): a background response that stops on two function calls
// shows the same Respond panel as Foundry's tool outputs (one row per call with its name and
// arguments), Send waits for both outputs, one request (previous_response_id) carries both, and the
// same run goes on to completion with the simulator's text. And New Run on a Foundry project's
// endpoint: the project's agents, a run on the one picked, or on a plain model; a Foundry agent's
// function call counting down its 10-minute window, and expiring.
#include "actioncontroller.h"
#include "detailpane.h"
#include "inputpanel.h"
#include "mainwindow.h"
#include "newrundialog.h"
#include "respondpaneltest.h"
#include "runtableview.h"
#include "uitesthelpers.h"

#include <QComboBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScreen>
#include <QStackedWidget>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;
using RunwatchSim::OpenAiEndpoint;
using RunwatchSim::OpenAiSimulator;

class TestOpenAiPanels final : public RespondPanelTest
{
    Q_OBJECT

private:
    QList<QJsonObject> creates() const
    {
        QList<QJsonObject> bodies;
        for (const auto &r : m_b->sim.requests()) {
            if (r.endpoint == OpenAiEndpoint::Create)
                bodies << QJsonDocument::fromJson(r.body).object();
        }
        return bodies;
    }

private Q_SLOTS:
    void initTestCase() { isolateSettings(); }

    void init() { openWindow(); }
    void cleanup() { closeWindow(); }

    void toolOutputsTwoCalls()
    {
        const QString id = m_b->start(kSim, u"tool_call calls=2 deltas=3"_s);
        QVERIFY(waitFor([&] {
            const Run *r = run(id);
            return r && r->status == RunStatus::InputRequired && r->input && r->input->toolCalls.size() == 2;
        }));
        showPanelFor(id);
        QCOMPARE(visiblePage(), u"toolCallsPage"_s);
        const QList<ToolCallRequest> calls = run(id)->input->toolCalls;
        QCOMPARE(child<QLabel>(u"toolName_0"_s)->text(), u"get_weather"_s);
        QCOMPARE(child<QLabel>(u"toolName_1"_s)->text(), u"get_time"_s);
        QCOMPARE(child<QPlainTextEdit>(u"toolArguments_0"_s)->toPlainText(), calls.at(0).arguments);
        auto *first = child<QPlainTextEdit>(u"toolOutput_0"_s);
        auto *second = child<QPlainTextEdit>(u"toolOutput_1"_s);
        auto *send = child<QPushButton>(u"inputSendAll"_s);
        QVERIFY(first && second && send);
        QVERIFY(!send->isEnabled());
        QTest::keyClicks(first, u"12C, light rain"_s);
        QVERIFY(!send->isEnabled()); // one call still unanswered
        QTest::keyClicks(second, u"14:05"_s);
        QTRY_VERIFY(send->isEnabled());
        const QString firstResponse = run(id)->remoteId;
        QCOMPARE(creates().size(), 1);
        QTest::mouseClick(send, Qt::LeftButton);
        QVERIFY(waitStatus(id, RunStatus::Completed));
        // One request with both outputs, continuing the first response; the same local run.
        const QList<QJsonObject> bodies = creates();
        QCOMPARE(bodies.size(), 2);
        QCOMPARE(bodies.last().value(u"previous_response_id"_s).toString(), firstResponse);
        const QJsonArray input = bodies.last().value(u"input"_s).toArray();
        QCOMPARE(input.size(), 2);
        QCOMPARE(input.at(0).toObject().value(u"type"_s).toString(), u"function_call_output"_s);
        QCOMPARE(input.at(1).toObject().value(u"call_id"_s).toString(), calls.at(1).id);
        const QString expected = u"[%1: 12C, light rain] [%2: 14:05] "_s.arg(calls.at(0).id, calls.at(1).id)
                                 + OpenAiSimulator::tokenText(3);
        QCOMPARE(m_b->sim.response(m_b->sim.lastResponseId())->text, expected);
        QTRY_COMPARE(run(id)->primaryText, expected);
        QTRY_VERIFY(!panel()->isVisible());
    }

    // An OpenAI connection on a Foundry project's /openai/v1 endpoint: New Run lists the project's
    // agents with their version and model, and the run starts on the one picked as an agent_reference in a
    // conversation of its own, without a model.
    void newRunOnAFoundryAgent()
    {
        const QString foundry = u"Foundry project"_s;
        m_b->add(foundry, u"openai"_s, m_b->sim.foundryBaseUrl());
        NewRunDialog dialog(&m_b->manager);
        QComboBox *agents = dialog.agentBox();
        dialog.setConnection(foundry);
        QVERIFY(agents->isVisibleTo(&dialog));
        QTRY_COMPARE(agents->count(), 3); // "No agent (model …)" and the two agents
        QVERIFY(agents->findText(u"researcher (v3) · runwatch-sim-1"_s) >= 0);
        agents->setCurrentIndex(agents->findText(u"writer"_s, Qt::MatchStartsWith));
        dialog.promptEdit()->setPlainText(u"normal deltas=4"_s);
        if (const QString dir = qEnvironmentVariable("RUNWATCH_GRAB_DIR"); !dir.isEmpty()) {
            dialog.show();
            QVERIFY(QTest::qWaitForWindowExposed(&dialog));
            dialog.grab().save(dir + u"/foundry-agent-picker.png"_s);
        }
        const StartRequest request = dialog.request();
        QCOMPARE(request.agent, u"writer"_s);
        const QString id = m_b->manager.startRun(dialog.connection(), request);
        QVERIFY(waitFor([&] {
            const Run *r = run(id);
            return r && r->status == RunStatus::Completed;
        }));
        QCOMPARE(run(id)->primaryText, OpenAiSimulator::tokenText(4));
        const QJsonObject body = creates().constLast();
        QCOMPARE(body.value(u"agent_reference"_s).toObject().value(u"name"_s).toString(), u"writer"_s);
        QVERIFY(body.value(u"conversation"_s).toString().startsWith(u"conv_"_s));
        QVERIFY(!body.contains(u"model"_s));
    }

    // A Foundry agent's function call is answered within the service's 10-minute window: the
    // tool-output form counts down to its end (the simulator's clock set back nine minutes: about
    // a minute left), live.
    void foundryToolCallCountsDown()
    {
        const QString foundry = u"Foundry project"_s;
        m_b->add(foundry, u"openai"_s, m_b->sim.foundryBaseUrl());
        StartRequest request;
        request.agent = u"researcher"_s;
        request.prompt = u"tool_call deltas=2 clock_skew_s=-540"_s;
        const QString id = m_b->manager.startRun(foundry, request);
        QVERIFY(waitFor([&] {
            const Run *r = run(id);
            return r && r->status == RunStatus::InputRequired && r->input && r->input->deadline.isValid();
        }));
        const qint64 left = QDateTime::currentDateTimeUtc().msecsTo(run(id)->input->deadline);
        QVERIFY2(left > 30000 && left <= 61000, qPrintable(QString::number(left)));
        m_window->resize(1366, 768);
        showPanelFor(id);
        QCOMPARE(visiblePage(), u"toolCallsPage"_s);
        auto *countdown = child<QLabel>(u"inputCountdown"_s);
        QVERIFY(countdown);
        QTRY_VERIFY(countdown->text().endsWith(u" left"_s));
        const QString first = countdown->text();
        QTRY_VERIFY_WITH_TIMEOUT(countdown->text() != first, 3000);
        QVERIFY(countdown->text().endsWith(u" left"_s));
        grabForReview(u"foundry-tool-countdown"_s);
    }

    // Past the window, unanswered (two seconds left when it arrives): the engine reads the
    // response again at the deadline, and the run ends expired with the reason.
    void foundryToolCallExpires()
    {
        const QString foundry = u"Foundry project"_s;
        m_b->add(foundry, u"openai"_s, m_b->sim.foundryBaseUrl());
        StartRequest request;
        request.agent = u"researcher"_s;
        request.prompt = u"tool_call deltas=2 clock_skew_s=-598"_s;
        const QString id = m_b->manager.startRun(foundry, request);
        QVERIFY(waitStatus(id, RunStatus::Expired));
        QVERIFY(run(id)->isTerminal());
        QCOMPARE(run(id)->error.code, u"expired"_s);
        QVERIFY(run(id)->error.message.contains(u"10-minute"_s));
    }

    // On a project endpoint a run may also go to a plain model: the picker offers "No agent
    // (model M)" first (an agent stays the default), and such a run names the model, not an agent.
    void newRunWithoutAnAgent()
    {
        const QString foundry = u"Foundry project"_s;
        m_b->add(foundry, u"openai"_s, m_b->sim.foundryBaseUrl(), u"runwatch-sim-1"_s);
        NewRunDialog dialog(&m_b->manager);
        QComboBox *agents = dialog.agentBox();
        dialog.setConnection(foundry);
        QTRY_COMPARE(agents->count(), 3);
        QCOMPARE(agents->itemText(0), u"No agent (model runwatch-sim-1)"_s);
        QVERIFY(!agents->currentData().toString().isEmpty()); // an agent by default
        agents->setCurrentIndex(0);
        dialog.promptEdit()->setPlainText(u"normal deltas=3"_s);
        auto *start = dialog.findChild<QPushButton *>(u"newRunStart"_s);
        QVERIFY(start && start->isEnabled());
        if (const QString dir = qEnvironmentVariable("RUNWATCH_GRAB_DIR"); !dir.isEmpty()) {
            dialog.show();
            QVERIFY(QTest::qWaitForWindowExposed(&dialog));
            agents->showPopup();
            QTest::qWait(200);
            m_window->screen()
                ->grabWindow(0)
                .copy(dialog.frameGeometry().adjusted(0, 0, 0, 120))
                .save(dir + u"/foundry-no-agent-picker.png"_s);
            agents->hidePopup();
        }
        const StartRequest request = dialog.request();
        QVERIFY(request.agent.isEmpty());
        QCOMPARE(request.model, u"runwatch-sim-1"_s);
        const QString id = m_b->manager.startRun(dialog.connection(), request);
        QVERIFY(waitStatus(id, RunStatus::Completed));
        QCOMPARE(run(id)->primaryText, OpenAiSimulator::tokenText(3));
        const QJsonObject body = creates().constLast();
        QCOMPARE(body.value(u"model"_s).toString(), u"runwatch-sim-1"_s);
        QVERIFY(!body.contains(u"agent_reference"_s));
        QVERIFY(!body.contains(u"conversation"_s));
        // A plain OpenAI base lists no agents: no picker.
        dialog.setConnection(kSim);
        QVERIFY(!agents->isVisibleTo(&dialog));
    }
};

QTEST_MAIN(TestOpenAiPanels)
#include "tst_openaipanels.moc"
