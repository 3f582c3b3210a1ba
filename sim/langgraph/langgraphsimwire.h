// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Payload shapes of the LangGraph Agent Server on the wire, as the real server (1.5.1) sends them
// in tests/data/langgraph/: SSE frames, assistants, threads, thread state, messages. The run shape
// is LangGraphSimRun::json() (langgraphsimwire.cpp).

#include "langgraphsimoptions.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonArray>
#include <QJsonObject>
#include <QString>

namespace RunwatchSim {

struct LangGraphSimThread;

// "event: E", "data: D", then "id: N" (when id >= 0) and the blank line: the real server's order.
QByteArray langGraphFrame(QByteArrayView event, QByteArrayView data, qint64 id);
// "2026-11-28T21:02:00.035Z"
QString langGraphTime(qint64 epochMs);

QJsonObject langGraphInfoJson(const QString &version);
QJsonObject langGraphAssistantJson(LangGraphGraph graph, qint64 createdMs);

// An AI message chunk of `messages-tuple` (one token), the message in an `updates` event, and the
// message as the state (values) holds it: three slightly different shapes on the real server.
QJsonObject langGraphAiChunk(const QString &id, const QString &text);
QJsonObject langGraphAiUpdate(const QString &id, const QString &text);
QJsonObject langGraphAiMessage(const QString &id, const QString &text);
// A message of a run's input ({role|type, content, id?}) in the state's shape; `type` is the
// state's ("human", "ai", "system", "tool").
QJsonObject langGraphInputMessage(const QString &type, const QJsonValue &content, const QString &id);
// The text of a message's content: a string, or {type:"text", text} blocks joined.
QString langGraphContentText(const QJsonValue &content);

// JSON text of any value (QJsonDocument takes only objects and arrays), as JSON.stringify writes it
// (but with sorted keys).
QString langGraphJsonText(const QJsonValue &value);
// LangChain's human-in-the-loop middleware request, exactly as the real approval graph sends it.
QJsonObject langGraphHitlRequest();

// GET /threads/{t}: no values or interrupts while busy (nor before a run has left any).
QJsonObject langGraphThreadJson(const LangGraphSimThread &thread);
// GET /threads/{t}/state
QJsonObject langGraphStateJson(const LangGraphSimThread &thread);

} // namespace RunwatchSim
