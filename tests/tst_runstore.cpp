// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/runstore.h"

#include <QCryptographicHash>
#include <QFile>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {
Run sampleRun()
{
    Run run;
    run.localId = u"abcd1234"_s;
    run.connection = u"local"_s;
    run.backend = u"openai"_s;
    run.baseUrl = u"http://127.0.0.1:9/v1"_s;
    run.remoteId = u"resp_42"_s;
    run.createdAt = QDateTime::fromMSecsSinceEpoch(1700000000123, Qt::UTC);
    run.updatedAt = run.createdAt.addSecs(5);
    run.model = u"gpt-5"_s;
    run.prompt = u"Write a long novel about otters"_s;
    run.title = Run::summarize(run.prompt);
    run.status = RunStatus::InProgress;
    run.rawStatus = u"in_progress"_s;
    run.primaryText = u"Once upon a time — ünïcödé ✓"_s;
    SecondaryItem item;
    item.id = u"rs_1"_s;
    item.kind = SecondaryKind::Reasoning;
    item.text = u"thinking"_s;
    item.at = run.createdAt;
    run.secondary << item;
    run.error = RunError{ErrorKind::Network, {}, u"dropped"_s, true, 0, {}};
    run.capabilities = Capability::Cancel | Capability::Stream;
    run.token.remoteId = run.remoteId;
    run.token.sequence = 17;
    run.token.streamable = true;
    InputRequest req;
    req.reason = InputReason::Options;
    req.prompt = u"Pick one"_s;
    req.options = {u"a"_s, u"b"_s};
    run.input = req;
    return run;
}

QByteArray fileHash(const QString &path)
{
    QFile f(path);
    f.open(QIODevice::ReadOnly);
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}
} // namespace

class TestRunStore final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // Everything a run holds survives a save and a load in another store instance.
    void roundTrip()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"runs.sqlite"_s);
        const Run run = sampleRun();
        {
            RunStore store;
            QVERIFY2(store.open(path), qPrintable(store.errorString()));
            QVERIFY(store.saveRun(run));
        }
        RunStore other;
        QVERIFY(other.open(path));
        const auto loaded = other.findRun(u"resp_42"_s);
        QVERIFY(loaded);
        QCOMPARE(loaded->localId, run.localId);
        QCOMPARE(loaded->primaryText, run.primaryText);
        QCOMPARE(loaded->token, run.token);
        QCOMPARE(loaded->status, run.status);
        QCOMPARE(loaded->createdAt, run.createdAt);
        QCOMPARE(loaded->secondary, run.secondary);
        QCOMPARE(loaded->error, run.error);
        QCOMPARE(loaded->input, run.input);
        QCOMPARE(loaded->capabilities, run.capabilities);
        QCOMPARE(other.loadRuns().size(), 1);
        QVERIFY(other.removeRun(run.localId));
        QVERIFY(!other.findRun(run.localId));
    }

    // Scheduled saves are batched and reach the file after the flush interval.
    void batchedSaves()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"runs.sqlite"_s);
        RunStore store;
        store.setFlushInterval(20);
        QVERIFY(store.open(path));
        Run run = sampleRun();
        for (int i = 0; i < 100; ++i) {
            run.primaryText += u'x';
            store.scheduleSave(run);
        }
        RunStore reader;
        QVERIFY(reader.open(path));
        QTRY_COMPARE_WITH_TIMEOUT(reader.findRun(run.localId).value_or(Run{}).primaryText, run.primaryText, 5000);
    }

    // A database from a newer Runwatch is refused with a clear message and left byte-identical.
    void refusesNewerSchema()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(u"future.sqlite"_s);
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(u"QSQLITE"_s, u"future"_s);
            db.setDatabaseName(path);
            QVERIFY(db.open());
            QSqlQuery q(db);
            QVERIFY(q.exec(u"CREATE TABLE runs (x)"_s));
            QVERIFY(q.exec(u"PRAGMA user_version = 99"_s));
            db.close();
        }
        QSqlDatabase::removeDatabase(u"future"_s);
        const QByteArray before = fileHash(path);
        RunStore store;
        QVERIFY(!store.open(path));
        QVERIFY2(store.errorString().contains(u"newer"_s), qPrintable(store.errorString()));
        QCOMPARE(fileHash(path), before);
    }
};

QTEST_GUILESS_MAIN(TestRunStore)
#include "tst_runstore.moc"
