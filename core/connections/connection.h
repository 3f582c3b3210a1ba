// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonObject>
#include <QString>
#include <QUrl>

namespace Runwatch {

enum class AuthStyle {
    None,
    Bearer,       // Authorization: Bearer <key>
    ApiKeyHeader, // api-key: <key> (Azure OpenAI)
};

// A configured place where runs live. The API key is runtime-only: it is filled in from the
// environment (CLI) or the keychain (GUI) and never serialised by toJson().
struct Connection
{
    QString name;
    QString backend; // "openai", ...
    QUrl baseUrl;    // e.g. https://api.openai.com/v1
    AuthStyle auth = AuthStyle::Bearer;
    QString apiKey;
    // Plain http:// to a host that is not loopback is refused unless this is set (and then the
    // UI shows a warning).
    bool allowInsecureHttp = false;
    QString defaultModel;
    QJsonObject options; // backend specific

    QJsonObject toJson() const; // never includes apiKey
    static Connection fromJson(const QJsonObject &object);
};

QString authStyleName(AuthStyle style);
AuthStyle authStyleFromName(QStringView name);

} // namespace Runwatch
