// SPDX-License-Identifier: GPL-3.0-or-later
#include "domain/connection.h"

using namespace Qt::StringLiterals;

namespace Runwatch {

QString authStyleName(AuthStyle style)
{
    switch (style) {
    case AuthStyle::None:
        return u"none"_s;
    case AuthStyle::Bearer:
        return u"bearer"_s;
    case AuthStyle::ApiKeyHeader:
        return u"api-key"_s;
    }
    return u"bearer"_s;
}

AuthStyle authStyleFromName(QStringView name)
{
    if (name == u"none")
        return AuthStyle::None;
    if (name == u"api-key")
        return AuthStyle::ApiKeyHeader;
    return AuthStyle::Bearer;
}

QJsonObject Connection::toJson() const
{
    QJsonObject o;
    o.insert(u"name"_s, name);
    o.insert(u"backend"_s, backend);
    o.insert(u"base_url"_s, baseUrl.toString());
    o.insert(u"auth"_s, authStyleName(auth));
    o.insert(u"allow_insecure_http"_s, allowInsecureHttp);
    if (!defaultModel.isEmpty())
        o.insert(u"default_model"_s, defaultModel);
    if (!options.isEmpty())
        o.insert(u"options"_s, options);
    return o;
}

Connection Connection::fromJson(const QJsonObject &object)
{
    Connection c;
    c.name = object.value(u"name"_s).toString();
    c.backend = object.value(u"backend"_s).toString();
    c.baseUrl = QUrl(object.value(u"base_url"_s).toString());
    c.auth = authStyleFromName(object.value(u"auth"_s).toString());
    c.allowInsecureHttp = object.value(u"allow_insecure_http"_s).toBool();
    c.defaultModel = object.value(u"default_model"_s).toString();
    c.options = object.value(u"options"_s).toObject();
    return c;
}

} // namespace Runwatch
