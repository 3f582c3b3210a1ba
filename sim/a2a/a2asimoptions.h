// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Options of one simulated A2A task: the simulator's config, overridden by `key=value` words of
// the user's text. Values that do not parse are ignored.
//
// SCENARIOS: the first word of the user's text (case-insensitive), else "normal".
//   normal   WORKING "Working...", `chunks` artifact chunks "tok<i> " (append after the first,
//            lastChunk on the last), COMPLETED
//   long     normal with `longChunks` chunks (for cancel tests)
//   fail     fail_after chunks (default chunks/2), then FAILED with a status message
//   reject   REJECTED with a status message
//   input    WORKING, INPUT_REQUIRED "Which city?"; an answer (a message with the taskId)
//            continues: WORKING, "Weather in <answer>: " + "sunny.", COMPLETED
//   auth     like input, but AUTH_REQUIRED "Please authorize the simulated agent."
//   error    fail_after chunks, then a JSON-RPC error on the stream (`event: error`, -32603);
//            the task becomes FAILED (visible through GetTask)
//   message  answers with a plain Message, no task
//   multi    artifact "report" (chunks chunks), then artifact "summary" (2 chunks)
//   replace  artifact chunk "draft ", then the same artifact replaced by "final answer"
//   listen   normal, but while WORKING the task takes further messages (a message with its
//            taskId, §3.4.3): each is folded into the answer still streaming, as the chunk
//            "[noted: <text>] " before the next one. Every other working task refuses such a
//            message with UnsupportedOperation (-32004) and goes on unchanged.
//   recall   multi-turn memory: one chunk "Earlier turns in this context: <n>. " and one
//            "Previous prompt: <text of the last earlier task's first message>." (or "No earlier
//            turns."), where the earlier turns are the tasks created before in the same
//            contextId, then COMPLETED
// PER-TASK OPTIONS, as key=value words in the user's text: chunks, interval_ms,
//   fail_after, status_every (a WORKING "step i/n" status every n chunks), drop_after (drop each
//   stream connection after writing that many events), drop_mode (close|reset|mid),
//   fault_connections (only the first N stream connections of the task are faulted),
//   cancel (refuse|slow), cancel_delay_ms.

#include "a2asimconfig.h"

#include <QString>

namespace RunwatchSim {

enum class A2aScenario {
    Normal,
    Long,
    Fail,
    Reject,
    Input,
    Auth,
    Error,
    Message,
    Multi,
    Replace,
    Listen,
    Recall
};

struct A2aRunOptions
{
    A2aScenario scenario = A2aScenario::Normal;
    int chunks = 8;
    int intervalMs = 20;
    int failAfter = -1;
    int statusEvery = 0;
    StreamFaults faults;
    QString cancel; // "", "refuse", "slow"
    int cancelDelayMs = 200;
};

// The scenario is the first word of `text` (else normal).
A2aRunOptions resolveRunOptions(const A2aSimConfig &config, const QString &text);

// Scenarios and per-task options, for --help.
QString a2aOptionsHelpText();

} // namespace RunwatchSim
