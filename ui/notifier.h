// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/runevent.h"
#include "domain/runreducer.h"

#include <QDateTime>
#include <QHash>
#include <QObject>
#include <QPointer>
#include <QStringList>

#include <chrono>

class QDBusPendingCallWatcher;
class QSystemTrayIcon;

namespace Runwatch {

class DeadlineWatcher;
class RunManager;
class StuckRunWatcher;

// Desktop notifications when a run completes, fails or needs input: org.freedesktop.Notifications
// over QtDBus (KNotifications is Qt 5 only on Debian 12), with the tray icon's balloon as the
// fallback when no notification service answers. Clicking a notification emits runActivated()
// so the window can select the run. A run that needs a person gets the buttons of
// quickAnswersFor() where the server shows actions: Approve / Reject for approvals, an inline
// Reply for a plain question where the server has `inline-reply`, otherwise "Answer…" (the
// Respond panel); each asks the window for the same command as the panel (answerRequested,
// respondRequested). The "needs" notification is withdrawn once the run no longer waits, however
// it was answered (the panel, the CLI, another process on the store). Runs already in a state when first seen (adopted at start)
// do not notify; a cancellation is the operator's own doing and does not either. A run that must
// be answered before a deadline (Foundry's expires_at) notifies again, once, shortly before it
// (two minutes by default) if it still waits then.
class Notifier final : public QObject
{
    Q_OBJECT
public:
    enum class Channel { DBus, Tray, None };
    Q_ENUM(Channel)

    explicit Notifier(RunManager *manager, QObject *parent = nullptr);

    void setEnabled(bool enabled) { m_enabled = enabled; }
    bool isEnabled() const { return m_enabled; }
    void setTrayIcon(QSystemTrayIcon *tray);
    Channel channel() const { return m_channel; }
    // How long before a deadline the reminder goes out (tests shorten it).
    void setExpiryWarningLead(std::chrono::milliseconds lead) { m_expiryLead = lead; }

    // Also notifies what the watchers announce: a run that looks stuck (once per stuck episode:
    // StuckRunWatcher::runStuck), a deadline that approaches or is reached. Either may be null.
    void watch(StuckRunWatcher *stuck, DeadlineWatcher *deadlines);

    // Sends one notification (also used by the status watcher).
    void notify(const QString &runId, const QString &summary, const QString &body, bool urgent);
    // The notification server's id of the newest notification about a run still shown; 0: none.
    uint notificationId(const QString &runId) const;
    // The server's capabilities (GetCapabilities), once it answered; empty before or without one.
    QStringList serverCapabilities() const { return m_capabilities; }

Q_SIGNALS:
    void runActivated(const QString &runId);
    // The operator answered from a notification (a button or an inline reply): the window sends
    // it as it sends the Respond panel's answer.
    void answerRequested(const QString &runId, const Runwatch::InputAnswer &answer);
    // "Answer…": show the run with its Respond panel.
    void respondRequested(const QString &runId);
    // A "needs" notification was withdrawn because the run no longer waits (for tests).
    void withdrawn(const QString &runId, uint notificationId);
    // After a notification went out (or failed to); for tests and the status bar.
    void notified(const QString &runId, const QString &summary, Runwatch::Notifier::Channel channel);

private Q_SLOTS:
    void onActionInvoked(uint id, const QString &action);
    void onNotificationReplied(uint id, const QString &text);
    void onNotificationClosed(uint id, uint reason);

private:
    void onRunAdded(const QString &id);
    void onRunChanged(const QString &id, Runwatch::RunChanges changes);
    // Notify with these actions (pairs of key and label after "default"); an `asking` one is
    // withdrawn when the run stops waiting.
    void send(const QString &runId, const QString &summary, const QString &body, bool urgent,
              const QStringList &actions, bool asking);
    // The buttons for a run that needs a person, as far as the server shows them.
    QStringList askingActions(const Run &run) const;
    void withdraw(const QString &runId);
    void showInTray(const QString &runId, const QString &summary, const QString &body, bool urgent);
    void scheduleExpiryWarning(const QString &runId);
    void warnExpiry(const QString &runId, const QDateTime &deadline);
    // The notification body: the run's title (or its id), shortened for the notification bubble.
    static QString bodyFor(const Run &run);
    // One notification about a run the engine has, when notifications are on; `detail` goes on a
    // line under the title.
    void notifyAbout(const QString &runId, const QString &summary, const QString &detail, bool urgent);

    QPointer<RunManager> m_manager;
    QPointer<QSystemTrayIcon> m_tray;
    QHash<QString, RunStatus> m_seen;
    QHash<uint, QString> m_byNotification; // D-Bus notification id → run id
    QHash<QString, QList<uint>> m_asking;  // run id → its notifications that ask for an answer
    QStringList m_capabilities;
    QString m_lastTrayRun;
    Channel m_channel = Channel::None;
    bool m_enabled = true;
    std::chrono::milliseconds m_expiryLead{120000};
    // The deadline each run was (or will be) reminded of: one reminder per deadline.
    QHash<QString, QDateTime> m_expiryWarned;
};

} // namespace Runwatch
