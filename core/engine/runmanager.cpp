// SPDX-License-Identifier: GPL-3.0-or-later
#include "runmanager.h"

#include "backends/registry.h"
#include "domain/runreducer.h"
#include "net/httpclient.h"
#include "runstore.h"

#include <QLoggingCategory>
#include <QRandomGenerator>
#include <QTimer>
#include <QUuid>

using namespace Qt::StringLiterals;

Q_LOGGING_CATEGORY(lcEngine, "runwatch.engine", QtInfoMsg)

namespace Runwatch {

struct RunManager::Follower
{
    QPointer<RunStream> stream;
    QTimer *timer = nullptr;
    int failures = 0;
    int idlePolls = 0;         // successful polls in a row that brought nothing new: back off
    bool active = false;       // the operator wants this run followed
    bool polling = false;      // the server will not stream it: poll the JSON object
    bool pollInFlight = false; // never two status requests in flight for one run
};

struct RunManager::Entry
{
    Run run;
    Follower follower;
    bool actionInFlight = false;
};

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
    if (m_store)
        m_store->flush();
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
        for (const QPointer<RunBackend> &b : std::as_const(m_backends)) {
            if (b)
                b->shutdown();
        }
    }
    // Every coroutine suspended on a request now resumes from the event loop with Cancelled and
    // unwinds through its QPointer guards (ours co_return at once: m_shutDown). A process that
    // exited before would leave their frames behind.
    if (!HttpClient::waitForStoppedRequests(timeout))
        qCWarning(lcEngine) << "shutdown:" << HttpClient::stoppedRequests()
                            << "aborted requests still not completed after" << timeout.count() << "ms";
}

void RunManager::setStore(RunStore *store)
{
    m_store = store;
}

bool RunManager::addConnection(const Connection &connection, QString *error)
{
    RunBackend *backend = m_factory ? m_factory(connection, this) : nullptr;
    if (!backend) {
        if (error)
            *error = u"Unknown backend \"%1\" (known: %2)."_s.arg(connection.backend,
                                                                  knownBackends().join(u", "_s));
        return false;
    }
    if (auto old = m_backends.take(connection.name)) {
        // Its requests end now rather than whenever the deferred delete runs (perhaps never,
        // at exit): shutdown() waits only for requests that were told to stop.
        old->shutdown();
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
    for (const auto &e : m_runs) {
        if (e->run.remoteId == idOrRemoteId)
            return &e->run;
    }
    return nullptr;
}

QStringList RunManager::runIds() const
{
    return m_order;
}

bool RunManager::needsFollowing(const Run &run)
{
    if (run.isTerminal())
        return false;
    if (run.status != RunStatus::InputRequired)
        return true;
    // A run that waits for a timer or for a third party's callback resumes without the operator:
    // keep watching it. One that waits for the operator only changes when they answer.
    const InputReason reason = run.input ? run.input->reason : InputReason::Question;
    return reason == InputReason::Timer || reason == InputReason::Webhook;
}

QString RunManager::startRun(const QString &connectionName, StartRequest request)
{
    RunBackend *backend = this->backend(connectionName);
    const Connection conn = m_connections.value(connectionName);
    auto e = std::make_shared<Entry>();
    Run &run = e->run;
    run.localId = QUuid::createUuid().toString(QUuid::WithoutBraces).left(8);
    run.connection = connectionName;
    run.backend = conn.backend;
    run.baseUrl = conn.baseUrl.toString();
    run.createdAt = QDateTime::currentDateTimeUtc();
    run.updatedAt = run.createdAt;
    run.model = request.model.isEmpty() ? conn.defaultModel : request.model;
    run.prompt = request.prompt;
    run.title = Run::summarize(request.prompt);
    run.status = RunStatus::Queued;
    run.capabilities = backend ? backend->capabilities() : Capabilities{};
    QString id = run.localId;
    if (request.clientRunId.isEmpty())
        request.clientRunId = id;
    m_runs.insert(id, e);
    m_order.append(id);
    Q_EMIT runAdded(id);

    if (!backend) {
        RunError error;
        error.kind = ErrorKind::Client;
        error.message = u"No connection named \"%1\"."_s.arg(connectionName);
        applyEvents(id,
                    {RunEvent::failure(error), RunEvent::statusChange(RunStatus::Failed, u"start_failed"_s)});
        Q_EMIT actionFinished(id, Action::Start, ActionResult{error, {}, {}, std::nullopt});
        return id;
    }
    e->follower.active = true;
    persist(id);
    attachStream(id, backend->start(std::move(request), this));
    return id;
}

void RunManager::adoptRun(Run run, bool follow)
{
    const QString id = run.localId;
    if (id.isEmpty())
        return;
    if (Entry *existing = entry(id)) {
        // Another process may have moved it on: take the newer state, keep our follower.
        existing->run = std::move(run);
        Q_EMIT runChanged(id, RunChange::Status | RunChange::Primary | RunChange::Secondary);
    } else {
        auto e = std::make_shared<Entry>();
        e->run = std::move(run);
        if (auto *b = backend(e->run.connection))
            e->run.capabilities = b->capabilities();
        m_runs.insert(id, e);
        m_order.append(id);
        Q_EMIT runAdded(id);
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
    for (const QString &existing : std::as_const(m_order)) {
        const Entry *e = entry(existing);
        if (e && e->run.connection == connectionName && e->run.remoteId == remoteId) {
            ensureOutputLoaded(existing);
            doAttach(existing, false);
            return existing;
        }
    }
    const Connection conn = m_connections.value(connectionName);
    auto e = std::make_shared<Entry>();
    Run &run = e->run;
    run.localId = QUuid::createUuid().toString(QUuid::WithoutBraces).left(8);
    run.connection = connectionName;
    run.backend = conn.backend;
    run.baseUrl = conn.baseUrl.toString();
    run.createdAt = QDateTime::currentDateTimeUtc();
    run.updatedAt = run.createdAt;
    run.model = conn.defaultModel;
    run.title = title.isEmpty() ? remoteId : title;
    run.remoteId = remoteId;
    run.token.remoteId = remoteId;
    // Whether it can be streamed is the server's to say (get()'s Identity); until then: poll.
    run.token.streamable = false;
    run.status = RunStatus::Unknown;
    run.capabilities = b->capabilities();
    QString id = run.localId;
    m_runs.insert(id, e);
    m_order.append(id);
    Q_EMIT runAdded(id);
    persist(id);
    doAttach(id, true);
    return id;
}

void RunManager::attachStream(const QString &id, RunStream *stream)
{
    Entry *e = entry(id);
    if (!e || !stream)
        return;
    if (e->follower.stream)
        e->follower.stream->abort();
    e->follower.stream = stream;
    connect(stream, &RunStream::eventsReceived, this,
            [this, id](const QList<RunEvent> &events) { applyEvents(id, events); });
    connect(stream, &RunStream::finished, this, [this, id, stream](const StreamEnd &end) {
        stream->deleteLater();
        Entry *e = entry(id);
        if (e && e->follower.stream == stream)
            e->follower.stream = nullptr;
        onStreamFinished(id, end);
    });
}

void RunManager::applyEvents(const QString &id, const QList<RunEvent> &events)
{
    Entry *e = entry(id);
    if (!e)
        return;
    RunChanges all;
    QList<RunEvent> applied;
    applied.reserve(events.size());
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (const RunEvent &event : events) {
        const RunChanges c = applyEvent(e->run, event, now);
        if (c.testFlag(RunChange::Dropped))
            continue;
        all |= c;
        applied.append(event);
    }
    if (!applied.isEmpty()) {
        // Progress resets the reconnect backoff.
        e->follower.failures = 0;
        if (e->run.connectionLost) {
            e->run.connectionLost = false;
            all |= RunChange::Status;
        }
        Q_EMIT runEventsApplied(id, applied);
    }
    if (all) {
        persist(id);
        Q_EMIT runChanged(id, all);
    }
}

void RunManager::onStreamFinished(const QString &id, const StreamEnd &end)
{
    Entry *e = entry(id);
    if (!e)
        return;
    Follower &f = e->follower;
    const Run &run = e->run;
    if (end.reason == StreamEnd::Reason::Aborted || !f.active)
        return;
    if (!needsFollowing(run)) {
        f.active = false;
        setConnectionLost(id, false);
        return;
    }
    if (run.remoteId.isEmpty()) {
        // The create request failed before the server told us the run's id: nothing to follow.
        RunError error = end.error;
        if (!error.isError()) {
            error.kind = ErrorKind::Protocol;
            error.message = u"The server closed the connection before identifying the run."_s;
        }
        f.active = false;
        applyEvents(id,
                    {RunEvent::failure(error), RunEvent::statusChange(RunStatus::Failed, u"start_failed"_s)});
        Q_EMIT actionFinished(id, Action::Start, ActionResult{error, {}, {}, std::nullopt});
        return;
    }
    switch (end.reason) {
    case StreamEnd::Reason::Terminal:
    case StreamEnd::Reason::Eof:
        // Closed before the run finished (or a terminal event left it non-terminal): continue.
        setConnectionLost(id, true);
        scheduleRetry(id, end.retryAfterMs);
        return;
    case StreamEnd::Reason::ResumeRefused:
        qCInfo(lcEngine) << "resume refused for" << id << "- polling instead:" << end.error.message;
        f.polling = true;
        schedulePoll(id, end.retryAfterMs.value_or(0));
        return;
    case StreamEnd::Reason::Error:
        break;
    case StreamEnd::Reason::Aborted:
        return;
    }
    const RunError &error = end.error;
    if (error.kind == ErrorKind::Run) {
        // An `error` event ends the stream; the JSON object has the authoritative status.
        f.polling = true;
        schedulePoll(id, end.retryAfterMs.value_or(0));
        return;
    }
    if (error.retryable || error.kind == ErrorKind::Network || error.kind == ErrorKind::Timeout) {
        setConnectionLost(id, true);
        scheduleRetry(id, end.retryAfterMs);
        return;
    }
    giveUp(id, error);
}

void RunManager::giveUp(const QString &id, const RunError &error)
{
    Entry *e = entry(id);
    if (!e)
        return;
    e->follower.active = false;
    if (e->follower.timer)
        e->follower.timer->stop();
    e->run.connectionLost = false;
    applyEvents(id, {RunEvent::failure(error)});
    Q_EMIT runChanged(id, RunChange::Status | RunChange::Error);
    Q_EMIT followingStopped(id, error);
}

void RunManager::setConnectionLost(const QString &id, bool lost)
{
    Entry *e = entry(id);
    if (!e || e->run.connectionLost == lost)
        return;
    e->run.connectionLost = lost;
    Q_EMIT runChanged(id, RunChange::Status);
}

namespace {
std::chrono::milliseconds backoff(std::chrono::milliseconds initial, std::chrono::milliseconds max,
                                  int failures)
{
    const int shift = std::min(failures, 16);
    const auto base = std::min<qint64>(max.count(), initial.count() << shift);
    // Full-jitter on the upper quarter keeps many clients from reconnecting in lockstep.
    const double jitter = 1.0 - 0.25 * QRandomGenerator::global()->generateDouble();
    return std::chrono::milliseconds(qint64(double(base) * jitter));
}
} // namespace

void RunManager::startFollowTimer(const QString &id, Follower &f, std::chrono::milliseconds delay)
{
    if (!f.timer) {
        f.timer = new QTimer(this);
        f.timer->setSingleShot(true);
        // A coarse timer may fire up to 5 % early, which would poll before a server's Retry-After.
        f.timer->setTimerType(Qt::PreciseTimer);
        connect(f.timer, &QTimer::timeout, this, [this, id] { resumeNow(id); });
    }
    f.timer->start(delay);
}

void RunManager::scheduleRetry(const QString &id, std::optional<qint64> serverDelayMs)
{
    Entry *e = entry(id);
    if (!e)
        return;
    Follower &f = e->follower;
    ++f.failures;
    if (m_policy.maxConsecutiveFailures >= 0 && f.failures > m_policy.maxConsecutiveFailures) {
        RunError error;
        error.kind = ErrorKind::Network;
        error.message = u"Gave up following after %1 failed attempts."_s.arg(f.failures - 1);
        error.retryable = true;
        giveUp(id, error);
        return;
    }
    auto delay = backoff(m_policy.reconnectInitial, m_policy.reconnectMax, f.failures - 1);
    // The first reconnect after a clean drop is immediate-ish; never sooner than the server asks.
    if (serverDelayMs)
        delay = std::max(delay, std::chrono::milliseconds(*serverDelayMs));
    startFollowTimer(id, f, delay);
}

void RunManager::schedulePoll(const QString &id, std::optional<qint64> serverDelayMs)
{
    Entry *e = entry(id);
    if (!e)
        return;
    Follower &f = e->follower;
    f.polling = true;
    // Without a server hint the interval doubles (with jitter) for every failure and for every
    // poll in a row that changed nothing, up to pollMax; any progress resets it.
    auto delay = backoff(m_policy.pollInitial, m_policy.pollMax, f.failures + f.idlePolls);
    if (serverDelayMs)
        delay = std::max(delay, std::chrono::milliseconds(*serverDelayMs));
    startFollowTimer(id, f, delay);
}

void RunManager::resumeNow(const QString &id)
{
    Entry *e = entry(id);
    if (m_shutDown || !e || !e->follower.active || !needsFollowing(e->run))
        return;
    RunBackend *b = backend(e->run.connection);
    if (!b) {
        RunError error;
        error.kind = ErrorKind::Client;
        error.message = u"The connection \"%1\" is not configured."_s.arg(e->run.connection);
        giveUp(id, error);
        return;
    }
    const bool canStream = e->run.token.streamable && b->capabilities().testFlag(Capability::ResumeStream);
    if (e->follower.polling || !canStream) {
        pollOnce(id);
        return;
    }
    attachStream(id, b->follow(e->run.token, this));
}

QCoro::Task<> RunManager::pollOnce(QString id)
{
    QPointer<RunManager> self = this;
    Entry *e = entry(id);
    if (!e || e->follower.pollInFlight)
        co_return;
    RunBackend *b = backend(e->run.connection);
    if (!b)
        co_return;
    e->follower.pollInFlight = true;
    const ActionResult result = co_await b->get(e->run.token);
    // Gone, or shut down: shutdown() applies and reports nothing of what it cut short.
    if (!self || m_shutDown)
        co_return;
    e = entry(id);
    if (!e)
        co_return;
    e->follower.pollInFlight = false;
    if (!result.ok()) {
        if (isRetryable(result.error)) {
            setConnectionLost(id, true);
            ++e->follower.failures;
            schedulePoll(id, result.retryAfterMs);
        } else {
            giveUp(id, result.error);
        }
        co_return;
    }
    const auto mark = [](const Run &run) {
        return std::tuple(run.status, run.rawStatus, run.primaryText.size(), run.secondary.size(),
                          run.input.has_value());
    };
    const auto before = mark(e->run);
    applyEvents(id, result.events);
    e = entry(id);
    if (!e)
        co_return;
    e->follower.failures = 0;
    e->follower.idlePolls = mark(e->run) == before ? e->follower.idlePolls + 1 : 0;
    setConnectionLost(id, false);
    if (!needsFollowing(e->run)) {
        e->follower.active = false;
        co_return;
    }
    if (e->follower.active)
        schedulePoll(id, result.retryAfterMs);
}

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
    Q_EMIT runChanged(id, RunChange::Primary | RunChange::Secondary);
    return true;
}

void RunManager::follow(const QString &id)
{
    Entry *e = entry(id);
    if (!e)
        return;
    ensureOutputLoaded(id);
    Follower &f = e->follower;
    f.active = true;
    f.failures = 0;
    f.idlePolls = 0;
    f.polling = false;
    if (f.timer)
        f.timer->stop();
    if (f.stream)
        f.stream->abort();
    // A manual resume clears a previous "gave up" error.
    if (e->run.error.isError() && e->run.error.kind != ErrorKind::Run) {
        e->run.error = RunError{};
        Q_EMIT runChanged(id, RunChange::Error);
    }
    if (e->run.remoteId.isEmpty())
        return;
    if (!needsFollowing(e->run)) {
        // Terminal or waiting: refresh once so "Resume" still re-reads the server's state.
        pollOnce(id);
        return;
    }
    resumeNow(id);
}

void RunManager::stopFollowing(const QString &id)
{
    Entry *e = entry(id);
    if (!e)
        return;
    e->follower.active = false;
    if (e->follower.timer)
        e->follower.timer->stop();
    if (e->follower.stream)
        e->follower.stream->abort();
}

bool RunManager::isFollowing(const QString &id) const
{
    const Entry *e = entry(id);
    return e && e->follower.active;
}

void RunManager::refreshRun(const QString &id)
{
    ensureOutputLoaded(id);
    pollOnce(id);
}

void RunManager::cancelRun(const QString &id)
{
    doCancel(id);
}

void RunManager::deleteRun(const QString &id, bool onServer)
{
    doDelete(id, onServer);
}

void RunManager::respondToRun(const QString &id, InputAnswer answer)
{
    doRespond(id, std::move(answer));
}

QCoro::Task<> RunManager::doCancel(QString id)
{
    QPointer<RunManager> self = this;
    Entry *e = entry(id);
    if (!e)
        co_return;
    RunBackend *b = backend(e->run.connection);
    if (e->run.isTerminal()) {
        ActionResult r;
        r.note = u"already "_s + statusName(e->run.status);
        Q_EMIT actionFinished(id, Action::Cancel, r);
        co_return;
    }
    if (e->run.remoteId.isEmpty() || !b || !b->capabilities().testFlag(Capability::Cancel)) {
        ActionResult r;
        r.error.kind = ErrorKind::Client;
        r.error.message = e->run.remoteId.isEmpty() ? u"The run has no server id yet."_s
                                                    : u"This connection cannot cancel runs."_s;
        Q_EMIT actionFinished(id, Action::Cancel, r);
        co_return;
    }
    const RunStatus before = e->run.status;
    const QString rawBefore = e->run.rawStatus;
    applyEvents(id, {RunEvent::statusChange(RunStatus::Cancelling, {})});
    const ActionResult result = co_await b->cancel(e->run.token);
    if (!self || m_shutDown)
        co_return;
    e = entry(id);
    if (!e)
        co_return;
    if (!result.ok()) {
        // Our optimistic "cancelling" did not happen: put the run back as it was.
        if (e->run.status == RunStatus::Cancelling) {
            e->run.status = before;
            e->run.rawStatus = rawBefore;
            persist(id);
            Q_EMIT runChanged(id, RunChange::Status);
        }
    } else {
        applyEvents(id, result.events);
        e = entry(id);
        if (e && !needsFollowing(e->run))
            stopFollowing(id);
        // Cancellation is best effort: keep following until the server says it is terminal.
        if (e && needsFollowing(e->run) && !e->follower.active)
            follow(id);
        else if (e && needsFollowing(e->run) && !e->follower.stream && !e->follower.pollInFlight)
            pollOnce(id);
    }
    Q_EMIT actionFinished(id, Action::Cancel, result);
}

QCoro::Task<> RunManager::doDelete(QString id, bool onServer)
{
    QPointer<RunManager> self = this;
    Entry *e = entry(id);
    if (!e)
        co_return;
    RunBackend *b = backend(e->run.connection);
    ActionResult result;
    if (onServer && !e->run.remoteId.isEmpty()) {
        if (!b || !b->capabilities().testFlag(Capability::Delete)) {
            result.error.kind = ErrorKind::Client;
            result.error.message
                = u"This connection cannot delete runs on the server; remove it locally instead."_s;
            Q_EMIT actionFinished(id, Action::Delete, result);
            co_return;
        }
        stopFollowing(id);
        result = co_await b->remove(e->run.token);
        if (!self || m_shutDown)
            co_return;
        if (!result.ok()) {
            e = entry(id);
            if (e && needsFollowing(e->run))
                follow(id);
            Q_EMIT actionFinished(id, Action::Delete, result);
            co_return;
        }
    }
    stopFollowing(id);
    e = entry(id);
    if (!e)
        co_return;
    if (e->follower.timer)
        e->follower.timer->deleteLater();
    m_runs.remove(id);
    m_order.removeAll(id);
    if (m_store)
        m_store->removeRun(id);
    Q_EMIT runRemoved(id);
    Q_EMIT actionFinished(id, Action::Delete, result);
}

QCoro::Task<> RunManager::doRespond(QString id, InputAnswer answer)
{
    QPointer<RunManager> self = this;
    Entry *e = entry(id);
    if (!e)
        co_return;
    RunBackend *b = backend(e->run.connection);
    if (!b || !b->capabilities().testFlag(Capability::Respond)) {
        ActionResult r;
        r.error.kind = ErrorKind::Client;
        r.error.message = u"This connection does not accept answers."_s;
        Q_EMIT actionFinished(id, Action::Respond, r);
        co_return;
    }
    const ActionResult result = co_await b->respond(e->run.token, std::move(answer));
    if (!self || m_shutDown)
        co_return;
    if (result.ok()) {
        applyEvents(id, result.events);
        if (Entry *again = entry(id); again && needsFollowing(again->run))
            follow(id);
    }
    Q_EMIT actionFinished(id, Action::Respond, result);
}

QCoro::Task<> RunManager::doAttach(QString id, bool created)
{
    QPointer<RunManager> self = this;
    Entry *e = entry(id);
    if (!e)
        co_return;
    RunBackend *b = backend(e->run.connection);
    if (!b)
        co_return;
    e->follower.pollInFlight = true;
    const ActionResult result = co_await b->get(e->run.token);
    if (!self || m_shutDown)
        co_return;
    e = entry(id);
    if (!e)
        co_return;
    e->follower.pollInFlight = false;
    if (!result.ok()) {
        if (created && !isRetryable(result.error)) {
            // Nothing to follow: the server does not know this id or will not show it to us.
            removeLocal(id);
        } else {
            // A network hiccup: following retries with backoff and reports if it gives up.
            follow(id);
        }
        Q_EMIT actionFinished(id, Action::Refresh, result);
        co_return;
    }
    applyEvents(id, result.events);
    e = entry(id);
    if (e && needsFollowing(e->run))
        follow(id);
    Q_EMIT actionFinished(id, Action::Refresh, result);
}

void RunManager::removeLocal(const QString &id)
{
    stopFollowing(id);
    Entry *e = entry(id);
    if (!e)
        return;
    if (e->follower.timer)
        e->follower.timer->deleteLater();
    m_runs.remove(id);
    m_order.removeAll(id);
    if (m_store)
        m_store->removeRun(id);
    Q_EMIT runRemoved(id);
}

void RunManager::persist(const QString &id)
{
    if (!m_store)
        return;
    if (const Entry *e = entry(id))
        m_store->scheduleSave(e->run);
}

} // namespace Runwatch
