// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "streamdecoder.h"

#include <QObject>

class QNetworkReply;

namespace Runwatch::detail {

// The DecodedStream of an event stream that QNetworkAccessManager reads (a proxy, a connection's
// own CA bundle, credentials in the URL, RUNWATCH_STREAM_TRANSPORT=qnam). QNAM hands the body to
// the reply's thread, so the decoder runs there, in take(), through the same decodeInto() as on
// the stream pump's thread. A child of the reply: it goes with it.
class QnamDecodedStream final : public QObject, public DecodedStream
{
public:
    QnamDecodedStream(QNetworkReply *reply, std::unique_ptr<StreamDecoder> decoder);

    // The reader hears of new bytes by the reply's readyRead, as from any QNAM reply: one queued
    // signal per chunk is QNAM's, and the reader batches them.
    void setReader(StreamDecodedReader * /*reader*/) override {}
    // Decodes what the reply holds, in bounded slices, until the decoder has decided the end.
    std::unique_ptr<StreamDecoded> take() override;
    // Made on this thread: freed here, as the argument goes.
    void recycle(std::unique_ptr<StreamDecoded> /*spent*/) override {}
    // QNAM paces nothing: its chunks come as they come, and the reader batches them per turn.
    void setRelaxed(bool /*relaxed*/) override {}

private:
    QNetworkReply *m_reply; // the parent
    std::unique_ptr<StreamDecoder> m_decoder;
    bool m_more = true; // false once the decoder wants no more: the rest stays unread
};

} // namespace Runwatch::detail
