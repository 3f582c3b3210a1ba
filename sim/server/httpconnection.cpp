// SPDX-License-Identifier: GPL-3.0-or-later
#include "httpconnection.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTcpSocket>
#include <QTimer>
#include <QUrl>

#ifdef Q_OS_UNIX
#include <sys/socket.h>
#endif

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

bool isTokenChar(char c)
{
    // RFC 9110 tchar.
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    return QByteArrayView("!#$%&'*+-.^_`|~").contains(c);
}

bool isToken(QByteArrayView text)
{
    if (text.isEmpty())
        return false;
    for (const char c : text) {
        if (!isTokenChar(c))
            return false;
    }
    return true;
}

QByteArray errorJson(int status, const QByteArray &reason)
{
    QJsonObject error{
        {u"message"_s, QString::fromLatin1(reason)},
        {u"type"_s, u"invalid_request_error"_s},
        {u"param"_s, QJsonValue::Null},
        {u"code"_s, status == 413 ? QJsonValue(u"request_too_large"_s) : QJsonValue()},
    };
    return QJsonDocument(QJsonObject{{u"error"_s, error}}).toJson(QJsonDocument::Compact);
}

} // namespace

HttpConnection::HttpConnection(QTcpSocket *socket, const HttpLimits &limits, QObject *parent)
    : QObject(parent)
    , m_socket(socket)
    , m_limits(limits)
    , m_requestTimer(new QTimer(this))
    , m_dripTimer(new QTimer(this))
{
    m_socket->setParent(this);
    // Bounded so that a client pushing gigabytes cannot make one readyRead allocate them all.
    m_socket->setReadBufferSize(1 << 20);
    m_requestTimer->setSingleShot(true);
    connect(m_requestTimer, &QTimer::timeout, this, &HttpConnection::onRequestTimer);
    m_requestTimer->start(m_limits.requestTimeoutMs);
    m_dripTimer->setTimerType(Qt::PreciseTimer); // "one byte per interval" is a promise
    connect(m_dripTimer, &QTimer::timeout, this, &HttpConnection::onDripTick);
    connect(m_socket, &QTcpSocket::readyRead, this, &HttpConnection::onReadyRead);
    connect(m_socket, &QTcpSocket::bytesWritten, this, &HttpConnection::onBytesWritten);
    connect(m_socket, &QTcpSocket::disconnected, this, &HttpConnection::markClosed);
    connect(m_socket, &QTcpSocket::errorOccurred, this, [this] {
        if (m_socket->state() == QAbstractSocket::UnconnectedState)
            markClosed();
    });
    if (m_socket->bytesAvailable() > 0)
        QTimer::singleShot(0, this, &HttpConnection::onReadyRead);
}

HttpConnection::~HttpConnection()
{
    m_socket->disconnect(this);
}

bool HttpConnection::isOpen() const
{
    return m_state != State::Closed && m_socket->state() == QAbstractSocket::ConnectedState;
}

qint64 HttpConnection::pendingBytes() const
{
    return (m_dripQueue.size() - m_dripPos) + m_socket->bytesToWrite();
}

void HttpConnection::onReadyRead()
{
    if (m_state == State::Closing || m_state == State::Closed) {
        m_socket->readAll();
        return;
    }
    const bool wasIdle = m_state == State::ReadingHead && m_buffer.isEmpty();
    m_buffer += m_socket->readAll();
    if (wasIdle && !m_buffer.isEmpty())
        m_requestTimer->start(m_limits.requestTimeoutMs);
    if (m_state == State::Dispatched) {
        // A pipelined next request waits for the current response, within the usual bounds.
        if (m_buffer.size() > m_limits.maxHeaderBytes + m_limits.maxBodyBytes)
            requestClose(false);
        return;
    }
    processBuffer();
}

void HttpConnection::processBuffer()
{
    if (m_state == State::ReadingHead) {
        qsizetype end = m_buffer.indexOf("\r\n\r\n");
        qsizetype separator = 4;
        const qsizetype bareEnd = m_buffer.indexOf("\n\n");
        if (bareEnd >= 0 && (end < 0 || bareEnd < end)) {
            end = bareEnd;
            separator = 2;
        }
        if (end < 0) {
            if (m_buffer.size() > m_limits.maxHeaderBytes)
                reject(431, QByteArrayLiteral("Request header too large."));
            return;
        }
        if (end > m_limits.maxHeaderBytes) {
            reject(431, QByteArrayLiteral("Request header too large."));
            return;
        }
        const QByteArray head = m_buffer.left(end);
        m_buffer.remove(0, end + separator);
        if (!parseHead(head))
            return;
        m_state = State::ReadingBody;
        if (m_contentLength > 0 && m_buffer.size() < m_contentLength
            && m_request.header("expect").compare("100-continue", Qt::CaseInsensitive) == 0)
            m_socket->write(QByteArrayLiteral("HTTP/1.1 100 Continue\r\n\r\n"));
    }

    if (m_state == State::ReadingBody) {
        if (m_buffer.size() < m_contentLength)
            return;
        m_request.body = m_buffer.left(m_contentLength);
        m_buffer.remove(0, m_contentLength);
        m_state = State::Dispatched;
        m_requestTimer->stop();
        Q_EMIT requestReceived(this, m_request);
    }
}

bool HttpConnection::parseHead(const QByteArray &head)
{
    QList<QByteArray> lines = head.split('\n');
    for (QByteArray &line : lines) {
        if (line.endsWith('\r'))
            line.chop(1);
    }
    const QList<QByteArray> requestLine = lines.value(0).split(' ');
    if (requestLine.size() != 3 || !isToken(requestLine.at(0)) || !requestLine.at(2).startsWith("HTTP/1.")
        || !requestLine.at(1).startsWith('/')) {
        reject(400, QByteArrayLiteral("Malformed request line."));
        return false;
    }
    m_request.method = requestLine.at(0);
    m_request.target = requestLine.at(1);
    m_request.version = requestLine.at(2);
    const qsizetype question = m_request.target.indexOf('?');
    const QByteArray rawPath = question < 0 ? m_request.target : m_request.target.left(question);
    m_request.path = QUrl::fromPercentEncoding(rawPath);
    if (question >= 0)
        m_request.query = QUrlQuery(QString::fromUtf8(m_request.target.mid(question + 1)));

    bool haveLength = false;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray &line = lines.at(i);
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0 || !isToken(QByteArrayView(line.constData(), colon))) {
            reject(400, QByteArrayLiteral("Malformed header line."));
            return false;
        }
        const QByteArray name = line.left(colon).toLower();
        const QByteArray value = line.mid(colon + 1).trimmed();
        m_request.headers.append({name, value});
        if (name == "content-length") {
            bool ok = false;
            const qint64 length = value.toLongLong(&ok);
            if (!ok || length < 0 || value.startsWith('+') || (haveLength && length != m_contentLength)) {
                reject(400, QByteArrayLiteral("Invalid Content-Length."));
                return false;
            }
            m_contentLength = length;
            haveLength = true;
        } else if (name == "transfer-encoding") {
            reject(411, QByteArrayLiteral("Transfer-Encoding is not supported; send Content-Length."));
            return false;
        }
    }
    if (m_contentLength > m_limits.maxBodyBytes) {
        reject(413, QByteArrayLiteral("Request body too large."));
        return false;
    }
    const QByteArray connection = m_request.header("connection").toLower();
    m_keepAlive = m_limits.keepAlive
                  && (m_request.version == "HTTP/1.1" ? !connection.contains("close")
                                                      : connection.contains("keep-alive"));
    return true;
}

void HttpConnection::reject(int status, const QByteArray &reason)
{
    if (m_state != State::ReadingHead && m_state != State::ReadingBody)
        return;
    // After a framing error the rest of the input cannot be trusted: answer, then close.
    m_state = State::Dispatched;
    m_keepAlive = false;
    m_requestTimer->stop();
    Q_EMIT requestRejected(status, reason);
    sendResponse(status,
                 {{QByteArrayLiteral("Content-Type"), QByteArrayLiteral("application/json")},
                  {QByteArrayLiteral("x-request-id"), newRequestId()}},
                 errorJson(status, reason));
}

QByteArray HttpConnection::head(int status, const HeaderList &headers, const QByteArray &framing) const
{
    QByteArray out = "HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status) + "\r\n";
    for (const auto &[name, value] : headers)
        out += name + ": " + value + "\r\n";
    out += framing;
    out += m_keepAlive ? QByteArrayLiteral("Connection: keep-alive\r\n\r\n")
                       : QByteArrayLiteral("Connection: close\r\n\r\n");
    return out;
}

void HttpConnection::sendResponse(int status, const HeaderList &headers, const QByteArray &body)
{
    if (m_state != State::Dispatched || m_body != Body::None)
        return;
    m_body = Body::Fixed;
    // Heads are never dripped: slow-drip faults are about the body.
    m_socket->write(head(status, headers, "Content-Length: " + QByteArray::number(body.size()) + "\r\n"));
    enqueue(body);
    completeResponse();
}

void HttpConnection::beginStream(int status, const HeaderList &headers)
{
    if (m_state != State::Dispatched || m_body != Body::None)
        return;
    QByteArray framing;
    if (m_limits.closeDelimitedStreams) {
        m_body = Body::CloseDelimited;
        m_keepAlive = false;
    } else {
        m_body = Body::Chunked;
        framing = QByteArrayLiteral("Transfer-Encoding: chunked\r\n");
    }
    m_socket->write(head(status, headers, framing));
}

void HttpConnection::write(const QByteArray &bytes)
{
    if (m_state != State::Dispatched || bytes.isEmpty() || m_completePending
        || (m_body != Body::Chunked && m_body != Body::CloseDelimited))
        return;
    if (m_body == Body::Chunked) {
        enqueue(QByteArray::number(bytes.size(), 16) + "\r\n" + bytes + "\r\n");
    } else {
        enqueue(bytes);
    }
}

void HttpConnection::endStream()
{
    if (m_state != State::Dispatched || m_completePending)
        return;
    if (m_body == Body::Chunked) {
        enqueue(QByteArrayLiteral("0\r\n\r\n"));
        completeResponse();
    } else if (m_body == Body::CloseDelimited) {
        requestClose(false);
    }
}

void HttpConnection::enqueue(const QByteArray &bytes)
{
    if (bytes.isEmpty())
        return;
    if (m_dripIntervalMs > 0) {
        m_dripQueue += bytes;
        if (!m_dripTimer->isActive())
            m_dripTimer->start();
        return;
    }
    m_socket->write(bytes);
}

void HttpConnection::setDripInterval(int ms)
{
    m_dripIntervalMs = qMax(0, ms);
    m_dripTimer->setInterval(m_dripIntervalMs);
}

void HttpConnection::onDripTick()
{
    if (m_state == State::Closed) {
        m_dripTimer->stop();
        return;
    }
    if (m_dripPos < m_dripQueue.size()) {
        m_socket->write(m_dripQueue.mid(m_dripPos, 1));
        ++m_dripPos;
    }
    if (m_dripPos >= m_dripQueue.size()) {
        m_dripQueue.clear();
        m_dripPos = 0;
        m_dripTimer->stop();
        closeIfFlushed();
        tryComplete();
    }
}

void HttpConnection::onBytesWritten()
{
    if (m_socket->bytesToWrite() == 0 && m_dripPos >= m_dripQueue.size()) {
        if (m_closeRequested) {
            closeIfFlushed();
        } else {
            Q_EMIT drained();
        }
    }
}

void HttpConnection::onRequestTimer()
{
    if (m_state == State::ReadingHead && m_buffer.isEmpty()) {
        requestClose(false); // idle persistent connection, or a client that never spoke
        return;
    }
    reject(408, QByteArrayLiteral("Timed out waiting for the request."));
}

void HttpConnection::completeResponse()
{
    if (!m_keepAlive) {
        requestClose(false);
        return;
    }
    m_completePending = true;
    tryComplete();
}

void HttpConnection::tryComplete()
{
    if (!m_completePending || m_dripPos < m_dripQueue.size())
        return; // the drip timer calls again when its queue is empty
    m_completePending = false;
    m_state = State::ReadingHead;
    m_body = Body::None;
    m_request = HttpRequest();
    m_contentLength = 0;
    setDripInterval(0);
    m_requestTimer->start(m_buffer.isEmpty() ? m_limits.keepAliveIdleMs : m_limits.requestTimeoutMs);
    Q_EMIT responseCompleted();
    if (!m_buffer.isEmpty()) {
        QTimer::singleShot(0, this, [this] {
            if (m_state == State::ReadingHead)
                processBuffer();
        });
    }
}

void HttpConnection::drop(bool reset)
{
    requestClose(reset);
}

void HttpConnection::requestClose(bool reset)
{
    if (m_state == State::Closed || m_closeRequested)
        return;
    m_closeRequested = true;
    m_reset = reset;
    m_completePending = false;
    m_state = State::Closing;
    m_requestTimer->stop();
    closeIfFlushed();
}

void HttpConnection::closeIfFlushed()
{
    if (!m_closeRequested || m_closeScheduled || m_state == State::Closed)
        return;
    if (m_dripPos < m_dripQueue.size() || m_socket->bytesToWrite() > 0)
        return; // the drip timer or bytesWritten calls again
    m_closeScheduled = true;
    // See the header: a FIN right behind an instant answer trips QNetworkAccessManager.
    constexpr int kCloseGraceMs = 5;
    QTimer::singleShot(kCloseGraceMs, this, &HttpConnection::closeNow);
}

void HttpConnection::closeNow()
{
    if (m_state == State::Closed)
        return;
    if (m_reset) {
#ifdef Q_OS_UNIX
        const qintptr fd = m_socket->socketDescriptor();
        if (fd >= 0) {
            // Zero linger turns close() into a RST.
            struct linger option
            {
                1, 0
            };
            ::setsockopt(int(fd), SOL_SOCKET, SO_LINGER, &option, sizeof option);
        }
#endif
        m_socket->abort();
        markClosed();
        return;
    }
    m_socket->disconnectFromHost();
    if (m_socket->state() == QAbstractSocket::UnconnectedState)
        markClosed();
}

void HttpConnection::markClosed()
{
    if (m_state == State::Closed)
        return;
    m_state = State::Closed;
    m_requestTimer->stop();
    m_dripTimer->stop();
    Q_EMIT closed();
    deleteLater();
}

} // namespace RunwatchSim
