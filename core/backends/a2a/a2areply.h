// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/runerror.h"

#include <QByteArrayView>
#include <QJsonValue>
#include <QString>

#include <optional>

// A2A replies and errors (docs/protocols/a2a-and-agent-protocol.md §4, §9): JSON-RPC envelopes,
// HTTP+JSON bodies, and A2A error codes in Runwatch's taxonomy. Pure, like a2amapper.h.
namespace Runwatch::A2a {

enum class Binding; // a2amapper.h

// An A2A error, from a JSON-RPC error object (§9.2), a REST google.rpc.Status body or an RFC 9457
// problem body. `code` is the JSON-RPC code (derived from ErrorInfo.reason for REST).
struct ProtocolError
{
    int code = 0;
    QString message;
    QString reason; // ErrorInfo.reason, e.g. TASK_NOT_FOUND; may be empty
    int httpStatus = 0;
};

// "TaskNotFound", "TaskNotCancelable", … (empty for codes outside the A2A and JSON-RPC sets).
QString errorName(int code);
int codeForReason(QStringView reason);
// The unified error: NotFound for -32001, Client for request/operation errors, Server for
// -32603/-32006 and unknown server codes; `code` is the number as text.
RunError toRunError(const ProtocolError &error);

// One decoded reply: a JSON-RPC envelope (result or error) or, for HTTP+JSON, a bare result or
// an error body. `malformed` explains what could not be understood (then neither is set).
struct Reply
{
    QJsonValue result;
    std::optional<ProtocolError> error;
    QString malformed;

    bool ok() const { return !error && malformed.isEmpty(); }
};
Reply decodeJsonRpc(QByteArrayView json);
Reply decodeRest(QByteArrayView json, int httpStatus = 200);
// The one an interface's binding speaks: decodeJsonRpc or decodeRest.
Reply decodeReply(Binding binding, QByteArrayView json, int httpStatus = 200);
// An error body of either shape ({"jsonrpc",…,"error"} / {"error":{…}} / problem+json) or
// nullopt when there is none.
std::optional<ProtocolError> parseErrorBody(QByteArrayView json, int httpStatus);

// What one artifact-update event says (§6), whichever way it was read (a2ascan.h).
struct ArtifactChunk
{
    QString taskId;
    QString contextId;
    QString artifactId;
    QString name;
    QString text; // partsText() of its parts
    bool append = false;
    bool lastChunk = false;
};

} // namespace Runwatch::A2a
