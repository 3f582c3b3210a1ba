// SPDX-License-Identifier: GPL-3.0-or-later
#include "loopbackrelays.h"

#include <QHostAddress>
#include <QSslServer>
#include <QSslSocket>
#include <QTcpServer>
#include <QTcpSocket>
#include <QtEndian>

using namespace Qt::StringLiterals;

namespace RunwatchTest {

void pipeSockets(QTcpSocket *a, QTcpSocket *b)
{
    // Writes to a socket still connecting are buffered by Qt and sent once it is connected.
    QObject::connect(a, &QTcpSocket::readyRead, b, [a, b] { b->write(a->readAll()); });
    QObject::connect(b, &QTcpSocket::readyRead, a, [a, b] { a->write(b->readAll()); });
    const auto closeBoth = [a, b] {
        a->disconnectFromHost();
        b->disconnectFromHost();
        a->deleteLater();
        b->deleteLater();
    };
    QObject::connect(a, &QTcpSocket::disconnected, b, closeBoth);
    QObject::connect(b, &QTcpSocket::disconnected, a, closeBoth);
    QObject::connect(b, &QTcpSocket::errorOccurred, a, closeBoth);
    if (a->bytesAvailable() > 0)
        b->write(a->readAll());
}

Socks5Proxy::Socks5Proxy(QObject *parent)
    : QObject(parent)
    , m_server(new QTcpServer(this))
{
    connect(m_server, &QTcpServer::newConnection, this, &Socks5Proxy::accept);
}

bool Socks5Proxy::listen()
{
    return m_server->listen(QHostAddress::LocalHost, 0);
}

quint16 Socks5Proxy::port() const
{
    return m_server->serverPort();
}

void Socks5Proxy::accept()
{
    while (QTcpSocket *client = m_server->nextPendingConnection()) {
        client->setParent(this);
        connect(client, &QTcpSocket::readyRead, this, [this, client] { handshake(client); });
        connect(client, &QTcpSocket::disconnected, client, &QObject::deleteLater);
    }
}

void Socks5Proxy::requireCredentials(const QByteArray &user, const QByteArray &password)
{
    m_user = user;
    m_password = password;
}

bool Socks5Proxy::authenticate(QTcpSocket *client)
{
    const QByteArray in = client->peek(client->bytesAvailable());
    if (in.size() < 2 || in.size() < 3 + quint8(in.at(1)))
        return false;
    const int userLength = quint8(in.at(1));
    const int passwordLength = quint8(in.at(2 + userLength));
    if (in.size() < 3 + userLength + passwordLength)
        return false;
    client->read(3 + userLength + passwordLength);
    const bool ok = in.at(0) == 0x01 && in.mid(2, userLength) == m_user
                    && in.mid(3 + userLength, passwordLength) == m_password;
    if (!ok) {
        ++m_refusedLogins;
        client->write(QByteArray::fromHex("0101"));
        client->disconnectFromHost();
        return false;
    }
    client->write(QByteArray::fromHex("0100"));
    client->setProperty("authenticated", true);
    return true;
}

void Socks5Proxy::handshake(QTcpSocket *client)
{
    // Greeting: 05 n methods…; [RFC 1929 login;] request: 05 01 00 atyp addr port. Read each
    // once it is whole.
    const QByteArray in = client->peek(client->bytesAvailable());
    if (client->property("greeted").toBool() == false) {
        if (in.size() < 2 || in.size() < 2 + quint8(in.at(1)))
            return;
        const QByteArray methods = client->read(2 + quint8(in.at(1))).mid(2);
        const bool login = !m_user.isEmpty();
        if (login && !methods.contains('\x02')) {
            ++m_refusedLogins;
            client->write(QByteArray::fromHex("05ff")); // no acceptable method
            client->disconnectFromHost();
            return;
        }
        client->write(login ? QByteArray::fromHex("0502") : QByteArray::fromHex("0500"));
        client->setProperty("greeted", true);
        client->setProperty("authenticated", !login);
        return handshake(client);
    }
    if (client->property("authenticated").toBool() == false) {
        if (authenticate(client))
            handshake(client);
        return;
    }
    if (in.size() < 5)
        return;
    QString host;
    qsizetype at = 4;
    const char atyp = in.at(3);
    if (atyp == 0x01 && in.size() >= 10) {
        host = QHostAddress(qFromBigEndian<quint32>(in.constData() + 4)).toString();
        at = 8;
    } else if (atyp == 0x03 && in.size() >= 7 + quint8(in.at(4))) {
        host = QString::fromLatin1(in.mid(5, quint8(in.at(4))));
        at = 5 + quint8(in.at(4));
    } else {
        return; // incomplete (or IPv6, which these tests do not use)
    }
    if (in.size() < at + 2)
        return;
    const quint16 port = qFromBigEndian<quint16>(in.constData() + at);
    client->read(at + 2);
    disconnect(client, &QTcpSocket::readyRead, this, nullptr);
    m_targets << u"%1:%2"_s.arg(host).arg(port);
    auto *upstream = new QTcpSocket(this);
    connect(upstream, &QTcpSocket::connected, client, [client] {
        client->write(QByteArray::fromHex("05000001000000000000")); // succeeded
    });
    pipeSockets(client, upstream);
    upstream->connectToHost(host, port);
}

TlsRelay::TlsRelay(quint16 upstreamPort, const QSslConfiguration &tls, QObject *parent)
    : QObject(parent)
    , m_upstreamPort(upstreamPort)
{
    auto *server = new QSslServer(this);
    server->setSslConfiguration(tls);
    m_server = server;
    // Qt 6.4's QSslServer announces a connection before its handshake: count it on encrypted.
    connect(server, &QSslServer::startedEncryptionHandshake, this, [this](QSslSocket *socket) {
        connect(socket, &QSslSocket::encrypted, this, [this] { ++m_encrypted; });
    });
    connect(m_server, &QTcpServer::pendingConnectionAvailable, this, &TlsRelay::accept);
}

bool TlsRelay::listen()
{
    return m_server->listen(QHostAddress::LocalHost, 0);
}

quint16 TlsRelay::port() const
{
    return m_server->serverPort();
}

void TlsRelay::accept()
{
    while (QTcpSocket *client = m_server->nextPendingConnection()) {
        client->setParent(this);
        auto *upstream = new QTcpSocket(this);
        pipeSockets(client, upstream);
        upstream->connectToHost(QHostAddress::LocalHost, m_upstreamPort);
    }
}

} // namespace RunwatchTest
