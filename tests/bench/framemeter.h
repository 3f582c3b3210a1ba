// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Measures the GUI thread's work per 60 Hz frame as the thread's CPU time (a loaded machine
// that preempts us does not inflate it). Every event goes through QApplication::notify(); when
// the first event of a new 16.67 ms wall-clock frame arrives, the CPU time used since the
// previous sample is booked to the frame of that sample. Reading the thread's CPU clock is a
// system call, so it is read at most once per frame, not per event.

#include <QApplication>
#include <QElapsedTimer>
#include <QThread>

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
        m_frames[m_frame] += cpu - m_cpuMark;
        m_cpuMark = cpu;
        m_frame = frame;
        if (m_frames.size() <= frame)
            m_frames.resize(frame + 1, 0);
    }

    QElapsedTimer m_wall;
    std::vector<qint64> m_frames;
    std::size_t m_frame = 0;
    qint64 m_cpuMark = 0;
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
        if (meter && meter->running() && QThread::currentThread() == thread())
            meter->tick();
        return QApplication::notify(receiver, event);
    }
};

} // namespace RunwatchBench
