// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "streampump.h"

#include "domain/deletionwatch.h"

#include <QNetworkReply>

#include <memory>

namespace Runwatch {
struct HttpRequest;
}

namespace Runwatch::detail {

// A QNetworkReply whose request runs on the StreamPump's thread instead of inside
// QNetworkAccessManager. It looks like any other reply to its users — metaDataChanged when the
// headers are in, readyRead, finished, error(), the raw headers and the status attribute — so
// HttpClient's attempt logic and the SSE streams read it unchanged; the difference is that its
// signals come at most once per frame with everything that arrived meanwhile.
//
// With a decoder attached (HttpClient::openStream) the body is decoded on the pump's thread and
// the reply is also the stream's DecodedStream.
//
// Lives on the thread that created it; abort() and deletion stop the connection.
class StreamReply final : public QNetworkReply, public DecodedStream
{
public:
    // Whether the request can go this way: http/https, and no proxy configured for the URL on
    // `manager` or the application (the pump connects directly). Otherwise QNAM handles it,
    // proxies and all.
    static bool usable(const QUrl &url, const QNetworkAccessManager *manager);

    StreamReply(const HttpRequest &request, qint64 inactivityTimeoutMs, QObject *parent);
    ~StreamReply() override;

    void abort() override;
    qint64 bytesAvailable() const override;
    bool isSequential() const override { return true; }

    // Called by the pump's inbox on this thread: applies what arrived and emits the signals.
    void absorb();

    // The body goes through `decoder` on the pump's thread from now on (StreamPump::attachDecoder);
    // the bytes this reply holds unread are decoded here first. New results for take() are
    // announced to the reader (setReader), or by readyRead while there is none.
    void attachDecoder(std::unique_ptr<StreamDecoder> decoder);

    // DecodedStream
    void setReader(StreamDecodedReader *reader) override { m_reader = reader; }
    std::unique_ptr<StreamDecoded> take() override { return std::move(m_decoded); }
    void recycle(std::unique_ptr<StreamDecoded> spent) override { m_pump->recycle(std::move(spent)); }
    void setRelaxed(bool relaxed) override;

protected:
    qint64 readData(char *data, qint64 maxSize) override;

private:
    void fail(NetworkError code, const QString &message);
    void finish();
    // Runs `callOut` (a signal, or the reader), which may finish or delete this reply; false
    // when it did either.
    template<typename CallOut>
    bool survives(CallOut &&callOut);

    DeletionWatch m_watch; // for survives()
    bool m_done = false;   // isFinished() without a look into QNetworkReply's private data
    StreamDecodedReader *m_reader = nullptr;

    std::shared_ptr<StreamPump> m_pump;
    std::shared_ptr<StreamChannel> m_channel;
    std::unique_ptr<StreamDecoded> m_decoded;
    QByteArray m_buffer;
    qsizetype m_read = 0;    // bytes of m_buffer already read
    bool m_wantMore = false; // data was left with the connection because m_buffer was full
};

} // namespace Runwatch::detail
