// SPDX-License-Identifier: GPL-3.0-or-later
#include "qnamstreamconnection.h"

#include <QNetworkAccessManager>
#include <QNetworkRequest>

namespace Runwatch::detail {

QnamStreamConnection::QnamStreamConnection(QNetworkAccessManager *manager, StreamPump *pump,
                                           std::shared_ptr<StreamChannel> channel, StreamTarget target,
                                           QObject *parent)
    : QObject(parent)
    , m_manager(manager)
    , m_pump(pump)
    , m_channel(std::move(channel))
    , m_target(std::move(target))
{}

QnamStreamConnection::~QnamStreamConnection()
{
    if (m_reply) {
        m_reply->disconnect(this);
        m_reply->abort();
        m_reply->deleteLater();
    }
}

void QnamStreamConnection::start()
{
    QNetworkRequest request(m_target.url);
    for (const auto &h : std::as_const(m_target.headers))
        request.setRawHeader(h.first, h.second);
    if (m_target.inactivityMs > 0)
        request.setTransferTimeout(int(m_target.inactivityMs));
    m_reply = m_manager->sendCustomRequest(request, m_target.method, m_target.body);
    connect(m_reply, &QNetworkReply::metaDataChanged, this, [this] {
        if (m_headersPublished)
            return;
        bool paused = false;
        m_pump->publishBody(
            m_channel, {}, [this](StreamIncoming &in) { publishHeaders(in); }, paused);
    });
    connect(m_reply, &QNetworkReply::readyRead, this, &QnamStreamConnection::readAvailable);
    connect(m_reply, &QNetworkReply::finished, this, &QnamStreamConnection::onFinished);
}

void QnamStreamConnection::publishHeaders(StreamIncoming &in)
{
    if (m_headersPublished || !m_reply)
        return;
    const QVariant status = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute);
    if (!status.isValid())
        return;
    m_headersPublished = true;
    in.headers = true;
    in.status = status.toInt();
    in.reason = m_reply->attribute(QNetworkRequest::HttpReasonPhraseAttribute).toString().toLatin1();
    in.headerList = m_reply->rawHeaderPairs();
}

void QnamStreamConnection::resume()
{
    m_paused = false;
    readAvailable();
}

void QnamStreamConnection::readAvailable()
{
    if (!m_reply || m_paused)
        return;
    const QByteArray body = m_reply->readAll();
    bool paused = false;
    m_pump->publishBody(
        m_channel, body, [this](StreamIncoming &in) { publishHeaders(in); }, paused);
    // QNAM buffers without bound; pausing only stops handing over, which is what the owner
    // sees as backpressure.
    m_paused = paused;
}

void QnamStreamConnection::onFinished()
{
    if (!m_reply)
        return;
    m_paused = false;
    readAvailable();
    const QNetworkReply::NetworkError error = m_reply->error();
    // An HTTP error status is a response like any other here: HttpClient reads the status.
    const bool httpError
        = m_headersPublished && m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() >= 400;
    const QString message = m_reply->errorString();
    m_pump->publish(m_channel, [&](StreamIncoming &in, bool &) {
        publishHeaders(in);
        in.finished = true;
        in.error = httpError ? QNetworkReply::NoError : error;
        in.errorString = httpError ? QString() : message;
    });
}

} // namespace Runwatch::detail
