// SPDX-License-Identifier: GPL-3.0-or-later
// The MCP mapping (core/backends/mcp/mcpmapper*, McpRunStream's ResultReader): JSON-RPC messages as
// the official SDK 1.32.2 server sends them (shared/protocols/mcp-tasks.md) and the 2026-07-28
// extension's shapes, to RunEvents; elicitation answers; tools and tasks lists. Bodies are written
// with single quotes (json()): moc 6.4 misreads raw strings holding JSON.
#include "backends/mcp/mcpmapper.h"
#include "backends/mcp/mcpmapper2026.h"
#include "backends/mcp/mcprunstream.h"
#include "domain/runreducer.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

using namespace Runwatch;
using namespace Runwatch::Mcp;
using namespace Qt::StringLiterals;

namespace {

QByteArray json(const char *singleQuoted)
{
    return QByteArray(singleQuoted).replace('\'', '"');
}

QJsonObject object(const char *singleQuoted)
{
    return QJsonDocument::fromJson(json(singleQuoted)).object();
}

Run applied(const QList<RunEvent> &events)
{
    Run run;
    run.status = RunStatus::InProgress;
    for (const RunEvent &e : events)
        applyEvent(run, e, QDateTime::currentDateTimeUtc());
    return run;
}

const char *const kElicitationJson
    = "{'method':'elicitation/create','params':{'mode':'form','message':'Approve deploy?','requestedSchema':"
      "{'type':'object','properties':{'approve':{'type':'boolean','title':'Approve'},'reason':{'type':'"
      "string'},"
      "'priority':{'type':'string','enum':['low','normal','high']}},'required':['approve']},'_meta':{"
      "'io.modelcontextprotocol/related-task':{'taskId':'t1'}}},'jsonrpc':'2.0','id':0}";

} // namespace

class TestMcpMapping final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parsesEveryKindOfMessage()
    {
        QCOMPARE(parseMessages(json("{'jsonrpc':'2.0','id':'rw-1','result':{'a':1}}")).first().kind,
                 Message::Kind::Result);
        const Message error
            = parseMessages(
                  json("{'jsonrpc':'2.0','id':3,'error':{'code':-32602,'message':'Failed to retrieve "
                       "task: Task not found'}}"))
                  .first();
        QCOMPARE(error.kind, Message::Kind::Error);
        QCOMPARE(error.errorCode, -32602);
        QCOMPARE(rpcError(error.errorCode, error.errorMessage).kind, ErrorKind::NotFound);
        QCOMPARE(parseMessages(json(kElicitationJson)).first().kind, Message::Kind::Request);
        QCOMPARE(parseMessages(json("{'jsonrpc':'2.0','method':'notifications/progress','params':{}}"))
                     .first()
                     .kind,
                 Message::Kind::Notification);
        // A batch, garbage, and a request with an id of the wrong type: never trusted, never fatal.
        QCOMPARE(parseMessages(json("[{'jsonrpc':'2.0','method':'a'},{'id':1,'result':2}]")).size(), 2);
        QCOMPARE(parseMessages("not json").first().kind, Message::Kind::Invalid);
        QCOMPARE(parseMessages(json("{'method':'x','id':{}}")).first().kind, Message::Kind::Invalid);
        QCOMPARE(parseMessages(json("{'id':1}")).first().kind, Message::Kind::Invalid);
    }

    void taskStatusesAndTheirLines()
    {
        const QJsonObject working = object("{'taskId':'t1','status':'working','statusMessage':'step 1 of 3',"
                                           "'pollInterval':500,'ttl':60000}");
        Run run = applied(taskEvents(working));
        QCOMPARE(run.status, RunStatus::InProgress);
        QCOMPARE(run.rawStatus, u"working"_s);
        const auto line = std::find_if(run.secondary.cbegin(), run.secondary.cend(),
                                       [](const SecondaryItem &i) { return i.id == u"status"_s; });
        QVERIFY(line != run.secondary.cend());
        QCOMPARE(line->kind, SecondaryKind::Progress);
        QCOMPARE(line->text, u"step 1 of 3"_s);
        // input_required without the request in hand: still working as far as the run can tell.
        const QJsonObject waiting
            = object("{'taskId':'t1','status':'input_required','statusMessage':'waiting'}");
        QCOMPARE(applied(taskEvents(waiting, false)).status, RunStatus::InProgress);
        QCOMPARE(applied(taskEvents(waiting, false)).rawStatus, u"input_required"_s);
        // A failed task's statusMessage is stale: not shown as the line.
        const QJsonObject failed = object("{'taskId':'t1','status':'failed','statusMessage':'step 2 of 3'}");
        const QList<SecondaryItem> items = applied(taskEvents(failed)).secondary;
        QVERIFY(std::none_of(items.cbegin(), items.cend(),
                             [](const SecondaryItem &i) { return i.id == u"status"_s; }));
        QCOMPARE(runStatusFor(u"cancelled"), RunStatus::Cancelled);
        QCOMPARE(runStatusFor(u"whatever"), RunStatus::Unknown);
        QCOMPARE(taskExtra(working).value(kPollIntervalMs).toInteger(), 500);
        QCOMPARE(taskExtra(working).value(kTtlMs).toInteger(), 60000);
    }

    void resultTextAndStructuredContent()
    {
        const QJsonObject result = object(
            "{'content':[{'type':'text','text':'Wrote: a'},{'type':'image','data':'xx'},{'type':'text',"
            "'text':'\\n(2 steps)'}],'structuredContent':{'text':'a','steps':2},'_meta':{}}");
        const Run run = applied(resultEvents(result, u"completed"));
        QCOMPARE(run.status, RunStatus::Completed);
        QCOMPARE(run.primaryText, u"Wrote: a\n(2 steps)"_s);
        QCOMPARE(run.secondary.first().id, u"structured_content"_s);
        QCOMPARE(QJsonDocument::fromJson(run.secondary.first().text.toUtf8()).object(),
                 object("{'text':'a','steps':2}"));
    }

    // The error text is the result's, then the status message, then a generic line (§4).
    void failedTaskMessages()
    {
        const Run fromResult
            = applied(resultEvents(object("{'content':[{'type':'text','text':'disk full'}],'isError':true}"),
                                   u"failed", u"step 1"_s));
        QCOMPARE(fromResult.status, RunStatus::Failed);
        QCOMPARE(fromResult.error.message, u"disk full"_s);
        QCOMPARE(fromResult.error.kind, ErrorKind::Run);
        QVERIFY(fromResult.primaryText.isEmpty());
        QCOMPARE(applied(resultEvents({}, u"failed", u"stale line"_s)).error.message, u"stale line"_s);
        QVERIFY(!applied(resultEvents({}, u"failed")).error.message.isEmpty());
        // isError on a "completed" task (2026 reads it so) is a failure too.
        QCOMPARE(applied(resultEvents(object("{'content':[],'isError':true}"), u"completed")).status,
                 RunStatus::Failed);
    }

    void progressNotifications()
    {
        const auto e
            = progressEvent(object("{'progressToken':'p','progress':3,'total':10,'message':'copying'}"));
        QVERIFY(e);
        QCOMPARE(e->text, u"3/10 copying"_s);
        QCOMPARE(e->itemId, u"progress"_s);
        QVERIFY(!progressEvent(object("{'progressToken':'p','progress':'x'}")));
    }

    // The elicitation: its typed form, stored with the run (delivered once), answered by kind.
    void elicitationAndItsAnswers()
    {
        const Message m = parseMessages(json(kElicitationJson)).first();
        const InputRequest request = inputRequestFor(m.id, m.params, u"s1"_s);
        QCOMPARE(request.reason, InputReason::Question);
        QCOMPARE(request.prompt, u"Approve deploy?"_s);
        QCOMPARE(request.schema.value(u"required"_s).toArray(), QJsonArray{u"approve"_s});
        QCOMPARE(request.raw.value(u"id"_s).toInteger(), 0);
        QCOMPARE(request.raw.value(u"session"_s).toString(), u"s1"_s);
        // Round trip through the token.
        const QJsonObject extra{{kElicitation, elicitationEntry(m.id, m.params, u"s1"_s)}};
        QCOMPARE(storedInputRequest(extra)->schema, request.schema);
        QVERIFY(!storedInputRequest(QJsonObject{{kElicitation, QJsonValue::Null}}));

        QString problem;
        InputAnswer value;
        value.kind = InputAnswer::Kind::Value;
        value.value = QJsonObject{{u"approve"_s, true}, {u"priority"_s, u"high"_s}};
        QCOMPARE(*elicitResult(request, value, &problem),
                 object("{'action':'accept','content':{'approve':true,'priority':'high'}}"));
        value.value = QJsonObject{{u"approve"_s, u"yes"_s}};
        QVERIFY(!elicitResult(request, value, &problem));
        QVERIFY2(problem.contains(u"approve"_s), qPrintable(problem));
        value.value = QJsonArray{};
        QVERIFY(!elicitResult(request, value, &problem));
        // The front ends offer Decline and Dismiss from these flags alone (and keep them in the store).
        QVERIFY(request.declinable);
        QCOMPARE(request.dismissChoice, u"cancel"_s);
        QCOMPARE(InputRequest::fromJson(request.toJson()), request);
        InputAnswer reject;
        reject.kind = InputAnswer::Kind::Reject;
        QCOMPARE(*elicitResult(request, reject, &problem), object("{'action':'decline'}"));
        InputAnswer cancel;
        cancel.kind = InputAnswer::Kind::Choice;
        cancel.choice = request.dismissChoice;
        QCOMPARE(*elicitResult(request, cancel, &problem), object("{'action':'cancel'}"));
        cancel.choice = u"maybe"_s;
        QVERIFY(!elicitResult(request, cancel, &problem));
        // --text only for a form of one string field.
        InputAnswer text;
        text.text = u"ok"_s;
        QVERIFY(!elicitResult(request, text, &problem));
        InputRequest single = request;
        single.schema
            = object("{'type':'object','properties':{'city':{'type':'string'}},'required':['city']}");
        QCOMPARE(*elicitResult(single, text, &problem),
                 object("{'action':'accept','content':{'city':'ok'}}"));
        // Approve a form with nothing to fill in (or defaults that fill it).
        InputAnswer approve;
        approve.kind = InputAnswer::Kind::Approve;
        QVERIFY(!elicitResult(request, approve, &problem));
        InputRequest defaults = request;
        defaults.schema = object("{'type':'object','properties':{'ok':{'type':'boolean','default':true}},"
                                 "'required':['ok']}");
        QCOMPARE(*elicitResult(defaults, approve, &problem),
                 object("{'action':'accept','content':{'ok':true}}"));
    }

    void urlModeElicitation()
    {
        const QJsonObject params = object("{'mode':'url','message':'Sign in','url':'https://auth.example/x',"
                                          "'elicitationId':'e1'}");
        const InputRequest request = inputRequestFor(7, params, u"s"_s);
        QCOMPARE(request.reason, InputReason::Auth);
        QCOMPARE(request.callbackUrl, u"https://auth.example/x"_s);
        QString problem;
        InputAnswer approve;
        approve.kind = InputAnswer::Kind::Approve;
        QCOMPARE(*elicitResult(request, approve, &problem), object("{'action':'accept'}"));
        InputAnswer value;
        value.kind = InputAnswer::Kind::Value;
        value.value = QJsonObject{};
        QVERIFY(!elicitResult(request, value, &problem));
    }

    void toolsAndTasksLists()
    {
        const CatalogEntry required = catalogEntryFor(object(
            "{'name':'write','description':'Writes','inputSchema':{'type':'object','properties':{'text':{"
            "'type':'string'}}},'execution':{'taskSupport':'required'}}"));
        QCOMPARE(required.id, u"write"_s);
        QCOMPARE(required.name, u"write"_s);
        QCOMPARE(required.description, u"Writes"_s);
        QCOMPARE(required.cliFields.value(u"task_support"_s).toString(), u"required"_s);
        QVERIFY(required.inputSchema.contains(u"properties"_s));
        // The spec's default is forbidden.
        QCOMPARE(taskSupportOf(object("{'name':'plain'}")), u"forbidden"_s);
        const RemoteRunInfo info = remoteRunFor(
            object("{'taskId':'abc','status':'input_required','statusMessage':'waiting','createdAt':"
                   "'2026-11-27T20:37:27.831Z'}"));
        QCOMPARE(info.remoteId, u"abc"_s);
        QCOMPARE(info.status, RunStatus::InputRequired);
        QCOMPARE(info.title, u"waiting"_s);
        QVERIFY(info.createdAt.isValid());
        QCOMPARE(
            createdTask(QJsonValue(object("{'task':{'taskId':'t9','status':'working'}}"))).value(u"taskId"_s),
            u"t9"_s);
        QVERIFY(createdTask(QJsonValue(object("{'content':[]}"))).isEmpty());
    }

    // The tasks/result stream: progress, then the elicitation ends the read and stores itself.
    void resultStreamWithAnElicitation()
    {
        ResultReader reader;
        reader.requestId = u"rw-7"_s;
        reader.taskId = u"t1"_s;
        reader.sessionId = u"s1"_s;
        reader.taskStatus = u"input_required"_s;
        QList<RunEvent> out;
        std::optional<StreamEnd> end;
        reader.map(json("{'jsonrpc':'2.0','method':'notifications/progress','params':{'progressToken':'p',"
                        "'progress':1}}"),
                   out, end);
        QVERIFY(!end);
        reader.map(json(kElicitationJson), out, end);
        QVERIFY(end);
        QCOMPARE(end->reason, StreamEnd::Reason::Terminal);
        const Run run = applied(out);
        QCOMPARE(run.status, RunStatus::InputRequired);
        QCOMPARE(run.input->prompt, u"Approve deploy?"_s);
        QCOMPARE(run.token.extra.value(kElicitation).toObject().value(u"session"_s).toString(), u"s1"_s);
        // Nothing after the end.
        out.clear();
        end.reset();
        reader.map(json("{'jsonrpc':'2.0','id':'rw-7','result':{'content':[]}}"), out, end);
        QVERIFY(out.isEmpty() && !end);
    }

    void resultStreamWithTheResultOrAnError()
    {
        ResultReader reader;
        reader.requestId = u"rw-2"_s;
        reader.taskId = u"t1"_s;
        reader.taskStatus = u"completed"_s;
        QList<RunEvent> out;
        std::optional<StreamEnd> end;
        // Another request's answer (id 2, the server's counter) is not ours.
        reader.map(json("{'jsonrpc':'2.0','id':2,'result':{'content':[{'type':'text','text':'no'}]}}"), out,
                   end);
        QVERIFY(!end);
        reader.map(json("{'jsonrpc':'2.0','id':'rw-2','result':{'content':[{'type':'text','text':'yes'}]}}"),
                   out, end);
        QVERIFY(end);
        QCOMPARE(applied(out).primaryText, u"yes"_s);
        QCOMPARE(applied(out).status, RunStatus::Completed);

        ResultReader cancelled;
        cancelled.requestId = u"rw-3"_s;
        cancelled.taskStatus = u"working"_s;
        out.clear();
        end.reset();
        cancelled.map(
            json("{'jsonrpc':'2.0','id':'rw-3','error':{'code':-32603,'message':'Task t has no result "
                 "stored'}}"),
            out, end);
        QVERIFY(end);
        QCOMPARE(end->reason, StreamEnd::Reason::Eof);
    }

    // 2026-07-28: a flat task, the result inline, inputRequests repeated until answered, update.
    void revision2026()
    {
        const QJsonObject created
            = object("{'resultType':'task','taskId':'t26','status':'working','ttlMs':30000,"
                     "'pollIntervalMs':250,'createdAt':'2026-07-28T00:00:00Z'}");
        QVERIFY(Mcp2026::isTask(created));
        QVERIFY(!Mcp2026::isTask(object("{'resultType':'complete','content':[]}")));
        QCOMPARE(Mcp2026::taskOf(created).value(u"taskId"_s).toString(), u"t26"_s);
        QCOMPARE(Mcp2026::taskExtra(created).value(kPollIntervalMs).toInteger(), 250);
        QCOMPARE(Mcp2026::taskExtra(created).value(kTtlMs).toInteger(), 30000);

        const QJsonObject done
            = object("{'taskId':'t26','status':'completed','result':{'content':[{'type':'text',"
                     "'text':'inline'}]}}");
        QCOMPARE(applied(Mcp2026::detailedTaskEvents(done, {})).primaryText, u"inline"_s);
        const QJsonObject failed
            = object("{'taskId':'t26','status':'failed','error':{'code':-32603,'message':'boom'}}");
        QCOMPARE(applied(Mcp2026::detailedTaskEvents(failed, {})).error.message, u"boom"_s);
        QCOMPARE(applied(Mcp2026::detailedTaskEvents(failed, {})).status, RunStatus::Failed);

        const QJsonObject waiting = object(
            "{'taskId':'t26','status':'input_required','inputRequests':{'k1':{'method':'elicitation/create',"
            "'params':{'mode':'form','message':'Name?','requestedSchema':{'type':'object','properties':{"
            "'name':{'type':'string'}}}}}}}");
        const Run run = applied(Mcp2026::detailedTaskEvents(waiting, {}));
        QCOMPARE(run.status, RunStatus::InputRequired);
        QCOMPARE(run.input->prompt, u"Name?"_s);
        QCOMPARE(Mcp2026::inputKeyOf(*run.input), u"k1"_s);
        QCOMPARE(applied(Mcp2026::detailedTaskEvents(waiting, {u"k1"_s})).status, RunStatus::InProgress);
        QString problem;
        InputAnswer text;
        text.text = u"Ada"_s;
        const auto result = elicitResult(*run.input, text, &problem);
        QVERIFY2(result, qPrintable(problem));
        QCOMPARE(
            Mcp2026::updateParams(u"t26"_s, u"k1"_s, *result),
            object("{'taskId':'t26','inputResponses':{'k1':{'action':'accept','content':{'name':'Ada'}}}}"));
        // A 2025 request has no input key.
        QVERIFY(Mcp2026::inputKeyOf(inputRequestFor(0, {}, {})).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestMcpMapping)
#include "tst_mcp_mapping.moc"
