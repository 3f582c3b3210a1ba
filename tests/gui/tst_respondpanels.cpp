// SPDX-License-Identifier: GPL-3.0-or-later
// The Respond panel of the main window against the jobs simulator and the A2A simulator on
// loopback: every suspension type of the jobs contract gets its own panel and posts the
// matching answer (text; approve / reject with a comment; a choice; a typed form from the job's
// JSON Schema; nothing for a webhook, whose
// URL is shown, and for a timer, which counts down), a two-step approval shows up as two
// suspensions in a row, an A2A run's question is answered from the GUI, deleting an A2A run is
// local only and the confirmation says so, and the "Needs me" filter lists the runs waiting for
// a person across backends.
#include "actioncontroller.h"
#include "detailpane.h"
#include "filterbar.h"
#include "inputpanel.h"
#include "mainwindow.h"
#include "models/runfilterproxy.h"
#include "respondpaneltest.h"
#include "runtableview.h"
#include "uitesthelpers.h"

#include <QAction>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QStackedWidget>
#include <QToolBar>
#include <QToolButton>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;
using RunwatchSim::JobsEndpoint;

class TestRespondPanels final : public RespondPanelTest
{
    Q_OBJECT

private:
    QWidget *button(QAction *action) const { return m_window->toolBar()->widgetForAction(action); }

    bool waitInput(const QString &id, const QString &promptStart = {})
    {
        return waitFor([&] {
            const Run *r = run(id);
            return r && r->status == RunStatus::InputRequired && r->input
                   && r->input->prompt.startsWith(promptStart);
        });
    }

    QList<QJsonObject> answers(const QString &id) const { return m_b->jobAnswers(id); }

private Q_SLOTS:
    void initTestCase() { isolateSettings(); }

    void init() { openWindow(); }
    void cleanup() { closeWindow(); }

    // ask_user: a text box; the answer goes out as {"text": …} and the job goes on.
    void jobsAskUserText()
    {
        const QString id = m_b->start(kJobs, u"ask_user deltas=4"_s);
        QVERIFY(waitInput(id));
        showPanelFor(id);
        QCOMPARE(visiblePage(), u"textPage"_s);
        QCOMPARE(child<QLabel>(u"inputPrompt"_s)->text(), u"Which region should the report cover?"_s);
        QVERIFY(button(actions()->respondAction())->isEnabled());
        auto *send = child<QPushButton>(u"inputSend"_s);
        QVERIFY(!send->isEnabled()); // nothing typed yet
        QTest::keyClicks(child<QPlainTextEdit>(u"inputAnswer"_s), u"EMEA"_s);
        QTest::mouseClick(send, Qt::LeftButton);
        QVERIFY(waitStatus(id, RunStatus::Completed));
        QCOMPARE(answers(id), (QList<QJsonObject>{{{u"text"_s, u"EMEA"_s}}}));
        QVERIFY(run(id)->primaryText.contains(u"[answer: EMEA]"_s));
        QTRY_VERIFY(!panel()->isVisible());
    }

    // get_approval: approve with a comment posts {"approved": true, "comment": …}.
    void jobsApprovalWithComment()
    {
        const QString id = m_b->start(kJobs, u"approval deltas=4"_s);
        QVERIFY(waitInput(id));
        showPanelFor(id);
        QCOMPARE(visiblePage(), u"approvalPage"_s);
        QVERIFY(child<QLabel>(u"inputPrompt"_s)->text().contains(u"approval needed"_s));
        QTest::keyClicks(child<QLineEdit>(u"inputComment"_s), u"within budget"_s);
        QTest::mouseClick(child<QPushButton>(u"inputApprove"_s), Qt::LeftButton);
        QVERIFY(waitStatus(id, RunStatus::Completed));
        QCOMPARE(answers(id),
                 (QList<QJsonObject>{{{u"approved"_s, true}, {u"comment"_s, u"within budget"_s}}}));
        QVERIFY(run(id)->primaryText.contains(u"approved: within budget]"_s));
    }

    // Two-step approval: the manager's and then the director's step are two suspensions in a
    // row; the panel shows the second with fresh controls, and each answer goes to its own step.
    void jobsTwoStepApproval()
    {
        const QString id = m_b->start(kJobs, u"two_step deltas=4"_s);
        QVERIFY(waitInput(id, u"Manager"_s));
        showPanelFor(id);
        QVERIFY(child<QLabel>(u"inputPrompt"_s)->text().startsWith(u"Manager"_s));
        QTest::keyClicks(child<QLineEdit>(u"inputComment"_s), u"ok from me"_s);
        QTest::mouseClick(child<QPushButton>(u"inputApprove"_s), Qt::LeftButton);

        QVERIFY(waitInput(id, u"Director"_s));
        QTRY_VERIFY(child<QLabel>(u"inputPrompt"_s)->text().startsWith(u"Director"_s));
        QVERIFY(panel()->isVisible());
        QCOMPARE(visiblePage(), u"approvalPage"_s);
        QVERIFY(!panel()->isBusy());
        QVERIFY(child<QLineEdit>(u"inputComment"_s)->text().isEmpty()); // the manager's comment is gone
        grabForReview(u"two-step"_s);
        QVERIFY(child<QPushButton>(u"inputReject"_s)->isEnabled());
        QTest::keyClicks(child<QLineEdit>(u"inputComment"_s), u"not this quarter"_s);
        QTest::mouseClick(child<QPushButton>(u"inputReject"_s), Qt::LeftButton);
        QVERIFY(waitFor([&] { return run(id)->isTerminal(); }));
        const QList<QJsonObject> posted = answers(id);
        QCOMPARE(posted.size(), 2);
        QCOMPARE(posted[0], (QJsonObject{{u"approved"_s, true}, {u"comment"_s, u"ok from me"_s}}));
        QCOMPARE(posted[1], (QJsonObject{{u"approved"_s, false}, {u"comment"_s, u"not this quarter"_s}}));
        QVERIFY(run(id)->primaryText.contains(u"[manager approved: ok from me]"_s));
        QVERIFY(run(id)->primaryText.contains(u"[director rejected: not this quarter]"_s));
    }

    // select_options: the option list; the choice goes out as {"choice": …}.
    void jobsChooseOption()
    {
        const QString id = m_b->start(kJobs, u"options deltas=4"_s);
        QVERIFY(waitInput(id));
        showPanelFor(id);
        QCOMPARE(visiblePage(), u"optionsPage"_s);
        auto *options = child<QListWidget>(u"inputOptions"_s);
        QCOMPARE(options->count(), 3);
        QCOMPARE(options->item(2)->text(), u"deep"_s);
        auto *choose = child<QPushButton>(u"inputChoose"_s);
        QVERIFY(!choose->isEnabled()); // nothing chosen yet
        options->setCurrentRow(2);
        QVERIFY(choose->isEnabled());
        QTest::mouseClick(choose, Qt::LeftButton);
        QVERIFY(waitStatus(id, RunStatus::Completed));
        QCOMPARE(answers(id), (QList<QJsonObject>{{{u"choice"_s, u"deep"_s}}}));
        QVERIFY(run(id)->primaryText.contains(u"[choice: deep]"_s));
    }

    // A typed form (the job's JSON Schema): a control per field with the defaults filled in and
    // the required ones marked; Send stays disabled with the reason shown while the answer does
    // not fit; filled by keyboard, the job receives exactly the typed JSON.
    void jobsTypedForm()
    {
        const QString id = m_b->start(kJobs, u"form deltas=4"_s);
        QVERIFY(waitInput(id));
        showPanelFor(id);
        QCOMPARE(visiblePage(), u"valuePage"_s);
        auto *send = child<QPushButton>(u"inputSendValue"_s);
        auto *problem = child<QLabel>(u"inputValueProblem"_s);
        auto *title = child<QLineEdit>(u"field_title"_s);
        auto *replicas = child<QSpinBox>(u"field_replicas"_s);
        auto *budget = child<QDoubleSpinBox>(u"field_budget"_s);
        auto *dryRun = child<QCheckBox>(u"field_dry_run"_s);
        auto *region = child<QComboBox>(u"field_region"_s);
        auto *notes = child<QPlainTextEdit>(u"field_notes"_s);
        QVERIFY(send && problem && title && replicas && budget && dryRun && region && notes);
        QCOMPARE(title->accessibleName(), u"Release title (required)"_s);
        QCOMPARE(notes->accessibleName(), u"Notes"_s);
        QCOMPARE(replicas->value(), 2); // the schema's defaults
        QCOMPARE(replicas->maximum(), 10);
        QVERIFY(dryRun->isChecked());
        QVERIFY(!send->isEnabled());
        QVERIFY(problem->isVisible());
        QCOMPARE(problem->text(), u"title: is required"_s);

        panel()->focusAnswer();
        QTRY_VERIFY(title->hasFocus());
        QTest::keyClicks(title, u"v2.1"_s);
        QCOMPARE(problem->text(), u"budget: is required"_s);
        QVERIFY(!send->isEnabled());
        replicas->setFocus();
        QTest::keyClick(replicas, Qt::Key_Up);
        budget->setFocus();
        QTest::keyClick(budget, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(budget, u"12.5"_s);
        QTest::keyClick(dryRun, Qt::Key_Space);
        QCOMPARE(problem->text(), u"region: is required"_s);
        region->setFocus();
        QTest::keyClick(region, Qt::Key_Down);
        QCOMPARE(region->currentText(), u"eu-west"_s);
        QTRY_VERIFY(send->isEnabled());
        QVERIFY(!problem->isVisible());
        // Emptying a required field disables Send again.
        title->clear();
        QVERIFY(!send->isEnabled());
        QTest::keyClicks(title, u"v2.1"_s);
        m_window->resize(1366, 768);
        grabForReview(u"typed-form"_s);
        QTest::mouseClick(send, Qt::LeftButton);
        QVERIFY(waitStatus(id, RunStatus::Completed));
        const QJsonObject expected{{u"title"_s, u"v2.1"_s},
                                   {u"replicas"_s, 3},
                                   {u"budget"_s, 12.5},
                                   {u"dry_run"_s, false},
                                   {u"region"_s, u"eu-west"_s}};
        QCOMPARE(answers(id), (QList<QJsonObject>{{{u"value"_s, expected}}}));
        QVERIFY(run(id)->primaryText.contains(u"[form: "_s));
    }

    // webhook: the callback URL and "waiting for the callback", nothing to send; the external
    // system calling that very URL lets the job go on.
    void jobsWebhookShowsUrlAndWaits()
    {
        const QString id = m_b->start(kJobs, u"webhook deltas=4"_s);
        QVERIFY(waitInput(id));
        showPanelFor(id);
        QCOMPARE(visiblePage(), u"webhookPage"_s);
        const QString expected
            = m_b->jobs.job(run(id)->remoteId)->inputRequest.value(u"webhook_url"_s).toString();
        QVERIFY(!expected.isEmpty());
        auto *url = child<QLineEdit>(u"inputCallbackUrl"_s);
        QCOMPARE(url->text(), expected);
        QVERIFY(url->isReadOnly());
        QVERIFY(child<QLabel>(u"inputInfo"_s)->isVisible());
        QVERIFY(child<QLabel>(u"inputInfo"_s)->text().contains(u"Waiting for the callback"_s));
        // Everything fits in the pane: nothing is cut off at its right edge.
        auto *copy = child<QPushButton>(u"inputCopyUrl"_s);
        QWidget *pane = m_window->detailPane();
        QVERIFY(copy->mapTo(pane, QPoint(copy->width(), 0)).x() <= pane->width());
        QVERIFY(panel()->mapTo(pane, QPoint(panel()->width(), 0)).x() <= pane->width());
        // Nothing for a person to answer: Respond is off and the run is not "needs me".
        QVERIFY(!button(actions()->respondAction())->isEnabled());
        QCOMPARE(m_window->runModel()->counts().value(StatusCategory::NeedsInput), 0);
        grabForReview(u"webhook"_s);
        QTest::mouseClick(child<QPushButton>(u"inputCopyUrl"_s), Qt::LeftButton);
        QCOMPARE(QGuiApplication::clipboard()->text(), expected);

        QNetworkAccessManager nam;
        QNetworkRequest request{QUrl(url->text())};
        request.setHeader(QNetworkRequest::ContentTypeHeader, u"application/json"_s);
        std::unique_ptr<QNetworkReply> reply(nam.post(request, QByteArray("{\"build\":\"green\"}")));
        QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), kWait);
        QCOMPARE(reply->error(), QNetworkReply::NoError);
        QVERIFY(waitStatus(id, RunStatus::Completed));
        QCOMPARE(m_b->jobs.requestCount(JobsEndpoint::Input), 0);
        QVERIFY(run(id)->primaryText.contains(u"[callback: {\"build\":\"green\"}]"_s));
        QTRY_VERIFY(!panel()->isVisible());
    }

    // timer: a countdown and the time it resumes; nothing is posted and the job goes on by itself.
    void jobsTimerCountsDown()
    {
        const QString id = m_b->start(kJobs, u"timer deltas=4 timer_ms=6000"_s);
        QVERIFY(waitInput(id));
        showPanelFor(id);
        QCOMPARE(visiblePage(), u"timerPage"_s);
        auto *countdown = panel()->findChild<QLabel *>(u"inputCountdown"_s);
        QTRY_VERIFY(countdown->text().endsWith(u" left"_s));
        const QString first = countdown->text();
        // Six seconds at most, and at least two left: the panel came up well before the deadline.
        QVERIFY2(QRegularExpression(u"^00:0[2-6] left$"_s).match(first).hasMatch(), qPrintable(first));
        grabForReview(u"timer"_s);
        QTRY_VERIFY_WITH_TIMEOUT(countdown->text() != first, 3000); // it ticks
        QVERIFY(child<QLabel>(u"inputInfo"_s)->isVisible());
        QVERIFY(child<QLabel>(u"inputInfo"_s)->text().contains(u"resumes by itself"_s));
        QWidget *pane = m_window->detailPane();
        QVERIFY(countdown->mapTo(pane, QPoint(countdown->width(), 0)).x() <= pane->width());
        QVERIFY(!button(actions()->respondAction())->isEnabled());
        QVERIFY(waitStatus(id, RunStatus::Completed));
        QCOMPARE(m_b->jobs.requestCount(JobsEndpoint::Input), 0);
        QVERIFY(run(id)->primaryText.contains(u"[timer elapsed]"_s));
    }

    // A2A input-required answered from the panel: the answer continues the same task.
    void a2aInputAnswered()
    {
        const QString id = m_b->start(kA2a, u"input"_s);
        QVERIFY(waitInput(id));
        showPanelFor(id);
        QCOMPARE(visiblePage(), u"textPage"_s);
        QCOMPARE(child<QLabel>(u"inputPrompt"_s)->text(), u"Which city?"_s);
        QVERIFY(button(actions()->respondAction())->isEnabled());
        QTest::keyClick(m_window.get(), Qt::Key_I, Qt::ControlModifier); // Respond
        auto *answer = child<QPlainTextEdit>(u"inputAnswer"_s);
        QTRY_VERIFY(answer->hasFocus());
        QTest::keyClicks(answer, u"Paris"_s);
        QTest::keyClick(answer, Qt::Key_Return, Qt::ControlModifier); // Ctrl+Enter sends
        QVERIFY(waitStatus(id, RunStatus::Completed));
        QCOMPARE(run(id)->primaryText, u"Weather in Paris: sunny."_s);
        QCOMPARE(m_b->a2a.tasksCreated(), 1);
        QTRY_VERIFY(!panel()->isVisible());
    }

    // A2A has no delete: the confirmation says the run goes from this computer only and offers
    // no "on the server" box; the agent still knows the task afterwards.
    void a2aDeleteIsLocalOnly()
    {
        const QString id = m_b->start(kA2a, u"normal chunks=3"_s);
        QVERIFY(waitStatus(id, RunStatus::Completed));
        const QString task = run(id)->remoteId;
        QVERIFY(!task.isEmpty());
        QTRY_VERIFY(m_window->activateRun(id));
        actions()->updateActions();
        QVERIFY(button(actions()->deleteAction())->isEnabled());
        actions()->deleteAction()->trigger();
        QMessageBox *box = nullptr;
        QTRY_VERIFY((box = actions()->pendingConfirmation()));
        QCOMPARE(box->objectName(), u"confirmDelete"_s);
        QVERIFY(!box->checkBox());
        QVERIFY2(box->informativeText().contains(u"cannot delete runs on the server"_s),
                 qPrintable(box->informativeText()));
        QVERIFY(box->informativeText().contains(u"this computer only"_s));
        QTest::mouseClick(box->findChild<QPushButton *>(u"confirmButton"_s), Qt::LeftButton);
        QTRY_COMPARE(m_window->runModel()->rowOf(id), -1);
        QVERIFY(!run(id));
        QVERIFY(m_b->a2a.task(task).has_value());
    }

    // "Needs me" lists every run that waits for a person, whatever its backend; runs that wait
    // for a timer or a callback are Active, not "needs me".
    void needsMeAcrossBackends()
    {
        const QStringList people{
            m_b->start(kJobs, u"ask_user deltas=2"_s),
            m_b->start(kJobs, u"approval deltas=2"_s),
            m_b->start(kA2a, u"input"_s),
            m_b->start(kA2a, u"auth"_s),
            m_b->start(kJobs, u"options deltas=2"_s),
        };
        const QStringList machines{
            m_b->start(kJobs, u"timer deltas=2 timer_ms=60000"_s),
            m_b->start(kJobs, u"webhook deltas=2"_s),
        };
        const QString done = m_b->start(kA2a, u"normal chunks=2"_s);
        for (const QString &id : people + machines)
            QVERIFY2(waitInput(id), qPrintable(id));
        QVERIFY(waitStatus(done, RunStatus::Completed));

        FilterBar *bar = m_window->filterBar();
        QTRY_VERIFY(bar->chip(StatusCategory::NeedsInput)->text().endsWith(u" 5"_s));
        QVERIFY(bar->chip(StatusCategory::NeedsInput)->text().startsWith(u"Needs me"_s));
        QTest::keyClick(m_window.get(), Qt::Key_2, Qt::AltModifier);
        QTRY_COMPARE(m_window->proxy()->rowCount(), people.size());
        QStringList listed;
        for (int row = 0; row < m_window->proxy()->rowCount(); ++row)
            listed << m_window->proxy()->runId(row);
        listed.sort();
        QStringList expected = people;
        expected.sort();
        QCOMPARE(listed, expected);

        // The timer and the webhook are under Active, where the model says they are waiting.
        bar->setCategory(StatusCategory::Active);
        QTRY_COMPARE(m_window->proxy()->rowCount(), machines.size());

        // Answering one takes it off the list.
        m_window->filterBar()->setCategory(StatusCategory::NeedsInput);
        InputAnswer answer;
        answer.text = u"Oslo"_s;
        m_b->manager.respondToRun(people[2], answer);
        QVERIFY(waitStatus(people[2], RunStatus::Completed));
        QTRY_COMPARE(m_window->proxy()->rowCount(), people.size() - 1);
        for (const QString &id : machines)
            m_b->manager.cancelRun(id);
    }
};

QTEST_MAIN(TestRespondPanels)
#include "tst_respondpanels.moc"
