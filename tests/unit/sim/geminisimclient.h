// SPDX-License-Identifier: GPL-3.0-or-later
// What tst_gemini_sim drives the simulator with: a plain QNetworkAccessManager client (never the
// connector's code) that sends x-goog-api-key, an SSE reader of `event:`/`data:` frames, the
// simulator's deterministic text, and waits on its interactions. Only that test includes it.
#pragma once

#include "gemini/geminisim.h"
#include "gemini/geminisimoptions.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QtTest>

namespace GeminiSimTest {

using namespace RunwatchSim;
using namespace Qt::StringLiterals;

inline const QByteArray kKey = "sim-key";
inline const QString kModel = u"gemini-3-flash-preview"_s;
inline const QString kAgent = u"deep-research-pro-preview-12-2025"_s;

struct Reply
{
    int status = 0;
    QByteArray body;
    QList<QNetworkReply::RawHeaderPair> headers;

    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
    QJsonObject error() const { return json().value(u"error"_s).toObject(); }
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
    QJsonObject json() const { return QJsonDocument::fromJson(data).object(); }
    QString eventId() const { return json().value(u"event_id"_s).toString(); }
};

// Frames of an SSE body, any line ending; a frame cut short at the end is left out.
inline QList<Ev> parseSse(QByteArray body)
{
    body.replace("\r\n", "\n").replace('\r', '\n');
    QList<Ev> out;
    const QList<QByteArray> frames = body.split('\n');
    Ev current;
    for (const QByteArray &line : frames) {
        if (line.isEmpty()) {
            if (!current.event.isEmpty() || !current.data.isEmpty())
                out.append(current);
            current = Ev();
        } else if (line.startsWith("event: ")) {
            current.event = line.mid(7);
        } else if (line.startsWith("data: ")) {
            current.data = line.mid(6);
        }
    }
    return out;
}

inline QList<QByteArray> typesOf(const QList<Ev> &events)
{
    QList<QByteArray> types;
    for (const Ev &e : events)
        types.append(e.event);
    return types;
}

// The text deltas, joined.
inline QString textOf(const QList<Ev> &events)
{
    QString text;
    for (const Ev &e : events) {
        const QJsonObject delta = e.json().value(u"delta"_s).toObject();
        if (e.event == "step.delta" && delta.value(u"type"_s).toString() == "text"_L1)
            text += delta.value(u"text"_s).toString();
    }
    return text;
}

inline QString lastIdOf(const QList<Ev> &events, const QString &before = QString())
{
    QString last = before;
    for (const Ev &e : events) {
        if (!e.eventId().isEmpty())
            last = e.eventId();
    }
    return last;
}

// What the simulator streams for `count` deltas after `prefix`.
inline QString expectedText(int count, const QString &prefix = QString())
{
    QString text = prefix;
    for (int i = 0; i < count; ++i)
        text += geminiDeltaText(i);
    return text;
}

class Client
{
public:
    explicit Client(QUrl base, QByteArray key = kKey)
        : m_base(std::move(base))
        , m_key(std::move(key))
    {}

    QNetworkReply *start(const QByteArray &method, const QString &path, const QByteArray &body = {})
    {
        QUrl url = m_base;
        const qsizetype q = path.indexOf(u'?');
        url.setPath(q < 0 ? path : path.left(q));
        if (q >= 0)
            url.setQuery(path.mid(q + 1));
        QNetworkRequest request(url);
        if (!body.isEmpty())
            request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        if (!m_key.isEmpty())
            request.setRawHeader("x-goog-api-key", m_key);
        return m_nam.sendCustomRequest(request, method, body);
    }

    static Reply finish(QNetworkReply *reply, int waitMs = 20000)
    {
        QSignalSpy done(reply, &QNetworkReply::finished);
        if (!reply->isFinished())
            done.wait(waitMs);
        Reply r;
        r.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        r.body = reply->readAll();
        r.headers = reply->rawHeaderPairs();
        reply->deleteLater();
        return r;
    }

    Reply send(const QByteArray &method, const QString &path, const QJsonObject &body = {})
    {
        return finish(start(method, path, body.isEmpty() ? QByteArray() : compactJson(body)));
    }
    Reply create(const QJsonObject &body) { return send("POST", u"/v1beta/interactions"_s, body); }
    Reply get(const QString &id, const QString &query = QString())
    {
        return send("GET", u"/v1beta/interactions/"_s + id + (query.isEmpty() ? QString() : u'?' + query));
    }
    // The events of a streamed create: background, a model unless `extra` names an agent.
    QList<Ev> stream(const QString &input, QJsonObject extra = {})
    {
        if (!extra.contains(u"agent"_s) && !extra.contains(u"model"_s))
            extra.insert(u"model"_s, kModel);
        extra.insert(u"input"_s, input);
        extra.insert(u"stream"_s, true);
        if (!extra.contains(u"background"_s))
            extra.insert(u"background"_s, true);
        return parseSse(create(extra).body);
    }
    // GET ?stream=true, after `lastEventId` when given.
    QList<Ev> resume(const QString &id, const QString &lastEventId = QString())
    {
        return parseSse(
            get(id, lastEventId.isEmpty() ? u"stream=true"_s : u"stream=true&last_event_id="_s + lastEventId)
                .body);
    }

private:
    QUrl m_base;
    QByteArray m_key;
    QNetworkAccessManager m_nam;
};

inline GeminiSimConfig fastConfig()
{
    GeminiSimConfig c;
    c.apiKey = QString::fromLatin1(kKey);
    c.intervalMs = 2;
    return c;
}

inline QString idOf(const QList<Ev> &events)
{
    return events.isEmpty()
               ? QString()
               : events.first().json().value(u"interaction"_s).toObject().value(u"id"_s).toString();
}

inline bool waitEnded(const GeminiSimulator &sim, const QString &id, int ms = 10000)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms) {
        if (sim.interaction(id) && sim.interaction(id)->ended)
            return true;
        QTest::qWait(5);
    }
    return false;
}

} // namespace GeminiSimTest
