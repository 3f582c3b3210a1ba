// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/run.h"
#include "domain/searchquery.h"
#include "store/runstorewriter.h"
#include "store/storeengine.h"

#include <QHash>
#include <QJsonObject>
#include <QMap>
#include <QObject>
#include <QSet>
#include <QSqlDatabase>
#include <QThread>
#include <QTimer>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>

class QSqlQuery;

namespace Runwatch {
namespace detail {
class ChangedRunsReader;
class LeaseKeeper;
class RunRowReader;
} // namespace detail

// The fields of a stored run that another process may change while this one follows it: the
// operator's deadline (RunStore::requestDeadlines()).
struct StoredDeadline
{
    QDateTime deadlineAt;
    bool cancelAtDeadline = false;
};

// Persistence of runs, their continuation tokens and output, so that a run started by one process
// can be watched, cancelled or deleted from another, and survives restarts: in a SQLite file (the
// default) or a team's PostgreSQL database, one API over both (the dialect: StoreEngine).
// Writes are batched: scheduleSave() marks a run dirty and a timer hands every dirty run to a
// writer thread with its own connection, which writes them in one transaction — page writes,
// WAL growth and checkpoint syncs stay off the GUI thread (bench_gui_live). Reads go through
// this thread's connection and see scheduled and in-flight writes (loadRun, loadRuns); the
// operations that change the file from here first wait for the writer. A run whose status changed is
// written within the flush interval (200 ms), a new run and a new remote id at once; one that only
// grew output within five times that:
// its text and its continuation token are written together, so a crash in between loses nothing
// that resuming from the stored cursor does not fetch again.
class RunStore : public QObject
{
    Q_OBJECT
public:
    // 1: runs. 2: connections (no secrets) + indexes for listing and retention.
    // 3: output (primary text, secondary items) in its own table, so listings never read it.
    // 4: token usage, follow-up parent, operator deadline; shared settings.
    // 5: the structured start input. 6: output appended in pieces (run_text, run_items).
    // 7: the full-text search index (search_docs, search_fts; runstore_search.cpp).
    // 8: leases (one follower per live run), answer claims and the operator journal
    // (runstore_leases.cpp).
    static constexpr int SchemaVersion = 8;

    explicit RunStore(QObject *parent = nullptr);
    ~RunStore() override;

    // Opens (creating if needed) the store at `location`: a SQLite file's path, or a
    // postgresql://user@host:port/database?… URL (StoreEngine::forLocation). Refuses a schema newer
    // than ours, a URL with a password, a server it cannot reach or log in to — changing nothing.
    bool open(const QString &location);
    void close();
    bool isOpen() const;
    QString errorString() const { return m_error; }
    // The location open() was given (a URL holds no password: open() refuses one).
    QString path() const { return m_path; }
    // Which engine the open store is on; nullptr while closed.
    const detail::StoreEngine *engine() const { return m_engine.get(); }

    // Default location: <platform data dir>/runs.sqlite, overridable with RUNWATCH_STORE (a path or
    // a postgresql:// URL).
    static QString defaultPath();
    // Where the store lives without RUNWATCH_STORE: the per-user data folder.
    static QString defaultDataPath();

    enum class Load { Full, Summary, Listing };
    // Summary skips primary output, secondary items, prompt, token and input request
    // (Run::outputLoaded = false; RunManager::ensureOutputLoaded() fetches them), except for runs
    // that are not terminal: those are always loaded in full because they will be followed.
    // Listing is Summary without output for the live runs too (their prompt, token and input
    // request are read): a big history's thousands of live runs, of which the engine reads the
    // output of those it follows (RunManager::follow) and the detail pane that of the one shown.
    QList<Run> loadRuns(Load load = Load::Full) const;
    // Newest first, a page at a time: a big history shows its first screenful before the rest has
    // loaded. Start with a default PagePosition; each call moves it past the page it returns.
    struct PagePosition
    {
        QString createdAt; // of the last run returned
        QString localId;
        bool started = false;
        bool atEnd = false; // the last page has been returned
    };
    // Which runs a page holds: the run list's filter, pushed down so that a filtered list of a big
    // history reads the runs it shows instead of every run before them.
    struct PageFilter
    {
        QList<RunStatus> statuses; // any of these; empty: any status
        QString connection;        // empty: any connection
    };
    QList<Run> loadRunsPage(Load load, int limit, PagePosition *position,
                            const PageFilter &filter = {}) const;
    // Every run with one of `statuses`, in no particular order, through the status index: the few
    // live runs of a big history (a newest-first page with a status filter walks the start-time
    // index instead, which for a rare status reads most of the history: 1,000,000 runs took minutes).
    QList<Run> loadRunsWithStatus(Load load, const QList<RunStatus> &statuses) const;
    int runCount() const;
    // How many stored runs have each status: one grouped count the status index answers (a front
    // end that holds only part of a big history counts the rest with it).
    QMap<RunStatus, int> countByStatus() const;
    // The runs that match `query` (SearchQuery: words and phrases anywhere in a run's title,
    // prompt, answer, items and error, and filters), the last stored first, at most `limit` (-1: all),
    // the first `snippets` of them (-1: all) with the part that matched. nullopt on a database
    // error (errorString()).
    std::optional<QList<SearchHit>> search(const SearchQuery &query, int limit = -1, int snippets = -1) const;
    // The store's half of retention: deletes terminal runs that finished before `cutoff`; returns
    // how many. Front ends call Retention::removeFinishedBefore(), which also takes them out of the
    // RunManager.
    int removeFinishedBefore(const QDateTime &cutoff);

    // Connections, never with their secrets: one JSON object per name, written by the connections'
    // own code (ConnectionProfile::toJson(), which has no key and says where the key lives).
    QList<QJsonObject> loadConnectionConfigs() const;
    bool saveConnectionConfig(const QString &name, const QJsonObject &config);
    // Without parsing any: the app's first launch asks only whether one exists.
    bool hasConnections() const;
    bool removeConnection(const QString &name);
    // Settings both front ends share (the price table, stuck-run and deadline defaults): one JSON
    // object per key. An absent key reads as an empty object.
    QJsonObject setting(const QString &key) const;
    bool saveSetting(const QString &key, const QJsonObject &value);
    std::optional<Run> loadRun(const QString &localId) const;
    // The runs `localIds` as stored, read together (a handful of statements for any number of
    // them, not a round of its own per run): what a process that shows runs other processes write
    // reads on each batch of their changes. `known` gives the copy this process holds, if any:
    // only the text stored past its end is read and added to it — the usual change of a streaming
    // run is a new piece of text — unless the stored text no longer begins with it (replaced, or
    // shorter) or the run just ended, which read it whole. An id missing from the answer is not in
    // the store (deleted). nullopt on a database error: nothing can be told then.
    using KnownRun = std::function<const Run *(const QString &localId)>;
    std::optional<QHash<QString, Run>> loadChangedRuns(const QStringList &localIds,
                                                       const KnownRun &known) const;
    // loadChangedRuns() on a thread and a connection of the store's own: the caller's thread only
    // applies what comes back (changedRunsRead). `known` holds copies of what the caller has of
    // the runs (their text, whether it was loaded, their status: its own may change meanwhile).
    // False when the store is not open (nothing will come back).
    bool requestChangedRuns(const QStringList &localIds, QHash<QString, Run> known);
    // Whether other processes' changes are pushed to this one (runsChangedElsewhere): PostgreSQL's
    // NOTIFY. Without it (SQLite) a process that shows runs others write reads them itself.
    bool pushesChanges() const;
    // By local id, or by remote id when no local id matches (also an earlier remote id of a run
    // that went on in a new remote object: Run::token.previousRemoteIds).
    std::optional<Run> findRun(const QString &idOrRemoteId) const;
    // The completed runs of one connection and model with only what DurationStats counts (id,
    // connection, model, status, created and finished): the stuck rule of a process that does not
    // load the whole history (the CLI's status) reads the medians from these.
    QList<Run> loadCompletedTimings(const QString &connection, const QString &model) const;

    // Immediate. False when it failed, or found the run deleted by another process (not restored).
    bool saveRun(const Run &run);
    // What other processes may change on a run this one follows: the operator's deadline. Read on
    // the reader thread (a window following hundreds of runs asks every two seconds, and the
    // read took ≈ 1.5 ms of a frame on the GUI thread), answered by deadlinesRead(): for the ids
    // whose row is on disk and was not being written from here when asked; a run that is missing
    // was deleted by another process (or not yet written), which the writer finds for itself.
    // False when the store has no reader (closed).
    bool requestDeadlines(const QStringList &localIds);
    void scheduleSave(const Run &run);
    // Where scheduleSave(localId, status) finds the run when the batch is handed over (and when a
    // read wants the newest version): the engine's own copy. A run that streams a batch every
    // frame is then copied once per flush, not once per batch. A source that goes away is taken
    // off with setRunSource({}) after flush(); replacing it copies what is still pending first.
    // The store sets the run's baseline (Run::stored, Run::inStore) when it hands it to the writer.
    using RunSource = std::function<Run *(const QString &localId)>;
    void setRunSource(RunSource source);
    // Like scheduleSave(run) for the run the source holds under `localId` (`status` is its status
    // now, which decides how soon it is written). Without a source nothing is scheduled.
    void scheduleSave(const QString &localId, RunStatus status);
    // Changes whenever a run scheduled by scheduleSave(localId, status) may have left the queue
    // (handed to the writer, saved, removed, taken from the source). Until it changes, scheduling
    // the same run with the same status again does nothing new: the caller may skip it (the
    // engine does, for every live stream's batch).
    quint64 queueGeneration() const { return m_queueGeneration; }
    void flush();
    bool removeRun(const QString &localId);

    // Schema 8 (runstore_leases.cpp): a team's processes on one store follow each live run once,
    // answer each input request once and record who did what.
    //
    // Who this process acts as: RUNWATCH_OPERATOR, else the OS user; and this host.
    struct Operator
    {
        QString name;
        QString host;
    };
    static Operator currentOperator();
    // A lease lasts this long unless renewed (RunManager renews every kLeaseRenewMs): a process
    // that dies without releasing holds its runs this long at most (on its own host, not at all:
    // a lease whose holder process is gone is free). Ten processes following a thousand runs on
    // a loaded 2-core machine (bench_team_store 10 100) renewed up to 5.2 s after the last
    // renewal: with a 5 s life, leases lapsed under live streams and the runs were streamed twice.
    static constexpr int kLeaseTtlMs = 10000;
    static constexpr int kLeaseRenewMs = 2000;
    struct LeaseHolder
    {
        QString holder; // the holding store's id (holderId())
        QString operatorName;
        QString host;
        qint64 pid = 0;
    };
    // This store's id in the lease table: one per RunStore, so each process (and each store of a
    // test) is a holder of its own.
    QString holderId() const { return m_holderId; }
    // Takes the run's lease, or renews it when this store holds it already: true when this store
    // holds it now. One conditional statement (insert, or update where the lease is ours or
    // expired), so two processes asking at once cannot both get it. False with the holder in
    // *other when another live process holds it; false without one on a database error.
    bool acquireLease(const QString &localId, std::optional<LeaseHolder> *other = nullptr);
    // Renews every lease this store holds; returns the ids it still holds (a process stalled past
    // the lease's life may have lost some to another one), nullopt on a database error. On this
    // thread's connection: for a caller that waits anyway (quitting, tests).
    std::optional<QSet<QString>> renewLeases();
    // The same on a thread and a connection of their own, so that the front end's thread never
    // waits for the database to keep its leases (a server's round trip, a SQLite file's write
    // lock held by another process; 0.4-0.9 ms for 200-1,000 leases on a local file, in one frame
    // every two seconds). `ours`: the leases the caller holds. Answered by leasesRenewed(); false
    // (nothing asked) while the keeper is still doing an earlier renewal (its answer may wait in
    // this thread's queue: a renewal counts as done once the keeper has run it).
    bool requestLeaseRenewal(QSet<QString> ours);
    // Lets the run go — once the state scheduled for it is in the store: a run with a write
    // pending, in flight or failed is released by the writer in the transaction that writes it
    // (handed over at once), so another process never finds the lease free beside an older state
    // of the run and follows a run that has ended. Otherwise at once.
    void releaseLease(const QString &localId);
    // Likewise for every lease of this store, after everything scheduled (for quitting: a lease
    // taken again before the writer got to it would go too).
    void releaseAllLeases();
    // Whether leases let go wait for their runs' last writes: they are renewed until then (a
    // writer slow to get there must not let a lease lapse beside an older state of the run).
    bool releasesPending();
    // The live lease on a run (expired ones are no one's), if any.
    std::optional<LeaseHolder> leaseHolder(const QString &localId) const;
    // Every live lease, by run: one read for however many runs a process waits to take over
    // (RunManager tries only the leases this shows free). nullopt on a database error.
    std::optional<QHash<QString, LeaseHolder>> leaseHolders() const;
    // Whether `holder` holds nothing any more: its process, on this host, is gone (killed,
    // crashed). acquireLease() takes such a lease at once.
    static bool holderGone(const LeaseHolder &holder);
    // The run's lease row as it is, expired or not (holder, pid, milliseconds to its expiry), or
    // "no row": for the engine's debug log of takeovers (runwatch.engine.debug).
    QString leaseDiagnosis(const QString &localId) const;

    // An input request answered once: claims the answer to request `requestKey` of the run for
    // this store, atomically (a row with a unique key). `ours` false: someone answered it already,
    // who and when. On a failed send releaseAnswer() frees it for another try.
    struct AnswerClaim
    {
        bool ours = false;
        bool failed = false; // a database error: nothing claimed, nothing known
        QString operatorName;
        QString host;
        QDateTime at;
    };
    AnswerClaim claimAnswer(const QString &localId, const QString &requestKey);
    // The run's latest answer claim (for a run no longer waiting: answered by whom), if any.
    std::optional<AnswerClaim> lastAnswer(const QString &localId) const;
    void releaseAnswer(const QString &localId, const QString &requestKey);

    // The operator journal: every command on a run, who gave it (currentOperator()), when, what.
    struct JournalEntry
    {
        QDateTime at;
        QString operatorName;
        QString host;
        QString action; // cancel, respond, follow-up, deadline, delete, force-cancel, stop-watching
        QString detail; // the answer given, the deadline set, …
    };
    bool addJournal(const QString &localId, const QString &action, const QString &detail);
    // Oldest first.
    QList<JournalEntry> journal(const QString &localId) const;

    // For a status change; output growth waits five times as long.
    void setFlushInterval(int ms) { m_flushMs = std::max(0, ms); }

    // Why the runs' latest state could not be written (a full disk, a read-only or locked file),
    // or empty. The unwritten state is kept and written again with the next batch and every few
    // seconds until it goes through; flush() waits for the try, so after it this is current.
    QString writeError() const { return m_writeError; }
    // Whether the run's latest state is among what the last write could not put on disk (then
    // writeError() says why). Current after flush(), like writeError().
    bool isUnsaved(const QString &localId) const { return m_unsaved.contains(localId); }

Q_SIGNALS:
    // The write error appeared, changed or cleared (empty): the GUI says so in its status bar.
    void writeErrorChanged(const QString &error);
    // These runs became unsaved (a write of theirs failed) or saved again: the front ends say so
    // on each run. Emitted before writeErrorChanged when both change.
    void unsavedRunsChanged(const QStringList &localIds);
    // A write found these runs deleted from the file by another process (`delete --local`,
    // `prune`) and did not bring them back: the front end lets them go too.
    void runsDeletedElsewhere(const QStringList &localIds);
    // Another process (or this one's writer) changed, added or deleted these runs in a store that
    // pushes changes (PostgreSQL's NOTIFY), at most every 100 ms: a front end that does not follow
    // them reads them again (RunManager). SQLite stores never emit it.
    void runsChangedElsewhere(const QStringList &localIds);
    // The connection to a database server was lost (`connected` false, with why) or made again.
    // Meanwhile writes wait in memory (writeError() says so) and reads find nothing; the store
    // tries again with a growing pause (0.5 s doubling to 30 s). The GUI shows it in its status bar.
    void connectionChanged(bool connected, const QString &why);
    // The answer to requestChangedRuns(localIds): `runs` as loadChangedRuns() gives them; `ok`
    // false (and nothing in `runs`) on a database error or when the store was closed meanwhile.
    void changedRunsRead(const QStringList &localIds, const QHash<QString, Run> &runs, bool ok);
    // The answer to requestDeadlines(); empty on a database error or when the store was closed
    // meanwhile.
    void deadlinesRead(const QHash<QString, Runwatch::StoredDeadline> &fields);
    // The answer to requestLeaseRenewal(ours): the leases of `ours` this store no longer holds
    // (taken over by another process while this one stalled past their life), less any taken
    // again here since the request. Not emitted on a database error: the next renewal tries again.
    void leasesRenewed(const QStringList &lost);

private:
    bool migrate();
    bool migrateTo1();
    bool migrateTo2();
    bool migrateTo3();
    bool migrateTo4();
    bool migrateTo5();
    bool migrateTo6();
    bool migrateTo7();
    bool migrateTo8();
    // The keeper's answer to renewal `serial` (requestLeaseRenewal): leasesRenewed().
    void settleRenewal(quint64 serial, std::optional<QStringList> lost);
    // Takes a lease from a holder on this host whose process is gone (SIGKILL, a crash).
    bool takeFromDeadHolder(const QString &localId, const LeaseHolder &dead);
    // Whether a write of the run is scheduled, in flight or failed: its lease waits for it.
    bool hasUnwrittenState(const QString &localId) const;
    // Forgets releases the writer has carried out (runstore_leases.cpp).
    void settleReleases();
    // The releases that go with batch `generation`: those whose runs have no write left pending.
    detail::RunStoreWriter::LeaseReleases takeReleases(quint64 generation);
    bool exec(const QString &sql);
    // The runs of `localIds` that wait to be written here go to *runs as they are (newer than the
    // store); the others are returned, to be read.
    QStringList takeUnwritten(const QStringList &localIds, QHash<QString, Run> *runs) const;
    bool runMigrations(const QSqlDatabase &database);
    // Search without a full-text index (PostgreSQL): the candidates' text read and matched here
    // (runstore_searchscan.cpp).
    std::optional<QList<SearchHit>> searchByScan(const SearchQuery &query, const QString &filter,
                                                 const QVariantList &values, int limit, int snippets) const;
    // runstore_changes.cpp: what the engine pushes, and the server connection's upkeep.
    void setUpChangeTimers();
    void subscribeToChanges();
    void closeConnection();
    void checkConnection();
    void reconnect();
    // Hands pending runs to the writer thread, at most kRunsPerBatch per frame (runstore.cpp).
    void submitPending();
    // Returns once every batch handed over is on disk (or failed). With `forgetRun`, the writer
    // also drops that run from a failed batch it keeps for the next try, in the same round trip.
    void waitForWriter(const QString &forgetRun = {});
    // Takes the writer's error state (main thread): signal on change, retry while failing.
    void checkWriteError();
    // The run as handed to the writer when that batch is not written yet.
    const detail::RunWrite *inFlight(const QString &localId) const;
    // The run scheduled and not yet handed over: a copy, or the source's run.
    const Run *pendingRun(const QString &localId) const;
    // Copies the source's runs of m_pendingIds and m_draining into m_pending.
    void takePendingFromSource();
    bool hasPending() const
    {
        return !m_pending.isEmpty() || !m_pendingIds.isEmpty() || !m_draining.isEmpty();
    }
    void armFlush(const QString &localId, RunStatus status, bool now = false);
    Run listedRun(const QSqlQuery &q, Load load, detail::RunRowReader *reader) const;
    // The first run matching an SQL condition on `r` whose every `?` is `value`.
    std::optional<Run> queryOne(const QString &condition, const QString &value) const;

    QString m_connectionName;
    QString m_holderId;
    QString m_path;
    std::shared_ptr<const detail::StoreEngine> m_engine;
    mutable QString m_error;
    QHash<QString, Run> m_pending; // scheduled, not yet handed to the writer
    QSet<QString> m_pendingIds;    // likewise, the run still in m_source
    // The source's runs a flush found pending, handed over kRunsPerBatch a frame. Runs scheduled
    // meanwhile wait in m_pendingIds for the next flush: a live run is written once per flush,
    // not once per frame while more than a batch of runs keeps changing.
    QSet<QString> m_draining;
    int m_nextFlushMs = -1; // the soonest delay asked for while m_draining was handed over
    RunSource m_source;
    QHash<QString, std::pair<quint64, detail::RunWrite>> m_inFlight; // handed over, by batch generation
    QHash<QString, RunStatus> m_writtenStatus;                       // as last handed over or written
    QSet<QString> m_releases;                   // leases released, waiting for their run's batch
    bool m_releaseAll = false;                  // likewise for all of them (releaseAllLeases)
    QHash<QString, quint64> m_releasing;        // released with the batch of this generation
    quint64 m_releaseGeneration = 0;            // the last batch that carried releases
    detail::RunWriteStatements m_statements;    // saveRun() on this thread's connection
    detail::RunStoreWriter *m_writer = nullptr; // lives in m_writerThread
    QThread m_writerThread;
    detail::ChangedRunsReader *m_reader = nullptr; // lives in m_readerThread
    QThread m_readerThread;
    // An answer (of the reader or the lease keeper) of another generation was asked of a closed store.
    quint64 m_readerGeneration = 0;
    detail::LeaseKeeper *m_leaseKeeper = nullptr; // lives in m_leaseThread
    QThread m_leaseThread;
    std::atomic<bool> m_renewing = false; // a renewal asked of the keeper is not done (set there)
    quint64 m_renewalSerial = 0;          // renewals asked
    QHash<QString, quint64> m_takenAt;    // leases taken since, by the last renewal asked before
    quint64 m_generation = 0;
    quint64 m_queueGeneration = 1;
    int m_flushMs = 200;
    QTimer m_flushTimer;
    QTimer m_retryTimer; // while writes fail: try the unwritten state again
    QString m_writeError;
    QSet<QString> m_unsaved;          // the runs of the batch the writer could not write
    QSet<QString> m_changedElsewhere; // notified, not yet announced (m_changeTimer)
    QTimer m_changeTimer;
    QTimer m_livenessTimer;  // a server's connection: is it still there?
    QTimer m_reconnectTimer; // while it is not
    int m_reconnectDelayMs = 0;
    bool m_connected = true;
};

} // namespace Runwatch
