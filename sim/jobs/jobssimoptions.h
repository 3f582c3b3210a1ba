// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Options of one simulated job: the simulator's config, overridden by metadata values or
// `key=value` words of the input.
//
// JOBS: the scenario comes from metadata "scenario", else the first word of the input, else
// "normal" (see JobsScenario). Per-job options as metadata strings or key=value words in the
// input (metadata wins): deltas, interval_ms, queued_ms, fail_after, retryable (0/1),
// timeout_ms, timeout_seconds, timer_ms, webhook_ms, cancel_delay_ms, cancel_ignore (0/1),
// input_fault (an HTTP status for every answer), events (0/1),
// retry_after (seconds, "date:N" for an HTTP date N s ahead, "none"), large_bytes, unknown_ms,
// sync_status (200/201), reply, drop_after, drop_mode (close|reset|mid), fault_connections,
// malformed_at, drip_ms. A bad value is a 400.
// Outputs: delta i is "tok<i> " (tokenText); answers add "[answer: T] ", "[manager approved: C] ",
// "[director rejected] ", "[choice: C] ", "[form: JSON] ", "[callback: JSON] ", "[timer elapsed] ".
// Structured input (an object as "input") sets them like metadata; metadata wins.

#include "jobssimconfig.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>

namespace RunwatchSim {

enum class JobsScenario {
    Normal,   // queued → running → deltas → succeeded
    Quick,    // answered synchronously: the kickoff reply is the finished job
    Fail,     // deltas until fail_after, then failed with an error object
    Timeout,  // runs until timeout_ms, then timed_out
    AskUser,  // suspends for a free-text answer halfway
    Approval, // suspends for an approval halfway
    TwoStep,  // manager approval, then director approval
    Options,  // suspends for a choice among options halfway
    Webhook,  // suspends until its webhook URL is called (or webhook_ms passes)
    Timer,    // suspends for timer_ms and resumes by itself
    Large,    // a result larger than the inline limit: only at /result
    Unknown,  // spends unknown_ms in a status outside the contract ("paused_by_admin")
    Long,     // config.longDeltas deltas (for cancel tests)
    Form,     // suspends for a typed form (a JSON Schema: string, integer, number, boolean, enum)
};

QString jobsScenarioName(JobsScenario scenario);
std::optional<JobsScenario> jobsScenarioFromName(QStringView name);
QStringList jobsScenarioNames();

// Per-job settings: config defaults, overridden by metadata values or key=value words of the input.
struct JobsRunOptions
{
    JobsScenario scenario = JobsScenario::Normal;
    int deltas = 8;
    int intervalMs = 20;
    int queuedMs = -1;  // -1: intervalMs
    int failAfter = -1; // -1: deltas / 2
    bool retryable = true;
    int timeoutMs = 300;         // Timeout scenario: when it fires
    double timeoutSeconds = 900; // reported timeout_seconds
    int timerMs = 1000;
    int webhookMs = -1;    // > 0: the external system calls back by itself after this long
    int cancelDelayMs = 0; // > 0: cancel answers 202 and the job stops after this long
    // A service that never confirms a cancel: 202, and the job goes on as if nothing was asked.
    bool cancelIgnored = false;
    // > 0: every answer to this job (POST .../input) is refused with this HTTP status, the job
    // still waiting: one job of a batch whose approval fails on the service.
    int inputFaultStatus = 0;
    // > 0: an accepted answer is replied to this late, with the job as it was when the answer
    // was taken: by then the job has gone on (and said so on its event stream).
    int inputReplyDelayMs = 0;
    bool events = true;    // the job offers an event stream
    QByteArray retryAfter; // Retry-After of status replies: seconds, "date:N", "" = none
    qint64 largeBytes = (1 << 20) + 4096;
    int unknownMs = 100;
    int syncStatus = 201; // status of a Quick job's kickoff reply: 200 or 201
    QString reply;        // if set, its words are the deltas
    StreamFaults streamFaults;
};

// Config defaults, then `key=value` words of `input`, then `metadata`. nullopt and `error` (for
// the 400 reply) when a value is bad.
std::optional<JobsRunOptions> resolveRunOptions(const JobsSimConfig &config, const QString &input,
                                                const QJsonObject &metadata, QString *error);

// Endpoints, scenarios and per-job options, for --help.
QString jobsOptionsHelpText();

} // namespace RunwatchSim
