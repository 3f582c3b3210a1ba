// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// How a simulator reads a run's options from what a client sent: a leading scenario word of the
// prompt ("Fail: …"), `key=value` words anywhere in it, then the request's metadata over both.
// Shared by the simulators whose scenarios are chosen that way (OpenAI, Foundry).

#include "simfaults.h"

#include <QHash>
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>
#include <type_traits>

namespace RunwatchSim {

// A rejected option: which key, and the message the simulator answers with (HTTP 400).
struct SimOptionError
{
    QString key;
    QString message;
};

class SimOptionValues
{
public:
    using ScenarioCheck = bool (*)(QStringView name);

    // Only `keys` are taken; `isScenario` tells whether the prompt's first word names a scenario.
    SimOptionValues(const QString &prompt, const QJsonObject &metadata, const QStringList &keys,
                    ScenarioCheck isScenario);

    bool contains(const QString &key) const { return m_raw.contains(key); }
    QString value(const QString &key) const { return m_raw.value(key); }

    static SimOptionError bad(const QString &key, const QString &why);

    // Each leaves `target` alone when the key is absent, and says why a present value is bad.
    template<typename T>
    std::optional<SimOptionError> integer(const QString &key, qint64 min, qint64 max, T *target) const
    {
        const std::optional<qint64> value = integerValue(key, min, max);
        if (!value)
            return contains(key) ? std::optional(outOfRange(key, min, max)) : std::nullopt;
        *target = static_cast<T>(*value);
        return std::nullopt;
    }
    std::optional<SimOptionError> boolean(const QString &key, bool *target) const;
    // line_ending=lf|crlf|cr (any case), the SSE line ending, into `lineEnding`.
    std::optional<SimOptionError> lineEnding(QByteArray *lineEnding) const;
    // The stream-fault words every simulator reads the same way: fault_connections, drop_after,
    // malformed_at, drip_ms, drop_mode (close|reset|mid), into `faults`.
    std::optional<SimOptionError> streamFaults(StreamFaults *faults) const;

private:
    std::optional<qint64> integerValue(const QString &key, qint64 min, qint64 max) const;
    static SimOptionError outOfRange(const QString &key, qint64 min, qint64 max);

    QHash<QString, QString> m_raw;
};

} // namespace RunwatchSim
