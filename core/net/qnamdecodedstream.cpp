// SPDX-License-Identifier: GPL-3.0-or-later
#include "qnamdecodedstream.h"

#include <QNetworkReply>

namespace Runwatch::detail {

namespace {

// QNetworkReply may hold megabytes after a stall: read it in slices so one huge read does not
// double the memory, and so a stop decided mid-body leaves the rest unread.
constexpr qint64 kReadSlice = 256 * 1024;

} // namespace

QnamDecodedStream::QnamDecodedStream(QNetworkReply *reply, std::unique_ptr<StreamDecoder> decoder)
    : QObject(reply)
    , m_reply(reply)
    , m_decoder(std::move(decoder))
{}

std::unique_ptr<StreamDecoded> QnamDecodedStream::take()
{
    std::unique_ptr<StreamDecoded> out;
    while (m_more && m_reply->isOpen() && m_reply->bytesAvailable() > 0) {
        const QByteArray chunk = m_reply->read(kReadSlice);
        if (chunk.isEmpty())
            break;
        m_more = decodeInto(*m_decoder, chunk, out);
    }
    return out;
}

} // namespace Runwatch::detail
