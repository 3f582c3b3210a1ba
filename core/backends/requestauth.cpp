// SPDX-License-Identifier: GPL-3.0-or-later
#include "requestauth.h"

#include "net/httpclient.h"
#include "net/httppolicy.h"
#include "tokensource.h"

using namespace Qt::StringLiterals;

namespace Runwatch {

RequestAuth::RequestAuth(const Connection &connection, QObject *parent)
    : HttpAuthorizer(parent)
    , m_connection(connection.name)
    , m_origin(connection.baseUrl)
    , m_style(connection.auth)
    , m_header(connection.authHeader)
    , m_tokens(new TokenSource(connection.apiKey,
                               connection.options.value(ConnectionOption::TokenCommand).toString().trimmed(),
                               this))
{
    // A token command's token is meant to be sent: "no authentication" cannot mean dropping it.
    if (m_style == AuthStyle::None && m_tokens->hasCommand())
        m_style = AuthStyle::Bearer;
}

void RequestAuth::attach(HttpClient *client)
{
    client->setAuthorizer(this);
}

bool RequestAuth::hasCredential() const
{
    return m_tokens->hasCredential();
}

bool RequestAuth::canRenew() const
{
    return m_tokens->hasCommand();
}

void RequestAuth::stop()
{
    m_tokens->stop();
}

void RequestAuth::place(HttpRequest &request, AuthStyle style, const QString &header,
                        const QByteArray &credential)
{
    if (credential.isEmpty())
        return;
    switch (style) {
    case AuthStyle::Bearer:
        request.headers.emplaceBack("Authorization", "Bearer " + credential);
        break;
    case AuthStyle::Header:
        request.headers.emplaceBack(header.toLatin1(), credential);
        break;
    case AuthStyle::None:
        break;
    }
}

QCoro::Task<HttpAuthorizer::Authorized> RequestAuth::authorize(HttpRequest request, bool renew)
{
    QPointer<RequestAuth> self = this;
    Authorized out;
    // The one origin rule of every connector: a key or a token goes to the origin (scheme, host,
    // port) of the connection it was given for, whoever named the URL — an agent card, a
    // server's status URL, a stored run. Checked before a token command runs.
    if (hasCredential() && !sameOrigin(request.url, m_origin)) {
        out.error = RunError::client(
            u"credential_origin"_s,
            tr("Not sending the key of connection \"%1\" to %2: it was given for %3. Point a connection "
               "at %2 to use a key there.")
                .arg(m_connection, originOf(request.url), originOf(m_origin)));
        co_return out;
    }
    const TokenSource::Result token = co_await m_tokens->token(renew);
    if (!self) {
        out.error = RunError::cancelled();
        co_return out;
    }
    if (token.error.isError()) {
        out.error = token.error;
        co_return out;
    }
    out.request = std::move(request);
    if (token.token.isEmpty())
        co_return out;
    // Refused here rather than sent: a name or value that is not one clean header would end the
    // header early and let the rest of the key become a header of its own.
    if (m_style == AuthStyle::Header && !isHeaderName(m_header)) {
        out.error = RunError::client(u"invalid_auth_header"_s,
                                     tr("\"%1\" is not a valid header name for the key.").arg(m_header));
        co_return out;
    }
    if (!isHeaderValue(token.token)) {
        out.error = RunError::client(u"invalid_credential"_s,
                                     tr("The key contains a line break or another control character."));
        co_return out;
    }
    const QByteArray credential = token.token.toUtf8();
    if (!m_placement || !m_placement(out.request, credential))
        place(out.request, m_style, m_header, credential);
    // Short values would only blank out ordinary words (credentialsOf's rule).
    if (credential.size() >= 8)
        out.secrets.append(credential);
    co_return out;
}

} // namespace Runwatch
