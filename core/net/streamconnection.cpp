// SPDX-License-Identifier: GPL-3.0-or-later
#include "streamconnection.h"

#include "netlog.h"

#include <QNetworkProxy>
#include <QSslConfiguration>
#include <QSslError>
#include <QSslSocket>
#include <QTcpSocket>

using namespace Qt::StringLiterals;

namespace Runwatch::detail {

namespace {

// Bytes read from the socket per turn; Qt's own buffer is capped at the same size so that a
// paused stream pushes back on the server through TCP instead of filling memory.
constexpr qint64 kReadSlice = 256 * 1024;

QNetworkReply::NetworkError replyError(QAbstractSocket::SocketError error)
{
    switch (error) {
    case QAbstractSocket::ConnectionRefusedError:
        return QNetworkReply::ConnectionRefusedError;
    case QAbstractSocket::HostNotFoundError:
        return QNetworkReply::HostNotFoundError;
    case QAbstractSocket::RemoteHostClosedError:
        return QNetworkReply::RemoteHostClosedError;
    case QAbstractSocket::SocketTimeoutError:
        return QNetworkReply::TimeoutError;
    case QAbstractSocket::SslHandshakeFailedError:
    case QAbstractSocket::SslInternalError:
    case QAbstractSocket::SslInvalidUserDataError:
        return QNetworkReply::SslHandshakeFailedError;
    default:
        return QNetworkReply::UnknownNetworkError;
    }
}

} // namespace

StreamConnection::StreamConnection(StreamPump *pump, std::shared_ptr<StreamChannel> channel,
                                   StreamTarget target, QObject *parent)
    : QObject(parent)
    , m_pump(pump)
    , m_channel(std::move(channel))
    , m_target(std::move(target))
    , m_parser(m_target.head)
{
    m_inactivity.setSingleShot(true);
    connect(&m_inactivity, &QTimer::timeout, this, [this] {
        end(QNetworkReply::OperationCanceledError,
            u"no data for %1 s"_s.arg(static_cast<double>(m_target.inactivityMs) / 1000.0));
    });
}

StreamConnection::~StreamConnection()
{
    if (m_socket) {
        m_socket->disconnect(this);
        m_socket->abort();
    }
}

void StreamConnection::start()
{
    QSslSocket *tls = nullptr; // m_socket, when it speaks TLS
    if (m_target.tls) {
        if (!QSslSocket::supportsSsl()) {
            end(QNetworkReply::SslHandshakeFailedError, u"TLS is not available (no TLS backend)"_s);
            return;
        }
        auto *ssl = new QSslSocket(this);
        QSslConfiguration config = QSslConfiguration::defaultConfiguration();
        config.setAllowedNextProtocols({QSslConfiguration::NextProtocolHttp1_1});
        ssl->setSslConfiguration(config);
        ssl->setPeerVerifyName(m_target.host);
        connect(ssl, &QSslSocket::encrypted, this, &StreamConnection::onConnected);
        connect(ssl, &QSslSocket::sslErrors, this, [this](const QList<QSslError> &errors) {
            // Not ignored: the handshake fails and onSocketError reports these.
            QStringList texts;
            for (const QSslError &e : errors)
                texts.append(e.errorString());
            m_tlsErrors = texts.join(u"; "_s);
        });
        m_socket = tls = ssl;
    } else {
        m_socket = new QTcpSocket(this);
        connect(m_socket, &QAbstractSocket::connected, this, &StreamConnection::onConnected);
    }
    // HttpClient only chooses this path when no proxy applies (see StreamReply::usable).
    m_socket->setProxy(QNetworkProxy::NoProxy);
    m_socket->setReadBufferSize(kReadSlice);
    connect(m_socket, &QIODevice::readyRead, this, &StreamConnection::readAvailable);
    connect(m_socket, &QAbstractSocket::errorOccurred, this, &StreamConnection::onSocketError);
    connect(m_socket, &QAbstractSocket::disconnected, this, &StreamConnection::onClosed);
    if (m_target.inactivityMs > 0)
        m_inactivity.start(static_cast<int>(std::min<qint64>(m_target.inactivityMs, INT_MAX)));
    if (tls) {
        tls->connectToHostEncrypted(m_target.host, m_target.port);
    } else {
        m_socket->connectToHost(m_target.host, m_target.port);
    }
}

void StreamConnection::onConnected()
{
    if (m_ended)
        return;
    m_socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    m_socket->write(m_target.wire);
    m_target.wire.clear(); // written once; never re-sent
}

void StreamConnection::resume()
{
    if (m_ended || !m_paused)
        return;
    m_paused = false;
    if (m_target.inactivityMs > 0)
        m_inactivity.start();
    readAvailable();
}

void StreamConnection::readAvailable()
{
    if (m_ended || m_paused || !m_socket)
        return;
    while (!m_ended && !m_paused && m_socket->bytesAvailable() > 0) {
        const QByteArray bytes = m_socket->read(kReadSlice);
        if (bytes.isEmpty())
            break;
        if (m_target.inactivityMs > 0)
            m_inactivity.start();
        QByteArray body;
        const bool ok = m_parser.feed(bytes, body);
        const bool headersNow = m_parser.headersComplete() && !m_headersPublished;
        if (!headersNow && body.isEmpty() && ok)
            continue;
        m_headersPublished = m_headersPublished || headersNow;
        bool paused = false;
        m_pump->publishBody(
            m_channel, body,
            [&](StreamIncoming &in) {
                if (headersNow) {
                    in.headers = true;
                    in.status = m_parser.status();
                    in.reason = m_parser.reasonPhrase();
                    in.headerList = m_parser.headers();
                }
            },
            paused);
        if (paused) {
            // The owner is behind: stop reading (TCP pushes back) and stop counting silence.
            m_paused = true;
            m_inactivity.stop();
        }
        if (!ok) {
            end(QNetworkReply::ProtocolFailure, m_parser.errorString());
            return;
        }
    }
    if (m_ended)
        return;
    if (m_parser.isDone()) {
        end(QNetworkReply::NoError, {});
        return;
    }
    if (m_closed && !m_paused && m_socket->bytesAvailable() == 0)
        finishClosed();
}

void StreamConnection::onSocketError(QAbstractSocket::SocketError error)
{
    if (m_ended)
        return;
    if (error == QAbstractSocket::RemoteHostClosedError) {
        onClosed();
        return;
    }
    QString message = m_socket->errorString();
    if (!m_tlsErrors.isEmpty())
        message = m_tlsErrors;
    end(replyError(error), message);
}

void StreamConnection::onClosed()
{
    if (m_ended)
        return;
    // Bytes that came with the close may still be buffered: readAvailable() ends the stream once
    // they are read (a paused stream reads them on resume()).
    m_closed = true;
    readAvailable();
}

void StreamConnection::finishClosed()
{
    if (m_parser.closed()) {
        end(QNetworkReply::NoError, {});
    } else {
        end(QNetworkReply::RemoteHostClosedError, m_parser.errorString());
    }
}

void StreamConnection::end(QNetworkReply::NetworkError error, const QString &message)
{
    if (m_ended)
        return;
    m_ended = true;
    m_inactivity.stop();
    if (error != QNetworkReply::NoError)
        qCDebug(lcNet) << "stream to" << m_target.host << m_target.port << "ended:" << error << message;
    const bool headersNow = m_parser.headersComplete() && !m_headersPublished;
    m_headersPublished = true;
    m_pump->publish(m_channel, [&](StreamIncoming &in, bool &) {
        if (headersNow) {
            in.headers = true;
            in.status = m_parser.status();
            in.reason = m_parser.reasonPhrase();
            in.headerList = m_parser.headers();
        }
        in.finished = true;
        in.error = error;
        in.errorString = message;
    });
    if (m_socket) {
        m_socket->disconnect(this);
        m_socket->abort();
    }
}

} // namespace Runwatch::detail
