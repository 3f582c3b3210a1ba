// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "streamdecoder.h"

#include <QByteArray>
#include <QList>
#include <QMutex>
#include <QNetworkReply>
#include <QPair>
#include <QString>
#include <QThread>

#include <algorithm>
#include <chrono>
#include <limits>
#include <memory>
#include <vector>

namespace Runwatch::detail {

class StreamInbox;
class StreamReply;
class StreamWorker;

// Where and what to send, prepared on the owner's thread (see StreamReply).
struct StreamTarget
{
    QString host;
    quint16 port = 0;
    bool tls = false;
    QByteArray wire; // the whole request: request line, header fields, body
    bool head = false;
    qint64 inactivityMs = 0; // 0: no inactivity timeout
};

// What the connection has received and the owner has not taken yet.
struct StreamIncoming
{
    bool headers = false; // status/reason/headerList are new
    int status = 0;
    QByteArray reason;
    QList<QPair<QByteArray, QByteArray>> headerList;
    QByteArray data; // body bytes, when the stream has no decoder
    // What the stream's decoder made of the body (see StreamDecoder), and how many body bytes it
    // took for that: the backpressure measure while the reader has not taken it.
    std::unique_ptr<StreamDecoded> decoded;
    qsizetype decodedBytes = 0;
    bool finished = false;
    QNetworkReply::NetworkError error = QNetworkReply::NoError;
    QString errorString;
};

// One stream, shared by its StreamReply (owner thread) and its connection (pump thread).
struct StreamChannel
{
    quint64 id = 0;
    // Under StreamPump's mutex.
    StreamIncoming incoming;
    bool paused = false;          // the connection stopped reading until the owner takes data
    bool queued = false;          // in its inbox's pending list, or waiting there for its turn
    bool waiting = false;         // relaxed, in its inbox's bucket of its turns (setRelaxed)
    StreamInbox *inbox = nullptr; // null once closed
    // Set once by the owner (attachDecoder), then used only on the pump thread; destroyed with
    // the channel, which the pump thread holds while it decodes.
    std::unique_ptr<StreamDecoder> decoder;
    // Owner thread only.
    StreamReply *reply = nullptr;
    // Handed over on one of its inbox's turns in StreamPump::relaxedPeriod(), not on every one
    // (setRelaxed).
    bool relaxed = false;
    qint64 handedAt = std::numeric_limits<qint64>::min() / 2; // the inbox's turn of the last hand-over
};

// Reads event streams on one thread of its own and hands what arrived to the owners' threads at
// most once per 60 Hz frame.
//
// Why: Qt 6.4's QNetworkAccessManager delivers every chunk of an HTTP/1.1 body as one queued
// signal from its HTTP thread to the reply's thread. With 200 runs streaming 50 events/s that is
// 10,000 wake-ups of the GUI thread per second, most of its time per frame. Here the sockets
// live on the pump's thread, and each owner thread gets one queued call per frame for all of its
// streams together. A side effect: each stream has its own connection, so streams never queue
// behind QNAM's six connections per host, nor hold up the polls and cancels of the same host.
//
// One pump per process, shared by every HttpClient (shared()); it stops its thread when the
// last user lets go. Thread-safe.
class StreamPump final
{
public:
    StreamPump();
    ~StreamPump();
    Q_DISABLE_COPY_MOVE(StreamPump)

    static std::shared_ptr<StreamPump> shared();

    // Owner thread. Starts the request; `reply` gets absorb() calls on this thread from now on.
    std::shared_ptr<StreamChannel> open(StreamReply *reply, StreamTarget target);
    // Owner thread. Stops the connection (if still open) and forgets the owner. Idempotent.
    void close(const std::shared_ptr<StreamChannel> &channel);
    // Owner thread. What arrived since the last take, with at most `maxData` bytes of data (the
    // rest, and the end after it, stay for later); a paused connection reads again once it holds
    // back less than MaxUnread.
    StreamIncoming take(const std::shared_ptr<StreamChannel> &channel, qsizetype maxData);
    // Owner thread. A relaxed stream hands over on one of its inbox's turns in relaxedPeriod() (a
    // turn a frame while data comes; which one, its id picks, so that the relaxed streams take
    // turns), and at once when it ends, gets its headers or holds RelaxedUnread bytes: for a run
    // nobody looks at closely, a dozen events handed over together cost the owner's thread little
    // more than one (bench_gui_live).
    void setRelaxed(const std::shared_ptr<StreamChannel> &channel, bool relaxed);
    // Owner thread. What the owner took from a decoder (StreamIncoming::decoded) and is done with,
    // freed on the pump thread at its next flush: the decoder allocated it there
    // (DecodedStream::recycle).
    void recycle(std::unique_ptr<StreamDecoded> spent);
    // Owner thread. From now on the body goes through `decoder` on the pump thread and the owner
    // takes its results (StreamIncoming::decoded) instead of bytes. Body bytes not taken yet are
    // decoded first, so nothing is lost or reordered.
    void attachDecoder(const std::shared_ptr<StreamChannel> &channel, std::unique_ptr<StreamDecoder> decoder);

    // Pump thread. Hands `body` to the channel: decoded by its decoder when it has one (outside
    // the mutex), else appended to its data. Sets `paused` when the owner is too far behind.
    // `headers(StreamIncoming &)` runs under the mutex first.
    template<typename F>
    void publishBody(const std::shared_ptr<StreamChannel> &channel, const QByteArray &body, F &&headers,
                     bool &paused)
    {
        StreamDecoder *decoder = nullptr;
        {
            QMutexLocker lock(&m_mutex);
            decoder = channel->decoder.get();
        }
        std::unique_ptr<StreamDecoded> decoded;
        if (decoder && !body.isEmpty())
            decodeInto(*decoder, body, decoded);
        {
            QMutexLocker lock(&m_mutex);
            StreamIncoming &in = channel->incoming;
            headers(in);
            if (!body.isEmpty()) {
                if (!decoder && channel->decoder) {
                    // The owner attached a decoder between our two looks: decode here, under the
                    // mutex, so that these bytes still come after the ones it decoded.
                    decoder = channel->decoder.get();
                    decodeInto(*decoder, body, decoded);
                }
                if (decoder) {
                    in.decodedBytes += body.size();
                    appendDecoded(in.decoded, std::move(decoded));
                } else {
                    in.data.append(body);
                }
            }
            if (in.data.size() + in.decodedBytes >= MaxUnread)
                channel->paused = true;
            paused = channel->paused;
            queueLocked(channel);
        }
        scheduleFlush();
    }

    // Pump thread. Applies `update` to the channel's incoming state and schedules delivery.
    // `update(StreamIncoming &, bool &paused)` runs under the mutex.
    template<typename F>
    void publish(const std::shared_ptr<StreamChannel> &channel, F &&update)
    {
        {
            QMutexLocker lock(&m_mutex);
            update(channel->incoming, channel->paused);
            queueLocked(channel);
        }
        scheduleFlush();
    }

    // Unread data a stream's reply holds at most; its connection stops reading (TCP
    // backpressure) once it holds back as much again.
    static constexpr qsizetype MaxUnread = 8 * 1024 * 1024;
    // One 60 Hz frame: data that arrives faster is handed over together.
    static constexpr std::chrono::milliseconds kFrame{16};
    // A relaxed stream's turn comes once in this many of its inbox's turns (a turn a frame while
    // data comes: four times a second)...
    static constexpr qint64 kRelaxedFrames = 15;
    // ...or less often when its inbox has more than kRelaxedPerTurn streams a turn at that pace,
    // down to once in this many (twice a second): a hand-over's cost is mostly its stream's and
    // its run's cold cache lines, whatever it brings, so a thousand streams handed over in turns
    // of 30 frames cost the GUI thread a sixth less per frame than in turns of 15
    // (bench_gui_live 1000 x 20; docs/architecture.md, "Fewer turns per stream with many streams").
    static constexpr qint64 kMaxRelaxedFrames = 30;
    static constexpr qint64 kRelaxedPerTurn = 20;
    // How many turns apart an inbox with `streams` streams hands each relaxed one over.
    static constexpr qint64 relaxedPeriod(qint64 streams)
    {
        return std::clamp<qint64>((streams + kRelaxedPerTurn - 1) / kRelaxedPerTurn, kRelaxedFrames,
                                  kMaxRelaxedFrames);
    }
    // The longest a relaxed stream's data waits for its turn: kMaxRelaxedFrames turns, two frames
    // apart at most (the wake-up that stands in while only relaxed streams wait).
    static constexpr std::chrono::milliseconds kRelaxedWait = kMaxRelaxedFrames * 2 * kFrame;
    // A relaxed stream holding this much hands over without waiting for its turn: a catch-up
    // goes at full speed.
    static constexpr qsizetype RelaxedUnread = 1024 * 1024;

private:
    friend class StreamInbox;
    friend class StreamWorker;

    void queueLocked(const std::shared_ptr<StreamChannel> &channel);
    void scheduleFlush();
    void flush();

    QMutex m_mutex;
    QList<StreamInbox *> m_inboxes;                      // one per owner thread with open streams
    std::vector<std::unique_ptr<StreamDecoded>> m_spent; // recycle(): freed by flush()
    QThread m_thread;
    StreamWorker *m_worker = nullptr; // lives in m_thread
    quint64 m_nextId = 1;
};

} // namespace Runwatch::detail
