// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Payload shapes of the Foundry Agent Service on the wire (protocol §5): agents, threads, lists,
// the error body. The run, step and message shapes are FoundrySimRun members (foundrysimwire.cpp).

#include "foundrysimconfig.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QString>

namespace RunwatchSim {

QJsonObject foundryAgentJson(const FoundrySimAgent &agent, qint64 createdAt);
QJsonObject foundryThreadJson(const QString &id, qint64 createdAt);
// {object:"list", data, first_id, last_id, has_more}
QJsonObject foundryListJson(const QJsonArray &data, bool hasMore);
// {"error":{"code","message","type","param"}}
QJsonObject foundryErrorJson(const QString &code, const QString &message);

} // namespace RunwatchSim
