// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/connection.h"
#include "net/httpauthorizer.h"

#include <functional>

namespace Runwatch {

class HttpClient;
class TokenSource;

// How every connector authenticates: the connection's credential — its key, or the token its
// token command prints (options "token_command", see TokenSource) — on each request the way
// Connection::auth says: "Authorization: Bearer <credential>", "<authHeader>: <credential>", or
// nothing (a token command's token goes out as Bearer then). A connector makes one and hands it
// to its HttpClients (attach()); the clients call it right before each request leaves and once
// more after a 401 when the command can give a new token.
class RequestAuth final : public HttpAuthorizer
{
    Q_OBJECT
public:
    // A connector's own way to place the credential for some requests (an A2A agent card's
    // scheme): true when it did; false leaves it to the connection's style.
    using Placement = std::function<bool(HttpRequest &request, const QByteArray &credential)>;

    explicit RequestAuth(const Connection &connection, QObject *parent = nullptr);

    // Makes `client` put the credential on its requests (HttpClient::setAuthorizer).
    void attach(HttpClient *client);
    void setPlacement(Placement placement) { m_placement = std::move(placement); }

    // Whether the connection has a credential at all (a key or a token command).
    bool hasCredential() const;
    TokenSource *tokenSource() const { return m_tokens; }

    QCoro::Task<Authorized> authorize(HttpRequest request, bool renew) override;
    bool canRenew() const override;
    void stop() override;

    // Puts `credential` on `request` in `style` (Header: named `header`); nothing without one.
    static void place(HttpRequest &request, AuthStyle style, const QString &header,
                      const QByteArray &credential);

private:
    QString m_connection; // its name, for the messages
    QUrl m_origin;        // the connection's URL: its key goes to this origin and no other
    AuthStyle m_style;
    QString m_header;
    TokenSource *m_tokens;
    Placement m_placement;
};

} // namespace Runwatch
