// SPDX-License-Identifier: GPL-3.0-or-later
#include "openaisimconfig.h"

#include "server/simnames.h"

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

const std::array kEndpoints{
    std::pair{OpenAiEndpoint::Create, "create"_L1},
    std::pair{OpenAiEndpoint::Retrieve, "get"_L1},
    std::pair{OpenAiEndpoint::Stream, "stream"_L1},
    std::pair{OpenAiEndpoint::Cancel, "cancel"_L1},
    std::pair{OpenAiEndpoint::Delete, "delete"_L1},
    std::pair{OpenAiEndpoint::InputItems, "input_items"_L1},
    std::pair{OpenAiEndpoint::Models, "models"_L1},
    std::pair{OpenAiEndpoint::Agents, "agents"_L1},
    std::pair{OpenAiEndpoint::ConversationCreate, "conversation_create"_L1},
    std::pair{OpenAiEndpoint::ConversationGet, "conversation_get"_L1},
    std::pair{OpenAiEndpoint::ConversationDelete, "conversation_delete"_L1},
    std::pair{OpenAiEndpoint::ConversationItems, "conversation_items"_L1},
    std::pair{OpenAiEndpoint::Unknown, "unknown"_L1},
};

const std::array kFaultBodies{
    std::pair{OpenAiFaultBody::Error, "error"_L1},
    std::pair{OpenAiFaultBody::Html, "html"_L1},
    std::pair{OpenAiFaultBody::Empty, "empty"_L1},
};

const std::array kCancelModes{
    std::pair{OpenAiCancelMode::FailedEvent, "failed_event"_L1},
    std::pair{OpenAiCancelMode::Close, "close"_L1},
    std::pair{OpenAiCancelMode::Flip, "flip"_L1},
};

} // namespace

QString openAiEndpointName(OpenAiEndpoint endpoint)
{
    return nameOfValue(kEndpoints, endpoint);
}

std::optional<OpenAiEndpoint> openAiEndpointFromName(QStringView name)
{
    return valueOfName(kEndpoints, name);
}

std::optional<QSet<OpenAiEndpoint>> openAiEndpointsFromList(QStringView list)
{
    QSet<OpenAiEndpoint> result;
    const QString normalised = list.toString().replace(u'+', u',');
    for (const QString &part : normalised.split(u',', Qt::SkipEmptyParts)) {
        const QString name = part.trimmed();
        if (name.compare("any"_L1, Qt::CaseInsensitive) == 0
            || name.compare("all"_L1, Qt::CaseInsensitive) == 0)
            return QSet<OpenAiEndpoint>();
        const auto endpoint = openAiEndpointFromName(name);
        if (!endpoint)
            return std::nullopt;
        result.insert(*endpoint);
    }
    return result;
}

std::optional<OpenAiFaultBody> openAiFaultBodyFromName(QStringView name)
{
    // Case matters here, as it always did for these values.
    return valueOfName(kFaultBodies, name, Qt::CaseSensitive);
}

std::optional<OpenAiHttpFault> openAiHttpFaultFromSpec(QStringView spec, QString *error)
{
    OpenAiHttpFault fault;
    const auto fail = [error](const QString &message) -> std::optional<OpenAiHttpFault> {
        if (error)
            *error = message;
        return std::nullopt;
    };
    for (const QStringView item : spec.split(u',', Qt::SkipEmptyParts)) {
        // "on=create,get" would be split here, so lists inside a spec use '+'.
        const qsizetype eq = item.indexOf(u'=');
        if (eq <= 0)
            return fail(u"expected key=value, got \"%1\""_s.arg(item));
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
            const auto endpoints = openAiEndpointsFromList(value);
            ok = endpoints.has_value();
            if (ok)
                fault.endpoints = *endpoints;
        } else if (key == "retry-after"_L1 || key == "retry_after"_L1) {
            fault.retryAfterSeconds = value.toInt(&ok);
            ok = ok && fault.retryAfterSeconds >= -1;
        } else if (key == "retry-after-ms"_L1 || key == "retry_after_ms"_L1) {
            fault.retryAfterMs = value.toInt(&ok);
            ok = ok && fault.retryAfterMs >= -1;
        } else if (key == "body"_L1) {
            const auto body = openAiFaultBodyFromName(value);
            ok = body.has_value();
            if (ok)
                fault.body = *body;
        } else {
            return fail(u"unknown key \"%1\""_s.arg(key));
        }
        if (!ok)
            return fail(u"bad value for \"%1\": \"%2\""_s.arg(key, value));
    }
    return fault;
}

QString openAiCancelModeName(OpenAiCancelMode mode)
{
    return nameOfValue(kCancelModes, mode);
}

std::optional<OpenAiCancelMode> openAiCancelModeFromName(QStringView name)
{
    return valueOfName(kCancelModes, name);
}

std::optional<OpenAiSimAgent> openAiAgentFromSpec(QStringView spec, QString *error)
{
    OpenAiSimAgent agent;
    const auto fail = [error](const QString &message) -> std::optional<OpenAiSimAgent> {
        if (error)
            *error = message;
        return std::nullopt;
    };
    for (const QStringView item : spec.split(u',', Qt::SkipEmptyParts)) {
        const qsizetype eq = item.indexOf(u'=');
        if (eq <= 0)
            return fail(u"expected key=value, got \"%1\""_s.arg(item));
        const QString key = item.left(eq).trimmed().toString().toLower();
        const QString value = item.mid(eq + 1).trimmed().toString();
        if (key == "name"_L1) {
            // The name is a path segment of the agent's id and of "<name>:<version>".
            if (value.isEmpty() || value.contains(u'/') || value.contains(u':'))
                return fail(u"bad value for \"name\": \"%1\""_s.arg(value));
            agent.name = value;
        } else if (key == "version"_L1) {
            bool ok = false;
            agent.version = value.toInt(&ok);
            if (!ok || agent.version < 1 || agent.version > 1000)
                return fail(u"bad value for \"version\": \"%1\" (1 to 1000)"_s.arg(value));
        } else if (key == "model"_L1) {
            agent.model = value;
        } else if (key == "description"_L1) {
            agent.description = value;
        } else if (key == "instructions"_L1) {
            agent.instructions = value;
        } else if (key == "refuses"_L1) {
            for (const QStringView what : QStringView(value).split(u'+', Qt::SkipEmptyParts)) {
                if (what == "background"_L1) {
                    agent.refusesBackground = true;
                } else if (what == "stream"_L1) {
                    agent.refusesStream = true;
                } else {
                    return fail(
                        u"bad value for \"refuses\": \"%1\" (background, stream, or both joined by '+')"_s
                            .arg(value));
                }
            }
        } else {
            return fail(u"unknown key \"%1\""_s.arg(key));
        }
    }
    if (agent.name.isEmpty())
        return fail(u"name=NAME is required"_s);
    return agent;
}

} // namespace RunwatchSim
