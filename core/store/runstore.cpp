// SPDX-License-Identifier: GPL-3.0-or-later
#include "store/runstore.h"

#include "domain/boundedwait.h"
#include "net/threadhandoff.h"
#include "store/changedrunsreader.h"
#include "store/leasekeeper.h"
#include "store/runstorerows.h"
#include "store/runstorewriter.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QSqlDriver>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QUuid>
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>

using namespace Qt::StringLiterals;

Q_LOGGING_CATEGORY(lcStore, "runwatch.store", QtInfoMsg)

namespace Runwatch {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "RunStore".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(RunStore)
};
} // namespace

namespace {

// Runs handed to the writer per frame at most (submitPending()), and when the next batch goes.
// ~3 µs a run on the GUI thread: a batch of 128 was 0.3-0.4 ms, the heaviest item of the frames
// that set bench_gui_live's p99; a batch of 32 keeps each frame's share near 0.1 ms, and a
// thousand live runs still go within a second.
constexpr qsizetype kRunsPerBatch = 32;
constexpr int kNextBatchMs = 16;

QString iso(const QDateTime &dt)
{
    return detail::isoText(dt);
}

} // namespace

RunStore::RunStore(QObject *parent)
    : QObject(parent)
    , m_connectionName(u"runwatch-store-"_s + QUuid::createUuid().toString(QUuid::WithoutBraces))
    , m_holderId(QUuid::createUuid().toString(QUuid::WithoutBraces))
{
    setUpChangeTimers();
    m_flushTimer.setObjectName(u"storeFlush"_s);
    m_flushTimer.setSingleShot(true);
    m_flushTimer.setTimerType(kChoreTimer);
    connect(&m_flushTimer, &QTimer::timeout, this, &RunStore::submitPending);
    // A full disk may get room again (a file deleted, a volume grown): try every few seconds.
    m_retryTimer.setSingleShot(true);
    m_retryTimer.setInterval(5000);
    connect(&m_retryTimer, &QTimer::timeout, this, &RunStore::submitPending);
}

RunStore::~RunStore()
{
    flush();
    close();
}

QString RunStore::defaultPath()
{
    QString env = qEnvironmentVariable("RUNWATCH_STORE");
    if (!env.isEmpty())
        return env;
    return defaultDataPath();
}

QString RunStore::defaultDataPath()
{
    // Also StoreEngine's idea of the app's own folder (storeengine.cpp).
    QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    if (dir.isEmpty())
        dir = QDir::homePath() + u"/.local/share/runwatch"_s;
    return dir + u"/runs.sqlite"_s;
}

bool RunStore::open(const QString &location)
{
    close();
    // Messages and path() never repeat a password that was put in a URL (open refuses it).
    m_path = detail::StoreEngine::redacted(location);
    QString why;
    m_engine = detail::StoreEngine::forLocation(location, &why);
    if (m_engine)
        why = m_engine->prepareLocation();
    if (!m_engine || !why.isEmpty() || !m_engine->openConnection(m_connectionName, &why)) {
        m_error = Text::tr("Cannot open the run store %1: %2").arg(m_path, why);
        m_engine.reset();
        return false;
    }
    QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
    // migrate() checks the schema version before anything writes: a newer store stays untouched
    // (switching SQLite to WAL alone would rewrite its header).
    if (!migrate() || !m_statements.prepare(db, m_engine, &m_error)) {
        db = {};
        closeConnection();
        m_engine.reset();
        return false;
    }
    m_writer = new detail::RunStoreWriter(m_engine, m_holderId, [this] {
        // On the writer thread: checkWriteError() runs on this object's (a queued call is
        // dropped if the store is gone by then; close() deletes the writer first anyway).
        detail::invokeAcross(
            this,
            [this] {
                if (m_writer) // not closed meanwhile
                    checkWriteError();
            },
            Qt::QueuedConnection);
    });
    ++m_queueGeneration;
    m_writer->moveToThread(&m_writerThread);
    m_writerThread.setObjectName(u"Runwatch store"_s);
    m_writerThread.start();
    m_reader = new detail::ChangedRunsReader(m_engine);
    m_reader->moveToThread(&m_readerThread);
    m_readerThread.setObjectName(u"Runwatch store reader"_s);
    m_readerThread.start();
    m_leaseKeeper = new detail::LeaseKeeper(m_engine, m_holderId);
    m_leaseKeeper->moveToThread(&m_leaseThread);
    m_leaseThread.setObjectName(u"Runwatch store leases"_s);
    m_leaseThread.start();
    subscribeToChanges();
    return true;
}

void RunStore::close()
{
    if (m_writer) {
        flush();
        // The writer's connection belongs to its thread: close it there, then stop the thread.
        detail::invokeAcross(
            m_writer, [writer = m_writer] { delete writer; }, Qt::BlockingQueuedConnection);
        m_writer = nullptr;
        m_writerThread.quit();
        m_writerThread.wait();
    }
    if (m_reader) {
        // After the reads it was given (their answers, queued here, are of an old generation now).
        detail::invokeAcross(
            m_reader, [reader = m_reader] { delete reader; }, Qt::BlockingQueuedConnection);
        m_reader = nullptr;
        ++m_readerGeneration;
        m_readerThread.quit();
        m_readerThread.wait();
    }
    if (m_leaseKeeper) {
        // After the renewal it was given; its answer, queued here, is of an old generation now.
        detail::invokeAcross(
            m_leaseKeeper, [keeper = m_leaseKeeper] { delete keeper; }, Qt::BlockingQueuedConnection);
        m_leaseKeeper = nullptr;
        m_leaseThread.quit();
        m_leaseThread.wait();
        m_renewing.store(false);
        m_takenAt.clear();
    }
    // A process that quits lets its runs go at once: another that wants them need not wait for
    // the leases to expire.
    m_releases.clear();
    m_releaseAll = false;
    m_releasing.clear();
    m_releaseGeneration = 0; // the next writer counts its batches from zero
    releaseAllLeases();
    m_inFlight.clear();
    m_statements = {};
    m_writtenStatus.clear();
    m_livenessTimer.stop();
    m_reconnectTimer.stop();
    m_changeTimer.stop();
    m_changedElsewhere.clear();
    closeConnection();
    m_engine.reset();
}

bool RunStore::isOpen() const
{
    return QSqlDatabase::contains(m_connectionName)
           && QSqlDatabase::database(m_connectionName, false).isOpen();
}

bool RunStore::saveRun(const Run &run)
{
    if (!isOpen())
        return false;
    m_pending.remove(run.localId);
    m_pendingIds.remove(run.localId);
    m_draining.remove(run.localId);
    ++m_queueGeneration;
    // An older version of this run may be on its way to disk: it must not land after this one.
    waitForWriter();
    const auto outcome = m_statements.write(run, run.stored.get(), run.inStore, &m_error, false);
    if (outcome == detail::RunWriteStatements::Outcome::Failed) {
        qCWarning(lcStore) << m_error;
        return false;
    }
    m_writtenStatus.insert(run.localId, run.status);
    return outcome == detail::RunWriteStatements::Outcome::Written;
}

void RunStore::scheduleSave(const Run &run)
{
    // The writer, not this thread's connection: while a server's connection is being made again
    // the writer keeps what it is given and writes it once it can.
    if (!m_writer)
        return;
    m_pendingIds.remove(run.localId);
    m_draining.remove(run.localId);
    ++m_queueGeneration;
    m_pending.insert(run.localId, run);
    armFlush(run.localId, run.status);
}

void RunStore::scheduleSave(const QString &localId, RunStatus status)
{
    // Called for every batch of every live run: m_writer, not isOpen() (which takes Qt SQL's
    // global lock and copies a QSqlDatabase). Without a writer nothing scheduled is ever written.
    if (!m_writer || !m_source)
        return;
    m_pending.remove(localId); // an older copy: the source's run is newer
    m_pendingIds.insert(localId);
    // A run the file does not have yet, or whose remote id it does not have yet (a billed run it
    // would not know), goes at once: small, before its output grows past what a nearly full disk
    // still takes.
    const Run *run = m_source(localId);
    const bool unknownToFile = run && (!run->stored || run->stored->remoteId != run->remoteId);
    armFlush(localId, status, unknownToFile);
}

void RunStore::armFlush(const QString &localId, RunStatus status, bool now)
{
    const auto written = m_writtenStatus.constFind(localId);
    const bool statusChanged = written == m_writtenStatus.constEnd() || *written != status;
    const int delay = now ? 0 : statusChanged ? m_flushMs : 5 * m_flushMs;
    if (!m_draining.isEmpty()) {
        // The flush under way goes on in the next frames; this run's turn comes after it.
        m_nextFlushMs = m_nextFlushMs < 0 ? delay : std::min(m_nextFlushMs, delay);
        return;
    }
    if (!m_flushTimer.isActive() || m_flushTimer.remainingTime() > delay)
        m_flushTimer.start(delay);
}

void RunStore::setRunSource(RunSource source)
{
    takePendingFromSource();
    m_source = std::move(source);
    ++m_queueGeneration;
}

void RunStore::takePendingFromSource()
{
    for (const QSet<QString> *ids : {&m_pendingIds, &m_draining}) {
        for (const QString &id : *ids) {
            if (const Run *run = m_source ? m_source(id) : nullptr)
                m_pending.insert(id, *run);
        }
    }
    m_pendingIds.clear();
    m_draining.clear();
    ++m_queueGeneration;
}

const Run *RunStore::pendingRun(const QString &localId) const
{
    if (const auto it = m_pending.constFind(localId); it != m_pending.cend())
        return &*it;
    if (m_source && (m_pendingIds.contains(localId) || m_draining.contains(localId)))
        return m_source(localId);
    return nullptr;
}

void RunStore::submitPending()
{
    m_flushTimer.stop();
    if (m_writer)
        checkWriteError();
    // While writes fail an empty batch is still sent: it carries the unwritten state again.
    if (!m_writer || (!hasPending() && m_writeError.isEmpty() && m_releases.isEmpty() && !m_releaseAll)) {
        return;
    }
    // Copies of implicitly shared runs, and the writer thread owns them from now on. Cheap per
    // run, but not for a thousand live runs at once: one batch of all of them took the GUI
    // thread ≈ 4 ms, its worst frame every second (bench_gui_live). At most kRunsPerBatch go per
    // frame; the rest follow in the next frames. flush() hands over everything at once.
    // Forget batches the writer has finished: their copies would otherwise pin every old version
    // of a run's text until the next flush().
    // Those copies go to the writer thread with this batch and are let go there: a run's copy is a
    // few dozen shared pieces (strings, lists, the text's buffer) on cold cache lines, and letting
    // them go here was a third of this function at 1,000 × 20 (perf). The writer holds the same
    // pieces in its own copies of the batches anyway.
    const quint64 written = m_writer->completed();
    QList<detail::RunWrite> done;
    for (auto it = m_inFlight.begin(); it != m_inFlight.end();) {
        if (it.value().first <= written) {
            done.append(std::move(it.value().second));
            it = m_inFlight.erase(it);
        } else {
            ++it;
        }
    }
    settleReleases();
    const quint64 generation = ++m_generation;
    ++m_queueGeneration;
    QList<detail::RunWrite> batch;
    if (m_draining.isEmpty()) {
        // A new flush: what is pending now goes, a batch per frame; what is scheduled meanwhile
        // waits for the next one.
        m_draining = std::exchange(m_pendingIds, {});
        m_nextFlushMs = -1;
    }
    batch.reserve(std::min<qsizetype>(m_pending.size() + m_draining.size(), kRunsPerBatch));
    const auto take = [&](const Run &run) {
        detail::RunWrite write{detail::baselineOf(run), run.stored, run.inStore};
        if (const auto it = m_inFlight.find(run.localId); it != m_inFlight.end()) {
            done.append(std::exchange(it.value(), {generation, write}).second);
        } else {
            m_inFlight.insert(run.localId, {generation, write});
        }
        m_writtenStatus.insert(run.localId, run.status);
        batch.append(std::move(write));
    };
    // The source's runs straight into the batch: no copy in m_pending on the way. What goes to
    // disk now is the baseline of the run's next write, which then sends only what changes after:
    // the very state the batch carries, one copy of the run for both.
    for (auto it = m_draining.begin(); it != m_draining.end() && batch.size() < kRunsPerBatch;) {
        if (Run *run = m_source ? m_source(*it) : nullptr) {
            take(*run);
            run->stored = batch.constLast().run;
            run->inStore = true;
        }
        // Its state as of now goes: a schedule since the flush began is covered.
        m_pendingIds.remove(*it);
        it = m_draining.erase(it);
    }
    for (auto it = m_pending.begin(); it != m_pending.end() && batch.size() < kRunsPerBatch;) {
        take(it.value());
        it = m_pending.erase(it);
    }
    if (!m_pending.isEmpty() || !m_draining.isEmpty()) {
        m_flushTimer.start(kNextBatchMs);
    } else if (!m_pendingIds.isEmpty()) {
        m_flushTimer.start(m_nextFlushMs < 0 ? 5 * m_flushMs : m_nextFlushMs);
    }
    detail::RunStoreWriter::LeaseReleases releases = takeReleases(generation);
    // An empty batch still goes while writes fail: the writer merges it with what failed and
    // tries that again (without it a failed batch waited for the next change of some run).
    if (batch.isEmpty() && m_writeError.isEmpty() && releases.isEmpty())
        return;
    // `done` goes with the call and is destroyed where it runs (the writer's thread).
    detail::invokeAcross(
        m_writer,
        [writer = m_writer, batch = std::move(batch), generation, releases = std::move(releases),
         done = std::move(done)] { writer->write(batch, generation, releases); },
        Qt::QueuedConnection);
}

void RunStore::waitForWriter(const QString &forgetRun)
{
    // A retry of unwritten state carries no new runs: wait for it too.
    if (!m_writer
        || (m_inFlight.isEmpty() && m_writeError.isEmpty() && m_releaseGeneration <= m_writer->completed())) {
        return;
    }
    // Batches are written in order: once this ran on the writer thread, all are on disk.
    struct Done
    {
        std::mutex mutex;
        std::condition_variable ended;
        bool done = false;
    };
    auto done = std::make_shared<Done>();
    detail::invokeAcross(m_writer, [writer = m_writer, forgetRun, done] {
        if (!forgetRun.isEmpty())
            writer->forget(forgetRun);
        const std::lock_guard lock(done->mutex);
        done->done = true;
        done->ended.notify_one();
    });
    std::unique_lock lock(done->mutex);
    while (!done->ended.wait_for(lock, std::chrono::milliseconds(kLeaseRenewMs),
                                 [&done] { return done->done; })) {
        // A writer far behind (a process that followed hundreds of runs, quitting) is waited for
        // here for many seconds: the leases this store holds — their releases wait for these very
        // writes — must not lapse meanwhile, or another process takes the runs over beside an
        // older state and streams them again.
        lock.unlock();
        renewLeases();
        lock.lock();
    }
    lock.unlock();
    m_inFlight.clear();
    settleReleases();
}

void RunStore::flush()
{
    // At least once: with nothing pending, a failed batch still goes again (submitPending).
    do {
        submitPending();
    } while (m_writer && hasPending());
    m_flushTimer.stop();
    waitForWriter();
    if (m_writer)
        checkWriteError();
}

void RunStore::checkWriteError()
{
    const QString error = m_writer->error();
    if (error.isEmpty()) {
        m_retryTimer.stop();
    } else if (!m_retryTimer.isActive()) {
        m_retryTimer.start();
    }
    if (const QStringList gone = m_writer->takeGone(); !gone.isEmpty())
        Q_EMIT runsDeletedElsewhere(gone);
    // Runs every batch: nothing to compare while nothing is or was unsaved.
    if (const QStringList ids = m_writer->unwrittenIds(); !ids.isEmpty() || !m_unsaved.isEmpty()) {
        QSet<QString> unsaved(ids.cbegin(), ids.cend());
        if (unsaved != m_unsaved) {
            const QSet<QString> changed = (unsaved - m_unsaved) + (m_unsaved - unsaved);
            m_unsaved = std::move(unsaved);
            Q_EMIT unsavedRunsChanged(changed.values());
        }
    }
    if (error == m_writeError)
        return;
    m_writeError = error;
    Q_EMIT writeErrorChanged(error);
}

bool RunStore::removeRun(const QString &localId)
{
    m_pending.remove(localId);
    m_pendingIds.remove(localId);
    m_draining.remove(localId);
    ++m_queueGeneration;
    m_writtenStatus.remove(localId);
    m_unsaved.remove(localId);
    if (!isOpen())
        return false;
    // A new run's first write still on its way would bring it back, and so would a failed batch
    // written again: both are settled on the writer thread before the row goes.
    waitForWriter(localId);
    QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
    QSqlQuery q(db);
    db.transaction();
    bool ok = true;
    for (const QString &table :
         {u"runs"_s, u"run_text"_s, u"run_items"_s, u"run_leases"_s, u"run_answers"_s, u"run_journal"_s}) {
        q.prepare(u"DELETE FROM %1 WHERE local_id = ?"_s.arg(table));
        q.addBindValue(localId);
        ok = ok && q.exec();
    }
    if (!ok) {
        m_error = q.lastError().text();
        db.rollback();
        return false;
    }
    return db.commit();
}

const detail::RunWrite *RunStore::inFlight(const QString &localId) const
{
    const auto it = m_inFlight.constFind(localId);
    if (it == m_inFlight.cend() || it->first <= m_writer->completed())
        return nullptr; // not handed over, or on disk already
    return &it->second;
}

int RunStore::removeFinishedBefore(const QDateTime &cutoff)
{
    flush();
    if (!isOpen())
        return 0;
    // "Finished" is isTerminal(), the rule Retention applies to the runs in memory too.
    QStringList terminal;
    for (int s = int(RunStatus::Unknown); s <= int(kLastRunStatus); ++s) {
        if (isTerminal(RunStatus(s)))
            terminal << u"'"_s + statusName(RunStatus(s)) + u"'"_s;
    }
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    q.prepare(u"DELETE FROM runs WHERE status IN (%1) AND finished_at != '' AND finished_at < ?"_s.arg(
        terminal.join(u","_s)));
    q.addBindValue(iso(cutoff));
    if (!q.exec()) {
        m_error = q.lastError().text();
        return 0;
    }
    const int removed = q.numRowsAffected();
    // Output whose run is gone, by whichever process removed it.
    QSqlQuery o(QSqlDatabase::database(m_connectionName, false));
    for (const QString &table :
         {u"run_text"_s, u"run_items"_s, u"run_leases"_s, u"run_answers"_s, u"run_journal"_s})
        o.exec(u"DELETE FROM %1 WHERE local_id NOT IN (SELECT local_id FROM runs)"_s.arg(table));
    return removed;
}

QList<QJsonObject> RunStore::loadConnectionConfigs() const
{
    QList<QJsonObject> out;
    if (!isOpen())
        return out;
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    if (!q.exec(u"SELECT config FROM connections ORDER BY name"_s))
        return out;
    while (q.next())
        out << detail::jsonObjectFromText(q.value(0));
    return out;
}

QJsonObject RunStore::setting(const QString &key) const
{
    if (!isOpen())
        return {};
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    q.prepare(u"SELECT value FROM settings WHERE key = ?"_s);
    q.addBindValue(key);
    if (!q.exec() || !q.next())
        return {};
    return detail::jsonObjectFromText(q.value(0));
}

bool RunStore::saveSetting(const QString &key, const QJsonObject &value)
{
    if (!isOpen())
        return false;
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    q.prepare(m_engine->upsert(u"settings"_s, {u"key"_s, u"value"_s}, {u"key"_s}));
    q.addBindValue(key);
    q.addBindValue(detail::compactJsonText(value));
    if (!q.exec()) {
        m_error = q.lastError().text();
        return false;
    }
    return true;
}

bool RunStore::saveConnectionConfig(const QString &name, const QJsonObject &config)
{
    if (!isOpen())
        return false;
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    q.prepare(m_engine->upsert(u"connections"_s, {u"name"_s, u"config"_s}, {u"name"_s}));
    q.addBindValue(name);
    q.addBindValue(detail::compactJsonText(config));
    if (!q.exec()) {
        m_error = q.lastError().text();
        return false;
    }
    return true;
}

bool RunStore::hasConnections() const
{
    if (!isOpen())
        return false;
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    return q.exec(u"SELECT 1 FROM connections LIMIT 1"_s) && q.next();
}

bool RunStore::removeConnection(const QString &name)
{
    if (!isOpen())
        return false;
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    q.prepare(u"DELETE FROM connections WHERE name = ?"_s);
    q.addBindValue(name);
    return q.exec();
}

} // namespace Runwatch
