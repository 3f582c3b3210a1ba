// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>

using namespace Qt::StringLiterals;

namespace Runwatch::Cli {

namespace {

constexpr auto kUsage = R"(Usage: runwatch-cli [GLOBAL OPTIONS] COMMAND [ARGS]

Global options (before the command):
  --backend NAME      connector for --url: openai
  --url URL           base URL of the service (e.g. https://api.openai.com/v1)
  --connection NAME   a saved connection instead of --backend/--url
  --api-key-env VAR   environment variable holding the API key
                      (default: RUNWATCH_API_KEY, then OPENAI_API_KEY for openai)
  --auth STYLE        bearer (default) or api-key (Azure OpenAI)
  --store PATH        run store (default: $RUNWATCH_STORE or the platform data directory)
  --json              JSON Lines output
  --allow-insecure-http  permit plain http:// to a non-loopback host

Commands:
  start --prompt TEXT [--model M] [--no-stream] [--follow]
  watch RUN           primary text to stdout as it arrives, secondary output to stderr;
                      resumes after drops; exits at a terminal state or when input is required
  status RUN          refreshes and prints the run
  cancel RUN          cancels and waits (bounded) until the run is terminal
  delete RUN [--local]  deletes on the server (when supported) and locally
  list [--all]        active runs (--all: every stored run)
  respond RUN (--text T | --approve | --reject [--comment C] | --choice C)

RUN is the local or the remote id. API keys are read from the environment only.
Exit codes: 0 completed, 1 other error, 2 usage, 3 failed/expired/rejected/timed out/incomplete,
4 cancelled, 5 waiting for input, 6 still running (status only).
)";

QJsonObject runObject(const Run &run)
{
    QJsonObject o;
    o.insert(u"type"_s, u"run"_s);
    o.insert(u"run"_s, run.localId);
    o.insert(u"remote_id"_s, run.remoteId);
    o.insert(u"backend"_s, run.backend);
    o.insert(u"status"_s, statusName(run.status));
    o.insert(u"title"_s, run.title);
    return o;
}

// Waits in a nested loop until `done()` holds or `timeoutMs` passes. Returns done().
template <typename Pred>
bool spinUntil(Pred done, int timeoutMs, QObject *wakeSource = nullptr)
{
    Q_UNUSED(wakeSource)
    QElapsedTimer clock;
    clock.start();
    while (!done()) {
        if (timeoutMs >= 0 && clock.elapsed() >= timeoutMs)
            return false;
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    }
    return true;
}

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

struct CliApp::Options
{
    QString backend;
    QString url;
    QString connection;
    QString apiKeyEnv;
    QString auth;
    QString store;
    bool allowInsecure = false;
};

CliApp::CliApp(FILE *out, FILE *err, QObject *parent)
    : QObject(parent)
    , m_out(out)
    , m_err(err)
{
    m_manager.setStore(&m_store);
    // A CLI must end: bound the reconnect attempts (a GUI keeps trying).
    FollowPolicy policy;
    policy.maxConsecutiveFailures = 8;
    policy.reconnectMax = std::chrono::milliseconds(5000);
    m_manager.setFollowPolicy(policy);
    connect(&m_manager, &RunManager::runEventsApplied, this, [this](const QString &id, const QList<RunEvent> &events) {
        if (const Run *run = m_manager.run(id))
            printEvents(*run, events);
    });
}

int CliApp::usage(const QString &message)
{
    if (!message.isEmpty())
        writeErr(u"runwatch-cli: "_s + message + u"\n\n"_s);
    writeErr(QString::fromUtf8(kUsage));
    return ExitUsage;
}

int CliApp::run(const QStringList &args)
{
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
        if (a == u"--backend")
            ok = takeValue(a, &o.backend);
        else if (a == u"--url")
            ok = takeValue(a, &o.url);
        else if (a == u"--connection")
            ok = takeValue(a, &o.connection);
        else if (a == u"--api-key-env")
            ok = takeValue(a, &o.apiKeyEnv);
        else if (a == u"--auth")
            ok = takeValue(a, &o.auth);
        else if (a == u"--store")
            ok = takeValue(a, &o.store);
        else if (a == u"--json")
            m_json = true;
        else if (a == u"--allow-insecure-http")
            o.allowInsecure = true;
        else if (a == u"--help" || a == u"-h")
            return usage({}), ExitCompleted;
        else if (a == u"--api-key")
            return usage(u"API keys are read from the environment only (use --api-key-env VAR)."_s);
        else
            return usage(u"unknown option %1"_s.arg(a));
        if (!ok)
            return usage(u"%1 needs a value"_s.arg(a));
    }
    if (i >= args.size())
        return usage(u"no command given"_s);
    const QString command = args.at(i);
    const QStringList rest = args.mid(i + 1);
    if (!o.backend.isEmpty() && !knownBackends().contains(o.backend))
        return usage(u"unknown backend \"%1\" (known: %2)"_s.arg(o.backend, knownBackends().join(u", "_s)));
    if (!setUpStore(o))
        return ExitOtherError;

    if (command == u"start")
        return cmdStart(o, rest);
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
    if (command == u"respond")
        return cmdRespond(o, rest);
    return usage(u"unknown command \"%1\""_s.arg(command));
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

QString CliApp::apiKeyFor(const Options &o, const QString &backend) const
{
    if (!o.apiKeyEnv.isEmpty())
        return qEnvironmentVariable(o.apiKeyEnv.toLocal8Bit().constData());
    QString key = qEnvironmentVariable("RUNWATCH_API_KEY");
    if (key.isEmpty() && backend == u"openai")
        key = qEnvironmentVariable("OPENAI_API_KEY");
    return key;
}

std::optional<Connection> CliApp::connectionFor(const Options &o, const Run *run, QString *error)
{
    Connection c;
    if (run) {
        c.name = run->connection;
        c.backend = run->backend;
        c.baseUrl = QUrl(run->baseUrl);
    }
    if (!o.connection.isEmpty())
        c.name = o.connection;
    if (!o.backend.isEmpty())
        c.backend = o.backend;
    if (!o.url.isEmpty())
        c.baseUrl = QUrl(o.url);
    if (c.backend.isEmpty() && !c.baseUrl.isEmpty())
        c.backend = u"openai"_s;
    if (c.name.isEmpty())
        c.name = c.baseUrl.isEmpty() ? c.backend : c.backend + u'@' + c.baseUrl.authority();
    if (c.baseUrl.isEmpty() || !c.baseUrl.isValid()) {
        *error = u"no service URL: give --url URL (and --backend) or --connection NAME"_s;
        return std::nullopt;
    }
    c.auth = o.auth == u"api-key" ? AuthStyle::ApiKeyHeader : AuthStyle::Bearer;
    c.apiKey = apiKeyFor(o, c.backend);
    if (c.apiKey.isEmpty())
        c.auth = AuthStyle::None;
    c.allowInsecureHttp = o.allowInsecure;
    return c;
}

const Run *CliApp::loadRun(const Options &o, const QString &idOrRemote, QString *error)
{
    const std::optional<Run> stored = m_store.findRun(idOrRemote);
    if (!stored) {
        *error = u"no run \"%1\" in the store %2"_s.arg(idOrRemote, m_store.path());
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
    return m_manager.run(run.localId);
}

int CliApp::cmdStart(const Options &o, const QStringList &args)
{
    QString prompt, model;
    bool stream = true, follow = false;
    for (int i = 0; i < args.size(); ++i) {
        const QString &a = args.at(i);
        if (a == u"--prompt" && i + 1 < args.size())
            prompt = args.at(++i);
        else if (a == u"--model" && i + 1 < args.size())
            model = args.at(++i);
        else if (a == u"--no-stream")
            stream = false;
        else if (a == u"--follow")
            follow = true;
        else
            return usage(u"start: unexpected argument %1"_s.arg(a));
    }
    if (prompt.isEmpty())
        return usage(u"start needs --prompt TEXT"_s);
    QString error;
    const auto conn = connectionFor(o, nullptr, &error);
    if (!conn)
        return usage(error);
    if (!m_manager.addConnection(*conn, &error)) {
        writeErr(u"runwatch-cli: "_s + error + u'\n');
        return ExitOtherError;
    }
    StartRequest request;
    request.prompt = prompt;
    request.model = model.isEmpty() ? u"gpt-5"_s : model;
    request.stream = stream;
    const QString id = m_manager.startRun(conn->name, request);

    if (follow) {
        // The run line goes out before any of the run's events (printEvents announces it).
        m_announceStarts = true;
        return followToEnd(id);
    }

    // Without --follow: stay until the server has the run past its first event. Dropping the
    // create stream at the very first event can strand a response in "queued" (protocol §2.3).
    const bool ready = spinUntil([&] {
        const Run *run = m_manager.run(id);
        return !run || run->isTerminal() || run->status == RunStatus::InputRequired
            || (!run->remoteId.isEmpty() && (run->token.sequence >= 1 || !stream))
            || !m_manager.isFollowing(id);
    }, 60000);
    const Run *run = m_manager.run(id);
    if (!run) {
        writeErr(u"runwatch-cli: the run disappeared\n"_s);
        return ExitOtherError;
    }
    if (run->remoteId.isEmpty()) {
        printError(id, run->error.isError() ? run->error : RunError{ErrorKind::Timeout, {}, u"The server did not acknowledge the run in time."_s, true, 0, {}});
        return ExitOtherError;
    }
    Q_UNUSED(ready)
    m_manager.stopFollowing(id);
    m_store.flush();
    printRunLine(*run);
    return ExitCompleted;
}

int CliApp::followToEnd(const QString &id)
{
    bool stopped = false;
    RunError stopError;
    auto c = connect(&m_manager, &RunManager::followingStopped, this, [&](const QString &rid, const RunError &e) {
        if (rid == id) {
            stopped = true;
            stopError = e;
        }
    });
    spinUntil([&] {
        const Run *run = m_manager.run(id);
        return !run || stopped || run->isTerminal() || run->status == RunStatus::InputRequired
            || (!m_manager.isFollowing(id) && run->remoteId.isEmpty());
    }, -1);
    disconnect(c);
    m_store.flush();
    const Run *run = m_manager.run(id);
    if (!run)
        return ExitOtherError;
    if (stopped && !run->isTerminal()) {
        printError(id, stopError);
        return ExitOtherError;
    }
    printEnd(*run);
    if (run->status == RunStatus::Failed && run->rawStatus == u"start_failed")
        return ExitOtherError;
    return exitCodeFor(run->status);
}

int CliApp::cmdWatch(const Options &o, const QStringList &args)
{
    if (args.size() != 1)
        return usage(u"watch needs exactly one RUN"_s);
    QString error;
    const Run *run = loadRun(o, args.first(), &error);
    if (!run) {
        writeErr(u"runwatch-cli: "_s + error + u'\n');
        return ExitOtherError;
    }
    const QString id = run->localId;
    if (m_json)
        writeJson(runObject(*run));
    // Output that earlier sessions already received comes from the store; the stream resumes
    // after it, so every byte is printed once.
    if (!run->primaryText.isEmpty()) {
        if (m_json) {
            QJsonObject d{{u"type"_s, u"delta"_s}, {u"run"_s, id}, {u"text"_s, run->primaryText}};
            writeJson(d);
        } else {
            writeOut(run->primaryText);
        }
    }
    if (run->isTerminal() || run->status == RunStatus::InputRequired) {
        printEnd(*run);
        return exitCodeFor(run->status);
    }
    m_manager.follow(id);
    return followToEnd(id);
}

int CliApp::cmdStatus(const Options &o, const QStringList &args)
{
    if (args.size() != 1)
        return usage(u"status needs exactly one RUN"_s);
    QString error;
    const Run *run = loadRun(o, args.first(), &error);
    if (!run) {
        writeErr(u"runwatch-cli: "_s + error + u'\n');
        return ExitOtherError;
    }
    const QString id = run->localId;
    bool done = false;
    ActionResult result;
    auto c = connect(&m_manager, &RunManager::actionFinished, this,
                     [&](const QString &rid, RunManager::Action, const ActionResult &r) {
                         if (rid == id) {
                             done = true;
                             result = r;
                         }
                     });
    // A refresh that fails (network down) still prints what the store knows.
    bool refreshed = false;
    if (!run->remoteId.isEmpty()) {
        auto c2 = connect(&m_manager, &RunManager::runChanged, this, [&](const QString &rid) {
            if (rid == id)
                refreshed = true;
        });
        m_manager.refreshRun(id);
        spinUntil([&] { return refreshed; }, 15000);
        disconnect(c2);
    }
    disconnect(c);
    Q_UNUSED(done)
    m_store.flush();
    run = m_manager.run(id);
    if (m_json) {
        QJsonObject obj = runObject(*run);
        obj.insert(u"raw"_s, run->rawStatus);
        if (run->error.isError())
            obj.insert(u"error"_s, run->error.toJson());
        writeJson(obj);
    } else {
        writeOut(u"%1  %2  %3  %4\n"_s.arg(run->localId, run->remoteId, statusName(run->status), run->title));
        if (run->error.isError())
            writeOut(u"error: "_s + run->error.toString() + u'\n');
    }
    return exitCodeFor(run->status);
}

int CliApp::cmdCancel(const Options &o, const QStringList &args)
{
    if (args.size() != 1)
        return usage(u"cancel needs exactly one RUN"_s);
    QString error;
    const Run *run = loadRun(o, args.first(), &error);
    if (!run) {
        writeErr(u"runwatch-cli: "_s + error + u'\n');
        return ExitOtherError;
    }
    const QString id = run->localId;
    bool done = false;
    ActionResult result;
    auto c = connect(&m_manager, &RunManager::actionFinished, this,
                     [&](const QString &rid, RunManager::Action action, const ActionResult &r) {
                         if (rid == id && action == RunManager::Action::Cancel) {
                             done = true;
                             result = r;
                         }
                     });
    m_manager.cancelRun(id);
    spinUntil([&] { return done; }, 60000);
    disconnect(c);
    if (!done || !result.ok()) {
        printError(id, done ? result.error : RunError{ErrorKind::Timeout, {}, u"The cancel request did not finish."_s, true, 0, {}});
        m_store.flush();
        return ExitOtherError;
    }
    if (!result.note.isEmpty())
        printNote(u"run %1: %2; nothing changed"_s.arg(id, result.note));
    // Cancellation is a request: wait (bounded) until the server confirms a terminal state.
    run = m_manager.run(id);
    if (run && !run->isTerminal()) {
        if (!m_manager.isFollowing(id))
            m_manager.follow(id);
        spinUntil([&] {
            const Run *r = m_manager.run(id);
            return !r || r->isTerminal();
        }, 30000);
    }
    m_store.flush();
    run = m_manager.run(id);
    if (!run)
        return ExitOtherError;
    printEnd(*run);
    return exitCodeFor(run->status);
}

int CliApp::cmdDelete(const Options &o, const QStringList &args)
{
    QString target;
    bool localOnly = false;
    for (const QString &a : args) {
        if (a == u"--local")
            localOnly = true;
        else if (target.isEmpty())
            target = a;
        else
            return usage(u"delete: unexpected argument %1"_s.arg(a));
    }
    if (target.isEmpty())
        return usage(u"delete needs a RUN"_s);
    QString error;
    const Run *run = loadRun(o, target, &error);
    if (!run) {
        writeErr(u"runwatch-cli: "_s + error + u'\n');
        return ExitOtherError;
    }
    const QString id = run->localId;
    const bool onServer = !localOnly && run->capabilities.testFlag(Capability::Delete);
    bool done = false;
    ActionResult result;
    auto c = connect(&m_manager, &RunManager::actionFinished, this,
                     [&](const QString &rid, RunManager::Action action, const ActionResult &r) {
                         if (rid == id && action == RunManager::Action::Delete) {
                             done = true;
                             result = r;
                         }
                     });
    m_manager.deleteRun(id, onServer);
    spinUntil([&] { return done; }, 60000);
    disconnect(c);
    if (!done || !result.ok()) {
        printError(id, done ? result.error : RunError{ErrorKind::Timeout, {}, u"The delete request did not finish."_s, true, 0, {}});
        return ExitOtherError;
    }
    const QString where = onServer ? u"on the server and locally"_s : u"locally only"_s;
    if (m_json) {
        writeJson({{u"type"_s, u"deleted"_s}, {u"run"_s, id}, {u"scope"_s, onServer ? u"server"_s : u"local"_s},
                   {u"note"_s, result.note}});
    } else {
        writeOut(u"Deleted run %1 %2%3\n"_s.arg(id, where, result.note.isEmpty() ? QString() : u" ("_s + result.note + u')'));
    }
    return ExitCompleted;
}

int CliApp::cmdList(const Options &o, const QStringList &args)
{
    Q_UNUSED(o)
    bool all = false;
    for (const QString &a : args) {
        if (a == u"--all")
            all = true;
        else
            return usage(u"list: unexpected argument %1"_s.arg(a));
    }
    const QList<Run> runs = m_store.loadRuns();
    for (const Run &run : runs) {
        if (!all && run.isTerminal())
            continue;
        if (m_json)
            writeJson(runObject(run));
        else
            writeOut(u"%1  %2  %3  %4  %5\n"_s.arg(run.localId, statusName(run.status).leftJustified(14), run.backend,
                                                  run.remoteId, run.title));
    }
    return ExitCompleted;
}

int CliApp::cmdRespond(const Options &o, const QStringList &args)
{
    if (args.isEmpty())
        return usage(u"respond needs a RUN"_s);
    InputAnswer answer;
    bool haveAnswer = false;
    for (int i = 1; i < args.size(); ++i) {
        const QString &a = args.at(i);
        if (a == u"--text" && i + 1 < args.size()) {
            answer.kind = InputAnswer::Kind::Text;
            answer.text = args.at(++i);
            haveAnswer = true;
        } else if (a == u"--approve") {
            answer.kind = InputAnswer::Kind::Approve;
            haveAnswer = true;
        } else if (a == u"--reject") {
            answer.kind = InputAnswer::Kind::Reject;
            haveAnswer = true;
        } else if (a == u"--comment" && i + 1 < args.size()) {
            answer.comment = args.at(++i);
        } else if (a == u"--choice" && i + 1 < args.size()) {
            answer.kind = InputAnswer::Kind::Choice;
            answer.choice = args.at(++i);
            haveAnswer = true;
        } else {
            return usage(u"respond: unexpected argument %1"_s.arg(a));
        }
    }
    if (!haveAnswer)
        return usage(u"respond needs --text, --approve, --reject or --choice"_s);
    QString error;
    const Run *run = loadRun(o, args.first(), &error);
    if (!run) {
        writeErr(u"runwatch-cli: "_s + error + u'\n');
        return ExitOtherError;
    }
    const QString id = run->localId;
    bool done = false;
    ActionResult result;
    auto c = connect(&m_manager, &RunManager::actionFinished, this,
                     [&](const QString &rid, RunManager::Action action, const ActionResult &r) {
                         if (rid == id && action == RunManager::Action::Respond) {
                             done = true;
                             result = r;
                         }
                     });
    m_manager.respondToRun(id, answer);
    spinUntil([&] { return done; }, 60000);
    disconnect(c);
    m_store.flush();
    if (!done || !result.ok()) {
        printError(id, done ? result.error : RunError{ErrorKind::Timeout, {}, u"The answer was not acknowledged."_s, true, 0, {}});
        return ExitOtherError;
    }
    run = m_manager.run(id);
    if (run)
        printEnd(*run);
    return run ? exitCodeFor(run->status) : ExitOtherError;
}

void CliApp::printRunLine(const Run &run)
{
    if (m_json)
        writeJson(runObject(run));
    else
        writeErr(u"run %1 (%2) %3\n"_s.arg(run.localId, run.remoteId, statusName(run.status)));
}

void CliApp::printEvents(const Run &run, const QList<RunEvent> &events)
{
    if (m_announceStarts && !run.remoteId.isEmpty() && !m_announced.contains(run.localId)) {
        m_announced.insert(run.localId);
        printRunLine(run);
    }
    QString primary;
    for (const RunEvent &e : events) {
        switch (e.type) {
        case RunEvent::Type::PrimaryDelta:
            if (m_json)
                writeJson({{u"type"_s, u"delta"_s}, {u"run"_s, run.localId}, {u"text"_s, e.text}});
            else
                primary += e.text;
            break;
        case RunEvent::Type::SecondaryDelta:
        case RunEvent::Type::SecondarySnapshot:
            if (e.text.isEmpty())
                break;
            if (m_json) {
                writeJson({{u"type"_s, u"secondary"_s}, {u"run"_s, run.localId}, {u"kind"_s, secondaryKindName(e.kind)},
                           {u"item"_s, e.itemId}, {u"text"_s, e.text},
                           {u"final"_s, e.type == RunEvent::Type::SecondarySnapshot}});
            } else if (e.type == RunEvent::Type::SecondarySnapshot) {
                writeErr(u"[%1%2] %3\n"_s.arg(secondaryKindName(e.kind), e.title.isEmpty() ? QString() : u' ' + e.title, e.text));
            }
            break;
        case RunEvent::Type::Status:
            if (m_json)
                writeJson({{u"type"_s, u"status"_s}, {u"run"_s, run.localId}, {u"status"_s, statusName(e.status)},
                           {u"raw"_s, e.rawStatus}});
            else
                writeErr(u"[status] %1\n"_s.arg(statusName(e.status)));
            break;
        case RunEvent::Type::InputRequired:
            if (m_json && e.input)
                writeJson({{u"type"_s, u"input_required"_s}, {u"run"_s, run.localId}, {u"request"_s, e.input->toJson()}});
            else if (e.input)
                writeErr(u"[input required] %1\n"_s.arg(e.input->prompt));
            break;
        case RunEvent::Type::Error:
            printError(run.localId, e.error);
            break;
        case RunEvent::Type::PrimarySnapshot:
        case RunEvent::Type::Identity:
        case RunEvent::Type::Cursor:
            break;
        }
    }
    if (!primary.isEmpty())
        writeOut(primary);
}

void CliApp::printEnd(const Run &run)
{
    if (m_json) {
        writeJson({{u"type"_s, u"end"_s}, {u"run"_s, run.localId}, {u"status"_s, statusName(run.status)}});
    } else {
        if (!run.primaryText.isEmpty() && !run.primaryText.endsWith(u'\n'))
            writeOut(u"\n"_s);
        writeErr(u"[end] %1 %2\n"_s.arg(run.localId, statusName(run.status)));
    }
}

void CliApp::printError(const QString &runId, const RunError &error)
{
    if (m_json) {
        writeJson({{u"type"_s, u"error"_s}, {u"run"_s, runId}, {u"code"_s, error.code.isEmpty() ? errorKindName(error.kind) : error.code},
                   {u"message"_s, error.message}, {u"retryable"_s, error.retryable}});
    } else {
        writeErr(u"[error] "_s + error.toString() + u'\n');
    }
}

void CliApp::printNote(const QString &text)
{
    if (m_json)
        writeJson({{u"type"_s, u"note"_s}, {u"text"_s, text}});
    else
        writeErr(text + u'\n');
}

void CliApp::writeJson(const QJsonObject &object)
{
    const QByteArray line = QJsonDocument(object).toJson(QJsonDocument::Compact) + '\n';
    std::fwrite(line.constData(), 1, std::size_t(line.size()), m_out);
    std::fflush(m_out);
}

void CliApp::writeOut(const QString &text)
{
    const QByteArray bytes = text.toUtf8();
    std::fwrite(bytes.constData(), 1, std::size_t(bytes.size()), m_out);
    std::fflush(m_out);
}

void CliApp::writeErr(const QString &text)
{
    const QByteArray bytes = text.toUtf8();
    std::fwrite(bytes.constData(), 1, std::size_t(bytes.size()), m_err);
    std::fflush(m_err);
}

} // namespace Runwatch::Cli
