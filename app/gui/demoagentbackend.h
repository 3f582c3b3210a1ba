// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "engine/runmanager.h"

#include <QHash>
#include <QPointer>

namespace Runwatch {

class DemoAgentTask;

// An in-process agent service for the demo and the GUI tests: a real RunBackend whose runs
// pause with "input required" (question, approval, a choice of options, or a timer) and go on
// once answered. The OpenAI simulator cannot show that state (background responses never wait
// for input), so this stands in until the A2A / job connectors land. Its "server" is a log of
// typed events per task, paced by a timer; streams replay from the continuation token's
// sequence number and then follow live, like a resumable SSE stream would.
//
// What the prompt selects: "approve…"/"approval" → approval, "choose"/"option" → options,
// "timer" → a timer (timer=SECONDS, default 300), "noinput" → no pause; otherwise a question.
class DemoAgentBackend final : public RunBackend
{
    Q_OBJECT
public:
    static constexpr auto kKind = "demo-agent";

    explicit DemoAgentBackend(Connection connection, QObject *parent = nullptr);
    ~DemoAgentBackend() override;

    QString kind() const override;
    Capabilities capabilities() const override;

    RunStream *start(StartRequest request, QObject *parent) override;
    RunStream *follow(ContinuationToken token, QObject *parent) override;

    QCoro::Task<ActionResult> get(ContinuationToken token) override;
    QCoro::Task<ActionResult> cancel(ContinuationToken token) override;
    QCoro::Task<ActionResult> remove(ContinuationToken token) override;
    QCoro::Task<ActionResult> respond(ContinuationToken token, InputAnswer answer) override;
    QCoro::Task<ListResult> list() override;

    // Pace of the scripted steps (default 300 ms; tests use a few ms).
    void setStepIntervalMs(int ms);
    int stepIntervalMs() const { return m_stepMs; }
    int taskCount() const { return int(m_tasks.size()); }

private:
    DemoAgentTask *task(const ContinuationToken &token) const;
    static RunError notFound(const QString &id);

    Connection m_connection;
    QHash<QString, QPointer<DemoAgentTask>> m_tasks;
    int m_nextId = 1;
    int m_stepMs = 300;
};

// The RunManager's factory with the demo agent added: "demo-agent" connections get a
// DemoAgentBackend, everything else goes to createBackend().
RunBackend *createBackendWithDemo(const Connection &connection, QObject *parent);
// Backend types the GUI offers: knownBackends() plus the demo agent.
QStringList guiBackends();

} // namespace Runwatch
