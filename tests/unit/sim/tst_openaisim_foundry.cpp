// SPDX-License-Identifier: GPL-3.0-or-later
// Tests of the Azure AI Foundry project the OpenAI simulator also serves (docs/protocols/
// foundry-agents-and-gemini.md §1): the agents listing, conversations, responses that run an agent
// in a conversation, the refusals, the conversation lock and tool calls answered in the same
// conversation. Driven by a plain QNetworkAccessManager client (openaisimclient.h), never
// runwatch_core.

#include "openai/openaisim.h"
#include "openaisimclient.h"
#include "simcommandline.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

#include <memory>

using namespace Qt::StringLiterals;
using namespace RunwatchSim;
using namespace OpenAiSimTest;

namespace {

QJsonObject agentRef(const QString &name, const QJsonValue &version = QJsonValue::Undefined)
{
    QJsonObject reference{{u"type"_s, u"agent_reference"_s}, {u"name"_s, name}};
    if (!version.isUndefined())
        reference.insert("version"_L1, version);
    return reference;
}

QJsonObject agentBody(const QString &name, const QJsonValue &input, const QJsonObject &more = {})
{
    QJsonObject body{{u"agent_reference"_s, agentRef(name)},
                     {u"input"_s, input},
                     {u"background"_s, true},
                     {u"store"_s, true}};
    for (auto it = more.begin(); it != more.end(); ++it)
        body.insert(it.key(), it.value());
    return body;
}

QJsonObject functionOutput(const QString &callId, const QString &output)
{
    return QJsonObject{{u"type"_s, u"function_call_output"_s}, {u"call_id"_s, callId}, {u"output"_s, output}};
}

QStringList idsOf(const QJsonArray &data)
{
    QStringList ids;
    for (const QJsonValue &item : data)
        ids.append(item["id"_L1].toString());
    return ids;
}

QStringList itemTypesOf(const QJsonArray &data)
{
    QStringList types;
    for (const QJsonValue &item : data)
        types.append(item["type"_L1].toString());
    return types;
}

bool endedOf(const OpenAiSimulator &sim, const QString &id)
{
    const auto info = sim.response(id);
    return info && info->ended;
}

// The OpenAI error shape with the given status, code, param and message (code or param empty:
// null).
bool isError(const Reply &reply, int status, const QString &code, const QString &param,
             const QString &message)
{
    const QJsonObject error = reply.errorBody();
    const auto nullOr = [](const QString &text) { return text.isEmpty() ? QJsonValue() : QJsonValue(text); };
    const bool ok = reply.status == status && error.value("type"_L1).toString() == "invalid_request_error"_L1
                    && error.value("code"_L1) == nullOr(code) && error.value("param"_L1) == nullOr(param)
                    && error.value("message"_L1).toString() == message;
    if (!ok)
        qWarning().noquote() << reply.status << QString::fromUtf8(reply.body);
    return ok;
}

} // namespace

class TestOpenAiSimFoundry final : public QObject
{
    Q_OBJECT

private:
    static QString newConversation(Client &client)
    {
        return client.send("POST", u"/conversations"_s, "{}").json().value("id"_L1).toString();
    }

    static QJsonArray itemsOf(Client &client, const QString &conversation,
                              const QString &query = u"order=asc"_s)
    {
        return client.get(u"/conversations/%1/items?%2"_s.arg(conversation, query))
            .json()["data"_L1]
            .toArray();
    }

private Q_SLOTS:
    // The listing of §1: the agent object as the SDK's deserializer reads it, the page shape, the
    // order, and api-version required on /agents only.
    void agentsListing()
    {
        auto sim = makeSim();
        QVERIFY(sim);
        QCOMPARE(sim->foundryProjectUrl().path(), u"/api/projects/runwatch-sim"_s);
        QCOMPARE(sim->foundryBaseUrl().toString(), sim->foundryProjectUrl().toString() + u"/openai/v1"_s);
        Client project(sim->foundryProjectUrl());
        const Reply listed = project.get(u"/agents?api-version=v1"_s);
        QCOMPARE(listed.status, 200);
        const QJsonObject page = listed.json();
        QCOMPARE(page.keys(), (QStringList{u"data"_s, u"first_id"_s, u"has_more"_s, u"last_id"_s}));
        const QJsonArray data = page.value("data"_L1).toArray();
        QCOMPARE(idsOf(data), (QStringList{u"writer"_s, u"researcher"_s})); // desc by default
        QCOMPARE(page.value("first_id"_L1).toString(), u"writer"_s);
        QCOMPARE(page.value("last_id"_L1).toString(), u"researcher"_s);
        QCOMPARE(page.value("has_more"_L1), QJsonValue(false));

        const QJsonObject researcher = data.at(1).toObject();
        const qint64 createdAt = researcher["versions"_L1]["latest"_L1]["created_at"_L1].toInteger();
        QVERIFY(createdAt > 0 && createdAt <= QDateTime::currentSecsSinceEpoch());
        QVERIFY(createdAt < data.at(0)["versions"_L1]["latest"_L1]["created_at"_L1].toInteger());
        const QJsonObject latest{
            {u"object"_s, u"agent.version"_s},
            {u"id"_s, u"researcher:3"_s},
            {u"name"_s, u"researcher"_s},
            {u"version"_s, u"3"_s},
            {u"description"_s, u"Finds and summarises sources."_s},
            {u"created_at"_s, createdAt},
            {u"definition"_s,
             QJsonObject{{u"kind"_s, u"prompt"_s},
                         {u"model"_s, u"runwatch-sim-1"_s},
                         {u"instructions"_s, u"You are the researcher agent of runwatch-sim."_s}}},
            {u"status"_s, u"active"_s},
            {u"metadata"_s, QJsonObject()},
        };
        QCOMPARE(researcher, (QJsonObject{{u"object"_s, u"agent"_s},
                                          {u"id"_s, u"researcher"_s},
                                          {u"name"_s, u"researcher"_s},
                                          {u"state"_s, u"enabled"_s},
                                          {u"versions"_s, QJsonObject{{u"latest"_s, latest}}}}));
        QCOMPARE(data.at(0)["versions"_L1]["latest"_L1]["id"_L1].toString(), u"writer:1"_s);

        QCOMPARE(idsOf(project.get(u"/agents?api-version=v1&order=asc"_s).json()["data"_L1].toArray()),
                 (QStringList{u"researcher"_s, u"writer"_s}));
        QCOMPARE(project.get(u"/agents?api-version=v1&kind=prompt"_s).json()["data"_L1].toArray().size(), 2);
        QCOMPARE(project.get(u"/agents?api-version=v1&kind=hosted"_s).json()["data"_L1].toArray().size(), 0);
        QCOMPARE(sim->requestCount(OpenAiEndpoint::Agents), 4);

        // api-version is required there (wording guessed), and an unknown one refused.
        QVERIFY(isError(project.get(u"/agents"_s), 400, u"missing_required_parameter"_s, u"api-version"_s,
                        u"Missing required query parameter: 'api-version'."_s));
        QVERIFY(isError(project.get(u"/agents?api-version=2025-05-01"_s), 400, u"unsupported_api_version"_s,
                        u"api-version"_s, u"Unsupported api-version '2025-05-01'. Use 'v1'."_s));
        // Only this project, only GET, only inside a project.
        Client root(sim->foundryProjectUrl().resolved(QUrl(u"/"_s)));
        QCOMPARE(root.get(u"api/projects/other/agents?api-version=v1"_s).status, 404);
        QCOMPARE(root.get(u"agents?api-version=v1"_s).status, 404);
        QCOMPARE(root.get(u"v1/agents?api-version=v1"_s).status, 404);
        QCOMPARE(project.send("POST", u"/agents?api-version=v1"_s, "{}").status, 404);
    }

    // Paging as the SDK does it (has_more, after=last_id), both orders, before, and the refusals.
    void agentsPaging()
    {
        OpenAiSimConfig config = fastConfig();
        config.agents.clear();
        QStringList names;
        for (int i = 0; i < 25; ++i) {
            names.append(u"agent%1"_s.arg(i, 2, 10, QChar(u'0')));
            config.agents.append(OpenAiSimAgent{names.last(), i % 3 + 1, i == 7 ? u"gpt-x"_s : QString(),
                                                QString(), QString()});
        }
        auto sim = makeSim(config);
        QVERIFY(sim);
        Client project(sim->foundryProjectUrl());

        QStringList seen;
        QList<int> sizes;
        QString query = u"/agents?api-version=v1&order=asc&limit=10"_s;
        for (int guard = 0; guard < 10; ++guard) {
            const Reply reply = project.get(query);
            QCOMPARE(reply.status, 200);
            const QJsonArray data = reply.json()["data"_L1].toArray();
            seen += idsOf(data);
            sizes.append(int(data.size()));
            QCOMPARE(reply.json()["last_id"_L1].toString(), idsOf(data).last());
            if (!reply.json()["has_more"_L1].toBool())
                break;
            query = u"/agents?api-version=v1&order=asc&limit=10&after="_s
                    + reply.json()["last_id"_L1].toString();
        }
        QCOMPARE(seen, names);
        QCOMPARE(sizes, (QList<int>{10, 10, 5}));

        const QJsonObject first = project.get(u"/agents?api-version=v1"_s).json(); // desc, 20
        QCOMPARE(first["data"_L1].toArray().size(), 20);
        QCOMPARE(first["first_id"_L1].toString(), u"agent24"_s);
        QVERIFY(first["has_more"_L1].toBool());
        const QJsonObject second
            = project.get(u"/agents?api-version=v1&after="_s + first["last_id"_L1].toString()).json();
        QCOMPARE(idsOf(second["data"_L1].toArray()),
                 (QStringList{u"agent04"_s, u"agent03"_s, u"agent02"_s, u"agent01"_s, u"agent00"_s}));
        QVERIFY(!second["has_more"_L1].toBool());

        const QJsonObject before
            = project.get(u"/agents?api-version=v1&order=asc&before=agent10&limit=3"_s).json();
        QCOMPARE(idsOf(before["data"_L1].toArray()), (QStringList{u"agent07"_s, u"agent08"_s, u"agent09"_s}));
        QVERIFY(before["has_more"_L1].toBool());
        const QJsonObject agent7 = before["data"_L1].toArray().first().toObject();
        QCOMPARE(agent7["versions"_L1]["latest"_L1]["definition"_L1]["model"_L1].toString(), u"gpt-x"_s);
        QCOMPARE(agent7["versions"_L1]["latest"_L1]["version"_L1].toString(), u"2"_s);

        QVERIFY(isError(project.get(u"/agents?api-version=v1&limit=0"_s), 400, u"invalid_value"_s, u"limit"_s,
                        u"Invalid value for 'limit': expected an integer from 1 to 100."_s));
        QCOMPARE(project.get(u"/agents?api-version=v1&limit=101"_s).status, 400);
        QCOMPARE(project.get(u"/agents?api-version=v1&limit=100"_s).json()["data"_L1].toArray().size(), 25);
        QVERIFY(isError(project.get(u"/agents?api-version=v1&order=up"_s), 400, u"invalid_value"_s,
                        u"order"_s, u"Invalid value for 'order': expected 'asc' or 'desc'."_s));
        QVERIFY(isError(project.get(u"/agents?api-version=v1&after=nobody"_s), 400, u"invalid_value"_s,
                        u"after"_s, u"No object with id 'nobody' in this list."_s));
    }

    // Create, read, list items, delete; then 404 in the OpenAI error shape.
    void conversationLifecycle()
    {
        auto sim = makeSim();
        QVERIFY(sim);
        Client client(sim->foundryBaseUrl());
        const QJsonObject body{
            {u"items"_s,
             QJsonArray{
                 QJsonObject{{u"type"_s, u"message"_s}, {u"role"_s, u"user"_s}, {u"content"_s, u"Hello"_s}},
                 QJsonObject{{u"role"_s, u"assistant"_s}, {u"content"_s, u"Hi"_s}}}},
            {u"metadata"_s, QJsonObject{{u"topic"_s, u"demo"_s}}}};
        const Reply created = client.send("POST", u"/conversations"_s, toJson(body));
        QCOMPARE(created.status, 200);
        const QJsonObject conversation = created.json();
        QCOMPARE(conversation.keys(), (QStringList{u"created_at"_s, u"id"_s, u"metadata"_s, u"object"_s}));
        const QString id = conversation.value("id"_L1).toString();
        QVERIFY(id.startsWith("conv_"_L1));
        QCOMPARE(conversation.value("object"_L1).toString(), u"conversation"_s);
        QVERIFY(conversation.value("created_at"_L1).toInteger() > 0);
        QCOMPARE(conversation.value("metadata"_L1).toObject(), (QJsonObject{{u"topic"_s, u"demo"_s}}));
        QCOMPARE(sim->conversationIds(), QStringList{id});

        QCOMPARE(client.get(u"/conversations/"_s + id).json(), conversation);
        QCOMPARE(int(sim->requests().last().endpoint), int(OpenAiEndpoint::ConversationGet));
        QCOMPARE(sim->requests().last().conversationId, id);
        const QJsonObject page = client.get(u"/conversations/%1/items"_s.arg(id)).json();
        QCOMPARE(page.value("object"_L1).toString(), u"list"_s);
        const QJsonArray items = page.value("data"_L1).toArray(); // desc by default
        QCOMPARE(items.size(), 2);
        QCOMPARE(items.at(0)["content"_L1].toString(), u"Hi"_s);
        QCOMPARE(items.at(1)["content"_L1].toString(), u"Hello"_s);
        QCOMPARE(items.at(1)["role"_L1].toString(), u"user"_s);
        QVERIFY(items.at(1)["id"_L1].toString().startsWith("msg_"_L1));
        QCOMPARE(page.value("first_id"_L1), items.at(0)["id"_L1]);
        QCOMPARE(page.value("last_id"_L1), items.at(1)["id"_L1]);
        QCOMPARE(page.value("has_more"_L1), QJsonValue(false));
        const QJsonObject one = client.get(u"/conversations/%1/items?order=asc&limit=1"_s.arg(id)).json();
        QCOMPARE(one["data"_L1].toArray().first()["content"_L1].toString(), u"Hello"_s);
        QVERIFY(one["has_more"_L1].toBool());

        // An empty body is an empty conversation; plain /v1 serves conversations too.
        Client plain(sim->baseUrl());
        const Reply empty = plain.send("POST", u"/conversations"_s);
        QCOMPARE(empty.status, 200);
        QCOMPARE(empty.json().value("metadata"_L1).toObject(), QJsonObject());
        QCOMPARE(itemsOf(plain, empty.json()["id"_L1].toString()).size(), 0);
        QVERIFY(isError(client.send("POST", u"/conversations"_s, R"({"items":"x"})"), 400, u"invalid_type"_s,
                        u"items"_s,
                        u"Invalid type for 'items': expected an array, but got a string instead."_s));
        QVERIFY(isError(client.send("POST", u"/conversations"_s, R"({"metadata":{"a":1}})"), 400,
                        u"invalid_type"_s, u"metadata.a"_s,
                        u"Invalid type for 'metadata.a': expected a string, but got an integer instead."_s));

        const Reply deleted = client.send("DELETE", u"/conversations/"_s + id);
        QCOMPARE(deleted.status, 200);
        QCOMPARE(
            deleted.json(),
            (QJsonObject{{u"id"_s, id}, {u"object"_s, u"conversation.deleted"_s}, {u"deleted"_s, true}}));
        const QString gone = u"Conversation with id '%1' not found."_s.arg(id);
        QVERIFY(isError(client.get(u"/conversations/"_s + id), 404, QString(), QString(), gone));
        QVERIFY(isError(client.get(u"/conversations/%1/items"_s.arg(id)), 404, QString(), QString(), gone));
        QVERIFY(isError(client.send("DELETE", u"/conversations/"_s + id), 404, QString(), QString(), gone));
        QVERIFY(!sim->conversationIds().contains(id));
    }

    // A background streamed response that runs an agent in a conversation: every response object
    // echoes conversation and the resolved agent_reference, and the conversation gets its input
    // item, then its output item; resume works as for any response.
    void agentStreamInConversation()
    {
        auto sim = makeSim();
        QVERIFY(sim);
        Client client(sim->foundryBaseUrl());
        const QString conversation = newConversation(client);
        QVERIFY(!conversation.isEmpty());
        const Reply reply = client.create(agentBody(
            u"researcher"_s, u"Say hi"_s, {{u"conversation"_s, conversation}, {u"stream"_s, true}}));
        QCOMPARE(reply.status, 200);
        QVERIFY(reply.headers.value("content-type").startsWith("text/event-stream"));
        const QList<SseEvent> events = reply.events();
        QCOMPARE(typesOf(events).first(), u"response.created"_s);
        QCOMPARE(typesOf(events).last(), u"response.completed"_s);
        QCOMPARE(deltasOf(events), OpenAiSimulator::tokenText(4));
        const QJsonObject echo{
            {u"type"_s, u"agent_reference"_s}, {u"name"_s, u"researcher"_s}, {u"version"_s, u"3"_s}};
        int lifecycle = 0;
        for (const SseEvent &event : events) {
            if (!event.json.contains("response"_L1))
                continue;
            ++lifecycle;
            const QJsonObject response = event.json.value("response"_L1).toObject();
            QCOMPARE(response.value("conversation"_L1).toObject(), (QJsonObject{{u"id"_s, conversation}}));
            QCOMPARE(response.value("agent_reference"_L1).toObject(), echo);
            QCOMPARE(response.value("model"_L1).toString(), u"runwatch-sim-1"_s);
        }
        QCOMPARE(lifecycle, 4); // created, queued, in_progress, completed
        const QJsonObject final = events.last().json.value("response"_L1).toObject();
        const QString id = final.value("id"_L1).toString();
        QCOMPARE(final.value("status"_L1).toString(), u"completed"_s);
        QVERIFY(final.value("instructions"_L1).isNull());

        const QJsonObject polled = client.get(u"/responses/"_s + id).json();
        QCOMPARE(polled.value("agent_reference"_L1).toObject(), echo);
        QCOMPARE(polled.value("conversation"_L1)["id"_L1].toString(), conversation);
        const auto info = sim->response(id);
        QVERIFY(info);
        QCOMPARE(info->conversationId, conversation);
        QCOMPARE(info->agentName, u"researcher"_s);
        QCOMPARE(info->agentVersion, u"3"_s);
        const QList<SseEvent> tail
            = client.get(u"/responses/%1?stream=true&starting_after=10"_s.arg(id)).events();
        QCOMPARE(typesOf(tail), (QStringList{u"response.output_item.done"_s, u"response.completed"_s}));
        QCOMPARE(tail.last().json["response"_L1]["agent_reference"_L1].toObject(), echo);

        // Input item (as input_items shows it), then the output message.
        const QJsonArray items = itemsOf(client, conversation);
        QCOMPARE(itemTypesOf(items), (QStringList{u"message"_s, u"message"_s}));
        QCOMPARE(items.at(0)["id"_L1],
                 client.get(u"/responses/%1/input_items"_s.arg(id)).json()["data"_L1][0]["id"_L1]);
        QCOMPARE(items.at(0)["role"_L1].toString(), u"user"_s);
        QCOMPARE(items.at(0)["content"_L1][0]["text"_L1].toString(), u"Say hi"_s);
        QCOMPARE(items.at(1).toObject(), polled.value("output"_L1).toArray().first().toObject());

        // Next turn, the conversation as {id}, polled: it goes after the first one. A plain
        // response (no agent, no conversation) echoes neither.
        const Reply next = client.create(agentBody(
            u"writer"_s, u"Now write"_s, {{u"conversation"_s, QJsonObject{{u"id"_s, conversation}}}}));
        QCOMPARE(next.status, 200);
        QCOMPARE(next.json().value("status"_L1).toString(), u"queued"_s);
        QCOMPARE(next.json()["agent_reference"_L1]["version"_L1].toString(), u"1"_s);
        const QString nextId = next.json().value("id"_L1).toString();
        QTRY_VERIFY(endedOf(*sim, nextId));
        const QJsonArray after = itemsOf(client, conversation);
        QCOMPARE(after.size(), 4);
        QCOMPARE(after.at(2)["content"_L1][0]["text"_L1].toString(), u"Now write"_s);
        QCOMPARE(after.at(3)["role"_L1].toString(), u"assistant"_s);
        QCOMPARE(idsOf(itemsOf(client, conversation, u"order=desc"_s)).first(), idsOf(after).last());
        const QJsonObject plain
            = client.create(QJsonObject{{u"model"_s, u"m"_s}, {u"input"_s, u"x"_s}, {u"background"_s, true}})
                  .json();
        QVERIFY(!plain.contains("agent_reference"_L1));
        QVERIFY(!plain.contains("conversation"_L1));
        QCOMPARE(itemsOf(client, conversation).size(), 4);
    }

    void refusals_data()
    {
        QTest::addColumn<QJsonObject>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        QTest::addColumn<QString>("param");
        QTest::addColumn<QString>("message");
        const QJsonObject ref = agentRef(u"researcher"_s);
        const QString deprecated = u"The 'agent' property is deprecated. Use 'agent_reference' instead."_s;
        const QString notAllowed = u"Not allowed when agent is specified."_s;
        QTest::addRow("agent") << QJsonObject{{u"agent"_s, ref}, {u"input"_s, u"x"_s}} << 400
                               << u"invalid_payload"_s << u"agent"_s << deprecated;
        QTest::addRow("agent and agent_reference")
            << QJsonObject{{u"agent"_s, ref}, {u"agent_reference"_s, ref}, {u"model"_s, u"m"_s}} << 400
            << u"invalid_payload"_s << u"agent"_s << deprecated;
        const QList<QPair<QString, QJsonValue>> owned{
            {u"instructions"_s, u"Be brief."_s},
            {u"tools"_s, QJsonArray{QJsonObject{{u"type"_s, u"function"_s}, {u"name"_s, u"f"_s}}}},
            {u"tool_choice"_s, u"auto"_s},
            {u"text"_s, QJsonObject{{u"format"_s, QJsonObject{{u"type"_s, u"text"_s}}}}},
            {u"reasoning"_s, QJsonObject{{u"effort"_s, u"low"_s}}},
        };
        for (const auto &[field, value] : owned) {
            QTest::addRow("%s beside an agent", qPrintable(field))
                << QJsonObject{{u"agent_reference"_s, ref}, {u"input"_s, u"x"_s}, {field, value}} << 400
                << u"invalid_payload"_s << field << notAllowed;
        }
        QTest::addRow("version latest")
            << QJsonObject{{u"agent_reference"_s, agentRef(u"researcher"_s, u"latest"_s)}} << 404
            << u"not_found"_s << u"agent_reference.version"_s
            << u"Agent researcher with version latest not found."_s;
        for (const QString &version : {u"4"_s, u"0"_s, u"03"_s, u"v3"_s}) {
            QTest::addRow("version %s", qPrintable(version))
                << QJsonObject{{u"agent_reference"_s, agentRef(u"researcher"_s, version)}} << 404
                << u"not_found"_s << u"agent_reference.version"_s
                << u"Agent researcher with version %1 not found."_s.arg(version);
        }
        QTest::addRow("version as a number")
            << QJsonObject{{u"agent_reference"_s, agentRef(u"researcher"_s, 3)}} << 400 << u"invalid_type"_s
            << u"agent_reference.version"_s
            << u"Invalid type for 'agent_reference.version': expected a string, but got an integer instead."_s;
        QTest::addRow("unknown agent")
            << QJsonObject{{u"agent_reference"_s, agentRef(u"nobody"_s)}} << 404 << u"not_found"_s
            << u"agent_reference.name"_s << u"Agent nobody not found."_s;
        QTest::addRow("reference without type")
            << QJsonObject{{u"agent_reference"_s, QJsonObject{{u"name"_s, u"researcher"_s}}}} << 400
            << u"invalid_value"_s << u"agent_reference.type"_s
            << u"Invalid value for 'agent_reference.type': expected 'agent_reference'."_s;
        QTest::addRow("reference without name")
            << QJsonObject{{u"agent_reference"_s, QJsonObject{{u"type"_s, u"agent_reference"_s}}}} << 400
            << u"missing_required_parameter"_s << u"agent_reference.name"_s
            << u"Missing required parameter: 'agent_reference.name'."_s;
        QTest::addRow("neither agent nor model")
            << QJsonObject{{u"input"_s, u"x"_s}} << 400 << u"missing_required_parameter"_s << u"model"_s
            << u"Missing required parameter: 'model'."_s;
        QTest::addRow("unknown conversation")
            << QJsonObject{{u"agent_reference"_s, ref}, {u"conversation"_s, u"conv_nope"_s}} << 404
            << QString() << u"conversation"_s << u"Conversation with id 'conv_nope' not found."_s;
        // "$conv" is replaced by a conversation that exists.
        QTest::addRow("conversation and previous_response_id")
            << QJsonObject{{u"agent_reference"_s, ref},
                           {u"conversation"_s, u"$conv"_s},
                           {u"previous_response_id"_s, u"resp_x"_s}}
            << 400 << u"mutually_exclusive_parameters"_s << u"conversation"_s
            << u"Mutually exclusive parameters: Ensure you are only providing one of: 'previous_response_id' "
               u"or "
               u"'conversation'."_s;
        QTest::addRow("conversation of a wrong type")
            << QJsonObject{{u"model"_s, u"m"_s}, {u"conversation"_s, 5}} << 400 << u"invalid_type"_s
            << u"conversation"_s
            << u"Invalid type for 'conversation': expected a string or an object with an 'id', but got an "
               u"integer "
               u"instead."_s;
    }

    // Every refusal: status, code, param, message, and no response created.
    void refusals()
    {
        QFETCH(QJsonObject, body);
        QFETCH(int, status);
        QFETCH(QString, code);
        QFETCH(QString, param);
        QFETCH(QString, message);
        auto sim = makeSim();
        QVERIFY(sim);
        Client client(sim->foundryBaseUrl());
        if (body.value("conversation"_L1) == u"$conv"_s)
            body.insert("conversation"_L1, newConversation(client));
        QVERIFY(isError(client.create(body), status, code, param, message));
        QCOMPARE(sim->runsCreated(), 0);
    }

    // 409 conversation_locked while a response of the conversation is queued or in progress;
    // accepted once it completed or was cancelled. Other conversations are not locked.
    void conversationLocked()
    {
        OpenAiSimConfig config = fastConfig();
        config.manualAdvance = true;
        auto sim = makeSim(config);
        QVERIFY(sim);
        Client client(sim->foundryBaseUrl());
        const QString conversation = newConversation(client);
        const QJsonObject body = agentBody(u"researcher"_s, u"hello"_s, {{u"conversation"_s, conversation}});
        const Reply first = client.create(body);
        QCOMPARE(first.status, 200);
        const QString a = first.json().value("id"_L1).toString();
        QCOMPARE(first.json().value("status"_L1).toString(), u"queued"_s);

        const auto locked = [&](const Reply &reply, const QString &by, const QString &status) {
            return isError(
                reply, 409, u"conversation_locked"_s, u"conversation"_s,
                u"Conversation %1 is locked: response %2 is still %3. Wait for it to finish."_s.arg(
                    conversation, by, status));
        };
        QVERIFY(locked(client.create(body), a, u"queued"_s));
        QCOMPARE(sim->advance(a, 1), 1);
        QCOMPARE(sim->response(a)->status, u"in_progress"_s);
        QVERIFY(locked(client.create(body), a, u"in_progress"_s));
        QCOMPARE(sim->runsCreated(), 1);
        QCOMPARE(itemsOf(client, conversation).size(), 1); // only a's input so far

        // Elsewhere nothing is locked.
        QCOMPARE(
            client.create(agentBody(u"researcher"_s, u"x"_s, {{u"conversation"_s, newConversation(client)}}))
                .status,
            200);
        QCOMPARE(client.create(agentBody(u"researcher"_s, u"x"_s)).status, 200);

        sim->advanceToEnd(a);
        QVERIFY(endedOf(*sim, a));
        const Reply second = client.create(body);
        QCOMPARE(second.status, 200);
        const QString b = second.json().value("id"_L1).toString();
        QVERIFY(locked(client.create(body), b, u"queued"_s));
        QCOMPARE(client.send("POST", u"/responses/%1/cancel"_s.arg(b)).json()["status"_L1].toString(),
                 u"cancelled"_s);
        const Reply third = client.create(body);
        QCOMPARE(third.status, 200);
        // a's input and output, b's input (cancelled before any output), the third's input.
        QCOMPARE(itemTypesOf(itemsOf(client, conversation)),
                 (QStringList{u"message"_s, u"message"_s, u"message"_s, u"message"_s}));
        QCOMPARE(itemsOf(client, conversation).at(1)["role"_L1].toString(), u"assistant"_s);
    }

    // A function_call ends the response completed; the answer is the next response in the same
    // conversation. Refused while a call is unanswered or for a call it does not have.
    void functionCallInConversation()
    {
        auto sim = makeSim();
        QVERIFY(sim);
        Client client(sim->foundryBaseUrl());
        const QString conversation = newConversation(client);
        const QJsonObject inConversation{{u"conversation"_s, conversation}};
        const Reply asked = client.create(agentBody(u"researcher"_s, u"tool_call calls=2"_s, inConversation));
        QCOMPARE(asked.status, 200);
        const QString id = asked.json().value("id"_L1).toString();
        QTRY_VERIFY(endedOf(*sim, id));
        const QJsonObject polled = client.get(u"/responses/"_s + id).json();
        QCOMPARE(polled.value("status"_L1).toString(), u"completed"_s);
        const QJsonArray output = polled.value("output"_L1).toArray();
        QCOMPARE(itemTypesOf(output), (QStringList{u"function_call"_s, u"function_call"_s}));
        const QString call0 = output.at(0)["call_id"_L1].toString();
        const QString call1 = output.at(1)["call_id"_L1].toString();

        const auto answer = [&](const QJsonValue &input) {
            return client.create(agentBody(u"researcher"_s, input, inConversation));
        };
        QVERIFY(isError(answer(u"go on"_s), 400, QString(), u"input"_s,
                        u"No tool output found for function call %1."_s.arg(call0)));
        QVERIFY(isError(answer(QJsonArray{functionOutput(call0, u"20"_s)}), 400, QString(), u"input"_s,
                        u"No tool output found for function call %1."_s.arg(call1)));
        QVERIFY(isError(answer(QJsonArray{functionOutput(u"call_unknown"_s, u"1"_s)}), 400, QString(),
                        u"input"_s,
                        u"No tool call found for function call output with call_id call_unknown."_s));
        QCOMPARE(sim->runsCreated(), 1);
        QCOMPARE(itemsOf(client, conversation).size(), 3); // the refusals added nothing

        const Reply answered
            = answer(QJsonArray{functionOutput(call0, u"20"_s), functionOutput(call1, u"21"_s)});
        QCOMPARE(answered.status, 200);
        const QString next = answered.json().value("id"_L1).toString();
        QTRY_VERIFY(endedOf(*sim, next));
        QCOMPARE(sim->response(next)->text,
                 u"[%1: 20] [%2: 21] "_s.arg(call0, call1) + OpenAiSimulator::tokenText(4));
        const QJsonArray items = itemsOf(client, conversation);
        QCOMPARE(itemTypesOf(items),
                 (QStringList{u"message"_s, u"function_call"_s, u"function_call"_s, u"function_call_output"_s,
                              u"function_call_output"_s, u"message"_s}));
        QCOMPARE(items.at(3)["call_id"_L1].toString(), call0);
        QCOMPARE(items.at(1)["call_id"_L1].toString(), call0);

        // Nothing is pending now: a text turn is a normal one, and the old calls are gone.
        QVERIFY(isError(answer(QJsonArray{functionOutput(call0, u"20"_s)}), 400, QString(), u"input"_s,
                        u"No tool call found for function call output with call_id %1."_s.arg(call0)));
        const Reply followUp = answer(u"thanks"_s);
        QCOMPARE(followUp.status, 200);
        QTRY_VERIFY(endedOf(*sim, followUp.json()["id"_L1].toString()));
        QCOMPARE(sim->response(followUp.json()["id"_L1].toString())->text, OpenAiSimulator::tokenText(4));

        // An MCP approval request is answered the same way.
        const QJsonObject other{{u"conversation"_s, newConversation(client)}};
        const QString approval
            = client.create(agentBody(u"writer"_s, u"mcp_approval"_s, other)).json()["id"_L1].toString();
        QTRY_VERIFY(endedOf(*sim, approval));
        const QString request
            = client.get(u"/responses/"_s + approval).json()["output"_L1][0]["id"_L1].toString();
        QVERIFY(request.startsWith("mcpr_"_L1));
        QCOMPARE(client.create(agentBody(u"writer"_s, u"go"_s, other)).status, 400);
        const Reply rejected
            = client.create(agentBody(u"writer"_s,
                                      QJsonArray{QJsonObject{{u"type"_s, u"mcp_approval_response"_s},
                                                             {u"approval_request_id"_s, request},
                                                             {u"approve"_s, false}}},
                                      other));
        QCOMPARE(rejected.status, 200);
        QTRY_VERIFY(endedOf(*sim, rejected.json()["id"_L1].toString()));
        QVERIFY(sim->response(rejected.json()["id"_L1].toString())
                    ->text.startsWith("[rejected: search_docs] tok0 "_L1));
    }

    // No version: the latest; each version up to it; the agent's model, whatever `model` says.
    void versionResolution()
    {
        OpenAiSimConfig config = fastConfig();
        config.modelIds = QStringList{u"base-model"_s};
        config.agents = {{u"researcher"_s, 3, u"gpt-r"_s, QString(), QString()},
                         {u"writer"_s, 1, QString(), QString(), QString()}};
        auto sim = makeSim(config);
        QVERIFY(sim);
        Client client(sim->foundryBaseUrl());
        const auto run = [&](const QString &name, const QJsonValue &version) {
            QJsonObject body = agentBody(name, u"x"_s, {{u"model"_s, u"ignored-model"_s}});
            body.insert("agent_reference"_L1, agentRef(name, version));
            return client.create(body);
        };
        for (const QString &version : {u"1"_s, u"2"_s, u"3"_s}) {
            const Reply reply = run(u"researcher"_s, version);
            QCOMPARE(reply.status, 200);
            QCOMPARE(reply.json()["agent_reference"_L1]["version"_L1].toString(), version);
            QCOMPARE(reply.json()["model"_L1].toString(), u"gpt-r"_s);
            QCOMPARE(sim->response(reply.json()["id"_L1].toString())->agentVersion, version);
        }
        QCOMPARE(
            run(u"researcher"_s, QJsonValue::Undefined).json()["agent_reference"_L1]["version"_L1].toString(),
            u"3"_s);
        QCOMPARE(run(u"researcher"_s, QJsonValue::Null).json()["agent_reference"_L1]["version"_L1].toString(),
                 u"3"_s);
        const QJsonObject writer = run(u"writer"_s, QJsonValue::Undefined).json();
        QCOMPARE(writer["agent_reference"_L1]["version"_L1].toString(), u"1"_s);
        QCOMPARE(writer["model"_L1].toString(), u"base-model"_s);
        QCOMPARE(run(u"writer"_s, u"2"_s).status, 404);
        QCOMPARE(run(u"researcher"_s, u"4"_s).status, 404);
        QCOMPARE(sim->runsCreated(), 6);
    }

    // The project layout, its key (the Bearer token) on both kinds of path, and faults aimed at
    // the new endpoints by name.
    void projectLayoutAuthAndFaults()
    {
        OpenAiSimConfig config = fastConfig();
        config.apiKey = u"tok"_s;
        config.foundryProject = u"proj-a"_s;
        OpenAiHttpFault fault;
        fault.endpoints = *openAiEndpointsFromList(u"agents+conversation_items"_s);
        fault.status = 503;
        config.httpFaults.append(fault);
        auto sim = makeSim(config);
        QVERIFY(sim);
        QCOMPARE(sim->foundryBaseUrl().path(), u"/api/projects/proj-a/openai/v1"_s);
        const QList<QPair<QByteArray, QByteArray>> bearer{{"Authorization", "Bearer tok"}};
        Client project(sim->foundryProjectUrl());
        Client api(sim->foundryBaseUrl());
        QCOMPARE(api.send("GET", u"/models"_s).status, 401);
        QCOMPARE(project.send("GET", u"/agents?api-version=v1"_s).status, 401);
        QCOMPARE(project.send("GET", u"/agents?api-version=v1"_s, {}, bearer).status, 503); // the fault, once
        QCOMPARE(project.send("GET", u"/agents?api-version=v1"_s, {}, bearer).status, 200);
        QCOMPARE(api.send("GET", u"/models"_s, {}, bearer).status, 200);
        Client root(sim->foundryProjectUrl().resolved(QUrl(u"/"_s)));
        QCOMPARE(root.send("GET", u"api/projects/runwatch-sim/openai/v1/models"_s, {}, bearer).status, 404);
        QCOMPARE(root.send("GET", u"api/projects/proj-a/v1/models"_s, {}, bearer).status, 404);
        QCOMPARE(root.send("GET", u"openai/v1/models"_s, {}, bearer).status, 200);
        QCOMPARE(openAiEndpointName(OpenAiEndpoint::ConversationItems), u"conversation_items"_s);
    }

    void commandLine()
    {
        const CommandLineResult ok = parseCommandLine(
            {u"runwatch-sim"_s, u"--openai"_s, u"--foundry-project"_s, u"proj"_s, u"--agent"_s,
             u"name=a1,version=2,model=m,description=D,instructions=I"_s, u"--agent"_s, u"name=a2"_s});
        QCOMPARE(int(ok.action), int(CommandLineResult::Action::Run));
        const OpenAiSimConfig &config = ok.options.config;
        QCOMPARE(config.foundryProject, u"proj"_s);
        QCOMPARE(config.agents.size(), 2);
        QCOMPARE(config.agents.at(0).name, u"a1"_s);
        QCOMPARE(config.agents.at(0).version, 2);
        QCOMPARE(config.agents.at(0).model, u"m"_s);
        QCOMPARE(config.agents.at(0).description, u"D"_s);
        QCOMPARE(config.agents.at(0).instructions, u"I"_s);
        QCOMPARE(config.agents.at(1).name, u"a2"_s);
        QCOMPARE(config.agents.at(1).version, 1);
        QVERIFY(config.agents.at(1).model.isEmpty());

        const OpenAiSimConfig defaults = parseCommandLine({u"runwatch-sim"_s}).options.config;
        QCOMPARE(defaults.foundryProject, u"runwatch-sim"_s);
        QCOMPARE(defaults.agents.size(), 2);
        QCOMPARE(defaults.agents.at(0).name, u"researcher"_s);
        QCOMPARE(defaults.agents.at(0).version, 3);
        QCOMPARE(defaults.agents.at(1).name, u"writer"_s);

        const auto fails = [](const QStringList &arguments) {
            return parseCommandLine(QStringList{u"runwatch-sim"_s} + arguments).action
                   == CommandLineResult::Action::Error;
        };
        QVERIFY(fails({u"--agent"_s, u"version=2"_s}));
        QVERIFY(fails({u"--agent"_s, u"name=a,version=0"_s}));
        QVERIFY(fails({u"--agent"_s, u"name=a:b"_s}));
        QVERIFY(fails({u"--agent"_s, u"name=a,colour=red"_s}));
        QVERIFY(fails({u"--agent"_s, u"name=a,refuses=model"_s}));
        const OpenAiSimConfig refusing
            = parseCommandLine({u"runwatch-sim"_s, u"--agent"_s, u"name=r,refuses=background+stream"_s,
                                u"--agent"_s, u"name=s,refuses=stream"_s})
                  .options.config;
        QVERIFY(refusing.agents.at(0).refusesBackground && refusing.agents.at(0).refusesStream);
        QVERIFY(!refusing.agents.at(1).refusesBackground && refusing.agents.at(1).refusesStream);
        QVERIFY(!defaults.agents.at(0).refusesBackground && !defaults.agents.at(0).refusesStream);
        QVERIFY(fails({u"--agent"_s, u"name=a"_s, u"--agent"_s, u"name=a,version=2"_s}));
        QVERIFY(fails({u"--openai"_s, u"--a2a"_s}));
        QVERIFY(fails({u"--foundry-project"_s, u"a/b"_s}));
        QVERIFY(!fails({u"--agent"_s, u"name=a"_s}));
        const QString help = parseCommandLine({u"runwatch-sim"_s, u"--help"_s}).message;
        QVERIFY(help.contains("--agent"_L1));
        QVERIFY(help.contains("agent_reference"_L1));
        QVERIFY(help.contains("conversation_locked"_L1));
        QVERIFY(help.contains("/api/projects/<project>/openai/v1"_L1));
    }
};

QTEST_GUILESS_MAIN(TestOpenAiSimFoundry)
#include "tst_openaisim_foundry.moc"
