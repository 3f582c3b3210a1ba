// SPDX-License-Identifier: GPL-3.0-or-later
// Structured input and typed answers from runwatch-cli against the jobs simulator: `respond
// --value JSON` answers the "form" scenario's JSON Schema and the job receives exactly that JSON
// (numbers as numbers, booleans as booleans); an answer that does not fit, or is no JSON, is
// refused with exit 2 and a message naming the field, and nothing is sent. `start --input JSON`
// puts the value into the kickoff body; bad JSON, or a backend without structured input, is
// refused before any request.
#include "cliprocess.h"
#include "jobs/jobssim.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace Qt::StringLiterals;
using RunwatchSim::JobsEndpoint;
using RunwatchSim::JobsSimulator;
using Result = RunwatchTest::CliResult;
using RunwatchTest::finishCli;
using RunwatchTest::runIdFrom;

namespace {
constexpr auto kGoodAnswer
    = R"({"title":"v2.1","replicas":3,"budget":12.5,"dry_run":false,"region":"eu-west"})";
}

class TestTypedInputCli final : public QObject
{
    Q_OBJECT

    JobsSimulator *m_sim = nullptr;
    QTemporaryDir *m_dir = nullptr;

    Result cli(const QStringList &args, const QString &backend = u"jobs"_s)
    {
        const QStringList globals{u"--backend"_s, backend,
                                  u"--url"_s,     m_sim->baseUrl().toString(),
                                  u"--store"_s,   m_dir->filePath(u"runs.sqlite"_s)};
        return RunwatchTest::runCli(globals + args, this);
    }

    // A "form" job followed up to its suspension: the run id.
    QString startForm()
    {
        const Result r = cli({u"--json"_s, u"start"_s, u"--prompt"_s, u"form deltas=4"_s, u"--follow"_s});
        if (r.exitCode != 5)
            qWarning("start: exit %d, %s %s", r.exitCode, r.out.constData(), r.err.constData());
        return r.exitCode == 5 ? runIdFrom(r.out) : QString();
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
    }
    void cleanup()
    {
        delete m_sim;
        delete m_dir;
    }

    void respondValueSendsTypedJson()
    {
        const QString id = startForm();
        QVERIFY(!id.isEmpty());
        const auto asked = m_sim->job(m_sim->lastJobId());
        QVERIFY(asked);
        QCOMPARE(asked->inputRequest.value(u"type"_s).toString(), u"form"_s);
        const Result answered = cli({u"respond"_s, id, u"--value"_s, QString::fromLatin1(kGoodAnswer)});
        QVERIFY2(answered.exitCode == 0 || answered.exitCode == 6, answered.err.constData());
        const auto job = m_sim->job(m_sim->lastJobId());
        QVERIFY(job);
        QCOMPARE(job->answers.size(), 1);
        const QJsonObject expected{{u"value"_s, QJsonObject{{u"title"_s, u"v2.1"_s},
                                                            {u"replicas"_s, 3},
                                                            {u"budget"_s, 12.5},
                                                            {u"dry_run"_s, false},
                                                            {u"region"_s, u"eu-west"_s}}}};
        QCOMPARE(job->answers.first(), expected);
        // On the wire, byte for byte: the number is a number, the boolean a boolean.
        const QByteArray body = m_sim->requests(JobsEndpoint::Input).first().body;
        QVERIFY2(body.contains(R"("replicas":3)") && body.contains(R"("dry_run":false)"), body.constData());
        const Result watched = cli({u"watch"_s, id});
        QCOMPARE(watched.exitCode, 0);
        QVERIFY2(watched.out.contains("[form: "), watched.out.constData());
    }

    void respondValueRefusedBeforeSending_data()
    {
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("message");
        QTest::addRow("number as text")
            << uR"({"title":"v","replicas":"3","budget":1,"dry_run":true,"region":"eu-west"})"_s
            << u"replicas: must be a whole number"_s;
        QTest::addRow("over the maximum")
            << uR"({"title":"v","replicas":11,"budget":1,"dry_run":true,"region":"eu-west"})"_s
            << u"replicas: must be at most 10"_s;
        QTest::addRow("boolean as text")
            << uR"({"title":"v","replicas":1,"budget":1,"dry_run":"no","region":"eu-west"})"_s
            << u"dry_run: must be true or false"_s;
        QTest::addRow("not a choice")
            << uR"({"title":"v","replicas":1,"budget":1,"dry_run":true,"region":"mars"})"_s
            << u"region: must be one of"_s;
        QTest::addRow("missing") << uR"({"title":"v","replicas":1,"budget":1,"dry_run":true})"_s
                                 << u"region: is required"_s;
        QTest::addRow("not JSON") << u"{\"title\":"_s << u"--value: Not valid JSON"_s;
    }
    void respondValueRefusedBeforeSending()
    {
        QFETCH(QString, value);
        QFETCH(QString, message);
        const QString id = startForm();
        QVERIFY(!id.isEmpty());
        const Result r = cli({u"respond"_s, id, u"--value"_s, value});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
        QCOMPARE(m_sim->requestCount(JobsEndpoint::Input), 0);
        QVERIFY(m_sim->job(m_sim->lastJobId())->answers.isEmpty());
        QCOMPARE(m_sim->job(m_sim->lastJobId())->status, u"input_required"_s);
    }

    void startInputOnTheWire()
    {
        const Result r
            = cli({u"start"_s, u"--prompt"_s, u"Release notes"_s, u"--input"_s,
                   uR"({"scenario":"normal","deltas":4,"ticket":4711,"urgent":true})"_s, u"--follow"_s});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(QString::fromUtf8(r.out), JobsSimulator::tokenText(0, 4) + u'\n');
        const QJsonObject body
            = QJsonDocument::fromJson(m_sim->requests(JobsEndpoint::Kickoff).first().body).object();
        QCOMPARE(
            body.value(u"input"_s),
            QJsonValue(QJsonObject{
                {u"scenario"_s, u"normal"_s}, {u"deltas"_s, 4}, {u"ticket"_s, 4711}, {u"urgent"_s, true}}));
        // The run keeps it: another process reads it back from the store.
        const Result exported = cli({u"--json"_s, u"list"_s, u"--all"_s});
        QVERIFY2(exported.out.contains("Release notes"), exported.out.constData());
    }

    void startInputRefusedBeforeSending()
    {
        Result r = cli({u"start"_s, u"--prompt"_s, u"x"_s, u"--input"_s, u"{\"a\": }"_s});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--input: Not valid JSON"), r.err.constData());
        // A connector without structured input refuses it rather than sending the prompt alone.
        r = cli({u"--api-version"_s, u"2025-05-01"_s, u"start"_s, u"--prompt"_s, u"x"_s, u"--agent"_s,
                 u"asst_1"_s, u"--input"_s, u"{}"_s},
                u"foundry"_s);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("cannot start a run from structured input"), r.err.constData());
        QCOMPARE(m_sim->requests().size(), 0);
    }
};

QTEST_GUILESS_MAIN(TestTypedInputCli)
#include "tst_typed_input_cli.moc"
