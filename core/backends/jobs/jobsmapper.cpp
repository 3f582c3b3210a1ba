// SPDX-License-Identifier: GPL-3.0-or-later
#include "jobsmapper.h"

#include "json/jsonscan.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QTimeZone>

#include <cmath>

using namespace Qt::StringLiterals;

namespace Runwatch {
namespace {
// Operator-facing messages (for both namespaces below); lupdate reads Text::tr() under
// "JobsConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(JobsConnector)
};
} // namespace
} // namespace Runwatch

namespace Runwatch::Jobs {

namespace {

// Upper bounds that keep a hostile or broken server from making us build absurd values.
constexpr qsizetype kMaxOptions = 1000;
constexpr double kMaxTimerSeconds = 10.0 * 365 * 24 * 3600;

QString stringAt(const QJsonObject &object, const JsonPointer &pointer)
{
    if (pointer.isRoot())
        return {};
    const QJsonValue v = pointer.evaluate(object);
    if (v.isString())
        return v.toString();
    // Ids are sometimes numbers; print integers without an exponent.
    if (v.isDouble()) {
        const double d = v.toDouble();
        if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 1e15)
            return QString::number(qint64(d));
        return QString::number(d);
    }
    return {};
}

std::optional<double> numberAt(const QJsonObject &object, const JsonPointer &pointer)
{
    if (pointer.isRoot())
        return std::nullopt;
    const QJsonValue v = pointer.evaluate(object);
    if (!v.isDouble() || !std::isfinite(v.toDouble()))
        return std::nullopt;
    return v.toDouble();
}

QDateTime parseTime(const QJsonValue &v)
{
    if (v.isString())
        return QDateTime::fromString(v.toString(), Qt::ISODateWithMs).toUTC();
    if (v.isDouble()) {
        const double seconds = v.toDouble();
        // Unix seconds between 1970 and 9999.
        if (std::isfinite(seconds) && seconds >= 0 && seconds < 253402300800.0)
            return QDateTime::fromMSecsSinceEpoch(qint64(seconds * 1000.0), QTimeZone::utc());
    }
    return {};
}

QString scalarText(const QJsonValue &v)
{
    if (v.isString())
        return v.toString();
    if (v.isDouble())
        return QString::number(v.toDouble());
    if (v.isBool())
        return v.toBool() ? u"true"_s : u"false"_s;
    return QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact).chopped(1).mid(1));
}

QString formatSeconds(double seconds)
{
    return seconds == std::floor(seconds) && seconds < 1e15 ? QString::number(qint64(seconds))
                                                            : QString::number(seconds, 'g', 6);
}

std::optional<qint64> numericId(QByteArrayView id)
{
    if (id.isEmpty() || id.size() > 18)
        return std::nullopt;
    qint64 value = 0;
    for (const char c : id) {
        if (c < '0' || c > '9')
            return std::nullopt;
        value = value * 10 + (c - '0');
    }
    return value;
}

std::optional<QJsonObject> parseObject(QByteArrayView data, QString *why)
{
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(data.toByteArray(), &error);
    if (error.error != QJsonParseError::NoError) {
        *why = error.errorString();
        return std::nullopt;
    }
    if (!doc.isObject()) {
        *why = Text::tr("not a JSON object");
        return std::nullopt;
    }
    return doc.object();
}

} // namespace

RunStatus toRunStatus(JobState state)
{
    switch (state) {
    case JobState::Queued:
        return RunStatus::Queued;
    case JobState::Running:
        return RunStatus::InProgress;
    case JobState::InputRequired:
        return RunStatus::InputRequired;
    case JobState::Succeeded:
        return RunStatus::Completed;
    case JobState::Failed:
        return RunStatus::Failed;
    case JobState::Canceled:
        return RunStatus::Cancelled;
    case JobState::TimedOut:
        return RunStatus::TimedOut;
    case JobState::Unknown:
        break;
    }
    return RunStatus::Unknown;
}

JobView readJob(const QJsonObject &object, const JobsProfile &p, const QDateTime &now)
{
    JobView job;
    job.id = stringAt(object, p.id);
    const QJsonValue status = p.status.evaluate(object);
    if (status.isString()) {
        job.hasStatus = true;
        job.rawStatus = status.toString();
        job.state = p.mapStatus(job.rawStatus);
    }
    if (const auto progress = numberAt(object, p.progress))
        job.progress = std::clamp(*progress / p.progressScale, 0.0, 1.0);
    if (!p.result.isRoot()) {
        job.result = p.result.evaluate(object);
    } else {
        job.result = QJsonValue(QJsonValue::Undefined);
    }
    job.error = p.error.isRoot() ? QJsonValue(QJsonValue::Undefined) : p.error.evaluate(object);
    if (!p.inputRequest.isRoot()) {
        const QJsonValue request = p.inputRequest.evaluate(object);
        if (request.isObject())
            job.input = mapInputRequest(request, now);
    }
    job.statusUrl = stringAt(object, p.statusUrl);
    job.eventsUrl = stringAt(object, p.eventsUrl);
    job.resultUrl = stringAt(object, p.resultUrl);
    if (const auto timeout = numberAt(object, p.timeout); timeout && *timeout >= 0)
        job.timeoutSeconds = timeout;
    job.idempotencyKey = stringAt(object, p.idempotencyKey);
    job.clientRunId = stringAt(object, p.clientRunId);
    job.title = stringAt(object, p.title);
    if (!p.createdAt.isRoot())
        job.createdAt = parseTime(p.createdAt.evaluate(object));
    return job;
}

QList<RunEvent> eventsForJob(const JobView &job, bool verifyResult)
{
    QList<RunEvent> events;
    if (job.progress && !isTerminalState(job.state)) {
        events << RunEvent::secondarySnapshot(SecondaryKind::Progress, u"progress"_s, u"progress"_s,
                                              progressText(job.progress, {}));
    }
    if (job.hasResult() && (job.state == JobState::Succeeded || job.state == JobState::Canceled)) {
        RunEvent snapshot = RunEvent::primarySnapshot(resultText(job.result));
        snapshot.verify = verifyResult;
        events << snapshot;
    }
    const bool errorObject = !job.error.isUndefined() && !job.error.isNull();
    if (job.state == JobState::Failed || job.state == JobState::TimedOut) {
        events << RunEvent::failure(mapJobError(job.error, job.state, job.timeoutSeconds));
    } else if (errorObject && isTerminalState(job.state)) {
        events << RunEvent::failure(mapJobError(job.error, job.state, job.timeoutSeconds));
    }
    if (job.hasStatus)
        events << RunEvent::statusChange(toRunStatus(job.state), job.rawStatus);
    if (job.state == JobState::InputRequired) {
        InputRequest request;
        if (job.input) {
            request = *job.input;
        } else {
            // Without details the operator can still answer in words.
            request.reason = InputReason::Question;
            request.prompt = Text::tr("The job waits for input but did not say what it needs.");
        }
        events << RunEvent::inputRequired(request);
    }
    return events;
}

std::optional<InputRequest> mapInputRequest(const QJsonValue &value, const QDateTime &now)
{
    if (!value.isObject())
        return std::nullopt;
    const QJsonObject o = value.toObject();
    InputRequest r;
    r.raw = o;
    const QString type = o.value(u"type"_s).toString();
    const QString question = o.value(u"question"_s).toString();
    const QString prompt = o.value(u"prompt"_s).toString();
    const QString message = o.value(u"message"_s).toString();
    if (type == u"ask_user") {
        r.reason = InputReason::Question;
        r.prompt = !question.isEmpty() ? question : !prompt.isEmpty() ? prompt : message;
    } else if (type == u"get_approval") {
        r.reason = InputReason::Approval;
        r.prompt = !prompt.isEmpty() ? prompt : !question.isEmpty() ? question : message;
    } else if (type == u"select_options") {
        r.reason = InputReason::Options;
        r.prompt = !question.isEmpty() ? question : prompt;
        const QJsonArray options = o.value(u"options"_s).toArray();
        for (const QJsonValue &option : options) {
            if (r.options.size() >= kMaxOptions)
                break;
            if (option.isString() || option.isDouble())
                r.options << scalarText(option);
        }
    } else if (type == u"form") {
        // Our extension of the contract: a typed form, answered {"value": …} (docs/jobs-profile.md).
        r.reason = InputReason::Question;
        r.prompt = !question.isEmpty() ? question : !prompt.isEmpty() ? prompt : message;
    } else if (type == u"webhook") {
        r.reason = InputReason::Webhook;
        r.callbackUrl = o.value(u"webhook_url"_s).toString();
        r.prompt = !message.isEmpty() ? message : Text::tr("Waiting for the external system to call back.");
    } else if (type == u"timer") {
        r.reason = InputReason::Timer;
        r.deadline = parseTime(o.value(u"resume_at"_s));
        const double delay = o.value(u"delay_seconds"_s).toDouble(-1);
        if (!r.deadline.isValid() && std::isfinite(delay) && delay >= 0 && delay <= kMaxTimerSeconds)
            r.deadline = now.addMSecs(qint64(delay * 1000.0));
        r.prompt = !message.isEmpty() ? message : Text::tr("The job resumes by itself.");
    } else {
        // A handler type we do not know: show what the job sent; a text answer is the best guess.
        r.reason = InputReason::Question;
        r.prompt = !question.isEmpty()  ? question
                   : !prompt.isEmpty()  ? prompt
                   : !message.isEmpty() ? message
                                        : QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
    }
    // Any request may name the JSON Schema its answer must fit; a request without answers
    // (timer, webhook) has nothing to fill in.
    if (r.reason != InputReason::Webhook && r.reason != InputReason::Timer)
        r.schema = o.value(u"schema"_s).toObject();
    return r;
}

RunError mapJobError(const QJsonValue &error, JobState state, std::optional<double> timeoutSeconds)
{
    RunError e;
    e.kind = ErrorKind::Run;
    std::optional<bool> retryable;
    if (error.isObject()) {
        const QJsonObject o = error.toObject();
        e.code = scalarText(o.value(u"code"_s));
        if (o.value(u"code"_s).isUndefined() || o.value(u"code"_s).isNull())
            e.code.clear();
        e.message = o.value(u"message"_s).toString();
        const QJsonValue r = o.value(u"retryable"_s);
        if (r.isBool())
            retryable = r.toBool();
    } else if (error.isString()) {
        e.message = error.toString();
    }
    if (state == JobState::TimedOut) {
        if (e.code.isEmpty())
            e.code = u"timed_out"_s;
        const QString limit = timeoutSeconds
                                  ? Text::tr("its timeout of %1 s").arg(formatSeconds(*timeoutSeconds))
                                  : Text::tr("its timeout");
        e.message = e.message.isEmpty() ? Text::tr("The job ran longer than %1.").arg(limit)
                                        : e.message + u" (exceeded "_s + limit + u')';
    }
    if (e.message.isEmpty()) {
        e.message = state == JobState::Failed ? Text::tr("The job failed without saying why.")
                                              : Text::tr("The job reported an error without a message.");
    }
    if (e.code.isEmpty() && state == JobState::Failed)
        e.code = u"failed"_s;
    e.retryable = retryable.value_or(false);
    // The operator decides whether to start the job again: say what the service said about it.
    if (retryable || state == JobState::Failed)
        e.message += e.retryable ? Text::tr(" (retryable)") : Text::tr(" (not retryable)");
    return e;
}

QString resultText(const QJsonValue &result)
{
    if (result.isString())
        return result.toString();
    if (result.isObject())
        return QString::fromUtf8(QJsonDocument(result.toObject()).toJson(QJsonDocument::Indented));
    if (result.isArray())
        return QString::fromUtf8(QJsonDocument(result.toArray()).toJson(QJsonDocument::Indented));
    if (result.isUndefined() || result.isNull())
        return {};
    return scalarText(result);
}

QString progressText(std::optional<double> fraction, const QString &message)
{
    QString text;
    if (fraction)
        text = QString::number(qRound(std::clamp(*fraction, 0.0, 1.0) * 100.0)) + u'%';
    if (!message.isEmpty())
        text = text.isEmpty() ? message : text + u" — "_s + message;
    return text;
}

QJsonObject answerBody(const InputAnswer &answer)
{
    switch (answer.kind) {
    case InputAnswer::Kind::Text:
        return {{u"text"_s, answer.text}};
    case InputAnswer::Kind::Approve:
    case InputAnswer::Kind::Reject: {
        QJsonObject o{{u"approved"_s, answer.kind == InputAnswer::Kind::Approve}};
        if (!answer.comment.isEmpty())
            o.insert(u"comment"_s, answer.comment);
        return o;
    }
    case InputAnswer::Kind::Choice:
        return {{u"choice"_s, answer.choice}};
    case InputAnswer::Kind::Value:
        return {{u"value"_s, answer.value}};
    }
    return {};
}

void applyErrorBody(RunError &error, const QByteArray &body)
{
    const QJsonObject root = QJsonDocument::fromJson(body).object();
    const QJsonValue retryable = root.value(u"error"_s).toObject().value(u"retryable"_s);
    if (retryable.isBool())
        error.retryable = retryable.toBool();
}

// ---------------------------------------------------------------------------------------------

} // namespace Runwatch::Jobs

namespace Runwatch {

using namespace Jobs;

JobsMapper::JobsMapper(JobsProfile profile, qint64 cursor)
    : m_profile(std::move(profile))
    , m_lastSequence(cursor)
{}

JobsMapper::Outcome JobsMapper::malformed(QByteArrayView type, const QString &eventId, const QString &why)
{
    m_error = RunError::protocol(
        u"malformed_event"_s,
        Text::tr("Malformed job event \"%1\"%2: %3")
            .arg(QString::fromUtf8(type.first(std::min<qsizetype>(type.size(), 64))),
                 eventId.isEmpty() ? QString() : u" (id "_s + eventId.left(64) + u')', why));
    return Outcome::Malformed;
}

JobsMapper::Outcome JobsMapper::map(QByteArrayView type, QByteArrayView data, QByteArrayView id,
                                    QList<RunEvent> &out, const QDateTime &now)
{
    // SseEvent::id is the last id *committed* on this connection, so an event without its own
    // id: line repeats the previous one. Only an id that changed belongs to this event.
    const bool ownId = !id.isEmpty() && id != m_connectionLastId;
    qint64 sequence = -1;
    QString eventId;
    if (ownId) {
        m_connectionLastId = id.toByteArray();
        eventId = QString::fromUtf8(id);
        if (const auto numeric = numericId(id)) {
            if (*numeric <= m_lastSequence) {
                ++m_dropped; // a replay overlap: the run already has it
                return Outcome::Continue;
            }
            sequence = *numeric;
        }
    }

    QList<RunEvent> mapped;
    Outcome outcome = Outcome::Continue;
    QString why;
    if (type == "output") {
        // The hot path: one per streamed chunk of the answer. Scan instead of building a DOM.
        std::optional<QString> delta;
        bool deltaWrongType = false;
        const bool valid = JsonScan::forEachMember(data, [&](const JsonScan::Member &m) {
            if (m.key != "delta" || m.keyHasEscapes)
                return;
            delta = JsonScan::decodeString(m.value);
            deltaWrongType = !delta.has_value();
        });
        if (!valid)
            return malformed(type, eventId, Text::tr("not a JSON object"));
        if (!delta || deltaWrongType)
            return malformed(type, eventId, u"no \"delta\" string"_s);
        mapped << RunEvent::primaryDelta(*delta);
    } else if (type == "status" || type == "done") {
        const auto object = parseObject(data, &why);
        if (!object)
            return malformed(type, eventId, why);
        const JobView job = readJob(*object, m_profile, now);
        const bool done = type == "done";
        mapped = eventsForJob(job, done);
        if (done) {
            m_resultFetchNeeded = job.needsResultFetch();
            m_doneResultUrl = job.resultUrl;
            outcome = Outcome::Done;
        }
    } else if (type == "progress") {
        const auto object = parseObject(data, &why);
        if (!object)
            return malformed(type, eventId, why);
        std::optional<double> fraction;
        const QJsonValue progress = object->value(u"progress"_s);
        if (progress.isDouble() && std::isfinite(progress.toDouble()))
            fraction = std::clamp(progress.toDouble() / m_profile.progressScale, 0.0, 1.0);
        const QString text = progressText(fraction, object->value(u"message"_s).toString());
        if (!text.isEmpty()) {
            mapped << RunEvent::secondarySnapshot(SecondaryKind::Progress, u"progress"_s, u"progress"_s,
                                                  text);
        }
    } else if (type == "log") {
        const auto object = parseObject(data, &why);
        if (!object)
            return malformed(type, eventId, why);
        const QString itemId = eventId.isEmpty() ? u"log-%1"_s.arg(++m_logCounter) : u"log-"_s + eventId;
        mapped << RunEvent::secondarySnapshot(SecondaryKind::Log, itemId,
                                              object->value(u"level"_s).toString(),
                                              object->value(u"message"_s).toString());
    } else if (type == "input_required") {
        const auto object = parseObject(data, &why);
        if (!object)
            return malformed(type, eventId, why);
        // The data is the input_request itself; some services wrap it in a status object.
        const QJsonValue wrapped = m_profile.inputRequest.evaluate(*object);
        const auto request = mapInputRequest(
            object->contains(u"type"_s) || !wrapped.isObject() ? QJsonValue(*object) : wrapped, now);
        mapped << RunEvent::statusChange(RunStatus::InputRequired, u"input_required"_s);
        mapped << RunEvent::inputRequired(*request);
    }
    // Anything else (comments never get here, unknown event types do) only moves the cursor.

    if (sequence >= 0)
        m_lastSequence = sequence;
    if (mapped.isEmpty()) {
        if (sequence >= 0 || !eventId.isEmpty())
            out << RunEvent::cursor(sequence, eventId);
        return outcome;
    }
    mapped.first().sequence = sequence;
    mapped.first().eventId = eventId;
    if (outcome == Outcome::Done && m_resultFetchNeeded) {
        m_heldBack = mapped;
    } else {
        out << mapped;
    }
    return outcome;
}

} // namespace Runwatch
