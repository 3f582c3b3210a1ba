// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The main window over a loopback Engine (uitesthelpers.h) and what a Respond panel test needs to
// reach into it: shared by the panel tests of every backend, each a subclass whose init() and
// cleanup() slots call openWindow() and closeWindow().
#include "actioncontroller.h"
#include "detailpane.h"
#include "inputpanel.h"
#include "mainwindow.h"
#include "runtableview.h"
#include "uitesthelpers.h"

#include <QElapsedTimer>
#include <QMessageBox>
#include <QSettings>
#include <QStackedWidget>
#include <QTest>

#include <functional>
#include <memory>

namespace RunwatchUiTest {

class RespondPanelTest : public QObject
{
protected:
    static constexpr int kWait = 20000;

    std::unique_ptr<Engine> m_b;
    std::unique_ptr<Runwatch::MainWindow> m_window;

    void openWindow()
    {
        QSettings().clear();
        m_b = std::make_unique<Engine>();
        m_window = std::make_unique<Runwatch::MainWindow>(&m_b->manager);
        m_window->resize(1200, 800);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    void closeWindow()
    {
        if (QMessageBox *box = actions()->pendingConfirmation())
            box->reject();
        m_window.reset();
        m_b.reset();
    }

    const Runwatch::Run *run(const QString &id) const { return m_b->manager.run(id); }
    Runwatch::InputPanel *panel() const { return m_window->detailPane()->inputPanel(); }
    Runwatch::ActionController *actions() const { return m_window->actions(); }
    template<typename T>
    T *child(const QString &name) const
    {
        return panel()->findChild<T *>(name);
    }

    bool waitFor(const std::function<bool()> &done, int ms = kWait)
    {
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < ms) {
            if (done())
                return true;
            QTest::qWait(5);
        }
        return done();
    }

    bool waitStatus(const QString &id, Runwatch::RunStatus status)
    {
        return waitFor([&] { return run(id) && run(id)->status == status; });
    }

    // Selects the run and waits until the panel shows its request.
    void showPanelFor(const QString &id)
    {
        QTRY_VERIFY(m_window->activateRun(id));
        QTRY_COMPARE(m_window->table()->selectedRunIds(), QStringList{id});
        actions()->updateActions();
        QTRY_VERIFY(panel()->isVisible());
        QTRY_COMPARE(panel()->runId(), id);
    }

    // The object name of the panel's page in view ("textPage", "approvalPage", "toolCallsPage" …).
    QString visiblePage() const
    {
        auto *pages = panel()->findChild<QStackedWidget *>();
        return pages && pages->currentWidget() ? pages->currentWidget()->objectName() : QString();
    }

    // RUNWATCH_GRAB_DIR=dir saves the window as dir/<name>.png, to look at the panels by eye.
    void grabForReview(const QString &name) const
    {
        using namespace Qt::StringLiterals;
        const QString dir = qEnvironmentVariable("RUNWATCH_GRAB_DIR");
        // Pending relayouts first, as the next paint would have them.
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        if (!dir.isEmpty())
            m_window->grab().save(dir + u'/' + name + u".png"_s);
    }
};

} // namespace RunwatchUiTest
