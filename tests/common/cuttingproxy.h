// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QRandomGenerator>
#include <QTcpServer>

class QTcpSocket;

namespace RunwatchTest {

// A TCP relay on 127.0.0.1 in front of a real server, as a bad network or proxy between client
// and service: it passes bytes both ways and, when cutting, closes a connection after a random
// number (seeded, between minEvents and maxEvents) of server-sent events (blank-line ends,
// "\n\n") have gone to the client. It can also stop listening (connections refused) and listen
// again on the same port, or answer every new connection with a fixed HTTP response.
class CuttingProxy : public QObject
{
    Q_OBJECT
public:
    CuttingProxy(quint16 upstreamPort, quint32 seed, QObject *parent = nullptr);
    ~CuttingProxy() override;

    bool listen();
    quint16 port() const { return m_port; }

    // Cut each connection after minEvents..maxEvents events (0, 0: never cut).
    void setCutAfter(int minEvents, int maxEvents);
    // Stop listening and close every open connection: new connections are refused.
    void refuse();
    // Listen again on the same port; false when that port has been taken meanwhile.
    bool resume();
    // Answer every new connection with `response` (a whole HTTP response), then close it.
    void answerWith(const QByteArray &response) { m_answer = response; }

    int connections() const { return m_connections; }
    int cuts() const { return m_cuts; }
    qint64 bytesDown() const { return m_bytesDown; } // from the server, over every connection

private:
    struct Pair;
    void accept();
    void pump(Pair *pair);
    void close(Pair *pair);

    quint16 m_upstreamPort;
    quint16 m_port = 0;
    QRandomGenerator m_random;
    int m_minEvents = 0;
    int m_maxEvents = 0;
    QByteArray m_answer;
    QTcpServer m_server;
    QList<Pair *> m_pairs;
    int m_connections = 0;
    int m_cuts = 0;
    qint64 m_bytesDown = 0;
};

} // namespace RunwatchTest
