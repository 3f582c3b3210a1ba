// SPDX-License-Identifier: GPL-3.0-or-later
// The saved connections in the CLI: the profiles and keys the app's Connections dialog saved
// (core's ConnectionRegistry), for --connection NAME, for stored runs started on one, and for
// `runwatch-cli connections`.
#include "cli.h"
#include "cli_p.h"

#include "connections/connectionoptions.h"
#include "connections/keystore.h"

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

} // namespace Runwatch::Cli
