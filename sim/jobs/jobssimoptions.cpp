// SPDX-License-Identifier: GPL-3.0-or-later
#include "jobssimoptions.h"

#include "server/simnames.h"

#include <QHash>
#include <QRegularExpression>

#include <type_traits>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

const std::array kScenarios{
    std::pair{JobsScenario::Normal, "normal"_L1},    std::pair{JobsScenario::Quick, "quick"_L1},
    std::pair{JobsScenario::Fail, "fail"_L1},        std::pair{JobsScenario::Timeout, "timeout"_L1},
    std::pair{JobsScenario::AskUser, "ask_user"_L1}, std::pair{JobsScenario::Approval, "approval"_L1},
    std::pair{JobsScenario::TwoStep, "two_step"_L1}, std::pair{JobsScenario::Options, "options"_L1},
    std::pair{JobsScenario::Webhook, "webhook"_L1},  std::pair{JobsScenario::Timer, "timer"_L1},
    std::pair{JobsScenario::Large, "large"_L1},      std::pair{JobsScenario::Unknown, "unknown"_L1},
    std::pair{JobsScenario::Long, "long"_L1},        std::pair{JobsScenario::Form, "form"_L1},
};

QString metadataText(const QJsonValue &v)
{
    if (v.isString())
        return v.toString();
    if (v.isDouble())
        return QString::number(v.toDouble(), 'g', 15);
    if (v.isBool())
        return v.toBool() ? u"1"_s : u"0"_s;
    return {};
}

} // namespace

QString jobsScenarioName(JobsScenario scenario)
{
    return nameOfValue(kScenarios, scenario, u"normal"_s);
}

std::optional<JobsScenario> jobsScenarioFromName(QStringView name)
{
    // "Two-step:" at the start of a prompt reads better than "two_step"; both name the scenario.
    return valueOfName(kScenarios, name.toString().replace(u'-', u'_'));
}

QStringList jobsScenarioNames()
{
    return namesOf(kScenarios);
}

std::optional<JobsRunOptions> resolveRunOptions(const JobsSimConfig &config, const QString &input,
                                                const QJsonObject &metadata, QString *error)
{
    JobsRunOptions o;
    o.deltas = config.deltas;
    o.intervalMs = config.intervalMs;
    o.queuedMs = config.queuedMs;
    o.timeoutSeconds = config.timeoutSeconds;
    o.events = config.offerEvents;
    o.retryAfter = config.pollRetryAfter;
    o.cancelDelayMs = config.cancelDelayMs;
    o.streamFaults = config.streamFaults;

    // key=value words of the input, then metadata over them.
    QHash<QString, QString> values;
    const QStringList words = input.split(QRegularExpression(u"\\s+"_s), Qt::SkipEmptyParts);
    for (const QString &word : words) {
        const qsizetype eq = word.indexOf(u'=');
        if (eq > 0)
            values.insert(word.left(eq), word.mid(eq + 1));
    }
    for (auto it = metadata.constBegin(); it != metadata.constEnd(); ++it) {
        const QString text = metadataText(it.value());
        if (!text.isEmpty() || it.value().isString())
            values.insert(it.key(), text);
    }

    QString scenario = values.value(u"scenario"_s);
    if (scenario.isEmpty() && !words.isEmpty() && !words.first().contains(u'=')) {
        QString first = words.first();
        while (!first.isEmpty() && (first.endsWith(u':') || first.endsWith(u',') || first.endsWith(u'.')))
            first.chop(1);
        if (jobsScenarioFromName(first))
            scenario = first;
    }
    if (!scenario.isEmpty()) {
        const auto s = jobsScenarioFromName(scenario);
        if (!s) {
            *error = u"metadata.scenario: unknown scenario \"%1\" (known: %2)"_s.arg(
                scenario, jobsScenarioNames().join(u", "_s));
            return std::nullopt;
        }
        o.scenario = *s;
    }
    if (o.scenario == JobsScenario::Long)
        o.deltas = config.longDeltas;

    bool ok = true;
    const auto integer = [&](const char *key, qint64 min, qint64 max, auto *target) {
        const QString name = QString::fromLatin1(key);
        if (!ok || !values.contains(name))
            return;
        bool parsed = false;
        const qint64 v = values.value(name).toLongLong(&parsed);
        if (!parsed || v < min || v > max) {
            ok = false;
            *error = u"metadata.%1: expected an integer from %2 to %3"_s.arg(name).arg(min).arg(max);
            return;
        }
        *target = static_cast<std::remove_pointer_t<decltype(target)>>(v);
    };
    int retryable = o.retryable ? 1 : 0;
    int cancelIgnore = o.cancelIgnored ? 1 : 0;
    int events = o.events ? 1 : 0;
    qint64 timeoutSeconds = qint64(o.timeoutSeconds);
    integer("deltas", 0, 10000000, &o.deltas);
    integer("interval_ms", 0, 3600000, &o.intervalMs);
    integer("queued_ms", 0, 3600000, &o.queuedMs);
    integer("fail_after", 0, 10000000, &o.failAfter);
    integer("retryable", 0, 1, &retryable);
    integer("timeout_ms", 0, 86400000, &o.timeoutMs);
    integer("timeout_seconds", 0, 86400 * 365, &timeoutSeconds);
    integer("timer_ms", 0, 86400000, &o.timerMs);
    integer("webhook_ms", 0, 86400000, &o.webhookMs);
    integer("cancel_delay_ms", 0, 3600000, &o.cancelDelayMs);
    integer("cancel_ignore", 0, 1, &cancelIgnore);
    integer("input_fault", 0, 599, &o.inputFaultStatus);
    integer("input_reply_delay_ms", 0, 60000, &o.inputReplyDelayMs);
    integer("events", 0, 1, &events);
    integer("large_bytes", 0, qint64(256) << 20, &o.largeBytes);
    integer("unknown_ms", 0, 3600000, &o.unknownMs);
    integer("sync_status", 200, 201, &o.syncStatus);
    integer("drop_after", -1, 10000000, &o.streamFaults.dropAfterEvents);
    integer("fault_connections", -1, 1000000, &o.streamFaults.connections);
    integer("malformed_at", -1, 10000000, &o.streamFaults.malformedAt);
    integer("drip_ms", 0, 60000, &o.streamFaults.dripIntervalMs);
    if (!ok)
        return std::nullopt;
    o.retryable = retryable != 0;
    o.cancelIgnored = cancelIgnore != 0;
    o.events = events != 0;
    o.timeoutSeconds = double(timeoutSeconds);
    if (values.contains(u"drop_mode"_s)) {
        const auto mode = dropModeFromName(values.value(u"drop_mode"_s));
        if (!mode) {
            *error = u"metadata.drop_mode: expected close, reset or mid"_s;
            return std::nullopt;
        }
        o.streamFaults.dropMode = *mode;
    }
    if (values.contains(u"retry_after"_s)) {
        const QString ra = values.value(u"retry_after"_s);
        static const QRegularExpression valid(u"^(none|\\d+(\\.\\d+)?|date:\\d+)$"_s);
        if (!valid.match(ra).hasMatch()) {
            *error = u"metadata.retry_after: expected seconds, date:N or none"_s;
            return std::nullopt;
        }
        o.retryAfter = ra == u"none" ? QByteArray() : ra.toLatin1();
    }
    o.reply = values.value(u"reply"_s);
    return o;
}

QString jobsOptionsHelpText()
{
    return u"Jobs simulator (--jobs): base URL http://HOST:PORT/api\n"
           u"  POST /api/jobs, GET /api/jobs[?status=&idempotency_key=&limit=&cursor=],\n"
           u"  GET /api/jobs/{id}, GET /api/jobs/{id}/events, DELETE /api/jobs/{id} or\n"
           u"  POST /api/jobs/{id}:cancel, POST /api/jobs/{id}/input, GET /api/jobs/{id}/result,\n"
           u"  POST /api/hooks/{id}/{token}.\n"
           u"Scenarios (metadata \"scenario\" or the first word of the input): "_s
           + jobsScenarioNames().join(u", "_s)
           + u".\nPer-job options (metadata strings or key=value words in the input): deltas, interval_ms,\n"
             u"  queued_ms, fail_after, retryable, timeout_ms, timeout_seconds, timer_ms, webhook_ms,\n"
             u"  cancel_delay_ms, cancel_ignore, input_fault (STATUS), input_reply_delay_ms, events,\n"
             u"  retry_after (N | date:N | none), "
             u"large_bytes, unknown_ms,\n"
             u"  sync_status, reply, drop_after, drop_mode, fault_connections, malformed_at, drip_ms.\n"_s;
}

} // namespace RunwatchSim
