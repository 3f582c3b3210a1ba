// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "httpmessage.h"

#include <QObject>

#include <QCoroTask>

namespace Runwatch {

// Puts a connection's credential on the requests of an HttpClient (HttpClient::setAuthorizer),
// right before each one leaves, so that a rotating token is fetched when it is needed and a
// request refused with 401 is sent once more with a renewed one. The connectors' implementation
// is RequestAuth (backends/); the client only knows that something authorizes.
class HttpAuthorizer : public QObject
{
    Q_OBJECT
public:
    struct Authorized
    {
        HttpRequest request;       // with the credential on it
        RunError error;            // no credential to be had: nothing is sent, this is the answer
        QList<QByteArray> secrets; // what the credential put on the request: redacted from errors
    };

    using QObject::QObject;

    // `request` with the credential on it. `renew`: the service refused the last one (401).
    virtual QCoro::Task<Authorized> authorize(HttpRequest request, bool renew) = 0;
    // Whether a 401 is worth one more try: a renewed credential may differ (a token command).
    virtual bool canRenew() const = 0;
    // The client is shutting down: a credential being fetched (a running command) is abandoned.
    virtual void stop() = 0;
};

} // namespace Runwatch
