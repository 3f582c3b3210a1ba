// SPDX-License-Identifier: GPL-3.0-or-later
// The main window on a Gemini connection, against runwatch-sim's Interactions API simulator on
// loopback through the real connector: New Run offers the service's models and agents through the
// one catalog (no connector named in ui/), a run on the Deep Research agent picked there, one on a
// model picked there; and an interaction that stops on two function calls shows the Respond
// panel's tool-call rows, whose answers go out in the next interaction of the same run.
#include "gemini/geminisim.h"
#include "newrundialog.h"
#include "respondpaneltest.h"

#include <QComboBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;
using RunwatchSim::GeminiEndpoint;
using RunwatchSim::GeminiSimulator;

namespace {
const QString kGemini = u"Gemini"_s;
const QString kAgent = u"deep-research-pro-preview-12-2025"_s;
} // namespace

class TestGeminiPanels final : public RespondPanelTest
{
    Q_OBJECT

    // Made before the window's engine and destroyed after it: the engine shuts down against a
    // simulator that is still there.
    std::unique_ptr<GeminiSimulator> m_gemini;

    QList<QJsonObject> creates() const
    {
        QList<QJsonObject> bodies;
        for (const auto &r : m_gemini->requests()) {
            if (r.endpoint == GeminiEndpoint::Create)
                bodies << QJsonDocument::fromJson(r.body).object();
        }
        return bodies;
    }
    QString textOf(const QString &interactionId) const
    {
        QStringList texts = m_gemini->interaction(interactionId)->outputTexts;
        texts.removeAll(QString());
        return texts.join(u"\n\n"_s);
    }

private Q_SLOTS:
    void initTestCase() { isolateSettings(); }

    void init()
    {
        RunwatchSim::GeminiSimConfig config;
        config.intervalMs = 2;
        m_gemini = std::make_unique<GeminiSimulator>(config);
        QVERIFY(m_gemini->listen());
        openWindow();
        m_b->add(kGemini, u"gemini"_s, m_gemini->baseUrl());
    }
    void cleanup()
    {
        closeWindow();
        m_gemini.reset();
    }

    // New Run lists the models (the default first: what a run starts on unless one is picked)
    // and the agents; the run on the agent picked goes out as `agent` with its agent_config.
    void newRunOnTheDeepResearchAgent()
    {
        NewRunDialog dialog(&m_b->manager);
        QComboBox *agents = dialog.agentBox();
        dialog.setConnection(kGemini);
        QVERIFY(agents->isVisibleTo(&dialog));
        QTRY_VERIFY(agents->findData(kAgent) >= 0);
        QCOMPARE(agents->itemData(0).toString(), u"models/gemini-3-flash-preview"_s);
        QVERIFY(agents->findData(u"models/gemini-3-pro-preview"_s) >= 0);
        // The list is where the model is picked too: no Model field beside it.
        QVERIFY(!dialog.modelBox()->isVisibleTo(&dialog));
        agents->setCurrentIndex(agents->findData(kAgent));
        dialog.promptEdit()->setPlainText(u"research deltas=6"_s);
        if (const QString dir = qEnvironmentVariable("RUNWATCH_GRAB_DIR"); !dir.isEmpty()) {
            dialog.show();
            QVERIFY(QTest::qWaitForWindowExposed(&dialog));
            dialog.grab().save(dir + u"/gemini-new-run.png"_s);
            agents->showPopup();
            QTRY_VERIFY(QApplication::activePopupWidget());
            QApplication::activePopupWidget()->grab().save(dir + u"/gemini-new-run-picker.png"_s);
            agents->hidePopup();
        }
        const StartRequest request = dialog.request();
        QCOMPARE(request.agent, kAgent);
        QVERIFY(request.model.isEmpty());
        const QString id = m_b->manager.startRun(dialog.connection(), request);
        QVERIFY(waitStatus(id, RunStatus::Completed));
        QCOMPARE(run(id)->primaryText, textOf(run(id)->remoteId));
        const QJsonObject body = creates().constLast();
        QCOMPARE(body.value(u"agent"_s).toString(), kAgent);
        QVERIFY(!body.contains(u"model"_s));
        QCOMPARE(body.value(u"agent_config"_s).toObject().value(u"type"_s).toString(), u"deep-research"_s);
    }

    void newRunOnAModelFromTheList()
    {
        NewRunDialog dialog(&m_b->manager);
        QComboBox *agents = dialog.agentBox();
        dialog.setConnection(kGemini);
        QTRY_VERIFY(agents->findData(u"models/gemini-3-pro-preview"_s) >= 0);
        agents->setCurrentIndex(agents->findData(u"models/gemini-3-pro-preview"_s));
        dialog.promptEdit()->setPlainText(u"normal deltas=4"_s);
        const QString id = m_b->manager.startRun(dialog.connection(), dialog.request());
        QVERIFY(waitStatus(id, RunStatus::Completed));
        QCOMPARE(creates().constLast().value(u"model"_s).toString(), u"gemini-3-pro-preview"_s);
        QCOMPARE(run(id)->primaryText, textOf(run(id)->remoteId));
    }

    void toolCallsAnsweredInThePanel()
    {
        const QString id = m_b->start(kGemini, u"tool_call calls=2 deltas=3"_s);
        QVERIFY(waitFor([&] {
            const Run *r = run(id);
            return r && r->status == RunStatus::InputRequired && r->input && r->input->toolCalls.size() == 2;
        }));
        showPanelFor(id);
        QCOMPARE(visiblePage(), u"toolCallsPage"_s);
        const QList<ToolCallRequest> calls = run(id)->input->toolCalls;
        QCOMPARE(child<QLabel>(u"toolName_0"_s)->text(), calls.at(0).name);
        QCOMPARE(child<QPlainTextEdit>(u"toolArguments_1"_s)->toPlainText(), calls.at(1).arguments);
        QTest::keyClicks(child<QPlainTextEdit>(u"toolOutput_0"_s), u"18 C"_s);
        QTest::keyClicks(child<QPlainTextEdit>(u"toolOutput_1"_s), u"14:05"_s);
        auto *send = child<QPushButton>(u"inputSendAll"_s);
        QTRY_VERIFY(send->isEnabled());
        grabForReview(u"gemini-tool-calls"_s);
        const QString first = run(id)->remoteId;
        QTest::mouseClick(send, Qt::LeftButton);
        QVERIFY(waitStatus(id, RunStatus::Completed));
        QCOMPARE(creates().size(), 2);
        QCOMPARE(creates().constLast().value(u"previous_interaction_id"_s).toString(), first);
        QCOMPARE(creates().constLast().value(u"input"_s).toArray().size(), 2);
        QTRY_COMPARE(run(id)->primaryText, textOf(run(id)->remoteId));
        QVERIFY(run(id)->primaryText.startsWith(
            u"[%1: 18 C] [%2: 14:05] "_s.arg(calls.at(0).id, calls.at(1).id)));
    }
};

QTEST_MAIN(TestGeminiPanels)
#include "tst_geminipanels.moc"
