// SPDX-License-Identifier: GPL-3.0-or-later
#include "backends/errorobject.h"

#include <QCoreApplication>

using namespace Qt::StringLiterals;

namespace Runwatch {

RunError mapErrorObject(const QJsonObject &object, ErrorKind kind)
{
    // Real servers nest the payload ({"error":{…}}); the published schema is flat. Accept both.
    const QJsonObject e = object.value(u"error"_s).isObject() ? object.value(u"error"_s).toObject() : object;
    RunError error;
    error.kind = kind;
    const QJsonValue code = e.value(u"code"_s);
    error.code = code.isDouble() ? QString::number(code.toDouble()) : code.toString();
    if (error.code.isEmpty())
        error.code = e.value(u"type"_s).toString();
    error.message = e.value(u"message"_s).toString();
    if (error.message.isEmpty()) {
        error.message = QCoreApplication::translate("Runwatch::ErrorObject",
                                                    "The server reported an error without a message.");
    }
    error.retryable = error.code == u"server_error" || error.code == u"rate_limit_exceeded";
    return error;
}

} // namespace Runwatch
