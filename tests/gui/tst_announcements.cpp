// SPDX-License-Identifier: GPL-3.0-or-later
// Screen-reader announcements read back over AT-SPI, as Orca would get them: the test registers
// for object:property-change:accessible-name with the AT-SPI registry on the real a11y bus
// (run-with-atspi.sh), then reads the Name of the object that changed from the window's own
// accessibility bridge. A run that starts to need a person is announced wherever it is; a status
// change is announced for the selected run only.
#include "announcer.h"
#include "detailpane.h"
#include "i18n/translations.h"
#include "mainwindow.h"
#include "outputview.h"
#include "runtableview.h"
#include "uitesthelpers.h"

#include <QAccessible>
#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <QDBusVariant>
#include <QtTest>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace Qt::StringLiterals;

class TestAnnouncements final : public QObject
{
    Q_OBJECT

private:
    struct Inserted
    {
        QString path;
        int offset = 0;
        QString text;
    };
    std::optional<QDBusConnection> m_a11y;
    QList<Inserted> m_inserted;
    QString m_textService;
    QStringList m_heard; // names read from the objects whose accessible name changed

private Q_SLOTS:
    // Every accessible-name change on the a11y bus: ask its sender for the new name
    // (asynchronously: the sender is this very process, which must keep serving the call).
    void onPropertyChange(const QDBusMessage &message)
    {
        if (message.arguments().value(0).toString() != u"accessible-name")
            return;
        QDBusMessage get = QDBusMessage::createMethodCall(message.service(), message.path(),
                                                          u"org.freedesktop.DBus.Properties"_s, u"Get"_s);
        get << u"org.a11y.atspi.Accessible"_s << u"Name"_s;
        auto *watcher = new QDBusPendingCallWatcher(m_a11y->asyncCall(get), this);
        connect(watcher, &QDBusPendingCallWatcher::finished, this, [this](QDBusPendingCallWatcher *w) {
            w->deleteLater();
            const QDBusPendingReply<QDBusVariant> reply = *w;
            if (!reply.isError())
                m_heard << reply.value().variant().toString();
        });
    }

    // Tells the AT-SPI registry that this screen reader listens to `event`.
    bool listenTo(const QString &event)
    {
        QDBusMessage reg
            = QDBusMessage::createMethodCall(u"org.a11y.atspi.Registry"_s, u"/org/a11y/atspi/registry"_s,
                                             u"org.a11y.atspi.Registry"_s, u"RegisterEvent"_s);
        reg << event << QStringList() << QString();
        const QDBusMessage registered = m_a11y->call(reg);
        if (registered.type() != QDBusMessage::ReplyMessage)
            qWarning() << event << registered.errorMessage();
        return registered.type() == QDBusMessage::ReplyMessage;
    }

    // The window shown, and Qt's AT-SPI bridge up.
    static bool showWithBridge(MainWindow &window)
    {
        window.resize(1200, 700);
        window.show();
        if (!QTest::qWaitForWindowExposed(&window))
            return false;
        return QTest::qWaitFor([] { return QAccessible::isActive(); }, 10000);
    }

    // Text inserted into an object, as AT-SPI reports it: (object path, offset, text).
    void onTextChanged(const QDBusMessage &message)
    {
        if (message.arguments().value(0).toString() != u"insert")
            return;
        m_textService = message.service();
        m_inserted.append({message.path(), message.arguments().value(1).toInt(),
                           message.arguments().value(3).value<QDBusVariant>().variant().toString()});
    }

    void initTestCase()
    {
        const QByteArray atspi = qgetenv("RUNWATCH_ATSPI");
        if (atspi.startsWith("missing:")) {
            QFAIL(qPrintable(u"%1 is not installed: the AT-SPI test needs dbus, xvfb and at-spi2-core"_s.arg(
                QString::fromLocal8Bit(atspi.mid(8)))));
        }
        if (atspi != "1")
            QFAIL("Run through tests/gui/run-with-atspi.sh (ctest does) to get the AT-SPI bus.");
        isolateSettings();
        QCOMPARE(installTranslations(QLocale(QLocale::English)), QStringList{u"runwatch_en"_s});
        const QDBusMessage reply = QDBusConnection::sessionBus().call(QDBusMessage::createMethodCall(
            u"org.a11y.Bus"_s, u"/org/a11y/bus"_s, u"org.a11y.Bus"_s, u"GetAddress"_s));
        QVERIFY2(reply.type() == QDBusMessage::ReplyMessage, qPrintable(reply.errorMessage()));
        const QString address = reply.arguments().value(0).toString();
        QVERIFY(!address.isEmpty());
        m_a11y = QDBusConnection::connectToBus(address, u"screen-reader"_s);
        QVERIFY2(m_a11y->isConnected(), qPrintable(m_a11y->lastError().message()));
        QVERIFY(m_a11y->connect(QString(), QString(), u"org.a11y.atspi.Event.Object"_s, u"PropertyChange"_s,
                                this, SLOT(onPropertyChange(QDBusMessage))));
        // What a screen reader does at start: tell the registry which events it listens to;
        // Qt's bridge learns it through EventListenerRegistered and starts sending them.
        QVERIFY(listenTo(u"Object:PropertyChange:AccessibleName"_s));
        QVERIFY(m_a11y->connect(QString(), QString(), u"org.a11y.atspi.Event.Object"_s, u"TextChanged"_s,
                                this, SLOT(onTextChanged(QDBusMessage))));
        QVERIFY(listenTo(u"Object:TextChanged"_s));
    }

    // The selected run's output as Orca reads it: each frame's new text is announced where it went
    // in the output view, and the view's text read over AT-SPI is the text shown.
    void outputIsReadAsItArrives()
    {
        Engine engine;
        MainWindow window(&engine.manager);
        QVERIFY2(showWithBridge(window), "the window was not shown, or Qt's AT-SPI bridge did not come up");
        OutputView *output = window.detailPane()->outputView();
        const QString id = engine.start(kJobs, u"normal deltas=40 read aloud"_s);
        QTRY_VERIFY(window.activateRun(id));
        QTRY_COMPARE_WITH_TIMEOUT(engine.manager.run(id)->status, RunStatus::Completed, 15000);
        QTRY_VERIFY_WITH_TIMEOUT(output->pendingSize() == 0 && !output->shownText().isEmpty(), 10000);
        // The insertions into one object, in order, make up its text from where they began (the
        // last ones may still be on their way over the bus).
        QTRY_VERIFY_WITH_TIMEOUT(!m_inserted.isEmpty(), 10000);
        const QString path = m_inserted.constLast().path;
        const auto heard = [this, &path] {
            QString text;
            int from = -1;
            for (const Inserted &insert : std::as_const(m_inserted)) {
                if (insert.path != path)
                    continue;
                if (from < 0)
                    from = insert.offset;
                if (insert.offset != from + int(text.size())) {
                    return u"(an insertion at %1 after %2 characters from %3)"_s.arg(insert.offset)
                        .arg(text.size())
                        .arg(from);
                }
                text += insert.text;
            }
            return u"%1:%2"_s.arg(from).arg(text);
        };
        const auto firstInsert
            = std::find_if(m_inserted.cbegin(), m_inserted.cend(),
                           [&path](const Inserted &insert) { return insert.path == path; });
        const qsizetype first = firstInsert->offset;
        QTRY_COMPARE_WITH_TIMEOUT(heard(), u"%1:%2"_s.arg(first).arg(output->shownText().mid(first)), 10000);
        QVERIFY2(output->shownText().size() - first > 40, qPrintable(heard()));
        // And read back whole, as a screen reader reviews it.
        QDBusMessage get
            = QDBusMessage::createMethodCall(m_textService, path, u"org.a11y.atspi.Text"_s, u"GetText"_s);
        get << 0 << -1;
        QDBusPendingCallWatcher watcher(m_a11y->asyncCall(get));
        QTRY_VERIFY_WITH_TIMEOUT(watcher.isFinished(), 10000);
        const QDBusPendingReply<QString> reply = watcher;
        QVERIFY2(!reply.isError(), qPrintable(reply.error().message()));
        QCOMPARE(reply.value(), output->shownText());
    }

    void needsYouAndSelectedStatusAreHeard()
    {
        Engine engine;
        MainWindow window(&engine.manager);
        QVERIFY2(showWithBridge(window), "the window was not shown, or Qt's AT-SPI bridge did not come up");
        auto *announcer = window.findChild<Announcer *>(u"announcer"_s);
        QVERIFY(announcer);

        const QString asking = engine.start(kJobs, u"Approval: patch the gateway"_s);
        QTRY_VERIFY_WITH_TIMEOUT(m_heard.contains(u"Approval: patch the gateway needs you"_s), 15000);
        // On screen as much as fits; for the screen reader the whole sentence.
        QCOMPARE(announcer->accessibleName(), u"Approval: patch the gateway needs you"_s);
        QVERIFY(!announcer->text().isEmpty());
        QVERIFY(u"Approval: patch the gateway needs you"_s.startsWith(announcer->text().chopped(1))
                || announcer->text() == announcer->accessibleName());

        // A run nobody selected changes status: not announced. The selected one: announced.
        const QString quiet = engine.start(kJobs, u"normal deltas=3 quietly"_s);
        QTRY_COMPARE_WITH_TIMEOUT(engine.manager.run(quiet)->status, RunStatus::Completed, 10000);
        const QString watched = engine.start(kJobs, u"normal deltas=40 watched"_s);
        QTRY_VERIFY(window.activateRun(watched));
        QTRY_COMPARE_WITH_TIMEOUT(engine.manager.run(watched)->status, RunStatus::Completed, 15000);
        QTRY_VERIFY_WITH_TIMEOUT(m_heard.contains(u"normal deltas=40 watched: Completed"_s), 15000);
        for (const QString &heard : std::as_const(m_heard))
            QVERIFY2(!heard.startsWith(u"normal deltas=3 quietly"_s), qPrintable(heard));
        QVERIFY(engine.manager.run(asking)->status == RunStatus::InputRequired);

        // Several runs asking in one burst: one sentence with the count and their titles. Their
        // deltas keep both streams handing over until they ask, so their questions wait for their
        // turns and reach the window up to the engine's pace for runs out of view apart (neither
        // is selected): the announcer waits that long for the rest of a burst.
        const QString first = u"Approval: first deltas=30 interval_ms=15"_s;
        const QString second = u"Approval: second deltas=30 interval_ms=15"_s;
        engine.start(kJobs, first);
        engine.start(kJobs, second);
        QTRY_VERIFY2_WITH_TIMEOUT(m_heard.contains(u"2 runs need you: %1, %2"_s.arg(first, second))
                                      || m_heard.contains(u"2 runs need you: %1, %2"_s.arg(second, first)),
                                  qPrintable(m_heard.filter(u"need"_s).join(u" | "_s)), 15000);
    }
};

QTEST_MAIN(TestAnnouncements)
#include "tst_announcements.moc"
