// SPDX-License-Identifier: GPL-3.0-or-later
#include "foundrytokensource.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTimer>

#include <QCoroProcess>
#include <QCoroSignal>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

// Refresh this long before the token's expiry, so a request never leaves with a token that
// expires on its way.
constexpr qint64 kRefreshMarginSeconds = 300;
// A token whose expiry we cannot read is taken to live as long as an Entra token usually does.
constexpr qint64 kAssumedLifetimeSeconds = 3600;
constexpr int kCommandTimeoutMs = 120000;

RunError authError(QString code, QString message)
{
    RunError error;
    error.kind = ErrorKind::Auth;
    error.code = std::move(code);
    error.message = std::move(message);
    return error;
}

} // namespace

FoundryTokenSource::FoundryTokenSource(QString staticToken, QString command, QObject *parent)
    : QObject(parent)
    , m_command(std::move(command))
    , m_token(m_command.isEmpty() ? std::move(staticToken) : QString())
{}

FoundryTokenSource::~FoundryTokenSource()
{
    if (m_process) {
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(1000);
    }
}

QDateTime FoundryTokenSource::jwtExpiry(const QString &token)
{
    const QStringList parts = token.split(u'.');
    if (parts.size() != 3)
        return {};
    const QByteArray payload = QByteArray::fromBase64(parts.at(1).toLatin1(), QByteArray::Base64UrlEncoding);
    const QJsonValue exp = QJsonDocument::fromJson(payload).object().value(u"exp"_s);
    if (!exp.isDouble() || exp.toDouble() <= 0)
        return {};
    return QDateTime::fromSecsSinceEpoch(qint64(exp.toDouble()), Qt::UTC);
}

bool FoundryTokenSource::fresh() const
{
    return !m_token.isEmpty()
           && (!m_expiresAt.isValid()
               || QDateTime::currentDateTimeUtc().secsTo(m_expiresAt) > kRefreshMarginSeconds);
}

void FoundryTokenSource::stop()
{
    m_stopped = true;
    if (m_process)
        m_process->kill();
}

QCoro::Task<FoundryTokenSource::Result> FoundryTokenSource::token(bool refresh)
{
    QPointer<FoundryTokenSource> self = this;
    if (m_command.isEmpty())
        co_return Result{m_token, {}};
    if (m_stopped)
        co_return Result{{}, RunError::cancelled(u"The connection was closed."_s)};
    if (!refresh && fresh())
        co_return Result{m_token, {}};
    if (m_running) {
        // One command at a time: everyone who needs a token waits for the same run.
        co_await qCoro(this, &FoundryTokenSource::refreshed);
        if (!self)
            co_return Result{{}, RunError::cancelled(u"The connection was closed."_s)};
    } else {
        co_await runCommand();
        if (!self)
            co_return Result{{}, RunError::cancelled(u"The connection was closed."_s)};
    }
    if (m_lastError.isError())
        co_return Result{{}, m_lastError};
    co_return Result{m_token, {}};
}

QCoro::Task<> FoundryTokenSource::runCommand()
{
    QPointer<FoundryTokenSource> self = this;
    m_running = true;
    ++m_runs;
    m_lastError = RunError();
    auto *process = new QProcess(this);
    m_process = process;
    process->setProgram(u"/bin/sh"_s);
    process->setArguments({u"-c"_s, m_command});
    process->setProcessChannelMode(QProcess::SeparateChannels);
    process->start(QIODevice::ReadOnly);
    const bool finished = co_await qCoro(*process).waitForFinished(kCommandTimeoutMs);
    if (!self)
        co_return;
    m_running = false;
    m_process = nullptr;
    if (m_stopped) {
        m_lastError = RunError::cancelled(u"The connection was closed."_s);
    } else if (process->error() == QProcess::FailedToStart) {
        m_lastError = authError(u"token_command_failed"_s, u"The token command could not be started."_s);
    } else if (!finished) {
        process->kill();
        m_lastError
            = authError(u"token_command_timeout"_s,
                        u"The token command did not finish within %1 s."_s.arg(kCommandTimeoutMs / 1000));
    } else if (process->exitStatus() != QProcess::NormalExit || process->exitCode() != 0) {
        // stderr says why (e.g. "Please run 'az login'"); stdout would be the token, never shown.
        QString why = QString::fromLocal8Bit(process->readAllStandardError()).trimmed().section(u'\n', 0, 0);
        if (why.size() > 200)
            why = why.left(200) + u'…';
        m_lastError = authError(u"token_command_failed"_s,
                                u"The token command failed (exit code %1)%2"_s.arg(process->exitCode())
                                    .arg(why.isEmpty() ? u"."_s : u": "_s + why));
    } else {
        const QString token = QString::fromUtf8(process->readAllStandardOutput()).trimmed();
        if (token.isEmpty() || token.contains(u'\n') || token.contains(u' ')) {
            m_lastError
                = authError(u"token_command_output"_s,
                            u"The token command printed no token (expected the token alone on one line)."_s);
        } else {
            m_token = token;
            m_expiresAt = jwtExpiry(token);
            if (!m_expiresAt.isValid())
                m_expiresAt = QDateTime::currentDateTimeUtc().addSecs(kAssumedLifetimeSeconds);
        }
    }
    if (m_lastError.isError())
        m_token.clear();
    process->deleteLater();
    Q_EMIT refreshed();
}

} // namespace Runwatch
