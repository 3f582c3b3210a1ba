// SPDX-License-Identifier: GPL-3.0-or-later
// What tst_openaisim and tst_openaisim_foundry drive the OpenAI simulator with: a listening
// simulator, a plain QNetworkAccessManager client (never the connector's code), a minimal SSE
// reader and the reply of one request. Only those tests include it.
#pragma once

#include "openai/openaisim.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QSignalSpy>
#include <QStringList>
#include <QUrl>
#include <QtDebug>

#include <memory>

namespace OpenAiSimTest {

using namespace Qt::StringLiterals;

// Short intervals and four deltas: the tests' default simulator.
inline RunwatchSim::OpenAiSimConfig fastConfig()
{
    RunwatchSim::OpenAiSimConfig config;
    config.intervalMs = 1;
    config.deltas = 4;
    return config;
}

// A simulator listening on loopback, or null (and why, in the log) when it cannot listen.
inline std::unique_ptr<RunwatchSim::OpenAiSimulator> makeSim(const RunwatchSim::OpenAiSimConfig &config
                                                             = fastConfig())
{
    auto sim = std::make_unique<RunwatchSim::OpenAiSimulator>(config);
    if (!sim->listen()) {
        qWarning() << "listen failed" << sim->errorString();
        return nullptr;
    }
    return sim;
}

struct SseEvent
{
    QByteArray event;
    QByteArray data;
    QJsonObject json;
    bool validJson = false;
};

// Minimal SSE reader for the tests: line endings \n, \r\n or \r; comments skipped; one event per
// blank line. Returns complete events only.
inline QList<SseEvent> parseSse(const QByteArray &raw)
{
    QByteArray text = raw;
    text.replace("\r\n", "\n");
    text.replace('\r', '\n');
    QList<SseEvent> events;
    qsizetype start = 0;
    while (true) {
        const qsizetype end = text.indexOf("\n\n", start);
        if (end < 0)
            break;
        const QList<QByteArray> lines = text.mid(start, end - start).split('\n');
        start = end + 2;
        SseEvent event;
        bool any = false;
        for (const QByteArray &line : lines) {
            if (line.startsWith(':') || line.isEmpty())
                continue;
            const qsizetype colon = line.indexOf(':');
            const QByteArray field = colon < 0 ? line : line.left(colon);
            QByteArray value = colon < 0 ? QByteArray() : line.mid(colon + 1);
            if (value.startsWith(' '))
                value.remove(0, 1);
            if (field == "event") {
                event.event = value;
                any = true;
            } else if (field == "data") {
                event.data = event.data.isEmpty() ? value : event.data + '\n' + value;
                any = true;
            }
        }
        if (!any)
            continue;
        QJsonParseError error;
        const QJsonDocument document = QJsonDocument::fromJson(event.data, &error);
        event.validJson = error.error == QJsonParseError::NoError && document.isObject();
        event.json = document.object();
        events.append(event);
    }
    return events;
}

inline QStringList typesOf(const QList<SseEvent> &events)
{
    QStringList types;
    for (const SseEvent &event : events)
        types.append(event.json.value("type"_L1).toString());
    return types;
}

inline QString deltasOf(const QList<SseEvent> &events)
{
    QString text;
    for (const SseEvent &event : events) {
        if (event.json.value("type"_L1).toString() == "response.output_text.delta"_L1)
            text += event.json.value("delta"_L1).toString();
    }
    return text;
}

struct Reply
{
    int status = 0;
    QByteArray body;
    QNetworkReply::NetworkError error = QNetworkReply::NoError;
    QHash<QByteArray, QByteArray> headers; // lower-case names
    bool finished = false;

    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
    QJsonObject errorBody() const { return json().value("error"_L1).toObject(); }
    QList<SseEvent> events() const { return parseSse(body); }
};

inline Reply collect(QNetworkReply *reply, int timeoutMs = 10000)
{
    Reply result;
    if (!reply->isFinished()) {
        QSignalSpy spy(reply, &QNetworkReply::finished);
        spy.wait(timeoutMs);
    }
    result.finished = reply->isFinished();
    result.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    result.body = reply->readAll();
    result.error = reply->error();
    for (const auto &pair : reply->rawHeaderPairs())
        result.headers.insert(pair.first.toLower(), pair.second);
    reply->deleteLater();
    return result;
}

inline QByteArray toJson(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

class Client
{
public:
    explicit Client(const QUrl &base)
        : m_base(base.toString())
    {}

    QNetworkReply *start(const QByteArray &verb, const QString &path, const QByteArray &body = {},
                         const QList<QPair<QByteArray, QByteArray>> &headers = {})
    {
        QNetworkRequest request{QUrl(m_base + path)};
        if (!body.isEmpty())
            request.setHeader(QNetworkRequest::ContentTypeHeader, u"application/json"_s);
        for (const auto &[name, value] : headers)
            request.setRawHeader(name, value);
        return m_nam.sendCustomRequest(request, verb, body);
    }

    Reply send(const QByteArray &verb, const QString &path, const QByteArray &body = {},
               const QList<QPair<QByteArray, QByteArray>> &headers = {})
    {
        return collect(start(verb, path, body, headers));
    }

    Reply create(const QJsonObject &body, const QList<QPair<QByteArray, QByteArray>> &headers = {})
    {
        return send("POST", u"/responses"_s, toJson(body), headers);
    }

    Reply get(const QString &path) { return send("GET", path); }

private:
    QString m_base;
    QNetworkAccessManager m_nam;
};

} // namespace OpenAiSimTest
