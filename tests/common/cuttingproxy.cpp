// SPDX-License-Identifier: GPL-3.0-or-later
#include "cuttingproxy.h"

#include <QTcpSocket>

namespace RunwatchTest {

struct CuttingProxy::Pair
{
    QTcpSocket *client = nullptr;
    QTcpSocket *server = nullptr;
    int eventsLeft = -1; // events to pass before the cut; -1: never cut
    bool tail = false;   // the previous byte sent to the client was '\n'
};

CuttingProxy::CuttingProxy(quint16 upstreamPort, quint32 seed, QObject *parent)
    : QObject(parent)
    , m_upstreamPort(upstreamPort)
    , m_random(seed)
{
    connect(&m_server, &QTcpServer::newConnection, this, &CuttingProxy::accept);
}

CuttingProxy::~CuttingProxy()
{
    while (!m_pairs.isEmpty())
        close(m_pairs.first());
}

bool CuttingProxy::listen()
{
    if (!m_server.listen(QHostAddress::LocalHost, m_port))
        return false;
    m_port = m_server.serverPort();
    return true;
}

void CuttingProxy::setCutAfter(int minEvents, int maxEvents)
{
    m_minEvents = minEvents;
    m_maxEvents = maxEvents;
}

void CuttingProxy::refuse()
{
    m_server.close();
    while (!m_pairs.isEmpty())
        close(m_pairs.first());
}

bool CuttingProxy::resume()
{
    return m_server.isListening() || listen();
}

void CuttingProxy::accept()
{
    while (QTcpSocket *client = m_server.nextPendingConnection()) {
        ++m_connections;
        if (!m_answer.isEmpty()) {
            client->write(m_answer);
            client->disconnectFromHost();
            connect(client, &QTcpSocket::disconnected, client, &QObject::deleteLater);
            continue;
        }
        auto *pair = new Pair;
        pair->client = client;
        pair->server = new QTcpSocket(this);
        if (m_maxEvents > 0)
            pair->eventsLeft = int(m_random.bounded(m_minEvents, m_maxEvents + 1));
        m_pairs.append(pair);
        connect(client, &QTcpSocket::readyRead, this, [this, pair] { pump(pair); });
        connect(pair->server, &QTcpSocket::readyRead, this, [this, pair] { pump(pair); });
        connect(pair->server, &QTcpSocket::connected, this, [this, pair] { pump(pair); });
        connect(client, &QTcpSocket::disconnected, this, [this, pair] { close(pair); });
        connect(pair->server, &QTcpSocket::disconnected, this, [this, pair] {
            // What the server sent last still goes out before the client's side closes.
            pump(pair);
            close(pair);
        });
        connect(pair->server, &QTcpSocket::errorOccurred, this, [this, pair] { close(pair); });
        pair->server->connectToHost(QHostAddress::LocalHost, m_upstreamPort);
    }
}

void CuttingProxy::pump(Pair *pair)
{
    if (!m_pairs.contains(pair))
        return;
    if (pair->server->state() == QAbstractSocket::ConnectedState && pair->client->bytesAvailable() > 0)
        pair->server->write(pair->client->readAll());
    const QByteArray down = pair->server->readAll();
    if (down.isEmpty())
        return;
    m_bytesDown += down.size();
    if (pair->eventsLeft < 0) {
        pair->client->write(down);
        return;
    }
    // Up to and including the blank line that ends the last event allowed through.
    qsizetype upTo = down.size();
    bool cut = false;
    for (qsizetype i = 0; i < down.size(); ++i) {
        const bool newline = down.at(i) == '\n';
        if (newline && pair->tail && --pair->eventsLeft == 0) {
            upTo = i + 1;
            cut = true;
            break;
        }
        pair->tail = newline;
    }
    pair->client->write(down.left(upTo));
    if (cut) {
        ++m_cuts;
        pair->client->flush();
        close(pair);
    }
}

void CuttingProxy::close(Pair *pair)
{
    if (!m_pairs.removeOne(pair))
        return;
    // Deferred: this may run inside one of the sockets' own signals.
    pair->client->disconnect(this);
    pair->server->disconnect(this);
    pair->server->abort();
    pair->server->deleteLater();
    // What was written to the client still goes out before its FIN.
    QTcpSocket *client = pair->client;
    if (client->state() == QAbstractSocket::UnconnectedState) {
        client->deleteLater();
    } else {
        connect(client, &QTcpSocket::disconnected, client, &QObject::deleteLater);
        client->disconnectFromHost();
    }
    delete pair;
}

} // namespace RunwatchTest
