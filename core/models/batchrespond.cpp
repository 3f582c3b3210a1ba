// SPDX-License-Identifier: GPL-3.0-or-later
#include "batchrespond.h"

#include "runactions.h"
#include "runfilter.h"

#include <QCoreApplication>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

// Approval-only tool calls are answered by one decision for all (answersForToolCalls()).
bool onlyApprovalCalls(const InputRequest &request)
{
    for (const ToolCallRequest &call : request.toolCalls) {
        if (!call.approval)
            return false;
    }
    return true;
}

bool isApproval(const InputRequest &request)
{
    if (!request.schema.isEmpty())
        return false;
    if (!request.toolCalls.isEmpty())
        return onlyApprovalCalls(request);
    return request.reason == InputReason::Approval;
}

bool allows(const InputRequest &request, bool approve)
{
    for (const ToolCallRequest &call : request.toolCalls) {
        if (!(approve ? call.approveAllowed : call.rejectAllowed))
            return false;
    }
    return true;
}

QString describeRequest(const Run &run)
{
    if (!run.input)
        return QCoreApplication::translate("BatchRespond", "no details of its request");
    switch (run.input->reason) {
    case InputReason::Question:
        return QCoreApplication::translate("BatchRespond", "a question");
    case InputReason::Approval:
        return QCoreApplication::translate("BatchRespond", "an approval");
    case InputReason::Options:
        return QCoreApplication::translate("BatchRespond", "a choice");
    case InputReason::ToolOutput:
        return QCoreApplication::translate("BatchRespond", "tool outputs");
    case InputReason::Auth:
        return QCoreApplication::translate("BatchRespond", "a sign-in");
    case InputReason::Timer:
        return QCoreApplication::translate("BatchRespond", "a timer");
    case InputReason::Webhook:
        return QCoreApplication::translate("BatchRespond", "a callback");
    }
    return {};
}

} // namespace

QString batchKeyFor(const Run &run)
{
    if (!waitsForPerson(run) || !run.input)
        return {};
    const InputRequest &in = *run.input;
    if (isApproval(in))
        return u"approval"_s;
    if (!in.toolCalls.isEmpty() || !in.schema.isEmpty())
        return {};
    // The prompt is part of the key: "the same question" is the same words, not a similar one.
    if (in.reason == InputReason::Question)
        return u"question\n"_s + in.prompt.trimmed();
    if (in.reason == InputReason::Options && !in.options.isEmpty())
        return u"options\n"_s + in.prompt.trimmed() + u"\n\n"_s + in.options.join(u'\n');
    return {};
}

BatchKind batchKindOf(const QString &key)
{
    if (key == u"approval")
        return BatchKind::Approval;
    if (key.startsWith(u"question\n"))
        return BatchKind::Question;
    if (key.startsWith(u"options\n"))
        return BatchKind::Choice;
    return BatchKind::None;
}

std::optional<BatchRequest> batchRequestFor(const QList<Run> &runs, QString *why)
{
    const auto fail = [why](const QString &reason) -> std::optional<BatchRequest> {
        if (why)
            *why = reason;
        return std::nullopt;
    };
    if (runs.size() < 2)
        return fail(QCoreApplication::translate("BatchRespond", "A batch needs at least two runs."));
    BatchRequest batch;
    QString key;
    for (const Run &run : runs) {
        const QString k = batchKeyFor(run);
        if (k.isEmpty()) {
            return fail(
                QCoreApplication::translate("BatchRespond", "%1 waits for %2, which is answered run by run.")
                    .arg(run.title.isEmpty() ? run.localId : run.title, describeRequest(run)));
        }
        if (key.isEmpty()) {
            key = k;
            batch.kind = batchKindOf(k);
            batch.prompt = run.input->prompt;
            batch.options = run.input->options;
        } else if (k != key) {
            return fail(QCoreApplication::translate(
                "BatchRespond",
                "The runs wait for different requests; select runs that wait for the same one."));
        }
        batch.approveAllowed = batch.approveAllowed && allows(*run.input, true);
        batch.rejectAllowed = batch.rejectAllowed && allows(*run.input, false);
        batch.runIds.append(run.localId);
    }
    return batch;
}

QString batchAnswerMismatch(const Run &run, const InputAnswer &answer)
{
    if (run.status != RunStatus::InputRequired || !run.input)
        return QCoreApplication::translate("BatchRespond", "The run is not waiting for input.");
    const BatchKind kind = batchKindOf(batchKeyFor(run));
    switch (answer.kind) {
    case InputAnswer::Kind::Approve:
    case InputAnswer::Kind::Reject: {
        if (kind != BatchKind::Approval) {
            return QCoreApplication::translate("BatchRespond", "The run waits for %1, not an approval.")
                .arg(describeRequest(run));
        }
        const bool approve = answer.kind == InputAnswer::Kind::Approve;
        if (!allows(*run.input, approve)) {
            return approve ? QCoreApplication::translate("BatchRespond",
                                                         "The run's review does not allow approving.")
                           : QCoreApplication::translate("BatchRespond",
                                                         "The run's review does not allow rejecting.");
        }
        return {};
    }
    case InputAnswer::Kind::Text:
        if (kind != BatchKind::Question) {
            return QCoreApplication::translate("BatchRespond",
                                               "The run waits for %1, not an answer in words.")
                .arg(describeRequest(run));
        }
        if (answer.text.trimmed().isEmpty())
            return QCoreApplication::translate("BatchRespond", "The answer is empty.");
        return {};
    case InputAnswer::Kind::Choice:
        if (kind != BatchKind::Choice) {
            return QCoreApplication::translate("BatchRespond", "The run waits for %1, not a choice.")
                .arg(describeRequest(run));
        }
        if (!run.input->options.contains(answer.choice)) {
            return QCoreApplication::translate("BatchRespond", "“%1” is not one of the run's options.")
                .arg(answer.choice);
        }
        return {};
    case InputAnswer::Kind::Value:
        break;
    }
    return QCoreApplication::translate("BatchRespond", "A typed answer goes to one run at a time.");
}

BatchResponder::BatchResponder(RunManager *manager, QObject *parent)
    : QObject(parent)
    , m_manager(manager)
{
    if (manager) {
        connect(manager, &RunManager::actionFinished, this,
                [this](const QString &id, RunManager::Action action, const ActionResult &result) {
                    if (action == RunManager::Action::Respond)
                        settle(id, result);
                });
    }
}

void BatchResponder::start(const QStringList &runIds, const InputAnswer &answer)
{
    m_started = true;
    m_order.clear();
    m_outcomes.clear();
    QStringList toSend;
    for (const QString &id : runIds) {
        if (m_outcomes.contains(id))
            continue; // the same run named twice gets one answer
        m_order.append(id);
        BatchOutcome outcome;
        outcome.runId = id;
        m_outcomes.insert(id, outcome);
        const Run *run = m_manager ? m_manager->run(id) : nullptr;
        QString why;
        if (!run) {
            why = QCoreApplication::translate("BatchRespond", "No such run.");
        } else if (!actionStateFor(*run, m_manager->isFollowing(id)).respond) {
            why = run->capabilities.testFlag(Capability::Respond)
                      ? QCoreApplication::translate("BatchRespond",
                                                    "The run is no longer waiting for an answer.")
                      : QCoreApplication::translate("BatchRespond",
                                                    "This connection does not accept answers.");
        } else {
            why = batchAnswerMismatch(*run, answer);
        }
        if (!why.isEmpty()) {
            BatchOutcome &refused = m_outcomes[id];
            refused.done = true;
            refused.error = RunError::client({}, why);
            continue;
        }
        toSend.append(id);
    }
    // Counted before anything is sent: the engine may refuse synchronously, inside respondToRun.
    m_pending = int(toSend.size());
    for (const QString &id : std::as_const(toSend))
        m_manager->respondToRun(id, answer);
    for (const QString &id : std::as_const(m_order)) {
        if (!toSend.contains(id))
            Q_EMIT runAnswered(m_outcomes.value(id));
    }
    if (m_pending == 0)
        QMetaObject::invokeMethod(this, &BatchResponder::finished, Qt::QueuedConnection);
}

void BatchResponder::settle(const QString &id, const ActionResult &result)
{
    auto it = m_outcomes.find(id);
    if (it == m_outcomes.end() || it->done)
        return;
    it->done = true;
    it->ok = result.ok();
    it->error = result.error;
    --m_pending;
    Q_EMIT runAnswered(*it);
    if (m_pending == 0)
        Q_EMIT finished();
}

QList<BatchOutcome> BatchResponder::outcomes() const
{
    QList<BatchOutcome> list;
    for (const QString &id : m_order)
        list.append(m_outcomes.value(id));
    return list;
}

int BatchResponder::failedCount() const
{
    int failed = 0;
    for (const BatchOutcome &o : m_outcomes)
        failed += o.done && !o.ok ? 1 : 0;
    return failed;
}

} // namespace Runwatch
