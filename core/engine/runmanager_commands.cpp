// SPDX-License-Identifier: GPL-3.0-or-later
// RunManager executing the operator's commands: refresh, cancel, delete, respond, attach.
#include "runmanager.h"

#include "runmanager_p.h"

#include "net/httperrors.h"
#include "store/runstore.h"
#include "json/jsonschema.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTimer>
#include <QUuid>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// Which input request an answer is for, the same in every process that reads the run from the
// store: the remote object and the request as the service sent it (its call ids, its prompt).
QString answerKey(const Run &run)
{
    QByteArray material = run.remoteId.toUtf8() + '\n';
    if (run.input)
        material += QJsonDocument(run.input->toJson()).toJson(QJsonDocument::Compact);
    return QString::fromLatin1(QCryptographicHash::hash(material, QCryptographicHash::Sha256).toHex());
}

// The answer as the journal says it: what was sent, short of the form's whole JSON.
QString describeAnswer(const InputAnswer &answer)
{
    if (!answer.toolAnswers.isEmpty()) {
        QStringList parts;
        for (const ToolCallAnswer &a : answer.toolAnswers) {
            parts << (a.output.isEmpty()
                          ? u"%1: %2"_s.arg(a.callId, a.approved ? u"approved"_s : u"rejected"_s)
                          : u"%1=%2"_s.arg(a.callId, a.output));
        }
        return parts.join(u"; "_s);
    }
    switch (answer.kind) {
    case InputAnswer::Kind::Approve:
        return answer.comment.isEmpty() ? u"approved"_s : u"approved: "_s + answer.comment;
    case InputAnswer::Kind::Reject:
        return answer.comment.isEmpty() ? u"rejected"_s : u"rejected: "_s + answer.comment;
    case InputAnswer::Kind::Choice:
        return answer.choice;
    case InputAnswer::Kind::Value:
        return QString::fromUtf8(QJsonDocument(QJsonArray{answer.value}).toJson(QJsonDocument::Compact))
            .mid(1)
            .chopped(1);
    case InputAnswer::Kind::Text:
        break;
    }
    return answer.text;
}
} // namespace

void RunManager::journal(const QString &id, const QString &action, const QString &detail)
{
    if (m_store)
        m_store->addJournal(id, action, detail);
}

void RunManager::refreshRun(const QString &id)
{
    ensureOutputLoaded(id);
    pollOnce(id, true);
}

void RunManager::cancelRun(const QString &id)
{
    doCancel(id);
}

void RunManager::deleteRun(const QString &id, bool onServer)
{
    doDelete(id, onServer);
}

bool RunManager::setDeadline(const QString &id, const QDateTime &deadlineAt, bool cancelAtDeadline,
                             QString *error)
{
    Entry *e = entry(id);
    if (!e || e->run.isTerminal()) {
        if (error) {
            *error = e ? QCoreApplication::translate("RunManager", "The run has already finished.")
                       : QCoreApplication::translate("RunManager", "No such run.");
        }
        return false;
    }
    e->run.deadlineAt = deadlineAt.isValid() ? deadlineAt.toUTC() : QDateTime();
    e->run.cancelAtDeadline = deadlineAt.isValid() && cancelAtDeadline;
    persist(id);
    journal(id, u"deadline"_s,
            !e->run.deadlineAt.isValid() ? u"cleared"_s
                                         : e->run.deadlineAt.toString(Qt::ISODate)
                                               + (e->run.cancelAtDeadline ? u", cancel"_s : QString()));
    Q_EMIT runChanged(id, RunChange::Deadline);
    return true;
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
        refuse(id, Action::Cancel,
               e->run.remoteId.isEmpty()
                   ? QCoreApplication::translate("RunManager", "The run has no server id yet.")
                   : QCoreApplication::translate("RunManager", "This connection cannot cancel runs."));
        co_return;
    }
    const RunStatus before = e->run.status;
    const QString rawBefore = e->run.rawStatus;
    journal(id, u"cancel"_s, {});
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
        if (e && e->run.status == RunStatus::Cancelling)
            armCancelCheck(id);
        if (e && !needsFollowing(e->run))
            stopFollowing(id);
        // Cancellation is best effort: keep following until the server says it is terminal.
        if (e && needsFollowing(e->run) && !e->follower.active) {
            follow(id);
        } else if (e && needsFollowing(e->run) && !e->follower.stream && !e->follower.pollInFlight) {
            pollOnce(id);
        }
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
            refuse(id, Action::Delete,
                   QCoreApplication::translate(
                       "RunManager",
                       "This connection cannot delete runs on the server; remove it locally instead."));
            co_return;
        }
        stopFollowing(id);
        journal(id, u"delete"_s, u"on the server"_s);
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
    if (!entry(id))
        co_return;
    removeLocal(id);
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
        refuse(id, Action::Respond,
               QCoreApplication::translate("RunManager", "This connection does not accept answers."));
        co_return;
    }
    // A typed answer that does not fit the form the run asked for never leaves: the front ends
    // check it as it is typed, and this is the last gate.
    if (answer.kind == InputAnswer::Kind::Value && e->run.input && !e->run.input->schema.isEmpty()) {
        if (const QStringList problems = validateJson(e->run.input->schema, answer.value);
            !problems.isEmpty()) {
            refuse(id, Action::Respond, problems.join(u"; "_s));
            co_return;
        }
    }
    // Answered once for the team: the first process to claim this request sends its answer; a
    // second, at the same moment or later, is refused before anything leaves.
    const QString key = answerKey(e->run);
    bool claimed = false;
    if (m_store && m_store->isOpen()) {
        RunStore::AnswerClaim claim;
        if (e->run.status == RunStatus::InputRequired) {
            claim = m_store->claimAnswer(id, key);
            claimed = claim.ours;
        } else if (std::optional<RunStore::AnswerClaim> last = m_store->lastAnswer(id)) {
            // No longer waiting, as this process read it: answered (the answer moved it on).
            claim = *last;
        } else {
            claim.ours = true; // the service judges an answer to a run that does not wait
        }
        if (!claim.ours && !claim.failed) {
            refuse(id, Action::Respond,
                   QCoreApplication::translate("RunManager", "This request was already answered by %1 at %2.")
                       .arg(claim.operatorName + u'@' + claim.host,
                            claim.at.toLocalTime().toString(Qt::ISODate)));
            co_return;
        }
    }
    const QString detail = describeAnswer(answer);
    const quint64 updatesBefore = e->updates;
    const ActionResult result = co_await b->respond(e->run.token, std::move(answer));
    if (!self || m_shutDown)
        co_return;
    if (m_store) {
        // Not taken: free for another try (here or elsewhere). Taken: said in the journal.
        if (!result.ok()) {
            if (claimed)
                m_store->releaseAnswer(id, key);
        } else {
            journal(id, u"respond"_s, detail);
        }
    }
    Entry *again = entry(id);
    if (result.ok() && again) {
        // The reply says how the run was when the service took the answer. Whatever the run's
        // event stream reported while the reply was on its way came after that (the job went on,
        // asked its next question): then the reply is older than the run and is not applied.
        if (again->updates == updatesBefore)
            applyEvents(*again, id, result.events);
        if (needsFollowing(again->run))
            follow(id);
    }
    if (!result.ok() && again && result.error.kind != ErrorKind::Cancelled) {
        // The run stays waiting; its timeline says that an answer went out and why it was not
        // taken, so a failure in a batch of twenty is not only a line in a dialog long closed.
        const RunEvent note = RunEvent::secondarySnapshot(
            SecondaryKind::Log, u"respond-failed:"_s + QUuid::createUuid().toString(QUuid::WithoutBraces),
            QCoreApplication::translate("RunManager", "answer not taken"), result.error.toString());
        applyEvents(*again, id, {note});
    }
    Q_EMIT actionFinished(id, Action::Respond, result);
}

QCoro::Task<> RunManager::doFollowUpWorking(QString id, QString prompt)
{
    QPointer<RunManager> self = this;
    Entry *e = entry(id);
    RunBackend *b = e ? backend(e->run.connection) : nullptr;
    if (!b)
        co_return;
    journal(id, u"follow-up"_s, prompt);
    ActionResult result = co_await b->followUp(e->run.token, std::move(prompt));
    if (!self || m_shutDown)
        co_return;
    e = entry(id);
    if (!e)
        co_return;
    if (result.ok()) {
        applyEvents(id, result.events);
    } else {
        // Non-destructive: the run stays as the service has it and is still followed; the
        // refusal is said on the run (its error and a line in its timeline), nothing else changes.
        const RunError &error = result.error;
        applyEvents(id,
                    {RunEvent::failure(error),
                     RunEvent::secondarySnapshot(
                         SecondaryKind::Log,
                         u"followup-refused:"_s + QUuid::createUuid().toString(QUuid::WithoutBraces),
                         QCoreApplication::translate("RunManager", "follow-up not taken"), error.message)});
    }
    e = entry(id);
    if (e && needsFollowing(e->run) && !e->follower.active)
        follow(id);
    Q_EMIT actionFinished(id, Action::FollowUp, result);
}

QCoro::Task<> RunManager::doAttach(QString id, bool created)
{
    QPointer<RunManager> self = this;
    const std::optional<ActionResult> fetched = co_await fetchState(id);
    if (!self || !fetched)
        co_return;
    const ActionResult &result = *fetched;
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
    adoptEarlierTurns(id, result);
    if (const Entry *e = entry(id); e && needsFollowing(e->run))
        follow(id);
    Q_EMIT actionFinished(id, Action::Refresh, result);
}

void RunManager::adoptEarlierTurns(const QString &id, const ActionResult &result)
{
    Entry *e = entry(id);
    if (!e)
        return;
    Run &attached = e->run;
    bool changed = false;
    if (attached.prompt.isEmpty() && !result.prompt.isEmpty()) {
        attached.prompt = result.prompt;
        // A title given by the caller (the Browse dialog's) stays; the remote id is no title.
        if (attached.title.isEmpty() || attached.title == attached.remoteId)
            attached.title = Run::summarize(result.prompt);
        changed = true;
    }
    // Chained already (a reattach, or a follow-up made here): the conversation is in place.
    if (!attached.parentId.isEmpty() || result.earlierTurns.isEmpty()) {
        if (changed) {
            persist(id);
            Q_EMIT runChanged(id, RunChange::Identity);
        }
        return;
    }
    // What the loop needs of the attached run, as values: runAdded's slots run in between.
    const QString connection = attached.connection;
    const QString remoteId = attached.remoteId;
    const QDateTime attachedAt = attached.createdAt;
    // A turn this process has already, from another attach of the same conversation: the run of
    // that remote id whose token holds what the turn's identity names (its turn on the service).
    const auto known = [&](const QJsonObject &names) -> QString {
        if (names.isEmpty())
            return {};
        for (const QString &other : std::as_const(m_order)) {
            const Entry *o = entry(other);
            if (!o || other == id || o->run.connection != connection || o->run.remoteId != remoteId)
                continue;
            bool same = true;
            for (auto it = names.constBegin(); same && it != names.constEnd(); ++it)
                same = o->run.token.extra.value(it.key()) == it.value();
            if (same)
                return other;
        }
        return {};
    };
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const qsizetype count = result.earlierTurns.size();
    QString parent;
    for (qsizetype i = 0; i < count; ++i) {
        const EarlierTurn &turn = result.earlierTurns.at(i);
        QJsonObject names;
        for (const RunEvent &event : turn.events) {
            if (event.type == RunEvent::Type::Identity) {
                for (auto it = event.tokenExtra.constBegin(); it != event.tokenExtra.constEnd(); ++it)
                    names.insert(it.key(), it.value());
            }
        }
        if (const QString existing = known(names); !existing.isEmpty()) {
            parent = existing;
            continue;
        }
        auto earlier = std::make_shared<Entry>();
        earlier->run = newRun(connection);
        Run &run = earlier->run;
        run.remoteId = remoteId;
        run.token.remoteId = remoteId;
        run.prompt = turn.prompt;
        run.title = Run::summarize(turn.prompt.isEmpty() ? remoteId : turn.prompt);
        run.parentId = parent;
        run.deadlineAt = {}; // over already: no time budget to watch
        run.status = RunStatus::Unknown;
        // Before the attached run, in the conversation's order: the listings and the lookup of a
        // remote id's latest run (attachRemoteRun) go by creation time.
        run.createdAt = attachedAt.addMSecs(-(count - i));
        for (const RunEvent &event : turn.events)
            applyEvent(run, event, now);
        // An earlier turn is over: the service went on to the next one. One whose end the history
        // does not show is taken as done rather than followed for ever.
        if (!run.isTerminal()) {
            applyEvent(run, RunEvent::statusChange(RunStatus::Completed, run.rawStatus), now);
            run.input.reset();
        }
        parent = run.localId;
        addEntry(earlier);
        persist(parent);
    }
    e = entry(id);
    if (!e)
        return;
    e->run.parentId = parent;
    persist(id);
    Q_EMIT runChanged(id, RunChange::Identity);
}

void RunManager::refuse(const QString &id, Action action, const QString &message)
{
    ActionResult r;
    r.error = RunError::client({}, message);
    Q_EMIT actionFinished(id, action, r);
}

} // namespace Runwatch
