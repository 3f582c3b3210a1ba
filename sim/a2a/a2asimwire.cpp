// SPDX-License-Identifier: GPL-3.0-or-later
#include "a2asimwire.h"

#include <QDateTime>
#include <QUuid>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

bool isTerminalA2aState(const QString &state)
{
    return state == A2aState::Completed || state == A2aState::Failed || state == A2aState::Canceled
           || state == A2aState::Rejected;
}

bool isInterruptedA2aState(const QString &state)
{
    return state == A2aState::InputRequired || state == A2aState::AuthRequired;
}

QString a2aUuid()
{
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
}

QString a2aTimestamp()
{
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
}

QJsonObject rpcResultEnvelope(const QJsonValue &id, const QJsonValue &result)
{
    return QJsonObject{{u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, id}, {u"result"_s, result}};
}

QJsonObject rpcErrorEnvelope(const QJsonValue &id, int code, const QString &message, const QString &reason)
{
    QJsonObject error{{u"code"_s, code}, {u"message"_s, message}};
    if (!reason.isEmpty()) {
        error.insert(u"data"_s,
                     QJsonArray{QJsonObject{{u"@type"_s, u"type.googleapis.com/google.rpc.ErrorInfo"_s},
                                            {u"reason"_s, reason},
                                            {u"domain"_s, u"a2a-protocol.org"_s}}});
    }
    return QJsonObject{{u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, id}, {u"error"_s, error}};
}

namespace {

QString stateV03(const QString &state)
{
    QString s = state.toLower();
    if (s.startsWith(u"task_state_"_s))
        s = s.mid(11);
    s.replace(u'_', u'-');
    return s;
}

QJsonArray partsV03(const QJsonArray &parts)
{
    QJsonArray out;
    for (const QJsonValue &v : parts) {
        const QJsonObject p = v.toObject();
        if (p.contains(u"text"_s)) {
            out.append(QJsonObject{{u"kind"_s, u"text"_s}, {u"text"_s, p.value(u"text"_s)}});
        } else if (p.contains(u"data"_s)) {
            out.append(QJsonObject{{u"kind"_s, u"data"_s}, {u"data"_s, p.value(u"data"_s)}});
        }
    }
    return out;
}

QJsonObject messageV03(const QJsonObject &m)
{
    QJsonObject o{{u"kind"_s, u"message"_s},
                  {u"messageId"_s, m.value(u"messageId"_s)},
                  {u"role"_s, m.value(u"role"_s).toString() == u"ROLE_USER"_s ? u"user"_s : u"agent"_s},
                  {u"parts"_s, partsV03(m.value(u"parts"_s).toArray())}};
    for (const QString &key : {u"taskId"_s, u"contextId"_s}) {
        if (m.contains(key))
            o.insert(key, m.value(key));
    }
    return o;
}

QJsonObject statusV03(const QJsonObject &s)
{
    QJsonObject o{{u"state"_s, stateV03(s.value(u"state"_s).toString())}};
    if (s.contains(u"message"_s))
        o.insert(u"message"_s, messageV03(s.value(u"message"_s).toObject()));
    if (s.contains(u"timestamp"_s))
        o.insert(u"timestamp"_s, s.value(u"timestamp"_s));
    return o;
}

QJsonObject artifactV03(const QJsonObject &a)
{
    QJsonObject o{{u"artifactId"_s, a.value(u"artifactId"_s)},
                  {u"parts"_s, partsV03(a.value(u"parts"_s).toArray())}};
    if (a.contains(u"name"_s))
        o.insert(u"name"_s, a.value(u"name"_s));
    return o;
}

} // namespace

QJsonObject taskV03(const QJsonObject &t)
{
    QJsonObject o{{u"kind"_s, u"task"_s},
                  {u"id"_s, t.value(u"id"_s)},
                  {u"contextId"_s, t.value(u"contextId"_s)},
                  {u"status"_s, statusV03(t.value(u"status"_s).toObject())}};
    if (t.contains(u"artifacts"_s)) {
        QJsonArray a;
        for (const QJsonValue &v : t.value(u"artifacts"_s).toArray())
            a.append(artifactV03(v.toObject()));
        o.insert(u"artifacts"_s, a);
    }
    if (t.contains(u"history"_s)) {
        QJsonArray h;
        for (const QJsonValue &v : t.value(u"history"_s).toArray())
            h.append(messageV03(v.toObject()));
        o.insert(u"history"_s, h);
    }
    return o;
}

QJsonObject responseV03(const QJsonObject &r)
{
    if (r.contains(u"task"_s))
        return taskV03(r.value(u"task"_s).toObject());
    if (r.contains(u"message"_s))
        return messageV03(r.value(u"message"_s).toObject());
    if (r.contains(u"statusUpdate"_s)) {
        const QJsonObject s = r.value(u"statusUpdate"_s).toObject();
        const QString state = s.value(u"status"_s).toObject().value(u"state"_s).toString();
        return {{u"kind"_s, u"status-update"_s},
                {u"taskId"_s, s.value(u"taskId"_s)},
                {u"contextId"_s, s.value(u"contextId"_s)},
                {u"status"_s, statusV03(s.value(u"status"_s).toObject())},
                {u"final"_s, isTerminalA2aState(state)}};
    }
    const QJsonObject a = r.value(u"artifactUpdate"_s).toObject();
    return {{u"kind"_s, u"artifact-update"_s},
            {u"taskId"_s, a.value(u"taskId"_s)},
            {u"contextId"_s, a.value(u"contextId"_s)},
            {u"artifact"_s, artifactV03(a.value(u"artifact"_s).toObject())},
            {u"append"_s, a.value(u"append"_s).toBool(false)},
            {u"lastChunk"_s, a.value(u"lastChunk"_s).toBool(false)}};
}

QString a2aMessageText(const QJsonObject &message)
{
    QString text;
    for (const QJsonValue &v : message.value(u"parts"_s).toArray())
        text += v.toObject().value(u"text"_s).toString();
    return text;
}

QJsonObject storedUserMessage(const QJsonObject &in, const QString &taskId, const QString &contextId)
{
    QJsonObject m{{u"messageId"_s, in.value(u"messageId"_s).toString(a2aUuid())},
                  {u"contextId"_s, contextId},
                  {u"taskId"_s, taskId},
                  {u"role"_s, u"ROLE_USER"_s},
                  {u"parts"_s, QJsonArray{QJsonObject{{u"text"_s, a2aMessageText(in)}}}}};
    return m;
}

} // namespace RunwatchSim
