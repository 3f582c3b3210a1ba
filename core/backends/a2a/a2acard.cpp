// SPDX-License-Identifier: GPL-3.0-or-later
#include "a2acard.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>

using namespace Qt::StringLiterals;

namespace Runwatch::A2a {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "A2aConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(A2aConnector)
};
} // namespace

namespace {

QStringList stringList(const QJsonValue &value)
{
    QStringList out;
    const QJsonArray array = value.toArray();
    for (const QJsonValue &v : array) {
        if (v.isString())
            out << v.toString();
    }
    return out;
}

std::optional<Binding> bindingFrom(QStringView raw)
{
    const QString b = raw.trimmed().toString().toUpper();
    if (b == u"JSONRPC" || b == u"JSON-RPC" || b.isEmpty())
        return Binding::JsonRpc;
    if (b == u"HTTP+JSON" || b == u"REST" || b == u"HTTP_JSON")
        return Binding::HttpJson;
    return std::nullopt;
}

// Major.Minor only (spec §3.6): "1.0.1" is 1.0, "0.2.5" speaks the 0.3 shapes.
std::optional<Version> versionFrom(QStringView raw)
{
    const QString v = raw.trimmed().toString();
    if (v == u"1" || v == u"1.0" || v.startsWith(u"1.0."_s))
        return Version::V10;
    if (v == u"0.3" || v.startsWith(u"0.3."_s) || v == u"0.2" || v.startsWith(u"0.2."_s))
        return Version::V03;
    return std::nullopt;
}

QUrl resolved(const QUrl &source, const QString &url)
{
    const QUrl u(url);
    return u.isRelative() ? source.resolved(u) : u;
}

// 1.0: {"apiKeySecurityScheme":{location,name}} / {"httpAuthSecurityScheme":{scheme}} / …
// 0.3: {"type":"apiKey","in","name"} / {"type":"http","scheme"} / {"type":"oauth2"} / …
AuthScheme schemeFrom(const QString &schemeName, const QJsonObject &s)
{
    AuthScheme a;
    a.schemeName = schemeName;
    QString type = s.value(u"type"_s).toString();
    QJsonObject body = s;
    // @a2a-js/sdk 1.3.0 serves its internal oneof form: {"scheme":{"$case":…,"value":{…}}}
    // (observed with tests/peers/a2a-peer).
    if (type.isEmpty() && s.value(u"scheme"_s).isObject()) {
        const QJsonObject oneof = s.value(u"scheme"_s).toObject();
        type = oneof.value(u"$case"_s).toString();
        body = oneof.value(u"value"_s).toObject();
    }
    if (type.isEmpty()) {
        static const QStringList members{u"apiKeySecurityScheme"_s, u"httpAuthSecurityScheme"_s,
                                         u"oauth2SecurityScheme"_s, u"openIdConnectSecurityScheme"_s,
                                         u"mtlsSecurityScheme"_s};
        for (const QString &m : members) {
            if (s.value(m).isObject()) {
                type = m;
                body = s.value(m).toObject();
                break;
            }
        }
    }
    const QString t = type.toLower();
    if (t == u"apikey" || t == u"apikeysecurityscheme") {
        const QString where = (body.contains(u"location"_s) ? body.value(u"location"_s) : body.value(u"in"_s))
                                  .toString()
                                  .toLower();
        a.name = body.value(u"name"_s).toString();
        if (a.name.isEmpty()) {
            a.note = Text::tr("API key scheme \"%1\" names no header").arg(schemeName);
            return a;
        }
        if (where == u"query") {
            a.kind = AuthScheme::Kind::ApiKeyQuery;
        } else if (where == u"cookie") {
            a.kind = AuthScheme::Kind::ApiKeyCookie;
        } else {
            a.kind = AuthScheme::Kind::ApiKeyHeader;
        }
        return a;
    }
    if (t == u"http" || t == u"httpauthsecurityscheme") {
        const QString scheme = body.value(u"scheme"_s).toString().toLower();
        if (scheme == u"basic") {
            a.kind = AuthScheme::Kind::Basic;
        } else if (scheme == u"bearer" || scheme.isEmpty()) {
            a.kind = AuthScheme::Kind::Bearer;
        } else {
            a.note = Text::tr("HTTP auth scheme \"%1\" is not supported").arg(scheme);
        }
        return a;
    }
    if (t == u"oauth2" || t == u"oauth2securityscheme" || t == u"openidconnect"
        || t == u"openidconnectsecurityscheme") {
        // The token comes from elsewhere (the keychain); it travels as a bearer token.
        a.kind = AuthScheme::Kind::Bearer;
        return a;
    }
    a.note = u"security scheme \"%1\" (%2) is not supported"_s.arg(schemeName, type);
    return a;
}

AuthScheme chooseAuth(const QJsonObject &card)
{
    const QJsonObject schemes = card.value(u"securitySchemes"_s).toObject();
    if (schemes.isEmpty())
        return {};
    QStringList order;
    // 1.0 securityRequirements[{schemes:{name:{list}}}], 0.3 security[{name:[scopes]}].
    const QJsonArray requirements = card.contains(u"securityRequirements"_s)
                                        ? card.value(u"securityRequirements"_s).toArray()
                                        : card.value(u"security"_s).toArray();
    for (const QJsonValue &r : requirements) {
        QJsonObject o = r.toObject();
        if (o.value(u"schemes"_s).isObject())
            o = o.value(u"schemes"_s).toObject();
        for (auto it = o.begin(); it != o.end(); ++it) {
            if (!order.contains(it.key()))
                order << it.key();
        }
    }
    for (const QString &k : schemes.keys()) {
        if (!order.contains(k))
            order << k;
    }
    QStringList notes;
    for (const QString &name : std::as_const(order)) {
        if (!schemes.value(name).isObject())
            continue;
        AuthScheme a = schemeFrom(name, schemes.value(name).toObject());
        if (a.kind != AuthScheme::Kind::None)
            return a;
        if (!a.note.isEmpty())
            notes << a.note;
    }
    AuthScheme none;
    none.note = notes.join(u"; "_s);
    return none;
}

} // namespace

QString AgentCard::summary() const
{
    QStringList lines;
    lines << (version.isEmpty() ? name : u"%1 (version %2)"_s.arg(name, version));
    if (!description.isEmpty())
        lines << description;
    if (!provider.isEmpty())
        lines << u"Provider: "_s + provider;
    if (const auto selected = selectInterface(*this)) {
        const AgentInterface &i = *selected;
        lines << Text::tr("Protocol: A2A %1 over %2 at %3")
                     .arg(versionHeader(i.version), bindingName(i.binding), i.url.toDisplayString());
    }
    QStringList caps;
    caps << (streaming ? Text::tr("streaming") : Text::tr("no streaming (polling)"));
    if (pushNotifications)
        caps << Text::tr("push notifications");
    if (extendedCard)
        caps << Text::tr("extended card");
    lines << u"Capabilities: "_s + caps.join(u", "_s);
    if (!skills.isEmpty()) {
        QStringList names;
        for (const AgentSkill &s : skills)
            names << (s.name.isEmpty() ? s.id : s.name);
        lines << u"Skills: "_s + names.join(u", "_s);
    }
    switch (auth.kind) {
    case AuthScheme::Kind::None:
        if (!auth.note.isEmpty())
            lines << u"Auth: "_s + auth.note;
        break;
    case AuthScheme::Kind::Bearer:
        lines << Text::tr("Auth: bearer token (%1)").arg(auth.schemeName);
        break;
    case AuthScheme::Kind::Basic:
        lines << Text::tr("Auth: HTTP basic (%1)").arg(auth.schemeName);
        break;
    case AuthScheme::Kind::ApiKeyHeader:
        lines << Text::tr("Auth: API key in header %1").arg(auth.name);
        break;
    case AuthScheme::Kind::ApiKeyQuery:
        lines << Text::tr("Auth: API key in query parameter %1").arg(auth.name);
        break;
    case AuthScheme::Kind::ApiKeyCookie:
        lines << Text::tr("Auth: API key in cookie %1").arg(auth.name);
        break;
    }
    return lines.join(u'\n');
}

QJsonObject AgentCard::toJson() const
{
    QJsonObject o;
    o.insert(u"name"_s, name);
    o.insert(u"description"_s, description);
    o.insert(u"version"_s, version);
    o.insert(u"card_url"_s, source.toString());
    if (const auto selected = selectInterface(*this)) {
        const AgentInterface &i = *selected;
        o.insert(u"protocol_version"_s, versionHeader(i.version));
        o.insert(u"binding"_s, bindingName(i.binding));
        o.insert(u"url"_s, i.url.toString());
    }
    o.insert(u"streaming"_s, streaming);
    o.insert(u"push_notifications"_s, pushNotifications);
    QJsonArray s;
    for (const AgentSkill &skill : skills) {
        s.append(QJsonObject{{u"id"_s, skill.id},
                             {u"name"_s, skill.name},
                             {u"description"_s, skill.description},
                             {u"tags"_s, QJsonArray::fromStringList(skill.tags)}});
    }
    o.insert(u"skills"_s, s);
    return o;
}

CardParse parseAgentCard(QByteArrayView json, const QUrl &source)
{
    CardParse result;
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(json.toByteArray(), &error);
    const QString where = source.toDisplayString();
    if (error.error != QJsonParseError::NoError) {
        result.error = Text::tr("The agent card at %1 is not valid JSON (%2 at offset %3).")
                           .arg(where, error.errorString())
                           .arg(error.offset);
        return result;
    }
    if (!doc.isObject()) {
        result.error = Text::tr("The agent card at %1 is not a JSON object.").arg(where);
        return result;
    }
    const QJsonObject o = doc.object();
    AgentCard card;
    card.source = source;
    card.raw = o;
    card.name = o.value(u"name"_s).toString().trimmed();
    if (card.name.isEmpty()) {
        result.error
            = Text::tr("The agent card at %1 has no \"name\": it is not an A2A agent card.").arg(where);
        return result;
    }
    card.description = o.value(u"description"_s).toString();
    card.version = o.value(u"version"_s).toString();
    card.provider = o.value(u"provider"_s).toObject().value(u"organization"_s).toString();
    card.documentationUrl = o.value(u"documentationUrl"_s).toString();
    card.protocolVersion = o.value(u"protocolVersion"_s).toString();
    const QJsonObject caps = o.value(u"capabilities"_s).toObject();
    card.streaming = caps.value(u"streaming"_s).toBool(false);
    card.pushNotifications = caps.value(u"pushNotifications"_s).toBool(false);
    card.extendedCard = caps.value(u"extendedAgentCard"_s).toBool(false)
                        || o.value(u"supportsAuthenticatedExtendedCard"_s).toBool(false);
    const QJsonArray exts = caps.value(u"extensions"_s).toArray();
    for (const QJsonValue &e : exts)
        card.extensions << e.toObject().value(u"uri"_s).toString();
    card.defaultInputModes = stringList(o.value(u"defaultInputModes"_s));
    card.defaultOutputModes = stringList(o.value(u"defaultOutputModes"_s));
    const QJsonArray skills = o.value(u"skills"_s).toArray();
    for (const QJsonValue &v : skills) {
        const QJsonObject s = v.toObject();
        card.skills.append(AgentSkill{s.value(u"id"_s).toString(), s.value(u"name"_s).toString(),
                                      s.value(u"description"_s).toString(), stringList(s.value(u"tags"_s)),
                                      stringList(s.value(u"examples"_s))});
    }
    card.auth = chooseAuth(o);

    const auto addInterface
        = [&](const QString &url, const QString &binding, const QString &version, const QString &tenant) {
              const auto b = bindingFrom(binding);
              const auto v = versionFrom(version);
              const QUrl u = resolved(source, url);
              if (!b || !v || url.isEmpty() || !u.isValid()) {
                  card.otherInterfaces << u"%1 %2 %3"_s.arg(binding, version, url);
                  return;
              }
              card.interfaces.append(AgentInterface{u, *b, *v, tenant, binding, version});
          };
    const QJsonArray supported = o.value(u"supportedInterfaces"_s).toArray();
    for (const QJsonValue &v : supported) {
        const QJsonObject i = v.toObject();
        // A 1.0 interface without protocolVersion is taken as 1.0 (the field is required there).
        const QString version = i.value(u"protocolVersion"_s).toString(u"1.0"_s);
        addInterface(i.value(u"url"_s).toString(), i.value(u"protocolBinding"_s).toString(), version,
                     i.value(u"tenant"_s).toString());
    }
    if (card.interfaces.isEmpty() && o.value(u"url"_s).isString()) {
        // 0.2/0.3 card: url + preferredTransport, more in additionalInterfaces.
        const QString version = card.protocolVersion.isEmpty() ? u"0.3.0"_s : card.protocolVersion;
        addInterface(o.value(u"url"_s).toString(), o.value(u"preferredTransport"_s).toString(u"JSONRPC"_s),
                     version, {});
        const QJsonArray more = o.value(u"additionalInterfaces"_s).toArray();
        for (const QJsonValue &v : more) {
            const QJsonObject i = v.toObject();
            addInterface(i.value(u"url"_s).toString(), i.value(u"transport"_s).toString(), version, {});
        }
    }
    if (card.interfaces.isEmpty()) {
        QString declared = card.otherInterfaces.join(u"; "_s);
        result.error
            = declared.isEmpty()
                  ? Text::tr("The agent card at %1 declares no interface (no supportedInterfaces, no url).")
                        .arg(where)
                  : Text::tr("The agent card at %1 offers no interface Runwatch can use (JSON-RPC or "
                             "HTTP+JSON, A2A 0.3 or 1.0); it declares: %2.")
                        .arg(where, declared);
        return result;
    }
    result.card = card;
    return result;
}

std::optional<AgentInterface> selectInterface(const AgentCard &card, const QString &binding,
                                              const QString &version)
{
    const std::optional<Binding> wanted = binding.isEmpty() ? std::nullopt : bindingFrom(binding);
    const std::optional<Version> wantedVersion = version.isEmpty() ? std::nullopt : versionFrom(version);
    if ((!binding.isEmpty() && !wanted) || (!version.isEmpty() && !wantedVersion))
        return std::nullopt;
    for (const Version v : {Version::V10, Version::V03}) {
        if (wantedVersion && v != *wantedVersion)
            continue;
        for (const AgentInterface &i : card.interfaces) {
            if (i.version == v && (!wanted || i.binding == *wanted))
                return i;
        }
    }
    return std::nullopt;
}

} // namespace Runwatch::A2a
