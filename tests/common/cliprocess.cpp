// SPDX-License-Identifier: GPL-3.0-or-later
#include "cliprocess.h"

#include <QDeadlineTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>

using namespace Qt::StringLiterals;

namespace RunwatchTest {

QProcess *launchCli(const QString &program, const QStringList &args, QObject *parent,
                    const QStringList &extraEnv)
{
    auto *p = new QProcess(parent);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(u"RUNWATCH_API_KEY"_s);
    env.remove(u"OPENAI_API_KEY"_s);
    for (const QString &kv : extraEnv)
        env.insert(kv.section(u'=', 0, 0), kv.section(u'=', 1));
    p->setProcessEnvironment(env);
    p->start(program, args);
    return p;
}

QProcessEnvironment environmentInLanguage(const QString &lang)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const QString &name : {u"LC_ALL"_s, u"LC_MESSAGES"_s, u"LANGUAGE"_s})
        env.remove(name);
    env.insert(u"LANG"_s, lang);
    return env;
}

CliResult finishCli(QProcess *process, int ms)
{
    CliResult r;
    // Not waitForFinished(): it would block the simulators in this thread's event loop. And
    // stateChanged, not finished(): a process that could not be started never finishes.
    QSignalSpy stateChanges(process, &QProcess::stateChanged);
    const QDeadlineTimer deadline(ms);
    while (process->state() != QProcess::NotRunning
           && stateChanges.wait(int(std::max<qint64>(1, deadline.remainingTime())))) {
    }
    if (process->state() != QProcess::NotRunning) {
        process->kill();
        process->waitForFinished();
        r.timedOut = true;
        qWarning("%s did not finish in time", qPrintable(process->program()));
    }
    if (process->error() == QProcess::FailedToStart) {
        // The exec failed (e.g. a concurrent build was relinking the binary). Qt's child then
        // exits with 255, which must not read as the program's own exit code.
        qWarning("%s could not be started: %s", qPrintable(process->program()),
                 qPrintable(process->errorString()));
        r.exitCode = -2;
        r.err = process->errorString().toUtf8();
        process->deleteLater();
        return r;
    }
    r.exitCode = process->exitStatus() == QProcess::NormalExit ? process->exitCode() : -1;
    r.out = process->readAllStandardOutput();
    r.err = process->readAllStandardError();
    process->deleteLater();
    return r;
}

QList<QJsonObject> jsonLines(const QByteArray &out)
{
    QList<QJsonObject> lines;
    for (const QByteArray &line : out.split('\n')) {
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        if (!o.isEmpty())
            lines << o;
    }
    return lines;
}

QJsonObject firstOfType(const QByteArray &out, const QString &type)
{
    for (const QJsonObject &o : jsonLines(out)) {
        if (o.value(u"type"_s).toString() == type)
            return o;
    }
    return {};
}

QString runIdFrom(const QByteArray &out)
{
    return firstOfType(out, u"run"_s).value(u"run"_s).toString();
}

} // namespace RunwatchTest
