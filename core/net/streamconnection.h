// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "http1response.h"
#include "streampump.h"

#include <QAbstractSocket>
#include <QObject>
#include <QTimer>

#include <memory>

namespace Runwatch::detail {

// One HTTP/1.1 request and its response on a connection of its own, on the pump's thread: the
// request is written once (never re-sent, so a POST cannot reach the server twice), the response
// is decoded by Http1ResponseParser and published to the channel as it arrives.
//
// How it ends maps onto QNetworkReply's error codes, so HttpClient's taxonomy applies unchanged:
// a refused connection, an unknown host, a TLS failure, a close before the response was complete
// (RemoteHostClosedError), a response that is not HTTP (ProtocolFailure), and the inactivity
// timeout (OperationCanceledError, as QNetworkRequest::setTransferTimeout reports it).
class StreamConnection final : public QObject
{
public:
    StreamConnection(StreamPump *pump, std::shared_ptr<StreamChannel> channel, StreamTarget target,
                     QObject *parent);
    ~StreamConnection() override;

    void start();
    // The owner took data after this connection paused: read on.
    void resume();

private:
    void onConnected();
    void readAvailable();
    void onSocketError(QAbstractSocket::SocketError error);
    void onClosed();
    void finishClosed();
    void end(QNetworkReply::NetworkError error, const QString &message);

    StreamPump *m_pump;
    std::shared_ptr<StreamChannel> m_channel;
    StreamTarget m_target;
    QAbstractSocket *m_socket = nullptr;
    Http1ResponseParser m_parser;
    QTimer m_inactivity;
    QString m_tlsErrors;
    bool m_headersPublished = false;
    bool m_paused = false;
    bool m_closed = false; // the peer closed; finish once the buffered bytes are read
    bool m_ended = false;
};

} // namespace Runwatch::detail
