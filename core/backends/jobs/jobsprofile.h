// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "json/jsonpointer.h"

#include <QHash>
#include <QJsonObject>
#include <QString>
#include <QUrl>

#include <optional>

namespace Runwatch::Jobs {

// The job states of the contract (docs/protocols/jobs-api.md "Status"). A service's own strings are
// mapped onto these by the profile's status table; anything else is Unknown.
enum class JobState {
    Unknown,
    Queued,
    Running,
    InputRequired,
    Succeeded,
    Failed,
    Canceled,
    TimedOut,
};

// "queued", "running", "input_required", "succeeded", "failed", "canceled", "timed_out";
// "unknown" for Unknown.
QString jobStateName(JobState state);
// Inverse of jobStateName for the seven contract states; nullopt otherwise ("unknown" too).
std::optional<JobState> jobStateFromName(QStringView name);
bool isTerminalState(JobState state);

// A path with `{id}` placeholders (RFC 6570 level 1, one variable), relative to the connection's
// base URL or an absolute http(s) URL. A query part is allowed ("/jobs/{id}?view=full").
class UriTemplate
{
public:
    UriTemplate() = default;

    // nullopt (and *error) for unbalanced braces, variables other than {id}, a missing {id}
    // when `needsId`, or an {id} where there can be none.
    static std::optional<UriTemplate> parse(const QString &text, bool needsId, QString *error = nullptr);

    // The template with {id} replaced by the percent-encoded id.
    QString expand(const QString &id = {}) const;
    // expand() resolved against `base`: absolute templates stand alone; relative ones are
    // appended to the base URL's path.
    QUrl resolve(const QUrl &base, const QString &id = {}) const;

    const QString &text() const { return m_text; }
    friend bool operator==(const UriTemplate &, const UriTemplate &) = default;

private:
    explicit UriTemplate(QString text)
        : m_text(std::move(text))
    {}
    QString m_text;
};

// How a connection fits a job service that follows the contract's semantics but not its names:
// paths, cancel method, where fields live in the service's JSON, and its status strings.
// Stored as JSON in Connection::options["profile"] (or a file named by options["profile_file"]);
// the format is documented in docs/jobs-profile.md.
struct JobsProfile
{
    enum class EventsMode {
        Auto,   // follow the events URL when the service names one (events_url), else poll
        Always, // the service streams every job at the events path
        Never,  // always poll
    };

    QString name;

    UriTemplate kickoffPath;
    UriTemplate statusPath;
    UriTemplate eventsPath;
    UriTemplate cancelPath;
    UriTemplate inputPath;
    UriTemplate resultPath;
    UriTemplate listPath;
    QByteArray cancelMethod = "DELETE";
    EventsMode events = EventsMode::Auto;

    // Kickoff body: `requestBody` with the prompt written at `requestInput` and our metadata
    // (client_run_id) at `requestMetadata` (an empty pointer: no metadata sent).
    QJsonObject requestBody;
    JsonPointer requestInput;
    JsonPointer requestMetadata;

    // Where fields live in a job object (status reply, kickoff reply, SSE status/done data,
    // listing entries). A pointer to nowhere simply finds nothing.
    JsonPointer id;
    JsonPointer status;
    JsonPointer progress;
    double progressScale = 1.0; // the progress value that means "done": 1 or 100
    JsonPointer result;
    JsonPointer error;
    JsonPointer inputRequest;
    JsonPointer statusUrl;
    JsonPointer eventsUrl;
    JsonPointer resultUrl;
    JsonPointer timeout;
    JsonPointer idempotencyKey;
    JsonPointer clientRunId;
    JsonPointer createdAt;
    JsonPointer title;

    // Listing reply: the array of jobs and the cursor of the next page.
    JsonPointer listItems;
    JsonPointer nextCursor;

    // The service's status strings → contract states. Matched exactly first, then ignoring
    // case. The contract's own names are always understood unless remapped here.
    QHash<QString, JobState> statusMap;

    // The contract's defaults (docs/protocols/jobs-api.md).
    static JobsProfile defaults();
    // Reads a profile over the defaults: every key is optional, unknown keys and wrong types are
    // errors (a typo must not silently fall back to a default). nullopt and *error on failure.
    static std::optional<JobsProfile> fromJson(const QJsonObject &object, QString *error = nullptr);
    // Parses JSON text with fromJson(); the error names the line of a syntax error.
    static std::optional<JobsProfile> fromJsonText(const QByteArray &text, QString *error = nullptr);
    QJsonObject toJson() const;

    // The service's status string mapped to a contract state (Unknown when not in the table).
    JobState mapStatus(const QString &raw) const;
};

} // namespace Runwatch::Jobs
