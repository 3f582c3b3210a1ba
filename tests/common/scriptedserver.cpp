// SPDX-License-Identifier: GPL-3.0-or-later
#include "scriptedserver.h"

#include <QHostAddress>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTcpSocket>
#include <QTimer>

#ifdef Q_OS_UNIX
#include <sys/socket.h>
#endif

using namespace Qt::StringLiterals;

namespace RunwatchTest {

namespace {

// Requests larger than this are a bug in the test or the client: answer 413 and hang up rather
// than buffering without end.
constexpr qsizetype kMaxRequestBytes = 16 * 1024 * 1024;

QByteArray defaultReason(int status)
{
    static const QHash<int, QByteArray> reasons{
        {200, "OK"},
        {201, "Created"},
        {204, "No Content"},
        {301, "Moved Permanently"},
        {302, "Found"},
        {303, "See Other"},
        {307, "Temporary Redirect"},
        {308, "Permanent Redirect"},
        {400, "Bad Request"},
        {401, "Unauthorized"},
        {403, "Forbidden"},
        {404, "Not Found"},
        {408, "Request Timeout"},
        {409, "Conflict"},
        {410, "Gone"},
        {413, "Content Too Large"},
        {429, "Too Many Requests"},
        {500, "Internal Server Error"},
        {501, "Not Implemented"},
        {502, "Bad Gateway"},
        {503, "Service Unavailable"},
        {504, "Gateway Timeout"},
    };
    return reasons.value(status, "Status");
}

bool hasHeader(const HeaderList &headers, QByteArrayView name)
{
    for (const auto &h : headers) {
        if (h.first.compare(name, Qt::CaseInsensitive) == 0)
            return true;
    }
    return false;
}

QByteArray headBlock(const ScriptedReply &reply, const QByteArray &framing)
{
    QByteArray out = "HTTP/1.1 " + QByteArray::number(reply.status) + ' '
                     + (reply.reason.isEmpty() ? defaultReason(reply.status) : reply.reason) + "\r\n";
    for (const auto &h : reply.headers)
        out += h.first + ": " + h.second + "\r\n";
    out += framing;
    if (reply.closeConnection && !hasHeader(reply.headers, "connection"))
        out += "Connection: close\r\n";
    out += "\r\n";
    return out;
}

QByteArray chunk(const QByteArray &data)
{
    return QByteArray::number(data.size(), 16) + "\r\n" + data + "\r\n";
}

void resetConnection(QTcpSocket *socket)
{
#ifdef Q_OS_UNIX
    // SO_LINGER with a zero timeout makes close() send RST instead of FIN.
    const qintptr fd = socket->socketDescriptor();
    if (fd >= 0) {
        struct linger lg
        {
            1, 0
        };
        ::setsockopt(static_cast<int>(fd), SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    }
#endif
    socket->abort();
}

} // namespace

// ---------------------------------------------------------------------------------------------

ScriptedReply ScriptedReply::json(int status, const QByteArray &body, HeaderList headers)
{
    return text(status, "application/json", body, std::move(headers));
}

ScriptedReply ScriptedReply::text(int status, const QByteArray &contentType, const QByteArray &body,
                                  HeaderList headers)
{
    ScriptedReply r;
    r.status = status;
    r.headers = std::move(headers);
    if (!hasHeader(r.headers, "content-type"))
        r.headers.prepend({"Content-Type", contentType});
    r.body = body;
    return r;
}

ScriptedReply ScriptedReply::openAiError(int status, const QByteArray &message, const QByteArray &type,
                                         const QByteArray &code, HeaderList headers)
{
    QJsonObject error{
        {u"message"_s, QString::fromUtf8(message)},
        {u"type"_s, QString::fromUtf8(type)},
        {u"param"_s, QJsonValue::Null},
        {u"code"_s, code.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(QString::fromUtf8(code))},
    };
    const QByteArray body = QJsonDocument(QJsonObject{{u"error"_s, error}}).toJson(QJsonDocument::Compact);
    return json(status, body, std::move(headers));
}

ScriptedReply ScriptedReply::redirect(int status, const QByteArray &location)
{
    ScriptedReply r;
    r.status = status;
    r.headers = {{"Location", location}};
    return r;
}

ScriptedReply ScriptedReply::stream(int status, HeaderList headers, QList<Chunk> chunks)
{
    ScriptedReply r;
    r.status = status;
    r.headers = std::move(headers);
    r.chunks = std::move(chunks);
    return r;
}

ScriptedReply ScriptedReply::hold(int status, HeaderList headers)
{
    ScriptedReply r;
    r.action = Action::Hold;
    r.status = status;
    r.headers = std::move(headers);
    return r;
}

ScriptedReply ScriptedReply::closeWithoutAnswer()
{
    ScriptedReply r;
    r.action = Action::CloseWithoutAnswer;
    return r;
}

ScriptedReply ScriptedReply::resetWithoutAnswer()
{
    ScriptedReply r;
    r.action = Action::ResetWithoutAnswer;
    return r;
}

ScriptedReply ScriptedReply::neverAnswer()
{
    ScriptedReply r;
    r.action = Action::NeverAnswer;
    return r;
}

ScriptedReply ScriptedReply::headersThenDrop(int status, HeaderList headers, qint64 promisedLength)
{
    ScriptedReply r;
    r.action = Action::HeadersThenDrop;
    r.status = status;
    r.headers = std::move(headers);
    r.headers.append({"Content-Length", QByteArray::number(promisedLength)});
    return r;
}

QByteArray RecordedRequest::header(QByteArrayView lowerName) const
{
    for (const auto &h : headers) {
        if (h.first.compare(lowerName, Qt::CaseInsensitive) == 0)
            return h.second;
    }
    return {};
}

// ---------------------------------------------------------------------------------------------

struct ScriptedServer::Connection
{
    QPointer<QTcpSocket> socket;
    QByteArray buffer;
    bool busy = false; // a reply is being produced; later requests wait in `buffer`
};

ScriptedServer::ScriptedServer(QObject *parent)
    : QObject(parent)
{
    m_clock.start();
    connect(&m_server, &QTcpServer::newConnection, this, &ScriptedServer::onNewConnection);
    if (!m_server.listen(QHostAddress::LocalHost, 0))
        qWarning("ScriptedServer: cannot listen: %s", qPrintable(m_server.errorString()));
}

ScriptedServer::~ScriptedServer()
{
    close();
}

QUrl ScriptedServer::url(const QString &pathAndQuery) const
{
    return QUrl(u"http://127.0.0.1:%1%2"_s.arg(port()).arg(pathAndQuery));
}

void ScriptedServer::enqueue(const QByteArray &path, const ScriptedReply &reply, int times)
{
    auto &queue = m_script[path];
    for (int i = 0; i < times; ++i)
        queue.push_back(reply);
}

int ScriptedServer::pendingReplies(const QByteArray &path) const
{
    const auto it = m_script.constFind(path);
    return it == m_script.cend() ? 0 : static_cast<int>(it->size());
}

QList<RecordedRequest> ScriptedServer::requests(const QByteArray &path) const
{
    QList<RecordedRequest> out;
    for (const auto &r : m_requests) {
        if (r.path == path || r.target == path)
            out.append(r);
    }
    return out;
}

int ScriptedServer::requestCount(const QByteArray &path) const
{
    return static_cast<int>(requests(path).size());
}

void ScriptedServer::close()
{
    m_server.close();
    const auto connections = m_connections;
    m_connections.clear();
    m_held.clear();
    for (const auto &c : connections) {
        if (!c->socket)
            continue;
        // Our slots must not run for sockets torn down here (possibly from our destructor).
        disconnect(c->socket, nullptr, this, nullptr);
        c->socket->abort();
        c->socket->deleteLater();
    }
}

void ScriptedServer::onNewConnection()
{
    while (QTcpSocket *socket = m_server.nextPendingConnection()) {
        auto connection = std::make_shared<Connection>();
        connection->socket = socket;
        m_connections.insert(socket, connection);
        connect(socket, &QTcpSocket::readyRead, this, [this, socket] { onReadyRead(socket); });
        connect(socket, &QTcpSocket::disconnected, this, [this, socket] {
            m_connections.remove(socket);
            socket->deleteLater();
            Q_EMIT connectionClosed();
        });
    }
}

void ScriptedServer::onReadyRead(QTcpSocket *socket)
{
    const auto connection = m_connections.value(socket);
    if (!connection)
        return;
    connection->buffer += socket->readAll();
    processBuffer(connection);
}

void ScriptedServer::processBuffer(const std::shared_ptr<Connection> &connection)
{
    if (connection->busy || !connection->socket)
        return;
    QByteArray &buf = connection->buffer;
    const qsizetype headEnd = buf.indexOf("\r\n\r\n");
    if (headEnd < 0) {
        if (buf.size() > kMaxRequestBytes)
            connection->socket->abort();
        return;
    }
    const QList<QByteArray> lines = buf.left(headEnd).split('\n');
    const QList<QByteArray> requestLine = lines.value(0).trimmed().split(' ');
    RecordedRequest request;
    qint64 contentLength = 0;
    bool chunkedBody = false;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray line = lines.at(i).trimmed();
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0)
            continue;
        const QByteArray name = line.left(colon).trimmed().toLower();
        const QByteArray value = line.mid(colon + 1).trimmed();
        request.headers.append({name, value});
        if (name == "content-length") {
            contentLength = value.toLongLong();
        } else if (name == "transfer-encoding" && value.toLower().contains("chunked")) {
            chunkedBody = true;
        }
    }
    const bool malformed = requestLine.size() != 3 || !requestLine.at(2).startsWith("HTTP/1.")
                           || contentLength < 0 || contentLength > kMaxRequestBytes || chunkedBody;
    if (malformed) {
        ScriptedReply bad = ScriptedReply::openAiError(chunkedBody ? 501 : 400,
                                                       "scripted server: malformed or unsupported request",
                                                       "invalid_request_error", {});
        bad.closeConnection = true;
        connection->busy = true;
        buf.clear();
        answer(connection, bad, request);
        return;
    }
    const qsizetype bodyStart = headEnd + 4;
    if (buf.size() - bodyStart < contentLength)
        return; // wait for the rest of the body
    request.method = requestLine.at(0);
    request.target = requestLine.at(1);
    request.path = request.target.left(request.target.indexOf('?') < 0 ? request.target.size()
                                                                       : request.target.indexOf('?'));
    request.body = buf.mid(bodyStart, contentLength);
    request.receivedAtMs = m_clock.elapsed();
    request.peerPort = connection->socket->peerPort();
    buf.remove(0, bodyStart + contentLength);

    connection->busy = true;
    m_requests.append(request);
    const ScriptedReply reply = takeReply(request);
    Q_EMIT requestReceived(request);
    if (reply.delayMs > 0) {
        QTimer::singleShot(reply.delayMs, connection->socket,
                           [this, connection, reply, request] { answer(connection, reply, request); });
    } else {
        answer(connection, reply, request);
    }
}

ScriptedReply ScriptedServer::takeReply(const RecordedRequest &request)
{
    for (const QByteArray &key : {request.target, request.path}) {
        auto it = m_script.find(key);
        if (it != m_script.end() && !it->empty()) {
            ScriptedReply reply = it->front();
            it->pop_front();
            return reply;
        }
    }
    return ScriptedReply::openAiError(
        404, "scripted server: no reply queued for " + request.method + ' ' + request.target,
        "invalid_request_error", "scripted_server_unexpected_request");
}

void ScriptedServer::answer(const std::shared_ptr<Connection> &connection, const ScriptedReply &reply,
                            const RecordedRequest &request)
{
    QTcpSocket *socket = connection->socket;
    if (!socket)
        return;
    const bool head = request.method == "HEAD";
    switch (reply.action) {
    case ScriptedReply::Action::CloseWithoutAnswer:
        socket->disconnectFromHost();
        return;
    case ScriptedReply::Action::ResetWithoutAnswer:
        resetConnection(socket);
        return;
    case ScriptedReply::Action::NeverAnswer:
        return; // stays busy: nothing more is answered on this connection
    case ScriptedReply::Action::HeadersThenDrop:
        socket->write(headBlock(reply, {}));
        socket->write(reply.body);
        socket->disconnectFromHost();
        return;
    case ScriptedReply::Action::Hold:
        socket->write(headBlock(reply, "Transfer-Encoding: chunked\r\n"));
        m_held.append(Held{connection});
        return;
    case ScriptedReply::Action::Respond:
        break;
    }
    if (!reply.chunks.isEmpty() && !head) {
        socket->write(headBlock(reply, "Transfer-Encoding: chunked\r\n"));
        sendChunks(connection, reply, 0);
        return;
    }
    const QByteArray framing = hasHeader(reply.headers, "content-length")
                                   ? QByteArray()
                                   : "Content-Length: " + QByteArray::number(reply.body.size()) + "\r\n";
    socket->write(headBlock(reply, framing));
    if (!head)
        socket->write(reply.body);
    replyDone(connection, reply.closeConnection);
}

void ScriptedServer::sendChunks(const std::shared_ptr<Connection> &connection, const ScriptedReply &reply,
                                int index)
{
    QTcpSocket *socket = connection->socket;
    if (!socket)
        return;
    if (index >= reply.chunks.size()) {
        if (reply.dropAfterChunks) {
            socket->disconnectFromHost();
            return;
        }
        socket->write("0\r\n\r\n");
        replyDone(connection, reply.closeConnection);
        return;
    }
    QTimer::singleShot(reply.chunks.at(index).delayMs, socket, [this, connection, reply, index] {
        if (!connection->socket)
            return;
        if (const QByteArray &data = reply.chunks.at(index).data; !data.isEmpty())
            connection->socket->write(chunk(data));
        sendChunks(connection, reply, index + 1);
    });
}

void ScriptedServer::replyDone(const std::shared_ptr<Connection> &connection, bool close)
{
    if (!connection->socket)
        return;
    if (close) {
        connection->socket->disconnectFromHost();
        return;
    }
    connection->busy = false;
    // A pipelined or keep-alive request may already be waiting; answer it from the event loop
    // so that replies never nest.
    QTimer::singleShot(0, connection->socket, [this, connection] { processBuffer(connection); });
}

QList<std::shared_ptr<ScriptedServer::Connection>> ScriptedServer::liveHeld(int index)
{
    m_held.removeIf([](const Held &h) { return !h.connection || !h.connection->socket; });
    if (index < 0) {
        QList<std::shared_ptr<Connection>> all;
        for (const auto &h : m_held)
            all.append(h.connection);
        return all;
    }
    if (index >= m_held.size())
        return {};
    return {m_held.at(index).connection};
}

int ScriptedServer::heldCount() const
{
    int n = 0;
    for (const auto &h : m_held) {
        if (h.connection && h.connection->socket)
            ++n;
    }
    return n;
}

void ScriptedServer::pushToHeld(const QByteArray &data, int index)
{
    if (data.isEmpty())
        return; // an empty chunk would end the body
    for (const auto &c : liveHeld(index))
        c->socket->write(chunk(data));
}

void ScriptedServer::endHeld(int index)
{
    const auto targets = liveHeld(index);
    for (const auto &c : targets) {
        c->socket->write("0\r\n\r\n");
        m_held.removeIf([&c](const Held &h) { return h.connection == c; });
        replyDone(c, false);
    }
}

void ScriptedServer::dropHeld(int index)
{
    const auto targets = liveHeld(index);
    for (const auto &c : targets) {
        m_held.removeIf([&c](const Held &h) { return h.connection == c; });
        c->socket->disconnectFromHost();
    }
}

} // namespace RunwatchTest
