// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QHash>
#include <QTimer>

namespace Runwatch {

class SseRunStream;

// One timer per thread for the stall deadlines of all the event streams on it, instead of a QTimer
// per stream. Qt 6.4 keeps a thread's timers in one list sorted by due time, and every start or
// firing of a timer walks it from its end: with a thousand streams' two-minute timers on the GUI
// thread, each start of a short timer there (the output view's frame, the pump's turns, the
// list's ticks) walked past all of them — 7 % of the GUI thread in `bench_gui_live 1000 …`
// (QTimerInfoList::timerInsert).
class StallWatch final : public QObject
{
public:
    ~StallWatch() override;

    // The calling thread's: created with its first stream, deleted when its last one lets go (one
    // that ends as stalled leaves it stopped, for the thread's next stream).
    static StallWatch &local();
    // Looks at `stream` once `deadline` (in QElapsedTimer::msecsSinceReference()) has passed;
    // SseRunStream::checkStall() then ends it as stalled or says when to look again.
    void watch(SseRunStream *stream, qint64 deadline);
    void unwatch(SseRunStream *stream);

private:
    StallWatch();
    void check();
    // The timer for the earliest deadline (none: stopped).
    void arm();
    void armFor(qint64 deadline);

    QHash<SseRunStream *, qint64> m_deadlines;
    QTimer m_timer;
    qint64 m_armedFor = 0; // the deadline the running timer is for
    bool m_checking = false;
};

} // namespace Runwatch
