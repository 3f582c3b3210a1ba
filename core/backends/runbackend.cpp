// SPDX-License-Identifier: GPL-3.0-or-later
#include "runbackend.h"

#include <QCoreApplication>
#include <QJsonArray>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "RunBackend".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(RunBackend)
};
} // namespace

void RunStream::finish(StreamEnd end)
{
    if (m_finished)
        return;
    m_finished = true;
    Q_EMIT finished(end);
}

QJsonObject ConnectionInfo::toJson() const
{
    QJsonObject o{{u"name"_s, name},
                  {u"description"_s, description},
                  {u"version"_s, version},
                  {u"protocol"_s, protocol},
                  {u"url"_s, url},
                  {u"skills"_s, QJsonArray::fromStringList(skills)},
                  {u"capabilities"_s, QJsonArray::fromStringList(capabilities)},
                  {u"warnings"_s, QJsonArray::fromStringList(warnings)}};
    if (error.isError())
        o.insert(u"error"_s, error.toJson());
    return o;
}

RunStream *RunBackend::followUp(ContinuationToken parentToken, StartRequest request, QObject *parent)
{
    Q_UNUSED(parentToken)
    Q_UNUSED(request)
    Q_UNUSED(parent)
    return nullptr;
}

QCoro::Task<ActionResult> RunBackend::forceCancel(ContinuationToken token)
{
    Q_UNUSED(token)
    ActionResult result;
    result.error = RunError::unsupported(Text::tr("This connection has no stronger cancel."));
    co_return result;
}

QCoro::Task<ActionResult> RunBackend::followUp(ContinuationToken token, QString prompt)
{
    Q_UNUSED(token)
    Q_UNUSED(prompt)
    ActionResult result;
    result.error
        = RunError::unsupported(Text::tr("This connection cannot send a follow-up to a working run."));
    co_return result;
}

QCoro::Task<> RunBackend::shutdown()
{
    co_return;
}

QCoro::Task<ConnectionInfo> RunBackend::describe()
{
    ConnectionInfo info;
    info.name = kind();
    info.protocol = kind();
    const Capabilities caps = capabilities();
    const std::pair<Capability, QString> names[] = {
        {Capability::Start, u"start"_s},
        {Capability::Get, u"get"_s},
        {Capability::Stream, u"stream"_s},
        {Capability::ResumeStream, u"resume stream"_s},
        {Capability::Cancel, u"cancel"_s},
        {Capability::Delete, u"delete on the server"_s},
        {Capability::Respond, u"respond"_s},
        {Capability::List, u"list remote runs"_s},
        {Capability::FollowUp, u"follow up"_s},
        {Capability::FollowUpWorking, u"follow up a working run"_s},
        {Capability::StructuredInput, u"structured input"_s},
        {Capability::Catalog, u"list agents"_s},
        {Capability::Conversations, u"conversations"_s},
    };
    for (const auto &[flag, name] : names) {
        if (caps.testFlag(flag))
            info.capabilities << name;
    }
    co_return info;
}

QCoro::Task<CatalogResult> RunBackend::catalog()
{
    co_return CatalogResult{};
}

QCoro::Task<ConnectionProbe> RunBackend::probe()
{
    const QPointer<RunBackend> self(this);
    ConnectionProbe probe;
    probe.info = co_await describe();
    if (!self) {
        probe.error = RunError::cancelled();
        co_return probe;
    }
    if (!probe.info.ok()) {
        probe.error = probe.info.error;
        co_return probe;
    }
    if (probe.info.name != kind() || !probe.info.skills.isEmpty()) {
        probe.ok = true;
        probe.kind = ConnectionProbe::Kind::Described;
        co_return probe;
    }
    const ListResult listed = co_await list();
    probe.ok = !listed.error.isError();
    probe.kind = probe.ok ? ConnectionProbe::Kind::Listed : ConnectionProbe::Kind::Failed;
    probe.runsListed = int(listed.runs.size());
    probe.error = listed.error;
    co_return probe;
}

} // namespace Runwatch
