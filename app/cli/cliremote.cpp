// SPDX-License-Identifier: GPL-3.0-or-later
// The CLI's commands that ask the service rather than the store: its own run list, attaching
// to a run started elsewhere, and what the service says about itself.
#include "cli.h"
#include "cli_p.h"

#include "backends/registry.h"

#include <QCoroTask>
#include <QJsonArray>

using namespace Qt::StringLiterals;

namespace Runwatch::Cli {

namespace {

constexpr int kAttachTimeoutMs = 60000;

} // namespace

int CliApp::cmdListRemote(const Options &o)
{
    int exitCode = ExitOtherError;
    const auto conn = addCommandConnection(o, &exitCode);
    if (!conn)
        return exitCode;
    RunBackend *backend = m_manager.backend(conn->name);
    if (!backend->capabilities().testFlag(Capability::List)) {
        writeErr(CliApp::tr("runwatch-cli: the %1 connection cannot list the service's runs\n")
                     .arg(conn->backend));
        return ExitOtherError;
    }
    const ListResult listed = QCoro::waitFor(backend->list());
    if (listed.error.isError()) {
        printError(QString(), listed.error);
        return ExitOtherError;
    }
    for (const RemoteRunInfo &info : listed.runs) {
        // Runs this store already follows say so: `attach` would only watch them again.
        const std::optional<Run> local = m_store.findRun(info.remoteId);
        const QString localId = local && local->remoteId == info.remoteId ? local->localId : QString();
        if (m_json) {
            writeJson({{u"type"_s, u"remote_run"_s},
                       {u"remote_id"_s, info.remoteId},
                       {u"status"_s, statusName(info.status)},
                       {u"raw"_s, info.rawStatus},
                       {u"title"_s, info.title},
                       {u"created_at"_s, info.createdAt.toString(Qt::ISODateWithMs)},
                       {u"run"_s, localId}});
        } else {
            writeOut(u"%1  %2  %3%4\n"_s.arg(
                info.remoteId, statusName(info.status).leftJustified(14), info.title,
                localId.isEmpty() ? QString() : CliApp::tr("  (local run %1)").arg(localId)));
        }
    }
    if (listed.runs.isEmpty())
        printNote(CliApp::tr("the service lists no runs"));
    return ExitCompleted;
}

int CliApp::cmdAttach(const Options &o, const QStringList &args)
{
    if (args.size() != 1 || args.first().startsWith(u"--"_s))
        return usage(CliApp::tr("attach needs exactly one REMOTE-ID"));
    const QString &remoteId = args.first();
    if (const std::optional<Run> stored = m_store.findRun(remoteId); stored && stored->remoteId == remoteId) {
        printNote(CliApp::tr("run %1 already follows %2; watching it").arg(stored->localId, remoteId));
        return cmdWatch(o, {stored->localId});
    }
    int exitCode = ExitOtherError;
    const auto conn = addCommandConnection(o, &exitCode);
    if (!conn)
        return exitCode;
    // The run line goes out before the run's first events (printEvents announces it).
    m_announceStarts = true;
    QString id;
    std::optional<ActionResult> outcome;
    auto c = connect(&m_manager, &RunManager::actionFinished, this,
                     [&](const QString &rid, RunManager::Action action, const ActionResult &r) {
                         if (action == RunManager::Action::Refresh && (id.isEmpty() || rid == id))
                             outcome = r;
                     });
    id = m_manager.attachRemoteRun(conn->name, remoteId);
    if (id.isEmpty()) {
        disconnect(c);
        writeErr(CliApp::tr("runwatch-cli: cannot attach to \"%1\"\n").arg(remoteId));
        return ExitOtherError;
    }
    spinUntil([&] { return outcome.has_value(); }, kAttachTimeoutMs);
    disconnect(c);
    m_store.flush();
    if (!outcome || !outcome->ok()) {
        RunError e = outcome ? outcome->error : RunError{};
        if (!outcome) {
            e.kind = ErrorKind::Timeout;
            e.message = CliApp::tr("The service did not answer in time.");
        }
        e.message = CliApp::tr("Cannot attach to %1: %2").arg(remoteId, e.message);
        printError(id, e);
        return ExitOtherError;
    }
    const Run *run = m_manager.run(id);
    if (!run)
        return ExitOtherError;
    if (!m_announced.contains(id)) {
        m_announced.insert(id);
        printRunLine(*run);
    }
    return followToEnd(id);
}

int CliApp::cmdAgent(const Options &o, const QStringList &args)
{
    if (!args.isEmpty())
        return usage(CliApp::tr("agent takes no arguments"));
    int exitCode = ExitOtherError;
    const auto conn = addCommandConnection(o, &exitCode);
    if (!conn)
        return exitCode;
    const ConnectionInfo info = QCoro::waitFor(m_manager.backend(conn->name)->describe());
    if (!info.ok()) {
        printError(QString(), info.error);
        return ExitOtherError;
    }
    if (m_json) {
        QJsonObject o2 = info.toJson();
        o2.insert(u"type"_s, u"agent"_s);
        writeJson(o2);
        return ExitCompleted;
    }
    QString text;
    const auto line = [&](const QString &label, const QString &value) {
        if (!value.isEmpty())
            text += label + u": "_s + value + u'\n';
    };
    const auto list = [&](const QString &label, const QStringList &items) {
        if (items.isEmpty())
            return;
        text += label + u":\n"_s;
        for (const QString &item : items)
            text += u"  - "_s + item + u'\n';
    };
    line(u"Name"_s, info.name);
    line(u"Description"_s, info.description);
    line(u"Version"_s, info.version);
    line(u"Protocol"_s, info.protocol);
    line(u"URL"_s, info.url);
    list(u"Capabilities"_s, info.capabilities);
    list(u"Skills"_s, info.skills);
    list(u"Warnings"_s, info.warnings);
    writeOut(text);
    return ExitCompleted;
}

int CliApp::cmdAgents(const Options &o, const QStringList &args)
{
    if (!args.isEmpty())
        return usage(CliApp::tr("agents takes no arguments"));
    int exitCode = ExitOtherError;
    const auto conn = addCommandConnection(o, &exitCode);
    if (!conn)
        return exitCode;
    RunBackend *backend = m_manager.backend(conn->name);
    if (!backend || !backend->capabilities().testFlag(Capability::Catalog)) {
        QStringList withAgents;
        for (const ConnectorDescriptor &row : connectors()) {
            if (row.needsAgent)
                withAgents << row.name;
        }
        return usage(CliApp::tr("agents lists a service's agents: %1 lists none (use --backend %2)")
                         .arg(conn->backend, withAgents.join(u'|')));
    }
    const CatalogResult list = QCoro::waitFor(backend->catalog());
    if (list.error.isError()) {
        printError(QString(), list.error);
        return ExitOtherError;
    }
    for (const CatalogEntry &agent : list.entries) {
        if (m_json) {
            // A model the service offers beside its agents (Gemini's) is one by its type.
            QJsonObject line{{u"type"_s, agent.model ? u"model"_s : u"agent"_s},
                             {u"id"_s, agent.id},
                             {u"name"_s, agent.name}};
            if (!agent.model)
                line.insert(u"model"_s, agent.detail);
            if (!agent.version.isEmpty())
                line.insert(u"version"_s, agent.version);
            if (!agent.description.isEmpty())
                line.insert(u"description"_s, agent.description);
            for (auto it = agent.cliFields.constBegin(); it != agent.cliFields.constEnd(); ++it) {
                if (!line.contains(it.key()))
                    line.insert(it.key(), it.value());
            }
            writeJson(line);
        } else {
            writeOut(agent.id + u'\t' + agent.name + u'\t' + agent.detail + u'\n');
        }
    }
    return ExitCompleted;
}

} // namespace Runwatch::Cli
