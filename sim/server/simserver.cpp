// SPDX-License-Identifier: GPL-3.0-or-later
#include "simserver.h"
#include "simlog.h"

#include "httpconnection.h"

#include <QJsonDocument>
#include <QTcpServer>
#include <QTcpSocket>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

Q_LOGGING_CATEGORY(lcSim, "runwatch.sim", QtInfoMsg)

SimServer::SimServer(QObject *parent)
    : QObject(parent)
    , m_server(new QTcpServer(this))
{
    connect(m_server, &QTcpServer::newConnection, this, &SimServer::onNewConnection);
}

SimServer::~SimServer()
{
    m_server->close();
}

bool SimServer::listen(const QHostAddress &address, quint16 port)
{
    return m_server->listen(address, port);
}

void SimServer::close()
{
    m_server->close();
}

bool SimServer::isListening() const
{
    return m_server->isListening();
}

QString SimServer::errorString() const
{
    return m_server->errorString();
}

quint16 SimServer::port() const
{
    return m_server->serverPort();
}

QHostAddress SimServer::address() const
{
    return m_server->serverAddress();
}

QUrl SimServer::baseUrl() const
{
    QHostAddress host = m_server->serverAddress();
    if (host == QHostAddress::Any || host == QHostAddress::AnyIPv4 || host.isNull()) {
        host = QHostAddress(QHostAddress::LocalHost);
    } else if (host == QHostAddress::AnyIPv6) {
        host = QHostAddress(QHostAddress::LocalHostIPv6);
    }
    QUrl url;
    url.setScheme(u"http"_s);
    url.setHost(host.toString());
    url.setPort(port());
    url.setPath(m_basePath);
    return url;
}

void SimServer::onNewConnection()
{
    while (m_server->hasPendingConnections()) {
        QTcpSocket *socket = m_server->nextPendingConnection();
        if (m_limits.maxConnections >= 0 && m_openConnections >= m_limits.maxConnections) {
            socket->abort();
            socket->deleteLater();
            continue;
        }
        auto *connection = new HttpConnection(socket, m_limits, this);
        ++m_openConnections;
        connect(connection, &HttpConnection::closed, this, [this] { --m_openConnections; });
        connect(connection, &HttpConnection::requestRejected, this, [this] { ++m_rejectedRequests; });
        connect(connection, &HttpConnection::requestReceived, this,
                [this](HttpConnection *c, const HttpRequest &request) {
                    qCDebug(lcSim) << request.method << request.target;
                    route(c, request);
                });
    }
}

QByteArray compactJson(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

void sendBody(HttpConnection *connection, int status, const QByteArray &contentType, const QByteArray &body,
              const HeaderList &headers)
{
    if (!connection)
        return;
    HeaderList all{{QByteArrayLiteral("Content-Type"), contentType}};
    all.append(headers);
    connection->sendResponse(status, all, body);
}

void sendJson(HttpConnection *connection, int status, const QJsonObject &body, const HeaderList &headers)
{
    sendBody(connection, status, QByteArrayLiteral("application/json"), compactJson(body), headers);
}

void beginEventStream(HttpConnection *connection, const HeaderList &headers, const QByteArray &contentType)
{
    if (!connection)
        return;
    HeaderList all{{QByteArrayLiteral("Content-Type"), contentType},
                   {QByteArrayLiteral("Cache-Control"), QByteArrayLiteral("no-cache")}};
    all.append(headers);
    connection->beginStream(200, all);
}

} // namespace RunwatchSim
