// SPDX-License-Identifier: GPL-3.0-or-later
// The command palette's matching and ranking (core/models/commandpalette.h): how a word scores
// against a name, commands and runs in one list best first, a run found by its id before one
// whose title holds the word, newest first among equals, at most maxRuns runs kept from 100,000
// (the rest counted), and an empty query lists the commands only.
#include "enginerig.h"
#include "models/commandpalette.h"
#include "models/runlistmodel.h"

#include <QElapsedTimer>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;
using RunwatchTest::listedRun;

namespace {

QStringList texts(const CommandPaletteModel &model)
{
    QStringList list;
    for (int row = 0; row < model.rowCount(); ++row)
        list << model.index(row).data().toString();
    return list;
}

QString keyAt(const CommandPaletteModel &model, int row)
{
    return model.index(row).data(CommandPaletteModel::KeyRole).toString();
}

const QList<PaletteCommand> kCommands{
    {u"actionNewRun"_s, u"New Run…"_s, u"Ctrl+N"_s},
    {u"actionCancel"_s, u"Cancel Run"_s, u"Ctrl+."_s},
    {u"actionRespond"_s, u"Respond"_s, u"Ctrl+I"_s},
    {u"actionRefresh"_s, u"Refresh"_s, u"F5"_s},
};

} // namespace

class TestCommandPalette final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void scores_data()
    {
        QTest::addColumn<QString>("query");
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("subsequence");
        QTest::addColumn<int>("score");
        QTest::addRow("whole") << u"refresh"_s << u"Refresh"_s << false << 100;
        QTest::addRow("start") << u"ref"_s << u"Refresh"_s << false << 80;
        QTest::addRow("word start") << u"run"_s << u"Cancel Run"_s << false << 60;
        QTest::addRow("inside") << u"fres"_s << u"Refresh"_s << false << 40;
        QTest::addRow("letters in order") << u"nr"_s << u"New Run…"_s << true << 10;
        QTest::addRow("letters, not allowed") << u"nr"_s << u"New Run…"_s << false << -1;
        QTest::addRow("no match") << u"xyz"_s << u"Refresh"_s << true << -1;
        QTest::addRow("two words") << u"can run"_s << u"Cancel Run"_s << false << 140;
        QTest::addRow("one word missing") << u"cancel nightly"_s << u"Cancel Run"_s << false << -1;
        QTest::addRow("case") << u"RESPOND"_s << u"Respond"_s << false << 100;
        QTest::addRow("empty") << QString() << u"Respond"_s << false << 0;
        QTest::addRow("longer than text") << u"responding"_s << u"Respond"_s << true << -1;
    }
    void scores()
    {
        QFETCH(QString, query);
        QFETCH(QString, text);
        QFETCH(bool, subsequence);
        QFETCH(int, score);
        QCOMPARE(paletteScore(query, text, subsequence), score);
    }

    void commandsAndRuns()
    {
        RunManager manager;
        Run older
            = listedRun(u"run-older"_s, RunStatus::Completed, u"Refresh the quarterly report"_s, u"c"_s, 600);
        Run newer
            = listedRun(u"run-newer"_s, RunStatus::InProgress, u"Refresh the weekly report"_s, u"c"_s, 60);
        Run byId = listedRun(u"refresh"_s, RunStatus::Failed, u"Something else"_s, u"c"_s, 30);
        manager.adoptRun(older, false);
        manager.adoptRun(newer, false);
        manager.adoptRun(byId, false);
        RunListModel runs(&manager);
        runs.flush();
        CommandPaletteModel model(&runs);
        model.setCommands(kCommands);

        // No query: every command in menu order, no run.
        QCOMPARE(texts(model), (QStringList{u"New Run…"_s, u"Cancel Run"_s, u"Respond"_s, u"Refresh"_s}));
        QCOMPARE(model.index(0).data(CommandPaletteModel::DetailRole).toString(), u"Ctrl+N"_s);

        // "refresh": the command (whole name) and the run whose id it is tie on score, the
        // command first; then the titles that start with it, newest first.
        model.setQuery(u"refresh"_s);
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(keyAt(model, 0), u"refresh"_s); // the whole id: 105
        QCOMPARE(keyAt(model, 1), u"actionRefresh"_s);
        QCOMPARE(keyAt(model, 2), u"run-newer"_s);
        QCOMPARE(keyAt(model, 3), u"run-older"_s);
        QCOMPARE(model.index(2).data(CommandPaletteModel::KindRole).toInt(),
                 int(CommandPaletteModel::Kind::Run));
        QVERIFY(model.index(2).data(CommandPaletteModel::DetailRole).toString().startsWith(u"run-newer"_s));

        // Every word must match; a remote id finds its run too.
        model.setQuery(u"report weekly"_s);
        QCOMPARE(texts(model), QStringList{u"Refresh the weekly report"_s});
        model.setQuery(u"resp_run-older"_s);
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(keyAt(model, 0), u"run-older"_s);
        // "re" starts every remote id ("resp_…") here: too short to find runs by id.
        model.setQuery(u"re"_s);
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(keyAt(model, 0), u"actionRespond"_s); // commands in menu order among equals
        QCOMPARE(keyAt(model, 1), u"actionRefresh"_s);
        QCOMPARE(keyAt(model, 2), u"run-newer"_s); // "Refresh the weekly report"
        QCOMPARE(keyAt(model, 3), u"run-older"_s);
        // Four letters of an id find it, below any match in a title.
        model.setQuery(u"refr"_s);
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(keyAt(model, 3), u"refresh"_s);
        // Letters in order find commands, never runs (a 100k scan would list noise).
        model.setQuery(u"nr"_s);
        QCOMPARE(texts(model), (QStringList{u"New Run…"_s, u"Cancel Run"_s}));
        model.setQuery(u"nothing like it"_s);
        QCOMPARE(model.rowCount(), 0);
    }

    // 100,000 runs: the best maxRuns are listed, the rest counted; a keystroke stays quick.
    void manyRuns()
    {
        RunManager manager;
        for (int i = 0; i < 100000; ++i) {
            manager.adoptRun(
                listedRun(u"r%1"_s.arg(i), RunStatus::Completed,
                          i % 10 == 0 ? u"Nightly build %1"_s.arg(i) : u"Daily summary %1"_s.arg(i), u"c"_s,
                          100000 - i),
                false);
        }
        RunListModel runs(&manager);
        runs.flush();
        QCOMPARE(runs.rowCount(), 100000);
        CommandPaletteModel model(&runs);
        model.setCommands(kCommands);
        QElapsedTimer timer;
        timer.start();
        model.setQuery(u"nightly"_s);
        const qint64 ms = timer.elapsed();
        qInfo("query over 100,000 runs: %lld ms", ms);
        QCOMPARE(model.rowCount(), model.maxRuns());
        QCOMPARE(model.moreRuns(), 10000 - model.maxRuns());
        // Newest first: r99990 was created last.
        QCOMPARE(keyAt(model, 0), u"r99990"_s);
        QCOMPARE(keyAt(model, 1), u"r99980"_s);
        // Generous for a sanitized build on a shared machine; the release build is far quicker.
        QVERIFY2(ms < 3000, qPrintable(u"%1 ms"_s.arg(ms)));
        // An exact id wins over every title.
        model.setQuery(u"r12345"_s);
        QCOMPARE(keyAt(model, 0), u"r12345"_s);
    }
};

QTEST_GUILESS_MAIN(TestCommandPalette)
#include "tst_commandpalette.moc"
