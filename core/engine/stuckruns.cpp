// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/stuckruns.h"

#include "domain/runprogress.h"
#include "engine/runmanager.h"
#include "engine/watchtimer.h"
#include "store/runstore.h"

#include <QJsonValue>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace Runwatch {

StuckPolicy StuckPolicy::fromJson(const QJsonObject &object)
{
    StuckPolicy p;
    const double factor = object.value(u"factor"_s).toDouble(p.factor);
    if (std::isfinite(factor) && factor >= 1.0 && factor <= 1000.0)
        p.factor = factor;
    const double floorSeconds = object.value(u"floor_seconds"_s).toDouble(-1);
    if (std::isfinite(floorSeconds) && floorSeconds >= 0 && floorSeconds <= 7 * 24 * 3600)
        p.floorMs = qint64(floorSeconds * 1000.0);
    return p;
}

QJsonObject StuckPolicy::toJson() const
{
    return {{u"factor"_s, factor}, {u"floor_seconds"_s, double(floorMs) / 1000.0}};
}

StuckPolicy StuckPolicy::load(const RunStore *store)
{
    return store ? fromJson(store->setting(QLatin1StringView(kSettingKey))) : StuckPolicy{};
}

bool StuckPolicy::save(RunStore *store) const
{
    return store && store->saveSetting(QLatin1StringView(kSettingKey), toJson());
}

QString DurationStats::key(const QString &connection, const QString &model)
{
    return connection + QChar(0x1f) + model;
}

void DurationStats::update(const Run &run)
{
    const bool counts = run.status == RunStatus::Completed && run.createdAt.isValid()
                        && run.finishedAt.isValid() && run.createdAt.msecsTo(run.finishedAt) > 0;
    if (!counts) {
        remove(run.localId);
        return;
    }
    const QString k = key(run.connection, run.model);
    const qint64 ms = run.createdAt.msecsTo(run.finishedAt);
    if (const auto it = m_counted.constFind(run.localId); it != m_counted.cend()) {
        if (it->key == k && it->ms == ms)
            return;
        remove(run.localId);
    }
    std::vector<qint64> &sorted = m_sorted[k];
    sorted.insert(std::upper_bound(sorted.begin(), sorted.end(), ms), ms);
    m_counted.insert(run.localId, {k, ms});
}

void DurationStats::remove(const QString &localId)
{
    const auto it = m_counted.find(localId);
    if (it == m_counted.end())
        return;
    const auto sit = m_sorted.find(it->key);
    if (sit != m_sorted.end()) {
        std::vector<qint64> &sorted = *sit;
        const auto pos = std::lower_bound(sorted.begin(), sorted.end(), it->ms);
        if (pos != sorted.end() && *pos == it->ms)
            sorted.erase(pos);
        if (sorted.empty())
            m_sorted.erase(sit);
    }
    m_counted.erase(it);
}

std::optional<qint64> DurationStats::medianMs(const QString &connection, const QString &model) const
{
    const auto it = m_sorted.constFind(key(connection, model));
    if (it == m_sorted.cend() || qsizetype(it->size()) < kMinSamples)
        return std::nullopt;
    const std::vector<qint64> &sorted = *it;
    const size_t n = sorted.size();
    return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

qsizetype DurationStats::sampleCount(const QString &connection, const QString &model) const
{
    const auto it = m_sorted.constFind(key(connection, model));
    return it == m_sorted.cend() ? 0 : qsizetype(it->size());
}

std::optional<qint64> expectedDurationMs(const Run &run, const DurationStats &stats)
{
    if (const auto estimate = estimatedDurationMs(run))
        return estimate;
    return stats.medianMs(run.connection, run.model);
}

std::optional<QDateTime> stuckAt(const Run &run, std::optional<qint64> expectedMs, const StuckPolicy &policy)
{
    if (run.isTerminal() || run.status == RunStatus::InputRequired || run.connectionLost || !expectedMs)
        return std::nullopt;
    QDateTime lastActivity = run.updatedAt.isValid() ? run.updatedAt : run.createdAt;
    if (!lastActivity.isValid())
        return std::nullopt;
    const double scaled = policy.factor * double(*expectedMs);
    const qint64 silence = std::max<qint64>(policy.floorMs, qint64(std::min(scaled, 1e15)));
    return lastActivity.addMSecs(silence);
}

StuckState stuckState(const Run &run, const DurationStats &stats, const StuckPolicy &policy,
                      const QDateTime &now)
{
    StuckState state;
    state.expectedMs = expectedDurationMs(run, stats);
    const auto at = stuckAt(run, state.expectedMs, policy);
    state.stuck = at && *at <= now;
    if (state.stuck)
        state.silentSince = run.updatedAt.isValid() ? run.updatedAt : run.createdAt;
    return state;
}

StuckRunWatcher::StuckRunWatcher(RunManager *manager, QObject *parent)
    : QObject(parent)
    , m_manager(manager)
    , m_clock([] { return QDateTime::currentDateTimeUtc(); })
{
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &StuckRunWatcher::check);
    if (!manager)
        return;
    m_policy = StuckPolicy::load(manager->store());
    connect(manager, &RunManager::runAdded, this,
            [this](const QString &id) { onRunChanged(id, RunChange::Status); });
    connect(manager, &RunManager::runChanged, this, &StuckRunWatcher::onRunChanged);
    connect(manager, &RunManager::runRemoved, this, &StuckRunWatcher::onRunRemoved);
    // The one pass over the whole history: every later change is incremental.
    for (const QString &id : manager->runIds()) {
        const Run *run = manager->run(id);
        if (!run)
            continue;
        m_stats.update(*run);
        if (!run->isTerminal())
            m_live.insert(id);
    }
    // Runs already past their moment are flagged when the timer fires on the next event-loop
    // turn, once the front end (or a test's clock) is connected.
    reevaluateAll();
    schedule();
}

void StuckRunWatcher::setPolicy(const StuckPolicy &policy)
{
    m_policy = policy;
    reevaluateAll();
    check();
}

void StuckRunWatcher::setClock(Clock clock)
{
    m_clock = std::move(clock);
    schedule();
}

QStringList StuckRunWatcher::stuckIds() const
{
    QStringList ids = m_stuck.keys();
    ids.sort();
    return ids;
}

std::optional<qint64> StuckRunWatcher::expectedDurationMs(const QString &id) const
{
    const Run *run = m_manager ? m_manager->run(id) : nullptr;
    return run ? Runwatch::expectedDurationMs(*run, m_stats) : std::nullopt;
}

void StuckRunWatcher::onRunChanged(const QString &id, RunChanges changes)
{
    const Run *run = m_manager ? m_manager->run(id) : nullptr;
    if (!run)
        return;
    if (run->isTerminal()) {
        m_live.remove(id);
        if (changes & RunChange::Status) {
            const std::optional<qint64> before = m_stats.medianMs(run->connection, run->model);
            m_stats.update(*run);
            // A new median changes what "slow" means for the live runs of that connection and model.
            if (m_stats.medianMs(run->connection, run->model) != before) {
                evaluate(id);
                reevaluateAll();
                check();
                return;
            }
        }
    } else {
        m_live.insert(id);
    }
    const QDateTime before = m_due.value(id);
    evaluate(id);
    const QDateTime after = m_due.value(id);
    // Runs change thousands of times a second: a full pass over m_due (and a timer restart) per
    // change made this O(live runs) per event. Only the earliest moment decides the timer: an
    // earlier one arms it, and only the run that held the earliest one moving makes a pass.
    if (after.isValid() && (!m_nextCheck.isValid() || after < m_nextCheck)) {
        m_nextCheck = after;
        armWatchTimer(&m_timer, m_nextCheck, m_clock());
    } else if (before.isValid() && before == m_nextCheck && before != after) {
        schedule();
    }
}

void StuckRunWatcher::onRunRemoved(const QString &id)
{
    m_stats.remove(id);
    m_live.remove(id);
    m_due.remove(id);
    if (m_stuck.remove(id))
        Q_EMIT stuckChanged(id, false);
    schedule();
}

void StuckRunWatcher::evaluate(const QString &id)
{
    const Run *run = m_manager ? m_manager->run(id) : nullptr;
    const std::optional<QDateTime> due
        = run ? stuckAt(*run, Runwatch::expectedDurationMs(*run, m_stats), m_policy) : std::nullopt;
    if (const auto it = m_stuck.constFind(id); it != m_stuck.cend()) {
        // Still the same silence: the episode goes on (and is not announced again).
        if (due && run->updatedAt == *it)
            return;
        m_stuck.erase(it);
        Q_EMIT stuckChanged(id, false);
    }
    if (due) {
        m_due.insert(id, *due);
    } else {
        m_due.remove(id);
    }
}

void StuckRunWatcher::reevaluateAll()
{
    for (const QString &id : std::as_const(m_live))
        evaluate(id);
    // Runs that left the live set were evaluated when they did; drop what is left of them.
    for (auto it = m_due.begin(); it != m_due.end();) {
        if (!m_live.contains(it.key())) {
            it = m_due.erase(it);
        } else {
            ++it;
        }
    }
}

void StuckRunWatcher::check()
{
    const QDateTime now = m_clock();
    QStringList flagged;
    for (auto it = m_due.begin(); it != m_due.end();) {
        if (it.value() <= now) {
            const Run *run = m_manager ? m_manager->run(it.key()) : nullptr;
            if (run) {
                m_stuck.insert(it.key(), run->updatedAt);
                flagged.append(it.key());
            }
            it = m_due.erase(it);
        } else {
            ++it;
        }
    }
    schedule();
    for (const QString &id : std::as_const(flagged)) {
        Q_EMIT stuckChanged(id, true);
        Q_EMIT runStuck(id);
    }
}

void StuckRunWatcher::schedule()
{
    QDateTime next;
    for (auto it = m_due.cbegin(); it != m_due.cend(); ++it) {
        if (!next.isValid() || it.value() < next)
            next = it.value();
    }
    m_nextCheck = next;
    armWatchTimer(&m_timer, next, m_clock());
}

} // namespace Runwatch
