// SPDX-License-Identifier: GPL-3.0-or-later
#include "domain/runevent.h"
#include "domain/runreducer.h"
#include "engine/runexport.h"

#include <QHash>
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

    // The operator journal (who gave which command, when) goes with the run, in both formats.
    void journal()
    {
        const QDateTime at = QDateTime::fromSecsSinceEpoch(1700000100, Qt::UTC);
        const QList<RunStore::JournalEntry> journal{{.at = at,
                                                     .operatorName = u"carol"_s,
                                                     .host = u"ws1"_s,
                                                     .action = u"respond"_s,
                                                     .detail = u"12C"_s},
                                                    {.at = at.addSecs(5),
                                                     .operatorName = u"dora"_s,
                                                     .host = u"ws2"_s,
                                                     .action = u"cancel"_s,
                                                     .detail = {}}};
        const QJsonObject o
            = QJsonDocument::fromJson(exportRun(finishedRun(), ExportFormat::Json, {}, {}, {}, journal))
                  .object();
        const QJsonArray entries = o.value(u"journal"_s).toArray();
        QCOMPARE(entries.size(), 2);
        QCOMPARE(entries.at(0).toObject().value(u"operator"_s).toString(), u"carol"_s);
        QCOMPARE(entries.at(0).toObject().value(u"host"_s).toString(), u"ws1"_s);
        QCOMPARE(entries.at(0).toObject().value(u"action"_s).toString(), u"respond"_s);
        QCOMPARE(entries.at(0).toObject().value(u"detail"_s).toString(), u"12C"_s);
        QCOMPARE(entries.at(1).toObject().value(u"at"_s).toString(), u"2023-11-14T22:15:05Z"_s);
        const QString md
            = QString::fromUtf8(exportRun(finishedRun(), ExportFormat::Markdown, {}, {}, {}, journal));
        QVERIFY(md.contains(u"## Operator journal"_s));
        QVERIFY(md.contains(u"carol@ws1: respond (12C)"_s));
        QVERIFY(md.contains(u"dora@ws2: cancel\n"_s));
        // No journal, no section.
        QVERIFY(!QString::fromUtf8(exportRun(finishedRun(), ExportFormat::Markdown)).contains(u"journal"_s));
        QVERIFY(!QJsonDocument::fromJson(exportRun(finishedRun(), ExportFormat::Json))
                     .object()
                     .contains(u"journal"_s));
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

    // A follow-up's export holds the whole conversation: every earlier turn's prompt and answer,
    // oldest first, then its own; the walk stops at a missing turn and at a cycle.
    void conversation()
    {
        Run first;
        first.localId = u"t1"_s;
        first.prompt = u"Draft the report"_s;
        first.primaryText = u"A long draft."_s;
        first.status = RunStatus::Completed;
        Run second = first;
        second.localId = u"t2"_s;
        second.parentId = u"t1"_s;
        second.prompt = u"Shorten it"_s;
        second.primaryText = u"A short draft."_s;
        Run third = second;
        third.localId = u"t3"_s;
        third.parentId = u"t2"_s;
        third.prompt = u"Add the 2025 figures"_s;
        third.primaryText = u"With figures."_s;
        QHash<QString, Run> store{{first.localId, first}, {second.localId, second}};
        const auto lookup = [&store](const QString &id) -> std::optional<Run> {
            return store.contains(id) ? std::optional<Run>(store.value(id)) : std::nullopt;
        };
        const QList<Run> earlier = conversationBefore(third, lookup);
        QCOMPARE(earlier.size(), 2);
        QCOMPARE(earlier.at(0).localId, u"t1"_s);
        QCOMPARE(earlier.at(1).localId, u"t2"_s);

        const QString md = QString::fromUtf8(exportRun(third, ExportFormat::Markdown, {}, earlier));
        const qsizetype a = md.indexOf(u"Draft the report"_s), b = md.indexOf(u"A long draft."_s),
                        c = md.indexOf(u"Shorten it"_s), d = md.indexOf(u"A short draft."_s),
                        e = md.indexOf(u"Add the 2025 figures"_s), f = md.indexOf(u"With figures."_s);
        QVERIFY(a >= 0 && a < b && b < c && c < d && d < e && e < f);
        QVERIFY(md.contains(u"| Follow-up to | t2 |"_s));

        const QJsonObject o
            = QJsonDocument::fromJson(exportRun(third, ExportFormat::Json, {}, earlier)).object();
        QCOMPARE(o.value(u"parent"_s).toString(), u"t2"_s);
        const QJsonArray turns = o.value(u"conversation"_s).toArray();
        QCOMPARE(turns.size(), 2);
        QCOMPARE(turns.at(0).toObject().value(u"prompt"_s).toString(), u"Draft the report"_s);
        QCOMPARE(turns.at(1).toObject().value(u"output"_s).toString(), u"A short draft."_s);
        // A first turn exports as before: no conversation, no parent.
        const QJsonObject plain = QJsonDocument::fromJson(exportRun(first, ExportFormat::Json)).object();
        QVERIFY(!plain.contains(u"conversation"_s));
        QVERIFY(!plain.contains(u"parent"_s));

        // A deleted turn ends the walk; a cycle (damaged store) does not loop.
        store.remove(u"t1"_s);
        QCOMPARE(conversationBefore(third, lookup).size(), 1);
        store[u"t1"_s] = first;
        store[u"t1"_s].parentId = u"t3"_s;
        QCOMPARE(conversationBefore(third, lookup).size(), 2);
    }

    // The turns after a run (the follow-ups made from it, and from those) in creation order,
    // other conversations left out; the export of a first turn carries them after its output.
    void laterTurns()
    {
        Run first;
        first.localId = u"t1"_s;
        first.prompt = u"Draft the report"_s;
        first.primaryText = u"A long draft."_s;
        first.status = RunStatus::Completed;
        Run other = first;
        other.localId = u"o1"_s;
        other.prompt = u"Something else"_s;
        Run second = first;
        second.localId = u"t2"_s;
        second.parentId = u"t1"_s;
        second.prompt = u"Shorten it"_s;
        second.primaryText = u"A short draft."_s;
        Run otherChild = other;
        otherChild.localId = u"o2"_s;
        otherChild.parentId = u"o1"_s;
        Run third = second;
        third.localId = u"t3"_s;
        third.parentId = u"t2"_s;
        third.prompt = u"Add the 2025 figures"_s;
        third.primaryText = u"With figures."_s;
        const QHash<QString, Run> store{{first.localId, first},
                                        {other.localId, other},
                                        {second.localId, second},
                                        {otherChild.localId, otherChild},
                                        {third.localId, third}};
        const QStringList order{u"t1"_s, u"o1"_s, u"t2"_s, u"o2"_s, u"t3"_s};
        const auto parentOf = [&store](const QString &id) { return store.value(id).parentId; };
        const auto lookup = [&store](const QString &id) -> std::optional<Run> {
            return store.contains(id) ? std::optional<Run>(store.value(id)) : std::nullopt;
        };
        const QList<Run> later = conversationAfter(first, order, parentOf, lookup);
        QCOMPARE(later.size(), 2);
        QCOMPARE(later.at(0).localId, u"t2"_s);
        QCOMPARE(later.at(1).localId, u"t3"_s);
        QCOMPARE(conversationAfter(second, order, parentOf, lookup).size(), 1);
        QVERIFY(conversationAfter(third, order, parentOf, lookup).isEmpty());

        const QString md = QString::fromUtf8(exportRun(first, ExportFormat::Markdown, {}, {}, later));
        const qsizetype a = md.indexOf(u"A long draft."_s), b = md.indexOf(u"## Later turns"_s),
                        c = md.indexOf(u"### Turn 2 (run t2"_s), d = md.indexOf(u"With figures."_s);
        QVERIFY2(a >= 0 && a < b && b < c && c < d, qPrintable(md));
        QVERIFY(!md.contains(u"Something else"_s));
        const QJsonObject o
            = QJsonDocument::fromJson(exportRun(first, ExportFormat::Json, {}, {}, later)).object();
        const QJsonArray turns = o.value(u"later_turns"_s).toArray();
        QCOMPARE(turns.size(), 2);
        QCOMPARE(turns.at(1).toObject().value(u"prompt"_s).toString(), u"Add the 2025 figures"_s);
    }
};

QTEST_GUILESS_MAIN(TestRunExport)
#include "tst_runexport.moc"
