// SPDX-License-Identifier: GPL-3.0-or-later
#include "domain/connection.h"

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
constexpr QStringView kHeaderPrefix = u"header:";
} // namespace

QString authStyleName(AuthStyle style, const QString &header)
{
    switch (style) {
    case AuthStyle::None:
        return u"none"_s;
    case AuthStyle::Bearer:
        return u"bearer"_s;
    case AuthStyle::Header:
        return u"header:"_s + header;
    }
    return u"bearer"_s;
}

bool authStyleFromName(QStringView name, AuthStyle *style, QString *header)
{
    if (name == u"none") {
        *style = AuthStyle::None;
        header->clear();
    } else if (name == u"bearer") {
        *style = AuthStyle::Bearer;
        header->clear();
    } else if (name == u"api-key") {
        *style = AuthStyle::Header;
        *header = u"api-key"_s;
    } else if (name.startsWith(kHeaderPrefix)) {
        *style = AuthStyle::Header;
        *header = name.mid(kHeaderPrefix.size()).toString();
    } else {
        return false;
    }
    return true;
}

bool isHeaderName(QStringView name)
{
    if (name.isEmpty())
        return false;
    for (const QChar ch : name) {
        const char16_t c = ch.unicode();
        const bool alnum = (c >= u'0' && c <= u'9') || (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z');
        if (!alnum && !QStringView(u"!#$%&'*+-.^_`|~").contains(ch))
            return false;
    }
    return true;
}

bool isHeaderValue(QStringView value)
{
    for (const QChar ch : value) {
        if (ch.unicode() < 0x20 || ch.unicode() == 0x7f)
            return false;
    }
    return true;
}

QJsonObject Connection::toJson() const
{
    QJsonObject o;
    o.insert(u"name"_s, name);
    o.insert(u"backend"_s, backend);
    o.insert(u"base_url"_s, baseUrl.toString());
    o.insert(u"auth"_s, authStyleName(auth, authHeader));
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
    // An unknown name keeps the default (Bearer), as it always has.
    authStyleFromName(object.value(u"auth"_s).toString(), &c.auth, &c.authHeader);
    c.allowInsecureHttp = object.value(u"allow_insecure_http"_s).toBool();
    c.defaultModel = object.value(u"default_model"_s).toString();
    c.options = object.value(u"options"_s).toObject();
    return c;
}

} // namespace Runwatch
