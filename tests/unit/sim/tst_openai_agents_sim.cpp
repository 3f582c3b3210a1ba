// SPDX-License-Identifier: GPL-3.0-or-later
// The OpenAI Agents API simulator against a plain QNetworkAccessManager (never the client's code):
// what docs/protocols/agent-sessions.md §1 says the service refuses (no beta header, no key, no
// environment, a delete while it runs, an answer to a call it does not wait for), cursor pages,
// the 202 of input events and their Idempotency-Key, a stream that replays nothing, and the
// command line. The official client's own checks: tests/peers/openai-agents-peer.
#include "openaiagents/openaiagentssim.h"
#include "simcommandline.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QtTest>

using namespace RunwatchSim;
using namespace Qt::StringLiterals;

namespace {

constexpr auto kKey = "sk-sim-agents";
const QString kAgent = u"agent_68e1runwatch0research"_s;

struct Reply
{
    int status = 0;
    QByteArray body;
    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
    QString errorCode() const { return json().value(u"error"_s).toObject().value(u"code"_s).toString(); }
};

using Headers = QList<QPair<QByteArray, QByteArray>>;

Headers usual()
{
    return {{"openai-beta", "agents=v1"}, {"authorization", QByteArray("Bearer ") + kKey}};
}

class Client
{
public:
    explicit Client(QUrl base)
        : m_base(std::move(base))
    {}

    Reply send(const QByteArray &method, const QString &path, const QJsonObject &body = {},
               const Headers &headers = usual())
    {
        QUrl url = m_base;
        const qsizetype q = path.indexOf(u'?');
        url.setPath(m_base.path() + path.left(q));
        if (q >= 0)
            url.setQuery(path.mid(q + 1));
        QNetworkRequest request(url);
        for (const auto &h : headers)
            request.setRawHeader(h.first, h.second);
        if (method == "POST")
            request.setRawHeader("Content-Type", "application/json");
        QNetworkReply *reply = m_nam.sendCustomRequest(
            request, method, method == "POST" ? QJsonDocument(body).toJson() : QByteArray());
        QSignalSpy done(reply, &QNetworkReply::finished);
        if (!reply->isFinished())
            done.wait(10000);
        Reply r;
        r.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        r.body = reply->readAll();
        reply->deleteLater();
        return r;
    }
    QString create(const QString &input)
    {
        return send("POST", u"/agents/sessions"_s,
                    {{u"agent_id"_s, kAgent},
                     {u"environment"_s, QJsonObject{{u"type"_s, u"none"_s}}},
                     {u"input"_s, input}})
            .json()
            .value(u"id"_s)
            .toString();
    }
    Reply events(const QString &session, const QJsonArray &events, const QByteArray &key = {})
    {
        Headers headers = usual();
        if (!key.isEmpty())
            headers.append({"Idempotency-Key", key});
        return send("POST", u"/agents/sessions/%1/events"_s.arg(session), {{u"events"_s, events}}, headers);
    }

private:
    QUrl m_base;
    QNetworkAccessManager m_nam;
};

QJsonArray message(const QString &text)
{
    return QJsonArray{QJsonObject{
        {u"type"_s, u"agent.session.input.message"_s},
        {u"input"_s,
         QJsonArray{QJsonObject{
             {u"role"_s, u"user"_s},
             {u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"input_text"_s}, {u"text"_s, text}}}}}}}}};
}

} // namespace

class TestOpenAiAgentsSim final : public QObject
{
    Q_OBJECT

    OpenAiAgentsSimulator *m_sim = nullptr;

    bool waitIdle(const QString &session)
    {
        return QTest::qWaitFor(
            [&] {
                const auto s = m_sim->session(session);
                return s && !s->turns.isEmpty() && s->status != u"in_progress"_s;
            },
            10000);
    }

private Q_SLOTS:
    void initTestCase()
    {
        OpenAiAgentsSimConfig config;
        config.apiKey = QString::fromLatin1(kKey);
        config.intervalMs = 1;
        config.maxPageSize = 2;
        m_sim = new OpenAiAgentsSimulator(config, this);
        QVERIFY(m_sim->listen());
        QVERIFY(m_sim->baseUrl().path().endsWith(u"/v1"_s));
    }

    void refusals()
    {
        Client c(m_sim->baseUrl());
        QCOMPARE(
            c.send("GET", u"/agents"_s, {}, {{"authorization", QByteArray("Bearer ") + kKey}}).errorCode(),
            u"invalid_beta"_s);
        const Reply noKey = c.send("GET", u"/agents"_s, {}, {{"openai-beta", "agents=v1"}});
        QCOMPARE(noKey.status, 401);
        QCOMPARE(
            c.send("POST", u"/agents/sessions"_s, {{u"agent_id"_s, kAgent}, {u"input"_s, u"x"_s}}).status,
            400);
        QCOMPARE(c.send("POST", u"/agents/sessions"_s,
                        {{u"agent_id"_s, kAgent}, {u"environment"_s, QJsonObject{{u"type"_s, u"none"_s}}}})
                     .status,
                 400);
        QCOMPARE(c.send("POST", u"/agents/sessions"_s,
                        {{u"agent_id"_s, u"agent_nope"_s},
                         {u"environment"_s, QJsonObject{{u"type"_s, u"none"_s}}},
                         {u"input"_s, u"x"_s}})
                     .status,
                 404);
        QCOMPARE(c.send("GET", u"/agents/sessions/sess_nope"_s).status, 404);
    }

    // A turn's saved history: its turn (with usage) and items, paged with after=; the events'
    // 202 has no body; a repeated Idempotency-Key is one message.
    void historyPagesAndEvents()
    {
        Client c(m_sim->baseUrl());
        const QString session = c.create(u"normal deltas=3"_s);
        QVERIFY(!session.isEmpty());
        QVERIFY(waitIdle(session));
        const Reply turns = c.send("GET", u"/agents/sessions/%1/turns"_s.arg(session));
        QCOMPARE(turns.status, 200);
        const QJsonObject turn = turns.json().value(u"data"_s).toArray().at(0).toObject();
        QCOMPARE(turn.value(u"status"_s).toString(), u"completed"_s);
        QCOMPARE(turn.value(u"usage"_s).toObject().value(u"output_tokens"_s).toInt(), 3);
        // The user's message and the answer, over pages of 2 in asc order.
        const Reply first = c.send("GET", u"/agents/sessions/%1/items?order=asc&limit=1"_s.arg(session));
        QVERIFY(first.json().value(u"has_more"_s).toBool());
        const QString last = first.json().value(u"last_id"_s).toString();
        const Reply second
            = c.send("GET", u"/agents/sessions/%1/items?order=asc&limit=1&after=%2"_s.arg(session, last));
        const QJsonObject answer = second.json().value(u"data"_s).toArray().at(0).toObject();
        QCOMPARE(answer.value(u"role"_s).toString(), u"assistant"_s);
        QCOMPARE(answer.value(u"content"_s).toArray().at(0).toObject().value(u"text"_s).toString(),
                 m_sim->turnText(session));
        QVERIFY(!second.json().value(u"has_more"_s).toBool());

        const Reply sent = c.events(session, message(u"normal deltas=1"_s), "k1");
        QCOMPARE(sent.status, 202);
        QVERIFY(sent.body.isEmpty());
        QCOMPARE(c.events(session, message(u"normal deltas=1"_s), "k1").status, 202);
        QVERIFY(waitIdle(session));
        QTest::qWait(50);
        QCOMPARE(m_sim->session(session)->turns.size(), 2);
        // An answer to nothing pending.
        const Reply stray
            = c.events(session, QJsonArray{QJsonObject{{u"type"_s, u"agent.session.input.tool_result"_s},
                                                       {u"call_id"_s, u"call_x"_s},
                                                       {u"turn_id"_s, u"t"_s},
                                                       {u"success"_s, true}}});
        QCOMPARE(stray.status, 400);
        QVERIFY(stray.json()
                    .value(u"error"_s)
                    .toObject()
                    .value(u"message"_s)
                    .toString()
                    .startsWith(u"Unknown pending tool call"_s));
    }

    // A running session is not deleted; cancelled, it is.
    void deleteNeedsTheTurnCancelled()
    {
        Client c(m_sim->baseUrl());
        const QString session = c.create(u"long interval_ms=5"_s);
        QCOMPARE(c.send("DELETE", u"/agents/sessions/%1"_s.arg(session)).status, 409);
        QCOMPARE(
            c.events(session, QJsonArray{QJsonObject{{u"type"_s, u"agent.session.input.cancel"_s}}}).status,
            202);
        QCOMPARE(m_sim->session(session)->turns.constLast().status, u"cancelled"_s);
        const Reply deleted = c.send("DELETE", u"/agents/sessions/%1"_s.arg(session));
        QCOMPARE(deleted.status, 200);
        QVERIFY(deleted.json().value(u"deleted"_s).toBool());
        QCOMPARE(deleted.json().value(u"object"_s).toString(), u"agent.session.deleted"_s);
        QCOMPARE(c.send("GET", u"/agents/sessions/%1"_s.arg(session)).status, 404);
    }

    // A stream replays nothing: it starts with the session's state, then what happens after.
    void streamReplaysNothing()
    {
        Client c(m_sim->baseUrl());
        const QString session = c.create(u"normal deltas=2"_s);
        QVERIFY(waitIdle(session));
        QNetworkAccessManager nam;
        QUrl url = m_sim->baseUrl();
        url.setPath(url.path() + u"/agents/sessions/%1/events"_s.arg(session));
        QNetworkRequest request(url);
        for (const auto &h : usual())
            request.setRawHeader(h.first, h.second);
        QNetworkReply *reply = nam.get(request);
        QByteArray body;
        QObject::connect(reply, &QNetworkReply::readyRead, reply, [&] { body += reply->readAll(); });
        QVERIFY(QTest::qWaitFor([&] { return body.contains("agent.session.idle"); }, 5000));
        QVERIFY(!body.contains("output_text.delta"));
        QCOMPARE(c.events(session, message(u"normal deltas=2"_s)).status, 202);
        QVERIFY(QTest::qWaitFor([&] { return body.contains("agent.session.turn.completed"); }, 5000));
        QVERIFY(body.contains("event: agent.session.turn.output_text.delta"));
        QVERIFY(body.contains("\"event_id\""));
        reply->abort();
        reply->deleteLater();
    }

    void commandLine()
    {
        const CommandLineResult parsed = parseCommandLine(
            {u"runwatch-sim"_s, u"--openai-agents"_s, u"--openai-agents-page-size"_s, u"3"_s,
             u"--openai-agents-fault"_s, u"status=503,on=send"_s, u"--key"_s, u"k"_s});
        QCOMPARE(parsed.action, CommandLineResult::Action::Run);
        QVERIFY(parsed.options.openAiAgents);
        QCOMPARE(parsed.options.openAiAgentsConfig.maxPageSize, 3);
        QCOMPARE(parsed.options.openAiAgentsConfig.apiKey, u"k"_s);
        QCOMPARE(parsed.options.openAiAgentsConfig.httpFaults.size(), 1);
        QCOMPARE(parseCommandLine({u"runwatch-sim"_s, u"--openai-agents-fault"_s, u"on=nowhere"_s}).action,
                 CommandLineResult::Action::Error);
    }
};

QTEST_GUILESS_MAIN(TestOpenAiAgentsSim)
#include "tst_openai_agents_sim.moc"
