// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/registry.h"
#include "backends/runbackend.h"
#include "domain/connection.h"
#include "domain/runreducer.h"
#include "store/pricebook.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QPointer>
#include <QSet>

#include <chrono>
#include <memory>
#include <vector>

class QTimer;

namespace Runwatch {

class RunStore;
struct StoredDeadline;

// How the manager keeps following runs across drops. Retryable trouble (drops, refused or reset
// connections, timeouts, 429/5xx) never ends following while the run may still be live: the
// delay doubles per failure in a row, with jitter, up to reconnectMax (never sooner than a
// server's Retry-After), and any progress starts it again at reconnectInitial. Only answers that
// cannot get better by waiting (401/403/404/410, a refused resume that polling cannot replace,
// protocol errors) stop it, and giveUpAfter when set. Tests shrink the durations instead of
// sleeping.
struct FollowPolicy
{
    std::chrono::milliseconds reconnectInitial{250};
    std::chrono::milliseconds reconnectMax{60000};
    // Zero: never give up on retryable trouble. Else stop once following has failed this long
    // without progress (`runwatch-cli watch --give-up-after`, for scripts that want a bound).
    std::chrono::milliseconds giveUpAfter{0};
    std::chrono::milliseconds pollInitial{1000};
    std::chrono::milliseconds pollMax{10000};
    // The cancel ladder: how long a run may stay "cancelling" after the service accepted the
    // cancel before the operator is offered the next step (Run::cancelUnconfirmed). Thirty
    // seconds: a job service that checks for cancellation between steps usually confirms within
    // a few; one that has not after half a minute is not going to by itself soon.
    std::chrono::milliseconds cancelConfirmAfter{30000};
};

// Builds the backend for a connection (the engine does not know the concrete connectors).
using BackendFactory = std::function<RunBackend *(const Connection &, QObject *parent)>;

// Owns every run, follows each non-terminal one by stream or poll, reconnects with backoff,
// and executes the operator's commands. All events go through applyEvent(), the one reducer.
class RunManager : public QObject
{
    Q_OBJECT
public:
    // FollowUp: only a follow-up sent to a working run reports (the next turn's outcome is its
    // own run's).
    // ForceCancel, StopWatching: the cancel ladder's next steps (forceCancelRun, stopWatching).
    enum class Action { Start, Cancel, Delete, Respond, Refresh, FollowUp, ForceCancel, StopWatching };
    Q_ENUM(Action)

    explicit RunManager(QObject *parent = nullptr);
    // Calls shutdown() when the owner has not.
    ~RunManager() override;

    // The orderly exit every front end goes through before it destroys the manager (and while
    // what the connectors' coroutines touch is still alive): stops following, aborts every
    // stream, shuts every backend down and turns the event loop until their shutdown tasks have
    // completed (RunBackend::shutdown: each coroutine that awaited their requests has), those of
    // backends replaced by addConnection() included, bounded by `timeout`. Silent: nothing is
    // applied, persisted or reported about what it cut short; runs stay as the store has them.
    // Afterwards the manager follows nothing.
    void shutdown(std::chrono::milliseconds timeout = std::chrono::seconds(5));
    bool isShutDown() const { return m_shutDown; }

    void setStore(RunStore *store);
    RunStore *store() const { return m_store; }
    // Why the run's latest state is not in the store (its write failed: a full disk, a locked
    // or read-only file), or empty. It is kept here and written when the store takes writes
    // again; runChanged(id, RunChange::Stored) says when this changes.
    QString saveProblem(const QString &id) const;
    // The operator's prices, read from the store by setStore() (both front ends cost runs with it).
    PriceBook *prices() { return &m_prices; }
    const PriceBook *prices() const { return &m_prices; }
    void setFollowPolicy(const FollowPolicy &policy) { m_policy = policy; }
    const FollowPolicy &followPolicy() const { return m_policy; }
    void setBackendFactory(BackendFactory factory) { m_factory = std::move(factory); }

    // Adds or replaces a connection. Returns false (and sets *error) for an unknown backend.
    bool addConnection(const Connection &connection, QString *error = nullptr);
    RunBackend *backend(const QString &connectionName) const;
    QStringList connectionNames() const;
    std::optional<Connection> connection(const QString &name) const;

    // Starts a run; returns its local id at once (the remote id arrives with the first events).
    QString startRun(const QString &connectionName, StartRequest request);
    // The next turn of a conversation (Capability::FollowUp, followUpAllowed()): a new run with
    // parentId = `parentId`, created by RunBackend::followUp() and followed like startRun(). Returns
    // its local id, or an empty string with the operator-facing reason in *error when the parent is
    // unknown or cannot be followed up (nothing is created or sent then). A working run of a
    // backend with Capability::FollowUpWorking (followUpContinuesRun()) is not followed by a new
    // run: the prompt goes to that run (RunBackend::followUp), its id is returned, it records the
    // message and goes on; actionFinished(id, Action::FollowUp, …) reports the service's answer,
    // and a refusal is also put on the run as its error while it keeps being followed.
    QString followUp(const QString &parentId, const QString &prompt, QString *error = nullptr);
    // Takes over a run known from the store (or another process). Follows it when not terminal
    // and `follow` is set.
    void adoptRun(Run run, bool follow = true);
    // Takes over a run started elsewhere (another client, a ListTasks entry) by its remote id:
    // creates and persists a local run for it, reads its state with RunBackend::get(), then
    // follows it unless it is terminal. Returns the local id (the existing run's when this
    // connection already has one with that remote id), or an empty string for an unknown
    // connection or an empty id. The get() outcome is reported as actionFinished(id,
    // Action::Refresh, …); when the server refuses it (unknown id, no access) a run created by
    // this call is removed again (runRemoved) so that a mistyped id leaves nothing behind.
    QString attachRemoteRun(const QString &connectionName, const QString &remoteId,
                            const QString &title = {});

    const Run *run(const QString &localId) const;
    // By local id, or by remote id when no local id matches (also an earlier remote id of a run
    // that went on in a new remote object: Run::token.previousRemoteIds).
    const Run *findRun(const QString &idOrRemoteId) const;
    QStringList runIds() const;

    // Summaries (RunStore::Load::Summary) carry no output; this reads it from the store. Returns
    // false when the run is unknown or the store cannot provide it.
    bool ensureOutputLoaded(const QString &id);
    // The runs a front end shows closely (the GUI's detail pane): their streams hand their events
    // over every frame. Once a front end has named them, every other run's stream hands over four
    // times a second (twice with many hundreds of streams), the streams taking turns
    // (StreamPump::setRelaxed): a list row needs no 60 Hz, and a dozen events cost the GUI thread
    // little more than one (bench_gui_live). Until
    // then (the CLI, which prints every run it follows as it comes) every stream hands over every
    // frame.
    void setRunsInView(const QStringList &ids);
    // The longest a change of a run out of view may reach the front end after its event arrived
    // (the relaxed stream's wait for its turn): what arrives together may be shown this far apart.
    static constexpr std::chrono::milliseconds kOutOfViewDelay{960};

    void follow(const QString &id); // (re)start following (the Resume action)
    void stopFollowing(const QString &id);
    // Followed here or, in a shared store, shown from it while another process follows it.
    bool isFollowing(const QString &id) const;
    // Another process holds the run's lease (runmanager_leases.cpp): it streams the run and acts
    // on its deadline; this one shows what it stores. "operator@host" of that process, or empty.
    QString followedElsewhereBy(const QString &id) const;
    // Whether a run still changes without the operator, so that it is worth following: every
    // non-terminal run except one that waits for the operator's answer. Runs suspended on a
    // timer or on a third party's callback (webhook) resume by themselves and count. Public so
    // that front ends (the CLI's watch/start --follow) stop where the engine stops.
    static bool needsFollowing(const Run &run);

    // Asks the service to cancel; the run shows Cancelling until the service confirms. When it
    // has not confirmed within FollowPolicy::cancelConfirmAfter, the run is marked
    // cancelUnconfirmed (runChanged, cancelUnconfirmed()) and the ladder's next steps open:
    void cancelRun(const QString &id);
    // - the service's stronger cancel (Capability::ForceCancel; RunBackend::forceCancel),
    //   reported as actionFinished(id, Action::ForceCancel, …); the wait starts again;
    void forceCancelRun(const QString &id);
    // - or stop watching: the run is read once more (a confirmation that arrives now still lands,
    //   and then nothing else happens), following ends, and the run ends StoppedWatching with the
    //   server's last word (its status and when it said it) and `reason` in its timeline.
    //   Reported as actionFinished(id, Action::StopWatching, …). A later read that brings the
    //   service's terminal status (Refresh, `status`) replaces StoppedWatching.
    void stopWatching(const QString &id, const QString &reason);
    // onServer: DELETE on the server as well (needs Capability::Delete); else local only.
    void deleteRun(const QString &id, bool onServer);
    void respondToRun(const QString &id, InputAnswer answer);
    // Reads the run's state once (RunBackend::get) and reports it as actionFinished(id,
    // Action::Refresh, …), also when nothing changed; nothing is reported while a poll of the
    // run is already under way (its result arrives as runChanged).
    void refreshRun(const QString &id);
    // The operator's time budget (Run::deadlineAt / cancelAtDeadline; an invalid time clears it),
    // stored at once and acted on by a DeadlineWatcher. False, with the reason in *error, for an
    // unknown or finished run.
    bool setDeadline(const QString &id, const QDateTime &deadlineAt, bool cancelAtDeadline,
                     QString *error = nullptr);

Q_SIGNALS:
    void runAdded(const QString &id);
    void runChanged(const QString &id, Runwatch::RunChanges changes);
    // Events that changed the run (duplicates, and events that change nothing but the cursor
    // such as a repeated status or a finished item sent again, left out), for printers such as
    // the CLI: each fact is reported once.
    void runEventsApplied(const QString &id, const QList<Runwatch::RunEvent> &events);
    void runRemoved(const QString &id);
    // Following ended without a terminal state (non-retryable error, gave up, protocol error).
    void followingStopped(const QString &id, const Runwatch::RunError &error);
    void actionFinished(const QString &id, Runwatch::RunManager::Action action,
                        const Runwatch::ActionResult &result);
    // A cancel the service accepted was not confirmed in time (Run::cancelUnconfirmed is set).
    void cancelUnconfirmed(const QString &id);

private:
    struct Follower;
    struct Entry;

    Entry *entry(const QString &id) const;
    void applyEvents(const QString &id, const QList<RunEvent> &events);
    void applyEvents(Entry &e, const QString &id, const QList<RunEvent> &events);
    void attachStream(const QString &id, RunStream *stream);
    void onStreamFinished(const QString &id, const StreamEnd &end);
    void startFollowTimer(const QString &id, Follower &follower, std::chrono::milliseconds delay);
    // A retryable failure: marks the run reconnecting and schedules the next try (stream or
    // poll, whichever the follower does), or gives up when the policy's bound has passed.
    void retryAfterFailure(const QString &id, const QString &reason, std::optional<qint64> serverDelayMs);
    void schedulePoll(const QString &id, std::optional<qint64> serverDelayMs);
    void resumeNow(const QString &id);
    void giveUp(const QString &id, const RunError &error);
    // A run that waits for a person before a deadline (Foundry's expires_at) is not followed, but
    // the service ends it at the deadline: read its state once the deadline has passed.
    void watchDeadline(const QString &id);
    void clearConnectionLost(const QString &id);
    void persist(const QString &id);
    void persist(Entry &entry, const QString &id);

    // A new run on a connection: a fresh local id, the connection's endpoint, default model and
    // capabilities.
    Run newRun(const QString &connectionName) const;
    void addEntry(const std::shared_ptr<Entry> &entry);
    // RunBackend::get() for a run, marked as a poll in flight meanwhile. nullopt when the run or
    // its connection is gone, or the manager was shut down or destroyed meanwhile: nothing to
    // apply or report then.
    QCoro::Task<std::optional<ActionResult>> fetchState(QString id);
    // `report`: actionFinished(id, Action::Refresh, …) once the read is applied or has failed
    // (refreshRun: the CLI's status waits for it, the app reports a failure).
    QCoro::Task<> pollOnce(QString id, bool report = false);
    // An operator's command refused before anything was sent (a Client error without a code).
    void refuse(const QString &id, Action action, const QString &message);
    QCoro::Task<> doCancel(QString id);
    QCoro::Task<> doForceCancel(QString id);
    QCoro::Task<> doStopWatching(QString id, QString reason);
    // After an accepted cancel: checks once the policy's time has passed whether the run is still
    // cancelling, and marks it cancelUnconfirmed then.
    void armCancelCheck(const QString &id);
    QCoro::Task<> doDelete(QString id, bool onServer);
    QCoro::Task<> doRespond(QString id, InputAnswer answer);
    QCoro::Task<> doFollowUpWorking(QString id, QString prompt);
    QCoro::Task<> doAttach(QString id, bool created);
    // The attached run's prompt and the conversation's earlier turns (ActionResult::earlierTurns)
    // as finished runs chained before it; a turn this process has already is not made again.
    void adoptEarlierTurns(const QString &id, const ActionResult &result);
    // Takes a run out of this process; its row too, unless another process deleted it already.
    enum class StoreRow { Delete, AlreadyGone };
    void removeLocal(const QString &id, StoreRow row = StoreRow::Delete);
    // runmanager_store.cpp: runs another process deleted from the store leave this one too (no
    // write, the file has them gone already), and a followed run's deadline set elsewhere is read.
    void letGoDeletedRuns(const QStringList &ids);
    // Asks the store's reader for the deadlines of the runs followed here (one read at a time);
    // applyStoredDeadlines() takes what another process set.
    void syncFromStore();
    void applyStoredDeadlines(const QHash<QString, StoredDeadline> &fields);
    // Runs another process changed, added or deleted (pushed by PostgreSQL; on SQLite the tailed
    // runs, every tick): read again together, unless this process follows them (its stream is
    // newer than the store).
    void takeChangesFromStore(const QStringList &ids);
    // A slice of the queue asked of the store's reader thread (RunStore::requestChangedRuns),
    // one at a time; its answer applied by applyChangedRuns().
    void readQueuedChanges();
    void applyChangedRuns(const QStringList &ids, const QHash<QString, Run> &runs, bool ok);
    // Applies the answer a frame's share at a time (a few hundred runs took 3 ms in one frame);
    // the round ends, and the next may start, once all of it is applied.
    void applyChangedSlice();
    void endChangedRead();
    // The same read on this thread (a takeover reads the runs found free before taking them).
    void readChanges(const QStringList &ids);
    // Runs read from the store (or let go): shown as they are stored now, unless followed here.
    void applyStoredRuns(const QStringList &ids, QHash<QString, Run> &stored);
    // One of them: `stored` null when the store does not have it.
    void applyStoredRun(const QString &id, Run *stored);
    // The copy of a run asked of the reader changed here: its answer is dropped, the run read again.
    void noteReadHere(const QString &id);
    // After a lost connection to a store that pushes changes: the runs shown, not followed here,
    // read again (what changed meanwhile was not announced).
    void readShownRunsAgain();
    void wakeStoreSync(); // a run is followed: sync while any is
    // The operator journal (RunStore::addJournal): who gave `action` on the run, when, `detail`.
    void journal(const QString &id, const QString &action, const QString &detail);
    // runmanager_leases.cpp: one follower per live run across the processes of a shared store.
    // True when this process holds the run's lease now (or there is no store to share).
    bool takeLease(const QString &id);
    void releaseLease(const QString &id);
    void releaseLeases();
    // Every kLeaseRenewMs while leases are held or runs tailed: renew, let go, take over.
    void leaseTick();
    // The tailed runs whose lease is free are taken over; the others read as the store has them
    // (where it does not push changes).
    void tryTakeOver(const QStringList &tailed);
    // Renews the leases held when kLeaseRenewMs have passed since the last renewal.
    void renewLeasesIfDue();
    // The store's answer to a renewal: these leases went to another process meanwhile.
    void loseLeases(const QStringList &lost);
    // A tailed run as the store has it now, shown as if its events had arrived here.
    void tailFromStore(const QString &id);
    void takeTailedRun(const QString &id, Run stored);
    // Just after this process took the run's lease: whether the store has it ended (its last
    // holder let go after writing so), shown as such, neither followed nor leased any more.
    bool endedInStore(const QString &id);

    QHash<QString, Connection> m_connections;
    QHash<QString, QPointer<RunBackend>> m_backends;
    QHash<QString, std::shared_ptr<Entry>> m_runs;
    QStringList m_order; // insertion order, for stable listings
    RunStore *m_store = nullptr;
    QTimer *m_storeSync = nullptr;         // while runs are followed: syncFromStore()
    QTimer *m_leaseTimer = nullptr;        // while leases are held or runs tailed: leaseTick()
    QSet<QString> m_leased;                // the runs whose lease this process holds
    std::optional<QSet<QString>> m_inView; // setRunsInView(); none: every stream every frame
    QElapsedTimer m_lastRenewal;           // since the leases were last renewed (renewLeasesIfDue())
    // Runs changed elsewhere, to be read a slice at a time (takeChangesFromStore()).
    QStringList m_changeQueue;
    QSet<QString> m_changesQueued;
    bool m_changeReadScheduled = false;
    QSet<QString> m_readInFlight;  // asked of the store's reader, not answered yet
    QSet<QString> m_readMeanwhile; // of those, read or let go here since (noteReadHere())
    // The answer being applied (applyChangedSlice()): its ids, its runs, how far it got.
    QStringList m_applyIds;
    QHash<QString, Run> m_applyRuns;
    qsizetype m_applyAt = 0;
    QElapsedTimer m_changeRound; // since the last round of those reads began
    // The baselines of the runs whose deadlines are being read (syncFromStore()): a run handed to
    // the writer since (a new baseline) may be newer on disk than the answer, and waits for the
    // next read.
    QHash<QString, std::shared_ptr<const Run>> m_deadlineBaselines;
    bool m_deadlinesAsked = false;
    PriceBook m_prices;
    FollowPolicy m_policy;
    BackendFactory m_factory;
    // RunBackend::shutdown() tasks of backends shut down (replaced, or all at shutdown()).
    std::vector<QCoro::Task<>> m_backendShutdowns;
    bool m_shutDown = false;
};

} // namespace Runwatch
