// SPDX-License-Identifier: GPL-3.0-or-later
#include "net/transportoptions.h"

#include "net/httpclient.h"

#include <QSslCertificate>

using namespace Qt::StringLiterals;

namespace Runwatch {

std::optional<QNetworkProxy> proxyFromUrl(const QUrl &url)
{
    const QString scheme = url.scheme().toLower();
    QNetworkProxy::ProxyType type = QNetworkProxy::NoProxy;
    if (scheme == u"http") {
        type = QNetworkProxy::HttpProxy;
    } else if (scheme == u"socks5") {
        type = QNetworkProxy::Socks5Proxy;
    }
    if (type == QNetworkProxy::NoProxy || url.host().isEmpty() || url.port() <= 0)
        return std::nullopt;
    return QNetworkProxy(type, url.host(), quint16(url.port()), url.userName(), url.password());
}

void applyTransportOptions(HttpClient *client, const Connection &connection)
{
    client->setAllowInsecureHttp(connection.allowInsecureHttp);
    if (const QString proxy = connection.options.value(ConnectionOption::Proxy).toString().trimmed();
        !proxy.isEmpty()) {
        if (const auto p = proxyFromUrl(QUrl(proxy)))
            client->setProxy(*p);
    }
    if (const QString bundle = connection.options.value(ConnectionOption::CaBundle).toString().trimmed();
        !bundle.isEmpty())
        client->setCaCertificates(QSslCertificate::fromPath(bundle, QSsl::Pem));
}

} // namespace Runwatch
