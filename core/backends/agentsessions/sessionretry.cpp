// SPDX-License-Identifier: GPL-3.0-or-later
#include "sessionretry.h"

#include <QString>

using namespace Qt::StringLiterals;

namespace Runwatch::AgentSessions {

bool isUnregisteredCall(const HttpResponse &response)
{
    if (response.status != 400 && response.status != 409)
        return false;
    const QString message = QString::fromUtf8(response.body);
    return message.contains(u"not yet registered"_s, Qt::CaseInsensitive)
           || message.contains(u"Unknown pending tool call"_s, Qt::CaseInsensitive);
}

} // namespace Runwatch::AgentSessions
