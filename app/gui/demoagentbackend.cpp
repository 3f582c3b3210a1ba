// SPDX-License-Identifier: GPL-3.0-or-later
#include "demoagentbackend.h"

#include <QTimer>

using namespace Qt::StringLiterals;

namespace Runwatch {

// One task of the demo agent "server": its event log and the script still to play.
class DemoAgentTask final : public QObject
{
    Q_OBJECT
public:
    enum class State { Running, Waiting, Done };

    DemoAgentTask(QString id, const StartRequest &request, int stepMs, QObject *parent)
        : QObject(parent)
        , m_id(std::move(id))
        , m_model(request.model.isEmpty() ? u"demo-agent-1"_s : request.model)
        , m_prompt(request.prompt)
    {
        m_timer.setInterval(stepMs);
        connect(&m_timer, &QTimer::timeout, this, &DemoAgentTask::step);
        m_deadlineTimer.setSingleShot(true);
        connect(&m_deadlineTimer, &QTimer::timeout, this, [this] {
            InputAnswer a;
            a.kind = InputAnswer::Kind::Approve;
            a.comment = tr("the timer elapsed");
            answer(a);
        });
        append(RunEvent::identity(m_id, m_model, true));
        append(RunEvent::statusChange(RunStatus::Queued, u"submitted"_s));
        script();
        m_timer.start();
    }

    QString id() const { return m_id; }
    State state() const { return m_state; }
    const QList<RunEvent> &log() const { return m_log; }
    RunStatus status() const { return m_status; }
    QString rawStatus() const { return m_rawStatus; }
    QString text() const { return m_text; }
    QString title() const { return Run::summarize(m_prompt); }
    const std::optional<InputRequest> &input() const { return m_input; }
    void setStepInterval(int ms) { m_timer.setInterval(ms); }

    QList<RunEvent> answer(const InputAnswer &a)
    {
        const qsizetype before = m_log.size();
        m_deadlineTimer.stop();
        m_input.reset();
        QString said;
        switch (a.kind) {
        case InputAnswer::Kind::Text:
            said = a.text;
            break;
        case InputAnswer::Kind::Approve:
            said = a.comment.isEmpty() ? tr("approved") : tr("approved — %1").arg(a.comment);
            break;
        case InputAnswer::Kind::Reject:
            said = a.comment.isEmpty() ? tr("rejected") : tr("rejected — %1").arg(a.comment);
            break;
        case InputAnswer::Kind::Choice:
            said = a.choice;
            break;
        }
        append(RunEvent::secondarySnapshot(SecondaryKind::Log, u"answer-%1"_s.arg(m_log.size()),
                                           tr("Operator"), said));
        append(RunEvent::statusChange(RunStatus::InProgress, u"working"_s));
        m_state = State::Running;
        m_steps.clear();
        if (a.kind == InputAnswer::Kind::Reject) {
            words(tr("\n\nUnderstood — stopping here without changing anything."));
            m_steps.append(RunEvent::statusChange(RunStatus::Rejected, u"rejected"_s));
        } else {
            words(tr("\n\nThanks — continuing with: %1. ").arg(said));
            m_steps.append(RunEvent::secondarySnapshot(SecondaryKind::Progress, u"apply"_s, tr("Applying"),
                                                       tr("Applying the change set (3 files)")));
            words(tr("The three Dockerfiles now use the patched base image, the CI matrix builds "
                     "them, and a pull request is open with a summary of the changes."));
            m_steps.append(RunEvent::statusChange(RunStatus::Completed, u"completed"_s));
        }
        m_timer.start();
        return m_log.mid(before);
    }

    QList<RunEvent> cancel()
    {
        const qsizetype before = m_log.size();
        if (m_state != State::Done) {
            append(RunEvent::statusChange(RunStatus::Cancelled, u"canceled"_s));
            settle(State::Done);
        }
        return m_log.mid(before);
    }

Q_SIGNALS:
    void appended(const Runwatch::RunEvent &event);
    void settled(); // waiting for input, or finished

private:
    void append(RunEvent e)
    {
        e.sequence = m_log.size();
        switch (e.type) {
        case RunEvent::Type::Status:
            m_status = e.status;
            m_rawStatus = e.rawStatus;
            break;
        case RunEvent::Type::PrimaryDelta:
            m_text += e.text;
            break;
        case RunEvent::Type::InputRequired:
            m_input = e.input;
            m_status = RunStatus::InputRequired;
            break;
        default:
            break;
        }
        m_log.append(e);
        Q_EMIT appended(m_log.last());
    }

    void settle(State state)
    {
        m_state = state;
        m_timer.stop();
        Q_EMIT settled();
    }

    void words(const QString &text)
    {
        // Two or three words per step reads like a model streaming tokens.
        const QStringList parts = text.split(u' ');
        QString chunk;
        for (qsizetype i = 0; i < parts.size(); ++i) {
            chunk += parts.at(i) + (i + 1 < parts.size() ? u" "_s : QString());
            if ((i + 1) % 3 == 0 || i + 1 == parts.size()) {
                m_steps.append(RunEvent::primaryDelta(chunk));
                chunk.clear();
            }
        }
    }

    void script()
    {
        const QString p = m_prompt.toLower();
        m_steps.append(RunEvent::statusChange(RunStatus::InProgress, u"working"_s));
        m_steps.append(RunEvent::secondarySnapshot(SecondaryKind::Progress, u"plan"_s, tr("Planning"),
                                                   tr("Breaking the task into 4 steps")));
        m_steps.append(RunEvent::secondaryDelta(SecondaryKind::Reasoning, u"think"_s,
                                                tr("The request touches deployment configuration. ")));
        m_steps.append(RunEvent::secondaryDelta(SecondaryKind::Reasoning, u"think"_s,
                                                tr("Changing production needs the operator's go-ahead.")));
        m_steps.append(RunEvent::secondarySnapshot(SecondaryKind::ToolCall, u"tool-1"_s,
                                                   u"search_repository"_s,
                                                   u"{\"query\": \"FROM base-image:1.4\"}"_s));
        words(tr("I searched the repository and found three services that still build on the "
                 "old base image with the known TLS bug: api, worker and scheduler."));
        if (p.contains(u"noinput"_s)) {
            m_steps.append(RunEvent::statusChange(RunStatus::Completed, u"completed"_s));
            return;
        }
        InputRequest request;
        if (p.contains(u"approv"_s)) {
            request.reason = InputReason::Approval;
            request.prompt = tr("Restart deployment/api on production to pick up the new image? "
                                "Traffic fails over to the standby during the restart (about 40 s).");
        } else if (p.contains(u"choose"_s) || p.contains(u"option"_s)) {
            request.reason = InputReason::Options;
            request.prompt = tr("How should the new image roll out?");
            request.options
                = {tr("Canary: 5 % of traffic, then everything"), tr("Blue/green switch"), tr("All at once")};
        } else if (p.contains(u"timer"_s)) {
            request.reason = InputReason::Timer;
            request.prompt = tr("Waiting for the maintenance window before restarting services.");
            int secs = 300;
            const qsizetype at = p.indexOf(u"timer="_s);
            if (at >= 0)
                secs = qBound(1, QStringView(p).mid(at + 6).split(u' ').first().toInt(), 86400);
            request.deadline = QDateTime::currentDateTimeUtc().addSecs(secs);
        } else {
            request.reason = InputReason::Question;
            request.prompt = tr("Which branch should the pull request target?");
        }
        m_steps.append(RunEvent::inputRequired(request));
    }

    void step()
    {
        if (m_steps.isEmpty()) {
            settle(State::Done);
            return;
        }
        const RunEvent next = m_steps.takeFirst();
        append(next);
        if (next.type == RunEvent::Type::InputRequired) {
            if (next.input && next.input->deadline.isValid()) {
                const qint64 ms = QDateTime::currentDateTimeUtc().msecsTo(next.input->deadline);
                m_deadlineTimer.start(int(qBound(qint64(0), ms, qint64(std::numeric_limits<int>::max()))));
            }
            settle(State::Waiting);
        } else if (next.type == RunEvent::Type::Status && isTerminal(next.status)) {
            settle(State::Done);
        }
    }

    QString m_id;
    QString m_model;
    QString m_prompt;
    QList<RunEvent> m_log;
    QList<RunEvent> m_steps;
    State m_state = State::Running;
    RunStatus m_status = RunStatus::Queued;
    QString m_rawStatus;
    QString m_text;
    std::optional<InputRequest> m_input;
    QTimer m_timer;
    QTimer m_deadlineTimer;
};

namespace {

// Replays a task's log after a sequence number, then follows it until it settles.
class DemoAgentStream final : public RunStream
{
public:
    DemoAgentStream(DemoAgentTask *task, qint64 after, QObject *parent)
        : RunStream(parent)
        , m_task(task)
        , m_after(after)
    {
        // Deliver on the next turn: the caller connects to our signals first.
        QTimer::singleShot(0, this, &DemoAgentStream::begin);
    }

    void abort() override
    {
        if (m_task)
            disconnect(m_task, nullptr, this, nullptr);
        finish({StreamEnd::Reason::Aborted, {}, std::nullopt});
    }

private:
    void begin()
    {
        if (isFinished())
            return;
        if (!m_task) {
            StreamEnd end;
            end.reason = StreamEnd::Reason::Error;
            end.error.kind = ErrorKind::NotFound;
            end.error.code = u"task_not_found"_s;
            end.error.message = tr("The demo agent does not know this run any more.");
            finish(end);
            return;
        }
        QList<RunEvent> replay;
        for (const RunEvent &e : m_task->log()) {
            if (e.sequence > m_after)
                replay.append(e);
        }
        if (!replay.isEmpty())
            Q_EMIT eventsReceived(replay);
        if (m_task->state() != DemoAgentTask::State::Running) {
            finish({StreamEnd::Reason::Terminal, {}, std::nullopt});
            return;
        }
        connect(m_task, &DemoAgentTask::appended, this,
                [this](const RunEvent &e) { Q_EMIT eventsReceived({e}); });
        connect(m_task, &DemoAgentTask::settled, this, [this] {
            finish({StreamEnd::Reason::Terminal, {}, std::nullopt});
        });
        connect(m_task, &QObject::destroyed, this, [this] {
            StreamEnd end;
            end.reason = StreamEnd::Reason::Eof;
            finish(end);
        });
    }

    QPointer<DemoAgentTask> m_task;
    qint64 m_after;
};

} // namespace

DemoAgentBackend::DemoAgentBackend(Connection connection, QObject *parent)
    : RunBackend(parent)
    , m_connection(std::move(connection))
{}

DemoAgentBackend::~DemoAgentBackend() = default;

QString DemoAgentBackend::kind() const
{
    return QString::fromLatin1(kKind);
}

Capabilities DemoAgentBackend::capabilities() const
{
    return Capability::Start | Capability::Get | Capability::Stream | Capability::ResumeStream
           | Capability::Cancel | Capability::Delete | Capability::Respond | Capability::List;
}

void DemoAgentBackend::setStepIntervalMs(int ms)
{
    m_stepMs = qMax(1, ms);
    for (const auto &t : std::as_const(m_tasks)) {
        if (t)
            t->setStepInterval(m_stepMs);
    }
}

DemoAgentTask *DemoAgentBackend::task(const ContinuationToken &token) const
{
    return m_tasks.value(token.remoteId);
}

RunError DemoAgentBackend::notFound(const QString &id)
{
    RunError e;
    e.kind = ErrorKind::NotFound;
    e.code = u"task_not_found"_s;
    e.message = tr("No demo task %1.").arg(id);
    return e;
}

RunStream *DemoAgentBackend::start(StartRequest request, QObject *parent)
{
    const QString id = u"task_%1"_s.arg(m_nextId++, 4, 10, QChar(u'0'));
    auto *t = new DemoAgentTask(id, request, m_stepMs, this);
    m_tasks.insert(id, t);
    return new DemoAgentStream(t, -1, parent);
}

RunStream *DemoAgentBackend::follow(ContinuationToken token, QObject *parent)
{
    return new DemoAgentStream(task(token), token.sequence, parent);
}

QCoro::Task<ActionResult> DemoAgentBackend::get(ContinuationToken token)
{
    ActionResult r;
    DemoAgentTask *t = task(token);
    if (!t) {
        r.error = notFound(token.remoteId);
        co_return r;
    }
    // A snapshot carries no sequence numbers: it is applied whatever the cursor says.
    r.events.append(RunEvent::statusChange(t->status(), t->rawStatus()));
    r.events.append(RunEvent::primarySnapshot(t->text()));
    if (t->input())
        r.events.append(RunEvent::inputRequired(*t->input()));
    co_return r;
}

QCoro::Task<ActionResult> DemoAgentBackend::cancel(ContinuationToken token)
{
    ActionResult r;
    DemoAgentTask *t = task(token);
    if (!t) {
        r.error = notFound(token.remoteId);
        co_return r;
    }
    if (t->state() == DemoAgentTask::State::Done)
        r.note = tr("already finished");
    r.events = t->cancel();
    co_return r;
}

QCoro::Task<ActionResult> DemoAgentBackend::remove(ContinuationToken token)
{
    ActionResult r;
    DemoAgentTask *t = task(token);
    if (!t) {
        r.error = notFound(token.remoteId);
        co_return r;
    }
    m_tasks.remove(token.remoteId);
    t->deleteLater();
    co_return r;
}

QCoro::Task<ActionResult> DemoAgentBackend::respond(ContinuationToken token, InputAnswer answer)
{
    ActionResult r;
    DemoAgentTask *t = task(token);
    if (!t) {
        r.error = notFound(token.remoteId);
        co_return r;
    }
    if (t->state() != DemoAgentTask::State::Waiting) {
        r.error.kind = ErrorKind::Conflict;
        r.error.code = u"not_waiting"_s;
        r.error.message = tr("The run is not waiting for input.");
        co_return r;
    }
    r.events = t->answer(answer);
    co_return r;
}

QCoro::Task<ListResult> DemoAgentBackend::list()
{
    ListResult r;
    for (const auto &t : std::as_const(m_tasks)) {
        if (!t)
            continue;
        RemoteRunInfo info;
        info.remoteId = t->id();
        info.status = t->status();
        info.rawStatus = t->rawStatus();
        info.title = t->title();
        r.runs.append(info);
    }
    co_return r;
}

RunBackend *createBackendWithDemo(const Connection &connection, QObject *parent)
{
    if (connection.backend == QLatin1StringView(DemoAgentBackend::kKind))
        return new DemoAgentBackend(connection, parent);
    return createBackend(connection, parent);
}

QStringList guiBackends()
{
    QStringList names = knownBackends();
    names.append(QString::fromLatin1(DemoAgentBackend::kKind));
    return names;
}

} // namespace Runwatch

#include "demoagentbackend.moc"
