// SPDX-License-Identifier: GPL-3.0-or-later
#include "a2asim.h"

#include "simhttp.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>
#include <QUuid>

#include <algorithm>
#include <functional>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

const QString kCanceled = u"TASK_STATE_CANCELED"_s;
const QString kCompleted = u"TASK_STATE_COMPLETED"_s;
const QString kFailed = u"TASK_STATE_FAILED"_s;
const QString kRejected = u"TASK_STATE_REJECTED"_s;
const QString kWorking = u"TASK_STATE_WORKING"_s;
const QString kSubmitted = u"TASK_STATE_SUBMITTED"_s;
const QString kInputRequired = u"TASK_STATE_INPUT_REQUIRED"_s;
const QString kAuthRequired = u"TASK_STATE_AUTH_REQUIRED"_s;

QString uuid()
{
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
}

QString nowStamp()
{
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
}

bool isTerminalState(const QString &state)
{
    return state == kCompleted || state == kFailed || state == kCanceled || state == kRejected;
}

bool isInterruptedState(const QString &state)
{
    return state == kInputRequired || state == kAuthRequired;
}

QByteArray compact(const QJsonObject &o)
{
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

// --- 1.0 → 0.3 shapes (§5.2) ------------------------------------------------------------------

QString stateV03(const QString &state)
{
    QString s = state.toLower();
    if (s.startsWith(u"task_state_"_s))
        s = s.mid(11);
    s.replace(u'_', u'-');
    return s;
}

QJsonArray partsV03(const QJsonArray &parts)
{
    QJsonArray out;
    for (const QJsonValue &v : parts) {
        const QJsonObject p = v.toObject();
        if (p.contains(u"text"_s))
            out.append(QJsonObject{{u"kind"_s, u"text"_s}, {u"text"_s, p.value(u"text"_s)}});
        else if (p.contains(u"data"_s))
            out.append(QJsonObject{{u"kind"_s, u"data"_s}, {u"data"_s, p.value(u"data"_s)}});
    }
    return out;
}

QJsonObject messageV03(const QJsonObject &m)
{
    QJsonObject o{{u"kind"_s, u"message"_s},
                  {u"messageId"_s, m.value(u"messageId"_s)},
                  {u"role"_s, m.value(u"role"_s).toString() == u"ROLE_USER"_s ? u"user"_s : u"agent"_s},
                  {u"parts"_s, partsV03(m.value(u"parts"_s).toArray())}};
    for (const QString &key : {u"taskId"_s, u"contextId"_s}) {
        if (m.contains(key))
            o.insert(key, m.value(key));
    }
    return o;
}

QJsonObject statusV03(const QJsonObject &s)
{
    QJsonObject o{{u"state"_s, stateV03(s.value(u"state"_s).toString())}};
    if (s.contains(u"message"_s))
        o.insert(u"message"_s, messageV03(s.value(u"message"_s).toObject()));
    if (s.contains(u"timestamp"_s))
        o.insert(u"timestamp"_s, s.value(u"timestamp"_s));
    return o;
}

QJsonObject artifactV03(const QJsonObject &a)
{
    QJsonObject o{{u"artifactId"_s, a.value(u"artifactId"_s)},
                  {u"parts"_s, partsV03(a.value(u"parts"_s).toArray())}};
    if (a.contains(u"name"_s))
        o.insert(u"name"_s, a.value(u"name"_s));
    return o;
}

QJsonObject taskV03(const QJsonObject &t)
{
    QJsonObject o{{u"kind"_s, u"task"_s},
                  {u"id"_s, t.value(u"id"_s)},
                  {u"contextId"_s, t.value(u"contextId"_s)},
                  {u"status"_s, statusV03(t.value(u"status"_s).toObject())}};
    if (t.contains(u"artifacts"_s)) {
        QJsonArray a;
        for (const QJsonValue &v : t.value(u"artifacts"_s).toArray())
            a.append(artifactV03(v.toObject()));
        o.insert(u"artifacts"_s, a);
    }
    if (t.contains(u"history"_s)) {
        QJsonArray h;
        for (const QJsonValue &v : t.value(u"history"_s).toArray())
            h.append(messageV03(v.toObject()));
        o.insert(u"history"_s, h);
    }
    return o;
}

// A 1.0 StreamResponse / SendMessageResponse as 0.3 sends it: bare, `kind`-discriminated.
QJsonObject responseV03(const QJsonObject &r)
{
    if (r.contains(u"task"_s))
        return taskV03(r.value(u"task"_s).toObject());
    if (r.contains(u"message"_s))
        return messageV03(r.value(u"message"_s).toObject());
    if (r.contains(u"statusUpdate"_s)) {
        const QJsonObject s = r.value(u"statusUpdate"_s).toObject();
        const QString state = s.value(u"status"_s).toObject().value(u"state"_s).toString();
        return {{u"kind"_s, u"status-update"_s},
                {u"taskId"_s, s.value(u"taskId"_s)},
                {u"contextId"_s, s.value(u"contextId"_s)},
                {u"status"_s, statusV03(s.value(u"status"_s).toObject())},
                {u"final"_s, isTerminalState(state)}};
    }
    const QJsonObject a = r.value(u"artifactUpdate"_s).toObject();
    return {{u"kind"_s, u"artifact-update"_s},
            {u"taskId"_s, a.value(u"taskId"_s)},
            {u"contextId"_s, a.value(u"contextId"_s)},
            {u"artifact"_s, artifactV03(a.value(u"artifact"_s).toObject())},
            {u"append"_s, a.value(u"append"_s).toBool(false)},
            {u"lastChunk"_s, a.value(u"lastChunk"_s).toBool(false)}};
}

// The user's text, from 1.0 ({text}) or 0.3 ({kind:"text",text}) parts.
QString messageText(const QJsonObject &message)
{
    QString text;
    for (const QJsonValue &v : message.value(u"parts"_s).toArray())
        text += v.toObject().value(u"text"_s).toString();
    return text;
}

// A client message in the 1.0 shape we store.
QJsonObject storedUserMessage(const QJsonObject &in, const QString &taskId, const QString &contextId)
{
    QJsonObject m{{u"messageId"_s, in.value(u"messageId"_s).toString(uuid())},
                  {u"contextId"_s, contextId},
                  {u"taskId"_s, taskId},
                  {u"role"_s, u"ROLE_USER"_s},
                  {u"parts"_s, QJsonArray{QJsonObject{{u"text"_s, messageText(in)}}}}};
    return m;
}

enum class TaskScenario { Normal, Long, Fail, Reject, Input, Auth, Error, Message, Multi, Replace };

std::optional<TaskScenario> scenarioFrom(const QString &word)
{
    static const QHash<QString, TaskScenario> names{
        {u"normal"_s, TaskScenario::Normal}, {u"long"_s, TaskScenario::Long},
        {u"fail"_s, TaskScenario::Fail},     {u"reject"_s, TaskScenario::Reject},
        {u"input"_s, TaskScenario::Input},   {u"auth"_s, TaskScenario::Auth},
        {u"error"_s, TaskScenario::Error},   {u"message"_s, TaskScenario::Message},
        {u"multi"_s, TaskScenario::Multi},   {u"replace"_s, TaskScenario::Replace},
    };
    const auto it = names.constFind(word);
    return it == names.cend() ? std::nullopt : std::optional<TaskScenario>(*it);
}

struct TaskOptions
{
    TaskScenario scenario = TaskScenario::Normal;
    int chunks = 8;
    int intervalMs = 20;
    int failAfter = -1;
    int statusEvery = 0;
    StreamFaults faults;
    QString cancel; // "", "refuse", "slow"
    int cancelDelayMs = 200;
};

TaskOptions optionsFrom(const A2aSimConfig &config, const QString &text)
{
    TaskOptions o;
    o.chunks = config.chunks;
    o.intervalMs = config.intervalMs;
    o.faults = config.streamFaults;
    const QStringList words = text.simplified().split(u' ', Qt::SkipEmptyParts);
    QString first = words.value(0).toLower();
    while (!first.isEmpty() && (first.endsWith(u':') || first.endsWith(u',') || first.endsWith(u'.')))
        first.chop(1);
    if (const auto s = scenarioFrom(first))
        o.scenario = *s;
    if (o.scenario == TaskScenario::Long)
        o.chunks = config.longChunks;
    for (const QString &w : words) {
        const qsizetype eq = w.indexOf(u'=');
        if (eq <= 0)
            continue;
        const QString key = w.left(eq).toLower();
        const QString value = w.mid(eq + 1);
        bool ok = false;
        const int n = value.toInt(&ok);
        if (key == u"chunks" && ok && n >= 0)
            o.chunks = n;
        else if (key == u"interval_ms" && ok && n >= 0)
            o.intervalMs = n;
        else if (key == u"fail_after" && ok && n >= 0)
            o.failAfter = n;
        else if (key == u"status_every" && ok && n >= 0)
            o.statusEvery = n;
        else if (key == u"drop_after" && ok)
            o.faults.dropAfterEvents = n;
        else if (key == u"fault_connections" && ok)
            o.faults.connections = n;
        else if (key == u"drop_mode") {
            if (const auto m = dropModeFromName(value))
                o.faults.dropMode = *m;
        } else if (key == u"cancel")
            o.cancel = value.toLower();
        else if (key == u"cancel_delay_ms" && ok && n >= 0)
            o.cancelDelayMs = n;
    }
    if (o.failAfter < 0)
        o.failAfter = o.chunks / 2;
    return o;
}

struct Step
{
    enum class Type { Status, Chunk, StreamError };
    Type type = Type::Status;
    QString state;
    QString text; // status message, chunk text or error message
    QString artifactId = u"result-1"_s;
    QString artifactName = u"result.txt"_s;
    bool append = false;
    bool lastChunk = false;
};

Step status(const QString &state, const QString &text = {})
{
    Step s;
    s.type = Step::Type::Status;
    s.state = state;
    s.text = text;
    return s;
}

Step chunk(const QString &text, bool append, bool last, const QString &artifactId = u"result-1"_s,
           const QString &name = u"result.txt"_s)
{
    Step s;
    s.type = Step::Type::Chunk;
    s.text = text;
    s.append = append;
    s.lastChunk = last;
    s.artifactId = artifactId;
    s.artifactName = name;
    return s;
}

QList<Step> chunkSteps(const TaskOptions &o, int count)
{
    QList<Step> steps;
    for (int i = 0; i < count; ++i) {
        steps << chunk(u"tok%1 "_s.arg(i), i > 0, i == o.chunks - 1);
        if (o.statusEvery > 0 && (i + 1) % o.statusEvery == 0 && i + 1 < count)
            steps << status(kWorking, u"step %1/%2"_s.arg(i + 1).arg(o.chunks));
    }
    return steps;
}

QList<Step> firstTurn(const TaskOptions &o)
{
    QList<Step> steps{status(kWorking, u"Working..."_s)};
    switch (o.scenario) {
    case TaskScenario::Normal:
    case TaskScenario::Long:
        steps << chunkSteps(o, o.chunks) << status(kCompleted);
        break;
    case TaskScenario::Fail:
        steps << chunkSteps(o, std::min(o.failAfter, o.chunks))
              << status(kFailed, u"The simulated agent failed."_s);
        break;
    case TaskScenario::Reject:
        steps = {status(kRejected, u"The simulated agent rejects this task."_s)};
        break;
    case TaskScenario::Input:
        steps << status(kInputRequired, u"Which city?"_s);
        break;
    case TaskScenario::Auth:
        steps << status(kAuthRequired, u"Please authorize the simulated agent."_s);
        break;
    case TaskScenario::Error: {
        steps << chunkSteps(o, std::min(o.failAfter, o.chunks));
        Step e;
        e.type = Step::Type::StreamError;
        e.text = u"Simulated internal error."_s;
        steps << e;
        break;
    }
    case TaskScenario::Multi:
        for (int i = 0; i < o.chunks; ++i)
            steps << chunk(u"tok%1 "_s.arg(i), i > 0, i == o.chunks - 1, u"report"_s, u"report.md"_s);
        steps << chunk(u"In short: "_s, false, false, u"summary"_s, u"summary.md"_s)
              << chunk(u"done."_s, true, true, u"summary"_s, u"summary.md"_s) << status(kCompleted);
        break;
    case TaskScenario::Replace:
        steps << chunk(u"draft "_s, false, false) << chunk(u"final answer"_s, false, true)
              << status(kCompleted);
        break;
    case TaskScenario::Message:
        break;
    }
    return steps;
}

} // namespace

QByteArray A2aRequestRecord::header(QByteArrayView name) const
{
    const QByteArray lower = name.toByteArray().toLower();
    for (const auto &[key, value] : headers) {
        if (key == lower)
            return value;
    }
    return {};
}

// --- one SSE connection -------------------------------------------------------------------------

class A2aStreamConnection final : public QObject
{
public:
    A2aStreamConnection(HttpConnection *connection, QJsonValue rpcId, bool v03, const StreamFaults &faults,
                        bool faulted, QObject *parent)
        : QObject(parent)
        , m_connection(connection)
        , m_rpcId(std::move(rpcId))
        , m_v03(v03)
        , m_faults(faults)
        , m_faulted(faulted)
    {
        m_connection->beginStream(200, {{"Content-Type", "text/event-stream"},
                                        {"Cache-Control", "no-cache"},
                                        {"X-Accel-Buffering", "no"}});
        connect(m_connection, &HttpConnection::closed, this, [this] { m_open = false; });
    }

    bool isOpen() const { return m_open && m_connection && m_connection->isOpen(); }

    // `response` in the 1.0 StreamResponse shape.
    void send(const QJsonObject &response)
    {
        if (!isOpen())
            return;
        const QJsonObject result = m_v03 ? responseV03(response) : response;
        QJsonObject envelope{{u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, m_rpcId}, {u"result"_s, result}};
        const QByteArray frame = "data: " + compact(envelope) + "\n\n";
        if (m_faulted && m_faults.dropAfterEvents >= 0 && m_written >= m_faults.dropAfterEvents) {
            // The drop point: for "mid" half of this event goes out first.
            if (m_faults.dropMode == DropMode::MidEvent)
                m_connection->write(frame.left(frame.size() / 2));
            drop();
            return;
        }
        m_connection->write(frame);
        ++m_written;
        if (m_faulted && m_faults.dropAfterEvents >= 0 && m_written >= m_faults.dropAfterEvents
            && m_faults.dropMode != DropMode::MidEvent)
            drop();
    }

    void sendError(int code, const QString &message)
    {
        if (!isOpen())
            return;
        QJsonObject error{{u"code"_s, code}, {u"message"_s, message}};
        if (!m_v03) {
            error.insert(u"data"_s,
                         QJsonArray{QJsonObject{{u"@type"_s, u"type.googleapis.com/google.rpc.ErrorInfo"_s},
                                                {u"reason"_s, u"INTERNAL"_s},
                                                {u"domain"_s, u"a2a-protocol.org"_s}}});
        }
        const QJsonObject envelope{{u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, m_rpcId}, {u"error"_s, error}};
        m_connection->write("event: error\ndata: " + compact(envelope) + "\n\n");
    }

    void end()
    {
        if (!isOpen())
            return;
        m_open = false;
        m_connection->endStream();
    }

private:
    void drop()
    {
        m_open = false;
        m_connection->drop(m_faults.dropMode == DropMode::Reset);
    }

    QPointer<HttpConnection> m_connection;
    QJsonValue m_rpcId;
    bool m_v03;
    StreamFaults m_faults;
    bool m_faulted;
    bool m_open = true;
    int m_written = 0;
};

// --- one task -----------------------------------------------------------------------------------

class A2aTask final : public QObject
{
public:
    A2aTask(A2aSimulator *sim, QString id, QString contextId, TaskOptions options,
            const QJsonObject &userMessage)
        : QObject(sim)
        , m_sim(sim)
        , m_id(std::move(id))
        , m_contextId(std::move(contextId))
        , m_options(std::move(options))
    {
        m_history.append(storedUserMessage(userMessage, m_id, m_contextId));
        m_timestamp = nowStamp();
        m_steps = firstTurn(m_options);
        m_timer.setSingleShot(true);
        connect(&m_timer, &QTimer::timeout, this, [this] { step(); });
    }

    const QString &id() const { return m_id; }
    const QString &contextId() const { return m_contextId; }
    const QString &state() const { return m_state; }
    const QString &timestamp() const { return m_timestamp; }
    const TaskOptions &options() const { return m_options; }
    bool isTerminal() const { return isTerminalState(m_state); }
    bool isInterrupted() const { return isInterruptedState(m_state); }
    int streamConnections() const { return m_streamConnections; }
    int eventsGenerated() const { return m_events; }

    QString text() const
    {
        QStringList texts;
        for (const Artifact &a : m_artifacts) {
            QString t;
            for (const QJsonValue &p : a.parts)
                t += p.toObject().value(u"text"_s).toString();
            if (!t.isEmpty())
                texts << t;
        }
        return texts.join(u"\n\n"_s);
    }

    // 1.0 Task. historyLength: -1 all, 0 none, n the last n.
    QJsonObject snapshot(int historyLength = -1, bool includeArtifacts = true) const
    {
        QJsonObject statusObject{{u"state"_s, m_state}, {u"timestamp"_s, m_timestamp}};
        if (!m_statusMessage.isEmpty())
            statusObject.insert(u"message"_s, m_statusMessage);
        QJsonObject t{{u"id"_s, m_id}, {u"contextId"_s, m_contextId}, {u"status"_s, statusObject}};
        if (includeArtifacts && !m_artifacts.isEmpty()) {
            QJsonArray a;
            for (const Artifact &x : m_artifacts)
                a.append(QJsonObject{{u"artifactId"_s, x.id}, {u"name"_s, x.name}, {u"parts"_s, x.parts}});
            t.insert(u"artifacts"_s, a);
        }
        if (historyLength != 0 && !m_history.isEmpty()) {
            QJsonArray h = m_history;
            while (historyLength > 0 && h.size() > historyLength)
                h.removeFirst();
            t.insert(u"history"_s, h);
        }
        return t;
    }

    // A stream on this task: it gets every later event until the task stops.
    void attach(A2aStreamConnection *stream)
    {
        ++m_streamConnections;
        m_streams.append(stream);
    }

    int nextConnectionIndex() const { return m_streamConnections + 1; }

    void start() { scheduleNext(); }

    // An answer to INPUT_REQUIRED / AUTH_REQUIRED: a new turn on the same task (§7).
    void answer(const QJsonObject &message)
    {
        const QString text = messageText(message).trimmed();
        m_history.append(storedUserMessage(message, m_id, m_contextId));
        m_steps
            = {status(kWorking, u"Looking it up..."_s), chunk(u"Weather in %1: "_s.arg(text), false, false),
               chunk(u"sunny."_s, true, true), status(kCompleted)};
        m_next = 0;
        scheduleNext();
    }

    void addWaiter(std::function<void()> done) { m_waiters.append(std::move(done)); }

    void cancel()
    {
        m_timer.stop();
        m_steps.clear();
        m_next = 0;
        setStatus(kCanceled, {});
        broadcast(statusEvent());
        finishTurn();
    }

private:
    struct Artifact
    {
        QString id;
        QString name;
        QJsonArray parts;
    };

    void scheduleNext()
    {
        if (m_next < m_steps.size())
            m_timer.start(m_options.intervalMs);
    }

    QJsonObject agentMessage(const QString &text) const
    {
        return {{u"messageId"_s, uuid()},
                {u"contextId"_s, m_contextId},
                {u"taskId"_s, m_id},
                {u"role"_s, u"ROLE_AGENT"_s},
                {u"parts"_s, QJsonArray{QJsonObject{{u"text"_s, text}, {u"mediaType"_s, u"text/plain"_s}}}}};
    }

    void setStatus(const QString &state, const QString &text)
    {
        m_state = state;
        m_timestamp = nowStamp();
        m_statusMessage = text.isEmpty() ? QJsonObject() : agentMessage(text);
        // Like the JS SDK, status messages are also kept in the history.
        if (!m_statusMessage.isEmpty())
            m_history.append(m_statusMessage);
        Q_EMIT m_sim->taskStateChanged(m_id, m_state);
    }

    QJsonObject statusEvent() const
    {
        QJsonObject statusObject{{u"state"_s, m_state}, {u"timestamp"_s, m_timestamp}};
        if (!m_statusMessage.isEmpty())
            statusObject.insert(u"message"_s, m_statusMessage);
        return {
            {u"statusUpdate"_s,
             QJsonObject{{u"taskId"_s, m_id}, {u"contextId"_s, m_contextId}, {u"status"_s, statusObject}}}};
    }

    void broadcast(const QJsonObject &response)
    {
        ++m_events;
        for (const QPointer<A2aStreamConnection> &s : std::as_const(m_streams)) {
            if (s)
                s->send(response);
        }
    }

    // Terminal or waiting: streams close (§0.5), blocking senders get their answer.
    void finishTurn()
    {
        for (const QPointer<A2aStreamConnection> &s : std::as_const(m_streams)) {
            if (s) {
                s->end();
                s->deleteLater();
            }
        }
        m_streams.clear();
        const auto waiters = std::exchange(m_waiters, {});
        for (const auto &w : waiters)
            w();
    }

    void step()
    {
        if (m_next >= m_steps.size() || isTerminal())
            return;
        const Step s = m_steps.at(m_next++);
        switch (s.type) {
        case Step::Type::Status:
            setStatus(s.state, s.text);
            broadcast(statusEvent());
            if (isTerminal() || isInterrupted()) {
                finishTurn();
                return;
            }
            break;
        case Step::Type::Chunk: {
            auto it = std::find_if(m_artifacts.begin(), m_artifacts.end(),
                                   [&](const Artifact &a) { return a.id == s.artifactId; });
            const QJsonObject part{{u"text"_s, s.text}, {u"mediaType"_s, u"text/plain"_s}};
            if (it == m_artifacts.end())
                m_artifacts.append(Artifact{s.artifactId, s.artifactName, QJsonArray{part}});
            else if (s.append)
                it->parts.append(part);
            else
                it->parts = QJsonArray{part};
            QJsonObject update{{u"taskId"_s, m_id},
                               {u"contextId"_s, m_contextId},
                               {u"artifact"_s, QJsonObject{{u"artifactId"_s, s.artifactId},
                                                           {u"name"_s, s.artifactName},
                                                           {u"parts"_s, QJsonArray{part}}}}};
            // ProtoJSON leaves false out (§0.6).
            if (s.append)
                update.insert(u"append"_s, true);
            if (s.lastChunk)
                update.insert(u"lastChunk"_s, true);
            broadcast({{u"artifactUpdate"_s, update}});
            break;
        }
        case Step::Type::StreamError:
            ++m_events;
            for (const QPointer<A2aStreamConnection> &c : std::as_const(m_streams)) {
                if (c)
                    c->sendError(-32603, s.text);
            }
            setStatus(kFailed, s.text);
            finishTurn();
            return;
        }
        scheduleNext();
    }

    A2aSimulator *m_sim;
    QString m_id;
    QString m_contextId;
    TaskOptions m_options;
    QString m_state = kSubmitted;
    QString m_timestamp;
    QJsonObject m_statusMessage;
    QList<Artifact> m_artifacts;
    QJsonArray m_history;
    QList<Step> m_steps;
    qsizetype m_next = 0;
    QTimer m_timer;
    QList<QPointer<A2aStreamConnection>> m_streams;
    QList<std::function<void()>> m_waiters;
    int m_streamConnections = 0;
    int m_events = 0;
};

// --- the server ---------------------------------------------------------------------------------

A2aSimulator::A2aSimulator(QObject *parent)
    : A2aSimulator(A2aSimConfig(), parent)
{}

A2aSimulator::A2aSimulator(const A2aSimConfig &config, QObject *parent)
    : QObject(parent)
    , m_server(new QTcpServer(this))
{
    setConfig(config);
    connect(m_server, &QTcpServer::newConnection, this, &A2aSimulator::onNewConnection);
}

A2aSimulator::~A2aSimulator()
{
    m_server->close();
}

bool A2aSimulator::listen(const QHostAddress &address, quint16 port)
{
    return m_server->listen(address, port);
}

void A2aSimulator::close()
{
    m_server->close();
}

QString A2aSimulator::errorString() const
{
    return m_server->errorString();
}

quint16 A2aSimulator::port() const
{
    return m_server->serverPort();
}

QUrl A2aSimulator::baseUrl() const
{
    QHostAddress host = m_server->serverAddress();
    if (host == QHostAddress::Any || host == QHostAddress::AnyIPv4 || host.isNull())
        host = QHostAddress(QHostAddress::LocalHost);
    else if (host == QHostAddress::AnyIPv6)
        host = QHostAddress(QHostAddress::LocalHostIPv6);
    QUrl url;
    url.setScheme(u"http"_s);
    url.setHost(host.toString());
    url.setPort(port());
    return url;
}

void A2aSimulator::setConfig(const A2aSimConfig &config)
{
    m_config = config;
    m_faultsServed = QList<int>(m_config.rpcFaults.size(), 0);
}

void A2aSimulator::addRpcFault(const A2aRpcFault &fault)
{
    m_config.rpcFaults.append(fault);
    m_faultsServed.append(0);
}

int A2aSimulator::requestCount(const QString &rpcMethod) const
{
    return int(std::count_if(m_records.cbegin(), m_records.cend(),
                             [&](const A2aRequestRecord &r) { return r.rpcMethod == rpcMethod; }));
}

std::optional<A2aTaskInfo> A2aSimulator::task(const QString &id) const
{
    const A2aTask *t = m_tasks.value(id);
    if (!t)
        return std::nullopt;
    A2aTaskInfo info;
    info.id = t->id();
    info.contextId = t->contextId();
    info.state = t->state();
    info.text = t->text();
    info.streamConnections = t->streamConnections();
    info.eventsGenerated = t->eventsGenerated();
    info.ended = t->isTerminal();
    return info;
}

QStringList A2aSimulator::taskIds() const
{
    return m_taskOrder;
}

QString A2aSimulator::chunkText(int chunks)
{
    QString text;
    for (int i = 0; i < chunks; ++i)
        text += u"tok%1 "_s.arg(i);
    return text;
}

QString A2aSimulator::helpText()
{
    return u"A2A mode (--a2a): the first word of the user's text picks the scenario: normal, long, fail, "
           u"reject, input, auth, error, message, multi, replace. key=value words set chunks, "
           u"interval_ms, fail_after, status_every, drop_after, drop_mode (close|reset|mid), "
           u"fault_connections, cancel (refuse|slow), cancel_delay_ms.\n"_s;
}

void A2aSimulator::onNewConnection()
{
    while (m_server->hasPendingConnections()) {
        QTcpSocket *socket = m_server->nextPendingConnection();
        auto *connection = new HttpConnection(socket, HttpLimits(), this);
        connect(connection, &HttpConnection::requestReceived, this, &A2aSimulator::handleRequest);
    }
}

void A2aSimulator::sendPlain(HttpConnection *connection, int status, const QByteArray &contentType,
                             const QByteArray &body)
{
    if (connection)
        connection->sendResponse(status, {{"Content-Type", contentType}}, body);
}

bool A2aSimulator::authorised(const HttpRequest &request) const
{
    if (m_config.apiKey.isEmpty())
        return true;
    const QByteArray key = m_config.apiKey.toUtf8();
    if (m_config.authScheme == A2aSimConfig::AuthScheme::ApiKeyHeader)
        return request.header(m_config.apiKeyHeader.toLower().toUtf8()) == key;
    const QByteArray authorization = request.header("authorization");
    return authorization.size() > 7 && authorization.left(7).compare("bearer ", Qt::CaseInsensitive) == 0
           && authorization.mid(7).trimmed() == key;
}

void A2aSimulator::handleRequest(HttpConnection *connection, const HttpRequest &request)
{
    A2aRequestRecord record;
    record.httpMethod = request.method;
    record.path = request.path;
    record.headers = request.headers;
    record.body = request.body;
    if (m_records.size() > 20000)
        m_records.remove(0, 10000);
    m_records.append(record);
    const qsizetype index = m_records.size() - 1;

    if (request.method == "GET" && request.path == u"/.well-known/agent-card.json"_s) {
        handleCard(connection, request, false);
        return;
    }
    if (request.method == "GET" && request.path == u"/.well-known/agent.json"_s) {
        handleCard(connection, request, true);
        return;
    }
    if (request.path == u"/a2a"_s || request.path == u"/a2a/"_s) {
        if (request.method != "POST") {
            sendPlain(connection, 405, "text/plain", "Method Not Allowed\n");
            return;
        }
        if (!authorised(request)) {
            sendPlain(connection, 401, "application/json",
                      R"({"error":"unauthorized: missing or wrong credentials"})");
            return;
        }
        handleRpc(Exchange{connection, QJsonValue(), index}, request);
        return;
    }
    sendPlain(connection, 404, "text/html; charset=utf-8",
              "<!DOCTYPE html><html><head><title>404 Not Found</title></head><body>Cannot " + request.method
                  + ' ' + request.path.toUtf8() + "</body></html>\n");
}

QJsonObject A2aSimulator::card() const
{
    const QString rpcUrl = baseUrl().toString() + u"/a2a"_s;
    const QJsonArray skills{
        QJsonObject{{u"id"_s, u"chunks"_s},
                    {u"name"_s, u"Chunked answers"_s},
                    {u"description"_s, u"Streams its answer as artifact chunks."_s},
                    {u"tags"_s, QJsonArray{u"test"_s}},
                    {u"examples"_s, QJsonArray{u"normal chunks=20"_s}}},
        QJsonObject{{u"id"_s, u"weather"_s},
                    {u"name"_s, u"Weather"_s},
                    {u"description"_s, u"Asks which city, then answers."_s},
                    {u"tags"_s, QJsonArray{u"test"_s, u"input-required"_s}}},
    };
    QJsonObject c{{u"name"_s, m_config.agentName},
                  {u"description"_s, u"A2A test double of Runwatch (runwatch-sim --a2a)."_s},
                  {u"version"_s, u"1.0.0"_s},
                  {u"provider"_s,
                   QJsonObject{{u"organization"_s, u"Runwatch"_s}, {u"url"_s, u"https://example.invalid"_s}}},
                  {u"capabilities"_s,
                   QJsonObject{{u"streaming"_s, m_config.streaming}, {u"pushNotifications"_s, false}}},
                  {u"defaultInputModes"_s, QJsonArray{u"text/plain"_s}},
                  {u"defaultOutputModes"_s, QJsonArray{u"text/plain"_s}},
                  {u"skills"_s, skills}};
    const bool key = !m_config.apiKey.isEmpty();
    const bool bearer = m_config.authScheme == A2aSimConfig::AuthScheme::Bearer;
    if (v03()) {
        c.insert(u"protocolVersion"_s, u"0.3.0"_s);
        c.insert(u"url"_s, rpcUrl);
        c.insert(u"preferredTransport"_s, u"JSONRPC"_s);
        if (key) {
            c.insert(u"securitySchemes"_s,
                     QJsonObject{
                         {u"auth"_s, bearer ? QJsonObject{{u"type"_s, u"http"_s}, {u"scheme"_s, u"bearer"_s}}
                                            : QJsonObject{{u"type"_s, u"apiKey"_s},
                                                          {u"in"_s, u"header"_s},
                                                          {u"name"_s, m_config.apiKeyHeader}}}});
            c.insert(u"security"_s, QJsonArray{QJsonObject{{u"auth"_s, QJsonArray{}}}});
        }
    } else {
        c.insert(u"supportedInterfaces"_s, QJsonArray{QJsonObject{{u"url"_s, rpcUrl},
                                                                  {u"protocolBinding"_s, u"JSONRPC"_s},
                                                                  {u"tenant"_s, u""_s},
                                                                  {u"protocolVersion"_s, u"1.0"_s}}});
        if (key) {
            c.insert(u"securitySchemes"_s,
                     QJsonObject{{u"auth"_s,
                                  bearer ? QJsonObject{{u"httpAuthSecurityScheme"_s,
                                                        QJsonObject{{u"scheme"_s, u"Bearer"_s}}}}
                                         : QJsonObject{{u"apiKeySecurityScheme"_s,
                                                        QJsonObject{{u"location"_s, u"header"_s},
                                                                    {u"name"_s, m_config.apiKeyHeader}}}}}});
            c.insert(u"securityRequirements"_s,
                     QJsonArray{QJsonObject{
                         {u"schemes"_s, QJsonObject{{u"auth"_s, QJsonObject{{u"list"_s, QJsonArray{}}}}}}}});
        }
    }
    return c;
}

void A2aSimulator::handleCard(HttpConnection *connection, const HttpRequest &request, bool legacyPath)
{
    Q_UNUSED(request)
    using Mode = A2aSimConfig::CardMode;
    const Mode mode = m_config.cardMode;
    // 1.0 agents serve only agent-card.json; a 0.3 one also the old name; a "legacy path" agent
    // only the old name.
    const bool served = mode == Mode::LegacyPath ? legacyPath : (!legacyPath || v03());
    if (mode == Mode::Missing || !served) {
        sendPlain(
            connection, 404, "text/html; charset=utf-8",
            "<!DOCTYPE html><html><head><title>404 Not Found</title></head><body>Not Found</body></html>\n");
        return;
    }
    switch (mode) {
    case Mode::Malformed:
        sendPlain(connection, 200, "application/json",
                  R"({"name":"Broken agent","supportedInterfaces":[{"url":)");
        return;
    case Mode::NoName:
        sendPlain(connection, 200, "application/json", R"({"status":"ok","service":"not an agent"})");
        return;
    case Mode::Html:
        sendPlain(
            connection, 200, "text/html; charset=utf-8",
            "<!DOCTYPE html><html><head><title>Sign in</title></head><body>Please sign in.</body></html>\n");
        return;
    case Mode::Normal:
    case Mode::LegacyPath:
    case Mode::Missing:
        break;
    }
    connection->sendResponse(200, {{"Content-Type", "application/json"}, {"Vary", "A2A-Version"}},
                             compact(card()));
}

void A2aSimulator::sendResult(const Exchange &exchange, const QJsonValue &result)
{
    if (!exchange.connection)
        return;
    const QJsonObject envelope{{u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, exchange.rpcId}, {u"result"_s, result}};
    exchange.connection->sendResponse(200, {{"Content-Type", "application/json"}}, compact(envelope));
    if (exchange.record >= 0 && exchange.record < m_records.size())
        m_records[exchange.record].status = 200;
}

void A2aSimulator::sendRpcError(const Exchange &exchange, int code, const QString &message, int httpStatus)
{
    if (!exchange.connection)
        return;
    QJsonObject error{{u"code"_s, code}, {u"message"_s, message}};
    if (!v03()) {
        static const QHash<int, QString> reasons{
            {-32001, u"TASK_NOT_FOUND"_s},        {-32002, u"TASK_NOT_CANCELABLE"_s},
            {-32004, u"UNSUPPORTED_OPERATION"_s}, {-32005, u"CONTENT_TYPE_NOT_SUPPORTED"_s},
            {-32009, u"VERSION_NOT_SUPPORTED"_s}, {-32602, u"INVALID_PARAMS"_s},
        };
        if (reasons.contains(code)) {
            error.insert(u"data"_s,
                         QJsonArray{QJsonObject{{u"@type"_s, u"type.googleapis.com/google.rpc.ErrorInfo"_s},
                                                {u"reason"_s, reasons.value(code)},
                                                {u"domain"_s, u"a2a-protocol.org"_s}}});
        }
    }
    const QJsonObject envelope{{u"jsonrpc"_s, u"2.0"_s}, {u"id"_s, exchange.rpcId}, {u"error"_s, error}};
    exchange.connection->sendResponse(httpStatus, {{"Content-Type", "application/json"}}, compact(envelope));
    if (exchange.record >= 0 && exchange.record < m_records.size())
        m_records[exchange.record].status = httpStatus;
}

void A2aSimulator::handleRpc(const Exchange &incoming, const HttpRequest &request)
{
    Exchange exchange = incoming;
    const QByteArray contentType = request.header("content-type").toLower();
    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(request.body, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        sendRpcError(exchange, -32700, u"Parse error"_s);
        return;
    }
    const QJsonObject rpc = doc.object();
    exchange.rpcId = rpc.value(u"id"_s);
    const QString method = rpc.value(u"method"_s).toString();
    if (exchange.record >= 0 && exchange.record < m_records.size()) {
        m_records[exchange.record].rpcMethod = method;
        Q_EMIT requestReceived(m_records.at(exchange.record));
    }
    if (!doc.isObject() || rpc.value(u"jsonrpc"_s).toString() != u"2.0"_s || method.isEmpty()) {
        sendRpcError(exchange, -32600, u"Invalid JSON-RPC Request."_s);
        return;
    }
    if (!contentType.startsWith("application/json")) {
        sendRpcError(exchange, -32005,
                     u"Content type not supported: %1"_s.arg(QString::fromLatin1(contentType)));
        return;
    }
    if (!v03()) {
        // A 1.0 agent without a 0.3 interface refuses requests that do not say 1.0 (§0.2).
        const QByteArray version = request.header("a2a-version");
        if (version != "1.0") {
            sendRpcError(exchange, -32009,
                         u"A2A-Version %1 is not supported by this agent (supported: 1.0)."_s.arg(
                             version.isEmpty() ? u"0.3 (no header)"_s : QString::fromLatin1(version)));
            return;
        }
    }
    for (qsizetype i = 0; i < m_config.rpcFaults.size(); ++i) {
        const A2aRpcFault &f = m_config.rpcFaults.at(i);
        if ((f.method.isEmpty() || f.method == method) && (f.count < 0 || m_faultsServed.at(i) < f.count)) {
            ++m_faultsServed[i];
            sendRpcError(exchange, f.code, f.message, f.httpStatus);
            return;
        }
    }
    const QJsonValue paramsValue = rpc.value(u"params"_s);
    if (!paramsValue.isObject()) {
        sendRpcError(exchange, -32602, u"params must be an object."_s);
        return;
    }
    const QJsonObject params = paramsValue.toObject();
    const bool v1 = !v03();
    if (method == (v1 ? u"SendMessage"_s : u"message/send"_s))
        handleSend(exchange, params, false);
    else if (method == (v1 ? u"SendStreamingMessage"_s : u"message/stream"_s))
        handleSend(exchange, params, true);
    else if (method == (v1 ? u"GetTask"_s : u"tasks/get"_s))
        handleGet(exchange, params);
    else if (v1 && method == u"ListTasks"_s)
        handleList(exchange, params);
    else if (method == (v1 ? u"CancelTask"_s : u"tasks/cancel"_s))
        handleCancel(exchange, params);
    else if (method == (v1 ? u"SubscribeToTask"_s : u"tasks/resubscribe"_s))
        handleSubscribe(exchange, params);
    else
        sendRpcError(exchange, -32601, u"Method not found: %1"_s.arg(method));
}

A2aStreamConnection *A2aSimulator::openStream(const Exchange &exchange, A2aTask *task)
{
    const StreamFaults &faults = task->options().faults;
    const int index = task->nextConnectionIndex();
    const bool faulted = faults.connections < 0 || index <= faults.connections;
    auto *stream = new A2aStreamConnection(exchange.connection, exchange.rpcId, v03(), faults, faulted, this);
    ++m_streamConnections;
    task->attach(stream);
    if (exchange.record >= 0 && exchange.record < m_records.size())
        m_records[exchange.record].status = 200;
    return stream;
}

void A2aSimulator::handleSend(const Exchange &exchange, const QJsonObject &params, bool streaming)
{
    const QJsonObject message = params.value(u"message"_s).toObject();
    if (message.isEmpty() || !message.value(u"parts"_s).isArray() || messageText(message).isEmpty()) {
        sendRpcError(exchange, -32602, u"message with at least one text part is required."_s);
        return;
    }
    if (streaming && !m_config.streaming) {
        sendRpcError(exchange, -32004, u"Streaming is not supported by this agent."_s);
        return;
    }
    const QJsonObject configuration = params.value(u"configuration"_s).toObject();
    // 1.0: blocking unless returnImmediately; 0.3: non-blocking unless blocking:true.
    const bool blocking = v03() ? configuration.value(u"blocking"_s).toBool(false)
                                : !configuration.value(u"returnImmediately"_s).toBool(false);
    const auto reply = [this](const QJsonObject &response) -> QJsonValue {
        return v03() ? QJsonValue(responseV03(response)) : QJsonValue(response);
    };

    const QString taskId = message.value(u"taskId"_s).toString();
    if (!taskId.isEmpty()) {
        A2aTask *task = m_tasks.value(taskId);
        if (!task) {
            sendRpcError(exchange, -32001, u"Task not found: %1"_s.arg(taskId));
            return;
        }
        const QString contextId = message.value(u"contextId"_s).toString();
        if (!contextId.isEmpty() && contextId != task->contextId()) {
            sendRpcError(exchange, -32602, u"contextId does not match the task's context."_s);
            return;
        }
        if (task->isTerminal()) {
            sendRpcError(exchange, -32004,
                         u"Task %1 is in a terminal state and cannot be modified."_s.arg(taskId));
            return;
        }
        if (!task->isInterrupted()) {
            sendRpcError(exchange, -32004, u"Task %1 is not waiting for input."_s.arg(taskId));
            return;
        }
        task->answer(message);
        if (streaming) {
            A2aStreamConnection *stream = openStream(exchange, task);
            stream->send({{u"task"_s, task->snapshot()}});
        } else if (blocking) {
            QPointer<A2aTask> guard = task;
            task->addWaiter([this, exchange, guard, reply] {
                if (guard)
                    sendResult(exchange, reply({{u"task"_s, guard->snapshot()}}));
            });
        } else {
            sendResult(exchange, reply({{u"task"_s, task->snapshot()}}));
        }
        return;
    }

    const TaskOptions options = optionsFrom(m_config, messageText(message));
    const QString contextId = message.value(u"contextId"_s).toString(uuid());
    if (options.scenario == TaskScenario::Message) {
        const QJsonObject answer{
            {u"messageId"_s, uuid()},
            {u"contextId"_s, contextId},
            {u"role"_s, u"ROLE_AGENT"_s},
            {u"parts"_s, QJsonArray{QJsonObject{{u"text"_s, u"Hello from the simulated agent."_s}}}}};
        if (streaming) {
            auto *stream
                = new A2aStreamConnection(exchange.connection, exchange.rpcId, v03(), {}, false, this);
            ++m_streamConnections;
            stream->send({{u"message"_s, answer}});
            stream->end();
            stream->deleteLater();
        } else {
            sendResult(exchange, reply({{u"message"_s, answer}}));
        }
        return;
    }
    auto *task = new A2aTask(this, uuid(), contextId, options, message);
    m_tasks.insert(task->id(), task);
    m_taskOrder.append(task->id());
    ++m_tasksCreated;
    m_lastTaskId = task->id();
    Q_EMIT taskCreated(task->id());
    if (streaming) {
        A2aStreamConnection *stream = openStream(exchange, task);
        stream->send({{u"task"_s, task->snapshot()}});
    } else if (blocking) {
        QPointer<A2aTask> guard = task;
        task->addWaiter([this, exchange, guard, reply] {
            if (guard)
                sendResult(exchange, reply({{u"task"_s, guard->snapshot()}}));
        });
    } else {
        sendResult(exchange, reply({{u"task"_s, task->snapshot()}}));
    }
    task->start();
}

void A2aSimulator::handleGet(const Exchange &exchange, const QJsonObject &params)
{
    const QString id = params.value(u"id"_s).toString();
    A2aTask *task = m_tasks.value(id);
    if (!task) {
        sendRpcError(exchange, -32001, u"Task not found: %1"_s.arg(id));
        return;
    }
    const int history = params.contains(u"historyLength"_s) ? params.value(u"historyLength"_s).toInt() : -1;
    const QJsonObject t = task->snapshot(history);
    sendResult(exchange, v03() ? QJsonValue(taskV03(t)) : QJsonValue(t));
}

void A2aSimulator::handleList(const Exchange &exchange, const QJsonObject &params)
{
    int pageSize = params.value(u"pageSize"_s).toInt(50);
    if (pageSize < 1 || pageSize > 100) {
        sendRpcError(exchange, -32602, u"pageSize must be between 1 and 100."_s);
        return;
    }
    const int offset = params.value(u"pageToken"_s).toString().toInt();
    const QString contextId = params.value(u"contextId"_s).toString();
    const int history = params.contains(u"historyLength"_s) ? params.value(u"historyLength"_s).toInt() : -1;
    const bool artifacts = params.value(u"includeArtifacts"_s).toBool(false);
    QList<A2aTask *> tasks;
    for (const QString &id : std::as_const(m_taskOrder)) {
        A2aTask *t = m_tasks.value(id);
        if (t && (contextId.isEmpty() || t->contextId() == contextId))
            tasks.prepend(t); // newest first
    }
    std::stable_sort(tasks.begin(), tasks.end(),
                     [](const A2aTask *a, const A2aTask *b) { return a->timestamp() > b->timestamp(); });
    QJsonArray page;
    for (qsizetype i = offset; i < tasks.size() && page.size() < pageSize; ++i)
        page.append(tasks.at(i)->snapshot(history, artifacts));
    const qsizetype next = offset + page.size();
    sendResult(exchange,
               QJsonObject{{u"tasks"_s, page},
                           {u"nextPageToken"_s, next < tasks.size() ? QString::number(next) : QString()},
                           {u"pageSize"_s, pageSize},
                           {u"totalSize"_s, int(tasks.size())}});
}

void A2aSimulator::handleCancel(const Exchange &exchange, const QJsonObject &params)
{
    const QString id = params.value(u"id"_s).toString();
    A2aTask *task = m_tasks.value(id);
    if (!task) {
        sendRpcError(exchange, -32001, u"Task not found: %1"_s.arg(id));
        return;
    }
    const auto answer = [this, exchange](A2aTask *t) {
        sendResult(exchange, v03() ? QJsonValue(taskV03(t->snapshot())) : QJsonValue(t->snapshot()));
    };
    if (task->state() == kCanceled) {
        answer(task); // idempotent, as in the JS SDK (§8)
        return;
    }
    if (task->isTerminal() || task->options().cancel == u"refuse"_s) {
        sendRpcError(exchange, -32002, u"Task %1 cannot be canceled (state %2)."_s.arg(id, task->state()));
        return;
    }
    if (task->options().cancel == u"slow"_s) {
        // The agent acknowledges late, like an executor that finishes its step first.
        QPointer<A2aTask> guard = task;
        QTimer::singleShot(task->options().cancelDelayMs, this, [guard, answer] {
            if (!guard)
                return;
            if (!guard->isTerminal())
                guard->cancel();
            answer(guard);
        });
        return;
    }
    task->cancel();
    answer(task);
}

void A2aSimulator::handleSubscribe(const Exchange &exchange, const QJsonObject &params)
{
    const QString id = params.value(u"id"_s).toString();
    A2aTask *task = m_tasks.value(id);
    if (!task) {
        sendRpcError(exchange, -32001, u"Task not found: %1"_s.arg(id));
        return;
    }
    if (!m_config.streaming) {
        sendRpcError(exchange, -32004, u"Streaming is not supported by this agent."_s);
        return;
    }
    if (task->isTerminal()) {
        const QString message = u"Task %1 is in a terminal state and cannot be subscribed to."_s.arg(id);
        if (v03()) {
            // 0.3: an SSE stream that carries only the error (§6, JS SDK compat).
            auto *stream
                = new A2aStreamConnection(exchange.connection, exchange.rpcId, true, {}, false, this);
            ++m_streamConnections;
            stream->sendError(-32004, message);
            stream->end();
            stream->deleteLater();
        } else {
            // 1.0: plain JSON.
            sendRpcError(exchange, -32004, message);
        }
        return;
    }
    // The first event is the task as it is now; then everything that follows (§6).
    A2aStreamConnection *stream = openStream(exchange, task);
    stream->send({{u"task"_s, task->snapshot()}});
}

} // namespace RunwatchSim
