// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/connection.h"

#include <QJsonObject>
#include <QLatin1StringView>
#include <QList>
#include <QObject>
#include <QString>

namespace Runwatch {

class RunBackend;

// One option of a connection (a key of Connection::options) as the front ends offer it: the
// Connections dialog makes a form row of it, runwatch-cli a flag, and validateConnectionOptions()
// checks it. The texts are translated in the "Runwatch::Connector" context (connectorText()).
struct ConnectorOption
{
    enum class Kind {
        Text,    // one line of text
        File,    // a path: the dialog offers a file chooser, the CLI makes it absolute
        Command, // a command line (split like a shell's, without one)
    };
    QLatin1StringView key;     // in Connection::options
    QLatin1StringView cliFlag; // "--organization"
    QLatin1StringView cliValue;
    Kind kind = Kind::Text;
    const char *label = nullptr;       // "&Organization:" (with its mnemonic)
    const char *placeholder = nullptr; // an example value
    const char *help = nullptr;        // the field's tooltip and the CLI's help line
    // Problems of a non-empty value, in the operator's words; empty when it is fine. nullptr: any
    // text.
    QString (*validate)(const QString &value) = nullptr;
    // The value names a file the connector reads whole (a profile): runwatch-cli reads it before
    // the command, and a problem in it is an error of the command (exit 1), not of its usage.
    bool readsFile = false;
};

// How a run of a connector is shown in demo mode: the connection the demo adds for it (served
// by the connector's simulator) and the runs it starts there to show every state.
struct ConnectorDemo
{
    Q_GADGET
public:
    // The demo runs, in the order demo mode starts them (finished ones first).
    enum class Seed {
        Completed,
        Failed,
        Cancelled,
        Agent, // a run on one of the service's agents (DemoRun::agent), to its end
        // A managed agent session's turn that reasons, comments and answers, to its end (with usage)
        AgentTurn,
        // A managed agent session's turn that thinks and runs a tool of the service's, to its end
        AgentTools,
        Timer,
        Webhook,
        Options,
        Question,
        Approval,
        ToolOutput,
        Review, // several actions to approve or reject, one decision each
        Form,
        // A tool call run as a task that stops to ask for a typed form (an MCP elicitation)
        Elicitation,
        // A managed agent's tool call held until the operator confirms or denies it
        ToolConfirmation,
        // A managed agent's remote (MCP) tool call held for the operator's approval
        CallApproval,
        Streaming,
        // A long agent run, still working, that shows its thinking and tool activity as it goes
        Research
    };
    Q_ENUM(Seed)
    struct DemoRun
    {
        Seed seed;
        // The simulators pick a run's scenario from the first word of the prompt ("Fail", "Timer",
        // …; empty for the plain scenario): their vocabulary, so only the task is translated.
        QLatin1StringView keyword;
        const char *task;          // translated in the "Runwatch::DemoMode" context
        QLatin1StringView agent{}; // the service's agent it starts on (StartRequest::agent), if any
        QLatin1StringView input{}; // its structured input as JSON text (StartRequest::input), if any
    };
    const char *connectionName = nullptr; // translated in the "Runwatch::DemoMode" context
    // The demo connection's path on its simulator, where it is not the simulator's base (an
    // endpoint of the same simulator that also lists agents, say); empty: the base.
    QLatin1StringView urlPath{};
    QString defaultModel;
    QJsonObject (*options)() = nullptr; // the demo connection's options
    QList<DemoRun> runs;
};

// One connector: everything the product knows of it outside its own folder. Each folder under
// core/backends/ defines one (its <name>connector.cpp) and core/backends/registry.cpp lists it.
struct ConnectorDescriptor
{
    QLatin1StringView name;               // Connection::backend, runwatch-cli --backend
    const char *displayName = nullptr;    // "OpenAI Responses"
    const char *urlHelp = nullptr;        // what the connection's URL is, for the CLI's help
    const char *urlPlaceholder = nullptr; // an example of it (not translated)
    QLatin1StringView defaultUrl;         // a new connection's URL, where the service has one
    QLatin1StringView apiKeyEnv;          // read for its key after RUNWATCH_API_KEY (CLI), if any
    // The header a new connection's key goes in ("X-Api-Key"); empty: Authorization: Bearer.
    QLatin1StringView defaultAuthHeader;
    QString defaultModel;           // a new run's model when neither it nor its connection names one
    QList<ConnectorOption> options; // its own options; the common ones are the registry's
    // A run is started on one of the service's agents (RunBackend::catalog() lists them): the CLI
    // and the New Run dialog ask for one, the connection's "agent" option being the default.
    bool needsAgent = false;
    // A run names a model (New Run's Model field); false where the service's runs have none (an
    // MCP tool's task): the field is not offered.
    bool takesModel = true;
    // How it takes runwatch-cli's commands where they differ by service (--input, followup,
    // respond, list --remote, agent), for the CLI's help; nullptr: nothing of note.
    const char *cliNotes = nullptr;
    RunBackend *(*create)(const Connection &connection, QObject *parent) = nullptr;
    ConnectorDemo demo; // demo.connectionName == nullptr: no demo connection
};

// The factory of a row whose connector is `Backend` (constructed from the connection).
template<typename Backend>
RunBackend *makeBackend(const Connection &connection, QObject *parent)
{
    return new Backend(connection, parent);
}

// A descriptor's or an option's text in the operator's language.
QString connectorText(const char *text);

} // namespace Runwatch
