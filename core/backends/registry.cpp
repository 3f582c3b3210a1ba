// SPDX-License-Identifier: GPL-3.0-or-later
#include "registry.h"

#include "a2a/a2abackend.h"
#include "foundry/foundrybackend.h"
#include "jobs/jobsbackend.h"
#include "openai/openaibackend.h"

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
struct Entry
{
    QLatin1StringView name;
    RunBackend *(*create)(const Connection &, QObject *);
};

template<typename T>
RunBackend *make(const Connection &connection, QObject *parent)
{
    return new T(connection, parent);
}

// One line per connector.
constexpr Entry kBackends[] = {
    {"openai"_L1, &make<OpenAiBackend>},
    {"jobs"_L1, &make<JobsBackend>},
    {"a2a"_L1, &make<A2aBackend>},
    {"foundry"_L1, &make<FoundryBackend>},
};
} // namespace

RunBackend *createBackend(const Connection &connection, QObject *parent)
{
    for (const Entry &entry : kBackends) {
        if (connection.backend == entry.name)
            return entry.create(connection, parent);
    }
    return nullptr;
}

QStringList knownBackends()
{
    QStringList names;
    for (const Entry &entry : kBackends)
        names << entry.name;
    return names;
}

} // namespace Runwatch
