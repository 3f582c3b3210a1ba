// SPDX-License-Identifier: GPL-3.0-or-later
// The connection a CLI command uses: a saved one (the profiles and keys the app's Connections
// dialog saved, core's ConnectionRegistry) for --connection NAME and for stored runs started on
// one, or one made of --backend/--url/--auth and the environment's key (which goes only where it
// was given); and `runwatch-cli connections`.
#include "cli.h"
#include "cli_p.h"

#include "backends/registry.h"
#include "connections/connectionoptions.h"
#include "connections/keystore.h"
#include "net/httppolicy.h"

#include <QCoroTask>

using namespace Qt::StringLiterals;

namespace Runwatch::Cli {

namespace {

QString keyStorageLabel(KeyStorage storage)
{
    switch (storage) {
    case KeyStorage::None:
        return CliApp::tr("no key");
    case KeyStorage::Keychain:
        return u"keychain"_s;
    case KeyStorage::Session:
        return CliApp::tr("app session only");
    case KeyStorage::Plaintext:
        return CliApp::tr("plain file");
    }
    return {};
}

} // namespace

ConnectionRegistry &CliApp::registry()
{
    if (!m_registry) {
        // No RunManager: the CLI registers the one connection a command needs itself.
        auto *keychain = new KeychainKeyStore(false);
        m_registry = std::make_unique<ConnectionRegistry>(nullptr, keychain, &m_store);
        keychain->setParent(m_registry.get());
    }
    return *m_registry;
}

std::optional<Connection> CliApp::savedConnection(const Options &o, const ConnectionProfile &profile,
                                                  QString *error)
{
    Connection c = profile.connection;
    const QString name = c.name;
    const QString hint = CliApp::tr("give the key with --api-key-env VAR");
    if (!o.apiKeyEnv.isEmpty()) {
        // The explicit choice wins over wherever the saved key lives.
        c.apiKey = qEnvironmentVariable(o.apiKeyEnv.toLocal8Bit().constData());
        if (!c.apiKey.isEmpty() && c.auth == AuthStyle::None)
            c.auth = AuthStyle::Bearer;
    } else if (profile.keyStorage == KeyStorage::Session) {
        *error = u"the API key of \"%1\" was kept for the app's session only (no keychain was available "
                 "when it was saved): it lives in the app's memory and cannot reach another process; %2, "
                 "or save the key again in the app once a keychain is available"_s.arg(name, hint);
        return std::nullopt;
    } else if (profile.keyStorage != KeyStorage::None) {
        const KeyStore::Result key = QCoro::waitFor(registry().readKey(profile));
        if (!key.ok()) {
            *error = u"%1 (%2)"_s.arg(key.error, hint);
            return std::nullopt;
        }
        c.apiKey = key.secret;
    }
    // The proxy's password lives in the keychain, never in the saved profile.
    const KeyStore::Result proxy = QCoro::waitFor(registry().readProxyPassword(profile));
    if (!proxy.ok()) {
        *error = proxy.error;
        return std::nullopt;
    }
    setProxyPassword(&c, proxy.secret);
    // Given here, a token command replaces the saved one (if any) for this command only.
    if (const QString command = o.option(ConnectionOption::TokenCommand); !command.isEmpty())
        c.options.insert(ConnectionOption::TokenCommand, command);
    // Given here, the opt-in adds to the saved one for this command only.
    if (o.allowInsecure)
        c.allowInsecureHttp = true;
    return c;
}

int CliApp::cmdConnections(const Options &o, const QStringList &args)
{
    Q_UNUSED(o)
    for (const QString &a : args) {
        if (a == u"--json") {
            m_json = true;
        } else {
            return usage(CliApp::tr("connections: unexpected argument %1").arg(a));
        }
    }
    const QList<ConnectionProfile> saved = registry().savedProfiles();
    qsizetype nameWidth = 0, backendWidth = 0, authWidth = 0;
    for (const ConnectionProfile &p : saved) {
        nameWidth = std::max(nameWidth, p.connection.name.size());
        backendWidth = std::max(backendWidth, p.connection.backend.size());
        authWidth = std::max(authWidth, authStyleName(p.connection.auth, p.connection.authHeader).size());
    }
    for (const ConnectionProfile &p : saved) {
        const Connection &c = p.connection;
        if (m_json) {
            QJsonObject line{{u"type"_s, u"connection"_s},
                             {u"name"_s, c.name},
                             {u"backend"_s, c.backend},
                             {u"url"_s, c.baseUrl.toString(QUrl::RemovePassword)},
                             {u"auth"_s, authStyleName(c.auth, c.authHeader)},
                             {u"key_storage"_s, keyStorageName(p.keyStorage)},
                             {u"allow_insecure_http"_s, c.allowInsecureHttp}};
            if (!c.defaultModel.isEmpty())
                line.insert(u"default_model"_s, c.defaultModel);
            writeJson(line);
        } else {
            writeOut(u"%1  %2  %3  %4  %5\n"_s.arg(
                c.name.leftJustified(nameWidth), c.backend.leftJustified(backendWidth),
                authStyleName(c.auth, c.authHeader).leftJustified(authWidth),
                c.baseUrl.toDisplayString(QUrl::RemovePassword), keyStorageLabel(p.keyStorage)));
        }
    }
    if (saved.isEmpty()) {
        printNote(CliApp::tr("no saved connections in %1 (add them in the app's Connections dialog)")
                      .arg(m_store.path()));
    }
    return ExitCompleted;
}

bool CliApp::keyGivenFor(const QString &backend, const QUrl &url) const
{
    // The connector's own variable (OPENAI_API_KEY) is its service's key: a run on that service
    // may have it without --url.
    const ConnectorDescriptor *row = connector(backend);
    return row && !row->defaultUrl.isEmpty() && sameOrigin(QUrl(QString(row->defaultUrl)), url);
}

QString CliApp::apiKeyFor(const Options &o, const QString &backend) const
{
    if (!o.apiKeyEnv.isEmpty())
        return qEnvironmentVariable(o.apiKeyEnv.toLocal8Bit().constData());
    QString key = qEnvironmentVariable("RUNWATCH_API_KEY");
    if (const ConnectorDescriptor *row = connector(backend);
        key.isEmpty() && row && !row->apiKeyEnv.isEmpty())
        key = qEnvironmentVariable(QByteArray(row->apiKeyEnv.data(), row->apiKeyEnv.size()).constData());
    return key;
}

int CliApp::connectionError(const QString &error, bool usageError)
{
    if (usageError)
        return usage(error);
    writeErr(u"runwatch-cli: "_s + error + u'\n');
    return ExitOtherError;
}

std::optional<Connection> CliApp::addCommandConnection(const Options &o, int *exitCode)
{
    QString error;
    bool usageError = false;
    auto conn = connectionFor(o, nullptr, &error, &usageError);
    if (!conn) {
        *exitCode = connectionError(error, usageError);
        return std::nullopt;
    }
    if (!m_manager.addConnection(*conn, &error)) {
        writeErr(u"runwatch-cli: "_s + error + u'\n');
        *exitCode = ExitOtherError;
        return std::nullopt;
    }
    return conn;
}

std::optional<Connection> CliApp::connectionFor(const Options &o, const Run *run, QString *error,
                                                bool *usageError)
{
    if (usageError)
        *usageError = false;
    const bool adHoc = !o.url.isEmpty() || !o.backend.isEmpty();
    const QString savedName = !o.connection.isEmpty() ? o.connection
                              : run && !adHoc         ? run->connection
                                                      : QString();
    if (!savedName.isEmpty()) {
        if (const auto cached = m_savedConnections.constFind(savedName); cached != m_savedConnections.cend())
            return *cached;
        if (const auto profile = registry().savedProfile(savedName)) {
            auto c = savedConnection(o, *profile, error);
            if (c)
                m_savedConnections.insert(savedName, *c);
            return c;
        }
        if (!o.connection.isEmpty()) {
            QStringList names;
            const QList<ConnectionProfile> saved = registry().savedProfiles();
            for (const ConnectionProfile &p : saved)
                names << p.connection.name;
            *error = names.isEmpty()
                         ? u"no saved connection \"%1\": the store %2 has none (add them in the app's "
                           "Connections dialog)"_s.arg(o.connection, m_store.path())
                         : CliApp::tr("no saved connection \"%1\" (saved: %2)")
                               .arg(o.connection, names.join(u", "_s));
            return std::nullopt;
        }
        // A run started with --backend/--url: its stored backend and URL, keys from the environment.
    }
    if (usageError)
        *usageError = true;
    Connection c;
    if (run) {
        c.name = run->connection;
        c.backend = run->backend;
        c.baseUrl = QUrl(run->baseUrl);
    }
    if (!o.backend.isEmpty())
        c.backend = o.backend;
    if (!o.url.isEmpty())
        c.baseUrl = QUrl(o.url);
    if (c.backend.isEmpty() && !c.baseUrl.isEmpty())
        c.backend = defaultConnector().name;
    if (c.name.isEmpty()) {
        c.name = c.baseUrl.isEmpty()
                     ? c.backend
                     : c.backend + u'@' + c.baseUrl.adjusted(QUrl::RemoveUserInfo).authority();
    }
    if (c.baseUrl.isEmpty() || !c.baseUrl.isValid()) {
        *error = CliApp::tr("no service URL: give --url URL (and --backend) or --connection NAME");
        return std::nullopt;
    }
    // Checked in run(): a bad style never gets here.
    // Without --auth, the key goes where the service takes it (LangSmith: X-Api-Key), else Bearer.
    QString auth = o.auth;
    if (const ConnectorDescriptor *row = connector(c.backend);
        auth.isEmpty() && row && !row->defaultAuthHeader.isEmpty())
        auth = u"header:"_s + row->defaultAuthHeader;
    authStyleFromName(auth.isEmpty() ? u"bearer"_s : auth, &c.auth, &c.authHeader);
    c.apiKey = apiKeyFor(o, c.backend);
    if (run && o.url.isEmpty() && !c.apiKey.isEmpty() && !keyGivenFor(c.backend, c.baseUrl)) {
        // A stored run reattached at the URL it was started on: the environment's key was given
        // for whatever this command names, and this command names no service. Keys follow
        // origins (RequestAuth's rule); --url ORIGIN, or a saved connection, says where it goes.
        c.apiKey.clear();
        const QString origin = originOf(c.baseUrl);
        if (!std::exchange(m_keyWithheld[origin], true)) {
            writeErr(
                CliApp::tr("runwatch-cli: not sending the API key from the environment to %1, where a stored "
                           "run was started: it was not given for that service (pass --url %1 to send it "
                           "there, or use a saved connection)\n")
                    .arg(origin));
        }
    }
    // A token command's token goes out in the --auth style like a key.
    if (const QString command = o.option(ConnectionOption::TokenCommand); !command.isEmpty()) {
        c.options.insert(ConnectionOption::TokenCommand, command);
    } else if (c.apiKey.isEmpty()) {
        c.auth = AuthStyle::None;
    }
    c.allowInsecureHttp = o.allowInsecure;
    const QStringList applicable = connectionOptionsFor(c.backend);
    for (auto it = o.connectionOptions.cbegin(); it != o.connectionOptions.cend(); ++it) {
        const auto &[flag, value] = it.value();
        if (!applicable.contains(it.key())) {
            *error = CliApp::tr("%1 is not an option of the %2 backend").arg(flag, c.backend);
            return std::nullopt;
        }
        if (it.key() == ConnectionOption::Proxy && !QUrl(value).password().isEmpty()) {
            // argv is visible to every user of the machine and kept in shell history.
            *error = CliApp::tr("%1: no password on the command line; give it in RUNWATCH_PROXY_PASSWORD "
                                "(or save the connection in the app, which keeps it in the keychain)")
                         .arg(flag);
            return std::nullopt;
        }
        if (!value.isEmpty())
            c.options.insert(it.key(), value);
    }
    if (proxyHasUser(c))
        setProxyPassword(&c, qEnvironmentVariable("RUNWATCH_PROXY_PASSWORD"));
    // The rules the Connections dialog applies as the operator types (not the plain-http one:
    // HttpClient refuses such a request with its own message).
    const QList<ConnectionOptionProblem> problems = validateConnectionOptions(c);
    for (const ConnectionOptionProblem &p : problems) {
        if (p.option != u"base_url") {
            *error = u"option %1: %2"_s.arg(p.option, p.message);
            return std::nullopt;
        }
    }
    return c;
}

} // namespace Runwatch::Cli
