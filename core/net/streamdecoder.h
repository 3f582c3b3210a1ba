// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArrayView>

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
// Thread-safe by construction, not by locks: the reader creates it with everything it needs as
// values and feeds it the bytes it already holds; once handed to the stream pump
// (HttpClient::attachDecoder) only the pump's thread uses it. The pump serialises decode() and
// handOver() and destroys it with the stream, never while it is in use.
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

// Told on the reader's thread that a stream's decoder made something (HttpClient::attachDecoder):
// a direct call where QNetworkReply would emit readyRead. With hundreds of live streams a signal
// per stream per frame, and the reply's private data it touches, cost the GUI thread more than
// the hand-over itself.
class StreamDecodedReader
{
public:
    // Results wait in HttpClient::takeDecoded(). Called from the event loop, at most once per
    // frame. The reader may abort the reply, deleteLater() it, or even delete it from here.
    virtual void decodedReady() = 0;

protected:
    ~StreamDecodedReader() = default;
};

} // namespace Runwatch
