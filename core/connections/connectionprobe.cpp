// SPDX-License-Identifier: GPL-3.0-or-later
#include "connections/connectionprobe.h"

#include "backends/openai/openaibackend.h"
#include "backends/registry.h"
#include "net/httpclient.h"

#include <QScopedPointer>

#include <chrono>
#include <memory>

using namespace Qt::StringLiterals;

namespace Runwatch {

QCoro::Task<ConnectionProbe> probeConnection(Connection connection)
{
    ConnectionProbe probe;
    // Deleted later, never under a coroutine of its own that may still be unwinding.
    const std::unique_ptr<RunBackend, QScopedPointerDeleteLater> backend(createBackend(connection, nullptr));
    if (!backend) {
        probe.kind = ConnectionProbe::Kind::UnknownBackend;
        co_return probe;
    }
    // The OpenAI connector describes itself only by its kind, and the Responses API lists no
    // runs: its model list is the one cheap authenticated request. (A probe of its own on the
    // RunBackend seam would let this rule go.)
    if (auto *openai = qobject_cast<OpenAiBackend *>(backend.get())) {
        RetryPolicy policy = openai->httpClient()->policy();
        policy.maxRetries = 0;
        policy.connectTimeout = std::chrono::milliseconds(8000);
        openai->httpClient()->setPolicy(policy);
        const HttpResponse r = co_await openai->httpClient()->send(openai->request("GET", u"/models"_s));
        probe.ok = r.ok();
        probe.kind = probe.ok ? ConnectionProbe::Kind::Models : ConnectionProbe::Kind::Failed;
        probe.httpStatus = r.status;
        probe.error = r.error;
        co_return probe;
    }
    probe.info = co_await backend->describe();
    if (!probe.info.ok()) {
        probe.error = probe.info.error;
        co_return probe;
    }
    if (probe.info.name != backend->kind() || !probe.info.skills.isEmpty()) {
        probe.ok = true;
        probe.kind = ConnectionProbe::Kind::Described;
        co_return probe;
    }
    const ListResult listed = co_await backend->list();
    probe.ok = !listed.error.isError();
    probe.kind = probe.ok ? ConnectionProbe::Kind::Listed : ConnectionProbe::Kind::Failed;
    probe.runsListed = int(listed.runs.size());
    probe.error = listed.error;
    co_return probe;
}

} // namespace Runwatch
