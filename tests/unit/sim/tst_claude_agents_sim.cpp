// SPDX-License-Identifier: GPL-3.0-or-later
// The Claude Managed Agents simulator against a plain QNetworkAccessManager (never the client's
// code): what docs/protocols/agent-sessions.md §2 says the service refuses, the beta header, both
// ways of sending the key, page tokens, the answers a session takes, and a stream that replays
// nothing and previews only on request. The official client's own checks:
// tests/peers/claude-agents-peer.
#include "claudeagents/claudeagentssim.h"
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

constexpr auto kKey = "sk-ant-sim";
const QString kAgent = u"agent_011Runwatch0Research"_s;
const QString kEnvironment = u"env_011Runwatch0Sim"_s;

struct Reply
{
    int status = 0;
    QByteArray body;
    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
    QString errorType() const { return json().value(u"error"_s).toObject().value(u"type"_s).toString(); }
};

class Client
{
public:
    explicit Client(QUrl base)
        : m_base(std::move(base))
    {}

    // `headers` replace the usual ones (the beta, the version, the bearer key) when given.
    Reply send(const QByteArray &method, const QString &pathAndQuery, const QJsonObject &body = {},
               const QList<QPair<QByteArray, QByteArray>> &headers = usual())
    {
        QNetworkRequest request(m_base.resolved(QUrl(pathAndQuery)));
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
    static QList<QPair<QByteArray, QByteArray>> usual()
    {
        return {{"anthropic-beta", "managed-agents-2026-04-01"},
                {"anthropic-version", "2026-10-21"},
                {"authorization", QByteArray("Bearer ") + kKey}};
    }
    QString createSession()
    {
        return send("POST", u"/v1/sessions"_s, {{u"agent"_s, kAgent}, {u"environment_id"_s, kEnvironment}})
            .json()
            .value(u"id"_s)
            .toString();
    }
    Reply say(const QString &session, const QString &text)
    {
        const QJsonArray events{
            QJsonObject{{u"type"_s, u"user.message"_s},
                        {u"content"_s, QJsonArray{QJsonObject{{u"type"_s, u"text"_s}, {u"text"_s, text}}}}}};
        return send("POST", u"/v1/sessions/%1/events"_s.arg(session), {{u"events"_s, events}});
    }

private:
    QUrl m_base;
    QNetworkAccessManager m_nam;
};

ClaudeAgentsSimConfig fastConfig()
{
    ClaudeAgentsSimConfig config;
    config.apiKey = QString::fromLatin1(kKey);
    config.intervalMs = 1;
    return config;
}

// A live stream read into a buffer as it arrives.
struct Live
{
    QNetworkAccessManager nam;
    QNetworkReply *reply = nullptr;
    QByteArray body;

    explicit Live(const QUrl &url)
    {
        QNetworkRequest request(url);
        for (const auto &h : Client::usual())
            request.setRawHeader(h.first, h.second);
        reply = nam.get(request);
        QObject::connect(reply, &QNetworkReply::readyRead, reply, [this] { body += reply->readAll(); });
    }
    ~Live() { reply->abort(); }
    bool waitFor(const QByteArray &text)
    {
        return QTest::qWaitFor([&] { return body.contains(text); }, 10000);
    }
};

} // namespace

class TestClaudeAgentsSim final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void keyAndBetaHeaders()
    {
        ClaudeAgentsSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        QCOMPARE(client.send("GET", u"/v1/agents"_s).status, 200);
        // The docs' curl way of sending the key works too.
        QCOMPARE(client
                     .send("GET", u"/v1/agents"_s, {},
                           {{"anthropic-beta", "managed-agents-2026-04-01"},
                            {"anthropic-version", "2023-06-01"},
                            {"x-api-key", kKey}})
                     .status,
                 200);
        const Reply none
            = client.send("GET", u"/v1/agents"_s, {},
                          {{"anthropic-beta", "managed-agents-2026-04-01"}, {"anthropic-version", "1"}});
        QCOMPARE(none.status, 401);
        QCOMPARE(none.errorType(), u"authentication_error"_s);
        const Reply noBeta
            = client.send("GET", u"/v1/agents"_s, {},
                          {{"anthropic-version", "1"}, {"authorization", QByteArray("Bearer ") + kKey}});
        QCOMPARE(noBeta.status, 400);
        QCOMPARE(noBeta.errorType(), u"invalid_request_error"_s);
    }

    // Cursor pages: next_page until the end, then null; a token that is not one is refused.
    void pages()
    {
        ClaudeAgentsSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const QJsonObject first = client.send("GET", u"/v1/agents?limit=1"_s).json();
        QCOMPARE(first.value(u"data"_s).toArray().size(), 1);
        const QString next = first.value(u"next_page"_s).toString();
        QVERIFY(!next.isEmpty());
        const QJsonObject second = client
                                       .send("GET", u"/v1/agents?limit=1&page="_s
                                                        + QString::fromLatin1(QUrl::toPercentEncoding(next)))
                                       .json();
        QCOMPARE(second.value(u"data"_s).toArray().at(0).toObject().value(u"id"_s).toString(),
                 u"agent_011Runwatch00Support"_s);
        QVERIFY(second.value(u"next_page"_s).isNull());
        QCOMPARE(client.send("GET", u"/v1/agents?page=nonsense"_s).status, 400);
        QCOMPARE(client.send("GET", u"/v1/agents?limit=0"_s).status, 400);
    }

    void sessionRefusals()
    {
        ClaudeAgentsSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        QCOMPARE(client.send("POST", u"/v1/sessions"_s, {{u"agent"_s, kAgent}}).status,
                 400); // no environment
        QCOMPARE(client
                     .send("POST", u"/v1/sessions"_s,
                           {{u"agent"_s, u"agent_nope"_s}, {u"environment_id"_s, kEnvironment}})
                     .status,
                 404);
        const QString session = client.createSession();
        QVERIFY(session.startsWith(u"sesn_"_s));
        QCOMPARE(client.say(session, u"confirm"_s).status, 200);
        QTRY_COMPARE_WITH_TIMEOUT(sim.session(session)->logTypes.constLast(), u"session.status_idle"_s,
                                  10000);
        // A message while the session waits on a confirmation, and a confirmation of nothing.
        QCOMPARE(client.say(session, u"normal"_s).status, 400);
        const QJsonArray wrong{QJsonObject{{u"type"_s, u"user.tool_confirmation"_s},
                                           {u"tool_use_id"_s, u"sevt_nope"_s},
                                           {u"result"_s, u"allow"_s}}};
        QCOMPARE(client.send("POST", u"/v1/sessions/%1/events"_s.arg(session), {{u"events"_s, wrong}}).status,
                 400);
        // Delete, then it is gone.
        QCOMPARE(client.send("DELETE", u"/v1/sessions/"_s + session).json().value(u"type"_s).toString(),
                 u"session_deleted"_s);
        QCOMPARE(client.send("GET", u"/v1/sessions/"_s + session).status, 404);
    }

    // The stream replays nothing, previews only when asked, and a delete ends it.
    void streamIsLiveOnly()
    {
        ClaudeAgentsSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const QString session = client.createSession();
        QCOMPARE(client.say(session, u"normal deltas=3"_s).status, 200);
        QTRY_VERIFY_WITH_TIMEOUT(!sim.session(session)->turns.constLast().stopReason.isEmpty(), 10000);
        QUrl url = sim.baseUrl().resolved(QUrl(u"/v1/sessions/%1/events/stream"_s.arg(session)));
        Live plain(url);
        url.setQuery(u"event_deltas%5B%5D=agent.message"_s);
        Live previews(url);
        QTRY_COMPARE_WITH_TIMEOUT(sim.session(session)->streamConnections, 2, 10000);
        QCOMPARE(client.say(session, u"normal deltas=2"_s).status, 200);
        QVERIFY(plain.waitFor("stop_reason"));
        QVERIFY(previews.waitFor("stop_reason"));
        // The first turn's events never came: nothing is replayed.
        QCOMPARE(plain.body.count("event: user.message"), 1);
        QVERIFY(!plain.body.contains("event_delta"));
        QCOMPARE(previews.body.count("event: event_delta"), 2);
        QVERIFY(previews.body.contains("event: event_start"));
        // The log has both turns and no preview.
        const QJsonArray log
            = client.send("GET", u"/v1/sessions/%1/events"_s.arg(session)).json().value(u"data"_s).toArray();
        int messages = 0;
        for (const QJsonValue &e : log) {
            QVERIFY(!e.toObject().value(u"type"_s).toString().startsWith(u"event_"_s));
            messages += e.toObject().value(u"type"_s).toString() == u"user.message"_s ? 1 : 0;
        }
        QCOMPARE(messages, 2);
        QCOMPARE(client.send("DELETE", u"/v1/sessions/"_s + session).status, 200);
        QVERIFY(plain.waitFor("event: session.deleted"));
        QTRY_VERIFY_WITH_TIMEOUT(plain.reply->isFinished(), 10000);
    }

    void commandLine()
    {
        const CommandLineResult parsed = parseCommandLine(
            {u"runwatch-sim"_s, u"--claude-agents"_s, u"--key"_s, u"k"_s, u"--claude-agents-page-size"_s,
             u"5"_s, u"--claude-agents-fault"_s, u"status=503,count=2,on=send+stream"_s});
        QCOMPARE(parsed.action, CommandLineResult::Action::Run);
        QVERIFY(parsed.options.claudeAgents);
        QCOMPARE(parsed.options.claudeAgentsConfig.apiKey, u"k"_s);
        QCOMPARE(parsed.options.claudeAgentsConfig.maxPageSize, 5);
        QCOMPARE(parsed.options.claudeAgentsConfig.httpFaults.size(), 1);
        QVERIFY(parsed.options.claudeAgentsConfig.httpFaults.at(0).aimsAt(ClaudeAgentsEndpoint::SendEvents));
        QVERIFY(!parsed.options.claudeAgentsConfig.httpFaults.at(0).aimsAt(ClaudeAgentsEndpoint::Agents));
        QCOMPARE(parseCommandLine({u"runwatch-sim"_s, u"--claude-agents-fault"_s, u"on=nowhere"_s}).action,
                 CommandLineResult::Action::Error);
    }
};

QTEST_GUILESS_MAIN(TestClaudeAgentsSim)
#include "tst_claude_agents_sim.moc"
