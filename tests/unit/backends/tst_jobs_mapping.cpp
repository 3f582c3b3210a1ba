// SPDX-License-Identifier: GPL-3.0-or-later
// The jobs connector's pure parts: JSON pointers, URI templates, connection profiles, the status
// table, job objects and input requests as RunEvents, answer bodies, and the SSE mapper.
#include "backends/jobs/jobsmapper.h"
#include "backends/jobs/jobsprofile.h"
#include "domain/runreducer.h"
#include "testdata.h"
#include "json/jsonpointer.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace Runwatch;
using namespace Runwatch::Jobs;
using namespace Qt::StringLiterals;

namespace {

QJsonObject objectFrom(const QByteArray &json)
{
    return QJsonDocument::fromJson(json).object();
}

QJsonObject dataObject(const QString &name)
{
    return objectFrom(RunwatchTest::readData(u"jobs/"_s + name));
}

JobsProfile alternateProfile()
{
    QString error;
    const auto p
        = JobsProfile::fromJsonText(RunwatchTest::readData(u"jobs/alternate-profile.json"_s), &error);
    if (!p)
        qWarning("%s", qPrintable(error));
    return p.value_or(JobsProfile::defaults());
}

const RunEvent *findEvent(const QList<RunEvent> &events, RunEvent::Type type)
{
    for (const RunEvent &e : events) {
        if (e.type == type)
            return &e;
    }
    return nullptr;
}

} // namespace

class TestJobsMapping final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void pointerParse_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<QStringList>("tokens");
        QTest::addRow("root") << u""_s << true << QStringList{};
        QTest::addRow("one") << u"/status"_s << true << QStringList{u"status"_s};
        QTest::addRow("nested") << u"/task/output/text"_s << true
                                << QStringList{u"task"_s, u"output"_s, u"text"_s};
        QTest::addRow("empty key") << u"/"_s << true << QStringList{QString()};
        QTest::addRow("escapes") << u"/a~1b/m~0n"_s << true << QStringList{u"a/b"_s, u"m~n"_s};
        QTest::addRow("~01 is ~1") << u"/~01"_s << true << QStringList{u"~1"_s};
        QTest::addRow("no slash") << u"status"_s << false << QStringList{};
        QTest::addRow("bad escape") << u"/a~2"_s << false << QStringList{};
        QTest::addRow("dangling tilde") << u"/a~"_s << false << QStringList{};
    }
    void pointerParse()
    {
        QFETCH(QString, text);
        QFETCH(bool, valid);
        QFETCH(QStringList, tokens);
        QString error;
        const auto p = JsonPointer::parse(text, &error);
        QCOMPARE(p.has_value(), valid);
        if (!valid) {
            QVERIFY(!error.isEmpty());
            return;
        }
        QCOMPARE(p->tokens(), tokens);
        QCOMPARE(p->toString(), text);
    }

    // RFC 6901 §5 examples.
    void pointerEvaluate()
    {
        const QJsonObject doc
            = objectFrom("{\"foo\":[\"bar\",\"baz\"],\"\":0,\"a/b\":1,\"c%d\":2,"
                         "\"e^f\":3,\"g|h\":4,\"i\\\\j\":5,\"k\\\"l\":6,\" \":7,\"m~n\":8}");
        const auto at
            = [&](const char *p) { return JsonPointer::parse(QString::fromUtf8(p))->evaluate(doc); };
        QCOMPARE(at(""), QJsonValue(doc));
        QCOMPARE(at("/foo"), doc.value(u"foo"_s));
        QCOMPARE(at("/foo/0"), QJsonValue(u"bar"_s));
        QCOMPARE(at("/"), QJsonValue(0));
        QCOMPARE(at("/a~1b"), QJsonValue(1));
        QCOMPARE(at("/c%d"), QJsonValue(2));
        QCOMPARE(at("/k\"l"), QJsonValue(6));
        QCOMPARE(at("/ "), QJsonValue(7));
        QCOMPARE(at("/m~0n"), QJsonValue(8));
        // Missing steps and non-canonical indices find nothing.
        QVERIFY(at("/foo/2").isUndefined());
        QVERIFY(at("/foo/01").isUndefined());
        QVERIFY(at("/foo/-").isUndefined());
        QVERIFY(at("/nope/x").isUndefined());
        QVERIFY(at("/foo/0/deeper").isUndefined());
    }

    void pointerSet()
    {
        QJsonObject body{{u"kind"_s, u"report"_s}};
        QVERIFY(JsonPointer::parse(u"/request/prompt")->set(body, u"hi"_s));
        QCOMPARE(body.value(u"request"_s).toObject().value(u"prompt"_s).toString(), u"hi"_s);
        QCOMPARE(body.value(u"kind"_s).toString(), u"report"_s);
        QVERIFY(!JsonPointer::parse(u"/kind/x")->set(body, 1)); // through a string
        QVERIFY(!JsonPointer().set(body, 1));                   // the whole document
    }

    void uriTemplates_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("needsId");
        QTest::addColumn<bool>("valid");
        QTest::addRow("status") << u"/jobs/{id}"_s << true << true;
        QTest::addRow("cancel action") << u"/jobs/{id}:cancel"_s << true << true;
        QTest::addRow("query") << u"/jobs/{id}?view=full"_s << true << true;
        QTest::addRow("absolute") << u"https://other.example/jobs/{id}"_s << true << true;
        QTest::addRow("kickoff") << u"/jobs"_s << false << true;
        QTest::addRow("missing id") << u"/jobs"_s << true << false;
        QTest::addRow("id in kickoff") << u"/jobs/{id}"_s << false << false;
        QTest::addRow("other variable") << u"/jobs/{job}"_s << true << false;
        QTest::addRow("unclosed") << u"/jobs/{id"_s << true << false;
        QTest::addRow("stray close") << u"/jobs/id}"_s << true << false;
        QTest::addRow("relative") << u"jobs/{id}"_s << true << false;
        QTest::addRow("space") << u"/jobs/{id} x"_s << true << false;
        QTest::addRow("empty") << QString() << false << false;
    }
    void uriTemplates()
    {
        QFETCH(QString, text);
        QFETCH(bool, needsId);
        QFETCH(bool, valid);
        QString error;
        QCOMPARE(UriTemplate::parse(text, needsId, &error).has_value(), valid);
        QCOMPARE(error.isEmpty(), valid);
    }

    void uriResolve()
    {
        const QUrl base(u"http://127.0.0.1:8080/api/"_s);
        const auto t = UriTemplate::parse(u"/jobs/{id}:cancel?force=1"_s, true);
        QVERIFY(t);
        // The id is percent-encoded, including '/', and stays encoded in the URL.
        const QUrl url = t->resolve(base, u"a/b c"_s);
        QCOMPARE(url.toString(QUrl::FullyEncoded),
                 u"http://127.0.0.1:8080/api/jobs/a%2Fb%20c:cancel?force=1"_s);
        const auto abs = UriTemplate::parse(u"https://h.example/x/{id}"_s, true);
        QCOMPARE(abs->resolve(base, u"7"_s).toString(), u"https://h.example/x/7"_s);
    }

    void profileDefaults()
    {
        const JobsProfile p = JobsProfile::defaults();
        QCOMPARE(p.kickoffPath.text(), u"/jobs"_s);
        QCOMPARE(p.statusPath.text(), u"/jobs/{id}"_s);
        QCOMPARE(p.eventsPath.text(), u"/jobs/{id}/events"_s);
        QCOMPARE(p.cancelMethod, QByteArray("DELETE"));
        QCOMPARE(p.id.toString(), u"/job_id"_s);
        // An empty profile object is the defaults.
        const auto empty = JobsProfile::fromJson({});
        QVERIFY(empty);
        QCOMPARE(empty->toJson(), p.toJson());
    }

    void profileFromFile()
    {
        const JobsProfile p = alternateProfile();
        QCOMPARE(p.name, u"acme-tasks"_s);
        QCOMPARE(p.cancelPath.text(), u"/v2/tasks/{id}/abort"_s);
        QCOMPARE(p.cancelMethod, QByteArray("POST"));
        QCOMPARE(p.id.toString(), u"/task/uid"_s);
        QCOMPARE(p.progressScale, 100.0);
        QCOMPARE(p.requestBody.value(u"kind"_s).toString(), u"report"_s);
        QCOMPARE(p.mapStatus(u"DONE"_s), JobState::Succeeded);
        QCOMPARE(p.mapStatus(u"done"_s), JobState::Succeeded); // case-insensitive fallback
        // The contract's own names still work unless remapped.
        QCOMPARE(p.mapStatus(u"running"_s), JobState::Running);
        // Round trip.
        const auto again = JobsProfile::fromJson(p.toJson());
        QVERIFY(again);
        QCOMPARE(again->toJson(), p.toJson());
    }

    // The example in docs/jobs-profile.md is the file the e2e and CLI tests drive the alternate
    // server with: the documented profile is known to work.
    void docsExampleIsTheTestProfile()
    {
        const QByteArray doc = RunwatchTest::readData(u"../../docs/jobs-profile.md"_s);
        QVERIFY(!doc.isEmpty());
        const qsizetype start = doc.indexOf("```json\n{\n  \"name\": \"acme-tasks\"");
        QVERIFY2(start >= 0, "no acme-tasks example in docs/jobs-profile.md");
        const qsizetype body = start + qsizetype(qstrlen("```json\n"));
        const qsizetype end = doc.indexOf("```", body);
        QVERIFY(end > body);
        QJsonParseError error{};
        const QJsonDocument example = QJsonDocument::fromJson(doc.mid(body, end - body), &error);
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        QCOMPARE(example.object(), dataObject(u"alternate-profile.json"_s));
        QString why;
        QVERIFY2(JobsProfile::fromJson(example.object(), &why), qPrintable(why));
    }

    void profileErrors_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("mentions");
        QTest::addRow("unknown top key") << QByteArray("{\"pathz\":{}}") << u"pathz"_s;
        QTest::addRow("unknown pointer key")
            << QByteArray("{\"pointers\":{\"stauts\":\"/s\"}}") << u"/pointers/stauts"_s;
        QTest::addRow("pointer type") << QByteArray("{\"pointers\":{\"status\":5}}") << u"/pointers/status"_s;
        QTest::addRow("pointer syntax")
            << QByteArray("{\"pointers\":{\"status\":\"state\"}}") << u"/pointers/status"_s;
        QTest::addRow("root id") << QByteArray("{\"pointers\":{\"id\":\"\"}}") << u"/pointers/id"_s;
        QTest::addRow("template") << QByteArray("{\"paths\":{\"status\":\"/jobs\"}}") << u"/paths/status"_s;
        QTest::addRow("method") << QByteArray("{\"cancel_method\":\"GET\"}") << u"cancel_method"_s;
        QTest::addRow("events") << QByteArray("{\"events\":\"sometimes\"}") << u"events"_s;
        QTest::addRow("status value") << QByteArray("{\"status_map\":{\"DONE\":\"finished\"}}") << u"DONE"_s;
        QTest::addRow("empty status") << QByteArray("{\"status_map\":{\"\":\"running\"}}") << u"status_map"_s;
        QTest::addRow("scale") << QByteArray("{\"progress_scale\":0}") << u"progress_scale"_s;
        QTest::addRow("input through body")
            << QByteArray("{\"request\":{\"body\":{\"a\":\"x\"},\"input\":\"/a/b\"}}") << u"/request/input"_s;
        QTest::addRow("not json") << QByteArray("{\n\"paths\": [") << u"line 2"_s;
        QTest::addRow("not object") << QByteArray("[]") << u"object"_s;
    }
    void profileErrors()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, mentions);
        QString error;
        QVERIFY(!JobsProfile::fromJsonText(json, &error));
        QVERIFY2(error.contains(mentions), qPrintable(error));
    }

    // Every contract status maps; anything else is Unknown with the raw label kept.
    void statusTable_data()
    {
        QTest::addColumn<QString>("raw");
        QTest::addColumn<RunStatus>("status");
        QTest::addRow("queued") << u"queued"_s << RunStatus::Queued;
        QTest::addRow("running") << u"running"_s << RunStatus::InProgress;
        QTest::addRow("input_required") << u"input_required"_s << RunStatus::InputRequired;
        QTest::addRow("succeeded") << u"succeeded"_s << RunStatus::Completed;
        QTest::addRow("failed") << u"failed"_s << RunStatus::Failed;
        QTest::addRow("canceled") << u"canceled"_s << RunStatus::Cancelled;
        QTest::addRow("timed_out") << u"timed_out"_s << RunStatus::TimedOut;
        QTest::addRow("cancelled (not the contract's)") << u"cancelled"_s << RunStatus::Unknown;
        QTest::addRow("free text") << u"almost done"_s << RunStatus::Unknown;
    }
    void statusTable()
    {
        QFETCH(QString, raw);
        QFETCH(RunStatus, status);
        const JobView job
            = readJob(QJsonObject{{u"job_id"_s, u"j"_s}, {u"status"_s, raw}}, JobsProfile::defaults());
        QVERIFY(job.hasStatus);
        const QList<RunEvent> events = eventsForJob(job);
        const RunEvent *s = findEvent(events, RunEvent::Type::Status);
        QVERIFY(s);
        QCOMPARE(s->status, status);
        QCOMPARE(s->rawStatus, raw);
        Run run;
        run.status = RunStatus::InProgress;
        for (const RunEvent &e : events)
            applyEvent(run, e);
        QCOMPARE(run.status, status);
        QCOMPARE(run.rawStatus, raw);
    }

    void runningJob()
    {
        const JobView job = readJob(dataObject(u"status-running.json"_s), JobsProfile::defaults());
        QCOMPARE(job.id, u"job_01HZX7Q"_s);
        QCOMPARE(job.state, JobState::Running);
        QCOMPARE(*job.timeoutSeconds, 900.0);
        QVERIFY(!job.needsResultFetch());
        const QList<RunEvent> events = eventsForJob(job);
        const RunEvent *progress = findEvent(events, RunEvent::Type::SecondarySnapshot);
        QVERIFY(progress);
        QCOMPARE(progress->kind, SecondaryKind::Progress);
        QCOMPARE(progress->text, u"42%"_s);
        QVERIFY(!findEvent(events, RunEvent::Type::Error));
        QVERIFY(!findEvent(events, RunEvent::Type::PrimarySnapshot));
    }

    // failed shows the error object and whether retrying may help.
    void failedJob()
    {
        const QList<RunEvent> events
            = eventsForJob(readJob(dataObject(u"status-failed.json"_s), JobsProfile::defaults()));
        const RunEvent *error = findEvent(events, RunEvent::Type::Error);
        QVERIFY(error);
        QCOMPARE(error->error.kind, ErrorKind::Run);
        QCOMPARE(error->error.code, u"upstream_error"_s);
        QVERIFY(error->error.retryable);
        QCOMPARE(error->error.message, u"The upstream model stopped responding. (retryable)"_s);
        QCOMPARE(findEvent(events, RunEvent::Type::Status)->status, RunStatus::Failed);
        // Without an error object (a broken server) there is still a clear message.
        const RunError bare = mapJobError(QJsonValue(), JobState::Failed, std::nullopt);
        QCOMPARE(bare.code, u"failed"_s);
        QVERIFY(bare.message.contains(u"not retryable"_s));
    }

    // timed_out names the job's timeout.
    void timedOutJob()
    {
        const QList<RunEvent> events
            = eventsForJob(readJob(dataObject(u"status-timed-out.json"_s), JobsProfile::defaults()));
        const RunEvent *error = findEvent(events, RunEvent::Type::Error);
        QVERIFY(error);
        QCOMPARE(error->error.code, u"timed_out"_s);
        QCOMPARE(error->error.message, u"The job ran longer than its timeout of 900 s."_s);
        QCOMPARE(findEvent(events, RunEvent::Type::Status)->status, RunStatus::TimedOut);
    }

    void timerSuspension()
    {
        const QList<RunEvent> events
            = eventsForJob(readJob(dataObject(u"status-input-timer.json"_s), JobsProfile::defaults()));
        const RunEvent *input = findEvent(events, RunEvent::Type::InputRequired);
        QVERIFY(input && input->input);
        QCOMPARE(input->input->reason, InputReason::Timer);
        QCOMPARE(input->input->deadline, QDateTime(QDate(2026, 1, 1), QTime(10, 5, 30), QTimeZone::utc()));
        QCOMPARE(input->input->prompt, u"Waiting for the rate window."_s);
        // The status comes before the request, so the reducer keeps the request.
        Run run;
        run.status = RunStatus::InProgress;
        for (const RunEvent &e : events)
            applyEvent(run, e);
        QCOMPARE(run.status, RunStatus::InputRequired);
        QVERIFY(run.input);
        QCOMPARE(run.input->reason, InputReason::Timer);
    }

    // A differently shaped service read through its profile.
    void alternateShape()
    {
        const JobView job = readJob(dataObject(u"status-alternate.json"_s), alternateProfile());
        QCOMPARE(job.id, u"T-77"_s);
        QCOMPARE(job.rawStatus, u"WAITING"_s);
        QCOMPARE(job.state, JobState::InputRequired);
        QCOMPARE(*job.progress, 0.5);
        QCOMPARE(*job.timeoutSeconds, 600.0);
        QCOMPARE(job.statusUrl, u"/api/v2/tasks/T-77"_s);
        QCOMPARE(job.eventsUrl, u"/api/v2/tasks/T-77/stream"_s);
        QCOMPARE(job.idempotencyKey, u"k-1"_s);
        QCOMPARE(job.clientRunId, u"abc"_s);
        QCOMPARE(job.title, u"Quarterly"_s);
        QVERIFY(job.input);
        QCOMPARE(job.input->reason, InputReason::Options);
        QCOMPARE(job.input->options, (QStringList{u"quick"_s, u"deep"_s}));
        const QList<RunEvent> events = eventsForJob(job); // findEvent points into this list
        const RunEvent *status = findEvent(events, RunEvent::Type::Status);
        QVERIFY(status);
        QCOMPARE(status->status, RunStatus::InputRequired);
        QCOMPARE(status->rawStatus, u"WAITING"_s);
    }

    void inputRequests_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<InputReason>("reason");
        QTest::addColumn<QString>("prompt");
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<QString>("callback");
        QTest::addRow("ask_user") << QByteArray("{\"type\":\"ask_user\",\"question\":\"Which region?\"}")
                                  << InputReason::Question << u"Which region?"_s << QStringList{}
                                  << QString();
        QTest::addRow("get_approval")
            << QByteArray("{\"type\":\"get_approval\",\"prompt\":\"Approve $100?\"}") << InputReason::Approval
            << u"Approve $100?"_s << QStringList{} << QString();
        QTest::addRow("select_options") << QByteArray(
            "{\"type\":\"select_options\",\"question\":\"Depth?\",\"options\":[\"a\",\"b\",3,{\"x\":1}]}")
                                        << InputReason::Options << u"Depth?"_s
                                        << QStringList{u"a"_s, u"b"_s, u"3"_s} << QString();
        QTest::addRow("webhook") << QByteArray(
            "{\"type\":\"webhook\",\"webhook_url\":\"https:\\/\\/ci.example\\/hook\\/1\"}")
                                 << InputReason::Webhook << u"Waiting for the external system to call back."_s
                                 << QStringList{} << u"https://ci.example/hook/1"_s;
        QTest::addRow("unknown type")
            << QByteArray("{\"type\":\"sign_document\",\"doc\":\"x\"}") << InputReason::Question
            << u"{\"doc\":\"x\",\"type\":\"sign_document\"}"_s << QStringList{} << QString();
    }
    void inputRequests()
    {
        QFETCH(QByteArray, json);
        QFETCH(InputReason, reason);
        QFETCH(QString, prompt);
        QFETCH(QStringList, options);
        QFETCH(QString, callback);
        const auto r = mapInputRequest(objectFrom(json));
        QVERIFY(r);
        QCOMPARE(r->reason, reason);
        QCOMPARE(r->prompt, prompt);
        QCOMPARE(r->options, options);
        QCOMPARE(r->callbackUrl, callback);
        QCOMPARE(r->raw, objectFrom(json));
        QVERIFY(!mapInputRequest(QJsonValue(u"x"_s)));
    }

    // A timer without resume_at counts down from now.
    void timerWithoutResumeAt()
    {
        const QDateTime now(QDate(2026, 3, 1), QTime(12, 0), QTimeZone::utc());
        const auto r = mapInputRequest(objectFrom("{\"type\":\"timer\",\"delay_seconds\":90}"), now);
        QCOMPARE(r->deadline, now.addSecs(90));
        QCOMPARE(r->prompt, u"The job resumes by itself."_s);
    }

    void answerBodies()
    {
        InputAnswer a;
        a.kind = InputAnswer::Kind::Text;
        a.text = u"EMEA"_s;
        QCOMPARE(answerBody(a), (QJsonObject{{u"text"_s, u"EMEA"_s}}));
        a = {};
        a.kind = InputAnswer::Kind::Approve;
        QCOMPARE(answerBody(a), (QJsonObject{{u"approved"_s, true}}));
        a.kind = InputAnswer::Kind::Reject;
        a.comment = u"too expensive"_s;
        QCOMPARE(answerBody(a), (QJsonObject{{u"approved"_s, false}, {u"comment"_s, u"too expensive"_s}}));
        a = {};
        a.kind = InputAnswer::Kind::Choice;
        a.choice = u"deep"_s;
        QCOMPARE(answerBody(a), (QJsonObject{{u"choice"_s, u"deep"_s}}));
        a = {};
        a.kind = InputAnswer::Kind::Value;
        a.value = QJsonObject{{u"replicas"_s, 3}, {u"dry_run"_s, false}};
        QCOMPARE(answerBody(a), (QJsonObject{{u"value"_s, a.value}}));
    }

    // A typed form (our extension): the schema goes into InputRequest::schema, for any type that
    // takes an answer; a timer's or webhook's schema means nothing.
    void formRequestCarriesSchema()
    {
        const auto form = mapInputRequest(objectFrom(
            R"({"type":"form","question":"Details?","schema":{"type":"object","properties":{}}})"));
        QVERIFY(form);
        QCOMPARE(form->reason, InputReason::Question);
        QCOMPARE(form->prompt, u"Details?"_s);
        QCOMPARE(form->schema, objectFrom(R"({"type":"object","properties":{}})"));
        const auto approval
            = mapInputRequest(objectFrom(R"({"type":"get_approval","prompt":"Ok?","schema":{"x":1}})"));
        QCOMPARE(approval->schema, objectFrom(R"({"x":1})"));
        const auto timer
            = mapInputRequest(objectFrom(R"({"type":"timer","delay_seconds":1,"schema":{"x":1}})"));
        QVERIFY(timer->schema.isEmpty());
    }

    void errorBodyRetryable()
    {
        RunError e;
        e.kind = ErrorKind::Client;
        e.retryable = false;
        applyErrorBody(e, "{\"error\":{\"code\":\"busy\",\"message\":\"later\",\"retryable\":true}}");
        QVERIFY(e.retryable);
        applyErrorBody(e, "<html>");
        QVERIFY(e.retryable);
    }

    // Numeric ids become sequence numbers on the first event of each wire event; overlaps from
    // a replay are dropped in the mapper already.
    void streamIdsAndDedupe()
    {
        JobsMapper mapper;
        QList<RunEvent> out;
        QCOMPARE(mapper.map("output", "{\"delta\":\"a\"}", "1", out), JobsMapper::Outcome::Continue);
        QCOMPARE(mapper.map("status", "{\"job_id\":\"j\",\"status\":\"running\",\"progress\":0.5}", "2", out),
                 JobsMapper::Outcome::Continue);
        QCOMPARE(out.size(), 3); // delta; progress + status
        QCOMPARE(out[0].sequence, 1);
        QCOMPARE(out[0].eventId, u"1"_s);
        QCOMPARE(out[1].sequence, 2);
        QCOMPARE(out[2].sequence, -1);
        // A new connection replaying from an earlier id: dropped.
        mapper.startConnection();
        out.clear();
        QCOMPARE(mapper.map("output", "{\"delta\":\"a\"}", "1", out), JobsMapper::Outcome::Continue);
        QVERIFY(out.isEmpty());
        QCOMPARE(mapper.droppedDuplicates(), 1);
        // An event without an id: line repeats the committed id; it is not a duplicate.
        QCOMPARE(mapper.map("output", "{\"delta\":\"b\"}", "3", out), JobsMapper::Outcome::Continue);
        QCOMPARE(mapper.map("output", "{\"delta\":\"c\"}", "3", out), JobsMapper::Outcome::Continue);
        QCOMPARE(out.size(), 2);
        QCOMPARE(out[1].sequence, -1);
        QCOMPARE(out[1].text, u"c"_s);
        // Non-numeric ids: Last-Event-ID only.
        out.clear();
        QCOMPARE(mapper.map("output", "{\"delta\":\"d\"}", "evt-x", out), JobsMapper::Outcome::Continue);
        QCOMPARE(out[0].sequence, -1);
        QCOMPARE(out[0].eventId, u"evt-x"_s);
        // Unknown event types only move the cursor.
        out.clear();
        QCOMPARE(mapper.map("heartbeat", "{}", "4", out), JobsMapper::Outcome::Continue);
        QCOMPARE(out.size(), 1);
        QCOMPARE(out[0].type, RunEvent::Type::Cursor);
        QCOMPARE(out[0].sequence, 4);
    }

    void streamEventTypes()
    {
        JobsMapper mapper;
        QList<RunEvent> out;
        mapper.map("progress", "{\"progress\":0.5,\"message\":\"step 3 of 6\"}", "1", out);
        mapper.map("log", "{\"level\":\"warn\",\"message\":\"slow upstream\"}", "2", out);
        mapper.map("input_required", "{\"type\":\"get_approval\",\"prompt\":\"OK?\"}", "3", out);
        QCOMPARE(out.size(), 4);
        QCOMPARE(out[0].text, u"50% — step 3 of 6"_s);
        QCOMPARE(out[1].kind, SecondaryKind::Log);
        QCOMPARE(out[1].title, u"warn"_s);
        QCOMPARE(out[1].itemId, u"log-2"_s);
        QCOMPARE(out[2].status, RunStatus::InputRequired);
        QCOMPARE(out[3].input->reason, InputReason::Approval);
        out.clear();
        QCOMPARE(mapper.map("done", "{\"job_id\":\"j\",\"status\":\"succeeded\",\"result\":null}", "4", out),
                 JobsMapper::Outcome::Done);
        QVERIFY(mapper.resultFetchNeeded());
        out.clear();
        JobsMapper other;
        QCOMPARE(
            other.map("done", "{\"job_id\":\"j\",\"status\":\"succeeded\",\"result\":\"all\"}", "9", out),
            JobsMapper::Outcome::Done);
        QVERIFY(!other.resultFetchNeeded());
        const RunEvent *snapshot = findEvent(out, RunEvent::Type::PrimarySnapshot);
        QVERIFY(snapshot && snapshot->verify);
        QCOMPARE(snapshot->text, u"all"_s);
    }

    void streamMalformed_data()
    {
        QTest::addColumn<QByteArray>("type");
        QTest::addColumn<QByteArray>("data");
        QTest::addRow("output not json") << QByteArray("output") << QByteArray("{\"delta\":\"ab");
        QTest::addRow("output no delta") << QByteArray("output") << QByteArray("{\"text\":\"ab\"}");
        QTest::addRow("output delta number") << QByteArray("output") << QByteArray("{\"delta\":5}");
        QTest::addRow("status array") << QByteArray("status") << QByteArray("[]");
        QTest::addRow("done truncated") << QByteArray("done") << QByteArray("{\"status\":\"succ");
        QTest::addRow("input not object") << QByteArray("input_required") << QByteArray("\"ask\"");
    }
    void streamMalformed()
    {
        QFETCH(QByteArray, type);
        QFETCH(QByteArray, data);
        JobsMapper mapper;
        QList<RunEvent> out;
        QCOMPARE(mapper.map(type, data, "7", out), JobsMapper::Outcome::Malformed);
        QVERIFY(out.isEmpty());
        QCOMPARE(mapper.error().kind, ErrorKind::Protocol);
        QVERIFY2(mapper.error().message.contains(u"id 7"_s), qPrintable(mapper.error().message));
        // The cursor did not move past the bad event.
        QCOMPARE(mapper.lastSequence(), -1);
    }

    // The mapper's sequence numbers and the reducer together: a replay that overlaps what the
    // run has (a server resuming from an older id) changes nothing.
    void replayOverlapThroughReducer()
    {
        Run run;
        run.status = RunStatus::InProgress;
        JobsMapper first;
        QList<RunEvent> out;
        for (int i = 1; i <= 5; ++i)
            first.map("output", u"{\"delta\":\"t%1 \"}"_s.arg(i).toUtf8(), QByteArray::number(i), out);
        for (const RunEvent &e : out)
            applyEvent(run, e);
        QCOMPARE(run.token.sequence, 5);
        QCOMPARE(run.token.eventId, u"5"_s);
        // A new stream that knows nothing (cursor -1) and replays 3..7: the reducer drops 3..5.
        JobsMapper second;
        out.clear();
        for (int i = 3; i <= 7; ++i)
            second.map("output", u"{\"delta\":\"t%1 \"}"_s.arg(i).toUtf8(), QByteArray::number(i), out);
        for (const RunEvent &e : out)
            applyEvent(run, e);
        QCOMPARE(run.primaryText, u"t1 t2 t3 t4 t5 t6 t7 "_s);
    }
};

QTEST_GUILESS_MAIN(TestJobsMapping)
#include "tst_jobs_mapping.moc"
