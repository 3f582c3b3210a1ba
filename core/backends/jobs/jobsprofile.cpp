// SPDX-License-Identifier: GPL-3.0-or-later
#include "jobsprofile.h"

#include "domain/enumnames.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>

#include <array>
#include <cmath>

using namespace Qt::StringLiterals;

namespace Runwatch::Jobs {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "JobsConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(JobsConnector)
};
} // namespace

namespace {

constexpr std::array kStateNames{
    EnumName{JobState::Queued, "queued"_L1},
    EnumName{JobState::Running, "running"_L1},
    EnumName{JobState::InputRequired, "input_required"_L1},
    EnumName{JobState::Succeeded, "succeeded"_L1},
    EnumName{JobState::Failed, "failed"_L1},
    EnumName{JobState::Canceled, "canceled"_L1},
    EnumName{JobState::TimedOut, "timed_out"_L1},
};

// Templates longer than this are not paths but mistakes (or hostile input).
constexpr qsizetype kMaxTemplateChars = 2048;

JsonPointer pointer(QStringView text)
{
    return JsonPointer::parse(text).value_or(JsonPointer());
}

UriTemplate templ(const QString &text, bool needsId)
{
    return UriTemplate::parse(text, needsId).value_or(UriTemplate());
}

// Reads one profile section with strict key checking. Every accessor records the first error.
class Reader
{
public:
    Reader(const QJsonObject &object, QString section, QString *error)
        : m_object(object)
        , m_section(std::move(section))
        , m_error(error)
    {}

    bool ok() const { return m_ok; }

    void fail(const QString &key, const QString &why)
    {
        if (!m_ok)
            return;
        m_ok = false;
        if (m_error)
            *m_error = u"profile: %1: %2"_s.arg(path(key), why);
    }

    // The JSON pointer (RFC 6901) of `key` in the profile, e.g. /pointers/status: the operator
    // finds the value by it in any editor or with jq.
    QString path(const QString &key) const
    {
        const auto escape = [](QString token) { return token.replace(u'~', u"~0"_s).replace(u'/', u"~1"_s); };
        return (m_section.isEmpty() ? QString() : u'/' + escape(m_section)) + u'/' + escape(key);
    }

    // Fails on keys that are not in `known`.
    void checkKeys(std::initializer_list<QLatin1StringView> known)
    {
        for (auto it = m_object.constBegin(); it != m_object.constEnd(); ++it) {
            bool found = false;
            for (const QLatin1StringView k : known)
                found = found || it.key() == k;
            if (!found) {
                fail(it.key(), Text::tr("unknown key"));
                return;
            }
        }
    }

    std::optional<QString> string(QLatin1StringView key)
    {
        const QJsonValue v = m_object.value(key);
        if (v.isUndefined())
            return std::nullopt;
        if (!v.isString()) {
            fail(key, Text::tr("must be a string"));
            return std::nullopt;
        }
        return v.toString();
    }

    std::optional<QJsonObject> object(QLatin1StringView key)
    {
        const QJsonValue v = m_object.value(key);
        if (v.isUndefined())
            return std::nullopt;
        if (!v.isObject()) {
            fail(key, Text::tr("must be an object"));
            return std::nullopt;
        }
        return v.toObject();
    }

    void readPointer(QLatin1StringView key, JsonPointer &target)
    {
        const auto text = string(key);
        if (!text)
            return;
        QString why;
        const auto p = JsonPointer::parse(*text, &why);
        if (!p) {
            fail(key, why);
            return;
        }
        target = *p;
    }

    void readTemplate(QLatin1StringView key, bool needsId, UriTemplate &target)
    {
        const auto text = string(key);
        if (!text)
            return;
        QString why;
        const auto t = UriTemplate::parse(*text, needsId, &why);
        if (!t) {
            fail(key, why);
            return;
        }
        target = *t;
    }

private:
    QJsonObject m_object;
    QString m_section;
    QString *m_error;
    bool m_ok = true;
};

} // namespace

QString jobStateName(JobState state)
{
    return nameOf(kStateNames, state, "unknown"_L1);
}

std::optional<JobState> jobStateFromName(QStringView name)
{
    return fromName(kStateNames, name);
}

bool isTerminalState(JobState state)
{
    switch (state) {
    case JobState::Succeeded:
    case JobState::Failed:
    case JobState::Canceled:
    case JobState::TimedOut:
        return true;
    case JobState::Unknown:
    case JobState::Queued:
    case JobState::Running:
    case JobState::InputRequired:
        return false;
    }
    return false;
}

// ---------------------------------------------------------------------------------------------

std::optional<UriTemplate> UriTemplate::parse(const QString &text, bool needsId, QString *error)
{
    const auto fail = [&](const QString &why) -> std::optional<UriTemplate> {
        if (error)
            *error = Text::tr("URI template \"%1\": %2").arg(text.left(80), why);
        return std::nullopt;
    };
    if (text.isEmpty())
        return fail(Text::tr("is empty"));
    if (text.size() > kMaxTemplateChars)
        return fail(Text::tr("is longer than %1 characters").arg(kMaxTemplateChars));
    const bool absolute = text.startsWith(u"http://"_s, Qt::CaseInsensitive)
                          || text.startsWith(u"https://"_s, Qt::CaseInsensitive);
    if (!absolute && !text.startsWith(u'/'))
        return fail(Text::tr("must start with '/' or be an absolute http(s) URL"));
    int ids = 0;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (c == u'}')
            return fail(Text::tr("has a '}' without '{'"));
        if (c.unicode() < 0x21 || c.unicode() == 0x7f)
            return fail(Text::tr("contains a space or control character"));
        if (c != u'{')
            continue;
        const qsizetype close = text.indexOf(u'}', i + 1);
        if (close < 0)
            return fail(Text::tr("has a '{' without '}'"));
        const QStringView name = QStringView(text).mid(i + 1, close - i - 1);
        if (name != u"id")
            return fail(Text::tr("only the variable {id} is known, not {%1}").arg(name));
        ++ids;
        i = close;
    }
    if (needsId && ids == 0)
        return fail(u"needs {id}"_s);
    if (!needsId && ids > 0)
        return fail(Text::tr("cannot use {id} (there is no job yet)"));
    return UriTemplate(text);
}

QString UriTemplate::expand(const QString &id) const
{
    QString out = m_text;
    if (out.contains(u"{id}"_s))
        out.replace(u"{id}"_s, QString::fromLatin1(QUrl::toPercentEncoding(id)));
    return out;
}

QUrl UriTemplate::resolve(const QUrl &base, const QString &id) const
{
    if (m_text.isEmpty())
        return {};
    const QString expanded = expand(id);
    if (!expanded.startsWith(u'/'))
        return QUrl(expanded, QUrl::TolerantMode);
    const qsizetype question = expanded.indexOf(u'?');
    const QString pathPart = question < 0 ? expanded : expanded.left(question);
    QUrl url = base;
    QString basePath = url.path(QUrl::FullyEncoded);
    while (basePath.endsWith(u'/'))
        basePath.chop(1);
    // Tolerant: the id is percent-encoded already, and "%2F" inside it must stay encoded.
    url.setPath(basePath + pathPart, QUrl::TolerantMode);
    url.setQuery(question < 0 ? QString() : expanded.mid(question + 1), QUrl::TolerantMode);
    url.setFragment({});
    return url;
}

// ---------------------------------------------------------------------------------------------

JobsProfile JobsProfile::defaults()
{
    JobsProfile p;
    p.name = u"jobs-api"_s;
    p.kickoffPath = templ(u"/jobs"_s, false);
    p.statusPath = templ(u"/jobs/{id}"_s, true);
    p.eventsPath = templ(u"/jobs/{id}/events"_s, true);
    p.cancelPath = templ(u"/jobs/{id}"_s, true);
    p.inputPath = templ(u"/jobs/{id}/input"_s, true);
    p.resultPath = templ(u"/jobs/{id}/result"_s, true);
    p.listPath = templ(u"/jobs"_s, false);
    p.requestInput = pointer(u"/input");
    p.requestMetadata = pointer(u"/metadata");
    p.id = pointer(u"/job_id");
    p.status = pointer(u"/status");
    p.progress = pointer(u"/progress");
    p.result = pointer(u"/result");
    p.error = pointer(u"/error");
    p.inputRequest = pointer(u"/input_request");
    p.statusUrl = pointer(u"/status_url");
    p.eventsUrl = pointer(u"/events_url");
    p.resultUrl = pointer(u"/result_url");
    p.timeout = pointer(u"/timeout_seconds");
    p.idempotencyKey = pointer(u"/idempotency_key");
    p.clientRunId = pointer(u"/metadata/client_run_id");
    p.createdAt = pointer(u"/created_at");
    p.title = pointer(u"/metadata/title");
    p.listItems = pointer(u"/jobs");
    p.nextCursor = pointer(u"/next_cursor");
    for (const auto &entry : kStateNames)
        p.statusMap.insert(entry.name, entry.value);
    return p;
}

std::optional<JobsProfile> JobsProfile::fromJson(const QJsonObject &object, QString *error)
{
    JobsProfile p = defaults();
    Reader top(object, {}, error);
    top.checkKeys({"name"_L1, "paths"_L1, "cancel_method"_L1, "events"_L1, "request"_L1, "pointers"_L1,
                   "progress_scale"_L1, "status_map"_L1});
    if (const auto name = top.string("name"_L1))
        p.name = *name;

    if (const auto paths = top.object("paths"_L1)) {
        Reader r(*paths, u"paths"_s, error);
        r.checkKeys(
            {"kickoff"_L1, "status"_L1, "events"_L1, "cancel"_L1, "input"_L1, "result"_L1, "list"_L1});
        r.readTemplate("kickoff"_L1, false, p.kickoffPath);
        r.readTemplate("status"_L1, true, p.statusPath);
        r.readTemplate("events"_L1, true, p.eventsPath);
        r.readTemplate("cancel"_L1, true, p.cancelPath);
        r.readTemplate("input"_L1, true, p.inputPath);
        r.readTemplate("result"_L1, true, p.resultPath);
        r.readTemplate("list"_L1, false, p.listPath);
        if (!r.ok())
            return std::nullopt;
    }

    if (const auto method = top.string("cancel_method"_L1)) {
        const QString upper = method->toUpper();
        if (upper != u"DELETE" && upper != u"POST" && upper != u"PUT" && upper != u"PATCH") {
            top.fail(u"cancel_method"_s, Text::tr("must be DELETE, POST, PUT or PATCH"));
        } else {
            p.cancelMethod = upper.toLatin1();
        }
    }

    if (const auto events = top.string("events"_L1)) {
        if (*events == u"auto") {
            p.events = EventsMode::Auto;
        } else if (*events == u"always") {
            p.events = EventsMode::Always;
        } else if (*events == u"never") {
            p.events = EventsMode::Never;
        } else {
            top.fail(u"events"_s, u"must be \"auto\", \"always\" or \"never\""_s);
        }
    }

    if (const auto request = top.object("request"_L1)) {
        Reader r(*request, u"request"_s, error);
        r.checkKeys({"body"_L1, "input"_L1, "metadata"_L1});
        if (const auto body = r.object("body"_L1))
            p.requestBody = *body;
        r.readPointer("input"_L1, p.requestInput);
        r.readPointer("metadata"_L1, p.requestMetadata);
        if (r.ok() && p.requestInput.isRoot())
            r.fail(u"input"_s, Text::tr("must name a member, not the whole body"));
        if (r.ok() && !p.requestInput.set(p.requestBody, QString()))
            r.fail(u"input"_s, u"runs into a member of \"body\" that is not an object"_s);
        if (r.ok() && !p.requestMetadata.isRoot() && !p.requestMetadata.set(p.requestBody, QJsonObject()))
            r.fail(u"metadata"_s, u"runs into a member of \"body\" that is not an object"_s);
        if (!r.ok())
            return std::nullopt;
        // The probes above only checked that the pointers fit; the body itself stays as given.
        p.requestBody = request->value(u"body"_s).toObject();
    }

    if (const auto pointers = top.object("pointers"_L1)) {
        Reader r(*pointers, u"pointers"_s, error);
        r.checkKeys({"id"_L1, "status"_L1, "progress"_L1, "result"_L1, "error"_L1, "input_request"_L1,
                     "status_url"_L1, "events_url"_L1, "result_url"_L1, "timeout_seconds"_L1,
                     "idempotency_key"_L1, "client_run_id"_L1, "created_at"_L1, "title"_L1, "list_items"_L1,
                     "next_cursor"_L1});
        r.readPointer("id"_L1, p.id);
        r.readPointer("status"_L1, p.status);
        r.readPointer("progress"_L1, p.progress);
        r.readPointer("result"_L1, p.result);
        r.readPointer("error"_L1, p.error);
        r.readPointer("input_request"_L1, p.inputRequest);
        r.readPointer("status_url"_L1, p.statusUrl);
        r.readPointer("events_url"_L1, p.eventsUrl);
        r.readPointer("result_url"_L1, p.resultUrl);
        r.readPointer("timeout_seconds"_L1, p.timeout);
        r.readPointer("idempotency_key"_L1, p.idempotencyKey);
        r.readPointer("client_run_id"_L1, p.clientRunId);
        r.readPointer("created_at"_L1, p.createdAt);
        r.readPointer("title"_L1, p.title);
        r.readPointer("list_items"_L1, p.listItems);
        r.readPointer("next_cursor"_L1, p.nextCursor);
        if (r.ok() && (p.id.isRoot() || p.status.isRoot())) {
            r.fail(p.id.isRoot() ? u"id"_s : u"status"_s,
                   Text::tr("must name a member, not the whole object"));
        }
        if (!r.ok())
            return std::nullopt;
    }

    const QJsonValue scale = object.value(u"progress_scale"_s);
    if (!scale.isUndefined()) {
        const double value = scale.toDouble(-1);
        if (!scale.isDouble() || !std::isfinite(value) || value <= 0 || value > 1e9) {
            top.fail(u"progress_scale"_s, Text::tr("must be a positive number (1 or 100)"));
        } else {
            p.progressScale = value;
        }
    }

    if (const auto map = top.object("status_map"_L1)) {
        for (auto it = map->constBegin(); it != map->constEnd() && top.ok(); ++it) {
            const QString key = u"status_map.\""_s + it.key() + u'"';
            if (it.key().isEmpty()) {
                top.fail(key, Text::tr("the service's status string cannot be empty"));
                break;
            }
            const auto state = it.value().isString() ? jobStateFromName(it.value().toString()) : std::nullopt;
            if (!state) {
                top.fail(key, Text::tr("must be one of queued, running, input_required, succeeded, failed, "
                                       "canceled, timed_out"));
                break;
            }
            p.statusMap.insert(it.key(), *state);
        }
    }
    if (!top.ok())
        return std::nullopt;
    return p;
}

std::optional<JobsProfile> JobsProfile::fromJsonText(const QByteArray &text, QString *error)
{
    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(text, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        if (error) {
            const qsizetype offset = std::clamp<qsizetype>(parseError.offset, 0, text.size());
            const qsizetype line = text.left(offset).count('\n') + 1;
            *error
                = Text::tr("profile: not valid JSON (line %1: %2)").arg(line).arg(parseError.errorString());
        }
        return std::nullopt;
    }
    if (!doc.isObject()) {
        if (error)
            *error = Text::tr("profile: must be a JSON object");
        return std::nullopt;
    }
    return fromJson(doc.object(), error);
}

QJsonObject JobsProfile::toJson() const
{
    QJsonObject o;
    o.insert(u"name"_s, name);
    o.insert(u"paths"_s, QJsonObject{
                             {u"kickoff"_s, kickoffPath.text()},
                             {u"status"_s, statusPath.text()},
                             {u"events"_s, eventsPath.text()},
                             {u"cancel"_s, cancelPath.text()},
                             {u"input"_s, inputPath.text()},
                             {u"result"_s, resultPath.text()},
                             {u"list"_s, listPath.text()},
                         });
    o.insert(u"cancel_method"_s, QString::fromLatin1(cancelMethod));
    o.insert(u"events"_s, events == EventsMode::Auto     ? u"auto"_s
                          : events == EventsMode::Always ? u"always"_s
                                                         : u"never"_s);
    QJsonObject request{{u"input"_s, requestInput.toString()}, {u"metadata"_s, requestMetadata.toString()}};
    if (!requestBody.isEmpty())
        request.insert(u"body"_s, requestBody);
    o.insert(u"request"_s, request);
    o.insert(u"pointers"_s, QJsonObject{
                                {u"id"_s, id.toString()},
                                {u"status"_s, status.toString()},
                                {u"progress"_s, progress.toString()},
                                {u"result"_s, result.toString()},
                                {u"error"_s, error.toString()},
                                {u"input_request"_s, inputRequest.toString()},
                                {u"status_url"_s, statusUrl.toString()},
                                {u"events_url"_s, eventsUrl.toString()},
                                {u"result_url"_s, resultUrl.toString()},
                                {u"timeout_seconds"_s, timeout.toString()},
                                {u"idempotency_key"_s, idempotencyKey.toString()},
                                {u"client_run_id"_s, clientRunId.toString()},
                                {u"created_at"_s, createdAt.toString()},
                                {u"title"_s, title.toString()},
                                {u"list_items"_s, listItems.toString()},
                                {u"next_cursor"_s, nextCursor.toString()},
                            });
    o.insert(u"progress_scale"_s, progressScale);
    QJsonObject map;
    for (auto it = statusMap.constBegin(); it != statusMap.constEnd(); ++it)
        map.insert(it.key(), jobStateName(it.value()));
    o.insert(u"status_map"_s, map);
    return o;
}

JobState JobsProfile::mapStatus(const QString &raw) const
{
    if (raw.isEmpty())
        return JobState::Unknown;
    const auto exact = statusMap.constFind(raw);
    if (exact != statusMap.constEnd())
        return exact.value();
    // Several keys may differ only in case: the smallest one wins, so the answer does not depend
    // on the hash's iteration order.
    const QString *best = nullptr;
    JobState state = JobState::Unknown;
    for (auto it = statusMap.constBegin(); it != statusMap.constEnd(); ++it) {
        if (it.key().compare(raw, Qt::CaseInsensitive) == 0 && (!best || it.key() < *best)) {
            best = &it.key();
            state = it.value();
        }
    }
    return state;
}

} // namespace Runwatch::Jobs
