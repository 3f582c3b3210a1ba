// SPDX-License-Identifier: GPL-3.0-or-later
// What tst_langgraph_sim drives the simulator with: a plain QNetworkAccessManager client (never
// the connector's code), an SSE reader that keeps each event's id, and waits on the simulator's
// run states. Only that test includes it.
#pragma once

#include "langgraph/langgraphsim.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QtTest>

namespace LangGraphSimTest {

using namespace RunwatchSim;
using namespace Qt::StringLiterals;

inline const QString kBusy = u"Thread is already running a task. Wait for it to finish or choose a different "
                             u"multitask strategy."_s;
inline const QStringList kModes{u"messages-tuple"_s, u"updates"_s, u"custom"_s};

struct Reply
{
    int status = 0;
    QByteArray body;
    QList<QNetworkReply::RawHeaderPair> headers;
    qint64 ms = 0;

    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
    QJsonArray array() const { return QJsonDocument::fromJson(body).array(); }
    QByteArray header(const QByteArray &name) const
    {
        for (const auto &h : headers) {
            if (h.first.compare(name, Qt::CaseInsensitive) == 0)
                return h.second;
        }
        return {};
    }
};

struct Ev
{
    QByteArray event;
    QByteArray data;
    qint64 id = -1;
    QByteArray fields; // first letter of each field line in order: "edi" for event, data, id
    QJsonObject json() const { return QJsonDocument::fromJson(data).object(); }
    QJsonArray array() const { return QJsonDocument::fromJson(data).array(); }
};

inline QList<Ev> parseSse(const QByteArray &body)
{
    QList<Ev> out;
    Ev current;
    for (const QByteArray &line : body.split('\n')) {
        if (line.isEmpty()) {
            if (!current.fields.isEmpty())
                out.append(current);
            current = Ev();
        } else if (line.startsWith("event: ")) {
            current.event = line.mid(7);
            current.fields += 'e';
        } else if (line.startsWith("data: ")) {
            current.data = line.mid(6);
            current.fields += 'd';
        } else if (line.startsWith("id: ")) {
            current.id = line.mid(4).toLongLong();
            current.fields += 'i';
        }
    }
    return out;
}

inline QList<qint64> idsOf(const QList<Ev> &events)
{
    QList<qint64> ids;
    for (const Ev &e : events)
        ids.append(e.id);
    return ids;
}

inline QList<QByteArray> namesOf(const QList<Ev> &events)
{
    QList<QByteArray> names;
    for (const Ev &e : events)
        names.append(e.event);
    return names;
}

inline QString tokensText(const QList<Ev> &events)
{
    QString text;
    for (const Ev &e : events) {
        if (e.event == "messages")
            text += e.array().at(0).toObject().value(u"content"_s).toString();
    }
    return text;
}

inline QString lastAiText(const QJsonObject &state)
{
    QString text;
    for (const QJsonValue &m : state.value(u"values"_s).toObject().value(u"messages"_s).toArray()) {
        if (m.toObject().value(u"type"_s).toString() == "ai"_L1)
            text = m.toObject().value(u"content"_s).toString();
    }
    return text;
}

inline QJsonArray userInput(const QString &text)
{
    return QJsonArray{QJsonObject{{u"role"_s, u"user"_s}, {u"content"_s, text}}};
}

class Client
{
public:
    explicit Client(QUrl base)
        : m_base(std::move(base))
    {}

    QNetworkReply *start(const QByteArray &method, const QString &path, const QByteArray &body = {},
                         const QList<QPair<QByteArray, QByteArray>> &headers = {})
    {
        QUrl url = m_base;
        const qsizetype q = path.indexOf(u'?');
        url.setPath(q < 0 ? path : path.left(q));
        if (q >= 0)
            url.setQuery(path.mid(q + 1));
        QNetworkRequest request(url);
        if (!body.isEmpty())
            request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        for (const auto &h : headers)
            request.setRawHeader(h.first, h.second);
        return m_nam.sendCustomRequest(request, method, body);
    }

    static Reply finish(QNetworkReply *reply, int waitMs = 20000)
    {
        QElapsedTimer clock;
        clock.start();
        QSignalSpy done(reply, &QNetworkReply::finished);
        if (!reply->isFinished())
            done.wait(waitMs);
        Reply r;
        r.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        r.body = reply->readAll();
        r.headers = reply->rawHeaderPairs();
        r.ms = clock.elapsed();
        reply->deleteLater();
        return r;
    }

    Reply send(const QByteArray &method, const QString &path, const QJsonValue &body = QJsonValue::Undefined,
               const QList<QPair<QByteArray, QByteArray>> &headers = {})
    {
        QByteArray payload;
        if (body.isObject())
            payload = QJsonDocument(body.toObject()).toJson(QJsonDocument::Compact);
        return finish(start(method, path, payload, headers));
    }

    QString createThread(const QJsonObject &metadata = {})
    {
        return send("POST", u"/threads"_s, QJsonObject{{u"metadata"_s, metadata}})
            .json()
            .value(u"thread_id"_s)
            .toString();
    }

    Reply createRun(const QString &thread, const QJsonObject &extra, const QStringList &modes = kModes,
                    bool resumable = true)
    {
        QJsonObject body = extra;
        body.insert(u"stream_mode"_s, QJsonArray::fromStringList(modes));
        if (resumable)
            body.insert(u"stream_resumable"_s, true);
        return send("POST", u"/threads/%1/runs"_s.arg(thread), body);
    }

    // A run with a user message; its id.
    QString run(const QString &thread, const QString &graph, const QString &text,
                const QStringList &modes = kModes, bool resumable = true)
    {
        return createRun(thread,
                         QJsonObject{{u"assistant_id"_s, graph},
                                     {u"input"_s, QJsonObject{{u"messages"_s, userInput(text)}}}},
                         modes, resumable)
            .json()
            .value(u"run_id"_s)
            .toString();
    }

    QString resume(const QString &thread, const QString &graph, const QJsonValue &value,
                   const QStringList &modes = kModes)
    {
        return createRun(
                   thread,
                   QJsonObject{{u"assistant_id"_s, graph}, {u"command"_s, QJsonObject{{u"resume"_s, value}}}},
                   modes)
            .json()
            .value(u"run_id"_s)
            .toString();
    }

    // GET …/stream; `lastEventId` null: no header.
    QNetworkReply *startJoin(const QString &thread, const QString &run, const QByteArray &lastEventId = {})
    {
        QList<QPair<QByteArray, QByteArray>> headers;
        if (!lastEventId.isNull())
            headers.append({"Last-Event-ID", lastEventId});
        return start("GET", u"/threads/%1/runs/%2/stream"_s.arg(thread, run), {}, headers);
    }
    QList<Ev> join(const QString &thread, const QString &run, const QByteArray &lastEventId = {})
    {
        return parseSse(finish(startJoin(thread, run, lastEventId)).body);
    }

private:
    QUrl m_base;
    QNetworkAccessManager m_nam;
};

inline LangGraphSimConfig fastConfig()
{
    LangGraphSimConfig c;
    c.intervalMs = 2;
    c.queuedMs = 5;
    c.slowIntervalMs = 20;
    c.closeDelayMs = 50;
    return c;
}

inline bool waitEnded(const LangGraphSimulator &sim, const QString &id, int ms = 10000)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms) {
        if (sim.run(id) && sim.run(id)->ended)
            return true;
        QTest::qWait(5);
    }
    return false;
}

inline bool waitStatus(const LangGraphSimulator &sim, const QString &id, const QString &status,
                       int ms = 10000)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms) {
        if (sim.run(id) && sim.run(id)->status == status)
            return true;
        QTest::qWait(2);
    }
    return false;
}

// The one pending interrupt of a thread: {task id, interrupt}.
inline std::pair<QString, QJsonObject> onlyInterrupt(const QJsonObject &thread)
{
    const QJsonObject interrupts = thread.value(u"interrupts"_s).toObject();
    if (interrupts.size() != 1)
        return {};
    const QJsonArray list = interrupts.begin().value().toArray();
    return {interrupts.begin().key(), list.size() == 1 ? list.at(0).toObject() : QJsonObject()};
}

} // namespace LangGraphSimTest
