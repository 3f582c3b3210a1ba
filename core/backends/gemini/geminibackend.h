// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/gemini/geminimapper.h"
#include "backends/runbackend.h"
#include "domain/connection.h"
#include "net/httpclient.h"

#include <QHash>
#include <QJsonArray>

namespace Runwatch {

namespace Gemini {

// A new run's model when neither it nor its connection names one.
inline const QString kDefaultModel = QStringLiteral("gemini-3-flash-preview");
// The Deep Research agent of the protocol reference (§2 Create), the demo's.
inline const QString kDeepResearchAgent = QStringLiteral("deep-research-pro-preview-12-2025");
// A catalog entry that names a model rather than an agent: the API's own name for it
// (GET /models: "models/gemini-2.5-flash"), so that one list can offer both.
inline constexpr QLatin1StringView kModelPrefix{"models/"};

// ContinuationToken::extra keys: the agent the run's interactions run on (a follow-up or an
// answer runs on it again; absent for a model), and the interaction whose answer has text already
// (a stream resumed after a restart starts its next output step with the separator).
inline constexpr QLatin1StringView kAgent{"agent"};
inline constexpr QLatin1StringView kAnswerIn{"answer_in"};
// The output step of the answer's last text in that interaction (GeminiMapper::answerStep()).
inline constexpr QLatin1StringView kAnswerStep{"answer_step"};

// What an interaction runs on: exactly one of the two (§2 Create).
struct Target
{
    QString model;
    QString agent;
};

// The agents the API offers without listing them (@google/genai 3.3.0's AgentOption).
QStringList knownAgents();
// Whether `name` is one of the service's agents rather than a model (a follow-up of a run that
// did not record which it was).
bool isAgentName(const QString &name);
// The agent_config an agent runs with: Deep Research with its thinking summaries (shown as the
// run's reasoning); none for the others.
QJsonObject agentConfigFor(const QString &agent);
// The body of POST /interactions: on `target`, with `input` (the prompt, or structured input as
// given), in the background (required for agents; it is what makes an interaction outlive the
// connection and be resumable), stored, streamed or not, continuing `previousInteractionId`.
QJsonObject createBody(const Target &target, const QJsonValue &input, bool stream,
                       const QString &previousInteractionId = {});

} // namespace Gemini

// The Gemini Interactions API (docs/protocols/foundry-agents-and-gemini.md §2; the truth is
// @google/genai 3.x's `interactions`): background interactions created streamed or not, followed by
// SSE and resumed with last_event_id (a gateway_timeout error event is a cut, not a failure),
// polled by GET, cancelled, deleted; function calls answered in the next interaction
// (previous_interaction_id) under the same local run; follow-ups the same way as new runs.
//
// Continuation token: remoteId = the current interaction; eventId = the last event_id applied;
// extra = {agent, answer_in}. The mapper (a value type) is kept per interaction across the
// reconnections of this process, since a resume repeats every id-less event after the last id.
class GeminiBackend final : public RunBackend
{
    Q_OBJECT
public:
    explicit GeminiBackend(Connection connection, QObject *parent = nullptr);

    QString kind() const override;
    Capabilities capabilities() const override;

    RunStream *start(StartRequest request, QObject *parent) override;
    RunStream *follow(ContinuationToken token, QObject *parent) override;
    // A new interaction with previous_interaction_id = the parent's current one, on the parent's
    // agent or model.
    RunStream *followUp(ContinuationToken parentToken, StartRequest request, QObject *parent) override;

    QCoro::Task<ActionResult> get(ContinuationToken token) override;
    QCoro::Task<ActionResult> cancel(ContinuationToken token) override;
    QCoro::Task<ActionResult> remove(ContinuationToken token) override;
    QCoro::Task<ActionResult> respond(ContinuationToken token, InputAnswer answer) override;
    QCoro::Task<ListResult> list() override;
    // The models that generate content (GET /models), the connection's default first, then the
    // service's agents (GET /agents) and the known ones it did not list.
    QCoro::Task<CatalogResult> catalog() override;
    // GET /models: the one cheap authenticated request (the API lists no interactions).
    QCoro::Task<ConnectionProbe> probe() override;
    QCoro::Task<> shutdown() override;

    // --- used by the connector's stream and its tests -------------------------------------------

    const Connection &connection() const { return m_connection; }
    HttpClient *httpClient() const { return m_http; }
    // The API's root for this connection: the base URL with the version appended (unless the base
    // already ends with one), e.g. https://generativelanguage.googleapis.com/v1beta.
    QUrl apiRoot() const;
    // A request to `path` under apiRoot() ("/interactions/…", already encoded).
    HttpRequest request(const QByteArray &method, const QString &path) const;
    // The resume of `interactionId`'s stream after `lastEventId` (from its start when empty).
    HttpRequest resumeRequest(const QString &interactionId, const QString &lastEventId) const;
    // What a run started with `request` runs on: a catalog pick of a model (models/NAME), the
    // agent asked for, the model asked for, the connection's default agent, its default model.
    Gemini::Target targetFor(const StartRequest &request) const;
    // The events of an interaction resource (GET, create, cancel), with what the token keeps.
    static QList<RunEvent> interactionEvents(const QJsonObject &interaction);
    // A request's error with the service's words: Google's {"error":{code, message, status}}, the
    // status (INVALID_ARGUMENT, …) as the code.
    static RunError httpError(const HttpResponse &response);

    // The mapping state of an interaction's stream as the last connection left it (its step
    // starts and text seen), for the next connection; a fresh one when this process has none.
    Gemini::GeminiMapper mapperFor(const ContinuationToken &token) const;
    void keepMapper(const Gemini::GeminiMapper &mapper);
    void forgetMapper(const QString &interactionId) { m_mappers.remove(interactionId); }

private:
    struct Listed
    {
        QJsonArray items;
        RunError error; // NotFound: the service has no such listing
    };
    // Every page of a listing (GET /models: models + nextPageToken, pageSize/pageToken; GET
    // /agents: agents + next_page_token, page_size/page_token), bounded.
    QCoro::Task<Listed> listAll(QString path, QString itemsKey, bool snakeCase);
    // POST /interactions for start() and followUp().
    RunStream *create(const Gemini::Target &target, StartRequest request, QString previousInteractionId,
                      QObject *parent);

    Connection m_connection;
    HttpClient *m_http;
    QHash<QString, Gemini::GeminiMapper> m_mappers;
};

} // namespace Runwatch
