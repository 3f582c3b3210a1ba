// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The server every simulator derives from: it listens on an address and port, accepts connections
// within the limits (HttpConnection parses requests and frames responses), and hands each request
// to the protocol's route(). The free functions below write the JSON, plain and SSE heads the
// protocols share.
//
// Threading: a server and everything it creates live in the thread that owns it. To keep one off
// the GUI thread, create it (and call listen()) in a worker thread.

#include "httpmessage.h"

#include <QByteArray>
#include <QHostAddress>
#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QUrl>

class QTcpServer;

namespace RunwatchSim {

class HttpConnection;

class SimServer : public QObject
{
    Q_OBJECT

public:
    ~SimServer() override;

    bool listen(const QHostAddress &address = QHostAddress::LocalHost, quint16 port = 0);
    void close();
    bool isListening() const;
    QString errorString() const;
    quint16 port() const;
    QHostAddress address() const;
    // http://HOST:PORT plus the base path; a wildcard address is named by its loopback.
    QUrl baseUrl() const;

    // Requests the connections answered themselves because they could not parse them
    // (400/408/411/413/431).
    int rejectedRequestCount() const { return m_rejectedRequests; }

protected:
    explicit SimServer(QObject *parent = nullptr);

    // For connections accepted from now on.
    void setLimits(const ServerLimits &limits) { m_limits = limits; }
    void setBasePath(const QString &path) { m_basePath = path; }
    void resetRejectedRequestCount() { m_rejectedRequests = 0; }

    // One complete request on `connection`: answer it (now or later) through the connection.
    virtual void route(RunwatchSim::HttpConnection *connection, const RunwatchSim::HttpRequest &request) = 0;

private:
    void onNewConnection();

    QTcpServer *m_server = nullptr;
    ServerLimits m_limits;
    QString m_basePath;
    int m_openConnections = 0;
    int m_rejectedRequests = 0;
};

QByteArray compactJson(const QJsonObject &object);

// A complete response: Content-Type first, then `headers`. Nothing when `connection` is gone.
void sendBody(HttpConnection *connection, int status, const QByteArray &contentType, const QByteArray &body,
              const HeaderList &headers = {});
// sendBody() of compact JSON as application/json.
void sendJson(HttpConnection *connection, int status, const QJsonObject &body,
              const HeaderList &headers = {});
// Status 200 and the head of an event stream: Content-Type, Cache-Control: no-cache, `headers`.
void beginEventStream(HttpConnection *connection, const HeaderList &headers,
                      const QByteArray &contentType = QByteArrayLiteral("text/event-stream"));

} // namespace RunwatchSim
