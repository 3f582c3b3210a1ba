// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/runbackend.h"
#include "domain/connection.h"
#include "net/httpclient.h"

#include <QJsonArray>
#include <QJsonObject>

namespace Runwatch {

// LangGraph Agent Server runs (docs/protocols/langgraph-agent-server.md): LangSmith Deployment,
// the Python langgraph-api and the JS in-memory server speak the same REST + SSE API. A run of
// Runwatch is a background run on a thread, created with stream_resumable and followed by joining
// its stream with Last-Event-ID; an answer to an interrupt is a new run on the same thread with
// command.resume and stays the same local run; a follow-up is a new run on the thread as a new
// local run.
//
// Continuation token: remoteId = the thread id; sequence/eventId = the last complete SSE id of
// the current run; extra = {run_id, assistant_id, messages_before}.
class LangGraphBackend final : public RunBackend
{
    Q_OBJECT
public:
    explicit LangGraphBackend(Connection connection, QObject *parent = nullptr);

    QString kind() const override;
    Capabilities capabilities() const override;

    RunStream *start(StartRequest request, QObject *parent) override;
    RunStream *follow(ContinuationToken token, QObject *parent) override;
    RunStream *followUp(ContinuationToken parentToken, StartRequest request, QObject *parent) override;

    QCoro::Task<ActionResult> get(ContinuationToken token) override;
    QCoro::Task<ActionResult> cancel(ContinuationToken token) override;
    QCoro::Task<ActionResult> remove(ContinuationToken token) override;
    QCoro::Task<ActionResult> respond(ContinuationToken token, InputAnswer answer) override;
    QCoro::Task<ListResult> list() override;
    QCoro::Task<ConnectionInfo> describe() override;
    QCoro::Task<CatalogResult> catalog() override;
    QCoro::Task<> shutdown() override;

    // --- used by the connector's stream ---------------------------------------------------------

    const Connection &connection() const { return m_connection; }
    HttpClient *httpClient() const { return m_http; }
    // A request to `path` under the deployment URL (path and query as given, already encoded).
    HttpRequest request(const QByteArray &method, const QString &path) const;
    // A JSON request with `body`.
    HttpRequest jsonRequest(const QByteArray &method, const QString &path, const QJsonObject &body) const;
    // The body of a background run on `assistant`: `input` or, for a resume, `command`.
    static QJsonObject runBody(const QString &assistant, const QJsonObject &inputOrCommand,
                               const QString &clientRunId);
    // The assistant runs start on: the request's, else the connection's default agent.
    QString assistantFor(const QString &requested) const;

    // A request's error, with the server's own words ({"detail"} / {"message"} / {"error"}).
    static RunError httpError(const HttpResponse &response);

    // What a finished run leaves behind: its status from the thread's (an interrupt becomes the
    // question, §3), an error's message, and — for a run never streamed — its answer from the
    // thread's state. `runObject` is GET …/runs/{r}.
    QCoro::Task<ActionResult> finalEvents(ContinuationToken token, QJsonObject runObject);
    struct Fetched
    {
        QJsonObject object;
        RunError error;
        int httpStatus = 0;
        bool ok() const { return !error.isError(); }
    };
    // GET a JSON object (a run, a thread, its state).
    QCoro::Task<Fetched> fetchObject(QString path);
    // The run a token follows: its run_id, else the thread's latest run (attach by thread id).
    QCoro::Task<Fetched> currentRun(ContinuationToken token);

private:
    struct Searched
    {
        QJsonArray items;
        RunError error;
    };
    // Every page of an offset-paged search (threads, assistants), bounded; latestFirst sorts by
    // the last update, newest first.
    QCoro::Task<Searched> searchAll(QString path, bool latestFirst);

    Connection m_connection;
    HttpClient *m_http;
};

} // namespace Runwatch
