// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backend/connection.h"
#include "model/run.h"

#include <QHash>
#include <QObject>
#include <QSqlDatabase>
#include <QTimer>

#include <optional>

namespace Runwatch {

// SQLite persistence of runs, their continuation tokens and output, so that a run started by
// one process can be watched, cancelled or deleted from another, and survives restarts.
// Writes are batched: scheduleSave() marks a run dirty and a short timer writes every dirty run
// in one transaction, off the per-event path.
class RunStore : public QObject
{
    Q_OBJECT
public:
    // 1: runs. 2: connections (no secrets) + indexes for listing and retention.
    // 3: output (primary text, secondary items) in its own table, so listings never read it.
    static constexpr int SchemaVersion = 3;

    explicit RunStore(QObject *parent = nullptr);
    ~RunStore() override;

    // Opens (creating if needed) the database at `path`. Refuses a schema newer than ours.
    bool open(const QString &path);
    void close();
    bool isOpen() const;
    QString errorString() const { return m_error; }
    QString path() const { return m_path; }

    // Default location: <platform data dir>/runs.sqlite, overridable with RUNWATCH_STORE.
    static QString defaultPath();

    enum class Load { Full, Summary };
    // Summary skips primary output, secondary items, prompt, token and input request
    // (Run::outputLoaded = false; RunManager::ensureOutputLoaded() fetches them), except for runs
    // that are not terminal: those are always loaded in full because they will be followed.
    QList<Run> loadRuns(Load load = Load::Full) const;
    int runCount() const;
    // Retention: deletes terminal runs that finished before `cutoff`; returns how many.
    int removeFinishedBefore(const QDateTime &cutoff);

    // Connections (never with their secrets: Connection::toJson() has no key).
    QList<Connection> loadConnections() const;
    bool saveConnection(const Connection &connection);
    bool removeConnection(const QString &name);
    std::optional<Run> loadRun(const QString &localId) const;
    // By local id, or by remote id when no local id matches.
    std::optional<Run> findRun(const QString &idOrRemoteId) const;

    bool saveRun(const Run &run); // immediate
    void scheduleSave(const Run &run);
    void flush();
    bool removeRun(const QString &localId);

    void setFlushInterval(int ms) { m_flushTimer.setInterval(ms); }

private:
    bool migrate();
    bool migrateTo1();
    bool migrateTo2();
    bool migrateTo3();
    bool exec(const QString &sql);
    bool writeRun(const Run &run);
    // The timer's flush: writes pending runs for about a frame's slice, then yields.
    void flushSlice();
    std::optional<Run> queryOne(const QString &where, const QString &value) const;

    QString m_connectionName;
    QString m_path;
    mutable QString m_error;
    QHash<QString, Run> m_pending;
    QTimer m_flushTimer;
    QTimer m_sliceTimer; // the next slice of a flush that did not fit in one
};

} // namespace Runwatch
