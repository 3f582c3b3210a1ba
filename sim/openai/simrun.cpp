// SPDX-License-Identifier: GPL-3.0-or-later
#include "simrun.h"

#include <QDateTime>
#include <QHash>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QTimer>

#include <array>
#include <limits>
#include <type_traits>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

constexpr qint64 kMaxDeltas = 1000000;
constexpr qint64 kMaxHugeBytes = qint64(512) << 20;
constexpr qint64 kMaxIntervalMs = 3600 * 1000;
constexpr int kReasoningDeltas = 3;
constexpr std::array kArgumentChunks{"{\"location\":"_L1, "\"Paris\","_L1, "\"unit\":\"celsius\"}"_L1};

const QStringList &optionKeys()
{
    static const QStringList keys{
        u"scenario"_s,
        u"deltas"_s,
        u"interval_ms"_s,
        u"queued_ms"_s,
        u"keepalives"_s,
        u"fail_after"_s,
        u"huge_bytes"_s,
        u"reply"_s,
        u"manual"_s,
        u"cancel_mode"_s,
        u"send_done"_s,
        u"resume_max_age_ms"_s,
        u"fault_connections"_s,
        u"drop_after"_s,
        u"drop_mode"_s,
        u"malformed_at"_s,
        u"invalid_utf8_at"_s,
        u"endless_line_at"_s,
        u"drip_ms"_s,
        u"http_error_status"_s,
        u"http_error_count"_s,
        u"http_error_on"_s,
        u"retry_after"_s,
        u"retry_after_ms"_s,
        u"http_error_body"_s,
    };
    return keys;
}

std::optional<bool> parseBool(QStringView value)
{
    const QString v = value.trimmed().toString().toLower();
    if (v == "1"_L1 || v == "true"_L1 || v == "yes"_L1 || v == "on"_L1) {
        return true;
    }
    if (v == "0"_L1 || v == "false"_L1 || v == "no"_L1 || v == "off"_L1) {
        return false;
    }
    return std::nullopt;
}

std::optional<qint64> parseInt(QStringView value, qint64 min, qint64 max)
{
    bool ok = false;
    const qint64 number = value.trimmed().toLongLong(&ok);
    if (!ok || number < min || number > max) {
        return std::nullopt;
    }
    return number;
}

QString randomHex(int bytes)
{
    QByteArray raw(bytes, Qt::Uninitialized);
    for (char &c : raw) {
        c = char(QRandomGenerator::global()->bounded(256));
    }
    return QString::fromLatin1(raw.toHex());
}

// Word plus the whitespace after it, so that joining the chunks gives the text back.
QStringList chunkWords(const QString &text)
{
    QStringList chunks;
    QString current;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (!c.isSpace() && !current.isEmpty() && current.back().isSpace()) {
            chunks.append(current);
            current.clear();
        }
        current.append(c);
    }
    if (!current.isEmpty()) {
        chunks.append(current);
    }
    return chunks;
}

} // namespace

QString tokenDelta(int index)
{
    return u"tok"_s + QString::number(index) + u' ';
}

QString hugeText(qint64 bytes)
{
    static const QString alphabet = u"abcdefghijklmnopqrstuvwxyz0123456789"_s;
    QString line;
    for (int i = 0; i < 79; ++i) {
        line.append(alphabet.at(i % alphabet.size()));
    }
    line.append(u'\n');
    QString text;
    text.reserve(bytes);
    while (text.size() + line.size() <= bytes) {
        text.append(line);
    }
    text.append(line.left(bytes - text.size()));
    return text;
}

QString inputTextOf(const QJsonValue &input)
{
    if (input.isString()) {
        return input.toString();
    }
    QStringList parts;
    const QJsonArray items = input.toArray();
    for (const QJsonValue &itemValue : items) {
        const QJsonObject item = itemValue.toObject();
        const QJsonValue content = item.value("content"_L1);
        if (content.isString()) {
            parts.append(content.toString());
        } else if (content.isArray()) {
            const QJsonArray contentParts = content.toArray();
            for (const QJsonValue &part : contentParts) {
                const QJsonValue text = part.toObject().value("text"_L1);
                if (text.isString()) {
                    parts.append(text.toString());
                }
            }
        }
        if (item.value("output"_L1).isString()) {
            parts.append(item.value("output"_L1).toString());
        }
    }
    return parts.join(u'\n');
}

std::optional<OptionError> resolveRunOptions(const SimulatorConfig &config, const QString &inputText,
                                             const QJsonObject &metadata, RunOptions *options)
{
    RunOptions o;
    o.deltas = config.deltas;
    o.intervalMs = config.intervalMs;
    o.queuedMs = config.queuedMs < 0 ? config.intervalMs : config.queuedMs;
    o.keepalives = config.keepaliveEvents;
    o.hugeBytes = config.hugeDeltaBytes;
    o.reply = config.replyText;
    o.manual = config.manualAdvance;
    o.cancelMode = config.cancelMode;
    o.sendDone = config.sendDoneSentinel;
    o.resumeMaxAgeMs = config.resumeMaxAgeMs;
    o.streamFaults = config.streamFaults;

    QHash<QString, QString> raw;
    const QStringList words = inputText.simplified().split(u' ', Qt::SkipEmptyParts);
    if (!words.isEmpty()) {
        QString first = words.first();
        while (!first.isEmpty() && QStringView(u":,.;!").contains(first.back())) {
            first.chop(1);
        }
        if (scenarioFromName(first)) {
            raw.insert(u"scenario"_s, first);
        }
    }
    for (const QString &word : words) {
        const qsizetype eq = word.indexOf(u'=');
        const QString key = word.left(eq).toLower();
        if (eq > 0 && optionKeys().contains(key)) {
            raw.insert(key, word.mid(eq + 1));
        }
    }
    for (const QString &key : optionKeys()) {
        if (metadata.contains(key)) {
            raw.insert(key, metadata.value(key).toString());
        }
    }

    const auto bad = [](const QString &key, const QString &why) {
        return OptionError{key, u"Invalid value for simulator option '%1': %2"_s.arg(key, why)};
    };
    const auto integer
        = [&](const QString &key, qint64 min, qint64 max, auto *target) -> std::optional<OptionError> {
        if (!raw.contains(key)) {
            return std::nullopt;
        }
        const auto value = parseInt(raw.value(key), min, max);
        if (!value) {
            return bad(key, u"expected an integer from %1 to %2"_s.arg(min).arg(max));
        }
        *target = static_cast<std::remove_pointer_t<decltype(target)>>(*value);
        return std::nullopt;
    };
    const auto boolean = [&](const QString &key, bool *target) -> std::optional<OptionError> {
        if (!raw.contains(key)) {
            return std::nullopt;
        }
        const auto value = parseBool(raw.value(key));
        if (!value) {
            return bad(key, u"expected 1/0/true/false"_s);
        }
        *target = *value;
        return std::nullopt;
    };

    if (raw.contains(u"scenario"_s)) {
        const auto scenario = scenarioFromName(raw.value(u"scenario"_s));
        if (!scenario) {
            return bad(u"scenario"_s, u"expected one of "_s + scenarioNames().join(u", "_s));
        }
        o.scenario = *scenario;
    }
    if (o.scenario == Scenario::Long) {
        o.deltas = config.longDeltas;
    }
    if (o.scenario == Scenario::Huge && !raw.contains(u"deltas"_s)) {
        o.deltas = qMax(o.deltas, 1);
    }
    std::optional<OptionError> error;
    if ((error = integer(u"deltas"_s, 0, kMaxDeltas, &o.deltas))
        || (error = integer(u"interval_ms"_s, 0, kMaxIntervalMs, &o.intervalMs))
        || (error = integer(u"queued_ms"_s, 0, kMaxIntervalMs, &o.queuedMs))
        || (error = integer(u"keepalives"_s, 0, 100000, &o.keepalives))
        || (error = integer(u"huge_bytes"_s, 1, kMaxHugeBytes, &o.hugeBytes))
        || (error
            = integer(u"resume_max_age_ms"_s, -1, std::numeric_limits<qint64>::max(), &o.resumeMaxAgeMs))
        || (error = boolean(u"manual"_s, &o.manual)) || (error = boolean(u"send_done"_s, &o.sendDone))) {
        return error;
    }
    if (raw.contains(u"interval_ms"_s) && !raw.contains(u"queued_ms"_s)) {
        o.queuedMs = o.intervalMs;
    }
    if (raw.contains(u"reply"_s)) {
        o.reply = raw.value(u"reply"_s);
    }
    o.failAfter = o.deltas / 2;
    if ((error = integer(u"fail_after"_s, 0, kMaxDeltas, &o.failAfter))) {
        return error;
    }
    o.failAfter = qMin(o.failAfter, o.deltas);
    if (raw.contains(u"cancel_mode"_s)) {
        const auto mode = cancelModeFromName(raw.value(u"cancel_mode"_s));
        if (!mode) {
            return bad(u"cancel_mode"_s, u"expected failed_event, close or flip"_s);
        }
        o.cancelMode = *mode;
    }

    StreamFaults &f = o.streamFaults;
    constexpr qint64 kMaxSeq = std::numeric_limits<qint64>::max();
    if ((error = integer(u"fault_connections"_s, -1, 1000000, &f.connections))
        || (error = integer(u"drop_after"_s, -1, kMaxSeq, &f.dropAfterEvents))
        || (error = integer(u"malformed_at"_s, -1, kMaxSeq, &f.malformedAt))
        || (error = integer(u"invalid_utf8_at"_s, -1, kMaxSeq, &f.invalidUtf8At))
        || (error = integer(u"endless_line_at"_s, -1, kMaxSeq, &f.endlessLineAt))
        || (error = integer(u"drip_ms"_s, 0, 60000, &f.dripIntervalMs))) {
        return error;
    }
    if (raw.contains(u"drop_mode"_s)) {
        const auto mode = dropModeFromName(raw.value(u"drop_mode"_s));
        if (!mode) {
            return bad(u"drop_mode"_s, u"expected close, reset or mid"_s);
        }
        f.dropMode = *mode;
    }

    const bool wantsHttpFault = raw.contains(u"http_error_status"_s) || raw.contains(u"http_error_count"_s)
                                || raw.contains(u"http_error_on"_s);
    if (wantsHttpFault) {
        HttpFault fault;
        if ((error = integer(u"http_error_status"_s, 100, 599, &fault.status))
            || (error = integer(u"http_error_count"_s, -1, 1000000, &fault.count))
            || (error = integer(u"retry_after"_s, -1, 86400, &fault.retryAfterSeconds))
            || (error = integer(u"retry_after_ms"_s, -1, 86400000, &fault.retryAfterMs))) {
            return error;
        }
        if (raw.contains(u"http_error_on"_s)) {
            const auto endpoints = endpointsFromList(raw.value(u"http_error_on"_s));
            if (!endpoints) {
                return bad(u"http_error_on"_s,
                           u"expected endpoint names (create, get, stream, cancel, delete, "
                           u"input_items) joined by '+' or ','"_s);
            }
            fault.endpoints = *endpoints;
        }
        if (raw.contains(u"http_error_body"_s)) {
            const QString body = raw.value(u"http_error_body"_s);
            if (body == "error"_L1) {
                fault.body = FaultBody::OpenAIError;
            } else if (body == "html"_L1) {
                fault.body = FaultBody::Html;
            } else if (body == "empty"_L1) {
                fault.body = FaultBody::Empty;
            } else {
                return bad(u"http_error_body"_s, u"expected error, html or empty"_s);
            }
        }
        o.httpFault = fault;
    }

    *options = o;
    return std::nullopt;
}

SimRun::SimRun(const QString &id, const CreateParams &params, const RunOptions &options, QObject *parent)
    : QObject(parent)
    , m_id(id)
    , m_params(params)
    , m_options(options)
    , m_timer(new QTimer(this))
{
    m_age.start();
    const qint64 now = QDateTime::currentSecsSinceEpoch();
    m_createdAt = params.fractionalTimestamps ? double(now) + 0.25 : double(now);
    m_status = params.background ? Status::Queued : Status::InProgress;
    if (!m_options.reply.isEmpty()) {
        m_replyChunks = chunkWords(m_options.reply);
    }
    m_timer->setSingleShot(true);
    connect(m_timer, &QTimer::timeout, this, &SimRun::onTimer);
    buildPlan();
}

SimRun::~SimRun() = default;

QString SimRun::statusName(Status status)
{
    switch (status) {
    case Status::Queued:
        return u"queued"_s;
    case Status::InProgress:
        return u"in_progress"_s;
    case Status::Completed:
        return u"completed"_s;
    case Status::Failed:
        return u"failed"_s;
    case Status::Incomplete:
        return u"incomplete"_s;
    case Status::Cancelled:
        return u"cancelled"_s;
    }
    return QString();
}

QString SimRun::statusName() const
{
    return statusName(m_status);
}

void SimRun::addMessageSteps(int item, int deltas, Op finalItemOp)
{
    m_plan.append({Op::ItemAdded, item, 0});
    m_plan.append({Op::PartAdded, item, 0});
    for (int i = 0; i < deltas; ++i) {
        m_plan.append({Op::Delta, item, i});
    }
    m_plan.append({Op::TextDone, item, 0});
    m_plan.append({Op::PartDone, item, 0});
    m_plan.append({finalItemOp, item, 0});
}

void SimRun::buildPlan()
{
    const auto newItem = [this](Item::Kind kind) {
        Item item;
        item.kind = kind;
        switch (kind) {
        case Item::Kind::Message:
            item.id = u"msg_"_s + randomHex(16);
            break;
        case Item::Kind::Reasoning:
            item.id = u"rs_"_s + randomHex(16);
            break;
        case Item::Kind::FunctionCall:
            item.id = u"fc_"_s + randomHex(16);
            item.callId = u"call_"_s + randomHex(12);
            item.name = u"get_weather"_s;
            break;
        }
        m_items.append(item);
        return int(m_items.size() - 1);
    };
    const auto addFunctionCall = [this, &newItem] {
        const int item = newItem(Item::Kind::FunctionCall);
        m_plan.append({Op::ItemAdded, item, 0});
        for (int i = 0; i < int(kArgumentChunks.size()); ++i) {
            m_plan.append({Op::Delta, item, i});
        }
        m_plan.append({Op::TextDone, item, 0});
        m_plan.append({Op::ItemDone, item, 0});
    };
    const int messageDeltas = m_replyChunks.isEmpty() ? m_options.deltas : int(m_replyChunks.size());

    m_plan.append({Op::Created, 0, 0});
    if (m_params.background) {
        m_plan.append({Op::Queued, 0, 0});
        for (int i = 0; i < m_options.keepalives; ++i) {
            m_plan.append({Op::Keepalive, 0, i});
        }
    }
    m_plan.append({Op::InProgress, 0, 0});
    switch (m_options.scenario) {
    case Scenario::Normal:
    case Scenario::Long:
    case Scenario::Huge:
        addMessageSteps(newItem(Item::Kind::Message), messageDeltas, Op::ItemDone);
        m_plan.append({Op::Completed, 0, 0});
        break;
    case Scenario::Incomplete:
        addMessageSteps(newItem(Item::Kind::Message), messageDeltas, Op::ItemDoneIncomplete);
        m_plan.append({Op::Incomplete, 0, 0});
        break;
    case Scenario::Fail:
    case Scenario::Error: {
        const int item = newItem(Item::Kind::Message);
        m_plan.append({Op::ItemAdded, item, 0});
        m_plan.append({Op::PartAdded, item, 0});
        for (int i = 0; i < qMin(m_options.failAfter, messageDeltas); ++i) {
            m_plan.append({Op::Delta, item, i});
        }
        m_plan.append({m_options.scenario == Scenario::Fail ? Op::Failed : Op::ErrorEvent, 0, 0});
        break;
    }
    case Scenario::Reasoning: {
        const int reasoning = newItem(Item::Kind::Reasoning);
        m_plan.append({Op::ItemAdded, reasoning, 0});
        m_plan.append({Op::PartAdded, reasoning, 0});
        for (int i = 0; i < kReasoningDeltas; ++i) {
            m_plan.append({Op::Delta, reasoning, i});
        }
        m_plan.append({Op::TextDone, reasoning, 0});
        m_plan.append({Op::PartDone, reasoning, 0});
        m_plan.append({Op::ItemDone, reasoning, 0});
        addFunctionCall();
        addMessageSteps(newItem(Item::Kind::Message), messageDeltas, Op::ItemDone);
        m_plan.append({Op::Completed, 0, 0});
        break;
    }
    case Scenario::ToolCall:
        addFunctionCall();
        m_plan.append({Op::Completed, 0, 0});
        break;
    }
}

int SimRun::delayBefore(const Step &step) const
{
    switch (step.op) {
    case Op::InProgress:
        return m_options.queuedMs;
    case Op::Keepalive:
    case Op::Delta:
    case Op::Completed:
    case Op::Failed:
    case Op::Incomplete:
    case Op::ErrorEvent:
        return m_options.intervalMs;
    default:
        return 0;
    }
}

void SimRun::start()
{
    if (m_started) {
        return;
    }
    m_started = true;
    while (m_next < m_plan.size()
           && (m_plan.at(m_next).op == Op::Created || m_plan.at(m_next).op == Op::Queued)) {
        runStep(m_plan.at(m_next++));
    }
    scheduleNext();
}

void SimRun::scheduleNext()
{
    if (m_ended || m_paused || m_options.manual || !m_started || m_next >= m_plan.size()) {
        m_timer->stop();
        return;
    }
    m_timer->start(delayBefore(m_plan.at(m_next)));
}

void SimRun::onTimer()
{
    // With a zero interval whole batches run per tick, so a 100k-event run takes milliseconds
    // without starving the event loop.
    int budget = 512;
    if (!m_ended && m_next < m_plan.size()) {
        runStep(m_plan.at(m_next++));
    }
    while (!m_ended && m_next < m_plan.size() && delayBefore(m_plan.at(m_next)) == 0 && --budget > 0) {
        runStep(m_plan.at(m_next++));
    }
    scheduleNext();
}

int SimRun::advance(int steps)
{
    if (!m_started) {
        start();
    }
    int done = 0;
    while (done < steps && !m_ended && m_next < m_plan.size()) {
        runStep(m_plan.at(m_next++));
        ++done;
    }
    scheduleNext();
    return done;
}

void SimRun::setPaused(bool paused)
{
    m_paused = paused;
    scheduleNext();
}

SimRun::CancelOutcome SimRun::cancel()
{
    switch (m_status) {
    case Status::Completed:
        return CancelOutcome::WasCompleted;
    case Status::Failed:
        return CancelOutcome::WasFailed;
    case Status::Incomplete:
        return CancelOutcome::WasIncomplete;
    case Status::Cancelled:
        return CancelOutcome::AlreadyCancelled;
    case Status::Queued:
    case Status::InProgress:
        break;
    }
    setStatus(Status::Cancelled);
    switch (m_options.cancelMode) {
    case CancelMode::FailedEvent:
        // MS-CONTRACT: the stream of a cancelled response ends with response.failed whose
        // response.status is "cancelled".
        m_timer->stop();
        lifecycleEvent(QByteArrayLiteral("response.failed"));
        m_ended = true;
        Q_EMIT ended();
        break;
    case CancelMode::Close:
        m_timer->stop();
        m_ended = true;
        Q_EMIT ended();
        break;
    case CancelMode::Flip:
        break; // generation goes on; the terminal step overwrites the status
    }
    return CancelOutcome::Cancelled;
}

bool SimRun::takeHttpFault(Endpoint endpoint)
{
    if (!m_options.httpFault) {
        return false;
    }
    const HttpFault &fault = *m_options.httpFault;
    if (!fault.endpoints.isEmpty() && !fault.endpoints.contains(endpoint)) {
        return false;
    }
    if (fault.count >= 0 && m_httpFaultsServed >= fault.count) {
        return false;
    }
    ++m_httpFaultsServed;
    return true;
}

QString SimRun::deltaText(int item, int index) const
{
    const Item &it = m_items.at(item);
    switch (it.kind) {
    case Item::Kind::Message:
        if (!m_replyChunks.isEmpty()) {
            return m_replyChunks.value(index);
        }
        if (m_options.scenario == Scenario::Huge && index == qMin(1, m_options.deltas - 1)) {
            return hugeText(m_options.hugeBytes);
        }
        return tokenDelta(index);
    case Item::Kind::Reasoning:
        return u"step"_s + QString::number(index) + u' ';
    case Item::Kind::FunctionCall:
        return QString(kArgumentChunks.at(std::size_t(index)));
    }
    return QString();
}

void SimRun::setStatus(Status status)
{
    if (m_status == status) {
        return;
    }
    m_status = status;
    Q_EMIT statusChanged(statusName(status));
}

void SimRun::appendEvent(const QByteArray &type, QJsonObject payload)
{
    const qint64 seq = m_events.size();
    // QJsonObject sorts its keys; "type" and "sequence_number" go first by hand, as on the real
    // wire (protocol §6.1), which keeps transcripts readable.
    payload.remove("type"_L1);
    payload.remove("sequence_number"_L1);
    const QByteArray rest = QJsonDocument(payload).toJson(QJsonDocument::Compact);
    QByteArray data = "{\"type\":\"" + type + "\",\"sequence_number\":" + QByteArray::number(seq);
    if (rest.size() > 2) {
        data += ',' + rest.mid(1);
    } else {
        data += '}';
    }
    m_events.append(SimEvent{seq, type, data});
    Q_EMIT eventAdded(seq, type);
}

void SimRun::lifecycleEvent(const QByteArray &type)
{
    appendEvent(type, QJsonObject{{u"response"_s, snapshot()}});
}

void SimRun::finishWith(Status status)
{
    setStatus(status);
    const QByteArray type = status == Status::Completed    ? QByteArrayLiteral("response.completed")
                            : status == Status::Incomplete ? QByteArrayLiteral("response.incomplete")
                                                           : QByteArrayLiteral("response.failed");
    lifecycleEvent(type);
    m_ended = true;
    m_timer->stop();
    Q_EMIT ended();
}

void SimRun::runStep(const Step &step)
{
    Item *item = step.item < m_items.size() ? &m_items[step.item] : nullptr;
    // The plan only schedules item steps for items it created; a step that names none is a bug
    // in the plan, skipped rather than dereferenced.
    const bool itemStep = step.op >= Op::ItemAdded && step.op <= Op::ItemDoneIncomplete;
    if (itemStep && !item) {
        Q_ASSERT_X(false, "SimRun::runStep", "item step without an item");
        return;
    }
    const auto indexFields = [&](QJsonObject object, bool withContentIndex) {
        object.insert("item_id"_L1, item->id);
        object.insert("output_index"_L1, step.item);
        if (withContentIndex) {
            object.insert(item->kind == Item::Kind::Reasoning ? "summary_index"_L1 : "content_index"_L1, 0);
        }
        return object;
    };
    switch (step.op) {
    case Op::Created:
        lifecycleEvent(QByteArrayLiteral("response.created"));
        break;
    case Op::Queued:
        lifecycleEvent(QByteArrayLiteral("response.queued"));
        break;
    case Op::Keepalive:
        appendEvent(QByteArrayLiteral("keepalive"), QJsonObject{{u"model"_s, m_params.model}});
        break;
    case Op::InProgress:
        if (m_status != Status::Cancelled) {
            setStatus(Status::InProgress);
        }
        lifecycleEvent(QByteArrayLiteral("response.in_progress"));
        break;
    case Op::ItemAdded:
        item->added = true;
        appendEvent(QByteArrayLiteral("response.output_item.added"),
                    QJsonObject{{u"output_index"_s, step.item}, {u"item"_s, itemJson(*item)}});
        break;
    case Op::PartAdded:
        item->partAdded = true;
        if (item->kind == Item::Kind::Reasoning) {
            appendEvent(QByteArrayLiteral("response.reasoning_summary_part.added"),
                        indexFields({{u"part"_s,
                                      QJsonObject{{u"type"_s, u"summary_text"_s}, {u"text"_s, QString()}}}},
                                    true));
        } else {
            appendEvent(QByteArrayLiteral("response.content_part.added"),
                        indexFields({{u"part"_s, QJsonObject{{u"type"_s, u"output_text"_s},
                                                             {u"text"_s, QString()},
                                                             {u"annotations"_s, QJsonArray()}}}},
                                    true));
        }
        break;
    case Op::Delta: {
        const QString delta = deltaText(step.item, step.index);
        item->text += delta;
        switch (item->kind) {
        case Item::Kind::Message: {
            ++m_outputTokens;
            QJsonObject payload = indexFields({{u"delta"_s, delta}, {u"logprobs"_s, QJsonArray()}}, true);
            if (m_params.obfuscation) {
                static const QString pad = u"Xy7Qp2Lm9Rt4Vb1N"_s;
                payload.insert("obfuscation"_L1, pad.left(4 + int(m_events.size() % 12)));
            }
            appendEvent(QByteArrayLiteral("response.output_text.delta"), payload);
            break;
        }
        case Item::Kind::Reasoning:
            ++m_reasoningTokens;
            appendEvent(QByteArrayLiteral("response.reasoning_summary_text.delta"),
                        indexFields({{u"delta"_s, delta}}, true));
            break;
        case Item::Kind::FunctionCall:
            ++m_outputTokens;
            appendEvent(QByteArrayLiteral("response.function_call_arguments.delta"),
                        indexFields({{u"delta"_s, delta}}, false));
            break;
        }
        break;
    }
    case Op::TextDone:
        switch (item->kind) {
        case Item::Kind::Message:
            appendEvent(QByteArrayLiteral("response.output_text.done"),
                        indexFields({{u"text"_s, item->text}, {u"logprobs"_s, QJsonArray()}}, true));
            break;
        case Item::Kind::Reasoning:
            appendEvent(QByteArrayLiteral("response.reasoning_summary_text.done"),
                        indexFields({{u"text"_s, item->text}}, true));
            break;
        case Item::Kind::FunctionCall:
            appendEvent(QByteArrayLiteral("response.function_call_arguments.done"),
                        indexFields({{u"name"_s, item->name}, {u"arguments"_s, item->text}}, false));
            break;
        }
        break;
    case Op::PartDone:
        if (item->kind == Item::Kind::Reasoning) {
            appendEvent(QByteArrayLiteral("response.reasoning_summary_part.done"),
                        indexFields({{u"part"_s,
                                      QJsonObject{{u"type"_s, u"summary_text"_s}, {u"text"_s, item->text}}}},
                                    true));
        } else {
            appendEvent(QByteArrayLiteral("response.content_part.done"),
                        indexFields({{u"part"_s, QJsonObject{{u"type"_s, u"output_text"_s},
                                                             {u"text"_s, item->text},
                                                             {u"annotations"_s, QJsonArray()}}}},
                                    true));
        }
        break;
    case Op::ItemDone:
    case Op::ItemDoneIncomplete:
        item->status = step.op == Op::ItemDone ? u"completed"_s : u"incomplete"_s;
        appendEvent(QByteArrayLiteral("response.output_item.done"),
                    QJsonObject{{u"output_index"_s, step.item}, {u"item"_s, itemJson(*item)}});
        break;
    case Op::Completed:
        m_completedAt
            = double(QDateTime::currentSecsSinceEpoch()) + (m_params.fractionalTimestamps ? 0.5 : 0.0);
        m_usage = true;
        finishWith(Status::Completed);
        break;
    case Op::Failed:
        m_error = QJsonObject{{u"code"_s, u"server_error"_s},
                              {u"message"_s, u"The model failed to generate a response."_s}};
        finishWith(Status::Failed);
        break;
    case Op::Incomplete:
        m_incompleteDetails = QJsonObject{{u"reason"_s, u"max_output_tokens"_s}};
        m_usage = true;
        finishWith(Status::Incomplete);
        break;
    case Op::ErrorEvent: {
        const QString message = u"The model is currently over capacity."_s;
        m_error = QJsonObject{{u"code"_s, u"rate_limit_exceeded"_s}, {u"message"_s, message}};
        setStatus(Status::Failed);
        // Nested, as first-party servers send it (protocol §2.5), not the flat SPEC shape.
        appendEvent(QByteArrayLiteral("error"),
                    QJsonObject{{u"error"_s, QJsonObject{{u"type"_s, u"invalid_request_error"_s},
                                                         {u"code"_s, u"rate_limit_exceeded"_s},
                                                         {u"message"_s, message},
                                                         {u"param"_s, u"input"_s}}}});
        m_ended = true;
        m_timer->stop();
        Q_EMIT ended();
        break;
    }
    }
}

QJsonObject SimRun::itemJson(const Item &item) const
{
    switch (item.kind) {
    case Item::Kind::Message: {
        QJsonArray content;
        if (item.partAdded) {
            content.append(QJsonObject{
                {u"type"_s, u"output_text"_s}, {u"text"_s, item.text}, {u"annotations"_s, QJsonArray()}});
        }
        return QJsonObject{{u"id"_s, item.id},
                           {u"type"_s, u"message"_s},
                           {u"status"_s, item.status},
                           {u"role"_s, u"assistant"_s},
                           {u"content"_s, content}};
    }
    case Item::Kind::Reasoning: {
        QJsonArray summary;
        if (item.partAdded) {
            summary.append(QJsonObject{{u"type"_s, u"summary_text"_s}, {u"text"_s, item.text}});
        }
        return QJsonObject{{u"id"_s, item.id}, {u"type"_s, u"reasoning"_s}, {u"summary"_s, summary}};
    }
    case Item::Kind::FunctionCall:
        return QJsonObject{{u"id"_s, item.id},         {u"type"_s, u"function_call"_s},
                           {u"status"_s, item.status}, {u"call_id"_s, item.callId},
                           {u"name"_s, item.name},     {u"arguments"_s, item.text}};
    }
    return QJsonObject();
}

QJsonObject SimRun::usageJson() const
{
    const qsizetype inputWords = inputTextOf(m_params.input).split(u' ', Qt::SkipEmptyParts).size();
    const int inputTokens = int(qMax<qsizetype>(1, inputWords));
    const int outputTokens = m_outputTokens + m_reasoningTokens;
    return QJsonObject{
        {u"input_tokens"_s, inputTokens},
        {u"input_tokens_details"_s, QJsonObject{{u"cached_tokens"_s, 0}, {u"cache_write_tokens"_s, 0}}},
        {u"output_tokens"_s, outputTokens},
        {u"output_tokens_details"_s, QJsonObject{{u"reasoning_tokens"_s, m_reasoningTokens}}},
        {u"total_tokens"_s, inputTokens + outputTokens},
    };
}

QJsonObject SimRun::snapshot() const
{
    QJsonArray output;
    for (const Item &item : m_items) {
        if (item.added) {
            output.append(itemJson(item));
        }
    }
    return QJsonObject{
        {u"id"_s, m_id},
        {u"object"_s, u"response"_s},
        {u"created_at"_s, m_createdAt},
        {u"status"_s, statusName()},
        {u"background"_s, m_params.background},
        {u"completed_at"_s, m_status == Status::Completed ? QJsonValue(m_completedAt) : QJsonValue()},
        {u"error"_s, m_error.isObject() && m_status == Status::Failed ? m_error : QJsonValue()},
        {u"incomplete_details"_s, m_incompleteDetails},
        {u"instructions"_s, m_params.instructions},
        {u"max_output_tokens"_s, m_params.maxOutputTokens},
        {u"model"_s, m_params.model},
        {u"output"_s, output},
        {u"parallel_tool_calls"_s, true},
        {u"previous_response_id"_s, m_params.previousResponseId},
        {u"store"_s, m_params.store},
        {u"temperature"_s, 1},
        {u"text"_s, QJsonObject{{u"format"_s, QJsonObject{{u"type"_s, u"text"_s}}}}},
        {u"tool_choice"_s, u"auto"_s},
        {u"tools"_s, QJsonArray()},
        {u"top_p"_s, 1},
        {u"truncation"_s, u"disabled"_s},
        {u"usage"_s, m_usage ? QJsonValue(usageJson()) : QJsonValue()},
        {u"metadata"_s, m_params.metadata},
    };
}

QJsonArray SimRun::inputItems() const
{
    QJsonArray items;
    if (m_params.input.isString()) {
        items.append(QJsonObject{
            {u"id"_s, QString(u"msg_in_"_s + m_id.mid(5))},
            {u"type"_s, u"message"_s},
            {u"role"_s, u"user"_s},
            {u"status"_s, u"completed"_s},
            {u"content"_s,
             QJsonArray{QJsonObject{{u"type"_s, u"input_text"_s}, {u"text"_s, m_params.input.toString()}}}},
        });
        return items;
    }
    int index = 0;
    const QJsonArray input = m_params.input.toArray();
    for (const QJsonValue &value : input) {
        QJsonObject item = value.toObject();
        if (!item.contains("id"_L1)) {
            item.insert("id"_L1, u"item_in_%1_%2"_s.arg(m_id.mid(5)).arg(index));
        }
        items.append(item);
        ++index;
    }
    return items;
}

QString SimRun::outputText() const
{
    QString text;
    for (const Item &item : m_items) {
        if (item.kind == Item::Kind::Message && item.partAdded) {
            text += item.text;
        }
    }
    return text;
}

QString SimRun::reasoningText() const
{
    QString text;
    for (const Item &item : m_items) {
        if (item.kind == Item::Kind::Reasoning) {
            text += item.text;
        }
    }
    return text;
}

QString SimRun::functionArguments() const
{
    QString text;
    for (const Item &item : m_items) {
        if (item.kind == Item::Kind::FunctionCall) {
            text += item.text;
        }
    }
    return text;
}

} // namespace RunwatchSim
