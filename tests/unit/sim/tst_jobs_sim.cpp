// SPDX-License-Identifier: GPL-3.0-or-later
// The jobs simulator against a plain QNetworkAccessManager (never the client's code): the
// contract of docs/protocols/jobs-api.md as the simulator serves it.
#include "jobs/jobssim.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QtTest>

using namespace RunwatchSim;
using namespace Qt::StringLiterals;

namespace {

struct Reply
{
    int status = 0;
    QByteArray body;
    QList<QNetworkReply::RawHeaderPair> headers;
    QNetworkReply::NetworkError error = QNetworkReply::NoError;

    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
    QByteArray header(const QByteArray &name) const
    {
        for (const auto &h : headers) {
            if (h.first.compare(name, Qt::CaseInsensitive) == 0)
                return h.second;
        }
        return {};
    }
};

class Client
{
public:
    explicit Client(QUrl base)
        : m_base(std::move(base))
    {}

    Reply send(const QByteArray &method, const QString &path, const QByteArray &body = {},
               const QList<QPair<QByteArray, QByteArray>> &headers = {})
    {
        QUrl url = m_base;
        const qsizetype q = path.indexOf(u'?');
        url.setPath(m_base.path() + (q < 0 ? path : path.left(q)));
        if (q >= 0)
            url.setQuery(path.mid(q + 1));
        QNetworkRequest request(url);
        if (!body.isEmpty())
            request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        for (const auto &h : headers)
            request.setRawHeader(h.first, h.second);
        QNetworkReply *reply = m_nam.sendCustomRequest(request, method, body);
        QSignalSpy done(reply, &QNetworkReply::finished);
        if (!reply->isFinished())
            done.wait(10000);
        Reply r;
        r.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        r.body = reply->readAll();
        r.headers = reply->rawHeaderPairs();
        r.error = reply->error();
        reply->deleteLater();
        return r;
    }

    Reply kickoff(const QString &input, const QByteArray &key = {}, const QJsonObject &metadata = {})
    {
        QJsonObject body{{u"input"_s, input}};
        if (!metadata.isEmpty())
            body.insert(u"metadata"_s, metadata);
        QList<QPair<QByteArray, QByteArray>> headers{{"Prefer", "respond-async"}};
        if (!key.isEmpty())
            headers.append({"Idempotency-Key", key});
        return send("POST", u"/jobs"_s, QJsonDocument(body).toJson(QJsonDocument::Compact), headers);
    }

    Reply status(const QString &id) { return send("GET", u"/jobs/"_s + id); }

private:
    QUrl m_base;
    QNetworkAccessManager m_nam;
};

// SSE body → (id, type, data) triples.
struct Ev
{
    qint64 id;
    QByteArray type;
    QByteArray data;
};
QList<Ev> parseSse(const QByteArray &body)
{
    QList<Ev> out;
    Ev current{0, {}, {}};
    bool any = false;
    for (const QByteArray &line : body.split('\n')) {
        if (line.isEmpty()) {
            if (any)
                out << current;
            current = Ev{0, {}, {}};
            any = false;
        } else if (line.startsWith("id: ")) {
            current.id = line.mid(4).toLongLong();
            any = true;
        } else if (line.startsWith("event: ")) {
            current.type = line.mid(7);
        } else if (line.startsWith("data: ")) {
            current.data = line.mid(6);
        }
    }
    return out;
}

bool waitStatus(JobsSimulator &sim, const QString &id, const QString &status, int ms = 10000)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms) {
        if (sim.job(id) && sim.job(id)->status == status)
            return true;
        QTest::qWait(5);
    }
    return false;
}

JobsSimConfig fastConfig()
{
    JobsSimConfig c;
    c.intervalMs = 2;
    return c;
}

} // namespace

class TestJobsSim final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // 202 + Location + the contract's body; the job runs to succeeded with the tok text.
    void kickoffAndPoll()
    {
        JobsSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const Reply r = client.kickoff(u"normal deltas=5"_s, "k-1");
        QCOMPARE(r.status, 202);
        const QJsonObject job = r.json();
        const QString id = job.value(u"job_id"_s).toString();
        QVERIFY(id.startsWith(u"job_"_s));
        QCOMPARE(r.header("location"), (u"/api/jobs/"_s + id).toUtf8());
        QCOMPARE(job.value(u"status_url"_s).toString(), u"/api/jobs/"_s + id);
        QCOMPARE(job.value(u"events_url"_s).toString(), u"/api/jobs/"_s + id + u"/events"_s);
        QCOMPARE(job.value(u"idempotency_key"_s).toString(), u"k-1"_s);
        QVERIFY(job.contains(u"estimated_duration_seconds"_s));
        QVERIFY(waitStatus(sim, id, u"succeeded"_s));
        const Reply s = client.status(id);
        QCOMPARE(s.status, 200);
        QCOMPARE(s.json().value(u"result"_s).toString(), JobsSimulator::tokenText(0, 5));
        QCOMPARE(s.json().value(u"progress"_s).toDouble(), 1.0);
        QVERIFY(s.header("retry-after").isEmpty()); // a finished job needs no more polling
    }

    // The same key returns the same job; the same key with another body is refused.
    void idempotency()
    {
        JobsSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const QString a = client.kickoff(u"normal deltas=50 interval_ms=50"_s, "key-a")
                              .json()
                              .value(u"job_id"_s)
                              .toString();
        const Reply again = client.kickoff(u"normal deltas=50 interval_ms=50"_s, "key-a");
        QCOMPARE(again.status, 202);
        QCOMPARE(again.json().value(u"job_id"_s).toString(), a);
        QCOMPARE(sim.jobsCreated(), 1);
        const Reply other = client.kickoff(u"something else"_s, "key-a");
        QCOMPARE(other.status, 422);
        QCOMPARE(other.json().value(u"error"_s).toObject().value(u"code"_s).toString(),
                 u"idempotency_key_reused"_s);
        QCOMPARE(sim.jobsCreated(), 1);
    }

    void pollRetryAfter()
    {
        JobsSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const QString id
            = client.kickoff(u"long interval_ms=50 retry_after=2"_s).json().value(u"job_id"_s).toString();
        QCOMPARE(client.status(id).header("retry-after"), QByteArray("2"));
        const QString dated = client.kickoff(u"long interval_ms=50 retry_after=date:3"_s)
                                  .json()
                                  .value(u"job_id"_s)
                                  .toString();
        const QByteArray date = client.status(dated).header("retry-after");
        QVERIFY2(date.endsWith(" GMT"), date.constData());
        const auto records = sim.requests(JobsEndpoint::Status);
        QVERIFY(records.last().retryAfterUntilEpochMs >= records.last().receivedEpochMs + 3000);
    }

    void cancelSemantics()
    {
        JobsSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        // Running, immediate: 200 canceled with the partial result; again: 200.
        const QString a = client.kickoff(u"long interval_ms=5"_s).json().value(u"job_id"_s).toString();
        QTRY_VERIFY_WITH_TIMEOUT(sim.job(a)->text.size() > 10, 5000);
        const Reply c1 = client.send("DELETE", u"/jobs/"_s + a);
        QCOMPARE(c1.status, 200);
        QCOMPARE(c1.json().value(u"status"_s).toString(), u"canceled"_s);
        QVERIFY(!c1.json().value(u"result"_s).toString().isEmpty());
        QCOMPARE(client.send("POST", u"/jobs/"_s + a + u":cancel"_s).status, 200);
        // Running with a delay: 202 until canceled.
        const QString b = client.kickoff(u"long interval_ms=5 cancel_delay_ms=200"_s)
                              .json()
                              .value(u"job_id"_s)
                              .toString();
        QVERIFY(waitStatus(sim, b, u"running"_s));
        QCOMPARE(client.send("DELETE", u"/jobs/"_s + b).status, 202);
        QCOMPARE(client.send("DELETE", u"/jobs/"_s + b).status, 202);
        QCOMPARE(sim.job(b)->status, u"running"_s);
        QVERIFY(waitStatus(sim, b, u"canceled"_s));
        // Finished: 409 with the final status, nothing changes.
        const QString c = client.kickoff(u"normal deltas=2"_s).json().value(u"job_id"_s).toString();
        QVERIFY(waitStatus(sim, c, u"succeeded"_s));
        const Reply conflict = client.send("DELETE", u"/jobs/"_s + c);
        QCOMPARE(conflict.status, 409);
        QCOMPARE(conflict.json().value(u"status"_s).toString(), u"succeeded"_s);
        QCOMPARE(sim.job(c)->status, u"succeeded"_s);
    }

    // Wrong shapes get 400, answers to a job that is not suspended 409, the right one 202.
    void suspendedJobAnswers()
    {
        JobsSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const QString id = client.kickoff(u"Two-step: deltas=4"_s).json().value(u"job_id"_s).toString();
        QCOMPARE(client.send("POST", u"/jobs/"_s + id + u"/input"_s, "{\"approved\":true}").status, 409);
        QVERIFY(waitStatus(sim, id, u"input_required"_s));
        const QJsonObject request = client.status(id).json().value(u"input_request"_s).toObject();
        QCOMPARE(request.value(u"type"_s).toString(), u"get_approval"_s);
        QVERIFY(request.value(u"prompt"_s).toString().startsWith(u"Manager"_s));
        QCOMPARE(client.send("POST", u"/jobs/"_s + id + u"/input"_s, "{\"text\":\"yes\"}").status, 400);
        const Reply ok
            = client.send("POST", u"/jobs/"_s + id + u"/input"_s, "{\"approved\":true,\"comment\":\"fine\"}");
        QCOMPARE(ok.status, 202);
        QCOMPARE(ok.json().value(u"status"_s).toString(), u"running"_s);
        QVERIFY(waitStatus(sim, id, u"input_required"_s));
        QVERIFY(sim.job(id)->inputRequest.value(u"prompt"_s).toString().startsWith(u"Director"_s));
        QCOMPARE(client.send("POST", u"/jobs/"_s + id + u"/input"_s, "{\"approved\":true}").status, 202);
        QVERIFY(waitStatus(sim, id, u"succeeded"_s));
        QCOMPARE(sim.job(id)->result, JobsSimulator::tokenText(0, 2)
                                          + u"[manager approved: fine] [director approved] "_s
                                          + JobsSimulator::tokenText(2, 4));
    }

    void timerAndWebhook()
    {
        JobsSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const QString t
            = client.kickoff(u"timer deltas=2 timer_ms=150"_s).json().value(u"job_id"_s).toString();
        QVERIFY(waitStatus(sim, t, u"input_required"_s));
        const QJsonObject timer = sim.job(t)->inputRequest;
        QCOMPARE(timer.value(u"delay_seconds"_s).toDouble(), 1.0);
        QVERIFY(QDateTime::fromString(timer.value(u"resume_at"_s).toString(), Qt::ISODateWithMs).isValid());
        QCOMPARE(client.send("POST", u"/jobs/"_s + t + u"/input"_s, "{\"text\":\"go\"}").status, 409);
        QVERIFY(waitStatus(sim, t, u"succeeded"_s));

        const QString w = client.kickoff(u"webhook deltas=2"_s).json().value(u"job_id"_s).toString();
        QVERIFY(waitStatus(sim, w, u"input_required"_s));
        const QUrl hook(sim.job(w)->inputRequest.value(u"webhook_url"_s).toString());
        QCOMPARE(hook.host(), u"127.0.0.1"_s);
        QCOMPARE(client.send("POST", hook.path().mid(4) + u"x"_s, "{}").status, 404); // wrong token
        QCOMPARE(client.send("POST", hook.path().mid(4), "{\"build\":\"green\"}").status, 202);
        QVERIFY(waitStatus(sim, w, u"succeeded"_s));
        QVERIFY(sim.job(w)->result.contains(u"[callback: {\"build\":\"green\"}]"_s));
    }

    // Last-Event-ID replays exactly what followed it; `done` ends the stream.
    void eventReplay()
    {
        JobsSimConfig config = fastConfig();
        config.retryMs = 25;
        JobsSimulator sim(config);
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        const QString id = client.kickoff(u"normal deltas=6"_s).json().value(u"job_id"_s).toString();
        QVERIFY(waitStatus(sim, id, u"succeeded"_s));
        const Reply all = client.send("GET", u"/jobs/"_s + id + u"/events"_s);
        QCOMPARE(all.status, 200);
        QVERIFY(all.body.startsWith("retry: 25\n\n"));
        const QList<Ev> events = parseSse(all.body);
        QCOMPARE(events.size(), sim.job(id)->eventCount);
        for (qsizetype i = 0; i < events.size(); ++i)
            QCOMPARE(events[i].id, i + 1);
        QCOMPARE(events.last().type, QByteArray("done"));
        const Reply tail = client.send("GET", u"/jobs/"_s + id + u"/events"_s, {}, {{"Last-Event-ID", "4"}});
        const QList<Ev> rest = parseSse(tail.body);
        QCOMPARE(rest.size(), events.size() - 4);
        QCOMPARE(rest.first().id, 5);
    }

    void listingAndResult()
    {
        JobsSimConfig config = fastConfig();
        config.inlineResultLimit = 100;
        JobsSimulator sim(config);
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        for (int i = 0; i < 5; ++i)
            client.kickoff(u"normal deltas=1"_s, "key-" + QByteArray::number(i));
        const Reply page = client.send("GET", u"/jobs?limit=2"_s);
        QCOMPARE(page.json().value(u"jobs"_s).toArray().size(), 2);
        QCOMPARE(page.json().value(u"next_cursor"_s).toString(), u"2"_s);
        const Reply byKey = client.send("GET", u"/jobs?idempotency_key=key-3"_s);
        const QJsonArray found = byKey.json().value(u"jobs"_s).toArray();
        QCOMPARE(found.size(), 1);
        QCOMPARE(found.first().toObject().value(u"idempotency_key"_s).toString(), u"key-3"_s);
        QVERIFY(byKey.json().value(u"next_cursor"_s).isNull());
        QCOMPARE(client.send("GET", u"/jobs?limit=0"_s).status, 400);

        const QString big
            = client.kickoff(u"large deltas=2 large_bytes=5000"_s).json().value(u"job_id"_s).toString();
        QVERIFY(waitStatus(sim, big, u"succeeded"_s));
        const QJsonObject status = client.status(big).json();
        QVERIFY(status.value(u"result"_s).isNull());
        QCOMPARE(status.value(u"result_url"_s).toString(), u"/api/jobs/"_s + big + u"/result"_s);
        const Reply result = client.send("GET", u"/jobs/"_s + big + u"/result"_s);
        QCOMPARE(result.json().value(u"result"_s).toString().size(), 5000);
    }

    // Faults: HTTP errors with Retry-After, and a kickoff served whose reply is lost.
    void faults()
    {
        JobsSimulator sim(fastConfig());
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        QString error;
        const auto fault = jobsHttpFaultFromSpec(u"status=503,count=1,on=kickoff,retry-after=0.2"_s, &error);
        QVERIFY2(fault, qPrintable(error));
        sim.addHttpFault(*fault);
        const Reply unavailable = client.kickoff(u"normal"_s, "k");
        QCOMPARE(unavailable.status, 503);
        QCOMPARE(unavailable.header("retry-after"), QByteArray("0.2"));
        QCOMPARE(sim.jobsCreated(), 0);
        // QNetworkAccessManager silently re-sends a request whose connection closed without an
        // answer, so every kickoff of this client is lost; the key keeps it one job.
        sim.addHttpFault(*jobsHttpFaultFromSpec(u"status=0,count=-1,on=kickoff"_s));
        const Reply lost = client.kickoff(u"normal"_s, "k");
        QCOMPARE(lost.status, 0);
        QVERIFY(lost.error != QNetworkReply::NoError);
        QVERIFY(sim.requestCount(JobsEndpoint::Kickoff) >= 2);
        QCOMPARE(sim.jobsCreated(), 1); // served all the same
        QVERIFY(!jobsHttpFaultFromSpec(u"on=nowhere"_s));
        QVERIFY(!jobsHttpFaultFromSpec(u"status=99"_s));
    }

    void authAndUnknown()
    {
        JobsSimConfig config = fastConfig();
        config.apiKey = u"sk-jobs"_s;
        JobsSimulator sim(config);
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        QCOMPARE(client.kickoff(u"normal"_s).status, 401);
        QCOMPARE(client.send("GET", u"/jobs/job_9999"_s, {}, {{"Authorization", "Bearer sk-jobs"}}).status,
                 404);
        QCOMPARE(client.send("GET", u"/nothing"_s, {}, {{"Authorization", "Bearer sk-jobs"}}).status, 404);
        QCOMPARE(client.send("PUT", u"/jobs"_s, "{}", {{"Authorization", "Bearer sk-jobs"}}).status, 405);
        QCOMPARE(client
                     .send("POST", u"/jobs"_s, "{\"input\":\"bogus_scenario_x deltas=no\"}",
                           {{"Authorization", "Bearer sk-jobs"}})
                     .status,
                 400);
    }

    // The Alternate shape: other paths, names and status strings.
    void alternateShape()
    {
        JobsSimConfig config = fastConfig();
        config.shape = JobsShape::Alternate;
        JobsSimulator sim(config);
        QVERIFY(sim.listen());
        Client client(sim.baseUrl());
        QCOMPARE(client.kickoff(u"normal"_s).status, 404); // /jobs does not exist there
        const Reply r = client.send("POST", u"/v2/tasks"_s,
                                    "{\"prompt\":\"ask_user deltas=2\",\"meta\":{\"title\":\"Q\"}}");
        QCOMPARE(r.status, 202);
        QVERIFY(r.header("location").isEmpty());
        const QJsonObject task = r.json().value(u"task"_s).toObject();
        const QString id = task.value(u"uid"_s).toString();
        QCOMPARE(r.json().value(u"links"_s).toObject().value(u"self"_s).toString(), u"/api/v2/tasks/"_s + id);
        QVERIFY(waitStatus(sim, id, u"input_required"_s));
        const Reply s = client.send("GET", u"/v2/tasks/"_s + id);
        QCOMPARE(s.json().value(u"task"_s).toObject().value(u"state"_s).toString(), u"WAITING"_s);
        QCOMPARE(
            s.json().value(u"task"_s).toObject().value(u"pending"_s).toObject().value(u"type"_s).toString(),
            u"ask_user"_s);
        QCOMPARE(client.send("POST", u"/v2/tasks/"_s + id + u"/reply"_s, "{\"text\":\"EMEA\"}").status, 202);
        QVERIFY(waitStatus(sim, id, u"succeeded"_s));
        const Reply done = client.send("GET", u"/v2/tasks/"_s + id);
        QCOMPARE(done.json().value(u"task"_s).toObject().value(u"state"_s).toString(), u"DONE"_s);
        QCOMPARE(
            done.json().value(u"task"_s).toObject().value(u"output"_s).toObject().value(u"text"_s).toString(),
            JobsSimulator::tokenText(0, 1) + u"[answer: EMEA] "_s + JobsSimulator::tokenText(1, 2));
        QCOMPARE(client.send("POST", u"/v2/tasks/"_s + id + u"/abort"_s).status, 409);
    }
};

QTEST_GUILESS_MAIN(TestJobsSim)
#include "tst_jobs_sim.moc"
