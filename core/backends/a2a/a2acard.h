// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "a2amapper.h"

#include <QByteArrayView>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <optional>

// The Agent Card (§2): what an agent says about itself, in its 0.2/0.3 or 1.0 shape.
namespace Runwatch::A2a {

struct AgentInterface
{
    QUrl url;
    Binding binding = Binding::JsonRpc;
    Version version = Version::V10;
    QString tenant;
    QString rawBinding; // as written in the card
    QString rawVersion;
};

struct AgentSkill
{
    QString id;
    QString name;
    QString description;
    QStringList tags;
    QStringList examples;
};

// How requests authenticate (§2.2 securitySchemes / securityRequirements).
struct AuthScheme
{
    enum class Kind {
        None,   // the card asks for nothing (or for nothing we can do): use the connection's style
        Bearer, // Authorization: Bearer <key>  (http bearer, oauth2, openIdConnect)
        Basic,  // Authorization: Basic <base64(key)>  (key given as user:password)
        ApiKeyHeader,
        ApiKeyQuery,
        ApiKeyCookie,
    };
    Kind kind = Kind::None;
    QString name;       // header / query / cookie name for API keys
    QString schemeName; // the card's name for it
    QString note;       // why nothing usable was found, when the card asked for something
};

struct AgentCard
{
    QUrl source; // where it was fetched
    QString name;
    QString description;
    QString version;
    QString provider;
    QString documentationUrl;
    QString protocolVersion;          // 0.x cards: top-level protocolVersion
    QList<AgentInterface> interfaces; // usable ones (JSON-RPC / HTTP+JSON, 0.x or 1.0), card order
    QStringList otherInterfaces;      // declared but not usable here (gRPC, unknown versions)
    bool streaming = false;
    bool pushNotifications = false;
    bool extendedCard = false;
    QStringList extensions; // capability extension URIs
    QList<AgentSkill> skills;
    QStringList defaultInputModes;
    QStringList defaultOutputModes;
    AuthScheme auth;
    QJsonObject raw;

    // A short human description for the connection panel and the CLI.
    QString summary() const;
    QJsonObject toJson() const;
};

struct CardParse
{
    std::optional<AgentCard> card;
    QString error; // what is wrong with it, for the connection error
};

// Parses a card fetched from `source` (relative interface URLs resolve against it). A card
// without a name or without any usable interface is an error.
CardParse parseAgentCard(QByteArrayView json, const QUrl &source);

// The interface to use: 1.0 before 0.3, card order within a version (the first is preferred),
// restricted to `binding` ("JSONRPC" / "HTTP+JSON") and `version` ("1.0" / "0.3") when given.
std::optional<AgentInterface> selectInterface(const AgentCard &card, const QString &binding = {},
                                              const QString &version = {});

} // namespace Runwatch::A2a
