// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/run.h"
#include "domain/runreducer.h"

#include <QDateTime>
#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QTimer>

#include <functional>
#include <optional>
#include <vector>

namespace Runwatch {

class RunManager;
class RunStore;

// When a live run counts as stuck: silent for `factor` × its expected duration, and never before
// `floorMs` of silence (a 5-second job must not be flagged because one poll came late).
struct StuckPolicy
{
    double factor = 3.0;
    qint64 floorMs = 2 * 60 * 1000;

    // The store's setting kSettingKey: {"factor": 3, "floor_seconds": 120}. Values out of range
    // (a factor below 1 would flag runs before they are even due) keep the defaults.
    static StuckPolicy fromJson(const QJsonObject &object);
    QJsonObject toJson() const;
    static StuckPolicy load(const RunStore *store);
    bool save(RunStore *store) const;
    static constexpr auto kSettingKey = "stuck_runs";
    friend bool operator==(const StuckPolicy &, const StuckPolicy &) = default;
};

// Durations of the completed runs per connection and model, kept sorted so that the median is
// read without a scan; fed run by run (adding or removing one run is a binary search and a move
// of the tail, no pass over the 100k runs of a big history).
class DurationStats
{
public:
    // Counts `run` when it completed with a known duration; replaces what was counted for its id.
    void update(const Run &run);
    void remove(const QString &localId);
    // nullopt below kMinSamples runs: one or two runs are no basis for calling another one slow.
    std::optional<qint64> medianMs(const QString &connection, const QString &model) const;
    qsizetype sampleCount(const QString &connection, const QString &model) const;
    static constexpr qsizetype kMinSamples = 3;

private:
    static QString key(const QString &connection, const QString &model);
    struct Counted
    {
        QString key;
        qint64 ms = 0;
    };
    QHash<QString, std::vector<qint64>> m_sorted;
    QHash<QString, Counted> m_counted; // by local id: what to take out again
};

// What a run is expected to take: the service's estimate (estimatedDurationMs()) when it gave
// one, else the median of the completed runs of its connection and model; nullopt: no rule.
std::optional<qint64> expectedDurationMs(const Run &run, const DurationStats &stats);

// When `run` becomes stuck if nothing happens meanwhile; nullopt when the rule does not apply: a
// terminal run, one that waits for the operator (silence is expected), one whose stream is being
// reconnected (the silence is ours, it already shows "reconnecting"), or no expected duration.
std::optional<QDateTime> stuckAt(const Run &run, std::optional<qint64> expectedMs, const StuckPolicy &policy);

// The rule applied once, by a process that looks instead of watching (the CLI): whether `run` is
// stuck at `now`, what it was expected to take and since when it has been silent.
struct StuckState
{
    bool stuck = false;
    std::optional<qint64> expectedMs;
    QDateTime silentSince; // the last progress; set when stuck
};
StuckState stuckState(const Run &run, const DurationStats &stats, const StuckPolicy &policy,
                      const QDateTime &now);

// Watches a RunManager's runs and flags the stuck ones. "Progress" is what the reducer records
// as Run::updatedAt: any output, status change, progress item, error or usage (a poll that
// brings nothing new does not count). One single-shot timer is armed for the earliest moment any
// live run can become stuck; nothing ticks while no run can. A flagged run stays stuck until it
// makes progress or ends; a later silence is a new episode, announced again by runStuck().
class StuckRunWatcher : public QObject
{
    Q_OBJECT
public:
    using Clock = std::function<QDateTime()>;

    explicit StuckRunWatcher(RunManager *manager, QObject *parent = nullptr);

    void setPolicy(const StuckPolicy &policy);
    const StuckPolicy &policy() const { return m_policy; }
    // Tests move time instead of waiting; the timer is re-armed from this clock.
    void setClock(Clock clock);

    bool isStuck(const QString &id) const { return m_stuck.contains(id); }
    int stuckCount() const { return int(m_stuck.size()); }
    QStringList stuckIds() const;
    std::optional<qint64> expectedDurationMs(const QString &id) const;
    const DurationStats &durations() const { return m_stats; }
    // When the timer fires next (the earliest stuckAt of the runs not yet stuck); invalid: idle.
    QDateTime nextCheckAt() const { return m_nextCheck; }
    bool isTimerActive() const { return m_timer.isActive(); }

    // Flags every run whose moment has come (the timer calls it; tests call it after moving
    // the clock), then re-arms the timer.
    void check();

Q_SIGNALS:
    void stuckChanged(const QString &id, bool stuck);
    // A run became stuck: once per episode (a notification).
    void runStuck(const QString &id);

private:
    void onRunChanged(const QString &id, Runwatch::RunChanges changes);
    void onRunRemoved(const QString &id);
    // Recomputes one run's due time (and its flag when it progressed or ended).
    void evaluate(const QString &id);
    void reevaluateAll();
    void schedule();

    QPointer<RunManager> m_manager;
    StuckPolicy m_policy;
    Clock m_clock;
    DurationStats m_stats;
    QSet<QString> m_live;              // non-terminal runs: the only ones the rule looks at again
    QHash<QString, QDateTime> m_due;   // live runs not stuck, by when they become stuck
    QHash<QString, QDateTime> m_stuck; // stuck runs, by the last activity they were flagged at
    QDateTime m_nextCheck;
    QTimer m_timer;
};

} // namespace Runwatch
