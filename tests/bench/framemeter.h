// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Measures the GUI thread's work per 60 Hz frame as the thread's CPU time (a loaded machine
// that preempts us does not inflate it). Every event goes through QApplication::notify(); when
// the first event of a new 16.67 ms wall-clock frame arrives, the CPU time used since the
// previous sample is booked to the frame of that sample. Reading the thread's CPU clock is a
// system call, so it is read at most once per frame, not per event.

#include <QApplication>
#include <QElapsedTimer>
#include <QHash>
#include <QMetaEnum>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <vector>

namespace RunwatchBench {

inline qint64 threadCpuNs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return qint64(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

class FrameMeter
{
public:
    static constexpr qint64 kFrameNs = 16'666'667;

    struct Stats
    {
        double p50 = 0, p90 = 0, p99 = 0, max = 0, mean = 0; // ms of work per frame
        std::size_t frames = 0;
        double busyShare = 0; // CPU time of the GUI thread / wall time
    };

    void start()
    {
        m_frames.assign(1, 0);
        m_frame = 0;
        m_discount = 0;
        m_wall.start();
        m_cpuMark = threadCpuNs();
        m_running = true;
    }
    void stop()
    {
        book(std::size_t(m_wall.nsecsElapsed() / kFrameNs) + 1);
        m_running = false;
    }
    bool running() const { return m_running; }

    // Called by MeteredApplication before each outermost event delivery.
    void tick()
    {
        const auto frame = std::size_t(m_wall.nsecsElapsed() / kFrameNs);
        if (frame != m_frame)
            book(frame);
    }

    // CPU time the benchmark itself spent on the GUI thread in the current frame (its bookkeeping
    // of what the window shows): not the product's work, left out of the frame.
    void discount(qint64 ns) { m_discount += ns; }

    // BENCH_BREAKDOWN=1: CPU time of each outermost event, booked by kind (receiver class and
    // event type) to the frame it started in; printBreakdown() shows what the heaviest frames
    // spent their time on next to the average frame.
    void bookEvent(const QByteArray &kind, qint64 ns)
    {
        if (!m_running)
            return;
        auto &perFrame = m_kinds[kind];
        if (perFrame.size() <= m_frame)
            perFrame.resize(m_frame + 1, 0);
        perFrame[m_frame] += ns;
    }

    void printBreakdown(double heavyShare = 0.01) const
    {
        if (m_kinds.isEmpty())
            return;
        std::vector<std::size_t> order(m_frames.size() > 1 ? m_frames.size() - 1 : m_frames.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        std::sort(order.begin(), order.end(),
                  [this](std::size_t a, std::size_t b) { return m_frames[a] > m_frames[b]; });
        const std::size_t heavy = std::max<std::size_t>(1, std::size_t(double(order.size()) * heavyShare));
        // BENCH_BREAKDOWN=band: the frames around the 99th percentile (ranks 0.5 % to 2 %), which
        // set p99, rather than the very heaviest, which are often one-off spikes.
        const bool band = qEnvironmentVariable("BENCH_BREAKDOWN") == u"band";
        if (band) {
            const std::size_t skip = order.size() / 200;
            order.erase(order.begin(), order.begin() + std::ptrdiff_t(skip));
        }
        std::printf("breakdown: ms per frame, heaviest %zu frames vs all %zu frames\n", heavy, order.size());
        std::vector<std::pair<double, QByteArray>> rows;
        for (auto it = m_kinds.cbegin(); it != m_kinds.cend(); ++it) {
            double h = 0, all = 0;
            for (std::size_t i = 0; i < order.size(); ++i) {
                const double v = order[i] < it->size() ? double((*it)[order[i]]) / 1e6 : 0.0;
                all += v;
                if (i < heavy)
                    h += v;
            }
            rows.emplace_back(h / double(heavy),
                              it.key() + QByteArray::number(all / double(order.size()), 'f', 3));
        }
        std::sort(rows.begin(), rows.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
        double frameSum = 0;
        for (std::size_t i = 0; i < heavy; ++i)
            frameSum += double(m_frames[order[i]]) / 1e6;
        std::printf("  %7.3f  (whole frame)\n", frameSum / double(heavy));
        if (band) {
            // Each of those frames, what it held (above 0.05 ms): which chores met in it.
            for (std::size_t i = 0; i < heavy; ++i) {
                std::printf("  frame %zu, %.3f ms:", order[i], double(m_frames[order[i]]) / 1e6);
                for (auto it = m_kinds.cbegin(); it != m_kinds.cend(); ++it) {
                    const qint64 ns = order[i] < it->size() ? (*it)[order[i]] : 0;
                    if (ns >= 50'000)
                        std::printf(" [%s%.2f]", it.key().trimmed().constData(), double(ns) / 1e6);
                }
                std::printf("\n");
            }
        }
        for (std::size_t i = 0; i < std::min<std::size_t>(rows.size(), 24); ++i) {
            const QByteArray &r = rows[i].second;
            const qsizetype cut = r.lastIndexOf(' ');
            std::printf("  %7.3f  %-60s avg %s\n", rows[i].first, r.first(cut).constData(),
                        r.mid(cut + 1).constData());
        }
    }

    Stats stats() const
    {
        Stats s;
        std::vector<qint64> v = m_frames;
        const std::size_t total = std::size_t(m_wall.nsecsElapsed() / kFrameNs);
        if (v.size() < total)
            v.resize(total, 0); // frames without any event did no work
        if (v.size() > 1)
            v.pop_back(); // the last frame is partial
        if (v.empty())
            return s;
        qint64 sum = 0;
        for (qint64 x : v)
            sum += x;
        std::sort(v.begin(), v.end());
        const auto at = [&](double q) {
            return double(v[std::min(v.size() - 1, std::size_t(q * double(v.size())))]) / 1e6;
        };
        s.p50 = at(0.50);
        s.p90 = at(0.90);
        s.p99 = at(0.99);
        s.max = double(v.back()) / 1e6;
        s.mean = double(sum) / double(v.size()) / 1e6;
        s.frames = v.size();
        s.busyShare = double(sum) / (double(v.size()) * double(kFrameNs));
        return s;
    }

    // Work of every frame in ms (BENCH_FRAMES=1 prints them).
    void printFrames() const
    {
        if (qEnvironmentVariableIsEmpty("BENCH_FRAMES"))
            return;
        for (std::size_t i = 0; i < m_frames.size(); ++i)
            std::printf("%s%.2f", i ? " " : "frames: ", double(m_frames[i]) / 1e6);
        std::printf("\n");
    }

    static void print(const char *what, const Stats &s)
    {
        std::printf("%s: GUI-thread work (CPU) per 16.7 ms frame over %zu frames: p50 %.2f ms, p90 %.2f ms, "
                    "p99 %.2f ms, max %.2f ms; GUI thread busy %.1f %%\n",
                    what, s.frames, s.p50, s.p90, s.p99, s.max, s.busyShare * 100.0);
    }

private:
    void book(std::size_t frame)
    {
        const qint64 cpu = threadCpuNs();
        m_frames[m_frame] += std::max<qint64>(0, cpu - m_cpuMark - m_discount);
        m_discount = 0;
        m_cpuMark = cpu;
        m_frame = frame;
        if (m_frames.size() <= frame)
            m_frames.resize(frame + 1, 0);
    }

    QElapsedTimer m_wall;
    std::vector<qint64> m_frames;
    QHash<QByteArray, std::vector<qint64>> m_kinds;
    std::size_t m_frame = 0;
    qint64 m_cpuMark = 0;
    qint64 m_discount = 0;
    bool m_running = false;
};

class MeteredApplication final : public QApplication
{
public:
    using QApplication::QApplication;

    FrameMeter *meter = nullptr;

    bool notify(QObject *receiver, QEvent *event) override
    {
        // notify() also delivers the events of other threads (the network, the simulator).
        if (!meter || !meter->running() || QThread::currentThread() != thread())
            return QApplication::notify(receiver, event);
        meter->tick();
        if (m_breakdown && m_depth > 0 && event->type() == QEvent::Paint) {
            // Paint events are not nested in each other: book each widget's share of the frame's paint.
            const QByteArray kind
                = "  paint " + QByteArray(receiver->metaObject()->className()) + ' '
                  + receiver->objectName().toLatin1()
                  + (receiver->parent() ? "<" + QByteArray(receiver->parent()->metaObject()->className())
                                        : QByteArray())
                  + ' ';
            const qint64 start = threadCpuNs();
            const bool done = QApplication::notify(receiver, event);
            meter->bookEvent(kind, threadCpuNs() - start);
            return done;
        }
        if (!m_breakdown || m_depth > 0)
            return QApplication::notify(receiver, event);
        const QByteArray kind = kindOf(receiver, event);
        const qint64 start = threadCpuNs();
        ++m_depth;
        const bool done = QApplication::notify(receiver, event);
        --m_depth;
        meter->bookEvent(kind, threadCpuNs() - start);
        return done;
    }

private:
    static QByteArray kindOf(QObject *receiver, QEvent *event)
    {
        QObject *named = receiver;
        // A timer's owner says more than "QTimer".
        if (qobject_cast<QTimer *>(receiver) && receiver->parent())
            named = receiver->parent();
        QByteArray kind = named->metaObject()->className();
        if (named != receiver)
            kind += " (timer)";
        // A named timer by its name: an owner's several timers apart.
        if (qobject_cast<QTimer *>(receiver) && !receiver->objectName().isEmpty())
            kind += ' ' + receiver->objectName().toLatin1();
        kind += ' ';
        kind += QMetaEnum::fromType<QEvent::Type>().valueToKey(event->type());
        kind += ' ';
        return kind;
    }

    const bool m_breakdown = !qEnvironmentVariableIsEmpty("BENCH_BREAKDOWN");
    int m_depth = 0;
};

} // namespace RunwatchBench
