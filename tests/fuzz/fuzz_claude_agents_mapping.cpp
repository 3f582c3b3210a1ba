// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for the Claude Managed Agents table (core/backends/claudeagents) on the shared
// session/turn model (core/backends/agentsessions): SessionGate, SessionTurn, answerEvents.
//
// Input: NUL-separated parts.
//   0  the run's turn id ("" : the history's last turn, as attach takes it)
//   1  how many of the events are the saved history (a decimal count); the rest come live
//   2… events, each "type\ndata", in order
// Properties:
//   - nothing crashes, UBSan included;
//   - the live stream repeating every event (a reconnect that showed them again) changes neither
//     the answer, the items, the status nor the usage: each id counts once;
//   - the turn's state read again from the same history gives the same answer (a reattach);
//   - a turn that waits names calls, and answering each of them is one event per call.
//
//   fuzz_claude_agents_mapping tests/fuzz/corpus/claude_agents_mapping
#include "backends/agentsessions/sessiongate.h"
#include "backends/claudeagents/claudeagentsmapper.h"
#include "domain/runreducer.h"
#include "fuzzsupport.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <cstdint>

using namespace Runwatch;
using namespace Runwatch::ClaudeAgents;

const char *const RunwatchFuzz::kTarget = "claude-agents";
using RunwatchFuzz::check;

namespace {

struct Event
{
    QByteArray type;
    QByteArray data;
};

Event split(const QByteArray &part)
{
    const qsizetype nl = part.indexOf('\n');
    if (nl < 0)
        return {QByteArray(), part};
    return {part.left(nl), part.mid(nl + 1)};
}

qsizetype itemCount(const Run &run)
{
    return std::count_if(run.secondary.cbegin(), run.secondary.cend(),
                         [](const SecondaryItem &i) { return i.kind != SecondaryKind::StatusChange; });
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray input = QByteArray::fromRawData(reinterpret_cast<const char *>(data), qsizetype(size));
    const QList<QByteArray> parts = input.split('\0');
    const QString turnId = QString::fromUtf8(parts.value(0));
    const qsizetype historyCount = std::max<qsizetype>(0, parts.value(1).toLongLong());
    QList<Event> events;
    for (qsizetype i = 2; i < parts.size(); ++i)
        events << split(parts.at(i));

    QList<AgentSessions::SessionEvent> history;
    for (qsizetype i = 0; i < events.size() && i < historyCount; ++i)
        history << AgentSessions::SessionGate::read(&sessionEventOf, events.at(i).type, events.at(i).data);

    AgentSessions::SessionGate gate(&sessionEventOf, turnId);
    Run run;
    run.status = RunStatus::InProgress;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (const RunEvent &e : gate.open(history).events)
        applyEvent(run, e, now);
    for (qsizetype i = historyCount; i < events.size(); ++i) {
        QList<RunEvent> out;
        gate.frame(events.at(i).type, events.at(i).data, out);
        for (const RunEvent &e : std::as_const(out))
            applyEvent(run, e, now);
    }

    // Everything again on the live stream: only previews (no id) may add anything, and none
    // follow a saved event here, so nothing changes once every event had an id.
    bool allIds = true;
    for (const Event &e : std::as_const(events)) {
        const AgentSessions::SessionEvent read
            = AgentSessions::SessionGate::read(&sessionEventOf, e.type, e.data);
        allIds = allIds && !read.id.isEmpty() && read.kind != AgentSessions::SessionEvent::Kind::Malformed;
    }
    if (allIds) {
        const Run before = run;
        for (const Event &e : std::as_const(events)) {
            QList<RunEvent> out;
            gate.frame(e.type, e.data, out);
            for (const RunEvent &r : std::as_const(out))
                applyEvent(run, r, now);
        }
        check(run.primaryText == before.primaryText, "a repeated event changed the answer");
        check(itemCount(run) == itemCount(before), "a repeated event added an item");
        check(run.status == before.status, "a repeated event changed the status");
        check(run.usage == before.usage, "a repeated event changed the usage");
    }

    // A reattach: the whole log read as history by a new turn state puts the saved answer on the
    // run, whatever previews it showed.
    ClaudeAgentsMapper again(gate.turn().turnId());
    for (const Event &e : std::as_const(events))
        again.history(QJsonDocument::fromJson(e.data).object());
    if (again.turn().started()) {
        Run reattached = run;
        for (const RunEvent &e : again.historyEvents())
            applyEvent(reattached, e, now);
        check(reattached.primaryText == again.turn().savedText(),
              "a reattach left text the service did not save");
    }

    if (const std::optional<InputRequest> request = gate.turn().pendingRequest();
        request && !request->toolCalls.isEmpty()) {
        InputAnswer answer;
        for (const ToolCallRequest &call : request->toolCalls)
            answer.toolAnswers << ToolCallAnswer{call.id, QStringLiteral("42"), false};
        QString why;
        const QJsonArray answered = answerEvents(*request, answer, &why);
        check(answered.size() == request->toolCalls.size() || (answered.isEmpty() && !why.isEmpty()),
              "answers are not one per call, and say no reason");
    }
    return 0;
}
