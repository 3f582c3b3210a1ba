// SPDX-License-Identifier: GPL-3.0-or-later
#include "domain/connection.h"
#include "store/runstore.h"
#include "testdata.h"
#include "teststore.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QSqlDatabase>
#include <QSqlError>
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
    req.schema = QJsonObject{{u"type"_s, u"object"_s}}; // a typed form's JSON Schema
    run.input = req;
    return run;
}

// A new store for one test: a file in `dir`, or a database of the test cluster when the program
// runs on PostgreSQL (the _pg ctest entry). Empty when that cannot start: the test fails.
QString newStore(const QTemporaryDir &dir, const QString &name)
{
    return RunwatchTest::freshStore(dir, name);
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
        const QString path = newStore(dir, u"runs"_s);
        QVERIFY(!path.isEmpty());
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

    // Usage, the follow-up link, the deadline and structured input survive; a run without them reads back as "not
    // reported" / unset, never as zero tokens.
    void usageParentAndDeadline()
    {
        QTemporaryDir dir;
        const QString path = newStore(dir, u"runs"_s);
        QVERIFY(!path.isEmpty());
        Run child = sampleRun();
        child.localId = u"child001"_s;
        child.remoteId = child.token.remoteId = u"resp_child"_s;
        child.usage = TokenUsage{1200, 340, 0};
        child.parentId = sampleRun().localId;
        child.deadlineAt = QDateTime(QDate(2026, 11, 25), QTime(10, 30), Qt::UTC);
        child.cancelAtDeadline = true;
        child.startInput = QJsonObject{{u"ticket"_s, 4711}, {u"urgent"_s, true}}; // structured input
        Run partial = sampleRun();
        partial.localId = u"part0001"_s;
        partial.remoteId = partial.token.remoteId = u"resp_part"_s;
        partial.usage.outputTokens = 17;
        {
            RunStore store;
            QVERIFY2(store.open(path), qPrintable(store.errorString()));
            QVERIFY(store.saveRun(sampleRun()));
            QVERIFY(store.saveRun(child));
            QVERIFY(store.saveRun(partial));
        }
        RunStore other;
        QVERIFY(other.open(path));
        const auto first = other.loadRun(sampleRun().localId);
        QVERIFY(first);
        QVERIFY(!first->usage.isKnown());
        QVERIFY(first->parentId.isEmpty());
        QVERIFY(!first->deadlineAt.isValid());
        QVERIFY(!first->cancelAtDeadline);
        QVERIFY(first->startInput.isUndefined());
        const auto loaded = other.loadRun(child.localId);
        QVERIFY(loaded);
        QCOMPARE(loaded->usage, child.usage);
        QCOMPARE(loaded->parentId, child.parentId);
        QCOMPARE(loaded->deadlineAt, child.deadlineAt);
        QVERIFY(loaded->cancelAtDeadline);
        QCOMPARE(loaded->startInput, child.startInput);
        const auto half = other.loadRun(partial.localId);
        QVERIFY(half);
        QCOMPARE(half->usage.inputTokens, -1);
        QCOMPARE(half->usage.outputTokens, 17);
        QCOMPARE(half->usage.reasoningTokens, -1);
    }

    // Paging newest first returns every run exactly once, in (created, id) descending order, even
    // when runs share a creation time across a page boundary; a scheduled save shows its latest state.
    void pagesNewestFirst()
    {
        QTemporaryDir dir;
        RunStore store;
        QVERIFY(store.open(newStore(dir, u"runs"_s)));
        const QDateTime base = sampleRun().createdAt;
        QStringList expected;
        for (int i = 0; i < 25; ++i) {
            Run run = sampleRun();
            run.localId = u"run%1"_s.arg(i, 3, 10, QLatin1Char('0'));
            run.remoteId = run.token.remoteId = u"resp_%1"_s.arg(i);
            run.status = RunStatus::Completed;
            run.createdAt = base.addSecs(i / 3); // three runs per second: ties everywhere
            QVERIFY(store.saveRun(run));
            expected.prepend(run.localId); // ids grow with time here, so newest first = reversed
        }
        Run renamed = *store.loadRun(u"run004"_s);
        renamed.title = u"scheduled, not yet written"_s;
        store.scheduleSave(renamed);

        RunStore::PagePosition position;
        QStringList seen;
        int pages = 0;
        while (!position.atEnd) {
            const QList<Run> page = store.loadRunsPage(RunStore::Load::Summary, 7, &position);
            QVERIFY(page.size() <= 7);
            for (const Run &run : page) {
                seen << run.localId;
                if (run.localId == renamed.localId) {
                    QCOMPARE(run.title, renamed.title); // the pending save, whole
                } else {
                    QVERIFY(!run.outputLoaded);
                }
            }
            QVERIFY(++pages <= 4);
        }
        QCOMPARE(seen, expected);
        QVERIFY(store.loadRunsPage(RunStore::Load::Summary, 7, &position).isEmpty());
    }

    // Shared settings: a key reads back what was saved, in another store instance; an unknown key
    // is empty.
    void settings()
    {
        QTemporaryDir dir;
        const QString path = newStore(dir, u"runs"_s);
        QVERIFY(!path.isEmpty());
        const QJsonObject prices{{u"gpt-5"_s, QJsonObject{{u"input"_s, 1.25}, {u"output"_s, 10.0}}}};
        {
            RunStore store;
            QVERIFY(store.open(path));
            QVERIFY(store.setting(u"prices"_s).isEmpty());
            QVERIFY(store.saveSetting(u"prices"_s, prices));
            QVERIFY(store.saveSetting(u"stuck"_s, QJsonObject{{u"factor"_s, 3}}));
        }
        RunStore other;
        QVERIFY(other.open(path));
        QCOMPARE(other.setting(u"prices"_s), prices);
        QCOMPARE(other.setting(u"stuck"_s).value(u"factor"_s).toInt(), 3);
        QVERIFY(other.setting(u"nothing"_s).isEmpty());
    }

    // A run that went on in new remote objects (an OpenAI response chain) is found by each id it
    // went through; an id that is only a substring of one is not, and a token that is not JSON
    // does not break the lookup for the others.
    void findsByEarlierRemoteId()
    {
        QTemporaryDir dir;
        const QString path = newStore(dir, u"runs"_s);
        RunStore store;
        QVERIFY(store.open(path));
        Run chained = sampleRun();
        chained.remoteId = chained.token.remoteId = u"resp_3"_s;
        chained.token.previousRemoteIds = {u"resp_1"_s, u"resp_2"_s};
        QVERIFY(store.saveRun(chained));
        Run other = sampleRun();
        other.localId = u"other001"_s;
        other.remoteId = other.token.remoteId = u"resp_9"_s;
        QVERIFY(store.saveRun(other));
        {
            RunwatchTest::RawStore raw(path);
            QVERIFY2(raw.exec(u"UPDATE runs SET token = 'not json resp_1' WHERE local_id = 'other001'"_s),
                     qPrintable(raw.error()));
        }
        RunStore reader;
        QVERIFY(reader.open(path));
        QCOMPARE(reader.findRun(u"resp_1"_s).value_or(Run{}).localId, chained.localId);
        QCOMPARE(reader.findRun(u"resp_2"_s).value_or(Run{}).localId, chained.localId);
        QCOMPARE(reader.findRun(u"resp_3"_s).value_or(Run{}).localId, chained.localId);
        QCOMPARE(reader.findRun(u"resp_9"_s).value_or(Run{}).localId, other.localId);
        QVERIFY(!reader.findRun(u"resp_"_s));
    }

    // Scheduled saves are batched and reach the file after the flush interval.
    void batchedSaves()
    {
        QTemporaryDir dir;
        const QString path = newStore(dir, u"runs"_s);
        QVERIFY(!path.isEmpty());
        RunStore store;
        store.setFlushInterval(20);
        QVERIFY(store.open(path));
        Run run = sampleRun();
        for (int i = 0; i < 100; ++i) {
            run.primaryText += u"x";
            store.scheduleSave(run);
        }
        RunStore reader;
        QVERIFY(reader.open(path));
        QTRY_COMPARE_WITH_TIMEOUT(reader.findRun(run.localId).value_or(Run{}).primaryText, run.primaryText,
                                  5000);
    }

    // More runs than one batch takes (the GUI thread hands over a bounded number per frame): all
    // reach the file without a flush(), reads see the newest version while the rest wait, and
    // flush() hands over whatever is left at once.
    void manyRunsGoInSeveralBatches()
    {
        QTemporaryDir dir;
        const QString path = newStore(dir, u"runs"_s);
        QVERIFY(!path.isEmpty());
        RunStore store;
        store.setFlushInterval(10);
        QVERIFY(store.open(path));
        QHash<QString, Run> source;
        store.setRunSource([&source](const QString &id) -> Run * {
            const auto it = source.find(id);
            return it == source.end() ? nullptr : &*it;
        });
        constexpr int kRuns = 700; // several batches, half copies, half from the source
        QStringList ids;
        for (int i = 0; i < kRuns; ++i) {
            Run run = sampleRun();
            run.localId = u"run%1"_s.arg(i);
            run.remoteId = u"resp_%1"_s.arg(i);
            run.primaryText = u"text %1"_s.arg(i);
            ids << run.localId;
            if (i % 2) {
                store.scheduleSave(run);
            } else {
                source.insert(run.localId, run);
                store.scheduleSave(run.localId, run.status);
            }
        }
        for (const QString &id : std::as_const(ids))
            QCOMPARE(store.loadRun(id).value_or(Run{}).primaryText, u"text %1"_s.arg(id.mid(3)));
        RunStore reader;
        QVERIFY(reader.open(path));
        QTRY_COMPARE_WITH_TIMEOUT(reader.runCount(), kRuns, 10000);
        for (const QString &id : std::as_const(ids))
            QCOMPARE(reader.loadRun(id).value_or(Run{}).primaryText, u"text %1"_s.arg(id.mid(3)));

        // A second round, changed, then flush(): every run on disk when it returns.
        for (int i = 0; i < kRuns; ++i) {
            Run &run = source[ids.at(i)];
            if (run.localId.isEmpty()) {
                run = reader.loadRun(ids.at(i)).value_or(Run{});
                QVERIFY(!run.localId.isEmpty());
            }
            run.primaryText += u" more"_s;
            store.scheduleSave(run.localId, run.status);
        }
        store.flush();
        for (const QString &id : std::as_const(ids))
            QCOMPARE(reader.loadRun(id).value_or(Run{}).primaryText, u"text %1 more"_s.arg(id.mid(3)));
        store.setRunSource({});
    }

    // A database from a newer Runwatch is refused with a clear message and left byte-identical.
    void refusesNewerSchema()
    {
        QTemporaryDir dir;
        const QString path = newStore(dir, u"future"_s);
        QVERIFY(!path.isEmpty());
        // What the database holds, to compare after the refusal: the file's bytes, or every table
        // and the recorded version.
        const auto snapshot = [&path] {
            if (!RunwatchTest::onPostgres())
                return fileHash(path);
            RunwatchTest::RawStore raw(path);
            return raw
                .value(u"SELECT string_agg(tablename, ',' ORDER BY tablename) || ':' || "
                       "(SELECT string_agg(version::text, ',') FROM runwatch_schema) FROM pg_tables "
                       "WHERE schemaname = current_schema()"_s)
                .toString()
                .toUtf8();
        };
        {
            RunwatchTest::RawStore raw(path);
            QVERIFY2(raw.exec(u"CREATE TABLE runs (x INTEGER)"_s), qPrintable(raw.error()));
            if (RunwatchTest::onPostgres()) {
                QVERIFY(raw.exec(u"CREATE TABLE runwatch_schema (version INTEGER NOT NULL)"_s));
                QVERIFY(raw.exec(u"INSERT INTO runwatch_schema VALUES (99)"_s));
            } else {
                QVERIFY(raw.exec(u"PRAGMA user_version = 99"_s));
            }
        }
        const QByteArray before = snapshot();
        QVERIFY(!before.isEmpty());
        RunStore store;
        QVERIFY(!store.open(path));
        QVERIFY2(store.errorString().contains(u"newer"_s), qPrintable(store.errorString()));
        QCOMPARE(snapshot(), before);
        QVERIFY(!store.isOpen());
    }

    // A schema-1 store (fixture) is upgraded step by step; its runs survive unchanged.
    void migratesFromVersion1()
    {
        QTemporaryDir dir;
        const QString path = newStore(dir, u"v1"_s);
        QVERIFY(!path.isEmpty());
        {
            RunwatchTest::RawStore raw(path);
            const QList<QByteArray> lines = RunwatchTest::readData(u"store/v1.sql"_s).split('\n');
            QVERIFY(lines.size() > 3);
            for (const QByteArray &line : lines) {
                if (line.trimmed().isEmpty() || line.startsWith("--"))
                    continue;
                // The version's place is the engine's: SQLite's file header, a table on PostgreSQL.
                if (line.startsWith("PRAGMA") && RunwatchTest::onPostgres()) {
                    QVERIFY(raw.exec(u"CREATE TABLE runwatch_schema (version INTEGER NOT NULL)"_s));
                    QVERIFY(raw.exec(u"INSERT INTO runwatch_schema VALUES (1)"_s));
                    continue;
                }
                QVERIFY2(raw.exec(QString::fromUtf8(line)), qPrintable(raw.error()));
            }
        }
        {
            RunStore store;
            QVERIFY2(store.open(path), qPrintable(store.errorString()));
            const auto done = store.findRun(u"resp_old1"_s);
            QVERIFY(done);
            QCOMPARE(done->primaryText, u"Silent circuits hum"_s);
            QCOMPARE(done->status, RunStatus::Completed);
            QCOMPARE(done->token.sequence, 11);
            const auto running = store.loadRun(u"e5f6a7b8"_s);
            QVERIFY(running);
            QCOMPARE(running->token.sequence, 42);
            QCOMPARE(running->error.kind, ErrorKind::Network);
            // The schema-2 table works.
            Connection c;
            c.name = u"sim"_s;
            c.backend = u"openai"_s;
            c.baseUrl = QUrl(u"http://127.0.0.1:8080/v1"_s);
            QVERIFY(store.saveConnectionConfig(c.name, c.toJson()));
            QCOMPARE(store.loadConnectionConfigs().size(), 1);
            // Schema 7 knows the old runs: a search finds them.
            SearchQuery query;
            query.terms = {SearchQuery::Term{.text = u"circuits"_s, .phrase = false, .prefix = false}};
            const auto hits = store.search(query);
            QVERIFY(hits);
            QCOMPARE(hits->size(), 1);
        }
        RunwatchTest::RawStore raw(path);
        const QVariant version
            = raw.value(RunwatchTest::onPostgres() ? u"SELECT max(version) FROM runwatch_schema"_s
                                                   : u"PRAGMA user_version"_s);
        QCOMPARE(version.toInt(), RunStore::SchemaVersion);
    }

    // Summaries leave finished runs' output on disk; saving a summary never erases it.
    void summariesKeepOutputOnDisk()
    {
        QTemporaryDir dir;
        RunStore store;
        QVERIFY(store.open(newStore(dir, u"s"_s)));
        Run done = sampleRun();
        done.status = RunStatus::Completed;
        done.finishedAt = done.updatedAt;
        QVERIFY(store.saveRun(done));
        Run active = sampleRun();
        active.localId = u"active01"_s;
        QVERIFY(store.saveRun(active));
        const QList<Run> runs = store.loadRuns(RunStore::Load::Summary);
        QCOMPARE(runs.size(), 2);
        for (const Run &r : runs) {
            if (r.localId == done.localId) {
                QVERIFY(!r.outputLoaded);
                QVERIFY(r.primaryText.isEmpty());
                Run changed = r;
                changed.title = u"renamed"_s;
                QVERIFY(store.saveRun(changed));
            } else {
                QVERIFY(r.outputLoaded);
                QCOMPARE(r.primaryText, active.primaryText);
            }
        }
        const auto reloaded = store.loadRun(done.localId);
        QCOMPARE(reloaded->primaryText, done.primaryText);
        QCOMPARE(reloaded->title, u"renamed"_s);
        QCOMPARE(store.runCount(), 2);
    }

    // Retention removes only finished runs that ended before the cutoff.
    void retention()
    {
        QTemporaryDir dir;
        RunStore store;
        QVERIFY(store.open(newStore(dir, u"r"_s)));
        const QDateTime now = QDateTime::currentDateTimeUtc();
        Run old = sampleRun();
        old.localId = u"old"_s;
        old.status = RunStatus::Completed;
        old.finishedAt = now.addDays(-40);
        Run recent = old;
        recent.localId = u"recent"_s;
        recent.finishedAt = now.addDays(-2);
        Run running = sampleRun();
        running.localId = u"running"_s;
        for (const Run &r : {old, recent, running})
            QVERIFY(store.saveRun(r));
        QCOMPARE(store.removeFinishedBefore(now.addDays(-30)), 1);
        QVERIFY(!store.loadRun(u"old"_s));
        QVERIFY(store.loadRun(u"recent"_s));
        QVERIFY(store.loadRun(u"running"_s));
    }

    // Connections are stored without their API key.
    void connectionsHaveNoSecrets()
    {
        QTemporaryDir dir;
        const QString path = newStore(dir, u"c"_s);
        QVERIFY(!path.isEmpty());
        {
            RunStore store;
            QVERIFY(store.open(path));
            Connection c;
            c.name = u"prod"_s;
            c.backend = u"openai"_s;
            c.baseUrl = QUrl(u"https://api.example.invalid/v1"_s);
            c.apiKey = u"sk-must-never-be-stored-123"_s;
            QVERIFY(store.saveConnectionConfig(c.name, c.toJson()));
            QCOMPARE(Connection::fromJson(store.loadConnectionConfigs().first()).apiKey, QString());
            QCOMPARE(Connection::fromJson(store.loadConnectionConfigs().first()).baseUrl, c.baseUrl);
        }
        if (RunwatchTest::onPostgres()) {
            RunwatchTest::RawStore raw(path);
            QCOMPARE(
                raw.value(u"SELECT count(*) FROM connections WHERE config LIKE '%sk-must-never%'"_s).toInt(),
                0);
            QCOMPARE(raw.value(u"SELECT count(*) FROM connections"_s).toInt(), 1);
            return;
        }
        QDir d(dir.path());
        for (const QString &f : d.entryList(QDir::Files)) {
            QFile file(d.filePath(f));
            QVERIFY(file.open(QIODevice::ReadOnly));
            QVERIFY2(!file.readAll().contains("sk-must-never-be-stored-123"), qPrintable(f));
        }
    }

    // The connections table keeps what the connections' code writes (a profile's key storage
    // included) and gives it back as written; saving by name replaces, removing forgets.
    void connectionConfigsRoundTrip()
    {
        QTemporaryDir dir;
        RunStore store;
        QVERIFY(store.open(newStore(dir, u"c"_s)));
        Connection c;
        c.name = u"azure"_s;
        c.backend = u"openai"_s;
        c.baseUrl = QUrl(u"https://example.openai.azure.com/openai"_s);
        c.auth = AuthStyle::Header;
        c.authHeader = u"api-key"_s;
        c.options.insert(u"api_version"_s, u"2024-10-21"_s);
        QJsonObject config = c.toJson();
        config.insert(u"key_storage"_s, u"keychain"_s);
        QVERIFY(store.saveConnectionConfig(c.name, config));
        QCOMPARE(store.loadConnectionConfigs(), QList<QJsonObject>{config});
        const Connection loaded = Connection::fromJson(store.loadConnectionConfigs().first());
        QCOMPARE(loaded.auth, AuthStyle::Header);
        QCOMPARE(loaded.authHeader, u"api-key"_s);
        QCOMPARE(loaded.options.value(u"api_version"_s).toString(), u"2024-10-21"_s);
        config.insert(u"key_storage"_s, u"plaintext"_s);
        QVERIFY(store.saveConnectionConfig(c.name, config));
        QCOMPARE(store.loadConnectionConfigs().size(), 1);
        QCOMPARE(store.loadConnectionConfigs().first().value(u"key_storage"_s).toString(), u"plaintext"_s);
        QVERIFY(store.removeConnection(c.name));
        QVERIFY(store.loadConnectionConfigs().isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestRunStore)
#include "tst_runstore.moc"
