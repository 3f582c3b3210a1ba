// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/foundry/foundrymapper.h"
#include "backends/runbackend.h"
#include "domain/connection.h"
#include "net/httpclient.h"

#include <QJsonArray>
#include <QPointer>

namespace Runwatch {

// Every item of a paged list, or why it could not be read.
struct FoundryListResult
{
    RunError error;
    QJsonArray items;
    std::optional<qint64> retryAfterMs;
    // Not an error: the list is longer than Foundry::ListPages reads, `items` holds its beginning
    // and this says so (code "list_too_long"); none for a whole list.
    RunError truncation;
};

// The text of a run's assistant messages, or why it could not be read.
struct FoundryTextResult
{
    RunError error;
    QString text;
    std::optional<qint64> retryAfterMs;
    RunError truncation; // the text is the beginning of the answer (FoundryListResult::truncation)
};

// Azure AI Foundry Agent Service ("persistent agents": threads and runs). Starts a thread + run
// with the prompt as its first user message (streamed or not), follows the stream while it lasts
// and polls GET …/runs/{r} after it (the protocol cannot resume a stream), reading the run's
// messages (every page, every text part) so the answer equals the service's text exactly.
// requires_action → input required (tool outputs or MCP approvals, with the deadline); submit,
// cancel; no server-side delete. Wire reference: docs/protocols/openai-responses-and-foundry.md §5.
//
// Connection: baseUrl = the project endpoint (https://<resource>.services.ai.azure.com/api/projects/<p>);
// apiKey = a Bearer token; options "api_version" (default 2025-05-01), "token_command" (run for a
// token instead, see TokenSource), "agent" (default assistant id), "stall_timeout_ms".
// The continuation token is the run id with the thread id in extra["thread_id"].
class FoundryBackend final : public RunBackend
{
    Q_OBJECT
public:
    static constexpr QLatin1StringView kDefaultApiVersion{"2025-05-01"};

    explicit FoundryBackend(Connection connection, QObject *parent = nullptr);
    ~FoundryBackend() override;

    QString kind() const override;
    Capabilities capabilities() const override;

    RunStream *start(StartRequest request, QObject *parent) override;
    RunStream *follow(ContinuationToken token, QObject *parent) override;
    // The next turn on the finished run's thread (§5): POST /threads/{t}/messages with the prompt,
    // then POST /threads/{t}/runs with the parent's agent (assistant_id), streamed like start().
    RunStream *followUp(ContinuationToken parentToken, StartRequest request, QObject *parent) override;

    QCoro::Task<ActionResult> get(ContinuationToken token) override;
    QCoro::Task<ActionResult> cancel(ContinuationToken token) override;
    QCoro::Task<ActionResult> remove(ContinuationToken token) override;
    QCoro::Task<ActionResult> respond(ContinuationToken token, InputAnswer answer) override;
    QCoro::Task<ListResult> list() override;
    // The project's agents (GET /assistants, every page): id, name, model.
    QCoro::Task<CatalogResult> catalog() override;
    QCoro::Task<> shutdown() override;

    // Every item of the list at `path` (a query of its own allowed), ascending, following
    // has_more / last_id, up to the list limits: a longer list gives its beginning and says so
    // (FoundryListResult::truncation, and a warning in the log).
    QCoro::Task<FoundryListResult> listAll(QString path);
    // How much of one list listAll() reads (Foundry::ListPages::Limits); tests make it small.
    void setListLimits(Foundry::ListPages::Limits limits) { m_listLimits = limits; }
    // Every assistant message of the run (all pages, ascending), as one text.
    QCoro::Task<FoundryTextResult> runText(QString threadId, QString runId);

    // A request to `path` under the project endpoint with ?api-version (no credentials yet).
    HttpRequest request(const QByteArray &method, const QString &path) const;
    // POST `path` creating a run of `agent` (a new thread's first run, or the next on a thread):
    // `body` plus what both share — stream, model, client run id, headers, never re-sent.
    HttpRequest runCreation(const QString &path, const QString &agent, const StartRequest &request,
                            QJsonObject body) const;
    // The client's send()/openStream(): the credential goes on as the request leaves, and after
    // a 401 the token is renewed (token command) and the request sent once more (RequestAuth).
    QCoro::Task<HttpResponse> send(HttpRequest request);
    QCoro::Task<OpenedStream> openStream(HttpRequest request, StreamDecoderFactory makeDecoder);

    const Connection &connection() const { return m_connection; }
    HttpClient *httpClient() const { return m_http; }

private:
    Connection m_connection;
    HttpClient *m_http;
    Foundry::ListPages::Limits m_listLimits;
};

} // namespace Runwatch
