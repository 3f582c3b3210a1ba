// SPDX-License-Identifier: GPL-3.0-or-later
#include "domain/runevent.h"
#include "domain/runreducer.h"
#include "engine/runexport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {
Run finishedRun()
{
    Run run;
    run.localId = u"abcd1234"_s;
    run.remoteId = u"resp_9"_s;
    run.connection = u"prod"_s;
    run.backend = u"openai"_s;
    run.baseUrl = u"https://user:hunter2@example.invalid/v1?api-key=sk-secret-1&region=eu"_s;
    run.prompt = u"Summarise ```this``` report"_s;
    run.title = Run::summarize(run.prompt);
    run.model = u"gpt-5"_s;
    const QDateTime t0 = QDateTime::fromSecsSinceEpoch(1700000000, Qt::UTC);
    run.createdAt = t0;
    applyEvent(run, RunEvent::statusChange(RunStatus::InProgress, u"in_progress"_s), t0.addSecs(1));
    applyEvent(
        run, RunEvent::secondarySnapshot(SecondaryKind::Reasoning, u"rs"_s, u"Reasoning"_s, u"Plan first"_s),
        t0.addSecs(2));
    applyEvent(run, RunEvent::primaryDelta(u"The answer."_s), t0.addSecs(3));
    applyEvent(run, RunEvent::failure(RunError{ErrorKind::Run, u"server_error"_s, u"boom"_s, true, 0, {}}),
               t0.addSecs(4));
    applyEvent(run, RunEvent::statusChange(RunStatus::Failed, u"failed"_s), t0.addSecs(4));
    return run;
}
} // namespace

class TestRunExport final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Markdown carries prompt, status history, output, secondary items and the error.
    void markdown()
    {
        const QString md = QString::fromUtf8(exportRun(finishedRun(), ExportFormat::Markdown));
        QVERIFY(md.contains(u"## Prompt"_s));
        QVERIFY(md.contains(u"````\nSummarise ```this``` report\n````"_s)); // fence longer than the text's
        QVERIFY(md.contains(u"## Status history"_s));
        QVERIFY(md.contains(u"In progress → Failed"_s));
        QVERIFY(md.contains(u"The answer."_s));
        QVERIFY(md.contains(u"Plan first"_s));
        QVERIFY(md.contains(u"server_error"_s));
        QVERIFY(md.contains(u"Retryable: yes"_s));
    }

    void json()
    {
        const QJsonObject o = QJsonDocument::fromJson(exportRun(finishedRun(), ExportFormat::Json)).object();
        QCOMPARE(o.value(u"status"_s).toString(), u"failed"_s);
        QCOMPARE(o.value(u"output"_s).toString(), u"The answer."_s);
        QCOMPARE(o.value(u"status_history"_s).toArray().size(), 2);
        QCOMPARE(o.value(u"secondary"_s).toArray().size(), 1);
        QCOMPARE(o.value(u"error"_s).toObject().value(u"code"_s).toString(), u"server_error"_s);
    }

    // Credentials in the service URL never reach an export.
    void secretsRedacted()
    {
        for (auto format : {ExportFormat::Markdown, ExportFormat::Json}) {
            const QByteArray doc = exportRun(finishedRun(), format);
            QVERIFY(!doc.contains("hunter2"));
            QVERIFY(!doc.contains("sk-secret-1"));
            QVERIFY(doc.contains("region=eu"));
        }
        QCOMPARE(redactUrl(u"http://127.0.0.1:9/v1"_s), u"http://127.0.0.1:9/v1"_s);
        QCOMPARE(redactUrl(u"https://h/x?token=abc"_s), u"https://h/x?token=REDACTED"_s);
    }
};

QTEST_GUILESS_MAIN(TestRunExport)
#include "tst_runexport.moc"
