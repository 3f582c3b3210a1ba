// SPDX-License-Identifier: GPL-3.0-or-later
#include "jobssimrun.h"

#include "jobssimwire.h"
#include "server/simserver.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTimeZone>
#include <QTimer>

#include <cmath>
#include <utility>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

QString isoTime(qint64 msecs)
{
    return QDateTime::fromMSecsSinceEpoch(msecs, QTimeZone::utc()).toString(Qt::ISODateWithMs);
}

QJsonValue orNull(const QJsonObject &object)
{
    return object.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(object);
}

// The padding that makes a Large job's result exceed the inline limit: printable, deterministic.
QString padding(qint64 bytes)
{
    QString out;
    out.reserve(bytes);
    static const QString line = u"large result line: the quick brown fox jumps over the lazy dog\n"_s;
    while (out.size() + line.size() <= bytes)
        out += line;
    out += QString(bytes - out.size(), u'.');
    return out;
}

} // namespace

JobsSimRun::JobsSimRun(JobsRunSetup setup, JobsRunOptions options, QObject *parent)
    : QObject(parent)
    , m_setup(std::move(setup))
    , m_options(std::move(options))
    , m_tick(new QTimer(this))
    , m_aux(new QTimer(this))
    , m_timeout(new QTimer(this))
{
    for (QTimer *t : {m_tick, m_aux, m_timeout}) {
        t->setSingleShot(true);
        // Timelines are asserted against in tests ("suspended for timer_ms"): no coarse early firing.
        t->setTimerType(Qt::PreciseTimer);
    }
    connect(m_tick, &QTimer::timeout, this, &JobsSimRun::tick);
    connect(m_timeout, &QTimer::timeout, this, [this] {
        if (!isTerminal())
            finish(u"timed_out"_s);
    });
    m_createdAtMs = QDateTime::currentMSecsSinceEpoch();
    m_updatedAtMs = m_createdAtMs;
    if (!m_options.reply.isEmpty())
        m_reply = m_options.reply.split(u' ', Qt::SkipEmptyParts);
    plan();
}

JobsSimRun::~JobsSimRun() = default;

void JobsSimRun::plan()
{
    using Kind = Segment::Kind;
    const int n = std::max(0, m_options.deltas);
    const int half = n / 2;
    const auto deltas = [](int count) { return Segment{Kind::Deltas, count, {}, {}, {}, 0}; };
    const auto suspendFor = [](const QString &handler, const QString &step = {}) {
        return Segment{Kind::Suspend, 0, handler, step, {}, 0};
    };
    const auto finishWith = [](const QString &status) { return Segment{Kind::Finish, 0, {}, {}, status, 0}; };
    switch (m_options.scenario) {
    case JobsScenario::Normal:
    case JobsScenario::Quick:
    case JobsScenario::Long:
    case JobsScenario::Large:
        m_plan = {deltas(n), finishWith(u"succeeded"_s)};
        break;
    case JobsScenario::Fail: {
        const int failAfter = m_options.failAfter >= 0 ? std::min(m_options.failAfter, n) : half;
        m_plan = {deltas(failAfter), finishWith(u"failed"_s)};
        break;
    }
    case JobsScenario::Timeout:
        m_plan = {deltas(n), Segment{Kind::Idle, 0, {}, {}, {}, 0}};
        break;
    case JobsScenario::AskUser:
        m_plan = {deltas(half), suspendFor(u"ask_user"_s), deltas(n - half), finishWith(u"succeeded"_s)};
        break;
    case JobsScenario::Approval:
        m_plan = {deltas(half), suspendFor(u"get_approval"_s, u"manager"_s), deltas(n - half),
                  finishWith(u"succeeded"_s)};
        break;
    case JobsScenario::TwoStep:
        m_plan = {deltas(half), suspendFor(u"get_approval"_s, u"manager"_s),
                  suspendFor(u"get_approval"_s, u"director"_s), deltas(n - half), finishWith(u"succeeded"_s)};
        break;
    case JobsScenario::Options:
        m_plan
            = {deltas(half), suspendFor(u"select_options"_s), deltas(n - half), finishWith(u"succeeded"_s)};
        break;
    case JobsScenario::Form:
        m_plan = {deltas(half), suspendFor(u"form"_s), deltas(n - half), finishWith(u"succeeded"_s)};
        break;
    case JobsScenario::Webhook:
        m_plan = {deltas(half), suspendFor(u"webhook"_s), deltas(n - half), finishWith(u"succeeded"_s)};
        break;
    case JobsScenario::Timer:
        m_plan = {deltas(half), suspendFor(u"timer"_s), deltas(n - half), finishWith(u"succeeded"_s)};
        break;
    case JobsScenario::Unknown:
        m_plan = {Segment{Kind::Flip, 0, {}, {}, {}, std::max(0, m_options.unknownMs)}, deltas(n),
                  finishWith(u"succeeded"_s)};
        break;
    }
    m_totalDeltas = 0;
    for (const Segment &s : std::as_const(m_plan))
        m_totalDeltas += s.kind == Kind::Deltas ? s.count : 0;
}

void JobsSimRun::start()
{
    if (m_started)
        return;
    m_started = true;
    if (m_options.scenario == JobsScenario::Quick) {
        // The whole job happens inside the kickoff request.
        m_status = u"running"_s;
        for (int i = 0; i < m_totalDeltas; ++i)
            emitOutput(deltaText(m_tokenIndex++));
        finish(u"succeeded"_s);
        return;
    }
    addEvent("status", shapedObject()); // queued
    if (m_options.scenario == JobsScenario::Timeout && m_options.timeoutMs >= 0)
        m_timeout->start(m_options.timeoutMs);
    schedule(m_options.queuedMs >= 0 ? m_options.queuedMs : m_options.intervalMs);
}

bool JobsSimRun::isTerminal() const
{
    return m_status == u"succeeded" || m_status == u"failed" || m_status == u"canceled"
           || m_status == u"timed_out";
}

QString JobsSimRun::resultText() const
{
    return m_finalResult;
}

void JobsSimRun::schedule(int ms)
{
    m_tick->start(std::max(0, ms));
}

QString JobsSimRun::deltaText(int index) const
{
    if (!m_reply.isEmpty())
        return m_reply.at(index % m_reply.size()) + u' ';
    return u"tok%1 "_s.arg(index);
}

void JobsSimRun::tick()
{
    if (isTerminal() || m_cancelPending || m_status == u"input_required")
        return;
    if (m_status == u"queued") {
        setStatus(u"running"_s);
        addEvent("log", {{u"level"_s, u"info"_s}, {u"message"_s, u"Job started."_s}});
        schedule(m_options.intervalMs);
        return;
    }
    while (m_segment < m_plan.size()) {
        const Segment segment = m_plan.at(m_segment);
        switch (segment.kind) {
        case Segment::Kind::Deltas:
            if (m_inSegment < segment.count) {
                emitOutput(deltaText(m_tokenIndex++));
                ++m_inSegment;
                const int quarter = std::max(1, m_totalDeltas / 4);
                if (m_tokenIndex % quarter == 0 && m_tokenIndex < m_totalDeltas) {
                    const double fraction = double(m_tokenIndex) / m_totalDeltas;
                    const double shown = m_setup.shape == JobsShape::Alternate ? fraction * 100.0 : fraction;
                    addEvent("progress",
                             {{u"progress"_s, std::round(shown * 1000.0) / 1000.0},
                              {u"message"_s, u"step %1 of %2"_s.arg(m_tokenIndex).arg(m_totalDeltas)}});
                }
                schedule(m_options.intervalMs);
                return;
            }
            ++m_segment;
            m_inSegment = 0;
            continue;
        case Segment::Kind::Suspend:
            suspend(segment);
            return;
        case Segment::Kind::Flip:
            if (m_inSegment == 0) {
                m_inSegment = 1;
                setStatus(u"paused_by_admin"_s);
                schedule(segment.ms);
                return;
            }
            setStatus(u"running"_s);
            ++m_segment;
            m_inSegment = 0;
            schedule(m_options.intervalMs);
            return;
        case Segment::Kind::Idle:
            return;
        case Segment::Kind::Finish:
            finish(segment.finishStatus);
            return;
        }
    }
}

void JobsSimRun::setStatus(const QString &status, bool emitStatusEvent)
{
    m_status = status;
    m_updatedAtMs = QDateTime::currentMSecsSinceEpoch();
    if (emitStatusEvent)
        addEvent("status", shapedObject());
    Q_EMIT statusChanged(m_setup.id, status);
}

void JobsSimRun::addEvent(const QByteArray &type, const QJsonObject &data)
{
    JobsSimEvent event;
    event.id = lastEventId() + 1;
    event.type = type;
    event.data = compactJson(data);
    m_events.append(event);
    Q_EMIT eventAdded(m_setup.id, event.id);
}

void JobsSimRun::emitOutput(const QString &delta)
{
    m_text += delta;
    addEvent("output", {{u"delta"_s, delta}});
}

void JobsSimRun::suspend(const Segment &segment)
{
    QJsonObject request{{u"type"_s, segment.handler}};
    if (segment.handler == u"ask_user") {
        request.insert(u"question"_s, u"Which region should the report cover?"_s);
    } else if (segment.handler == u"get_approval") {
        request.insert(u"prompt"_s, segment.step == u"director"
                                        ? u"Director approval needed for the $1200 compute budget."_s
                                        : u"Manager approval needed for the $1200 compute budget."_s);
    } else if (segment.handler == u"select_options") {
        request.insert(u"question"_s, u"How thorough should the analysis be?"_s);
        request.insert(u"options"_s, QJsonArray{u"quick"_s, u"standard"_s, u"deep"_s});
    } else if (segment.handler == u"form") {
        request.insert(u"question"_s, u"Fill in the release details."_s);
        request.insert(u"schema"_s, formSchema());
    } else if (segment.handler == u"webhook") {
        const QString url = m_setup.publicBase + u"/hooks/"_s + m_setup.id + u'/' + m_setup.webhookToken;
        request.insert(u"webhook_url"_s, url);
        request.insert(u"message"_s, u"Waiting for the CI system to report back."_s);
        if (m_options.webhookMs >= 0) {
            m_aux->disconnect();
            connect(m_aux, &QTimer::timeout, this, [this] { callback({}); });
            m_aux->start(m_options.webhookMs);
        }
    } else if (segment.handler == u"timer") {
        const int ms = std::max(0, m_options.timerMs);
        request.insert(u"delay_seconds"_s, std::ceil(ms / 1000.0));
        request.insert(u"message"_s, u"Waiting for the rate-limit window to reopen."_s);
        request.insert(u"resume_at"_s, isoTime(QDateTime::currentMSecsSinceEpoch() + ms));
        m_aux->disconnect();
        connect(m_aux, &QTimer::timeout, this, [this] {
            if (m_status == u"input_required")
                resume(u"[timer elapsed] "_s);
        });
        m_aux->start(ms);
    }
    m_inputRequest = request;
    setStatus(u"input_required"_s, false);
    addEvent("input_required", request);
}

void JobsSimRun::resume(const QString &marker, bool skipToFinish)
{
    m_aux->stop();
    m_aux->disconnect();
    m_inputRequest = {};
    setStatus(u"running"_s);
    if (!marker.isEmpty())
        emitOutput(marker);
    ++m_segment;
    m_inSegment = 0;
    if (skipToFinish)
        m_segment = m_plan.size() - 1; // the Finish segment
    schedule(m_options.intervalMs);
}

JobsSimRun::AnswerResult JobsSimRun::answer(const QJsonObject &body, QString *why)
{
    if (m_status != u"input_required" || m_cancelPending) {
        *why = u"Job %1 is not waiting for input (status %2)."_s.arg(m_setup.id, m_status);
        return AnswerResult::NotSuspended;
    }
    const QString type = m_inputRequest.value(u"type"_s).toString();
    if (type == u"webhook" || type == u"timer") {
        *why = type == u"webhook"
                   ? u"Job %1 waits for its webhook to be called, not for an answer."_s.arg(m_setup.id)
                   : u"Job %1 waits for its timer, not for an answer."_s.arg(m_setup.id);
        return AnswerResult::NoOperatorInput;
    }
    const Segment segment = m_plan.value(m_segment);
    if (type == u"ask_user") {
        const QJsonValue text = body.value(u"text"_s);
        if (!text.isString() || text.toString().trimmed().isEmpty() || body.size() != 1) {
            *why = u"Expected {\"text\": \"…\"} with a non-empty text."_s;
            return AnswerResult::BadShape;
        }
        m_answers << body;
        resume(u"[answer: %1] "_s.arg(text.toString()));
        return AnswerResult::Accepted;
    }
    if (type == u"get_approval") {
        const QJsonValue approved = body.value(u"approved"_s);
        const QJsonValue comment = body.value(u"comment"_s);
        bool extra = false;
        for (auto it = body.constBegin(); it != body.constEnd(); ++it)
            extra = extra || (it.key() != u"approved" && it.key() != u"comment");
        if (!approved.isBool() || (!comment.isUndefined() && !comment.isString()) || extra) {
            *why = u"Expected {\"approved\": true|false, \"comment\": \"…\"}."_s;
            return AnswerResult::BadShape;
        }
        m_answers << body;
        const QString note = comment.toString().isEmpty() ? QString() : u": "_s + comment.toString();
        const QString step = segment.step.isEmpty() ? u"approver"_s : segment.step;
        if (approved.toBool()) {
            resume(u"[%1 approved%2] "_s.arg(step, note));
        } else {
            resume(u"[%1 rejected%2] "_s.arg(step, note), true);
        }
        return AnswerResult::Accepted;
    }
    if (type == u"select_options") {
        const QJsonValue choice = body.value(u"choice"_s);
        const QJsonArray options = m_inputRequest.value(u"options"_s).toArray();
        if (!choice.isString() || !options.contains(choice) || body.size() != 1) {
            *why = u"Expected {\"choice\": one of %1}."_s.arg(
                QString::fromUtf8(QJsonDocument(options).toJson(QJsonDocument::Compact)));
            return AnswerResult::BadShape;
        }
        m_answers << body;
        resume(u"[choice: %1] "_s.arg(choice.toString()));
        return AnswerResult::Accepted;
    }
    if (type == u"form") {
        const QJsonValue value = body.value(u"value"_s);
        if (!value.isObject() || body.size() != 1) {
            *why = u"Expected {\"value\": {…}} with the form's fields."_s;
            return AnswerResult::BadShape;
        }
        if (const QString problem = formProblem(value.toObject()); !problem.isEmpty()) {
            *why = problem;
            return AnswerResult::BadShape;
        }
        m_answers << body;
        resume(u"[form: %1] "_s.arg(QString::fromUtf8(compactJson(value.toObject()))));
        return AnswerResult::Accepted;
    }
    *why = u"Job %1 waits for an input of unknown type."_s.arg(m_setup.id);
    return AnswerResult::BadShape;
}

// The form scenario's schema: one field of each kind a typed form renders.
QJsonObject JobsSimRun::formSchema()
{
    const QJsonObject properties{
        {u"title"_s, QJsonObject{{u"type"_s, u"string"_s},
                                 {u"title"_s, u"Release title"_s},
                                 {u"minLength"_s, 1},
                                 {u"maxLength"_s, 80}}},
        {u"replicas"_s, QJsonObject{{u"type"_s, u"integer"_s},
                                    {u"title"_s, u"Replicas"_s},
                                    {u"minimum"_s, 1},
                                    {u"maximum"_s, 10},
                                    {u"default"_s, 2}}},
        {u"budget"_s, QJsonObject{{u"type"_s, u"number"_s},
                                  {u"title"_s, u"Budget (USD)"_s},
                                  {u"minimum"_s, 0},
                                  {u"maximum"_s, 5000}}},
        {u"dry_run"_s,
         QJsonObject{{u"type"_s, u"boolean"_s}, {u"title"_s, u"Dry run"_s}, {u"default"_s, true}}},
        {u"region"_s, QJsonObject{{u"type"_s, u"string"_s},
                                  {u"title"_s, u"Region"_s},
                                  {u"enum"_s, QJsonArray{u"eu-west"_s, u"us-east"_s, u"ap-south"_s}}}},
        {u"notes"_s,
         QJsonObject{{u"type"_s, u"string"_s}, {u"title"_s, u"Notes"_s}, {u"format"_s, u"textarea"_s}}},
    };
    return {{u"type"_s, u"object"_s},
            {u"title"_s, u"Release details"_s},
            {u"properties"_s, properties},
            {u"required"_s, QJsonArray{u"title"_s, u"replicas"_s, u"budget"_s, u"dry_run"_s, u"region"_s}},
            {u"additionalProperties"_s, false}};
}

// The simulator's own check of a form answer (it shares no code with the client's validator):
// JSON types exactly (numbers as numbers, booleans as booleans), bounds, the enum, no extras.
QString JobsSimRun::formProblem(const QJsonObject &value)
{
    const QJsonObject properties = formSchema().value(u"properties"_s).toObject();
    const QJsonArray required = formSchema().value(u"required"_s).toArray();
    for (const QJsonValue &name : required) {
        if (!value.contains(name.toString()))
            return u"Field \"%1\" is required."_s.arg(name.toString());
    }
    for (auto it = value.constBegin(); it != value.constEnd(); ++it) {
        const QJsonObject field = properties.value(it.key()).toObject();
        const QString type = field.value(u"type"_s).toString();
        const QJsonValue v = it.value();
        if (field.isEmpty())
            return u"Field \"%1\" is not part of the form."_s.arg(it.key());
        const bool typeOk
            = (type == u"string" && v.isString()) || (type == u"boolean" && v.isBool())
              || (type == u"number" && v.isDouble())
              || (type == u"integer" && v.isDouble() && v.toDouble() == std::floor(v.toDouble()));
        if (!typeOk)
            return u"Field \"%1\" must be of type %2."_s.arg(it.key(), type);
        if (field.contains(u"enum"_s) && !field.value(u"enum"_s).toArray().contains(v))
            return u"Field \"%1\" must be one of the listed values."_s.arg(it.key());
        if ((field.contains(u"minimum"_s) && v.toDouble() < field.value(u"minimum"_s).toDouble())
            || (field.contains(u"maximum"_s) && v.toDouble() > field.value(u"maximum"_s).toDouble()))
            return u"Field \"%1\" is out of range."_s.arg(it.key());
        if (field.contains(u"minLength"_s) && v.toString().size() < field.value(u"minLength"_s).toInt())
            return u"Field \"%1\" is too short."_s.arg(it.key());
    }
    return {};
}

bool JobsSimRun::callback(const QJsonObject &body)
{
    if (m_status != u"input_required" || m_inputRequest.value(u"type"_s).toString() != u"webhook")
        return false;
    m_answers << body;
    resume(body.isEmpty() ? u"[callback] "_s
                          : u"[callback: %1] "_s.arg(QString::fromUtf8(compactJson(body))));
    return true;
}

JobsSimRun::CancelResult JobsSimRun::cancel()
{
    if (m_status == u"canceled")
        return CancelResult::Cancelled; // idempotent: 200 again
    if (isTerminal())
        return CancelResult::AlreadyTerminal;
    if (m_cancelPending)
        return CancelResult::Initiated;
    const bool working = m_status == u"running" || m_status == u"paused_by_admin";
    if (working && m_options.cancelIgnored)
        return CancelResult::Initiated; // accepted, and never acted on
    if (working && m_options.cancelDelayMs > 0) {
        // The work stops at once, the job reports canceled only after the delay.
        m_cancelPending = true;
        m_tick->stop();
        m_aux->stop();
        m_aux->disconnect();
        connect(m_aux, &QTimer::timeout, this, [this] { finish(u"canceled"_s); });
        m_aux->start(m_options.cancelDelayMs);
        return CancelResult::Initiated;
    }
    finish(u"canceled"_s);
    return CancelResult::Cancelled;
}

void JobsSimRun::finish(const QString &status)
{
    if (isTerminal())
        return;
    m_tick->stop();
    m_aux->stop();
    m_aux->disconnect();
    m_timeout->stop();
    m_cancelPending = false;
    m_inputRequest = {};
    if (status == u"succeeded") {
        m_finalResult = m_text;
        if (m_options.scenario == JobsScenario::Large)
            m_finalResult += padding(std::max<qint64>(0, m_options.largeBytes - m_text.size()));
    } else if (status == u"failed") {
        m_error = QJsonObject{{u"code"_s, u"upstream_error"_s},
                              {u"message"_s, u"The upstream model stopped responding."_s},
                              {u"retryable"_s, m_options.retryable}};
    }
    setStatus(status, false);
    addEvent("done", shapedObject());
}

QString JobsSimRun::statusPath() const
{
    if (m_setup.shape == JobsShape::Alternate)
        return m_setup.basePath + u"/v2/tasks/"_s + m_setup.id;
    return m_setup.basePath + (m_setup.opaqueUrls ? u"/operations/"_s : u"/jobs/"_s) + m_setup.id;
}

QString JobsSimRun::eventsPath() const
{
    if (m_setup.shape == JobsShape::Alternate)
        return statusPath() + u"/stream"_s;
    return statusPath() + u"/events"_s;
}

QString JobsSimRun::resultPath() const
{
    if (m_setup.shape == JobsShape::Alternate)
        return statusPath() + u"/output"_s;
    return m_setup.basePath + u"/jobs/"_s + m_setup.id + u"/result"_s;
}

QJsonObject JobsSimRun::object() const
{
    QJsonObject o;
    o.insert(u"job_id"_s, m_setup.id);
    o.insert(u"status"_s, m_status);
    double progress = m_totalDeltas > 0 ? double(m_tokenIndex) / m_totalDeltas : 0.0;
    if (m_status == u"succeeded")
        progress = 1.0;
    o.insert(u"progress"_s, std::round(progress * 1000.0) / 1000.0);
    o.insert(u"created_at"_s, isoTime(m_createdAtMs));
    o.insert(u"updated_at"_s, isoTime(m_updatedAtMs));
    o.insert(u"timeout_seconds"_s, m_options.timeoutSeconds);
    QJsonValue result = QJsonValue::Null;
    if (m_status == u"succeeded") {
        if (m_finalResult.size() <= m_setup.inlineResultLimit) {
            result = m_finalResult;
        } else {
            o.insert(u"result_url"_s, resultPath());
        }
    } else if (m_status == u"canceled" && !m_text.isEmpty()) {
        result = m_text; // the partial result
    }
    o.insert(u"result"_s, result);
    o.insert(u"error"_s, orNull(m_error));
    o.insert(u"input_request"_s, orNull(m_inputRequest));
    o.insert(u"status_url"_s, statusPath());
    if (m_options.events)
        o.insert(u"events_url"_s, eventsPath());
    if (!m_setup.idempotencyKey.isEmpty())
        o.insert(u"idempotency_key"_s, m_setup.idempotencyKey);
    if (!m_setup.metadata.isEmpty())
        o.insert(u"metadata"_s, m_setup.metadata);
    return o;
}

QJsonObject JobsSimRun::shapedObject() const
{
    return shapeJobObject(object(), m_setup.shape);
}

} // namespace RunwatchSim
