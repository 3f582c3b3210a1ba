// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/run.h"
#include "engine/runmanager.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QStringList>

#include <optional>

namespace Runwatch {

// Answering several runs in one step (issue 31). The rule both front ends apply: which runs wait
// for "the same kind" of request, whether an answer fits a run, and the per-run outcome of
// sending it. Each run still gets its own request through RunManager::respondToRun(), the path of
// a single answer (same checks, same timeline entry), so a batch is never more than N answers.

// What a batch answers with, by the kind of request its runs wait for.
enum class BatchKind {
    None,     // not batchable: tool outputs, typed forms, sign-ins, timers, webhooks, …
    Approval, // approve or reject (a job's approval, approval-only tool calls)
    Question, // the same free-text question, word for word
    Choice,   // the same question with the same options
};

// The "same kind" key of a run's request: two runs can be answered together exactly when their
// keys are equal and not empty. Empty for a run that waits for no person's answer, or for one
// whose request has no answer that fits every run alike:
// - approvals: every run whose request is an approval (InputReason::Approval, or approval tool
//   calls only), whatever its prompt says — "approve these 20" is the operator's call;
// - a question: InputReason::Question without tool calls or a form, the same prompt (trimmed);
// - options: InputReason::Options with the same prompt and the same options in the same order.
// A tool output, a typed form (a JSON Schema) or a sign-in is particular to its run: never batched.
QString batchKeyFor(const Run &run);
BatchKind batchKindOf(const QString &key);

// What the runs of a selection have in common, for the dialog and the CLI.
struct BatchRequest
{
    BatchKind kind = BatchKind::None;
    QString prompt;      // Question/Choice: the shared prompt; Approval: the first run's
    QStringList options; // Choice
    // Approval: whether every run takes that decision (a review may allow one only).
    bool approveAllowed = true;
    bool rejectAllowed = true;
    QStringList runIds;
};

// The batch of `runs` (each must allow Respond: actionStateFor().respond, checked by the caller),
// or nullopt with the operator-facing reason in *why: fewer than two runs, a run that is not
// batchable, or runs that wait for different kinds of request.
std::optional<BatchRequest> batchRequestFor(const QList<Run> &runs, QString *why = nullptr);

// Why `answer` does not fit what `run` waits for in a batch (an approval for a run that asks a
// question, a choice it does not offer, a decision its review does not allow), or empty when it
// fits. Only the batchable kinds are checked: Approve/Reject, Text, Choice.
QString batchAnswerMismatch(const Run &run, const InputAnswer &answer);

// The outcome of one run's answer in a batch.
struct BatchOutcome
{
    QString runId;
    bool done = false; // the answer was refused before sending, or the engine has reported
    bool ok = false;
    RunError error; // why not, when !ok
};

// Sends one answer to each of several runs through the RunManager, collects each run's outcome
// from its actionFinished(…, Respond, …) and says when every run has one. A run that no longer
// waits, that the answer does not fit, or whose backend cannot respond is refused here, without
// a request. A failed answer leaves the run waiting (the engine records why on its timeline).
class BatchResponder final : public QObject
{
    Q_OBJECT
public:
    explicit BatchResponder(RunManager *manager, QObject *parent = nullptr);

    // Starts answering; finished() is emitted (queued) once every run has its outcome.
    void start(const QStringList &runIds, const InputAnswer &answer);
    bool isFinished() const { return m_started && m_pending == 0; }
    QList<BatchOutcome> outcomes() const;
    int failedCount() const;

Q_SIGNALS:
    void runAnswered(const Runwatch::BatchOutcome &outcome);
    void finished();

private:
    void settle(const QString &id, const ActionResult &result);

    QPointer<RunManager> m_manager;
    QStringList m_order;
    QHash<QString, BatchOutcome> m_outcomes;
    int m_pending = 0;
    bool m_started = false;
};

} // namespace Runwatch
