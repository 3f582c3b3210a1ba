// SPDX-License-Identifier: GPL-3.0-or-later
#include "notifier.h"
#include "uilog.h"

#include "domain/boundedwait.h"
#include "engine/rundeadlines.h"
#include "engine/runmanager.h"
#include "engine/stuckruns.h"
#include "models/quickanswer.h"
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
        // The inline reply of the freedesktop spec's draft, as Plasma and others implement it.
        bus.connect(kService, kPath, kInterface, u"NotificationReplied"_s, this,
                    SLOT(onNotificationReplied(uint, QString)));
        // Which buttons the server shows decides what a "needs you" notification offers; asked
        // once, without blocking the start (an answer normally arrives long before the first run
        // needs anyone).
        const QDBusMessage ask
            = QDBusMessage::createMethodCall(kService, kPath, kInterface, u"GetCapabilities"_s);
        auto *watcher = new QDBusPendingCallWatcher(bus.asyncCall(ask), this);
        connect(watcher, &QDBusPendingCallWatcher::finished, this, [this](QDBusPendingCallWatcher *w) {
            w->deleteLater();
            const QDBusPendingReply<QStringList> reply = *w;
            if (!reply.isError())
                m_capabilities = reply.value();
        });
    }
    if (!manager)
        return;
    for (const QString &id : manager->runIds())
        onRunAdded(id);
    connect(manager, &RunManager::runAdded, this, &Notifier::onRunAdded);
    connect(manager, &RunManager::runChanged, this, &Notifier::onRunChanged);
    connect(manager, &RunManager::runRemoved, this, [this](const QString &id) {
        withdraw(id);
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
    // Answered here, in another window, by the CLI or by a teammate on the shared store: the
    // question is gone, so is the notification that asked it (before the "enabled" check: one
    // sent before notifications were turned off must not linger either).
    if (!waitsForPerson(*run))
        withdraw(id);
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
        send(id, tr("Run %1").arg(what), body, true, askingActions(*run), true);
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
    send(runId, tr("Run expires in %1 unless answered").arg(formatCountdown(*left)), body, true,
         askingActions(*run), true);
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
    send(runId, summary, body, urgent, {}, false);
}

QStringList Notifier::askingActions(const Run &run) const
{
    // A server without "actions" shows no buttons (the spec lets it ignore them): offer nothing
    // it would drop, so the operator is never promised a button that is not there.
    if (!m_capabilities.contains(u"actions"_s))
        return {};
    const QuickAnswers quick = quickAnswersFor(run);
    QStringList actions;
    if (quick.approve)
        actions << u"approve"_s << tr("Approve");
    if (quick.reject)
        actions << u"reject"_s << tr("Reject");
    if (quick.text && m_capabilities.contains(u"inline-reply"_s)) {
        actions << u"inline-reply"_s << tr("Reply");
    } else if (quick.waits && !quick.approve && !quick.reject) {
        actions << u"answer"_s << tr("Answer…");
    }
    return actions;
}

void Notifier::send(const QString &runId, const QString &summary, const QString &body, bool urgent,
                    const QStringList &actions, bool asking)
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
    if (actions.contains(u"inline-reply"_s))
        hints.insert(u"x-kde-reply-placeholder-text"_s, tr("Answer the run…"));
    // The desktop's notification servers (GNOME, Plasma, xfce, dunst) take the body as markup
    // (body-markup: <b>, <a href>, <img>): a run's title is a server's text, shown as such.
    call << QGuiApplication::applicationDisplayName() << uint(0) << kAppId << summary << body.toHtmlEscaped()
         << (QStringList{u"default"_s, tr("Show run")} + actions) << hints << int(-1);
    auto *watcher = new QDBusPendingCallWatcher(QDBusConnection::sessionBus().asyncCall(call), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this,
            [this, runId, summary, body, urgent, asking](QDBusPendingCallWatcher *w) {
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
                if (asking) {
                    // Answered while the server was still showing it: take it back at once.
                    const Run *run = m_manager ? m_manager->run(runId) : nullptr;
                    m_asking[runId].append(reply.value());
                    if (!run || !waitsForPerson(*run))
                        withdraw(runId);
                }
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
    if (action == u"default") {
        Q_EMIT runActivated(runId);
        return;
    }
    // A button of a notification that was still on screen while the run moved on must not answer
    // whatever the run asks now: only a run that still offers that answer takes it.
    const Run *run = m_manager ? m_manager->run(runId) : nullptr;
    const QuickAnswers quick = run ? quickAnswersFor(*run) : QuickAnswers{};
    if ((action == u"approve" && quick.approve) || (action == u"reject" && quick.reject)) {
        Q_EMIT answerRequested(runId, approvalAnswer(action == u"approve"));
    } else if (action == u"answer" || action == u"approve" || action == u"reject") {
        Q_EMIT respondRequested(runId); // the panel shows what the run asks now
    }
}

void Notifier::onNotificationReplied(uint id, const QString &text)
{
    const QString runId = m_byNotification.value(id);
    const Run *run = m_manager && !runId.isEmpty() ? m_manager->run(runId) : nullptr;
    if (!run)
        return;
    if (quickAnswersFor(*run).text && !text.trimmed().isEmpty()) {
        Q_EMIT answerRequested(runId, textAnswer(text));
    } else {
        Q_EMIT respondRequested(runId);
    }
}

void Notifier::withdraw(const QString &runId)
{
    const QList<uint> ids = m_asking.take(runId);
    if (m_channel != Channel::DBus)
        return;
    for (const uint id : ids) {
        QDBusMessage call
            = QDBusMessage::createMethodCall(kService, kPath, kInterface, u"CloseNotification"_s);
        call << id;
        QDBusConnection::sessionBus().asyncCall(call);
        Q_EMIT withdrawn(runId, id);
    }
}

void Notifier::onNotificationClosed(uint id, uint reason)
{
    Q_UNUSED(reason)
    const QString runId = m_byNotification.take(id);
    if (const auto it = m_asking.find(runId); it != m_asking.end()) {
        it->removeAll(id);
        if (it->isEmpty())
            m_asking.erase(it);
    }
}

} // namespace Runwatch
