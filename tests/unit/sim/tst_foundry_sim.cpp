// SPDX-License-Identifier: GPL-3.0-or-later
// The Foundry Agent Service simulator against a plain QNetworkAccessManager (never the client's
// code): the contract of docs/protocols/openai-responses-and-foundry.md §5 as the simulator serves it.
#include "foundry/foundrysim.h"
#include "simcommandline.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QtTest>

using namespace RunwatchSim;
using namespace Qt::StringLiterals;

namespace {

constexpr auto kToken = "entra-token-1";

struct Reply
{
    int status = 0;
    QByteArray body;
    QList<QNetworkReply::RawHeaderPair> headers;
    QNetworkReply::NetworkError error = QNetworkReply::NoError;

    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
    QByteArray header(const QByteArray &name) const
    {
        for (const auto &h : headers) {
            if (h.first.compare(name, Qt::CaseInsensitive) == 0)
                return h.second;
        }
        return {};
    }
};

class Client
{
public:
    explicit Client(QUrl base, QByteArray token = kToken)
        : m_base(std::move(base))
        , m_token(std::move(token))
    {}

    // `path` relative to the project endpoint; api-version is added unless `apiVersion` is null.
    Reply send(const QByteArray &method, const QString &path, const QJsonObject &body = {},
               const QString &apiVersion = u"2025-05-01"_s)
    {
        QUrl url = m_base;
        const qsizetype q = path.indexOf(u'?');
        url.setPath(m_base.path() + (q < 0 ? path : path.left(q)));
        QUrlQuery query(q < 0 ? QString() : path.mid(q + 1));
        if (!apiVersion.isNull())
            query.addQueryItem(u"api-version"_s, apiVersion);
        url.setQuery(query);
        QNetworkRequest request(url);
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        if (!m_token.isEmpty())
            request.setRawHeader("Authorization", "Bearer " + m_token);
        const QByteArray payload
            = body.isEmpty() ? QByteArray() : QJsonDocument(body).toJson(QJsonDocument::Compact);
        QNetworkReply *reply = m_nam.sendCustomRequest(request, method, payload);
        QSignalSpy done(reply, &QNetworkReply::finished);
        if (!reply->isFinished())
            done.wait(20000);
        Reply r;
        r.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        r.body = reply->readAll();
        r.headers = reply->rawHeaderPairs();
        r.error = reply->error();
        reply->deleteLater();
        return r;
    }

    Reply createThreadRun(const QString &prompt, bool stream, const QJsonObject &metadata = {},
                          const QString &agent = u"asst_sim_weather"_s)
    {
        QJsonObject body{
            {u"assistant_id"_s, agent},
            {u"thread"_s, QJsonObject{{u"messages"_s, QJsonArray{QJsonObject{{u"role"_s, u"user"_s},
                                                                             {u"content"_s, prompt}}}}}},
            {u"stream"_s, stream}};
        if (!metadata.isEmpty())
            body.insert(u"metadata"_s, metadata);
        return send("POST", u"/threads/runs"_s, body);
    }

    Reply getRun(const QString &thread, const QString &run)
    {
        return send("GET", u"/threads/%1/runs/%2"_s.arg(thread, run));
    }

    // Every message of a run, in order, following has_more/last_id.
    QList<QJsonObject> messages(const QString &thread, const QString &run, int limit = 20,
                                int *pages = nullptr)
    {
        QList<QJsonObject> all;
        QString after;
        int count = 0;
        for (;;) {
            QString path = u"/threads/%1/messages?run_id=%2&order=asc&limit=%3"_s.arg(thread, run).arg(limit);
            if (!after.isEmpty())
                path += u"&after="_s + after;
            const QJsonObject list = send("GET", path).json();
            ++count;
            for (const QJsonValue &m : list.value(u"data"_s).toArray())
                all.append(m.toObject());
            if (!list.value(u"has_more"_s).toBool())
                break;
            after = list.value(u"last_id"_s).toString();
        }
        if (pages)
            *pages = count;
        return all;
    }

private:
    QUrl m_base;
    QByteArray m_token;
    QNetworkAccessManager m_nam;
};

struct Ev
{
    QByteArray name;
    QByteArray data;
    QJsonObject json() const { return QJsonDocument::fromJson(data).object(); }
};

// SSE body → (event, data) pairs; any of the three line endings.
QList<Ev> parseSse(QByteArray body)
{
    body.replace("\r\n", "\n");
    body.replace('\r', '\n');
    QList<Ev> out;
    Ev current;
    bool any = false;
    for (const QByteArray &line : body.split('\n')) {
        if (line.isEmpty()) {
            if (any)
                out << current;
            current = Ev();
            any = false;
        } else if (line.startsWith("event: ")) {
            current.name = line.mid(7);
            any = true;
        } else if (line.startsWith("data: ")) {
            current.data = line.mid(6);
            any = true;
        }
    }
    return out;
}

QList<QByteArray> names(const QList<Ev> &events)
{
    QList<QByteArray> out;
    for (const Ev &e : events)
        out << e.name;
    return out;
}

QString deltaText(const QList<Ev> &events)
{
    QString text;
    for (const Ev &e : events) {
        if (e.name != "thread.message.delta")
            continue;
        for (const QJsonValue &part : e.json().value(u"delta"_s).toObject().value(u"content"_s).toArray())
            text += part.toObject().value(u"text"_s).toObject().value(u"value"_s).toString();
    }
    return text;
}

QString messagesText(const QList<QJsonObject> &messages)
{
    QString text;
    for (const QJsonObject &m : messages) {
        if (m.value(u"role"_s).toString() != "assistant"_L1)
            continue;
        for (const QJsonValue &part : m.value(u"content"_s).toArray())
            text += part.toObject().value(u"text"_s).toObject().value(u"value"_s).toString();
    }
    return text;
}

FoundrySimConfig fastConfig()
{
    FoundrySimConfig c;
    c.token = QString::fromLatin1(kToken);
    c.intervalMs = 2;
    return c;
}

bool waitStatus(const FoundrySimulator &sim, const QString &id, const QString &status, int ms = 10000)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms) {
        if (sim.run(id) && sim.run(id)->status == status)
            return true;
        QTest::qWait(5);
    }
    return false;
}

} // namespace

class TestFoundrySim final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // POST /threads/runs stream:true: thread.created, run lifecycle, step, message events, done;
    // the deltas are the message text of the run.
    void streamedRun()
    {
        FoundrySimulator sim(fastConfig());
        QVERIFY(sim.listen());
        QCOMPARE(sim.baseUrl().path(), u"/api/projects/runwatch-sim"_s);
        Client client(sim.baseUrl());
        const Reply r = client.createThreadRun(u"normal deltas=5"_s, true);
        QCOMPARE(r.status, 200);
        QVERIFY(r.header("content-type").startsWith("text/event-stream"));
        const QList<Ev> events = parseSse(r.body);
        const QList<QByteArray> expected{"thread.created",
                                         "thread.run.created",
                                         "thread.run.queued",
                                         "thread.run.in_progress",
                                         "thread.run.step.created",
                                         "thread.message.created",
                                         "thread.message.in_progress",
                                         "thread.message.delta",
                                         "thread.message.delta",
                                         "thread.message.delta",
                                         "thread.message.delta",
                                         "thread.message.delta",
                                         "thread.message.completed",
                                         "thread.run.step.completed",
                                         "thread.run.completed",
                                         "done"};
        QCOMPARE(names(events), expected);
        QCOMPARE(events.last().data, QByteArray("[DONE]"));
        // No `type` field in the JSON: clients must dispatch on the event name.
        QVERIFY(!events.at(7).json().contains(u"type"_s));
        QCOMPARE(deltaText(events), FoundrySimulator::tokenText(0, 5));
        const QJsonObject completed = events.at(events.size() - 2).json();
        QCOMPARE(completed.value(u"status"_s).toString(), u"completed"_s);
        QCOMPARE(completed.value(u"usage"_s).toObject().value(u"completion_tokens"_s).toInt(), 5);
        QVERIFY(completed.value(u"expires_at"_s).isNull());
        const QString thread = events.first().json().value(u"id"_s).toString();
        const QString run = completed.value(u"id"_s).toString();
        QCOMPARE(sim.run(run)->text, FoundrySimulator::tokenText(0, 5));
        QCOMPARE(messagesText(client.messages(thread, run)), FoundrySimulator::tokenText(0, 5));
        QCOMPARE(sim.runsCreated(), 1);
        QCOMPARE(sim.requests().first().apiVersion, u"2025-05-01"_s);
    }

    // Without stream: the run comes back queued with expires_at; polling sees it complete.
    void polledRun()
    {
        FoundrySimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const Reply r = client.createThreadRun(u"plain question deltas=4"_s, false);
        QCOMPARE(r.status, 200);
        const QJsonObject run = r.json();
        QCOMPARE(run.value(u"object"_s).toString(), u"thread.run"_s);
        QCOMPARE(run.value(u"status"_s).toString(), u"queued"_s);
        QVERIFY(run.value(u"expires_at"_s).toInteger() >= run.value(u"created_at"_s).toInteger() + 599);
        QVERIFY(run.value(u"usage"_s).isNull());
        const QString thread = run.value(u"thread_id"_s).toString();
        const QString id = run.value(u"id"_s).toString();
        QVERIFY(waitStatus(sim, id, u"completed"_s));
        const QJsonObject done = client.getRun(thread, id).json();
        QCOMPARE(done.value(u"status"_s).toString(), u"completed"_s);
        QVERIFY(done.value(u"completed_at"_s).toInteger() > 0);
        QCOMPARE(done.value(u"usage"_s).toObject().value(u"total_tokens"_s).toInt(),
                 done.value(u"usage"_s).toObject().value(u"prompt_tokens"_s).toInt() + 4);
        QCOMPARE(messagesText(client.messages(thread, id)), FoundrySimulator::tokenText(0, 4));
        // The thread also lists the user's message; default order is desc.
        const QJsonArray all
            = client.send("GET", u"/threads/%1/messages"_s.arg(thread)).json().value(u"data"_s).toArray();
        QCOMPARE(all.size(), 2);
        QCOMPARE(all.at(0).toObject().value(u"role"_s).toString(), u"assistant"_s);
        QCOMPARE(all.at(1).toObject().value(u"role"_s).toString(), u"user"_s);
    }

    // Thread, message and run created separately (what the official client's step-by-step API does).
    void separateThreadAndRun()
    {
        FoundrySimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const QString thread
            = client.send("POST", u"/threads"_s, QJsonObject{}).json().value(u"id"_s).toString();
        QVERIFY(thread.startsWith(u"thread_"_s));
        QCOMPARE(client
                     .send("POST", u"/threads/%1/messages"_s.arg(thread),
                           QJsonObject{{u"role"_s, u"user"_s}, {u"content"_s, u"deltas=3 hello"_s}})
                     .status,
                 200);
        const Reply r
            = client.send("POST", u"/threads/%1/runs"_s.arg(thread),
                          QJsonObject{{u"assistant_id"_s, u"asst_sim_research"_s}, {u"stream"_s, true}});
        QCOMPARE(r.status, 200);
        const QList<Ev> events = parseSse(r.body);
        QCOMPARE(events.first().name, QByteArray("thread.run.created")); // no thread.created here
        QCOMPARE(deltaText(events), FoundrySimulator::tokenText(0, 3));
        QCOMPARE(events.first().json().value(u"model"_s).toString(), u"gpt-4.1"_s);
    }

    // The long answer: several messages of several content parts, more than one page.
    void longPagedAnswer()
    {
        FoundrySimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const QJsonObject run = client.createThreadRun(u"long interval_ms=0"_s, false).json();
        const QString id = run.value(u"id"_s).toString();
        QVERIFY(waitStatus(sim, id, u"completed"_s, 20000));
        int pages = 0;
        const QList<QJsonObject> messages
            = client.messages(run.value(u"thread_id"_s).toString(), id, 20, &pages);
        QCOMPARE(messages.size(), 25);
        QCOMPARE(pages, 2);
        for (const QJsonObject &m : messages)
            QCOMPARE(m.value(u"content"_s).toArray().size(), 3);
        QCOMPARE(messagesText(messages), FoundrySimulator::tokenText(0, 25 * 3 * 4));
        QCOMPARE(sim.run(id)->text, FoundrySimulator::tokenText(0, 25 * 3 * 4));
        // A code_interpreter step precedes the messages.
        const QJsonArray steps = client
                                     .send("GET", u"/threads/%1/runs/%2/steps?order=asc&limit=1"_s.arg(
                                                      run.value(u"thread_id"_s).toString(), id))
                                     .json()
                                     .value(u"data"_s)
                                     .toArray();
        QCOMPARE(steps.size(), 1);
        const QJsonObject details = steps.at(0).toObject().value(u"step_details"_s).toObject();
        QCOMPARE(details.value(u"tool_calls"_s).toArray().at(0).toObject().value(u"type"_s).toString(),
                 u"code_interpreter"_s);
        // Descending pages with before/after cursors do not overlap.
        const QString thread = run.value(u"thread_id"_s).toString();
        const QJsonObject first
            = client.send("GET", u"/threads/%1/messages?run_id=%2&limit=10"_s.arg(thread, id)).json();
        const QJsonObject second = client
                                       .send("GET", u"/threads/%1/messages?run_id=%2&limit=10&after=%3"_s.arg(
                                                        thread, id, first.value(u"last_id"_s).toString()))
                                       .json();
        QCOMPARE(first.value(u"data"_s).toArray().size(), 10);
        QCOMPARE(second.value(u"data"_s).toArray().size(), 10);
        QVERIFY(first.value(u"last_id"_s) != second.value(u"first_id"_s));
        QCOMPARE(client.send("GET", u"/threads/%1/messages?limit=101"_s.arg(thread)).status, 400);
    }

    // Two function calls: requires_action names both; a submit with one output is refused; one
    // submit with both (streamed) continues the same run, starting with what the submit caused.
    void toolOutputsTwoCalls()
    {
        FoundrySimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const Reply created = client.createThreadRun(u"tools deltas=2"_s, true);
        const QList<Ev> first = parseSse(created.body);
        QCOMPARE(first.at(first.size() - 2).name, QByteArray("thread.run.requires_action"));
        QCOMPARE(first.last().name, QByteArray("done")); // the stream of the create ends here
        const QJsonObject run = first.at(first.size() - 2).json();
        QCOMPARE(run.value(u"status"_s).toString(), u"requires_action"_s);
        QVERIFY(!run.value(u"expires_at"_s).isNull());
        const QJsonObject action = run.value(u"required_action"_s).toObject();
        QCOMPARE(action.value(u"type"_s).toString(), u"submit_tool_outputs"_s);
        const QJsonArray calls
            = action.value(u"submit_tool_outputs"_s).toObject().value(u"tool_calls"_s).toArray();
        QCOMPARE(calls.size(), 2);
        QCOMPARE(calls.at(0).toObject().value(u"function"_s).toObject().value(u"name"_s).toString(),
                 u"get_weather"_s);
        QCOMPARE(calls.at(1).toObject().value(u"function"_s).toObject().value(u"name"_s).toString(),
                 u"get_time"_s);
        QVERIFY(calls.at(0)
                    .toObject()
                    .value(u"function"_s)
                    .toObject()
                    .value(u"arguments"_s)
                    .toString()
                    .contains(u"Seattle"_s));
        const QString thread = run.value(u"thread_id"_s).toString();
        const QString id = run.value(u"id"_s).toString();
        const QString a = calls.at(0).toObject().value(u"id"_s).toString();
        const QString b = calls.at(1).toObject().value(u"id"_s).toString();
        QCOMPARE(sim.run(id)->pendingCalls.size(), 2);

        const QString submitPath = u"/threads/%1/runs/%2/submit_tool_outputs"_s.arg(thread, id);
        const Reply partial = client.send(
            "POST", submitPath,
            QJsonObject{{u"tool_outputs"_s,
                         QJsonArray{QJsonObject{{u"tool_call_id"_s, a}, {u"output"_s, u"12C"_s}}}}});
        QCOMPARE(partial.status, 400);
        QVERIFY(partial.json().value(u"error"_s).toObject().value(u"message"_s).toString().contains(b));
        QCOMPARE(sim.run(id)->status, u"requires_action"_s);

        const Reply submitted = client.send(
            "POST", submitPath,
            QJsonObject{{u"tool_outputs"_s,
                         QJsonArray{QJsonObject{{u"tool_call_id"_s, a}, {u"output"_s, u"12C"_s}},
                                    QJsonObject{{u"tool_call_id"_s, b}, {u"output"_s, u"9:00"_s}}}},
                        {u"stream"_s, true}});
        QCOMPARE(submitted.status, 200);
        const QList<Ev> second = parseSse(submitted.body);
        QCOMPARE(second.first().name, QByteArray("thread.run.queued"));
        QCOMPARE(second.at(second.size() - 2).name, QByteArray("thread.run.completed"));
        const QString expected = u"[%1: 12C] [%2: 9:00] "_s.arg(a, b) + FoundrySimulator::tokenText(0, 2);
        QCOMPARE(deltaText(second), expected);
        QCOMPARE(messagesText(client.messages(thread, id)), expected);
        QCOMPARE(sim.runsCreated(), 1);
        // The tool step carries the outputs.
        const QJsonArray steps = client.send("GET", u"/threads/%1/runs/%2/steps?order=asc"_s.arg(thread, id))
                                     .json()
                                     .value(u"data"_s)
                                     .toArray();
        const QJsonObject toolStep = steps.at(0).toObject();
        QCOMPARE(toolStep.value(u"status"_s).toString(), u"completed"_s);
        QCOMPARE(toolStep.value(u"step_details"_s)
                     .toObject()
                     .value(u"tool_calls"_s)
                     .toArray()
                     .at(1)
                     .toObject()
                     .value(u"function"_s)
                     .toObject()
                     .value(u"output"_s)
                     .toString(),
                 u"9:00"_s);
        // A second submit is refused: the run no longer requires action.
        QCOMPARE(client.send("POST", submitPath, QJsonObject{{u"tool_outputs"_s, QJsonArray()}}).status, 400);
    }

    // MCP approvals: submit_tool_approval; approve and reject reach the run.
    void approvals_data()
    {
        QTest::addColumn<bool>("approve");
        QTest::newRow("approve") << true;
        QTest::newRow("reject") << false;
    }
    void approvals()
    {
        QFETCH(bool, approve);
        FoundrySimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl(), kToken);
        const QJsonObject created = client.createThreadRun(u"approval deltas=1"_s, false).json();
        const QString thread = created.value(u"thread_id"_s).toString();
        const QString id = created.value(u"id"_s).toString();
        QVERIFY(waitStatus(sim, id, u"requires_action"_s));
        const QJsonObject action = client.getRun(thread, id).json().value(u"required_action"_s).toObject();
        QCOMPARE(action.value(u"type"_s).toString(), u"submit_tool_approval"_s);
        const QJsonObject call = action.value(u"submit_tool_approval"_s)
                                     .toObject()
                                     .value(u"tool_calls"_s)
                                     .toArray()
                                     .at(0)
                                     .toObject();
        QCOMPARE(call.value(u"type"_s).toString(), u"mcp"_s);
        QCOMPARE(call.value(u"server_label"_s).toString(), u"docs"_s);
        QCOMPARE(call.value(u"name"_s).toString(), u"search_docs"_s);
        const QString path = u"/threads/%1/runs/%2/submit_tool_outputs"_s.arg(thread, id);
        // Tool outputs do not answer an approval request.
        QCOMPARE(client.send("POST", path, QJsonObject{{u"tool_outputs"_s, QJsonArray()}}).status, 400);
        const Reply r = client.send(
            "POST", path,
            QJsonObject{{u"tool_approvals"_s, QJsonArray{QJsonObject{{u"tool_call_id"_s, call.value(u"id"_s)},
                                                                     {u"approve"_s, approve},
                                                                     {u"headers"_s, QJsonObject()}}}}});
        QCOMPARE(r.status, 200);
        QCOMPARE(r.json().value(u"status"_s).toString(), u"queued"_s);
        QVERIFY(waitStatus(sim, id, u"completed"_s));
        QCOMPARE(sim.run(id)->text, (approve ? u"[approved: search_docs] "_s : u"[rejected: search_docs] "_s)
                                        + FoundrySimulator::tokenText(0, 1));
    }

    // Nobody answers: the run expires, terminal, and a late submit is refused.
    void expiry()
    {
        FoundrySimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const QJsonObject created = client.createThreadRun(u"expire expires_ms=300"_s, false).json();
        const QString thread = created.value(u"thread_id"_s).toString();
        const QString id = created.value(u"id"_s).toString();
        QVERIFY(created.value(u"expires_at"_s).toInteger() - created.value(u"created_at"_s).toInteger() <= 1);
        QVERIFY(waitStatus(sim, id, u"requires_action"_s));
        QVERIFY(waitStatus(sim, id, u"expired"_s));
        const QJsonObject run = client.getRun(thread, id).json();
        QCOMPARE(run.value(u"status"_s).toString(), u"expired"_s);
        QVERIFY(run.value(u"required_action"_s).isNull());
        QVERIFY(sim.run(id)->eventNames.contains("thread.run.expired"));
        QCOMPARE(sim.run(id)->eventNames.last(), QByteArray("done"));
        const QJsonArray calls = QJsonArray{QJsonObject{{u"tool_call_id"_s, u"x"_s}, {u"output"_s, u"y"_s}}};
        QCOMPARE(client
                     .send("POST", u"/threads/%1/runs/%2/submit_tool_outputs"_s.arg(thread, id),
                           QJsonObject{{u"tool_outputs"_s, calls}})
                     .status,
                 400);
    }

    // Cancel answers "cancelling"; the service confirms "cancelled" later; an open stream ends.
    void cancel()
    {
        FoundrySimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const QJsonObject created = client.createThreadRun(u"slow interval_ms=20"_s, false).json();
        const QString thread = created.value(u"thread_id"_s).toString();
        const QString id = created.value(u"id"_s).toString();
        QTRY_VERIFY_WITH_TIMEOUT(sim.run(id)->text.size() > 10, 5000);
        const Reply r = client.send("POST", u"/threads/%1/runs/%2/cancel"_s.arg(thread, id));
        QCOMPARE(r.status, 200);
        QCOMPARE(r.json().value(u"status"_s).toString(), u"cancelling"_s);
        QVERIFY(waitStatus(sim, id, u"cancelled"_s));
        const QJsonObject run = client.getRun(thread, id).json();
        QVERIFY(run.value(u"cancelled_at"_s).toInteger() > 0);
        const QList<QByteArray> events = sim.run(id)->eventNames;
        QCOMPARE(events.mid(events.size() - 3),
                 (QList<QByteArray>{"thread.run.cancelling", "thread.run.cancelled", "done"}));
        const Reply again = client.send("POST", u"/threads/%1/runs/%2/cancel"_s.arg(thread, id));
        QCOMPARE(again.status, 400);
    }

    void failure()
    {
        FoundrySimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const QList<Ev> events = parseSse(client.createThreadRun(u"fail deltas=6 fail_after=2"_s, true).body);
        QCOMPARE(events.at(events.size() - 2).name, QByteArray("thread.run.failed"));
        const QJsonObject run = events.at(events.size() - 2).json();
        QCOMPARE(run.value(u"last_error"_s).toObject().value(u"code"_s).toString(), u"server_error"_s);
        QCOMPARE(run.value(u"last_error"_s).toObject().value(u"message"_s).toString(),
                 u"The agent's tool backend is unavailable (simulated)."_s);
        QVERIFY(run.value(u"failed_at"_s).toInteger() > 0);
        QCOMPARE(deltaText(events), FoundrySimulator::tokenText(0, 2));
    }

    void incomplete()
    {
        FoundrySimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const QList<Ev> events = parseSse(client.createThreadRun(u"incomplete deltas=3"_s, true).body);
        QVERIFY(names(events).contains("thread.message.incomplete"));
        const QJsonObject run = events.at(events.size() - 2).json();
        QCOMPARE(run.value(u"status"_s).toString(), u"incomplete"_s);
        QCOMPARE(run.value(u"incomplete_details"_s).toObject().value(u"reason"_s).toString(),
                 u"max_completion_tokens"_s);
        QCOMPARE(deltaText(events), FoundrySimulator::tokenText(0, 3));
    }

    // Stream faults: a drop after N events, CRLF framing, split writes, broken JSON.
    void streamFaults()
    {
        FoundrySimConfig config = fastConfig();
        config.lineEnding = "\r\n";
        FoundrySimulator sim(config);
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const Reply dropped = client.createThreadRun(u"deltas=5 drop_after=4"_s, true);
        QCOMPARE(names(parseSse(dropped.body)).size(), 4);
        QVERIFY(dropped.body.contains("\r\n\r\n"));
        const QString id = sim.lastRunId();
        QVERIFY(waitStatus(sim, id, u"completed"_s)); // the run goes on without its stream
        QCOMPARE(sim.run(id)->text, FoundrySimulator::tokenText(0, 5));

        const Reply split = client.createThreadRun(u"deltas=5 split=7"_s, true);
        QCOMPARE(deltaText(parseSse(split.body)), FoundrySimulator::tokenText(0, 5));
        QCOMPARE(names(parseSse(split.body)).last(), QByteArray("done"));

        const Reply broken = client.createThreadRun(u"deltas=5 malformed_at=8"_s, true);
        const QList<Ev> events = parseSse(broken.body);
        QCOMPARE(events.at(8).name, QByteArray("thread.message.delta"));
        QJsonParseError error{};
        QJsonDocument::fromJson(events.at(8).data, &error);
        QVERIFY(error.error != QJsonParseError::NoError);
    }

    // 429 + Retry-After on the create: no run exists; the retry creates exactly one.
    void rateLimitedCreate()
    {
        FoundrySimulator sim(fastConfig());
        QVERIFY(sim.listen());
        sim.addHttpFault(*foundryHttpFaultFromSpec(u"status=429,count=1,on=create,retry-after=2"));
        Client client(sim.baseUrl());
        const Reply limited = client.createThreadRun(u"deltas=2"_s, false);
        QCOMPARE(limited.status, 429);
        QCOMPARE(limited.header("retry-after"), QByteArray("2"));
        QCOMPARE(limited.json().value(u"error"_s).toObject().value(u"code"_s).toString(),
                 u"too_many_requests"_s);
        QCOMPARE(sim.runsCreated(), 0);
        QCOMPARE(client.createThreadRun(u"deltas=2"_s, false).status, 200);
        QCOMPARE(sim.runsCreated(), 1);
        // A per-run fault on polling.
        const QJsonObject run
            = client.createThreadRun(u"deltas=2 http_error_status=503 http_error_on=get"_s, false).json();
        QCOMPARE(client.getRun(run.value(u"thread_id"_s).toString(), run.value(u"id"_s).toString()).status,
                 503);
        QCOMPARE(client.getRun(run.value(u"thread_id"_s).toString(), run.value(u"id"_s).toString()).status,
                 200);
    }

    // Bearer token, api-version, unknown ids, bad options.
    void authAndValidation()
    {
        FoundrySimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client anonymous(sim.baseUrl(), QByteArray());
        QCOMPARE(anonymous.send("GET", u"/assistants"_s).status, 401);
        Client wrong(sim.baseUrl(), "other");
        QCOMPARE(wrong.send("GET", u"/assistants"_s).status, 401);
        Client client(sim.baseUrl());
        QCOMPARE(client.send("GET", u"/assistants"_s, {}, QString()).status, 400);
        QCOMPARE(client.send("GET", u"/assistants"_s, {}, u"1999-01-01"_s).status, 400);
        QCOMPARE(client.send("GET", u"/assistants"_s, {}, u"v1"_s).status, 200);
        QCOMPARE(client.send("GET", u"/assistants"_s, {}, u"2025-05-15-preview"_s).status, 200);
        // A rotated token: the old one is refused from now on.
        sim.setToken(u"entra-token-2"_s);
        QCOMPARE(client.send("GET", u"/assistants"_s).status, 401);
        QCOMPARE(Client(sim.baseUrl(), "entra-token-2").send("GET", u"/assistants"_s).status, 200);
        sim.setToken(QString::fromLatin1(kToken));
        QCOMPARE(client.send("GET", u"/threads/thread_nope/runs/run_nope"_s).status, 404);
        QCOMPARE(client.createThreadRun(u"hi"_s, false, {}, u"asst_nope"_s).status, 404);
        QCOMPARE(sim.runsCreated(), 0);
        const Reply bad = client.createThreadRun(u"hi"_s, false, QJsonObject{{u"deltas"_s, u"many"_s}});
        QCOMPARE(bad.status, 400);
        QVERIFY(bad.json().value(u"error"_s).toObject().value(u"message"_s).toString().contains(u"deltas"_s));
        QCOMPARE(client.send("GET", u"/nothing/here"_s).status, 404);
        // Another project name on the same server is served too.
        QUrl other = sim.baseUrl();
        other.setPath(u"/api/projects/other"_s);
        QCOMPARE(Client(other).send("GET", u"/assistants"_s).status, 200);
    }

    // One active run per thread.
    void oneActiveRunPerThread()
    {
        FoundrySimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const QJsonObject run = client.createThreadRun(u"slow"_s, false).json();
        const QString thread = run.value(u"thread_id"_s).toString();
        const Reply second = client.send("POST", u"/threads/%1/runs"_s.arg(thread),
                                         QJsonObject{{u"assistant_id"_s, u"asst_sim_weather"_s}});
        QCOMPARE(second.status, 400);
        QCOMPARE(
            client.send("POST", u"/threads/%1/runs/%2/cancel"_s.arg(thread, run.value(u"id"_s).toString()))
                .status,
            200);
    }

    // The project's agents: list (paged), get, create.
    void agents()
    {
        FoundrySimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const QJsonObject list = client.send("GET", u"/assistants?order=asc"_s).json();
        QCOMPARE(list.value(u"object"_s).toString(), u"list"_s);
        const QJsonArray data = list.value(u"data"_s).toArray();
        QCOMPARE(data.size(), 2);
        QCOMPARE(data.at(0).toObject().value(u"name"_s).toString(), u"weather-agent"_s);
        QCOMPARE(data.at(0).toObject().value(u"model"_s).toString(), u"gpt-4o"_s);
        const QJsonObject page = client.send("GET", u"/assistants?order=asc&limit=1"_s).json();
        QVERIFY(page.value(u"has_more"_s).toBool());
        QCOMPARE(client.send("GET", u"/assistants/asst_sim_research"_s).json().value(u"name"_s).toString(),
                 u"research-agent"_s);
        const QJsonObject created
            = client
                  .send("POST", u"/assistants"_s,
                        QJsonObject{{u"model"_s, u"gpt-4o-mini"_s}, {u"name"_s, u"mine"_s}})
                  .json();
        QVERIFY(created.value(u"id"_s).toString().startsWith(u"asst_"_s));
        QCOMPARE(client.send("GET", u"/assistants"_s).json().value(u"data"_s).toArray().size(), 3);
    }

    void commandLine()
    {
        const CommandLineResult r = parseCommandLine(
            {u"runwatch-sim"_s, u"--foundry"_s, u"--key"_s, u"T"_s, u"--foundry-project"_s, u"p1"_s,
             u"--foundry-expires-s"_s, u"30"_s, u"--line-ending"_s, u"crlf"_s, u"--foundry-fault"_s,
             u"status=429,on=create,retry-after=3"_s, u"--foundry-split"_s, u"5"_s});
        QCOMPARE(int(r.action), int(CommandLineResult::Action::Run));
        QVERIFY(r.options.foundry);
        const FoundrySimConfig &c = r.options.foundryConfig;
        QCOMPARE(c.token, u"T"_s);
        QCOMPARE(c.project, u"p1"_s);
        QCOMPARE(c.expiresSeconds, 30);
        QCOMPARE(c.lineEnding, QByteArray("\r\n"));
        QCOMPARE(c.splitWrites, 5);
        QCOMPARE(c.httpFaults.size(), 1);
        QCOMPARE(c.httpFaults.first().retryAfterSeconds, 3);
        QVERIFY(c.httpFaults.first().aimsAt(FoundryEndpoint::CreateThreadRun));
        QVERIFY(!c.httpFaults.first().aimsAt(FoundryEndpoint::GetRun));
        QCOMPARE(int(parseCommandLine({u"runwatch-sim"_s, u"--foundry-fault"_s, u"on=nowhere"_s}).action),
                 int(CommandLineResult::Action::Error));
        QVERIFY(
            parseCommandLine({u"runwatch-sim"_s, u"--help"_s}).message.contains(u"submit_tool_approval"_s));
    }
};

QTEST_GUILESS_MAIN(TestFoundrySim)
#include "tst_foundry_sim.moc"
