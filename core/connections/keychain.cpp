// SPDX-License-Identifier: GPL-3.0-or-later
#include "keychain.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPointer>
#include <QSaveFile>
#include <QStandardPaths>

#include <QCoroSignal>
#include <qt6keychain/keychain.h>

#include <chrono>
#include <memory>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;

namespace Runwatch {

namespace {

using Status = KeyStore::Status;

// No keychain at all: the only case where the opted-in plain file may stand in for it. A keychain
// that is there but denied access (a locked or refused prompt) or did not answer in time is not
// absent: a key must not quietly go to the plain file because the operator said no.
bool isUnavailable(QKeychain::Error error)
{
    // On Linux QtKeychain reports a missing bus or Secret Service as OtherError.
    return error == QKeychain::NoBackendAvailable || error == QKeychain::NotImplemented
           || error == QKeychain::OtherError;
}

QString unavailableMessage(const QString &detail)
{
    return QCoreApplication::translate(
               "Keychain",
               "The system keychain is not available (%1). API keys are only stored there; to keep one "
               "anyway, allow the less secure plain-file store in the settings.")
        .arg(detail.isEmpty() ? QCoreApplication::translate("Keychain", "no Secret Service") : detail);
}

} // namespace

Keychain::Keychain(QObject *parent)
    : QObject(parent)
    , m_service(u"io.github.runwatch.Runwatch"_s)
    , m_insecurePath(defaultInsecurePath())
{}

QString Keychain::defaultInsecurePath()
{
    QString dir = QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation);
    if (dir.isEmpty())
        dir = QDir::homePath() + u"/.config/runwatch"_s;
    return dir + u"/insecure-secrets.json"_s;
}

void Keychain::setInsecureFallback(bool allowed, const QString &path)
{
    m_insecureAllowed = allowed;
    m_insecurePath = path;
}

QCoro::Task<Keychain::Result> Keychain::read(QString account)
{
    return runKeychain(Op::Read, std::move(account), {});
}

QCoro::Task<Keychain::Result> Keychain::write(QString account, QString secret)
{
    return runKeychain(Op::Write, std::move(account), std::move(secret));
}

QCoro::Task<Keychain::Result> Keychain::remove(QString account)
{
    return runKeychain(Op::Remove, std::move(account), {});
}

QCoro::Task<Keychain::Result> Keychain::runKeychain(Op op, QString account, QString secret)
{
    QPointer<Keychain> self = this;
    std::unique_ptr<QKeychain::Job, void (*)(QKeychain::Job *)> job(
        nullptr, [](QKeychain::Job *j) { j->deleteLater(); });
    switch (op) {
    case Op::Read:
        job.reset(new QKeychain::ReadPasswordJob(m_service));
        break;
    case Op::Write: {
        auto *w = new QKeychain::WritePasswordJob(m_service);
        w->setTextData(secret);
        job.reset(w);
        break;
    }
    case Op::Remove:
        job.reset(new QKeychain::DeletePasswordJob(m_service));
        break;
    }
    // We read the job's results after it finished, so it must not delete itself.
    job->setAutoDelete(false);
    job->setKey(account);
    job->start();
    const auto done = co_await qCoro(job.get(), &QKeychain::Job::finished, 15s);
    Result result;
    if (!self) {
        result.error = u"cancelled"_s;
        co_return result;
    }
    if (!done) {
        // Perhaps waiting for the operator to unlock it: not a reason to use the plain file.
        result.status = Status::Unavailable;
        result.error = QCoreApplication::translate(
            "Keychain", "The system keychain did not answer within 15 s (is it waiting to be unlocked?).");
        co_return result;
    } else if (job->error() == QKeychain::NoError) {
        result.status = Status::Ok;
        if (op == Op::Read)
            result.secret = static_cast<QKeychain::ReadPasswordJob *>(job.get())->textData();
        co_return result;
    } else if (job->error() == QKeychain::EntryNotFound) {
        if (op == Op::Remove) {
            result.status = Status::Ok; // nothing to remove is success
            co_return result;
        }
        result.status = Status::NotFound;
        result.error = QCoreApplication::translate("Keychain", "No API key is stored for %1.").arg(account);
        // A key saved earlier through the opted-in plain store is still found there.
        if (m_insecureAllowed) {
            Result insecure = runInsecure(op, account, secret);
            if (insecure.ok())
                co_return insecure;
        }
        co_return result;
    } else if (isUnavailable(job->error())) {
        result.status = Status::Unavailable;
        result.error = unavailableMessage(job->errorString());
    } else {
        result.error
            = QCoreApplication::translate("Keychain", "The keychain refused: %1").arg(job->errorString());
        co_return result;
    }
    if (result.status == Status::Unavailable && m_insecureAllowed) {
        Result insecure = runInsecure(op, account, secret);
        // The plain file failing too still reads as "no keychain": that is why it was tried.
        if (insecure.status == Status::Error)
            insecure.status = Status::Unavailable;
        co_return insecure;
    }
    co_return result;
}

Keychain::Result Keychain::runInsecure(Op op, const QString &account, const QString &secret)
{
    Result result;
    result.plainFile = true;
    QJsonObject all;
    {
        QFile file(m_insecurePath);
        if (file.exists()) {
            if (!file.open(QIODevice::ReadOnly)) {
                result.error = QCoreApplication::translate("Keychain", "Cannot read %1: %2")
                                   .arg(m_insecurePath, file.errorString());
                return result;
            }
            // Damaged (a partial copy, an edit gone wrong): read as empty and written back, it
            // would lose every other key in it. Left as it is, and said so.
            QJsonParseError parseError;
            const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &parseError);
            if (parseError.error != QJsonParseError::NoError || !document.isObject()) {
                result.error
                    = QCoreApplication::translate(
                          "Keychain", "The plain key file %1 is damaged; it was left untouched. Repair "
                                      "or remove it, then save the key again.")
                          .arg(m_insecurePath);
                return result;
            }
            all = document.object();
        }
    }
    const QString key = m_service + u'/' + account;
    if (op == Op::Read) {
        if (!all.contains(key)) {
            result.status = Status::NotFound;
            result.error
                = QCoreApplication::translate("Keychain", "No API key is stored for %1.").arg(account);
            return result;
        }
        result.status = Status::Ok;
        result.secret = all.value(key).toString();
        return result;
    }
    if (op == Op::Write) {
        all.insert(key, secret);
    } else {
        all.remove(key);
    }
    QDir().mkpath(QFileInfo(m_insecurePath).absolutePath());
    QSaveFile file(m_insecurePath);
    if (!file.open(QIODevice::WriteOnly)) {
        result.error = QCoreApplication::translate("Keychain", "Cannot write %1: %2")
                           .arg(m_insecurePath, file.errorString());
        return result;
    }
    // Owner read/write only, before any byte of the secret is written.
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    file.write(QJsonDocument(all).toJson(QJsonDocument::Compact));
    if (!file.commit()) {
        result.error = QCoreApplication::translate("Keychain", "Cannot write %1: %2")
                           .arg(m_insecurePath, file.errorString());
        return result;
    }
    QFile::setPermissions(m_insecurePath, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    result.status = Status::Ok;
    return result;
}

} // namespace Runwatch
