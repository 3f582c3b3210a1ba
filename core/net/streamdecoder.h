// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArrayView>

#include <functional>
#include <memory>

namespace Runwatch {

// What a StreamDecoder made of a stream's body and its reader has not taken yet. The reader
// knows the concrete type (it made the decoder), so it is handed over type-erased.
class StreamDecoded
{
public:
    virtual ~StreamDecoded() = default;
    // Appends what was decoded after this (the reader had not taken this yet).
    virtual void append(StreamDecoded &&later) = 0;
};

// Turns a stream's body into what its reader wants, on the thread that reads the socket, so that
// the reader's thread gets ready results once per frame instead of bytes to parse.
//
// Thread-safe by construction, not by locks: HttpClient::openStream makes it (StreamDecoderFactory)
// when an event stream's body starts, with everything it needs as values; from then on only the
// thread that reads the body uses it — the stream pump's, or the reader's own for a
// QNetworkAccessManager reply. The pump serialises decode() and handOver() and destroys it with
// the stream, never while it is in use.
class StreamDecoder
{
public:
    virtual ~StreamDecoder() = default;
    // Consumes the next bytes of the body. False once the decoder wants no more (it has decided
    // the stream's end); later bytes are ignored.
    virtual bool decode(QByteArrayView bytes) = 0;
    // Moves what was decoded since the last call into `out` (appending when the reader has not
    // taken the previous result yet). Leaves `out` untouched when there is nothing new.
    virtual void handOver(std::unique_ptr<StreamDecoded> &out) = 0;
};

// Makes a stream's decoder; HttpClient::openStream calls it once, when the body of a 2xx event
// stream starts (not for an error body, nor for one that is not text/event-stream). May return
// null: the body is then read from the reply as bytes.
using StreamDecoderFactory = std::function<std::unique_ptr<StreamDecoder>()>;

// The one place a stream's body is decoded, whichever transport read it: `bytes` through
// `decoder`, and what it made appended to `out`. False once the decoder wants no more.
inline bool decodeInto(StreamDecoder &decoder, QByteArrayView bytes, std::unique_ptr<StreamDecoded> &out)
{
    const bool more = decoder.decode(bytes);
    decoder.handOver(out);
    return more;
}

// Adds `later` after what `pending` holds (the reader has not taken that yet).
inline void appendDecoded(std::unique_ptr<StreamDecoded> &pending, std::unique_ptr<StreamDecoded> later)
{
    if (!later)
        return;
    if (pending) {
        pending->append(std::move(*later));
    } else {
        pending = std::move(later);
    }
}

// Told on the reader's thread that a stream's decoder made something (DecodedStream::setReader):
// a direct call where QNetworkReply would emit readyRead. With hundreds of live streams a signal
// per stream per frame, and the reply's private data it touches, cost the GUI thread more than
// the hand-over itself.
class StreamDecodedReader
{
public:
    // Results wait in DecodedStream::take(). Called from the event loop, at most once per
    // frame. The reader may abort the reply, deleteLater() it, or even delete it from here.
    virtual void decodedReady() = 0;

protected:
    ~StreamDecodedReader() = default;
};

// An opened event stream's decoded body (OpenedStream::decoded): what the decoder made, taken on
// the reader's thread whichever transport reads the body. Owned by the stream's reply.
class DecodedStream
{
public:
    // `reader` is called when take() has something, instead of the reply's readyRead, where the
    // stream pump decodes (OpenedStream::inFrames); a QNAM reply keeps its readyRead and decodes
    // in take(). Null: readyRead. The reply's abort() forgets it.
    virtual void setReader(StreamDecodedReader *reader) = 0;
    // What the decoder made since the last call; null when nothing.
    virtual std::unique_ptr<StreamDecoded> take() = 0;
    // What take() gave, once the reader is done with it: freed on the thread that made it. The
    // stream pump's decoder allocated a frame's events on the pump thread, and freeing them on
    // the reader's (each a free into another thread's heap) was ~5 % of the GUI thread with a
    // thousand live streams; a QNAM reply decodes on the reader's thread and frees it here.
    virtual void recycle(std::unique_ptr<StreamDecoded> spent) = 0;
    // Relaxed: the reader is told a few times a second instead of every frame, where the stream
    // pump reads the stream (StreamPump::setRelaxed); a QNAM reply ignores it.
    virtual void setRelaxed(bool relaxed) = 0;

protected:
    ~DecodedStream() = default;
};

} // namespace Runwatch
