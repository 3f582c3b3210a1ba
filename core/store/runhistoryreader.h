// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/run.h"

#include <QList>
#include <QMutex>
#include <QObject>
#include <QString>

#include <atomic>
#include <memory>

class QThread;

namespace Runwatch {

// Reads a store's history, newest first and in summary form (RunStore::Load::Summary), on a
// thread of its own with a connection of its own, in one statement: listing 100,000 runs a page
// at a time on the GUI thread re-walked the index per page and kept the window busy for seconds
// (README "The desktop app on that history"). The runs are handed over in batches; the caller
// takes them from its own thread at its own pace, so it can adopt them in slices between paints.
// The statement reads one snapshot of the file (WAL): the store keeps writing meanwhile, and a
// run written after the start is the writer's own (the engine has it), never read twice.
class RunHistoryReader : public QObject
{
    Q_OBJECT
public:
    explicit RunHistoryReader(QObject *parent = nullptr);
    ~RunHistoryReader() override; // stops the read and waits for its thread

    // Starts reading the store at `path`: every run, or with `afterCreatedAt`/`afterLocalId` set
    // (a page the caller already has, RunStore::PagePosition) only those after it in the order
    // created_at DESC, local_id DESC. Once per reader.
    void start(const QString &path, const QString &afterCreatedAt = {}, const QString &afterLocalId = {});
    // Stops reading (what was read stays to be taken); the thread ends soon after.
    void stop();

    // The next batch read, in order; empty when none is waiting. Any thread.
    QList<Run> takeBatch();
    // Every run has been read (or the read ended with an error) and every batch taken.
    bool isDone() const;
    // Why the read ended early: the file would not open, or SQLite failed on a row (a corrupt
    // page). The runs read before it are still handed over.
    QString errorString() const;
    // How many runs the reader has read so far (for progress and tests).
    qsizetype readCount() const { return m_readCount.load(std::memory_order_relaxed); }

Q_SIGNALS:
    // Batches are waiting (emitted once until takeBatch() has found the queue empty), or the
    // read has ended. Delivered on the reader object's thread.
    void runsAvailable();

private:
    void read(QString path, QString afterCreatedAt, QString afterLocalId);
    void hand(QList<Run> batch, bool last, const QString &error);

    mutable QMutex m_mutex;
    QList<QList<Run>> m_batches; // guarded by m_mutex
    QString m_error;             // guarded by m_mutex
    bool m_ended = false;        // guarded by m_mutex: the reading thread is past its last row
    bool m_signalled = false;    // guarded by m_mutex: runsAvailable sent and not yet drained
    std::atomic<bool> m_stop{false};
    std::atomic<qsizetype> m_readCount{0};
    std::unique_ptr<QThread> m_thread;
};

} // namespace Runwatch
