// SPDX-License-Identifier: GPL-3.0-or-later
#include "notifier.h"
#include "uilog.h"

#include "domain/boundedwait.h"
#include "engine/rundeadlines.h"
#include "engine/runmanager.h"
#include "engine/stuckruns.h"
#include "models/runfilter.h"
#include "models/runformat.h"

#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <QGuiApplication>
#include <QSystemTrayIcon>
#include <QTimer>

using namespace Qt::StringLiterals;

namespace Runwatch {

Q_LOGGING_CATEGORY(lcUi, "runwatch.ui", QtInfoMsg)

namespace {
const QString kService = u"org.freedesktop.Notifications"_s;
const QString kPath = u"/org/freedesktop/Notifications"_s;
const QString kInterface = u"org.freedesktop.Notifications"_s;
const QString kAppId = u"io.github.runwatch.Runwatch"_s;
constexpr int kBodyChars = 120;
} // namespace

Notifier::Notifier(RunManager *manager, QObject *parent)
    : QObject(parent)
    , m_manager(manager)
{
    QDBusConnection bus = QDBusConnection::sessionBus();
    if (bus.isConnected()) {
        m_channel = Channel::DBus;
        bus.connect(kService, kPath, kInterface, u"ActionInvoked"_s, this,
                    SLOT(onActionInvoked(uint, QString)));
        bus.connect(kService, kPath, kInterface, u"NotificationClosed"_s, this,
                    SLOT(onNotificationClosed(uint, uint)));
    }
    if (!manager)
        return;
    for (const QString &id : manager->runIds())
        onRunAdded(id);
    connect(manager, &RunManager::runAdded, this, &Notifier::onRunAdded);
    connect(manager, &RunManager::runChanged, this, &Notifier::onRunChanged);
    connect(manager, &RunManager::runRemoved, this, [this](const QString &id) {
        m_seen.remove(id);
        m_expiryWarned.remove(id);
    });
}

void Notifier::setTrayIcon(QSystemTrayIcon *tray)
{
    if (m_tray)
        disconnect(m_tray, nullptr, this, nullptr);
    m_tray = tray;
    if (tray) {
        connect(tray, &QSystemTrayIcon::messageClicked, this, [this] {
            if (!m_lastTrayRun.isEmpty())
                Q_EMIT runActivated(m_lastTrayRun);
        });
    }
    if (m_channel == Channel::None && tray)
        m_channel = Channel::Tray;
}

void Notifier::onRunAdded(const QString &id)
{
    if (const Run *run = m_manager ? m_manager->run(id) : nullptr)
        m_seen.insert(id, run->status);
}

void Notifier::onRunChanged(const QString &id, RunChanges changes)
{
    if (!changes.testFlag(RunChange::Status) || !m_manager)
        return;
    const Run *run = m_manager->run(id);
    if (!run)
        return;
    const auto it = m_seen.find(id);
    const RunStatus before = it == m_seen.end() ? RunStatus::Unknown : *it;
    m_seen.insert(id, run->status);
    if (before == run->status || !m_enabled)
        return;
    const QString body = bodyFor(*run);
    // A follow-up names the conversation it belongs to: its own title alone reads like a new task.
    const Run *parent = run->parentId.isEmpty() ? nullptr : m_manager->run(run->parentId);
    const QString parentTitle = parent ? bodyFor(*parent) : QString();
    if (run->status == RunStatus::Completed) {
        notify(id, parent ? tr("Follow-up to “%1” completed").arg(parentTitle) : tr("Run completed"), body,
               false);
    } else if (isFailureLike(run->status)) {
        const QString what = statusLabel(run->status).toLower();
        notify(id, parent ? tr("Follow-up to “%1” %2").arg(parentTitle, what) : tr("Run %1").arg(what), body,
               true);
    } else if (waitsForPerson(*run)) {
        // A timer or a callback resumes the run by itself: nobody needs to be disturbed for it.
        // Name only what is asked, not its content: the text may be confidential.
        QString what = tr("needs input");
        if (run->input && run->input->reason == InputReason::Approval)
            what = tr("needs approval");
        notify(id, tr("Run %1").arg(what), body, true);
        scheduleExpiryWarning(id);
    }
}

void Notifier::scheduleExpiryWarning(const QString &runId)
{
    const Run *run = m_manager ? m_manager->run(runId) : nullptr;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const auto left = run ? answerTimeLeftMs(*run, now) : std::nullopt;
    if (!left || m_expiryWarned.value(runId) == run->input->deadline)
        return;
    const QDateTime deadline = run->input->deadline;
    m_expiryWarned.insert(runId, deadline);
    // Asked with less time than the lead: the "needs input" notification that just went out is
    // the only one (a second one at once would be noise).
    const qint64 until = *left - qint64(m_expiryLead.count());
    if (until <= 0)
        return;
    QTimer::singleShot(boundedWait(until), this, [this, runId, deadline] { warnExpiry(runId, deadline); });
}

void Notifier::warnExpiry(const QString &runId, const QDateTime &deadline)
{
    const Run *run = m_manager ? m_manager->run(runId) : nullptr;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const auto left = run ? answerTimeLeftMs(*run, now) : std::nullopt;
    // Answered, ended or asking something else by now: nothing to remind of.
    if (!left || run->input->deadline != deadline || *left <= 0 || !m_enabled)
        return;
    // Further away than one timer waits (or a coarse timer came early): wait the rest first.
    const qint64 until = *left - qint64(m_expiryLead.count());
    if (until > 1000) {
        QTimer::singleShot(boundedWait(until), this,
                           [this, runId, deadline] { warnExpiry(runId, deadline); });
        return;
    }
    const QString body = bodyFor(*run);
    notify(runId, tr("Run expires in %1 unless answered").arg(formatCountdown(*left)), body, true);
}

void Notifier::watch(StuckRunWatcher *stuck, DeadlineWatcher *deadlines)
{
    if (stuck) {
        // The operator decides whether to cancel; the watcher announces each silence once.
        connect(stuck, &StuckRunWatcher::runStuck, this,
                [this](const QString &id) { notifyAbout(id, tr("Run looks stuck"), {}, true); });
    }
    if (!deadlines)
        return;
    connect(deadlines, &DeadlineWatcher::deadlineApproaching, this, [this](const QString &id) {
        const Run *run = m_manager ? m_manager->run(id) : nullptr;
        const QString line = run ? deadlineText(*run, QDateTime::currentDateTimeUtc()) : QString();
        notifyAbout(id, tr("Deadline approaching"), line, false);
    });
    connect(deadlines, &DeadlineWatcher::deadlineReached, this, [this](const QString &id, bool cancelling) {
        notifyAbout(id, cancelling ? tr("Deadline reached: cancelling") : tr("Deadline reached"), {}, true);
    });
}

void Notifier::notifyAbout(const QString &runId, const QString &summary, const QString &detail, bool urgent)
{
    const Run *run = m_manager ? m_manager->run(runId) : nullptr;
    if (!run || !m_enabled)
        return;
    notify(runId, summary, detail.isEmpty() ? bodyFor(*run) : bodyFor(*run) + u'\n' + detail, urgent);
}

QString Notifier::bodyFor(const Run &run)
{
    const QString title = run.title.isEmpty() ? tr("Run %1").arg(run.localId) : run.title;
    return title.size() > kBodyChars ? title.left(kBodyChars - 1) + u"…"_s : title;
}

void Notifier::notify(const QString &runId, const QString &summary, const QString &body, bool urgent)
{
    if (m_channel != Channel::DBus) {
        showInTray(runId, summary, body, urgent);
        return;
    }
    QDBusMessage call = QDBusMessage::createMethodCall(kService, kPath, kInterface, u"Notify"_s);
    QVariantMap hints;
    hints.insert(u"desktop-entry"_s, kAppId);
    hints.insert(u"urgency"_s, QVariant::fromValue(uchar(urgent ? 2 : 1)));
    hints.insert(u"category"_s, urgent ? u"transfer.error"_s : u"transfer.complete"_s);
    // The desktop's notification servers (GNOME, Plasma, xfce, dunst) take the body as markup
    // (body-markup: <b>, <a href>, <img>): a run's title is a server's text, shown as such.
    call << QGuiApplication::applicationDisplayName() << uint(0) << kAppId << summary << body.toHtmlEscaped()
         << QStringList{u"default"_s, tr("Show run")} << hints << int(-1);
    auto *watcher = new QDBusPendingCallWatcher(QDBusConnection::sessionBus().asyncCall(call), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this,
            [this, runId, summary, body, urgent](QDBusPendingCallWatcher *w) {
                w->deleteLater();
                const QDBusPendingReply<uint> reply = *w;
                if (reply.isError()) {
                    // No notification service on this bus: use the tray from now on.
                    if (m_channel == Channel::DBus) {
                        qCInfo(lcUi, "desktop notifications over D-Bus failed (%s); %s",
                               qPrintable(reply.error().message()),
                               m_tray ? "using the tray icon" : "no tray icon either");
                    }
                    m_channel = m_tray ? Channel::Tray : Channel::None;
                    showInTray(runId, summary, body, urgent);
                    return;
                }
                m_byNotification.insert(reply.value(), runId);
                Q_EMIT notified(runId, summary, Channel::DBus);
            });
}

void Notifier::showInTray(const QString &runId, const QString &summary, const QString &body, bool urgent)
{
    if (!m_tray || !QSystemTrayIcon::isSystemTrayAvailable()) {
        Q_EMIT notified(runId, summary, Channel::None);
        return;
    }
    m_lastTrayRun = runId;
    m_tray->showMessage(summary, body, urgent ? QSystemTrayIcon::Warning : QSystemTrayIcon::Information,
                        8000);
    Q_EMIT notified(runId, summary, Channel::Tray);
}

uint Notifier::notificationId(const QString &runId) const
{
    uint newest = 0;
    for (auto it = m_byNotification.cbegin(); it != m_byNotification.cend(); ++it) {
        if (it.value() == runId)
            newest = qMax(newest, it.key());
    }
    return newest;
}

void Notifier::onActionInvoked(uint id, const QString &action)
{
    const QString runId = m_byNotification.value(id);
    if (runId.isEmpty())
        return;
    if (action == u"default")
        Q_EMIT runActivated(runId);
}

void Notifier::onNotificationClosed(uint id, uint reason)
{
    Q_UNUSED(reason)
    m_byNotification.remove(id);
}

} // namespace Runwatch
