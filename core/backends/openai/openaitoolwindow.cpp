// SPDX-License-Identifier: GPL-3.0-or-later
#include "openaitoolwindow.h"

#include "openaimapper.h"

#include <QCoreApplication>

#include <cmath>

using namespace Qt::StringLiterals;

namespace Runwatch::OpenAi {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "OpenAiConnector".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(OpenAiConnector)
};
} // namespace

QDateTime agentToolWindowEnd(const QJsonObject &response)
{
    if (!response.value(kAgentReference).isObject())
        return {};
    // Unix seconds; Azure has been seen sending fractions. Anything else says nothing.
    const double createdAt = response.value(u"created_at"_s).toDouble(-1);
    if (!std::isfinite(createdAt) || createdAt <= 0 || createdAt > 1e11)
        return {};
    return QDateTime::fromSecsSinceEpoch(qint64(createdAt), Qt::UTC).addSecs(kAgentToolWindowSecs);
}

RunError agentToolWindowExpired()
{
    RunError error;
    error.kind = ErrorKind::Run;
    error.code = u"expired"_s;
    error.message = Text::tr("Nobody answered the agent's tool calls within the service's 10-minute window: "
                             "the response has expired. Start a new run to go on.");
    return error;
}

} // namespace Runwatch::OpenAi
