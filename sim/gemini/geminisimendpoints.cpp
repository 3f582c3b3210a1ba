// SPDX-License-Identifier: GPL-3.0-or-later
// The Gemini simulator's endpoints: creating an interaction (model or agent; streamed, background
// or waited for; a continuation by previous_interaction_id), reading it, streaming it from an
// event id, cancel, delete, and the models and agents lists. Refusals the references do not
// word are marked [guessed].
#include "geminisim.h"

#include "geminisimstream.h"
#include "geminisimwire.h"
#include "server/httpconnection.h"

#include <QJsonDocument>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

// The continuation's input against the calls `previous` waits for: empty when every call is
// answered exactly once, else why not. The answered calls and their results in *answered / *texts.
QString checkAnswers(const GeminiSimRun &previous, const QList<GeminiFunctionResult> &results,
                     QList<GeminiSimCall> *answered, QStringList *texts)
{
    const QList<GeminiSimCall> &pending = previous.calls();
    for (const GeminiFunctionResult &result : results) {
        const auto call = std::find_if(pending.cbegin(), pending.cend(),
                                       [&](const GeminiSimCall &c) { return c.id == result.callId; });
        if (call == pending.cend()) {
            return u"function_result with call_id '%1' does not match any function call of interaction %2."_s
                .arg(result.callId, previous.id());
        }
        if (std::any_of(answered->cbegin(), answered->cend(),
                        [&](const GeminiSimCall &c) { return c.id == result.callId; })) {
            return u"More than one function_result for call_id '%1'."_s.arg(result.callId);
        }
        answered->append(*call);
        texts->append(geminiResultText(result.result));
    }
    for (const GeminiSimCall &call : pending) {
        if (!std::any_of(answered->cbegin(), answered->cend(),
                         [&](const GeminiSimCall &c) { return c.id == call.id; }))
            return u"Function call '%1' (%2) has no function_result."_s.arg(call.id, call.name);
    }
    return QString();
}

} // namespace

void GeminiSimulator::handleCreate(const Exchange &exchange, const HttpRequest &request,
                                   const QString &version)
{
    QJsonParseError parseError{};
    const QJsonDocument document = QJsonDocument::fromJson(request.body, &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject()) {
        sendError(exchange, 400, u"Invalid JSON payload received."_s);
        return;
    }
    const QJsonObject body = document.object();
    GeminiRunParams params;
    params.model = body.value("model"_L1).toString();
    if (params.model.startsWith("models/"_L1))
        params.model = params.model.mid(7);
    params.agent = body.value("agent"_L1).toString();
    params.background = body.value("background"_L1).toBool();
    params.stream = body.value("stream"_L1).toBool();
    params.store = body.value("store"_L1).toBool(true);
    params.previousId = body.value("previous_interaction_id"_L1).toString();
    params.input = body.value("input"_L1);
    params.agentConfig = body.value("agent_config"_L1).toObject();
    params.functionNames = geminiFunctionNames(body.value("tools"_L1));

    if (!params.model.isEmpty() && !params.agent.isEmpty()) {
        sendError(exchange, 400, u"Only one of model and agent may be set."_s); // [guessed]
        return;
    }
    if (params.model.isEmpty() && params.agent.isEmpty()) {
        sendError(exchange, 400, u"One of model or agent is required."_s); // [guessed]
        return;
    }
    if (!params.model.isEmpty() && !m_config.modelIds.contains(params.model)) {
        sendError(exchange, 404,
                  u"models/%1 is not found for API version %2, or is not supported for interactions."_s.arg(
                      params.model, version)); // [guessed]
        return;
    }
    if (!params.agent.isEmpty() && !m_config.agentIds.contains(params.agent)) {
        sendError(exchange, 404, u"Agent %1 not found."_s.arg(params.agent)); // [guessed]
        return;
    }
    // Deep Research must run in the background [docs]; the wording is [guessed].
    if (!params.agent.isEmpty() && !params.background) {
        sendError(exchange, 400, u"Agent %1 requires background=true."_s.arg(params.agent));
        return;
    }
    if (params.background && !params.store) {
        sendError(exchange, 400, u"background=true requires store=true."_s); // [guessed]
        return;
    }
    if (params.input.isUndefined() || params.input.isNull()) {
        sendError(exchange, 400, u"input is required."_s); // [guessed]
        return;
    }
    params.prompt = geminiInputText(params.input);
    params.inputSteps = geminiInputSteps(params.input);
    const QList<GeminiFunctionResult> results = geminiFunctionResults(params.input);

    GeminiRunOptions options;
    const GeminiSimRun *previous = nullptr;
    if (!params.previousId.isEmpty()) {
        previous = findRun(params.previousId);
        if (!previous) {
            sendError(exchange, 404, u"Interaction %1 not found."_s.arg(params.previousId));
            return;
        }
        if (previous->isActive()) {
            sendError(exchange, 400, u"Interaction %1 is still in progress."_s.arg(params.previousId),
                      u"FAILED_PRECONDITION"_s); // [guessed]
            return;
        }
    }
    if (previous && previous->status() == GeminiSimRun::Status::RequiresAction) {
        // The answer to the calls: every one of them, once [guessed wording].
        const QString why = checkAnswers(*previous, results, &params.answered, &params.answers);
        if (!why.isEmpty()) {
            sendError(exchange, 400, why);
            return;
        }
        // It goes on as the previous one would have: its options, a plain answer.
        options = previous->options();
        options.scenario = GeminiScenario::Normal;
    } else {
        if (!results.isEmpty()) {
            sendError(exchange, 400,
                      u"function_result with call_id '%1' does not answer a pending function call."_s.arg(
                          results.first().callId)); // [guessed]
            return;
        }
        if (const auto error
            = resolveRunOptions(m_config, !params.agent.isEmpty(), params.prompt, &options)) {
            sendError(exchange, 400, error->message);
            return;
        }
    }

    GeminiSimRun *run = createRun(params, options);
    run->start();
    if (params.stream) {
        openStream(exchange, run, 0);
    } else if (params.background) {
        // At once: the interaction as it starts, before any step (tests/data/gemini/background-create.json).
        QJsonObject reply = run->json(false);
        reply.insert(u"steps"_s, QJsonArray());
        sendJson(exchange, 200, reply);
    } else if (run->hasEnded()) {
        sendJson(exchange, 200, run->json(false));
    } else {
        // The call waits for the end, then returns the model's steps only.
        const QPointer<GeminiSimRun> guarded(run);
        connect(run, &GeminiSimRun::ended, this, [this, exchange, guarded] {
            if (guarded)
                sendJson(exchange, 200, guarded->json(false));
        });
    }
}

void GeminiSimulator::handleGet(const Exchange &exchange, const HttpRequest &request, GeminiSimRun *run)
{
    if (request.query.hasQueryItem(u"last_event_id"_s)) {
        sendError(exchange, 400, u"last_event_id requires stream=true."_s); // [guessed]
        return;
    }
    const QString includeInput = request.query.queryItemValue(u"include_input"_s);
    sendJson(exchange, 200, run->json(true, includeInput == "true"_L1 || includeInput == "1"_L1));
}

void GeminiSimulator::handleStream(const Exchange &exchange, const HttpRequest &request, GeminiSimRun *run)
{
    qsizetype first = 0; // without last_event_id: everything from the start
    if (request.query.hasQueryItem(u"last_event_id"_s)) {
        const QString last = request.query.queryItemValue(u"last_event_id"_s, QUrl::FullyDecoded);
        first = run->indexAfter(last);
        if (first < 0) {
            sendError(exchange, 400, u"Invalid last_event_id '%1'."_s.arg(last)); // [guessed]
            return;
        }
    }
    openStream(exchange, run, first);
}

void GeminiSimulator::handleCancel(const Exchange &exchange, GeminiSimRun *run)
{
    // Background interactions that are still running only; the refusals' wording is [guessed].
    if (!run->params().background) {
        sendError(exchange, 400, u"Only background interactions can be cancelled."_s,
                  u"FAILED_PRECONDITION"_s);
        return;
    }
    if (!run->cancel()) {
        sendError(exchange, 400,
                  u"Interaction %1 is not running (status %2)."_s.arg(run->id(), run->statusName()),
                  u"FAILED_PRECONDITION"_s);
        return;
    }
    sendJson(exchange, 200, run->json(true));
}

void GeminiSimulator::handleDelete(const Exchange &exchange, GeminiSimRun *run)
{
    // A running one stops; its streams end without [DONE] (not in the references: [guessed]).
    removeRun(run);
    sendJson(exchange, 200, QJsonObject());
}

void GeminiSimulator::handleModels(const Exchange &exchange, const QString &model)
{
    if (!model.isEmpty()) {
        if (m_config.modelIds.contains(model)) {
            sendJson(exchange, 200, geminiModelJson(model));
        } else {
            sendError(exchange, 404, u"models/%1 is not found."_s.arg(model));
        }
        return;
    }
    QJsonArray models;
    for (const QString &id : std::as_const(m_config.modelIds))
        models.append(geminiModelJson(id));
    sendJson(exchange, 200, QJsonObject{{u"models"_s, models}});
}

void GeminiSimulator::handleAgents(const Exchange &exchange)
{
    QJsonArray agents;
    for (const QString &id : std::as_const(m_config.agentIds))
        agents.append(geminiAgentJson(id));
    sendJson(exchange, 200, QJsonObject{{u"agents"_s, agents}});
}

void GeminiSimulator::openStream(const Exchange &exchange, GeminiSimRun *run, qsizetype first)
{
    if (!exchange.connection)
        return;
    // The client reads a 200 text/event-stream as SSE (its sse() matcher) and stops at "[DONE]".
    beginEventStream(exchange.connection, {});
    recordStatus(exchange, 200);
    const int index = run->openStreamConnection();
    const GeminiRunOptions &options = run->options();
    GeminiStreamSettings settings;
    settings.lineEnding = options.lineEnding;
    settings.splitWrites = options.splitWrites;
    settings.cutAfterDeltas = options.cutAfterDeltas;
    auto *stream = new GeminiSimStream(exchange.connection, run, first,
                                       options.streamFaults.hitConnection(index), settings, this);
    m_streams.removeIf([](const QPointer<GeminiSimStream> &s) { return !s; });
    m_streams.append(stream);
    const QString id = run->id();
    connect(stream, &SimStream::finished, this,
            [this, id, stream] { Q_EMIT streamClosed(id, stream->wasCut()); });
    Q_EMIT streamOpened(id, index);
    stream->start();
}

} // namespace RunwatchSim
