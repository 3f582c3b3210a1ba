// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/runbackend.h"
#include "domain/connection.h"
#include "net/httpclient.h"

namespace Runwatch {

// OpenAI Responses in background mode (also Azure OpenAI and compatible servers): create with
// background + store (+ stream), follow by SSE with starting_after, poll GET, cancel, delete.
// Wire reference: docs/protocols/openai-responses-and-foundry.md §1–3.
class OpenAiBackend final : public RunBackend
{
    Q_OBJECT
public:
    explicit OpenAiBackend(Connection connection, QObject *parent = nullptr);

    QString kind() const override;
    Capabilities capabilities() const override;

    RunStream *start(StartRequest request, QObject *parent) override;
    RunStream *follow(ContinuationToken token, QObject *parent) override;
    // A new background response: in the parent's conversation when it had one (a Foundry agent's,
    // or start --conversation), else with previous_response_id = the parent's current response
    // (after a tool chain the last one, token.remoteId), so that the model sees the whole
    // conversation.
    RunStream *followUp(ContinuationToken parentToken, StartRequest request, QObject *parent) override;

    QCoro::Task<ActionResult> get(ContinuationToken token) override;
    QCoro::Task<ActionResult> cancel(ContinuationToken token) override;
    QCoro::Task<ActionResult> remove(ContinuationToken token) override;
    QCoro::Task<ActionResult> respond(ContinuationToken token, InputAnswer answer) override;
    QCoro::Task<ListResult> list() override;
    // A Foundry project's agents (GET {project}/agents?api-version=v1, every page), when the base
    // URL is a project's /openai/v1 endpoint (foundryProject()).
    QCoro::Task<CatalogResult> catalog() override;
    // The Responses API has neither a describing nor a listing call: its model list (GET /models)
    // is the one cheap authenticated request.
    QCoro::Task<ConnectionProbe> probe() override;
    QCoro::Task<> shutdown() override;

    HttpClient *httpClient() const { return m_http; }
    const Connection &connection() const { return m_connection; }

    // Builds a request to `path` under the base URL with auth and standard headers.
    HttpRequest request(const QByteArray &method, const QString &path) const;

    // The project URL when the base is an Azure AI Foundry project's OpenAI endpoint
    // (https://<resource>.services.ai.azure.com/api/projects/<project>/openai/v1); empty otherwise.
    QUrl foundryProject() const;

private:
    // POST /responses for start() and followUp(). `link` names what the turn continues:
    // previous_response_id, or a conversation (+ the agent_reference its turns name); empty for a
    // plain first turn.
    RunStream *create(StartRequest request, QJsonObject link, QObject *parent);

    Connection m_connection;
    HttpClient *m_http;
};

} // namespace Runwatch
