// SPDX-License-Identifier: GPL-3.0-or-later
#include "streampump.h"
#include "threadhandoff.h"

#include "streamconnection.h"
#include "streamreply.h"

#include <QElapsedTimer>
#include <QHash>
#include <QPointer>
#include <QTimer>

#include <algorithm>
#include <array>
#include <chrono>

using namespace std::chrono_literals;

namespace Runwatch::detail {

namespace {
// What a relaxed stream hands over without waiting for its turn: its end, its headers (the run's
// identity follows), and a backlog (a catch-up must not wait for its turns). Under the mutex.
bool urgent(const StreamIncoming &in)
{
    return in.finished || in.headers || in.data.size() + in.decodedBytes >= StreamPump::RelaxedUnread;
}

// The turns of a relaxed stream: those whose number is its id modulo its period (relaxedPeriod()),
// so that each turn hands over that share of the relaxed streams however many started together.
qint64 phaseOf(const StreamChannel &channel, qint64 period)
{
    return qint64(channel.id % quint64(period));
}

// The first of its turns after its last hand-over: a stream quiet for longer hands over at once.
qint64 nextTurn(const StreamChannel &channel, qint64 period)
{
    const qint64 after = channel.handedAt + 1;
    return after + ((phaseOf(channel, period) - after) % period + period) % period;
}
} // namespace

// Lives on one owner thread and hands that thread's streams what arrived, in one queued call per
// flush. Created with the thread's first stream, deleted with its last.
class StreamInbox final : public QObject
{
public:
    explicit StreamInbox(StreamPump *pump)
        : m_pump(pump)
        , m_wake(this)
    {
        m_wake.setSingleShot(true);
        m_wake.setInterval(kStandIn);
        m_wake.setObjectName(QStringLiteral("relaxedStreams"));
        QObject::connect(&m_wake, &QTimer::timeout, this, [this] {
            // Turns come with the pump's calls while data comes, a frame or a little more apart;
            // this one stands in only when none came for kStandIn. Sooner, it would take a turn
            // just before the pump's call takes the next: two turns' hand-overs in one frame.
            const qint64 quiet = m_sinceTurn.isValid() ? m_sinceTurn.elapsed() : kStandIn.count();
            if (quiet < kStandIn.count()) {
                m_wake.start(std::chrono::milliseconds(kStandIn.count() - quiet));
            } else {
                deliver();
            }
        });
    }

    // Owner thread, from the queued call the pump posted (at most one a frame), or from the
    // wake-up that stands in for it while only relaxed streams wait. Each call is a turn: what
    // arrived, but for the relaxed streams whose turn it is not (they wait in the bucket of their
    // turns, and are not looked at again until then), and the relaxed streams whose turn it is.
    void deliver()
    {
        const qint64 turn = ++m_turn;
        m_sinceTurn.start();
        QList<std::shared_ptr<StreamChannel>> ready;
        bool waiting = false;
        {
            QMutexLocker lock(&m_pump->m_mutex);
            QList<std::shared_ptr<StreamChannel>> &due = m_waiting[turn % StreamPump::kMaxRelaxedFrames];
            ready.reserve(pending.size() + due.size());
            // A stream waits in the bucket of its next turn: fewer than kMaxRelaxedFrames turns
            // away, so a bucket never holds two of its turns, whatever the period was.
            const qint64 period = StreamPump::relaxedPeriod(streams);
            for (std::shared_ptr<StreamChannel> &channel : pending) {
                const qint64 next = channel->relaxed ? nextTurn(*channel, period) : turn;
                if (turn < next && !urgent(channel->incoming)) {
                    channel->waiting = true;
                    m_waiting[next % StreamPump::kMaxRelaxedFrames].append(std::move(channel));
                } else {
                    channel->queued = false;
                    ready.append(std::move(channel));
                }
            }
            pending.clear();
            // A channel that went meanwhile (urgent, looked at closely, closed) is no longer
            // waiting: its entry here is left behind.
            for (std::shared_ptr<StreamChannel> &channel : due) {
                if (channel->waiting) {
                    channel->waiting = false;
                    channel->queued = false;
                    ready.append(std::move(channel));
                }
            }
            due.clear();
            waiting = hasWaitingLocked();
            posted = false;
        }
        if (waiting && !m_wake.isActive())
            m_wake.start(kStandIn);
        // A reply may be deleted, or the last stream closed, by a slot below. A deleted reply has
        // closed its channel (~StreamReply), which clears channel->reply on this thread: no
        // QPointer per stream per frame (a cold cache line each, ≈ 5 % of the GUI thread).
        m_delivering = true;
        for (const auto &channel : ready) {
            channel->handedAt = turn;
            if (StreamReply *reply = channel->reply)
                reply->absorb();
        }
        m_delivering = false;
        if (m_orphaned)
            delete this;
    }

    // Under the pump's mutex: `channel` waits for its turn no longer (what arrived must not
    // wait, or it is looked at closely now), and goes in the next turn.
    void takeOutOfTurnLocked(const std::shared_ptr<StreamChannel> &channel)
    {
        channel->waiting = false;
        pending.append(channel);
    }

    // Under the pump's mutex.
    bool hasWaitingLocked() const
    {
        return std::any_of(m_waiting.cbegin(), m_waiting.cend(), [](const auto &b) { return !b.isEmpty(); });
    }

    // Owner thread: the next turn now rather than at the next data (StreamPump::setRelaxed).
    void hurry() { QMetaObject::invokeMethod(this, &StreamInbox::deliver, Qt::QueuedConnection); }

    // Under the pump's mutex.
    QList<std::shared_ptr<StreamChannel>> pending;
    int streams = 0;
    bool posted = false;
    QThread *thread = nullptr;

    // Owner thread, after it was unregistered: now, or once deliver() has returned.
    void dispose()
    {
        if (m_delivering) {
            m_orphaned = true;
        } else {
            delete this;
        }
    }

private:
    // The quiet after which the wake-up takes a turn: the longest two turns are apart while
    // relaxed streams wait (StreamPump::kRelaxedWait counts on it).
    static constexpr std::chrono::milliseconds kStandIn = 2 * StreamPump::kFrame;
    static_assert(StreamPump::kRelaxedWait == StreamPump::kMaxRelaxedFrames * kStandIn);

    StreamPump *m_pump;
    // Under the pump's mutex: relaxed channels waiting for their turns, by turn modulo
    // kMaxRelaxedFrames.
    std::array<QList<std::shared_ptr<StreamChannel>>, StreamPump::kMaxRelaxedFrames> m_waiting;
    QTimer m_wake;
    QElapsedTimer m_sinceTurn;
    qint64 m_turn = 0;
    bool m_delivering = false;
    bool m_orphaned = false;
};

// The pump thread's root: owns the connections and paces the hand-over to the owners.
class StreamWorker final : public QObject
{
public:
    explicit StreamWorker(StreamPump *pump)
        : m_pump(pump)
        , m_flushTimer(this) // a child, so that it moves to the pump thread with us
    {
        m_flushTimer.setSingleShot(true);
        m_flushTimer.setTimerType(Qt::PreciseTimer);
        QObject::connect(&m_flushTimer, &QTimer::timeout, this, [this] {
            m_flushPending = false;
            m_sinceFlush.start();
            m_pump->flush();
        });
    }

    void open(const std::shared_ptr<StreamChannel> &channel, const StreamTarget &target)
    {
        auto *connection = new StreamConnection(m_pump, channel, target, this);
        connection->start();
        m_connections.insert(channel->id, connection);
        QObject::connect(connection, &QObject::destroyed, this,
                         [this, id = channel->id] { m_connections.remove(id); });
    }

    void close(quint64 id)
    {
        // Not inside any of its own slots: this is a queued call. take() gives null for a
        // connection already gone.
        delete m_connections.take(id);
    }

    void resume(quint64 id)
    {
        if (StreamConnection *connection = m_connections.value(id))
            connection->resume();
    }

    void scheduleFlush()
    {
        if (m_flushPending)
            return;
        m_flushPending = true;
        // The first data after a quiet spell goes at once; a busy stream waits for the frame.
        const auto since
            = m_sinceFlush.isValid() ? std::chrono::milliseconds(m_sinceFlush.elapsed()) : StreamPump::kFrame;
        m_flushTimer.start(since >= StreamPump::kFrame ? 0ms : StreamPump::kFrame - since);
    }

private:
    StreamPump *m_pump;
    QHash<quint64, StreamConnection *> m_connections;
    QTimer m_flushTimer;
    QElapsedTimer m_sinceFlush;
    bool m_flushPending = false;
};

StreamPump::StreamPump()
{
    m_thread.setObjectName(QStringLiteral("Runwatch streams"));
    m_worker = new StreamWorker(this);
    m_worker->moveToThread(&m_thread);
    m_thread.start();
}

StreamPump::~StreamPump()
{
    // The sockets belong to the pump thread: delete them there, then stop it.
    invokeAcross(
        m_worker, [worker = m_worker] { delete worker; }, Qt::BlockingQueuedConnection);
    m_thread.quit();
    m_thread.wait();
    // Every owner released its streams before letting go of the pump (StreamReply holds it).
    Q_ASSERT(m_inboxes.isEmpty());
}

std::shared_ptr<StreamPump> StreamPump::shared()
{
    static QMutex mutex;
    static std::weak_ptr<StreamPump> current;
    QMutexLocker lock(&mutex);
    std::shared_ptr<StreamPump> pump = current.lock();
    if (!pump) {
        pump = std::make_shared<StreamPump>();
        current = pump;
    }
    return pump;
}

std::shared_ptr<StreamChannel> StreamPump::open(StreamReply *reply, StreamTarget target)
{
    auto channel = std::make_shared<StreamChannel>();
    channel->reply = reply;
    QThread *owner = QThread::currentThread();
    {
        QMutexLocker lock(&m_mutex);
        channel->id = m_nextId++;
        StreamInbox *inbox = nullptr;
        for (StreamInbox *candidate : std::as_const(m_inboxes)) {
            if (candidate->thread == owner)
                inbox = candidate;
        }
        if (!inbox) {
            inbox = new StreamInbox(this); // created here, so it lives on the owner's thread
            inbox->thread = owner;
            m_inboxes.append(inbox);
        }
        ++inbox->streams;
        channel->inbox = inbox;
    }
    invokeAcross(
        m_worker, [worker = m_worker, channel, target = std::move(target)] { worker->open(channel, target); },
        Qt::QueuedConnection);
    return channel;
}

void StreamPump::close(const std::shared_ptr<StreamChannel> &channel)
{
    if (!channel)
        return;
    channel->reply = nullptr;
    StreamInbox *disposed = nullptr;
    {
        QMutexLocker lock(&m_mutex);
        StreamInbox *inbox = std::exchange(channel->inbox, nullptr);
        if (!inbox)
            return;
        inbox->pending.removeOne(channel);
        channel->queued = false;
        channel->waiting = false; // its entry in a bucket is left behind
        if (--inbox->streams == 0) {
            // Unregistered under the mutex: the pump posts nothing to it any more, and a call
            // already posted goes with it (~QObject drops pending posted events).
            m_inboxes.removeOne(inbox);
            disposed = inbox;
        }
    }
    if (disposed)
        disposed->dispose();
    invokeAcross(
        m_worker, [worker = m_worker, id = channel->id] { worker->close(id); }, Qt::QueuedConnection);
}

StreamIncoming StreamPump::take(const std::shared_ptr<StreamChannel> &channel, qsizetype maxData)
{
    bool wasPaused = false;
    StreamIncoming taken;
    {
        QMutexLocker lock(&m_mutex);
        StreamIncoming &in = channel->incoming;
        if (in.data.size() <= maxData) {
            taken = std::exchange(in, {});
        } else {
            taken.headers = std::exchange(in.headers, false);
            taken.status = in.status;
            taken.reason = in.reason;
            taken.headerList = std::exchange(in.headerList, {});
            taken.data = in.data.first(std::max<qsizetype>(maxData, 0));
            in.data.remove(0, taken.data.size());
            taken.decoded = std::move(in.decoded);
            in.decodedBytes = 0;
        }
        if (channel->paused && in.data.size() + in.decodedBytes < MaxUnread)
            wasPaused = std::exchange(channel->paused, false);
    }
    if (wasPaused) {
        invokeAcross(
            m_worker, [worker = m_worker, id = channel->id] { worker->resume(id); }, Qt::QueuedConnection);
    }
    return taken;
}

void StreamPump::attachDecoder(const std::shared_ptr<StreamChannel> &channel,
                               std::unique_ptr<StreamDecoder> decoder)
{
    if (!channel || !decoder)
        return;
    bool wasPaused = false;
    {
        QMutexLocker lock(&m_mutex);
        StreamIncoming &in = channel->incoming;
        if (!in.data.isEmpty()) {
            // At most a frame's worth, once per stream: decoded here so that it stays in order.
            decodeInto(*decoder, in.data, in.decoded);
            in.decodedBytes += in.data.size();
            in.data.clear();
            queueLocked(channel);
        }
        channel->decoder = std::move(decoder);
        if (channel->paused && in.decodedBytes < MaxUnread)
            wasPaused = std::exchange(channel->paused, false);
    }
    // The flush timer lives on the pump thread: schedule from there.
    invokeAcross(
        m_worker,
        [worker = m_worker, id = channel->id, wasPaused] {
            if (wasPaused)
                worker->resume(id);
            worker->scheduleFlush();
        },
        Qt::QueuedConnection);
}

void StreamPump::setRelaxed(const std::shared_ptr<StreamChannel> &channel, bool relaxed)
{
    if (!channel || channel->relaxed == relaxed)
        return;
    channel->relaxed = relaxed;
    if (relaxed)
        return;
    // Looked at closely now: what waits for its turn goes in the next frame.
    QMutexLocker lock(&m_mutex);
    if (channel->waiting && channel->inbox) {
        channel->inbox->takeOutOfTurnLocked(channel);
        channel->inbox->hurry();
    }
}

void StreamPump::queueLocked(const std::shared_ptr<StreamChannel> &channel)
{
    if (!channel->inbox)
        return;
    if (channel->queued) {
        if (channel->waiting && urgent(channel->incoming))
            channel->inbox->takeOutOfTurnLocked(channel);
        return;
    }
    channel->queued = true;
    channel->inbox->pending.append(channel);
}

void StreamPump::scheduleFlush()
{
    m_worker->scheduleFlush();
}

void StreamPump::recycle(std::unique_ptr<StreamDecoded> spent)
{
    if (!spent)
        return;
    QMutexLocker lock(&m_mutex);
    m_spent.push_back(std::move(spent));
}

void StreamPump::flush()
{
    // What the owners were done with: freed as `spent` goes, after the lock (declared after it).
    std::vector<std::unique_ptr<StreamDecoded>> spent;
    QMutexLocker lock(&m_mutex);
    spent.swap(m_spent);
    for (StreamInbox *inbox : std::as_const(m_inboxes)) {
        // Also while relaxed streams wait: data for them, though it joins them there, is what
        // makes turns come (one a frame).
        if ((inbox->pending.isEmpty() && !inbox->hasWaitingLocked()) || inbox->posted)
            continue;
        inbox->posted = true;
        invokeAcross(
            inbox, [inbox] { inbox->deliver(); }, Qt::QueuedConnection);
    }
}

} // namespace Runwatch::detail
