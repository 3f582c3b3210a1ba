// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QSslConfiguration>
#include <QStringList>

class QTcpServer;
class QTcpSocket;

namespace RunwatchTest {

// A SOCKS5 proxy (RFC 1928, CONNECT only) on 127.0.0.1: a connection's proxy option is proven
// by the requests arriving through it. It records each target it connected to. With
// requireCredentials() it accepts only RFC 1929 username/password authentication with those.
class Socks5Proxy final : public QObject
{
    Q_OBJECT
public:
    explicit Socks5Proxy(QObject *parent = nullptr);
    bool listen();
    quint16 port() const;
    void requireCredentials(const QByteArray &user, const QByteArray &password);
    QStringList targets() const { return m_targets; } // "host:port", one per tunnel
    int refusedLogins() const { return m_refusedLogins; }

private:
    void accept();
    void handshake(QTcpSocket *client);
    // RFC 1929: 01 ulen user plen password -> 01 00 (success) or 01 01 (failure, then closed).
    // False while the request is incomplete or after a refusal.
    bool authenticate(QTcpSocket *client);

    QTcpServer *m_server;
    QStringList m_targets;
    QByteArray m_user;
    QByteArray m_password;
    int m_refusedLogins = 0;
};

// A TLS front on 127.0.0.1 for a plain loopback server (the simulators speak plain HTTP): it
// completes the handshake with `tls` (tests/data/tls) and passes the bytes both ways. Counts the
// connections whose handshake succeeded.
class TlsRelay final : public QObject
{
    Q_OBJECT
public:
    TlsRelay(quint16 upstreamPort, const QSslConfiguration &tls, QObject *parent = nullptr);
    bool listen();
    quint16 port() const;
    int encryptedConnections() const { return m_encrypted; }

private:
    void accept();

    quint16 m_upstreamPort;
    QTcpServer *m_server;
    int m_encrypted = 0;
};

// Passes bytes both ways between two connected (or connecting) sockets; each goes when either does.
void pipeSockets(QTcpSocket *a, QTcpSocket *b);

} // namespace RunwatchTest
