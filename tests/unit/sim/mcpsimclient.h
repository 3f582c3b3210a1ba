// SPDX-License-Identifier: GPL-3.0-or-later
// What tst_mcp_sim drives the simulator with: a plain QNetworkAccessManager client (never the
// connector's code) that speaks JSON-RPC over Streamable HTTP — the bearer token, the session and
// protocol-version headers, SSE replies read whole or as they arrive — and the simulator's
// deterministic text. Only that test includes it.
#pragma once

#include "mcp/mcpsim.h"
#include "mcp/mcpsimoptions.h"
#include "mcp/mcpsimwire.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QtTest>

#include <functional>

namespace McpSimTest {

using namespace RunwatchSim;
using namespace Qt::StringLiterals;

inline const QByteArray kToken = "sim-token";

// The `data:` payloads of an SSE body, any line ending; an event cut short at the end is left out.
inline QList<QByteArray> sseData(QByteArray body)
{
    body.replace("\r\n", "\n").replace('\r', '\n');
    QList<QByteArray> out;
    QByteArray data;
    bool inEvent = false;
    for (const QByteArray &line : body.split('\n')) {
        if (line.isEmpty()) {
            if (inEvent)
                out.append(data);
            data.clear();
            inEvent = false;
        } else if (line.startsWith("data: ")) {
            data += line.mid(6);
            inEvent = true;
        } else if (line.startsWith("event: ")) {
            inEvent = true;
        }
    }
    return out;
}

inline QList<QJsonObject> sseMessages(const QByteArray &body)
{
    QList<QJsonObject> out;
    for (const QByteArray &data : sseData(body))
        out.append(QJsonDocument::fromJson(data).object());
    return out;
}

struct Reply
{
    int status = 0;
    QByteArray body;
    QList<QNetworkReply::RawHeaderPair> headers;

    QByteArray header(const QByteArray &name) const
    {
        for (const auto &h : headers) {
            if (h.first.compare(name, Qt::CaseInsensitive) == 0)
                return h.second;
        }
        return {};
    }
    bool isSse() const { return header("content-type").startsWith("text/event-stream"); }
    // The JSON-RPC messages: every SSE event, or the one JSON body.
    QList<QJsonObject> messages() const
    {
        return isSse() ? sseMessages(body) : QList<QJsonObject>{QJsonDocument::fromJson(body).object()};
    }
    // The last message (the response of a request's reply).
    QJsonObject last() const
    {
        const QList<QJsonObject> all = messages();
        return all.isEmpty() ? QJsonObject() : all.last();
    }
    QJsonObject result() const { return last().value(u"result"_s).toObject(); }
    QJsonObject error() const { return last().value(u"error"_s).toObject(); }
};

inline Reply finish(QNetworkReply *reply, int waitMs = 20000)
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

// An SSE reply read as it arrives.
class Stream
{
public:
    explicit Stream(QNetworkReply *reply)
        : m_reply(reply)
    {
        QObject::connect(reply, &QNetworkReply::readyRead, reply, [this] { m_body += m_reply->readAll(); });
    }
    ~Stream()
    {
        if (m_reply) {
            m_reply->abort();
            m_reply->deleteLater();
        }
    }
    Q_DISABLE_COPY_MOVE(Stream)

    QList<QJsonObject> messages() const { return sseMessages(m_body); }
    const QByteArray &body() const { return m_body; }
    bool isFinished() const { return m_reply->isFinished(); }
    QNetworkReply::NetworkError error() const { return m_reply->error(); }
    bool waitForMessages(qsizetype count, int ms = 10000)
    {
        return waitUntil([&] { return messages().size() >= count; }, ms);
    }
    bool waitFinished(int ms = 10000)
    {
        return waitUntil([&] { return m_reply->isFinished(); }, ms);
    }

    static bool waitUntil(const std::function<bool()> &condition, int ms)
    {
        QElapsedTimer timer;
        timer.start();
        while (!condition()) {
            if (timer.elapsed() > ms)
                return false;
            QTest::qWait(5);
        }
        return true;
    }

private:
    QNetworkReply *m_reply = nullptr;
    QByteArray m_body;
};

class Client
{
public:
    explicit Client(QUrl endpoint, QByteArray token = kToken)
        : m_endpoint(std::move(endpoint))
        , m_token(std::move(token))
    {}

    QString sessionId;
    QByteArray version; // MCP-Protocol-Version sent after initialize
    QByteArray accept = "application/json, text/event-stream";
    QList<QPair<QByteArray, QByteArray>> extraHeaders;

    QNetworkReply *start(const QByteArray &method, const QByteArray &body = {})
    {
        QNetworkRequest request(m_endpoint);
        if (!body.isEmpty())
            request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        request.setRawHeader("Accept", method == "GET" ? QByteArrayLiteral("text/event-stream") : accept);
        if (!m_token.isEmpty())
            request.setRawHeader("Authorization", "Bearer " + m_token);
        if (!sessionId.isEmpty())
            request.setRawHeader("mcp-session-id", sessionId.toLatin1());
        if (!version.isEmpty())
            request.setRawHeader("mcp-protocol-version", version);
        for (const auto &[name, value] : std::as_const(extraHeaders))
            request.setRawHeader(name, value);
        return m_nam.sendCustomRequest(request, method, body);
    }
    QNetworkReply *startPost(const QJsonObject &message) { return start("POST", compactJson(message)); }
    Reply post(const QJsonObject &message) { return finish(startPost(message)); }

    QJsonObject request(const QString &method, const QJsonObject &params = {})
    {
        QJsonObject message{{u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, ++m_nextId}, {u"method"_s, method}};
        if (!params.isEmpty())
            message.insert(u"params"_s, params);
        return message;
    }
    // A request's whole reply.
    Reply rpc(const QString &method, const QJsonObject &params = {}) { return post(request(method, params)); }

    // initialize + notifications/initialized; false when either went wrong.
    bool initialize(const QJsonObject &capabilities
                    = QJsonObject{{u"elicitation"_s, QJsonObject{{u"form"_s, QJsonObject()}}}},
                    const QString &protocolVersion = u"2025-11-25"_s)
    {
        sessionId.clear();
        version.clear();
        const Reply init
            = rpc(u"initialize"_s,
                  QJsonObject{{u"protocolVersion"_s, protocolVersion},
                              {u"capabilities"_s, capabilities},
                              {u"clientInfo"_s, QJsonObject{{u"name"_s, u"tst"_s}, {u"version"_s, u"1"_s}}}});
        sessionId = QString::fromLatin1(init.header("mcp-session-id"));
        version = init.result().value(u"protocolVersion"_s).toString().toLatin1();
        const Reply initialized
            = post(QJsonObject{{u"jsonrpc"_s, u"2.0"_s}, {u"method"_s, u"notifications/initialized"_s}});
        return init.status == 200 && !sessionId.isEmpty() && initialized.status == 202;
    }

    // tools/call with params.task ({ttl}, or {} when `ttl` < 0): the task id, empty when refused.
    QString startTask(const QString &tool, const QJsonObject &arguments,
                      const QJsonValue &progressToken = QJsonValue(QJsonValue::Undefined), double ttl = 60000)
    {
        QJsonObject params{{u"name"_s, tool},
                           {u"arguments"_s, arguments},
                           {u"task"_s, ttl < 0 ? QJsonObject() : QJsonObject{{u"ttl"_s, ttl}}}};
        if (!progressToken.isUndefined())
            params.insert(u"_meta"_s, QJsonObject{{u"progressToken"_s, progressToken}});
        return rpc(u"tools/call"_s, params).result()[u"task"_s][u"taskId"_s].toString();
    }
    QJsonObject getTask(const QString &taskId)
    {
        return rpc(u"tasks/get"_s, {{u"taskId"_s, taskId}}).result();
    }
    // Polls until the task has one of `statuses`; its last tasks/get result.
    QJsonObject waitStatus(const QString &taskId, const QStringList &statuses, int ms = 10000)
    {
        QJsonObject task;
        Stream::waitUntil(
            [&] {
                task = getTask(taskId);
                return statuses.contains(task.value(u"status"_s).toString());
            },
            ms);
        return task;
    }
    // tasks/result as a stream read while it arrives.
    QNetworkReply *startResult(const QString &taskId)
    {
        return startPost(request(u"tasks/result"_s, {{u"taskId"_s, taskId}}));
    }
    // The answer to the server's request `id`: 202 expected.
    Reply answer(const QJsonValue &id, const QJsonObject &result)
    {
        return post(QJsonObject{{u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, id}, {u"result"_s, result}});
    }

private:
    QUrl m_endpoint;
    QByteArray m_token;
    QNetworkAccessManager m_nam;
    int m_nextId = 0;
};

inline McpSimConfig fastConfig()
{
    McpSimConfig c;
    c.bearerToken = QString::fromLatin1(kToken);
    c.intervalMs = 2;
    c.pollIntervalMs = 20;
    return c;
}

// What the simulator writes for `count` pieces.
inline QString expectedText(int count)
{
    QString text;
    for (int i = 0; i < count; ++i)
        text += mcpPieceText(i);
    return text;
}

inline QString textOf(const QJsonObject &callToolResult)
{
    QString text;
    for (const QJsonValue &item : callToolResult.value(u"content"_s).toArray())
        text += item[u"text"_s].toString();
    return text;
}

} // namespace McpSimTest
