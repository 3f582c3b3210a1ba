// SPDX-License-Identifier: GPL-3.0-or-later
// RunManager: lifecycle, connections and the runs it owns. Following runs is in
// runmanager_follow.cpp, the operator's commands in runmanager_commands.cpp.
#include "runmanager.h"

#include "eventloopwait.h"
#include "net/streampump.h"
#include "runmanager_p.h"
#include "store/runstore.h"

#include "domain/rundiff.h"
#include "domain/timebudget.h"

#include <QCoreApplication>
#include <QUuid>

#include <algorithm>

using namespace Qt::StringLiterals;

Q_LOGGING_CATEGORY(lcEngine, "runwatch.engine", QtInfoMsg)

namespace Runwatch {

static_assert(RunManager::kOutOfViewDelay >= detail::StreamPump::kRelaxedWait,
              "front ends group what arrives together over the relaxed streams' longest wait");

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "RunManager".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(RunManager)
};
} // namespace

namespace {

// Turns this thread's event loop until every task has completed or `timeout` has passed. Returns
// how many have not.
qsizetype waitUntilDone(const std::vector<QCoro::Task<>> &tasks, std::chrono::milliseconds timeout)
{
    const auto pending = [&tasks] {
        return std::ranges::count_if(tasks, [](const QCoro::Task<> &task) { return !task.isReady(); });
    };
    if (pending() == 0 || !QCoreApplication::instance())
        return pending();
    runEventLoopUntil([&pending] { return pending() == 0; }, timeout);
    return pending();
}

} // namespace

RunManager::RunManager(QObject *parent)
    : QObject(parent)
    , m_factory(&createBackend)
{
    qRegisterMetaType<Runwatch::RunChanges>();
    qRegisterMetaType<Runwatch::StreamEnd>();
    qRegisterMetaType<Runwatch::RunError>();
    qRegisterMetaType<Runwatch::ActionResult>();
}

RunManager::~RunManager()
{
    // Before the children go: QObject deletes them in creation order, backends before the
    // streams that use them, and no coroutine may be left waiting on either.
    shutdown();
    // Streams are children of this object; timers too. Flush what is pending to disk.
    if (m_store) {
        m_store->flush();
        m_store->setRunSource({});
    }
}

void RunManager::shutdown(std::chrono::milliseconds timeout)
{
    if (!m_shutDown) {
        m_shutDown = true;
        for (const QString &id : std::as_const(m_order)) {
            Entry *e = entry(id);
            if (!e)
                continue;
            e->follower.active = false;
            if (e->follower.timer)
                e->follower.timer->stop();
            if (e->follower.stream)
                e->follower.stream->abort(); // finishes as Aborted: nothing reconnects
        }
        releaseLeases();
        for (const QPointer<RunBackend> &b : std::as_const(m_backends)) {
            if (b)
                m_backendShutdowns.push_back(b->shutdown());
        }
    }
    // Every coroutine suspended on a request now resumes from the event loop with Cancelled and
    // unwinds through its QPointer guards (ours co_return at once: m_shutDown). A process that
    // exited before would leave their frames behind.
    if (const qsizetype left = waitUntilDone(m_backendShutdowns, timeout)) {
        qCWarning(lcEngine) << "shutdown:" << left << "backends still have requests in flight after"
                            << timeout.count() << "ms";
    }
}

bool RunManager::addConnection(const Connection &connection, QString *error)
{
    RunBackend *backend = m_factory ? m_factory(connection, this) : nullptr;
    if (!backend) {
        if (error) {
            *error = Text::tr("Unknown backend \"%1\" (known: %2).")
                         .arg(connection.backend, knownBackends().join(u", "_s));
        }
        return false;
    }
    if (auto old = m_backends.take(connection.name)) {
        // Its requests end now rather than whenever the deferred delete runs (perhaps never,
        // at exit); shutdown() waits for them with the others.
        std::erase_if(m_backendShutdowns, [](const QCoro::Task<> &task) { return task.isReady(); });
        m_backendShutdowns.push_back(old->shutdown());
        old->deleteLater();
    }
    m_connections.insert(connection.name, connection);
    m_backends.insert(connection.name, backend);
    return true;
}

RunBackend *RunManager::backend(const QString &connectionName) const
{
    return m_backends.value(connectionName);
}

QStringList RunManager::connectionNames() const
{
    return m_connections.keys();
}

std::optional<Connection> RunManager::connection(const QString &name) const
{
    const auto it = m_connections.constFind(name);
    if (it == m_connections.cend())
        return std::nullopt;
    return *it;
}

RunManager::Entry *RunManager::entry(const QString &id) const
{
    const auto it = m_runs.constFind(id);
    return it == m_runs.cend() ? nullptr : it->get();
}

const Run *RunManager::run(const QString &localId) const
{
    const Entry *e = entry(localId);
    return e ? &e->run : nullptr;
}

const Run *RunManager::findRun(const QString &idOrRemoteId) const
{
    if (const Run *r = run(idOrRemoteId))
        return r;
    // Several local runs can share a remote id (a thread whose follow-ups are runs on it): the
    // latest is the one meant.
    const Run *latest = nullptr;
    for (const auto &e : m_runs) {
        if (e->run.remoteId == idOrRemoteId && (!latest || e->run.createdAt > latest->createdAt))
            latest = &e->run;
    }
    if (latest)
        return latest;
    // A run continued in new remote objects answers to the ids it went through as well.
    for (const auto &e : m_runs) {
        if (e->run.token.previousRemoteIds.contains(idOrRemoteId))
            return &e->run;
    }
    return nullptr;
}

QStringList RunManager::runIds() const
{
    return m_order;
}

Run RunManager::newRun(const QString &connectionName) const
{
    const Connection conn = m_connections.value(connectionName);
    Run run;
    run.localId = QUuid::createUuid().toString(QUuid::WithoutBraces).left(8);
    run.connection = connectionName;
    run.backend = conn.backend;
    // Never a password (user:password@): the run's URL is stored, exported and shown.
    run.baseUrl = conn.baseUrl.toString(QUrl::RemovePassword);
    run.createdAt = QDateTime::currentDateTimeUtc();
    run.updatedAt = run.createdAt;
    run.model = conn.defaultModel;
    // The connection's default time budget: warned before, flagged over deadline after (the
    // operator asks per run for a cancel at the deadline).
    if (const auto budget
        = parseTimeBudgetMs(conn.options.value(ConnectionOption::DefaultTimeBudget).toString()))
        run.deadlineAt = run.createdAt.addMSecs(*budget);
    if (const RunBackend *b = backend(connectionName))
        run.capabilities = b->capabilities();
    return run;
}

void RunManager::addEntry(const std::shared_ptr<Entry> &entry)
{
    const QString id = entry->run.localId;
    m_runs.insert(id, entry);
    m_order.append(id);
    Q_EMIT runAdded(id);
}

QString RunManager::startRun(const QString &connectionName, StartRequest request)
{
    RunBackend *backend = this->backend(connectionName);
    auto e = std::make_shared<Entry>();
    e->run = newRun(connectionName);
    Run &run = e->run;
    if (!request.model.isEmpty())
        run.model = request.model;
    run.prompt = request.prompt;
    run.startInput = request.input;
    run.title = Run::summarize(request.prompt);
    run.status = RunStatus::Queued;
    QString id = run.localId;
    if (request.clientRunId.isEmpty())
        request.clientRunId = id;
    addEntry(e);

    if (!backend) {
        const RunError error
            = RunError::client({}, Text::tr("No connection named \"%1\".").arg(connectionName));
        applyEvents(id,
                    {RunEvent::failure(error), RunEvent::statusChange(RunStatus::Failed, u"start_failed"_s)});
        ActionResult failed;
        failed.error = error;
        Q_EMIT actionFinished(id, Action::Start, failed);
        return id;
    }
    if (!request.input.isUndefined() && !takesStructuredInput(backend)) {
        // Sending the prompt alone would run something else than was asked for.
        const RunError error = RunError::client(
            u"structured_input_unsupported"_s,
            QCoreApplication::translate("RunManager",
                                        "This connection cannot start a run from structured input."));
        applyEvents(id,
                    {RunEvent::failure(error), RunEvent::statusChange(RunStatus::Failed, u"start_failed"_s)});
        ActionResult failed;
        failed.error = error;
        Q_EMIT actionFinished(id, Action::Start, failed);
        return id;
    }
    e->follower.active = true;
    wakeStoreSync();
    takeLease(id); // a new run: no one else holds it
    persist(id);
    attachStream(id, backend->start(std::move(request), this));
    return id;
}

QString RunManager::followUp(const QString &parentId, const QString &prompt, QString *error)
{
    const auto refused = [error](const QString &why) {
        if (error)
            *error = why;
        return QString();
    };
    // A run listed as a summary has no token yet: the follow-up continues from it.
    ensureOutputLoaded(parentId);
    const Entry *parent = entry(parentId);
    if (!parent)
        return refused(Text::tr("No run \"%1\".").arg(parentId));
    RunBackend *b = backend(parent->run.connection);
    if (!b)
        return refused(Text::tr("No connection named \"%1\".").arg(parent->run.connection));
    // The backend's capabilities now, not those stored with the run (an older version's).
    Run probe = parent->run;
    probe.capabilities = b->capabilities();
    if (!probe.capabilities.testFlag(Capability::FollowUp))
        return refused(Text::tr("This connection cannot follow runs up."));
    if (!followUpAllowed(probe)) {
        return refused(probe.capabilities.testFlag(Capability::FollowUpWorking)
                           ? Text::tr("Only a completed or working run can be followed up (this one is %1).")
                                 .arg(statusName(probe.status))
                           : Text::tr("Only a completed run can be followed up (this one is %1).")
                                 .arg(statusName(probe.status)));
    }
    if (prompt.trimmed().isEmpty())
        return refused(Text::tr("A follow-up needs a prompt."));
    if (followUpContinuesRun(probe)) {
        doFollowUpWorking(parentId, prompt);
        return parentId;
    }

    journal(parentId, u"follow-up"_s, prompt);
    const ContinuationToken parentToken = parent->run.token;
    StartRequest request;
    request.prompt = prompt;
    request.model = parent->run.model;
    request.stream = probe.capabilities.testFlag(Capability::Stream);
    auto e = std::make_shared<Entry>();
    e->run = newRun(parent->run.connection);
    Run &run = e->run;
    run.model = parent->run.model;
    run.prompt = prompt;
    run.title = Run::summarize(prompt);
    run.status = RunStatus::Queued;
    run.parentId = parent->run.localId;
    QString id = run.localId;
    request.clientRunId = id;
    addEntry(e);
    e->follower.active = true;
    wakeStoreSync();
    takeLease(id);
    persist(id);
    attachStream(id, b->followUp(parentToken, std::move(request), this));
    return id;
}

void RunManager::adoptRun(Run run, bool follow)
{
    noteReadHere(run.localId);
    const QString id = run.localId;
    if (id.isEmpty())
        return;
    if (Entry *existing = entry(id)) {
        // Another process may have moved it on: take the newer state, keep our follower, and tell
        // what moved (a colleague's growing answer is new text, not a new status for every view).
        const RunChanges changes = runDifferences(existing->run, run);
        existing->run = std::move(run);
        if (changes)
            Q_EMIT runChanged(id, changes);
    } else {
        auto e = std::make_shared<Entry>();
        e->run = std::move(run);
        if (auto *b = backend(e->run.connection))
            e->run.capabilities = b->capabilities();
        addEntry(e);
    }
    if (follow && needsFollowing(entry(id)->run))
        this->follow(id);
}

QString RunManager::attachRemoteRun(const QString &connectionName, const QString &remoteId,
                                    const QString &title)
{
    RunBackend *b = backend(connectionName);
    if (!b || remoteId.isEmpty())
        return {};
    // Known already: the latest local run of that remote id (a thread's follow-ups share it).
    QString known;
    for (const QString &existing : std::as_const(m_order)) {
        const Entry *e = entry(existing);
        if (e && e->run.connection == connectionName && e->run.remoteId == remoteId
            && (known.isEmpty() || e->run.createdAt > entry(known)->run.createdAt))
            known = existing;
    }
    if (!known.isEmpty()) {
        ensureOutputLoaded(known);
        doAttach(known, false);
        return known;
    }
    auto e = std::make_shared<Entry>();
    e->run = newRun(connectionName);
    Run &run = e->run;
    run.title = title.isEmpty() ? remoteId : title;
    run.remoteId = remoteId;
    run.token.remoteId = remoteId;
    // Whether it can be streamed is the server's to say (get()'s Identity); until then: poll.
    run.token.streamable = false;
    run.status = RunStatus::Unknown;
    QString id = run.localId;
    addEntry(e);
    persist(id);
    doAttach(id, true);
    return id;
}

void RunManager::applyEvents(const QString &id, const QList<RunEvent> &events)
{
    if (Entry *e = entry(id))
        applyEvents(*e, id, events);
}

void RunManager::applyEvents(Entry &e, const QString &id, const QList<RunEvent> &events)
{
    RunChanges all;
    // Usually every event is news: then the list itself goes out (implicitly shared, no copy of
    // each event); copied only from the first one left out.
    QList<RunEvent> applied;
    qsizetype keptSoFar = 0; // events[0, keptSoFar) are all applied while `applied` is unused
    bool filtered = false;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    bool progressed = false;
    for (qsizetype i = 0; i < events.size(); ++i) {
        const RunEvent &event = events.at(i);
        const RunChanges c = applyEvent(e.run, event, now);
        // Only what changed the run is reported: a repeated status (response.created, then
        // response.queued) or a finished item sent again is no news to print or show.
        const bool news = !c.testFlag(RunChange::Dropped) && (c & ~RunChanges(RunChange::Cursor));
        if (!c.testFlag(RunChange::Dropped)) {
            progressed = true;
            all |= c;
        }
        if (!filtered && news) {
            ++keptSoFar;
        } else if (!filtered) {
            filtered = true;
            applied = events.first(keptSoFar);
        } else if (news) {
            applied.append(event);
        }
    }
    if (!filtered)
        applied = events;
    if (progressed) {
        ++e.updates;
        // Progress resets the reconnect backoff (and the give-up bound's clock).
        e.follower.failures = 0;
        e.follower.troubleSince.invalidate();
        if (e.run.connectionLost) {
            e.run.connectionLost = false;
            e.run.nextTryAt = {};
            e.run.failedTries = 0;
            e.run.lostReason.clear();
            all |= RunChange::Status;
        }
    }
    if (!applied.isEmpty())
        Q_EMIT runEventsApplied(id, applied);
    if (all) {
        persist(e, id);
        Q_EMIT runChanged(id, all);
    }
}

namespace {
// The baseline of a summary's next write once its output is read (RunManager::ensureOutputLoaded):
// the output as read; the other fields what this process last wrote, or, never written, what it
// listed, unless a change of them still waits for the store (`writePending`): then none, and the
// next write goes whole (RunWriteStatements).
std::shared_ptr<const Run> baselineWithOutput(const Run &run, const Run &full, bool writePending)
{
    if (!run.stored && writePending)
        return {};
    auto baseline = std::make_shared<Run>(run.stored ? *run.stored : run);
    baseline->stored.reset();
    baseline->prompt = full.prompt;
    baseline->token = full.token;
    baseline->input = full.input;
    baseline->primaryText = full.primaryText;
    baseline->secondary = full.secondary;
    baseline->outputLoaded = true;
    return baseline;
}
} // namespace

bool RunManager::ensureOutputLoaded(const QString &id)
{
    Entry *e = entry(id);
    if (!e)
        return false;
    if (e->run.outputLoaded)
        return true;
    const std::optional<Run> full = m_store ? m_store->loadRun(id) : std::nullopt;
    if (!full)
        return false;
    // A summary also lacks the prompt, the continuation token and the input request.
    e->run.prompt = full->prompt;
    e->run.token = full->token;
    e->run.input = full->input;
    e->run.primaryText = full->primaryText;
    e->run.secondary = full->secondary;
    e->run.outputLoaded = true;
    e->run.stored = baselineWithOutput(e->run, *full, e->queuedIn == m_store->queueGeneration());
    Q_EMIT runChanged(id, RunChange::Primary | RunChange::Secondary);
    return true;
}

void RunManager::removeLocal(const QString &id, StoreRow row)
{
    noteReadHere(id);
    stopFollowing(id);
    Entry *e = entry(id);
    if (!e)
        return;
    if (e->follower.timer)
        e->follower.timer->deleteLater();
    // Listeners (the list model) hold a pointer to the Run until they have
    // handled runRemoved, so the entry must outlive the signal.
    const std::shared_ptr<Entry> keepAlive = m_runs.take(id);
    m_order.removeAll(id);
    if (m_store && row == StoreRow::Delete)
        m_store->removeRun(id);
    Q_EMIT runRemoved(id);
}

void RunManager::persist(const QString &id)
{
    if (Entry *e = entry(id))
        persist(*e, id);
}

void RunManager::persist(Entry &e, const QString &id)
{
    if (!m_store)
        return;
    // Once per live stream per frame: skip the store's hash lookups and timer while the run still
    // waits in its queue with the same status.
    if (e.queuedIn == m_store->queueGeneration() && e.queuedStatus == e.run.status)
        return;
    m_store->scheduleSave(id, e.run.status);
    e.queuedIn = m_store->queueGeneration();
    e.queuedStatus = e.run.status;
}

} // namespace Runwatch
