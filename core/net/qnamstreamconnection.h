// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "streampump.h"

#include <QObject>
#include <QPointer>

class QNetworkAccessManager;

namespace Runwatch::detail {

// The measured alternative to StreamConnection (RUNWATCH_STREAM_TRANSPORT=qnam-thread): the same
// stream request through a QNetworkAccessManager that lives on the pump's thread, its body
// published to the channel (and so decoded there) like StreamConnection's. Kept to decide the
// transport by measurement in one binary (docs/architecture.md, "Threads").
class QnamStreamConnection final : public QObject
{
public:
    QnamStreamConnection(QNetworkAccessManager *manager, StreamPump *pump,
                         std::shared_ptr<StreamChannel> channel, StreamTarget target, QObject *parent);
    ~QnamStreamConnection() override;

    void start();
    // The owner took data after this connection paused: read on.
    void resume();

private:
    void readAvailable();
    void onFinished();
    void publishHeaders(StreamIncoming &in);

    QNetworkAccessManager *m_manager;
    StreamPump *m_pump;
    std::shared_ptr<StreamChannel> m_channel;
    StreamTarget m_target;
    QPointer<QNetworkReply> m_reply;
    bool m_headersPublished = false;
    bool m_paused = false;
};

} // namespace Runwatch::detail
