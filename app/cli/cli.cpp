// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli.h"
#include "cli_p.h"
#include "clilog.h"

#include "backends/registry.h"
#include "connections/connectionoptions.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSocketNotifier>
#include <QTimer>

#include <algorithm>
#include <csignal>

#ifdef Q_OS_UNIX
#include <unistd.h>
#endif

using namespace Qt::StringLiterals;

namespace Runwatch::Cli {

Q_LOGGING_CATEGORY(lcCli, "runwatch.cli", QtInfoMsg)

namespace {

// Translated as a whole (human-readable; the option names and exit codes inside stay as they are).
constexpr auto kUsageHead
    = QT_TRANSLATE_NOOP("Runwatch::Cli::CliApp", R"(Usage: runwatch-cli [GLOBAL OPTIONS] COMMAND [ARGS]

Global options (before the command):
)");

// After the connectors' list (each connector's row, see helpText()).
constexpr auto kUsageConnection = QT_TRANSLATE_NOOP(
    "Runwatch::Cli::CliApp", R"(  --url URL           base URL of the service (e.g. https://api.openai.com/v1)
  --connection NAME   a connection saved in the app's Connections dialog, instead of
                      --backend/--url/--auth and the connection options: its backend, URL, auth
                      style, options and API key (from the OS keychain, or the plain file if you
                      opted in)
  --api-key-env VAR   environment variable holding the API key; overrides a saved key
                      (without --connection the default is RUNWATCH_API_KEY, then the
                      connector's own variable, e.g. OPENAI_API_KEY)
  --auth STYLE        how the key goes out: bearer (default; Authorization: Bearer KEY),
                      header:NAME (NAME: KEY, e.g. header:api-key for Azure OpenAI,
                      header:x-api-key, header:x-goog-api-key), or none
  --store PATH|URL    run store: a file, or postgresql://user@host:port/database for a team's
                      (default: $RUNWATCH_STORE or the platform data directory); the password
                      comes from libpq's PGPASSWORD, ~/.pgpass or service file, never the URL
Connection options (give them on every command; [names]: only those connectors'):
)");

// Translated as a whole (human-readable; the option names and exit codes inside stay as they are).
constexpr auto kUsage = QT_TRANSLATE_NOOP("Runwatch::Cli::CliApp", R"(  --json              JSON Lines output
  --allow-insecure-http  permit plain http:// to a non-loopback host
  --version           print the version

Commands:
  start --prompt TEXT [--input JSON] [--model M] [--agent ID] [--conversation new|ID]
        [--no-stream] [--follow [--give-up-after DURATION]]
        [--deadline DURATION [--cancel-at-deadline]]
                      (--agent: the agent to run, for services that run agents; --conversation:
                      the run is a turn of the service's conversation, a new one or the one
                      named, and its follow-ups go there too, for services with conversations;
                      --deadline: a time budget such as 45m or 2h, warned before, cancelled at the
                      end when asked; --input: structured input, where the backend takes it (see
                      "Backends" below). The prompt titles the run)
  followup RUN --prompt TEXT [--follow [--give-up-after DURATION]]
                      the next turn after a completed run, as the backend continues a
                      conversation (see "Backends"): a run of its own, printed like start's;
                      status shows its parent
  watch RUN [--give-up-after DURATION]
                      primary text to stdout as it arrives, secondary output to stderr;
                      resumes after drops; exits at a terminal state or when input is required.
                      Trouble that waiting can cure never ends following ("[reconnecting]
                      next try in N s"); --give-up-after (90s, 5m, 1h; also for resume and
                      attach) stops after that long without progress, exit 1
  status RUN          refreshes and prints the run
  cancel RUN [--stop-watching-after DURATION]
                      cancels and waits (bounded) until the run is terminal; with
                      --stop-watching-after (30s, 5m): when the service has not confirmed the
                      cancel by then, stops watching the run, which ends stopped_watching with
                      what the server last said in its timeline (exit 1)
  delete RUN [--local]  deletes on the server (when supported) and locally
  list [--all] [--stuck] [--search QUERY]
                      active runs (--all: every stored run; --stuck: only the live runs
                      without progress for several times their expected duration, shown
                      as "stuck" where the status would be; --search: only the runs whose
                      title, prompt, answer, reasoning, tool calls or error hold every word
                      and "exact phrase" of QUERY, newest first, each with the part that
                      matched; filters status:S backend:B connection:C model:M since:7d
                      until:2026-11-01, commas for several, word* for a prefix)
  list --remote       the service's own list of runs, incl. ones started elsewhere: remote
                      id, status, title
  attach REMOTE-ID    adopts a run started elsewhere by its remote id and watches it
  agent               what the service says about itself (e.g. an agent card)
  agents              the service's agents (id, name, model), where it runs agents
  respond RUN (--text T | --approve | --reject [--comment C] | --choice C |
               --value JSON | --output CALL_ID=TEXT ...)
                      --value: a typed answer to a form (the run's JSON Schema), checked
                      before it is sent; a mistake names the field, exit 2. --output: a tool
                      call's output (see "Backends")
  respond RUN RUN... (--approve | --reject [--comment C] | --text T | --choice C)
                      the same answer to each run, each its own request: runs waiting for
                      an approval, or for the same question; one line per run (--json:
                      {"type":"respond","run":ID,"ok":…,"error":…}); a run the answer does
                      not fit is one such line. Exit 0 when every run took it, else 1
  resume              reattaches every unfinished run in the store and follows them all
  export RUN [--format md|json] [--output FILE]   prompt, history, output, secondary, error
  prune --older-than DAYS   removes finished runs that ended more than DAYS days ago
  connections         the saved connections: name, backend, auth style, URL, where the key
                      is kept
  deadline RUN (--in DURATION [--cancel] | --clear)
                      the run's time budget from now (90s, 45m, 2h, 1h30m); --cancel: cancel
                      it at the deadline (done by whoever follows it: the app, watch)
  stuck-rule [--factor N] [--floor DURATION]
                      when a live run counts as stuck (app, list, status): no progress for
                      N × its expected duration (default 3), never under the floor (2m);
                      without options prints the rule
)");

// After the connectors' notes on the commands (each connector's row, see helpText()).
constexpr auto kUsageTail = QT_TRANSLATE_NOOP("Runwatch::Cli::CliApp", R"(
RUN is the local or the remote id. A stored run started on a saved connection goes through it
again (its options and key) unless --url/--backend are given. API keys never come from the
command line: from the environment, or from a saved connection's keychain entry. A key the app
kept "for this session only" lives in the app's memory and cannot reach this process.
Exit codes: 0 completed, 1 other error, 2 usage, 3 failed/expired/rejected/timed out/incomplete,
4 cancelled, 5 waiting for input, 6 still running (status only).
)");

} // namespace

int exitCodeFor(RunStatus status)
{
    if (status == RunStatus::Completed || status == RunStatus::Deleted)
        return ExitCompleted;
    if (status == RunStatus::Cancelled)
        return ExitCancelled;
    if (status == RunStatus::InputRequired)
        return ExitInputRequired;
    if (isFailureLike(status))
        return ExitFailed;
    if (!isTerminal(status))
        return ExitStillRunning;
    return ExitOtherError;
}

CliApp::CliApp(FILE *out, FILE *err, QObject *parent)
    : QObject(parent)
    , m_out(out)
    , m_err(err)
{
    m_manager.setStore(&m_store);
    m_flushTimer.setSingleShot(true);
    m_flushTimer.setInterval(16);
    m_flushTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_flushTimer, &QTimer::timeout, this, &CliApp::flushOut);
    // The engine's following policy as it is: a watcher never abandons a run that may still be
    // live because the network is bad (`--give-up-after` bounds it for scripts).
    connect(&m_manager, &RunManager::runEventsApplied, this,
            [this](const QString &id, const QList<RunEvent> &events) {
                if (const Run *run = m_manager.run(id); run && m_printEvents)
                    printEvents(*run, events);
            });
    connect(&m_manager, &RunManager::runChanged, this, [this](const QString &id, RunChanges changes) {
        const Run *run = m_manager.run(id);
        if (run && changes.testFlag(RunChange::Status) && m_printEvents)
            printReconnecting(*run);
    });
}

int CliApp::usage(const QString &message)
{
    if (!message.isEmpty())
        writeErr(u"runwatch-cli: "_s + message + u"\n\n"_s);
    writeErr(helpText());
    return ExitUsage;
}

QString CliApp::helpText()
{
    // Lines of the connectors' part: "  FLAG VALUE" padded to the help column, the help wrapped.
    constexpr qsizetype kColumn = 22;
    constexpr qsizetype kWidth = 96;
    auto entry = [](const QString &head, const QString &help) -> QString {
        QString out = u"  "_s + head;
        out += out.size() + 1 < kColumn ? QString(kColumn - out.size(), u' ')
                                        : u"\n"_s + QString(kColumn, u' ');
        qsizetype lineStart = out.size() - kColumn;
        const QStringList words = help.split(u' ', Qt::SkipEmptyParts);
        for (qsizetype i = 0; i < words.size(); ++i) {
            if (i > 0) {
                if (out.size() - lineStart + 1 + words.at(i).size() > kWidth) {
                    out += u"\n"_s + QString(kColumn, u' ');
                    lineStart = out.size() - kColumn;
                } else {
                    out += u' ';
                }
            }
            out += words.at(i);
        }
        return out + u'\n';
    };
    QString text = CliApp::tr(kUsageHead);
    text += entry(u"--backend NAME"_s,
                  CliApp::tr("connector for --url (default: %1):").arg(defaultConnector().name));
    for (const ConnectorDescriptor &row : connectors()) {
        text += entry(QString(),
                      CliApp::tr("%1: %2; --url is %3")
                          .arg(row.name, connectorText(row.displayName), connectorText(row.urlHelp)));
    }
    text += CliApp::tr(kUsageConnection);
    // Each flag once: the common options, then each connector's (a flag two connectors share, such
    // as --api-version, names both).
    QStringList flags;
    QMap<QString, QStringList> usedBy;
    QMap<QString, const ConnectorOption *> options;
    for (const ConnectorOption &option : commonConnectionOptions()) {
        flags << option.cliFlag;
        options.insert(option.cliFlag, &option);
    }
    for (const ConnectorDescriptor &row : connectors()) {
        for (const ConnectorOption &option : row.options) {
            if (!options.contains(option.cliFlag)) {
                flags << option.cliFlag;
                options.insert(option.cliFlag, &option);
            }
            usedBy[option.cliFlag] << row.name;
        }
    }
    for (const QString &flag : std::as_const(flags)) {
        const ConnectorOption *option = options.value(flag);
        const QStringList names = usedBy.value(flag);
        const QString help = connectorText(option->help);
        text += entry(flag + u' ' + option->cliValue,
                      names.isEmpty() ? help : u"[%1] %2"_s.arg(names.join(u", "_s), help));
    }
    text += CliApp::tr(kUsage);
    text += CliApp::tr("Backends (how each takes the commands):\n");
    for (const ConnectorDescriptor &row : connectors()) {
        if (row.cliNotes)
            text += entry(row.name, connectorText(row.cliNotes));
    }
    return text + CliApp::tr(kUsageTail);
}

namespace {
volatile std::sig_atomic_t g_interruptedBy = 0;
#ifdef Q_OS_UNIX
int g_interruptPipe[2] = {-1, -1};

void onInterrupt(int signal)
{
    // Async-signal-safe only: note it and wake the event loop through the pipe.
    g_interruptedBy = signal;
    const char byte = 1;
    [[maybe_unused]] const auto written = ::write(g_interruptPipe[1], &byte, 1);
}
#endif
} // namespace

int interruptedBy()
{
    return g_interruptedBy;
}

void installInterruptHandler(QObject *owner)
{
#ifdef Q_OS_UNIX
    if (g_interruptPipe[0] >= 0 || ::pipe(g_interruptPipe) != 0)
        return;
    auto *notifier = new QSocketNotifier(g_interruptPipe[0], QSocketNotifier::Read, owner);
    QObject::connect(notifier, &QSocketNotifier::activated, owner, [] {
        char byte = 0;
        [[maybe_unused]] const auto got = ::read(g_interruptPipe[0], &byte, 1);
    });
    struct sigaction action = {};
    action.sa_handler = onInterrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    ::sigaction(SIGINT, &action, nullptr);
    ::sigaction(SIGTERM, &action, nullptr);
#else
    Q_UNUSED(owner)
#endif
}

int CliApp::run(const QStringList &args)
{
    // Ctrl-C and a TERM end the command's waits; run() then saves what was received (the store
    // flushed, the run's remote id included) and exits 128 + the signal, as a shell expects.
    installInterruptHandler(this);
    Options o;
    int i = 0;
    auto takeValue = [&](const QString &name, QString *target) {
        if (i + 1 >= args.size())
            return false;
        *target = args.at(++i);
        Q_UNUSED(name)
        return true;
    };
    for (; i < args.size(); ++i) {
        const QString &a = args.at(i);
        if (!a.startsWith(u"--"_s))
            break;
        bool ok = true;
        if (a == u"--backend") {
            ok = takeValue(a, &o.backend);
        } else if (a == u"--url") {
            ok = takeValue(a, &o.url);
        } else if (a == u"--connection") {
            ok = takeValue(a, &o.connection);
        } else if (a == u"--api-key-env") {
            ok = takeValue(a, &o.apiKeyEnv);
        } else if (a == u"--auth") {
            ok = takeValue(a, &o.auth);
        } else if (a == u"--store") {
            ok = takeValue(a, &o.store);
        } else if (a == u"--json") {
            m_json = true;
        } else if (const ConnectorOption *option = anyConnectionOption(a)) {
            QString value;
            ok = takeValue(a, &value);
            // Absolute: the connection may outlive the working directory it was given in.
            if (ok && option->kind == ConnectorOption::Kind::File)
                value = QFileInfo(value).absoluteFilePath();
            o.connectionOptions.insert(QString(option->key), {a, value});
        } else if (a == u"--allow-insecure-http") {
            o.allowInsecure = true;
        } else if (a == u"--help" || a == u"-h") {
            return usage({}), ExitCompleted;
        } else if (a == u"--version") {
            return writeOut(u"runwatch-cli "_s + QStringLiteral(RUNWATCH_VERSION_STRING) + u'\n'),
                   ExitCompleted;
        } else if (a == u"--api-key") {
            return usage(CliApp::tr("API keys are read from the environment only (use --api-key-env VAR)."));
        } else {
            return usage(CliApp::tr("unknown option %1").arg(a));
        }
        if (!ok)
            return usage(u"%1 needs a value"_s.arg(a));
    }
    if (i >= args.size())
        return usage(CliApp::tr("no command given"));
    const QString command = args.at(i);
    const QStringList rest = args.mid(i + 1);
    // A token command may stand in for a saved connection's one (for this command only).
    const bool savedOptionsGiven
        = std::any_of(o.connectionOptions.keyBegin(), o.connectionOptions.keyEnd(),
                      [](const QString &key) { return key != ConnectionOption::TokenCommand; });
    if (!o.connection.isEmpty()
        && (!o.backend.isEmpty() || !o.url.isEmpty() || !o.auth.isEmpty() || savedOptionsGiven)) {
        return usage(
            u"--connection %1 brings its own backend, URL, auth style and options: leave out "
            "--backend, --url, --auth and the connection options (but --token-command)"_s.arg(o.connection));
    }
    if (!o.auth.isEmpty()) {
        AuthStyle style = AuthStyle::Bearer;
        QString header;
        if (!authStyleFromName(o.auth, &style, &header)
            || (style == AuthStyle::Header && !isHeaderName(header))) {
            return usage(
                CliApp::tr("--auth takes bearer, header:NAME (a header name such as x-api-key) or none, "
                           "not \"%1\"")
                    .arg(o.auth));
        }
    }
    if (!o.backend.isEmpty() && !connector(o.backend)) {
        return usage(
            CliApp::tr("unknown backend \"%1\" (known: %2)").arg(o.backend, knownBackends().join(u", "_s)));
    }
    const QStringList backendOptions = connectionOptionsFor(o.backend);
    for (auto it = o.connectionOptions.cbegin(); it != o.connectionOptions.cend(); ++it) {
        const auto &[flag, value] = it.value();
        if (!o.backend.isEmpty() && !backendOptions.contains(it.key()))
            return usage(CliApp::tr("%1 is not an option of the %2 backend").arg(flag, o.backend));
        // A file is read once up front so that a broken one stops the command before anything is
        // sent, naming the file and the bad key.
        const ConnectorOption *option = anyConnectionOption(it.key());
        if (option->readsFile && option->validate) {
            if (const QString problem = option->validate(value); !problem.isEmpty()) {
                writeErr(u"runwatch-cli: "_s + problem + u'\n');
                return ExitOtherError;
            }
        }
    }
    if (!setUpStore(o))
        return ExitOtherError;

    const int code = runCommand(command, o, rest);
    // End what the command leaves in flight (the stream of a run that now waits for input, a
    // request it stopped waiting for) while the engine is whole: the process then exits with
    // every coroutine unwound, none suspended (LeakSanitizer gates this in CI).
    m_manager.shutdown();
    flushOut();
    int result = interruptedBy() != 0 ? 128 + interruptedBy() : code;
    if (m_store.isOpen()) {
        m_store.flush();
        if (const QString error = m_store.writeError(); !error.isEmpty()) {
            // The store is where the next command and the app find the run: a state that did
            // not reach it is a failed command (what was printed above was received).
            writeErr(CliApp::tr("runwatch-cli: the run store %1 could not be written: %2; the run's latest "
                                "state is not saved\n")
                         .arg(m_store.path(), error));
            result = result == ExitCompleted ? int(ExitOtherError) : result;
        }
    }
    if (!m_outError.isEmpty()) {
        // Output that did not arrive (a full disk, a closed pipe) is a failed command, whatever
        // the run did: a script must not take a truncated answer for the whole one.
        writeErr(CliApp::tr("runwatch-cli: cannot write the output: %1\n").arg(m_outError));
        return result == ExitCompleted ? int(ExitOtherError) : result;
    }
    return result;
}

std::optional<std::chrono::milliseconds> parseDuration(const QString &text)
{
    static const std::pair<QStringView, double> units[]
        = {{u"ms", 1.0}, {u"s", 1000.0}, {u"m", 60000.0}, {u"h", 3600000.0}};
    QStringView number(text);
    double scale = 1000.0; // a bare number is seconds
    for (const auto &[suffix, ms] : units) {
        // "ms" before "s" and "m": the first suffix that fits wins.
        if (number.endsWith(suffix)) {
            number.chop(suffix.size());
            scale = ms;
            break;
        }
    }
    bool ok = false;
    const double value = number.toDouble(&ok);
    if (!ok || !(value > 0) || value * scale > 1e12)
        return std::nullopt;
    return std::chrono::milliseconds(std::max<qint64>(1, qint64(value * scale)));
}

int CliApp::runCommand(const QString &command, const Options &o, const QStringList &given)
{
    qCDebug(lcCli) << "command" << command << "connection" << o.connection << "backend" << o.backend;
    QStringList rest = given;
    if (const qsizetype at = rest.indexOf(u"--give-up-after"_s); at >= 0) {
        const bool follows
            = command == u"watch" || command == u"resume" || command == u"attach"
              || ((command == u"start" || command == u"followup") && rest.contains(u"--follow"_s));
        if (!follows) {
            return usage(CliApp::tr(
                "--give-up-after is for watch, resume, attach, start --follow and followup --follow"));
        }
        const auto bound = at + 1 < rest.size() ? parseDuration(rest.at(at + 1)) : std::nullopt;
        if (!bound)
            return usage(CliApp::tr("--give-up-after needs a duration such as 90s, 5m or 1h"));
        FollowPolicy policy = m_manager.followPolicy();
        policy.giveUpAfter = *bound;
        m_manager.setFollowPolicy(policy);
        rest.remove(at, 2);
    }
    if (command == u"start")
        return cmdStart(o, rest);
    if (command == u"followup")
        return cmdFollowUp(o, rest);
    if (command == u"watch")
        return cmdWatch(o, rest);
    if (command == u"status")
        return cmdStatus(o, rest);
    if (command == u"cancel")
        return cmdCancel(o, rest);
    if (command == u"delete")
        return cmdDelete(o, rest);
    if (command == u"list")
        return cmdList(o, rest);
    if (command == u"attach")
        return cmdAttach(o, rest);
    if (command == u"agent" || command == u"describe")
        return cmdAgent(o, rest);
    if (command == u"agents")
        return cmdAgents(o, rest);
    if (command == u"respond")
        return cmdRespond(o, rest);
    if (command == u"resume")
        return cmdResume(o, rest);
    if (command == u"export")
        return cmdExport(o, rest);
    if (command == u"prune")
        return cmdPrune(o, rest);
    if (command == u"connections")
        return cmdConnections(o, rest);
    if (command == u"deadline")
        return cmdDeadline(o, rest);
    if (command == u"stuck-rule")
        return cmdStuckRule(rest);
    return usage(CliApp::tr("unknown command \"%1\"").arg(command));
}

bool CliApp::setUpStore(const Options &o)
{
    const QString path = o.store.isEmpty() ? RunStore::defaultPath() : o.store;
    if (!m_store.open(path)) {
        writeErr(u"runwatch-cli: "_s + m_store.errorString() + u'\n');
        return false;
    }
    return true;
}

const Run *CliApp::loadRun(const Options &o, const QString &idOrRemote, QString *error)
{
    const std::optional<Run> stored = m_store.findRun(idOrRemote);
    if (!stored) {
        *error = CliApp::tr("no run \"%1\" in the store %2").arg(idOrRemote, m_store.path());
        return nullptr;
    }
    const auto conn = connectionFor(o, &*stored, error);
    if (!conn)
        return nullptr;
    if (!m_manager.addConnection(*conn, error))
        return nullptr;
    Run run = *stored;
    run.connection = conn->name;
    m_manager.adoptRun(run, false);
    const Run *adopted = m_manager.run(run.localId);
    // The stored text is what the user has (watch prints it first): print only what follows.
    if (adopted)
        setPrinted(*adopted);
    return adopted;
}

} // namespace Runwatch::Cli
