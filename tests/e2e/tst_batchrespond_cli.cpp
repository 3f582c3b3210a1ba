// SPDX-License-Identifier: GPL-3.0-or-later
// `runwatch-cli respond RUN RUN… --approve` (issue 31) as an operator runs it: real processes
// against the jobs simulator, sharing one store. Twenty jobs waiting for approval are answered in
// one command, each by its own request (checked in the simulator's request log); the one whose
// approval the service refuses is reported and stays waiting, the other nineteen go on. A run the
// answer does not fit is a line of its own (exit 1, never 2).
#include "cliprocess.h"
#include "jobs/jobssim.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace Qt::StringLiterals;
using RunwatchSim::JobsEndpoint;
using RunwatchSim::JobsSimulator;
using Result = RunwatchTest::CliResult;
using RunwatchTest::finishCli;
using RunwatchTest::jsonLines;
using RunwatchTest::runIdFrom;

class TestBatchRespondCli final : public QObject
{
    Q_OBJECT

    JobsSimulator *m_sim = nullptr;
    QTemporaryDir *m_dir = nullptr;

    QStringList globals() const
    {
        return {u"--backend"_s, u"jobs"_s,
                u"--url"_s,     m_sim->baseUrl().toString(),
                u"--store"_s,   m_dir->filePath(u"runs.sqlite"_s)};
    }
    QProcess *launch(const QStringList &args)
    {
        return RunwatchTest::launchCli(QStringLiteral(RUNWATCH_CLI_PATH), globals() + args, this);
    }
    Result cli(const QStringList &args) { return finishCli(launch(args)); }

    // Starts each prompt with start --follow up to its suspension (exit 5), a few processes at
    // a time; the run ids in the prompts' order.
    QStringList startUntilInput(const QStringList &prompts)
    {
        QStringList ids;
        constexpr int kAtOnce = 4;
        for (qsizetype from = 0; from < prompts.size(); from += kAtOnce) {
            QList<QProcess *> running;
            for (qsizetype i = from; i < std::min(prompts.size(), from + kAtOnce); ++i)
                running << launch({u"--json"_s, u"start"_s, u"--prompt"_s, prompts.at(i), u"--follow"_s});
            for (QProcess *p : std::as_const(running)) {
                const Result r = finishCli(p);
                if (r.exitCode != 5)
                    qWarning("start: exit %d, %s %s", r.exitCode, r.out.constData(), r.err.constData());
                ids << (r.exitCode == 5 ? runIdFrom(r.out) : QString());
            }
        }
        return ids;
    }

private Q_SLOTS:
    void init()
    {
        RunwatchSim::JobsSimConfig config;
        config.intervalMs = 2;
        config.pollRetryAfter = "0.05";
        m_sim = new JobsSimulator(config, this);
        QVERIFY(m_sim->listen());
        m_dir = new QTemporaryDir;
        QVERIFY(m_dir->isValid());
        // The store is created (and its schema set up) once, before processes share it.
        QCOMPARE(cli({u"list"_s}).exitCode, 0);
    }
    void cleanup()
    {
        delete m_sim;
        delete m_dir;
    }

    // Acceptance: 20 approvals in one step; the service refuses one of them.
    void twentyApprovalsOneRefused()
    {
        QStringList prompts;
        for (int i = 0; i < 20; ++i)
            prompts << (i == 7 ? u"approval deltas=4 input_fault=500"_s : u"approval deltas=4"_s);
        const QStringList ids = startUntilInput(prompts);
        QCOMPARE(ids.size(), 20);
        QVERIFY(!ids.contains(QString()));

        const Result r = cli(QStringList{u"--json"_s, u"respond"_s} + ids
                             + QStringList{u"--approve"_s, u"--comment"_s, u"batch"_s});
        QCOMPARE(r.exitCode, 1);
        const QList<QJsonObject> lines = jsonLines(r.out);
        QCOMPARE(lines.size(), 20);
        for (int i = 0; i < 20; ++i) {
            const QJsonObject &line = lines.at(i);
            QCOMPARE(line.value(u"type"_s).toString(), u"respond"_s);
            QCOMPARE(line.value(u"run"_s).toString(), ids.at(i));
            QCOMPARE(line.value(u"ok"_s).toBool(), i != 7);
            if (i == 7) {
                QVERIFY2(line.value(u"error"_s).toString().contains(u"refused the answer"_s),
                         qPrintable(line.value(u"error"_s).toString()));
            } else {
                QVERIFY(line.value(u"error"_s).isNull());
            }
        }

        // Each job got its own request, once; the refused one stays waiting, the others went on.
        const auto inputs = m_sim->requests(JobsEndpoint::Input);
        QCOMPARE(inputs.size(), 20);
        QSet<QString> jobs;
        for (const auto &request : inputs) {
            jobs.insert(request.jobId);
            QCOMPARE(QJsonDocument::fromJson(request.body).object(),
                     (QJsonObject{{u"approved"_s, true}, {u"comment"_s, u"batch"_s}}));
        }
        QCOMPARE(jobs.size(), 20);
        const Result listed = cli({u"--json"_s, u"list"_s, u"--all"_s});
        QHash<QString, QString> remoteOf;
        for (const QJsonObject &o : jsonLines(listed.out))
            remoteOf.insert(o.value(u"run"_s).toString(), o.value(u"remote_id"_s).toString());
        for (int i = 0; i < 20; ++i) {
            const auto job = m_sim->job(remoteOf.value(ids.at(i)));
            QVERIFY(job);
            const auto answered = std::find_if(inputs.cbegin(), inputs.cend(),
                                               [&](const auto &rec) { return rec.jobId == job->id; });
            QVERIFY(answered != inputs.cend());
            QCOMPARE(answered->status, i == 7 ? 500 : 202);
            if (i == 7) {
                QCOMPARE(job->status, u"input_required"_s);
                QVERIFY(job->answers.isEmpty());
            } else {
                QCOMPARE(job->answers.size(), 1);
            }
        }
        // The refused run's own record says why (its timeline), and it can be answered again.
        const Result exported = cli({u"export"_s, ids.at(7), u"--format"_s, u"json"_s});
        QVERIFY2(exported.out.contains("answer not taken"), exported.out.left(2000).constData());
    }

    // A run the answer does not fit (an approval for a question) is its own ok:false line and
    // exit 1; the other run is answered. Text mode: one readable line per run.
    void mixedKindsReportedPerRun()
    {
        const QStringList ids = startUntilInput({u"approval deltas=4"_s, u"ask_user deltas=4"_s});
        QCOMPARE(ids.size(), 2);
        QVERIFY(!ids.contains(QString()));
        const Result r = cli({u"respond"_s, ids.at(0), ids.at(1), u"--approve"_s});
        QCOMPARE(r.exitCode, 1);
        const QStringList lines = QString::fromUtf8(r.out).split(u'\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 2);
        QVERIFY2(lines.at(0).startsWith(ids.at(0) + u": answered"_s), qPrintable(lines.at(0)));
        QVERIFY2(lines.at(1).startsWith(ids.at(1) + u": not answered"_s)
                     && lines.at(1).contains(u"not an approval"_s),
                 qPrintable(lines.at(1)));
        QCOMPARE(m_sim->requestCount(JobsEndpoint::Input), 1);

        // An unknown run is a line too, not a usage error.
        const Result unknown
            = cli({u"--json"_s, u"respond"_s, ids.at(1), u"no-such-run"_s, u"--text"_s, u"EMEA"_s});
        QCOMPARE(unknown.exitCode, 1);
        const QList<QJsonObject> json = jsonLines(unknown.out);
        QCOMPARE(json.size(), 2);
        QVERIFY(json.at(0).value(u"ok"_s).toBool());
        QVERIFY(!json.at(1).value(u"ok"_s).toBool());
        QCOMPARE(json.at(1).value(u"run"_s).toString(), u"no-such-run"_s);

        // All taken: exit 0. A typed answer to several runs is a usage error (2).
        const QStringList more = startUntilInput({u"approval deltas=4"_s, u"approval deltas=4"_s});
        QCOMPARE(cli({u"respond"_s, more.at(0), more.at(1), u"--reject"_s}).exitCode, 0);
        QCOMPARE(cli({u"respond"_s, more.at(0), more.at(1), u"--value"_s, u"1"_s}).exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestBatchRespondCli)
#include "tst_batchrespond_cli.moc"
