// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for the OpenAI Agents API table (core/backends/openaiagents) on the shared
// session/turn model (core/backends/agentsessions): historyOf, SessionGate, SessionTurn,
// answerEvents.
//
// Input: NUL-separated parts.
//   0  the run's turn id ("" : the history's last turn, as attach takes it)
//   1  the session object (JSON), 2 its turns (a JSON array), 3 its items (a JSON array): the
//      saved history
//   4… live events, each "type\ndata", in order
// Properties:
//   - nothing crashes, UBSan included;
//   - the live stream repeating every event (a reconnect that showed them again) changes neither
//     the answer, the items, the status nor the usage: each id counts once;
//   - the turn's state read again from the same history gives the saved answer (a reattach);
//   - a turn that waits names calls, and answering each of them is one event per call.
//
//   fuzz_openai_agents_mapping tests/fuzz/corpus/openai_agents_mapping
#include "backends/agentsessions/sessiongate.h"
#include "backends/openaiagents/openaiagentsmapper.h"
#include "domain/runreducer.h"
#include "fuzzsupport.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <cstdint>

using namespace Runwatch;
using namespace Runwatch::OpenAiAgents;

const char *const RunwatchFuzz::kTarget = "openai-agents";
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
    const QJsonObject session = QJsonDocument::fromJson(parts.value(1)).object();
    const QJsonArray turns = QJsonDocument::fromJson(parts.value(2)).array();
    const QJsonArray items = QJsonDocument::fromJson(parts.value(3)).array();
    QList<Event> events;
    for (qsizetype i = 4; i < parts.size(); ++i)
        events << split(parts.at(i));

    AgentSessions::SessionGate gate(&sessionEventOf, turnId);
    Run run;
    run.status = RunStatus::InProgress;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (const RunEvent &e : gate.open(historyOf(session, turns, items)).events)
        applyEvent(run, e, now);
    for (const Event &event : std::as_const(events)) {
        QList<RunEvent> out;
        gate.frame(event.type, event.data, out);
        for (const RunEvent &e : std::as_const(out))
            applyEvent(run, e, now);
    }

    // Everything again on the live stream: nothing changes once every event had an id.
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

    // A reattach: the saved history read by a new turn state puts the saved answer on the run.
    OpenAiAgentsMapper again(gate.turn().turnId());
    again.history(session, turns, items);
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
        const QJsonArray answered = answerEvents(*request, answer, gate.turn().turnId(), &why);
        check(answered.size() == request->toolCalls.size() || (answered.isEmpty() && !why.isEmpty()),
              "answers are not one per call, and say no reason");
    }
    return 0;
}
