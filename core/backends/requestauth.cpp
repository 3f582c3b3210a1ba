// SPDX-License-Identifier: GPL-3.0-or-later
#include "requestauth.h"

#include "net/httpclient.h"
#include "tokensource.h"

using namespace Qt::StringLiterals;

namespace Runwatch {

RequestAuth::RequestAuth(const Connection &connection, QObject *parent)
    : HttpAuthorizer(parent)
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
