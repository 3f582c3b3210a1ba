// SPDX-License-Identifier: GPL-3.0-or-later
#include "backends/registry.h"

#include "a2a/a2aconnector.h"
#include "claudeagents/claudeagentsconnector.h"
#include "domain/timebudget.h"
#include "foundry/foundryconnector.h"
#include "gemini/geminiconnector.h"
#include "jobs/jobsconnector.h"
#include "langgraph/langgraphconnector.h"
#include "mcp/mcpconnector.h"
#include "net/transportoptions.h"
#include "openai/openaiconnector.h"
#include "openaiagents/openaiagentsconnector.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QProcess>
#include <QSslCertificate>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

// One row per connector, in the order the front ends list them; the first is the default.
QList<ConnectorDescriptor> &rows()
{
    static QList<ConnectorDescriptor> list{
        openAiConnector(),  jobsConnector(),         a2aConnector(),
        foundryConnector(), langGraphConnector(),    geminiConnector(),
        mcpConnector(),     claudeAgentsConnector(), openAiAgentsConnector(),
    };
    return list;
}

QString problem(const char *text)
{
    return QCoreApplication::translate("ConnectionOptions", text);
}

QString validateCaBundle(const QString &bundle)
{
    if (!QFileInfo(bundle).isReadable())
        return problem(QT_TRANSLATE_NOOP("ConnectionOptions", "Cannot read %1.")).arg(bundle);
    if (QSslCertificate::fromPath(bundle, QSsl::Pem).isEmpty())
        return problem(QT_TRANSLATE_NOOP("ConnectionOptions", "No PEM certificate in %1.")).arg(bundle);
    return {};
}

QString validateProxy(const QString &proxy)
{
    if (!proxyFromUrl(QUrl(proxy))) {
        return problem(QT_TRANSLATE_NOOP("ConnectionOptions",
                                         "A proxy is given as http://host:port or socks5://host:port."));
    }
    return {};
}

QString validateTimeBudget(const QString &budget)
{
    if (!parseTimeBudgetMs(budget)) {
        return problem(QT_TRANSLATE_NOOP(
            "ConnectionOptions", "A time budget is given as 90s, 45m, 2h, 1h30m or 1d (a year at most)."));
    }
    return {};
}

QString validateCommand(const QString &command)
{
    // QProcess::splitCommand() would take an unclosed quote to the end of the line.
    if (command.count(u'"') % 2 != 0 || QProcess::splitCommand(command).isEmpty())
        return problem(QT_TRANSLATE_NOOP("ConnectionOptions", "Unbalanced quotes in the command."));
    return {};
}

} // namespace

QString connectorText(const char *text)
{
    return text ? QCoreApplication::translate("Runwatch::Connector", text) : QString();
}

const QList<ConnectorDescriptor> &connectors()
{
    return rows();
}

const ConnectorDescriptor *connector(const QString &name)
{
    for (const ConnectorDescriptor &row : rows()) {
        if (row.name == name)
            return &row;
    }
    return nullptr;
}

const ConnectorDescriptor &defaultConnector()
{
    return rows().constFirst();
}

QStringList knownBackends()
{
    QStringList names;
    for (const ConnectorDescriptor &row : rows())
        names << row.name;
    return names;
}

void registerConnector(ConnectorDescriptor descriptor)
{
    for (ConnectorDescriptor &row : rows()) {
        if (row.name == descriptor.name) {
            row = std::move(descriptor);
            return;
        }
    }
    rows().append(std::move(descriptor));
}

const QList<ConnectorOption> &commonConnectionOptions()
{
    using Kind = ConnectorOption::Kind;
    static const QList<ConnectorOption> options{
        {ConnectionOption::TokenCommand, "--token-command"_L1, "CMD"_L1, Kind::Command,
         QT_TRANSLATE_NOOP("Runwatch::Connector", "Token &command:"),
         QT_TRANSLATE_NOOP("Runwatch::Connector", "a command that prints an access token"),
         QT_TRANSLATE_NOOP("Runwatch::Connector",
                           "Prints an access token (Microsoft Entra ID, OAuth, …), sent instead of a key "
                           "in the connection's auth style. Run when there is no token, near its expiry and "
                           "after a 401, without Runwatch's and other services' API keys in its "
                           "environment; its output is never shown, logged or stored."),
         &validateCommand},
        {ConnectionOption::CaBundle, "--ca-bundle"_L1, "FILE"_L1, Kind::File,
         QT_TRANSLATE_NOOP("Runwatch::Connector", "CA bund&le:"),
         QT_TRANSLATE_NOOP("Runwatch::Connector", "/path/to/ca.pem (optional)"),
         QT_TRANSLATE_NOOP("Runwatch::Connector",
                           "PEM certificates trusted besides the system's, e.g. a company CA."),
         &validateCaBundle},
        {ConnectionOption::Proxy, "--proxy"_L1, "URL"_L1, Kind::Text,
         QT_TRANSLATE_NOOP("Runwatch::Connector", "Pro&xy:"),
         QT_TRANSLATE_NOOP("Runwatch::Connector", "http://host:port or socks5://host:port (optional)"),
         QT_TRANSLATE_NOOP("Runwatch::Connector",
                           "Every request of this connection goes through this proxy. A password in it "
                           "(socks5://user:password@host:port) is kept in the system keychain, not in the "
                           "saved connection."),
         &validateProxy},
        {ConnectionOption::DefaultTimeBudget, "--default-time-budget"_L1, "DURATION"_L1, Kind::Text,
         QT_TRANSLATE_NOOP("Runwatch::Connector", "Default time &budget:"),
         QT_TRANSLATE_NOOP("Runwatch::Connector", "e.g. 2h (optional)"),
         QT_TRANSLATE_NOOP("Runwatch::Connector",
                           "Runs started on this connection get this deadline: a warning before it, \"over "
                           "deadline\" after it. Set Deadline… changes it per run and can cancel at the "
                           "deadline."),
         &validateTimeBudget},
    };
    return options;
}

QList<ConnectorOption> connectionOptions(const QString &backend)
{
    const ConnectorDescriptor *row = connector(backend);
    if (!row)
        return {};
    return row->options + commonConnectionOptions();
}

const ConnectorOption *anyConnectionOption(QStringView keyOrFlag)
{
    for (const ConnectorOption &option : commonConnectionOptions()) {
        if (option.key == keyOrFlag || option.cliFlag == keyOrFlag)
            return &option;
    }
    for (const ConnectorDescriptor &row : rows()) {
        for (const ConnectorOption &option : row.options) {
            if (option.key == keyOrFlag || option.cliFlag == keyOrFlag)
                return &option;
        }
    }
    return nullptr;
}

RunBackend *createBackend(const Connection &connection, QObject *parent)
{
    const ConnectorDescriptor *row = connector(connection.backend);
    return row && row->create ? row->create(connection, parent) : nullptr;
}

} // namespace Runwatch
