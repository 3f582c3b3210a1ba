// SPDX-License-Identifier: GPL-3.0-or-later
#include "tokensource.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTimer>

#include <QCoroProcess>
#include <QCoroSignal>

#include <memory>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

// Refresh this long before the token's expiry, so a request never leaves with a token that
// expires on its way.
constexpr qint64 kRefreshMarginSeconds = 300;
// A token whose expiry we cannot read is taken to live as long as an Entra token usually does.
constexpr qint64 kAssumedLifetimeSeconds = 3600;
constexpr int kCommandTimeoutMs = 120000;
// A token is a few KiB at most (a JWT with many claims); more is not a token, and a command
// that prints without end must not fill the memory.
constexpr qsizetype kMaxOutputBytes = 64 * 1024;
// Only the first line of stderr is shown (why it failed): keep no more than this of it.
constexpr qsizetype kMaxErrorBytes = 4096;

RunError authError(QString code, QString message)
{
    RunError error;
    error.kind = ErrorKind::Auth;
    error.code = std::move(code);
    error.message = std::move(message);
    return error;
}

RunError closed()
{
    return RunError::cancelled(TokenSource::tr("The connection was closed."));
}

// One line of printable characters: anything else would not fit in a header as it is.
bool isTokenText(const QString &token)
{
    if (token.isEmpty())
        return false;
    for (const QChar ch : token) {
        if (ch.unicode() <= 0x20 || ch.unicode() == 0x7f)
            return false;
    }
    return true;
}

} // namespace

TokenSource::TokenSource(QString staticToken, QString command, QObject *parent)
    : QObject(parent)
    , m_command(std::move(command))
    , m_token(m_command.isEmpty() ? staticToken : QString())
    , m_staticToken(std::move(staticToken))
{}

TokenSource::~TokenSource()
{
    if (m_process) {
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(1000);
    }
}

QDateTime TokenSource::jwtExpiry(const QString &token)
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

QProcessEnvironment TokenSource::commandEnvironment(const QProcessEnvironment &environment,
                                                    const QString &secret)
{
    QProcessEnvironment out = environment;
    const QStringList names = environment.keys();
    for (const QString &name : names) {
        const QString upper = name.toUpper();
        if (upper.endsWith(u"_API_KEY"_s) || upper.endsWith(u"_APIKEY"_s) || upper.startsWith(u"RUNWATCH_"_s)
            || (!secret.isEmpty() && environment.value(name) == secret))
            out.remove(name);
    }
    return out;
}

bool TokenSource::fresh() const
{
    return !m_token.isEmpty()
           && (!m_expiresAt.isValid()
               || QDateTime::currentDateTimeUtc().secsTo(m_expiresAt) > kRefreshMarginSeconds);
}

void TokenSource::stop()
{
    m_stopped = true;
    if (m_process)
        m_process->kill();
}

QCoro::Task<TokenSource::Result> TokenSource::token(bool refresh)
{
    QPointer<TokenSource> self = this;
    if (m_command.isEmpty())
        co_return Result{m_token, {}};
    if (m_stopped)
        co_return Result{{}, closed()};
    if (!refresh && fresh())
        co_return Result{m_token, {}};
    if (m_running) {
        // One command at a time: everyone who needs a token waits for the same run.
        co_await qCoro(this, &TokenSource::refreshed);
        if (!self)
            co_return Result{{}, closed()};
    } else {
        co_await runCommand();
        if (!self)
            co_return Result{{}, closed()};
    }
    if (m_lastError.isError())
        co_return Result{{}, m_lastError};
    co_return Result{m_token, {}};
}

QCoro::Task<> TokenSource::runCommand()
{
    QPointer<TokenSource> self = this;
    m_running = true;
    ++m_runs;
    m_lastError = RunError();
    auto *process = new QProcess(this);
    m_process = process;
    process->setProgram(u"/bin/sh"_s);
    process->setArguments({u"-c"_s, m_command});
    process->setProcessChannelMode(QProcess::SeparateChannels);
    process->setProcessEnvironment(
        commandEnvironment(QProcessEnvironment::systemEnvironment(), m_staticToken));
    // Read as it comes, bounded: QProcess would otherwise buffer whatever the command prints.
    auto output = std::make_shared<QByteArray>();
    auto errors = std::make_shared<QByteArray>();
    auto tooLong = std::make_shared<bool>(false);
    connect(process, &QProcess::readyReadStandardOutput, this, [process, output, tooLong] {
        const QByteArray chunk = process->readAllStandardOutput();
        if (*tooLong)
            return; // already refused: what still comes is dropped
        output->append(chunk);
        if (output->size() > kMaxOutputBytes) {
            *tooLong = true;
            output->clear();
            process->kill();
        }
    });
    connect(process, &QProcess::readyReadStandardError, this, [process, errors] {
        const QByteArray chunk = process->readAllStandardError();
        errors->append(chunk.left(kMaxErrorBytes - errors->size()));
    });
    process->start(QIODevice::ReadOnly);
    const bool finished = co_await qCoro(*process).waitForFinished(kCommandTimeoutMs);
    if (!self)
        co_return;
    m_running = false;
    m_process = nullptr;
    if (finished && !*tooLong) {
        output->append(process->readAllStandardOutput());
        errors->append(process->readAllStandardError().left(kMaxErrorBytes - errors->size()));
    }
    if (m_stopped) {
        m_lastError = closed();
    } else if (process->error() == QProcess::FailedToStart) {
        m_lastError = authError(u"token_command_failed"_s, tr("The token command could not be started."));
    } else if (*tooLong || output->size() > kMaxOutputBytes) {
        m_lastError = authError(u"token_command_output"_s,
                                tr("The token command printed more than %1 KiB: that is not a token.")
                                    .arg(kMaxOutputBytes / 1024));
    } else if (!finished) {
        process->kill();
        m_lastError
            = authError(u"token_command_timeout"_s,
                        tr("The token command did not finish within %1 s.").arg(kCommandTimeoutMs / 1000));
    } else if (process->exitStatus() != QProcess::NormalExit || process->exitCode() != 0) {
        // stderr says why (e.g. "Please run 'az login'"); stdout would be the token, never shown.
        QString why = QString::fromLocal8Bit(*errors).trimmed().section(u'\n', 0, 0);
        if (why.size() > 200)
            why = why.left(200) + u'…';
        m_lastError = authError(
            u"token_command_failed"_s,
            why.isEmpty()
                ? tr("The token command failed (exit code %1).").arg(process->exitCode())
                : tr("The token command failed (exit code %1): %2").arg(process->exitCode()).arg(why));
    } else {
        const QString token = QString::fromUtf8(*output).trimmed();
        if (!isTokenText(token)) {
            m_lastError
                = authError(u"token_command_output"_s,
                            tr("The token command printed no token (expected the token alone on one line)."));
        } else {
            m_token = token;
            m_expiresAt = jwtExpiry(token);
            if (!m_expiresAt.isValid())
                m_expiresAt = QDateTime::currentDateTimeUtc().addSecs(kAssumedLifetimeSeconds);
        }
    }
    output->fill('\0');
    if (m_lastError.isError())
        m_token.clear();
    process->deleteLater();
    Q_EMIT refreshed();
}

} // namespace Runwatch
