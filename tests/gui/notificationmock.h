// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Talking to python3-dbusmock's notification daemon (run-with-notification-mock.sh): what it was
// asked, and the signals a person's clicks make it send.
#include <QDBusArgument>
#include <QDBusConnection>
#include <QDBusMessage>
#include <QTest>

namespace RunwatchNotifyMock {

using namespace Qt::StringLiterals;

inline const QString kService = u"org.freedesktop.Notifications"_s;
inline const QString kPath = u"/org/freedesktop/Notifications"_s;
inline const QString kMock = u"org.freedesktop.DBus.Mock"_s;

struct NotifyCall
{
    QString summary;
    QString body;
    QStringList actions;
    QVariantMap hints;
};

// The arguments of every call of `method` the mock received: GetMethodCalls → a(tav).
inline QList<QVariantList> methodCalls(const QString &method)
{
    QDBusMessage call = QDBusMessage::createMethodCall(kService, kPath, kMock, u"GetMethodCalls"_s);
    call << method;
    const QDBusMessage reply = QDBusConnection::sessionBus().call(call);
    QList<QVariantList> out;
    if (reply.type() != QDBusMessage::ReplyMessage || reply.arguments().isEmpty())
        return out;
    const QDBusArgument arg = reply.arguments().first().value<QDBusArgument>();
    arg.beginArray();
    while (!arg.atEnd()) {
        qulonglong when = 0;
        QVariantList args;
        arg.beginStructure();
        arg >> when;
        arg.beginArray();
        while (!arg.atEnd()) {
            QDBusVariant v;
            arg >> v;
            args << v.variant();
        }
        arg.endArray();
        arg.endStructure();
        out << args;
    }
    arg.endArray();
    return out;
}

// What the mock daemon was asked to show.
inline QList<NotifyCall> notifyCalls()
{
    QList<NotifyCall> out;
    for (const QVariantList &args : methodCalls(u"Notify"_s)) {
        NotifyCall c;
        c.summary = args.value(3).toString();
        c.body = args.value(4).toString();
        const QVariant actions = args.value(5);
        if (actions.canConvert<QDBusArgument>()) {
            actions.value<QDBusArgument>() >> c.actions;
        } else {
            c.actions = actions.toStringList();
        }
        const QVariant hints = args.value(6);
        if (hints.canConvert<QDBusArgument>()) {
            hints.value<QDBusArgument>() >> c.hints;
        } else {
            c.hints = hints.toMap();
        }
        out << c;
    }
    return out;
}

// The ids the mock was asked to close.
inline QList<uint> closedIds()
{
    QList<uint> out;
    for (const QVariantList &args : methodCalls(u"CloseNotification"_s))
        out << args.value(0).toUInt();
    return out;
}

inline void clearCalls()
{
    QDBusConnection::sessionBus().call(
        QDBusMessage::createMethodCall(kService, kPath, kMock, u"ClearCalls"_s));
}

// Makes the mock emit a signal of the notification interface, as a person's click makes a real
// server do.
inline void emitSignal(const QString &name, const QString &signature, const QVariantList &args)
{
    QDBusMessage call = QDBusMessage::createMethodCall(kService, kPath, kMock, u"EmitSignal"_s);
    call << kService << name << signature << QVariant::fromValue(args);
    const QDBusMessage reply = QDBusConnection::sessionBus().call(call);
    QVERIFY2(reply.type() == QDBusMessage::ReplyMessage, qPrintable(reply.errorMessage()));
}

// A button: ActionInvoked(id, action); "default" is a click on the notification itself.
inline void invokeAction(uint id, const QString &action)
{
    emitSignal(u"ActionInvoked"_s, u"us"_s, {QVariant::fromValue(id), action});
}

inline void clickNotification(uint id)
{
    invokeAction(id, u"default"_s);
}

// An inline reply typed into the notification: NotificationReplied(id, text).
inline void replyInline(uint id, const QString &text)
{
    emitSignal(u"NotificationReplied"_s, u"us"_s, {QVariant::fromValue(id), text});
}

} // namespace RunwatchNotifyMock
