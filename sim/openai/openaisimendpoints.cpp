// SPDX-License-Identifier: GPL-3.0-or-later
// The OpenAI simulator's endpoints (protocol §1-§3): create, stream (resume / replay), cancel,
// delete, input items and models. Routing, replies and the request log are in openaisim.cpp.
#include "openaisim.h"

#include "openaisimrun.h"
#include "openaisimstream.h"
#include "server/httpconnection.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QSet>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

constexpr int kMaxMetadataKeys = 16;
constexpr int kMaxMetadataKeyLength = 64;
constexpr int kMaxMetadataValueLength = 512;

QString jsonTypeName(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Null:
        return u"null"_s;
    case QJsonValue::Bool:
        return u"a boolean"_s;
    case QJsonValue::Double:
        return value.toDouble() == double(value.toInteger()) ? u"an integer"_s : u"a number"_s;
    case QJsonValue::String:
        return u"a string"_s;
    case QJsonValue::Array:
        return u"an array"_s;
    case QJsonValue::Object:
        return u"an object"_s;
    case QJsonValue::Undefined:
        break;
    }
    return u"nothing"_s;
}

// What a request that continues a response (previous_response_id) answers of the calls that
// response waits on (protocol §1.8): the reply prefix of the continuation, one "[…] " per answer.
struct ChainAnswers
{
    bool answered = false; // the input holds function_call_output / mcp_approval_response items
    QString prefix;
    QString error; // 400, param "input"
};

ChainAnswers answerChain(const OpenAiSimRun &previous, const QJsonValue &input)
{
    ChainAnswers chain;
    const QList<OpenAiSimRun::PendingCall> pending = previous.pendingCalls();
    const auto find = [&pending](const QString &id, bool approval) -> const OpenAiSimRun::PendingCall * {
        for (const OpenAiSimRun::PendingCall &call : pending) {
            if (call.id == id && call.approval == approval)
                return &call;
        }
        return nullptr;
    };
    QSet<QString> answered;
    const QJsonArray items = input.toArray();
    for (const QJsonValue &value : items) {
        const QJsonObject item = value.toObject();
        const QString type = item.value("type"_L1).toString();
        if (type == "function_call_output"_L1) {
            const QString callId = item.value("call_id"_L1).toString();
            if (!find(callId, false) || answered.contains(callId)) {
                chain.error = u"No tool call found for function call output with call_id %1."_s.arg(callId);
                return chain;
            }
            const QJsonValue output = item.value("output"_L1);
            chain.prefix += u"[%1: %2] "_s.arg(
                callId,
                output.isString()
                    ? output.toString()
                    : QString::fromUtf8(QJsonDocument(output.toArray()).toJson(QJsonDocument::Compact)));
            answered.insert(callId);
        } else if (type == "mcp_approval_response"_L1) {
            const QString requestId = item.value("approval_request_id"_L1).toString();
            const OpenAiSimRun::PendingCall *call = find(requestId, true);
            if (!call || answered.contains(requestId)) {
                chain.error = u"No MCP approval request found with id %1."_s.arg(requestId);
                return chain;
            }
            if (!item.value("approve"_L1).isBool()) {
                chain.error = u"Missing required parameter: 'input.approve'."_s;
                return chain;
            }
            chain.prefix += u"[%1: %2] "_s.arg(
                item.value("approve"_L1).toBool() ? u"approved"_s : u"rejected"_s, call->name);
            answered.insert(requestId);
        }
    }
    // The model cannot go on while a call of the previous response has no answer.
    for (const OpenAiSimRun::PendingCall &call : pending) {
        if (!answered.contains(call.id)) {
            chain.error = call.approval
                              ? u"No approval response found for MCP approval request %1."_s.arg(call.id)
                              : u"No tool output found for function call %1."_s.arg(call.id);
            return chain;
        }
    }
    chain.answered = !answered.isEmpty();
    return chain;
}

} // namespace

void OpenAiSimulator::handleCreate(const Exchange &exchange, const HttpRequest &request)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(request.body, &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject()) {
        sendError(exchange, 400,
                  u"We could not parse the JSON body of your request. The API expects a JSON "
                  u"object."_s);
        return;
    }
    const QJsonObject body = document.object();
    const auto invalidType = [&](const QString &param, const QString &expected, const QJsonValue &got) {
        sendInvalidType(exchange, param, expected, got);
    };
    const auto boolField = [&](const QString &key, bool fallback, bool *out) {
        const QJsonValue value = body.value(key);
        if (value.isUndefined() || value.isNull()) {
            *out = fallback;
            return true;
        }
        if (!value.isBool()) {
            invalidType(key, u"a boolean"_s, value);
            return false;
        }
        *out = value.toBool();
        return true;
    };

    OpenAiCreateParams params;
    if (!takeAgent(exchange, body, &params))
        return;
    // With an agent its definition names the model, and a `model` beside it is not used (guessed:
    // the references say only that it is not needed).
    if (!params.agentReference.isObject()) {
        const QJsonValue model = body.value("model"_L1);
        if (!model.isString() || model.toString().isEmpty()) {
            if (!model.isUndefined() && !model.isNull() && !model.isString()) {
                invalidType(u"model"_s, u"a string"_s, model);
            } else {
                sendError(exchange, 400, u"Missing required parameter: 'model'."_s,
                          u"invalid_request_error"_s, u"model"_s, u"missing_required_parameter"_s);
            }
            return;
        }
        params.model = model.toString();
    }
    if (!boolField(u"background"_s, false, &params.background) || !boolField(u"store"_s, true, &params.store)
        || !boolField(u"stream"_s, false, &params.stream))
        return;
    params.input = body.value("input"_L1);
    if (params.input.isUndefined())
        params.input = QJsonValue();
    if (!params.input.isNull() && !params.input.isString() && !params.input.isArray()) {
        invalidType(u"input"_s, u"a string or an array"_s, params.input);
        return;
    }
    if (!takeMetadata(exchange, body.value("metadata"_L1), &params.metadata))
        return;
    if (params.background && !params.store) {
        // Protocol §1.3 (MS-CONTRACT row): background requires store=true.
        sendError(exchange, 400,
                  u"Background mode requires store=true; stateless background requests are "
                  u"rejected."_s,
                  u"invalid_request_error"_s, u"background"_s, u"unsupported_parameter"_s);
        return;
    }
    // A response in a conversation continues the conversation's last response as one with
    // previous_response_id continues that one (the two exclude each other).
    const OpenAiSimRun *previousRun = nullptr;
    if (!takeConversation(exchange, body, &params, &previousRun))
        return;
    const QJsonValue previous = body.value("previous_response_id"_L1);
    if (previous.isString()) {
        previousRun = findVisible(previous.toString());
        if (!previousRun) {
            sendError(exchange, 404, u"Previous response with id '%1' not found."_s.arg(previous.toString()),
                      u"invalid_request_error"_s, u"previous_response_id"_s,
                      u"previous_response_not_found"_s);
            return;
        }
    }
    ChainAnswers chain;
    if (previousRun) {
        chain = answerChain(*previousRun, params.input);
        if (!chain.error.isEmpty()) {
            sendError(exchange, 400, chain.error, u"invalid_request_error"_s, u"input"_s);
            return;
        }
    }
    params.previousResponseId = previous.isString() ? previous : QJsonValue();
    params.instructions
        = body.value("instructions"_L1).isString() ? body.value("instructions"_L1) : QJsonValue();
    params.maxOutputTokens
        = body.value("max_output_tokens"_L1).isDouble() ? body.value("max_output_tokens"_L1) : QJsonValue();
    const QJsonValue obfuscation = body.value("stream_options"_L1).toObject().value("include_obfuscation"_L1);
    params.obfuscation = m_config.obfuscation && obfuscation.toBool(true);
    params.fractionalTimestamps = m_config.fractionalTimestamps;

    OpenAiRunOptions options;
    if (chain.answered && previousRun) { // answered implies a previous run; said for the analyser
        // The conversation goes on as the previous response was asked for, now with the answers
        // (a tool output's words are no options).
        options = previousRun->options();
        options.scenario = OpenAiScenario::Normal;
        options.httpFault.reset();
        options.streamFaults = m_config.streamFaults;
        options.reply = chain.prefix + (options.reply.isEmpty() ? tokenText(options.deltas) : options.reply);
    } else if (const auto error
               = resolveRunOptions(m_config, inputTextOf(params.input), params.metadata, &options)) {
        sendError(exchange, 400, error->message, u"invalid_request_error"_s,
                  QString(u"metadata."_s + error->key), u"invalid_value"_s);
        return;
    }
    if (options.httpFault && options.httpFault->aimsAt(OpenAiEndpoint::Create)) {
        // No response exists yet: count the faults per request body, so an SDK-style retry of
        // the same request is what gets through after `count` failures.
        const QByteArray key = QCryptographicHash::hash(request.body, QCryptographicHash::Sha1);
        if (takeFault(options.httpFault->count, &m_createFaultsServed[key])) {
            sendFault(exchange, *options.httpFault);
            return;
        }
    }

    OpenAiSimRun *run = createRun(u"resp_"_s + QString::fromLatin1(randomHex(24)), params, options);
    joinConversation(run);
    run->start();

    if (params.stream) {
        openStream(exchange, run, -1);
        return;
    }
    if (params.background) {
        sendJson(exchange, 200, run->snapshot());
        return;
    }
    // Foreground without stream: the answer is the finished response. Closing the connection
    // cancels it, as for the real API.
    if (run->hasEnded()) {
        sendJson(exchange, 200, run->snapshot());
        if (!params.store)
            forgetRun(run);
        return;
    }
    connect(
        run, &OpenAiSimRun::ended, this,
        [this, exchange, run] {
            sendJson(exchange, 200, run->snapshot());
            if (!run->params().store)
                forgetRun(run);
        },
        Qt::SingleShotConnection);
    connect(exchange.connection, &HttpConnection::closed, run, [run] {
        if (!run->hasEnded()) {
            run->cancel();
        }
    });
}

void OpenAiSimulator::sendInvalidType(const Exchange &exchange, const QString &param, const QString &expected,
                                      const QJsonValue &got)
{
    sendError(
        exchange, 400,
        u"Invalid type for '%1': expected %2, but got %3 instead."_s.arg(param, expected, jsonTypeName(got)),
        u"invalid_request_error"_s, param, u"invalid_type"_s);
}

bool OpenAiSimulator::takeMetadata(const Exchange &exchange, const QJsonValue &metadata, QJsonObject *out)
{
    if (metadata.isUndefined() || metadata.isNull())
        return true;
    if (!metadata.isObject()) {
        sendInvalidType(exchange, u"metadata"_s, u"an object"_s, metadata);
        return false;
    }
    *out = metadata.toObject();
    if (out->size() > kMaxMetadataKeys) {
        sendError(exchange, 400,
                  u"Invalid 'metadata': too many properties. Expected an object with at most "
                  u"%1 properties, but got an object with %2 properties instead."_s.arg(kMaxMetadataKeys)
                      .arg(out->size()),
                  u"invalid_request_error"_s, u"metadata"_s, u"object_above_max_properties"_s);
        return false;
    }
    for (auto it = out->constBegin(); it != out->constEnd(); ++it) {
        const QString param = u"metadata."_s + it.key();
        if (!it.value().isString()) {
            sendInvalidType(exchange, param, u"a string"_s, it.value());
            return false;
        }
        if (it.key().size() > kMaxMetadataKeyLength
            || it.value().toString().size() > kMaxMetadataValueLength) {
            sendError(exchange, 400,
                      u"Invalid '%1': metadata keys are limited to %2 and values to %3 "
                      u"characters."_s.arg(param)
                          .arg(kMaxMetadataKeyLength)
                          .arg(kMaxMetadataValueLength),
                      u"invalid_request_error"_s, param, u"string_above_max_length"_s);
            return false;
        }
    }
    return true;
}

void OpenAiSimulator::handleStream(const Exchange &exchange, const HttpRequest &request, OpenAiSimRun *run)
{
    if (!run->params().background) {
        sendError(exchange, 400,
                  u"This response cannot be streamed because it was not created with "
                  u"background=true."_s,
                  u"invalid_request_error"_s, u"stream"_s);
        return;
    }
    if (!run->params().stream) {
        sendError(exchange, 400,
                  u"This response cannot be streamed because it was not created with "
                  u"stream=true."_s,
                  u"invalid_request_error"_s, u"stream"_s);
        return;
    }
    const qint64 maxAge = run->options().resumeMaxAgeMs;
    if (maxAge == 0 || (maxAge > 0 && run->ageMs() > maxAge)) {
        sendError(exchange, 400,
                  u"This response can no longer be streamed because it is more than 5 minutes "
                  u"old."_s);
        return;
    }
    qint64 startingAfter = -1;
    if (request.query.hasQueryItem(u"starting_after"_s)) {
        bool ok = false;
        startingAfter = request.query.queryItemValue(u"starting_after"_s).toLongLong(&ok);
        if (!ok || startingAfter < -1) {
            sendError(exchange, 400, u"Invalid 'starting_after': expected a non-negative integer."_s,
                      u"invalid_request_error"_s, u"starting_after"_s, u"invalid_value"_s);
            return;
        }
    }
    openStream(exchange, run, startingAfter);
}

void OpenAiSimulator::openStream(const Exchange &exchange, OpenAiSimRun *run, qint64 startingAfter)
{
    if (!exchange.connection)
        return;
    const int index = run->openStreamConnection();
    ++m_streamConnections;
    beginEventStream(exchange.connection, {{QByteArrayLiteral("x-request-id"), exchange.requestId}},
                     QByteArrayLiteral("text/event-stream; charset=utf-8"));
    recordStatus(exchange, 200);

    OpenAiStreamSettings settings;
    settings.lineEnding = m_config.lineEnding;
    settings.sendDone = run->options().sendDone;
    settings.commentIntervalMs = m_config.commentIntervalMs;
    settings.endlessLineMaxBytes = m_config.endlessLineMaxBytes;
    const bool faulted = run->options().streamFaults.hitConnection(index);
    auto *stream = new OpenAiSimStream(exchange.connection, run, startingAfter, faulted, settings, this);
    m_streams.append(stream);
    const QString id = run->id();
    connect(stream, &OpenAiSimStream::finished, this, [this, id, stream] {
        m_streams.removeIf([stream](const QPointer<OpenAiSimStream> &s) { return !s || s == stream; });
        Q_EMIT streamClosed(id);
    });
    if (!run->params().background) {
        connect(stream, &OpenAiSimStream::clientGone, run, [run] { run->cancel(); });
        if (!run->params().store) {
            connect(
                run, &OpenAiSimRun::ended, this, [this, run] { forgetRun(run); }, Qt::SingleShotConnection);
        }
    }
    Q_EMIT streamOpened(id, index);
    stream->start();
}

void OpenAiSimulator::handleCancel(const Exchange &exchange, OpenAiSimRun *run)
{
    if (!run->params().background) {
        sendError(exchange, 400, u"Cannot cancel a synchronous response."_s);
        return;
    }
    switch (run->cancel()) {
    case OpenAiSimRun::CancelOutcome::Cancelled:
    case OpenAiSimRun::CancelOutcome::AlreadyCancelled:
        sendJson(exchange, 200, run->snapshot());
        break;
    case OpenAiSimRun::CancelOutcome::WasCompleted:
        sendError(exchange, 400, u"Cannot cancel a completed response."_s);
        break;
    case OpenAiSimRun::CancelOutcome::WasFailed:
        sendError(exchange, 400, u"Cannot cancel a failed response."_s);
        break;
    case OpenAiSimRun::CancelOutcome::WasIncomplete:
        sendError(exchange, 400, u"Cannot cancel an incomplete response."_s);
        break;
    }
}

void OpenAiSimulator::handleDelete(const Exchange &exchange, OpenAiSimRun *run)
{
    if (m_config.rejectInflightDelete && !run->hasEnded()) {
        sendError(exchange, 400, u"Cannot delete an in-flight response."_s);
        return;
    }
    const QString id = run->id();
    forgetRun(run);
    m_deleted.insert(id);
    sendJson(exchange, 200, QJsonObject{{u"id"_s, id}, {u"object"_s, u"response"_s}, {u"deleted"_s, true}});
}

void OpenAiSimulator::handleInputItems(const Exchange &exchange, OpenAiSimRun *run)
{
    const QJsonArray items = run->inputItems();
    sendJson(exchange, 200,
             QJsonObject{
                 {u"object"_s, u"list"_s},
                 {u"data"_s, items},
                 {u"first_id"_s, items.isEmpty() ? QJsonValue() : items.first()["id"_L1]},
                 {u"last_id"_s, items.isEmpty() ? QJsonValue() : items.last()["id"_L1]},
                 {u"has_more"_s, false},
             });
}

void OpenAiSimulator::handleModels(const Exchange &exchange)
{
    QJsonArray data;
    for (const QString &model : m_config.modelIds) {
        data.append(QJsonObject{{u"id"_s, model},
                                {u"object"_s, u"model"_s},
                                {u"created"_s, 1700000000},
                                {u"owned_by"_s, u"runwatch-sim"_s}});
    }
    sendJson(exchange, 200, QJsonObject{{u"object"_s, u"list"_s}, {u"data"_s, data}});
}

} // namespace RunwatchSim
