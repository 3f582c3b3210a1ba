// SPDX-License-Identifier: GPL-3.0-or-later
// A saved connection's key and token command stay with the origin they were saved for (issue 25):
// edited to point at another origin (here a second loopback server, on another port), "Test
// connection" leaves the stored key and the saved token command out and says why, while a key
// typed with the edit is sent; Save asks whether they go along — Cancel saves nothing, "Remove"
// saves the connection without them, "Use" saves them for the new origin — and an edit within the
// origin asks nothing. No keyring (no session bus): the key is kept by the session-only opt-in.
// RUNWATCH_SCREENSHOT_DIR=DIR keeps the dialog with the Test note and the question for a look.
#include "connectionoptionsform.h"
#include "connections/connectionregistry.h"
#include "connectionsdialog.h"
#include "connectionsdialogrig.h"
#include "scriptedserver.h"
#include "uitesthelpers.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>

using namespace Runwatch;
using namespace RunwatchUiTest;
using namespace RunwatchTest;
using namespace Qt::StringLiterals;

namespace {
const QString kKey = u"sk-origin-a-only-7c41"_s;
const QString kToken = u"tok-origin-a-only-2b9e"_s;
} // namespace

class TestConnectionOrigin final : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<ConnectionsDialogRig> m_rig;
    // The other origin: same host, another port. It answers the model list, so that a test against
    // it "connects" whatever was sent.
    std::unique_ptr<ScriptedServer> m_other;

    ConnectionsDialog *dialog() const { return m_rig->dialog.get(); }
    QUrl otherUrl() const { return m_other->url(u"/v1"_s); }
    QLineEdit *tokenCommand() const { return dialog()->optionsForm()->edit(u"token_command"_s); }

    static QString shots() { return qEnvironmentVariable("RUNWATCH_SCREENSHOT_DIR"); }

    // "prod" on the engine's OpenAI simulator, saved with `key` (kept for the session: no
    // keyring here) or, without one, with `command` as its token command.
    bool saveProd(const QString &key, const QString &command = {})
    {
        dialog()->startNew();
        dialog()->nameEdit()->setText(u"prod"_s);
        dialog()->backendBox()->setCurrentText(u"openai"_s);
        dialog()->urlEdit()->setText(m_rig->engine.sim.baseUrl().toString());
        dialog()->keyEdit()->setText(key);
        tokenCommand()->setText(command);
        QSignalSpy saved(dialog(), &ConnectionsDialog::saved);
        QTest::mouseClick(dialog()->saveButton(), Qt::LeftButton);
        if (!key.isEmpty()) {
            if (!QTest::qWaitFor([&] { return dialog()->keychainWarning()->isVisible(); }, 20000))
                return false;
            QTest::mouseClick(dialog()->sessionButton(), Qt::LeftButton);
        }
        return QTest::qWaitFor([&] { return saved.count() == 1; }, 20000)
               && m_rig->registry->profile(u"prod"_s).has_value();
    }

    // Clicks Test and waits for its outcome; the status text.
    QString test()
    {
        QSignalSpy tested(dialog(), &ConnectionsDialog::tested);
        QTest::mouseClick(dialog()->testButton(), Qt::LeftButton);
        if (!QTest::qWaitFor([&] { return tested.count() == 1; }, 20000))
            return u"(no test outcome)"_s;
        return readable(dialog()->statusLabel()->text());
    }

    // `text` without the word joiners that keep an origin on one line.
    static QString readable(QString text) { return text.remove(QChar(0x2060)); }

    // Whether any request the other origin received carried `secret` in a header.
    bool otherOriginSaw(const QString &secret) const
    {
        for (const RecordedRequest &r : m_other->requests()) {
            for (const auto &[name, value] : r.headers) {
                if (value.contains(secret.toUtf8()))
                    return true;
            }
        }
        return false;
    }

    struct Question
    {
        bool asked = false;
        QString text; // the message and its informative text
    };

    // Clicks Save and answers the question it asks with the button named `answer` ("" cancels);
    // the question, if one was asked, is kept for a look by eye as `shot`.
    Question saveAnswering(const QString &answer, const QString &shot = {})
    {
        Question q;
        QTimer poll;
        connect(&poll, &QTimer::timeout, this, [&] {
            auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
            if (!box || q.asked)
                return;
            q.asked = true;
            q.text = readable(box->text() + u'\n' + box->informativeText());
            if (!shots().isEmpty() && !shot.isEmpty())
                box->grab().save(shots() + u'/' + shot + u".png"_s);
            auto *button
                = answer.isEmpty() ? box->button(QMessageBox::Cancel) : box->findChild<QPushButton *>(answer);
            if (button) {
                button->click();
            } else {
                box->reject(); // no such button: the checks after it fail on what was saved
            }
        });
        poll.start(20);
        QTest::mouseClick(dialog()->saveButton(), Qt::LeftButton);
        poll.stop();
        return q;
    }

private Q_SLOTS:
    void initTestCase() { isolateSettings(); }

    void init()
    {
        QSettings().clear();
        m_rig = std::make_unique<ConnectionsDialogRig>();
        QVERIFY(m_rig->open());
        m_rig->engine.sim.setApiKey(kKey);
        m_other = std::make_unique<ScriptedServer>();
        QVERIFY(m_other->isListening());
        m_other->enqueue("/v1/models", ScriptedReply::json(200, R"({"object":"list","data":[]})"), 10);
    }

    void cleanup()
    {
        m_rig.reset();
        m_other.reset();
    }

    // The stored key goes to its own origin and, after an edit of the URL, not to another one;
    // a key typed with the edit does.
    void testLeavesTheStoredKeyAtItsOrigin()
    {
        QVERIFY(saveProd(kKey));
        QVERIFY2(test().startsWith(u"Connected"_s), qPrintable(dialog()->statusLabel()->text()));

        dialog()->urlEdit()->setText(otherUrl().toString());
        const QString status = test();
        QVERIFY2(m_other->requestCount() > 0, qPrintable(status));
        QVERIFY(!otherOriginSaw(kKey));
        QVERIFY2(status.contains(u"The stored API key was not sent: it was saved for %1."_s.arg(
                     m_rig->engine.sim.baseUrl().adjusted(QUrl::RemovePath).toString())),
                 qPrintable(status));
        if (!shots().isEmpty()) {
            QTest::qWait(50); // the status label's new height is laid out from the event loop
            QVERIFY(dialog()->grab().save(shots() + u"/test-without-stored-key.png"_s));
        }

        // Typed in the field, the key is the operator's for this origin.
        dialog()->keyEdit()->setText(kKey);
        const QString typed = test();
        QVERIFY2(otherOriginSaw(kKey), qPrintable(typed));
        QVERIFY2(!typed.contains(u"not sent"_s), qPrintable(typed));
        // What was saved is untouched by testing.
        QCOMPARE(m_rig->registry->profile(u"prod"_s)->connection.baseUrl, m_rig->engine.sim.baseUrl());
    }

    // Save asks before the stored key goes along; Cancel saves nothing, "Remove the key" saves the
    // new URL without it.
    void saveAsksAndCanRemoveTheKey()
    {
        QVERIFY(saveProd(kKey));
        dialog()->urlEdit()->setText(otherUrl().toString());

        const Question cancelled = saveAnswering({}, u"question-key"_s);
        QVERIFY(cancelled.asked);
        QVERIFY2(cancelled.text.contains(originOfSim()) && cancelled.text.contains(otherOrigin()),
                 qPrintable(cancelled.text));
        QCOMPARE(m_rig->registry->profile(u"prod"_s)->connection.baseUrl, m_rig->engine.sim.baseUrl());
        QCOMPARE(m_rig->engine.manager.connection(u"prod"_s)->apiKey, kKey);
        QCOMPARE(dialog()->urlEdit()->text(), otherUrl().toString()); // the edit stays to be changed

        QSignalSpy saved(dialog(), &ConnectionsDialog::saved);
        QVERIFY(saveAnswering(u"movedCredentialRemove"_s).asked);
        QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 1, 20000);
        const auto profile = m_rig->registry->profile(u"prod"_s);
        QCOMPARE(profile->connection.baseUrl, otherUrl());
        QCOMPARE(profile->keyStorage, KeyStorage::None);
        QVERIFY(m_rig->engine.manager.connection(u"prod"_s)->apiKey.isEmpty());
        // Saved for the new origin without a key: nothing left to ask about or to leave out.
        QVERIFY(!saveAnswering(u"movedCredentialRemove"_s).asked);
        QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 2, 20000);
        QVERIFY(!test().contains(u"not sent"_s));
        QVERIFY(!otherOriginSaw(kKey));
    }

    // "Use the key for …" is the operator giving it for the new origin: saved with it, and sent
    // there from then on. An edit within the origin asks nothing.
    void saveCanUseTheKeyForTheNewOrigin()
    {
        QVERIFY(saveProd(kKey));
        QUrl samePlace = m_rig->engine.sim.baseUrl();
        samePlace.setPath(u"/v1/"_s);
        dialog()->urlEdit()->setText(samePlace.toString());
        QSignalSpy saved(dialog(), &ConnectionsDialog::saved);
        QVERIFY(!saveAnswering({}).asked);
        QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 1, 20000);
        QCOMPARE(m_rig->registry->profile(u"prod"_s)->connection.baseUrl, samePlace);

        dialog()->urlEdit()->setText(otherUrl().toString());
        const Question q = saveAnswering(u"movedCredentialUse"_s);
        QVERIFY(q.asked);
        QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 2, 20000);
        const auto profile = m_rig->registry->profile(u"prod"_s);
        QCOMPARE(profile->connection.baseUrl, otherUrl());
        QCOMPARE(profile->keyStorage, KeyStorage::Session);
        QCOMPARE(m_rig->engine.manager.connection(u"prod"_s)->apiKey, kKey);
        const QString status = test();
        QVERIFY2(otherOriginSaw(kKey), qPrintable(status));
    }

    // The saved token command counts as given for the saved origin: not run for another one on
    // Test, asked about on Save; edited along with the URL it is the operator's new choice.
    void tokenCommandStaysAtItsOrigin()
    {
        m_rig->engine.sim.setApiKey(kToken);
        QVERIFY(saveProd({}, u"printf %s "_s + kToken));
        QVERIFY2(test().startsWith(u"Connected"_s), qPrintable(dialog()->statusLabel()->text()));

        dialog()->urlEdit()->setText(otherUrl().toString());
        const QString status = test();
        QVERIFY2(m_other->requestCount() > 0, qPrintable(status));
        QVERIFY(!otherOriginSaw(kToken));
        QVERIFY2(status.contains(u"The token command was not run"_s), qPrintable(status));

        // A command given with the edit (written another way, the same token) is the operator's
        // choice for the new origin.
        tokenCommand()->setText(u"printf '%s' "_s + kToken);
        const QString edited = test();
        QVERIFY2(otherOriginSaw(kToken), qPrintable(edited));
        QVERIFY2(!edited.contains(u"not run"_s), qPrintable(edited));
        m_other->clearRecorded();
        tokenCommand()->setText(u"printf %s "_s + kToken);

        const Question q = saveAnswering(u"movedCredentialRemove"_s, u"question-token-command"_s);
        QVERIFY(q.asked);
        QVERIFY2(q.text.contains(u"token command"_s), qPrintable(q.text));
        QTRY_VERIFY_WITH_TIMEOUT(m_rig->registry->profile(u"prod"_s)->connection.baseUrl == otherUrl(),
                                 20000);
        QVERIFY(!m_rig->registry->profile(u"prod"_s)->connection.options.contains(u"token_command"_s));
        QVERIFY(tokenCommand()->text().isEmpty());
        QVERIFY(!test().contains(u"not run"_s));
        QVERIFY(!otherOriginSaw(kToken));
    }

private:
    QString originOfSim() const { return m_rig->engine.sim.baseUrl().adjusted(QUrl::RemovePath).toString(); }
    QString otherOrigin() const { return otherUrl().adjusted(QUrl::RemovePath).toString(); }
};

int main(int argc, char **argv)
{
    // No keyring and no session bus: keys are kept by the session-only opt-in, the same on every
    // machine.
    qputenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/runwatch-test-no-bus");
    QApplication app(argc, argv);
    TestConnectionOrigin test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_connectionorigin.moc"
