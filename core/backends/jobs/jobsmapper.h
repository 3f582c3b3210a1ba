// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "jobsprofile.h"

#include "domain/runevent.h"

#include <QByteArrayView>
#include <QDateTime>
#include <QJsonObject>
#include <QList>

#include <optional>

namespace Runwatch::Jobs {

// Contract state → unified status (terminal states stay terminal; unknown stays Unknown).
RunStatus toRunStatus(JobState state);

// One job object (status reply, kickoff reply, SSE status/done data, listing entry) read
// through a profile. Pure data; nothing here fails on odd input, missing fields are just absent.
struct JobView
{
    bool hasStatus = false; // the status pointer found a string
    QString id;
    QString rawStatus;
    JobState state = JobState::Unknown;
    std::optional<double> progress; // 0…1
    QJsonValue result;              // Undefined when absent
    QJsonValue error;               // Undefined when absent
    std::optional<InputRequest> input;
    QString statusUrl;
    QString eventsUrl;
    QString resultUrl;
    std::optional<double> timeoutSeconds;
    QString idempotencyKey;
    QString clientRunId;
    QString title;
    QDateTime createdAt;

    bool hasResult() const { return !result.isUndefined() && !result.isNull(); }
    // Succeeded, but the result is not in the object (large results live at /result only).
    bool needsResultFetch() const { return state == JobState::Succeeded && !hasResult(); }
};

JobView readJob(const QJsonObject &object, const JobsProfile &profile,
                const QDateTime &now = QDateTime::currentDateTimeUtc());

// What a job object says about the run, in reducer order: progress, result, error, status,
// input request. `verifyResult` marks the result as the end-of-stream check of streamed deltas
// (RunEvent::verify), for the SSE `done` event.
QList<RunEvent> eventsForJob(const JobView &job, bool verifyResult = false);

// An input_request object (AsyncFunction handler types: ask_user, get_approval, select_options,
// webhook, timer). A timer without resume_at gets its deadline from `now` + delay_seconds.
// nullopt for something that is not an object.
std::optional<InputRequest> mapInputRequest(const QJsonValue &value,
                                            const QDateTime &now = QDateTime::currentDateTimeUtc());

// The job's error object ({"code","message","retryable"} or a plain string) as a RunError of
// kind Run; the message says whether retrying may help. Timed-out jobs name their timeout.
RunError mapJobError(const QJsonValue &error, JobState state, std::optional<double> timeoutSeconds);

// The result as the run's answer: a string as is, anything else as indented JSON.
QString resultText(const QJsonValue &result);

// "42%", or "50% — step 3 of 6".
QString progressText(std::optional<double> fraction, const QString &message);

// The body of POST …/input for an answer (docs/protocols/jobs-api.md "Suspended jobs").
QJsonObject answerBody(const InputAnswer &answer);

// The contract's error body says itself whether retrying helps ({"error":{"retryable":…}}):
// that overrides the guess from the HTTP status.
void applyErrorBody(RunError &error, const QByteArray &body);

} // namespace Runwatch::Jobs

namespace Runwatch {

// Maps one SSE event of a job's event stream to RunEvents. Numeric event ids double as sequence
// numbers: whole events at or below the cursor are dropped here, and the first RunEvent of each
// wire event carries the id, so the reducer's dedupe sees it too. Pure: no I/O.
class JobsMapper
{
public:
    enum class Outcome {
        Continue,  // keep reading
        Done,      // the `done` event: the server closes the stream after it
        Malformed, // error() holds a protocol error
    };

    explicit JobsMapper(Jobs::JobsProfile profile = Jobs::JobsProfile::defaults(), qint64 cursor = -1);

    // A new connection begins (its ids are compared afresh; see the implementation).
    void startConnection() { m_connectionLastId.clear(); }

    Outcome map(QByteArrayView type, QByteArrayView data, QByteArrayView id, QList<RunEvent> &out,
                const QDateTime &now = QDateTime::currentDateTimeUtc());

    const RunError &error() const { return m_error; }
    qint64 lastSequence() const { return m_lastSequence; }
    qint64 droppedDuplicates() const { return m_dropped; }
    // The `done` event reported success without the result: fetch it from /result. Its events
    // are then held back (takeHeldBack()), so the run turns terminal only with its result.
    bool resultFetchNeeded() const { return m_resultFetchNeeded; }
    QList<RunEvent> takeHeldBack() { return std::exchange(m_heldBack, {}); }
    // The result_url the `done` event named (may be empty or relative).
    const QString &doneResultUrl() const { return m_doneResultUrl; }

private:
    Outcome malformed(QByteArrayView type, const QString &eventId, const QString &why);

    Jobs::JobsProfile m_profile;
    qint64 m_lastSequence = -1;
    qint64 m_dropped = 0;
    qint64 m_logCounter = 0;
    QByteArray m_connectionLastId;
    bool m_resultFetchNeeded = false;
    QString m_doneResultUrl;
    QList<RunEvent> m_heldBack;
    RunError m_error;
};

} // namespace Runwatch
