// SPDX-License-Identifier: GPL-3.0-or-later
#include "simconfig.h"

#include <array>
#include <utility>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

template<typename Enum, std::size_t N>
std::optional<Enum> lookup(const std::array<std::pair<Enum, QLatin1StringView>, N> &table, QStringView name)
{
    for (const auto &[value, text] : table) {
        if (name.compare(text, Qt::CaseInsensitive) == 0) {
            return value;
        }
    }
    return std::nullopt;
}

template<typename Enum, std::size_t N>
QString nameOf(const std::array<std::pair<Enum, QLatin1StringView>, N> &table, Enum value)
{
    for (const auto &[v, text] : table) {
        if (v == value) {
            return QString(text);
        }
    }
    return QString();
}

const std::array kScenarios{
    std::pair{Scenario::Normal, "normal"_L1},
    std::pair{Scenario::Fail, "fail"_L1},
    std::pair{Scenario::Incomplete, "incomplete"_L1},
    std::pair{Scenario::Long, "long"_L1},
    std::pair{Scenario::Huge, "huge"_L1},
    std::pair{Scenario::Reasoning, "reasoning"_L1},
    std::pair{Scenario::ToolCall, "tool_call"_L1},
    std::pair{Scenario::Error, "error"_L1},
};

const std::array kEndpoints{
    std::pair{Endpoint::Create, "create"_L1}, std::pair{Endpoint::Retrieve, "get"_L1},
    std::pair{Endpoint::Stream, "stream"_L1}, std::pair{Endpoint::Cancel, "cancel"_L1},
    std::pair{Endpoint::Delete, "delete"_L1}, std::pair{Endpoint::InputItems, "input_items"_L1},
    std::pair{Endpoint::Models, "models"_L1}, std::pair{Endpoint::Unknown, "unknown"_L1},
};

const std::array kDropModes{
    std::pair{DropMode::Close, "close"_L1},
    std::pair{DropMode::Reset, "reset"_L1},
    std::pair{DropMode::MidEvent, "mid"_L1},
};

const std::array kCancelModes{
    std::pair{CancelMode::FailedEvent, "failed_event"_L1},
    std::pair{CancelMode::Close, "close"_L1},
    std::pair{CancelMode::Flip, "flip"_L1},
};

} // namespace

QString scenarioName(Scenario scenario)
{
    return nameOf(kScenarios, scenario);
}

std::optional<Scenario> scenarioFromName(QStringView name)
{
    return lookup(kScenarios, name);
}

QStringList scenarioNames()
{
    QStringList names;
    for (const auto &entry : kScenarios) {
        names.append(QString(entry.second));
    }
    return names;
}

QString endpointName(Endpoint endpoint)
{
    return nameOf(kEndpoints, endpoint);
}

std::optional<Endpoint> endpointFromName(QStringView name)
{
    return lookup(kEndpoints, name);
}

std::optional<QSet<Endpoint>> endpointsFromList(QStringView list)
{
    QSet<Endpoint> result;
    const QString normalised = list.toString().replace(u'+', u',');
    for (const QString &part : normalised.split(u',', Qt::SkipEmptyParts)) {
        const QString name = part.trimmed();
        if (name.compare("any"_L1, Qt::CaseInsensitive) == 0
            || name.compare("all"_L1, Qt::CaseInsensitive) == 0) {
            return QSet<Endpoint>();
        }
        const auto endpoint = endpointFromName(name);
        if (!endpoint) {
            return std::nullopt;
        }
        result.insert(*endpoint);
    }
    return result;
}

std::optional<HttpFault> httpFaultFromSpec(QStringView spec, QString *error)
{
    HttpFault fault;
    const auto fail = [error](const QString &message) -> std::optional<HttpFault> {
        if (error) {
            *error = message;
        }
        return std::nullopt;
    };
    for (const QStringView item : spec.split(u',', Qt::SkipEmptyParts)) {
        // "on=create,get" would be split here, so lists inside a spec use '+'.
        const qsizetype eq = item.indexOf(u'=');
        if (eq <= 0) {
            return fail(u"expected key=value, got \"%1\""_s.arg(item));
        }
        const QString key = item.left(eq).trimmed().toString().toLower();
        const QStringView value = item.mid(eq + 1).trimmed();
        bool ok = true;
        if (key == "status"_L1) {
            fault.status = value.toInt(&ok);
            ok = ok && fault.status >= 100 && fault.status <= 599;
        } else if (key == "count"_L1) {
            fault.count = value.toInt(&ok);
            ok = ok && fault.count >= -1;
        } else if (key == "on"_L1) {
            const auto endpoints = endpointsFromList(value);
            ok = endpoints.has_value();
            if (ok) {
                fault.endpoints = *endpoints;
            }
        } else if (key == "retry-after"_L1 || key == "retry_after"_L1) {
            fault.retryAfterSeconds = value.toInt(&ok);
            ok = ok && fault.retryAfterSeconds >= -1;
        } else if (key == "retry-after-ms"_L1 || key == "retry_after_ms"_L1) {
            fault.retryAfterMs = value.toInt(&ok);
            ok = ok && fault.retryAfterMs >= -1;
        } else if (key == "body"_L1) {
            if (value == "error"_L1) {
                fault.body = FaultBody::OpenAIError;
            } else if (value == "html"_L1) {
                fault.body = FaultBody::Html;
            } else if (value == "empty"_L1) {
                fault.body = FaultBody::Empty;
            } else {
                ok = false;
            }
        } else {
            return fail(u"unknown key \"%1\""_s.arg(key));
        }
        if (!ok) {
            return fail(u"bad value for \"%1\": \"%2\""_s.arg(key, value));
        }
    }
    return fault;
}

QString dropModeName(DropMode mode)
{
    return nameOf(kDropModes, mode);
}

std::optional<DropMode> dropModeFromName(QStringView name)
{
    return lookup(kDropModes, name);
}

QString cancelModeName(CancelMode mode)
{
    return nameOf(kCancelModes, mode);
}

std::optional<CancelMode> cancelModeFromName(QStringView name)
{
    return lookup(kCancelModes, name);
}

QString optionsHelpText()
{
    return uR"(Scenarios (metadata "scenario", else the first word of the input text):
  normal      created, queued, in_progress, message item, N text deltas "tok<i> ", done events,
              response.completed with usage (default)
  fail        response.failed (error.code "server_error") after fail_after deltas
  incomplete  response.incomplete, incomplete_details.reason "max_output_tokens"
  long        very many deltas (100000 by default), for cancel tests
  huge        one single delta of huge_bytes bytes
  reasoning   reasoning summary item + function_call item, then the message
  tool_call   only a function_call item, then completed (continue with previous_response_id)
  error       a nested `event: error` after fail_after deltas, then the stream closes

Per-response options: metadata string values, or key=value words in the input text:
  scenario deltas interval_ms queued_ms keepalives fail_after huge_bytes reply manual
  cancel_mode=failed_event|close|flip  send_done=1  resume_max_age_ms (0 = always refuse)
  stream faults: fault_connections drop_after drop_mode=close|reset|mid malformed_at
                 invalid_utf8_at endless_line_at drip_ms
  HTTP faults on this response: http_error_status http_error_count http_error_on=get+stream+...
                 retry_after retry_after_ms http_error_body=error|html|empty
  Endpoints: create get stream cancel delete input_items models (any = all)
Example: input "fail deltas=20 interval_ms=100", or metadata {"scenario":"long","drop_after":"5"}.
)"_s;
}

} // namespace RunwatchSim
