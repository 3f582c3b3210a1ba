// SPDX-License-Identifier: GPL-3.0-or-later
// RunManager following runs: by stream, reconnecting with backoff, or by polling when the server
// will not stream.
#include "runmanager.h"

#include "runmanager_p.h"

#include "domain/boundedwait.h"
#include "net/httperrors.h"

#include <QCoreApplication>
#include <QRandomGenerator>
#include <QTimer>

using namespace Qt::StringLiterals;

namespace Runwatch {

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

void RunManager::attachStream(const QString &id, RunStream *stream)
{
    const std::shared_ptr<Entry> e = m_runs.value(id);
    if (!e || !stream)
        return;
    if (e->follower.stream)
        e->follower.stream->abort();
    e->follower.stream = stream;
    stream->setRelaxed(m_inView && !m_inView->contains(id));
    // The entry itself rather than a lookup by id for every batch (a cold hash probe per live
    // stream per frame); a stream that outlives its run delivers nowhere.
    connect(stream, &RunStream::eventsReceived, this,
            [this, id, weak = std::weak_ptr<Entry>(e)](const QList<RunEvent> &events) {
                if (const std::shared_ptr<Entry> alive = weak.lock())
                    applyEvents(*alive, id, events);
            });
    connect(stream, &RunStream::finished, this, [this, id, stream](const StreamEnd &end) {
        stream->deleteLater();
        Entry *e = entry(id);
        if (e && e->follower.stream == stream)
            e->follower.stream = nullptr;
        onStreamFinished(id, end);
    });
}

void RunManager::setRunsInView(const QStringList &ids)
{
    QSet<QString> inView(ids.cbegin(), ids.cend());
    const bool first = !m_inView;
    for (auto it = m_runs.cbegin(); it != m_runs.cend(); ++it) {
        RunStream *stream = (*it)->follower.stream;
        const bool shown = inView.contains(it.key());
        if (stream && (first || shown != m_inView->contains(it.key())))
            stream->setRelaxed(!shown);
    }
    m_inView = std::move(inView);
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
        clearConnectionLost(id);
        watchDeadline(id);
        return;
    }
    if (run.remoteId.isEmpty()) {
        // The create request failed before the server told us the run's id: nothing to follow.
        const RunError error
            = end.error.isError()
                  ? end.error
                  : RunError::protocol(
                      {}, QCoreApplication::translate(
                              "RunManager", "The server closed the connection before identifying the run."));
        f.active = false;
        applyEvents(id,
                    {RunEvent::failure(error), RunEvent::statusChange(RunStatus::Failed, u"start_failed"_s)});
        ActionResult failed;
        failed.error = error;
        Q_EMIT actionFinished(id, Action::Start, failed);
        return;
    }
    switch (end.reason) {
    case StreamEnd::Reason::Terminal:
    case StreamEnd::Reason::Eof:
        // Closed before the run finished (or a terminal event left it non-terminal): continue.
        retryAfterFailure(id,
                          end.error.isError() ? end.error.message
                                              : QCoreApplication::translate(
                                                  "RunManager", "The event stream ended before the run did."),
                          end.retryAfterMs);
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
        retryAfterFailure(id, error.message, end.retryAfterMs);
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
    e->run.nextTryAt = {};
    e->run.failedTries = 0;
    e->run.lostReason.clear();
    applyEvents(id, {RunEvent::failure(error)});
    Q_EMIT runChanged(id, RunChange::Status | RunChange::Error);
    Q_EMIT followingStopped(id, error);
}

void RunManager::clearConnectionLost(const QString &id)
{
    Entry *e = entry(id);
    if (!e)
        return;
    e->follower.troubleSince.invalidate();
    if (!e->run.connectionLost)
        return;
    e->run.connectionLost = false;
    e->run.nextTryAt = {};
    e->run.failedTries = 0;
    e->run.lostReason.clear();
    Q_EMIT runChanged(id, RunChange::Status);
}

namespace {
std::chrono::milliseconds exponential(std::chrono::milliseconds initial, std::chrono::milliseconds max,
                                      int failures)
{
    const int shift = std::clamp(failures, 0, 16);
    return boundedWait(std::min<qint64>(max.count(), initial.count() << shift));
}

// Polls keep most of their interval (an idle poll's doubling is the point): jitter on the upper
// quarter is enough to keep one client's runs apart.
std::chrono::milliseconds pollBackoff(std::chrono::milliseconds initial, std::chrono::milliseconds max,
                                      int failures)
{
    const auto base = exponential(initial, max, failures);
    const double jitter = 1.0 - 0.25 * QRandomGenerator::global()->generateDouble();
    return std::chrono::milliseconds(qint64(double(base.count()) * jitter));
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
    f.timer->start(boundedWait(delay));
}

void RunManager::retryAfterFailure(const QString &id, const QString &reason,
                                   std::optional<qint64> serverDelayMs)
{
    Entry *e = entry(id);
    if (!e)
        return;
    Follower &f = e->follower;
    ++f.failures;
    if (!f.troubleSince.isValid())
        f.troubleSince.start();
    // A poll that fails backs off on the polling scale (which also counts polls that found nothing
    // new); a stream on the reconnect scale, starting almost at once after a first clean drop.
    // Streams reconnect with full jitter: runs dropped together by one network blip spread over
    // the whole window rather than returning in a burst.
    auto delay
        = f.polling
              ? pollBackoff(m_policy.pollInitial, m_policy.pollMax, f.failures + f.idlePolls)
              : fullJitter(exponential(m_policy.reconnectInitial, m_policy.reconnectMax, f.failures - 1));
    const auto serverDelay = boundedWait(serverDelayMs.value_or(0));
    if (m_policy.giveUpAfter.count() > 0) {
        const auto spent = std::chrono::milliseconds(f.troubleSince.elapsed());
        const auto left = m_policy.giveUpAfter - spent;
        // The last try comes at the bound, not after it; a server that asks to wait past the bound
        // ends it now rather than being asked early.
        if (left.count() <= 0 || serverDelay > left) {
            RunError error;
            error.kind = ErrorKind::Network;
            error.code = u"gave_up"_s;
            error.message
                = QCoreApplication::translate(
                      "RunManager", "Stopped following after %1 s without progress (the give-up bound): %2")
                      .arg(formatSeconds(spent.count()), reason);
            // The run may still be live on the server: following it again may succeed.
            error.retryable = true;
            giveUp(id, error);
            return;
        }
        delay = std::min(delay, left);
    }
    // Never sooner than the server asks.
    delay = std::max(delay, serverDelay);
    Run &run = e->run;
    run.connectionLost = true;
    run.nextTryAt = QDateTime::currentDateTimeUtc().addMSecs(delay.count());
    run.failedTries = f.failures;
    run.lostReason = reason;
    Q_EMIT runChanged(id, RunChange::Status);
    startFollowTimer(id, f, delay);
}

void RunManager::schedulePoll(const QString &id, std::optional<qint64> serverDelayMs)
{
    Entry *e = entry(id);
    if (!e)
        return;
    Follower &f = e->follower;
    f.polling = true;
    // Without a server hint the interval doubles (with jitter) for every poll in a row that
    // changed nothing, up to pollMax; any progress resets it.
    auto delay = pollBackoff(m_policy.pollInitial, m_policy.pollMax, f.failures + f.idlePolls);
    if (serverDelayMs)
        delay = std::max(delay, boundedWait(*serverDelayMs));
    startFollowTimer(id, f, delay);
}

void RunManager::resumeNow(const QString &id)
{
    Entry *e = entry(id);
    if (m_shutDown || !e || !e->follower.streamsHere() || !needsFollowing(e->run))
        return;
    RunBackend *b = backend(e->run.connection);
    if (!b) {
        giveUp(id, RunError::client({}, QCoreApplication::translate(
                                            "RunManager", "The connection \"%1\" is not configured.")
                                            .arg(e->run.connection)));
        return;
    }
    const bool canStream = e->run.token.streamable && b->capabilities().testFlag(Capability::ResumeStream);
    if (e->follower.polling || !canStream) {
        pollOnce(id);
        return;
    }
    attachStream(id, b->follow(e->run.token, this));
}

QCoro::Task<std::optional<ActionResult>> RunManager::fetchState(QString id)
{
    QPointer<RunManager> self = this;
    Entry *e = entry(id);
    if (!e)
        co_return std::nullopt;
    RunBackend *b = backend(e->run.connection);
    if (!b)
        co_return std::nullopt;
    e->follower.pollInFlight = true;
    ActionResult result = co_await b->get(e->run.token);
    // Gone, or shut down: shutdown() applies and reports nothing of what it cut short.
    if (!self || m_shutDown)
        co_return std::nullopt;
    e = entry(id);
    if (!e)
        co_return std::nullopt;
    e->follower.pollInFlight = false;
    co_return result;
}

QCoro::Task<> RunManager::pollOnce(QString id, bool report)
{
    QPointer<RunManager> self = this;
    if (const Entry *polled = entry(id); !polled || polled->follower.pollInFlight)
        co_return;
    const std::optional<ActionResult> fetched = co_await fetchState(id);
    Entry *e = self && fetched ? entry(id) : nullptr;
    if (!e)
        co_return;
    const ActionResult &result = *fetched;
    if (!result.ok()) {
        if (isRetryable(result.error)) {
            e->follower.polling = true;
            retryAfterFailure(id, result.error.message, result.retryAfterMs);
        } else {
            giveUp(id, result.error);
        }
        if (report && self)
            Q_EMIT actionFinished(id, Action::Refresh, result);
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
    clearConnectionLost(id);
    if (report) {
        // Reported before the follow-up scheduling below, which cannot remove the run.
        Q_EMIT actionFinished(id, Action::Refresh, result);
        e = self ? entry(id) : nullptr;
        if (!e)
            co_return;
    }
    if (!needsFollowing(e->run)) {
        e->follower.active = false;
        watchDeadline(id);
        co_return;
    }
    if (e->follower.active)
        schedulePoll(id, result.retryAfterMs);
}

void RunManager::watchDeadline(const QString &id)
{
    Entry *e = entry(id);
    if (m_shutDown || !e || e->run.status != RunStatus::InputRequired || !e->run.input
        || !e->run.input->deadline.isValid())
        return;
    const QDateTime deadline = e->run.input->deadline;
    if (deadline != e->watchedDeadline) {
        e->watchedDeadline = deadline;
        e->deadlineChecks = 0;
    }
    // The service's clock and ours differ a little, and it may take a moment to notice: read a
    // second after the deadline, then back off (2, 4, 8 … s) and stop after a few reads, so a
    // service that keeps the run waiting is not polled for ever.
    constexpr int kMaxChecks = 6;
    if (e->deadlineChecks >= kMaxChecks)
        return;
    const qint64 untilDeadline = QDateTime::currentDateTimeUtc().msecsTo(deadline);
    const qint64 delay
        = e->deadlineChecks == 0 ? qMax<qint64>(untilDeadline, 0) + 1000 : qint64(1000) << e->deadlineChecks;
    if (delay > kMaxTimerWait.count()) {
        // Further away than a timer waits: look again then, without spending one of the reads.
        if (std::exchange(e->farDeadlineArmed, true))
            return;
        QTimer::singleShot(kMaxTimerWait, this, [this, id] {
            if (Entry *e = entry(id)) {
                e->farDeadlineArmed = false;
                watchDeadline(id);
            }
        });
        return;
    }
    ++e->deadlineChecks;
    QTimer::singleShot(std::chrono::milliseconds(delay), this, [this, id, deadline] {
        const Entry *e = entry(id);
        if (m_shutDown || !e || e->run.status != RunStatus::InputRequired || !e->run.input
            || e->run.input->deadline != deadline)
            return;
        pollOnce(id);
    });
}

void RunManager::follow(const QString &id)
{
    Entry *e = entry(id);
    if (!e)
        return;
    ensureOutputLoaded(id);
    Follower &f = e->follower;
    f.active = true;
    wakeStoreSync();
    f.failures = 0;
    f.idlePolls = 0;
    f.troubleSince.invalidate();
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
    // One stream per run across the team: while another process follows it, this one shows it
    // from the store (and takes over when that process goes).
    if (!takeLease(id)) {
        // Read with the others found followed elsewhere in this turn (`resume` of a shared store).
        takeChangesFromStore({id});
        return;
    }
    if (endedInStore(id))
        return;
    resumeNow(id);
}

void RunManager::stopFollowing(const QString &id)
{
    Entry *e = entry(id);
    if (!e)
        return;
    e->follower.active = false;
    e->follower.tailing = false;
    if (e->follower.timer)
        e->follower.timer->stop();
    if (e->follower.stream)
        e->follower.stream->abort();
    releaseLease(id);
}

bool RunManager::isFollowing(const QString &id) const
{
    const Entry *e = entry(id);
    return e && e->follower.active;
}

} // namespace Runwatch
