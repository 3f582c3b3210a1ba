// SPDX-License-Identifier: GPL-3.0-or-later
// Full-text search over a big history (issue 31): N stored runs (default 100,000) with a title,
// a prompt, an answer of about 1.5 KB written in three pieces, as a stream writes it, and two
// items each; words drawn from a 20,000-word vocabulary with Zipf-like frequencies (a few words in
// most runs, most words in few), a marked phrase in 5 runs. Reports:
//  - each query's time (median of the rounds; target <= 200 ms) and how many runs it found;
//  - the write overhead of the index: the same runs written into a store without it (its
//    triggers and tables dropped), in the same process, and the ratio;
//  - the index's size: the file with and without it.
// Calibration (calibration.h): a fixed CPU-bound loop, printed before the queries.
//
//   bench_search [runs=100000] [rounds=5] [dir=/tmp] [--reuse]
//       --reuse: query the store a previous call left in dir (same runs), writing nothing
#include "calibration.h"
#include "store/runstore.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QSqlDatabase>
#include <QSqlQuery>

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {

constexpr int kVocabulary = 20000;
constexpr double kMaxQueryMs = 200;

// Pronounceable words: w0 = "ba", w1 = "be", …; the index is the word's rank.
QString wordAt(int rank)
{
    static const char *syllables[] = {"ba", "ce", "di",  "fo", "gu", "ha", "je", "ki", "lo", "mu",
                                      "na", "pe", "qui", "ro", "su", "ta", "ve", "wi", "xo", "zu"};
    QString word;
    int n = rank;
    do {
        word += QLatin1StringView(syllables[n % 20]);
        n /= 20;
    } while (n > 0);
    return word;
}

// A word by Zipf's law (rank r with weight 1/r), from a precomputed table of cumulative weights.
class Zipf
{
public:
    Zipf()
    {
        double sum = 0;
        for (int r = 1; r <= kVocabulary; ++r) {
            sum += 1.0 / r;
            m_cumulative << sum;
        }
    }
    int rank(QRandomGenerator &random) const
    {
        const double x = random.generateDouble() * m_cumulative.last();
        return int(std::lower_bound(m_cumulative.cbegin(), m_cumulative.cend(), x) - m_cumulative.cbegin());
    }

private:
    QList<double> m_cumulative;
};

QString sentence(QRandomGenerator &random, const Zipf &zipf, int words)
{
    QString text;
    for (int i = 0; i < words; ++i) {
        if (i > 0)
            text += i % 12 == 0 ? u". "_s : u" "_s;
        text += wordAt(zipf.rank(random));
    }
    return text;
}

struct Written
{
    double seconds = 0;
    qint64 bytes = 0;
};

// The runs, each in four writes (the run, then three pieces of its answer with its items), a
// batch of the writer's at a time, as a live app writes them.
Written populate(const QString &path, int count, bool withIndex)
{
    QFile::remove(path);
    QFile::remove(path + u"-wal"_s);
    QFile::remove(path + u"-shm"_s);
    {
        RunStore store;
        if (!store.open(path))
            qFatal("%s", qPrintable(store.errorString()));
    }
    if (!withIndex) {
        QSqlDatabase db = QSqlDatabase::addDatabase(u"QSQLITE"_s, u"strip"_s);
        db.setDatabaseName(path);
        if (!db.open())
            qFatal("cannot open %s", qPrintable(path));
        QSqlQuery q(db);
        for (const QString &sql :
             {u"DROP TRIGGER runs_search_ai"_s, u"DROP TRIGGER runs_search_au"_s,
              u"DROP TRIGGER runs_search_ad"_s, u"DROP TRIGGER run_text_search_ai"_s,
              u"DROP TRIGGER run_text_search_ad"_s, u"DROP TRIGGER run_items_search_ai"_s,
              u"DROP TRIGGER run_items_search_ad"_s}) {
            if (!q.exec(sql))
                qFatal("%s failed", qPrintable(sql));
        }
        q.finish();
        db.close();
        db = {};
        QSqlDatabase::removeDatabase(u"strip"_s);
    }
    QRandomGenerator random(20261129); // the same runs both times
    const Zipf zipf;
    QHash<QString, Run> runs;
    RunStore store;
    if (!store.open(path))
        qFatal("%s", qPrintable(store.errorString()));
    store.setFlushInterval(1 << 30);
    store.setRunSource([&runs](const QString &id) -> Run * {
        const auto it = runs.find(id);
        return it == runs.end() ? nullptr : &*it;
    });
    const QDateTime t0 = QDateTime(QDate(2026, 9, 1), QTime(0, 0), Qt::UTC);
    const QStringList backends{u"openai"_s, u"a2a"_s, u"jobs"_s, u"langgraph"_s};
    QElapsedTimer timer;
    timer.start();
    constexpr int kBatch = 1000;
    for (int first = 0; first < count; first += kBatch) {
        const int last = std::min(count, first + kBatch);
        for (int step = 0; step < 4; ++step) {
            for (int i = first; i < last; ++i) {
                const QString id = u"run%1"_s.arg(i, 6, 10, QChar(u'0'));
                if (step == 0) {
                    Run run;
                    run.localId = id;
                    run.connection = u"prod"_s;
                    run.backend = backends.at(i % 4);
                    run.createdAt = t0.addSecs(qint64(i) * 60);
                    run.updatedAt = run.createdAt;
                    run.model = i % 2 ? u"gpt-5"_s : u"gemini-3-pro"_s;
                    run.prompt = sentence(random, zipf, 20);
                    run.title = Run::summarize(run.prompt);
                    run.status = RunStatus::InProgress;
                    runs.insert(id, run);
                } else {
                    Run &run = runs[id];
                    QString piece = sentence(random, zipf, 80) + u' ';
                    if (step == 2 && i % (count / 5 + 1) == 7)
                        piece += u"the parser hit CVE-2026-1234 during the deploy "_s;
                    run.primaryText += piece;
                    SecondaryItem item;
                    item.id = u"i%1"_s.arg(step);
                    item.kind = SecondaryKind::ToolCall;
                    item.title = u"search"_s;
                    item.text = sentence(random, zipf, 10);
                    if (step < 3)
                        run.secondary << item;
                    if (step == 3) {
                        run.status = i % 9 == 0 ? RunStatus::Failed : RunStatus::Completed;
                        run.finishedAt = run.createdAt.addSecs(600);
                        if (run.status == RunStatus::Failed) {
                            run.error
                                = RunError::protocol(u"server_error"_s, u"The upstream model timed out"_s);
                        }
                    }
                }
                store.scheduleSave(id, runs.value(id).status);
            }
            store.flush();
        }
        // Finished runs leave memory, as the app lets summaries go.
        for (int i = first; i < last; ++i)
            runs.remove(u"run%1"_s.arg(i, 6, 10, QChar(u'0')));
    }
    store.flush();
    Written written;
    written.seconds = double(timer.nsecsElapsed()) / 1e9;
    store.close();
    {
        // The WAL folded in, so that the file's size is what it holds.
        QSqlDatabase db = QSqlDatabase::addDatabase(u"QSQLITE"_s, u"size"_s);
        db.setDatabaseName(path);
        if (db.open())
            QSqlQuery(db).exec(u"PRAGMA wal_checkpoint(TRUNCATE)"_s);
        db.close();
        db = {};
        QSqlDatabase::removeDatabase(u"size"_s);
    }
    written.bytes = QFileInfo(path).size();
    return written;
}

double median(QList<double> values)
{
    std::sort(values.begin(), values.end());
    return values.at(values.size() / 2);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QStringList args = app.arguments().mid(1);
    const bool reuse = args.removeAll(u"--reuse"_s) > 0;
    const int count = std::max(100, args.value(0, u"100000"_s).toInt());
    const int rounds = std::max(1, args.value(1, u"5"_s).toInt());
    const QString dir = args.value(2, u"/tmp"_s);
    const QString indexed = dir + u"/runwatch-bench-search.sqlite"_s;
    const QString plain = dir + u"/runwatch-bench-search-plain.sqlite"_s;

    std::printf("bench_search: %d runs (20-word prompt, 3 pieces of 80 words, 2 items each; Zipf words)\n",
                count);
    if (!reuse) {
        const Written without = populate(plain, count, false);
        const Written with = populate(indexed, count, true);
        std::printf("written without the index: %.1f s, %.0f MB; with it: %.1f s, %.0f MB: write time %.2fx, "
                    "size %.2fx (the index %.0f MB)\n",
                    without.seconds, double(without.bytes) / 1e6, with.seconds, double(with.bytes) / 1e6,
                    with.seconds / without.seconds, double(with.bytes) / double(without.bytes),
                    double(with.bytes - without.bytes) / 1e6);
    }

    RunStore store;
    if (!store.open(indexed))
        qFatal("%s", qPrintable(store.errorString()));
    const QDateTime now = QDateTime(QDate(2026, 11, 29), QTime(0, 0), Qt::UTC);
    const QStringList queries{
        u"\"cve-2026-1234\""_s,                    // a phrase in 5 runs
        wordAt(3000),                              // a rare word
        wordAt(2),                                 // a word in most runs
        wordAt(1) + u' ' + wordAt(2),              // two common words
        wordAt(40) + u"*"_s,                       // a prefix
        u"status:failed timed"_s,                  // a filter and a word of every failed run
        u"backend:a2a since:14d "_s + wordAt(500), // filters and a word
        u"status:failed backend:jobs"_s,           // filters alone
    };
    bool ok = true;
    std::printf("calibration %.0f ms; median of %d rounds, the first 200 results with snippets (as the app "
                "asks):\n",
                RunwatchBench::calibrationMs(), rounds);
    for (const QString &text : queries) {
        QString why;
        const std::optional<SearchQuery> query = SearchQuery::parse(text, now, &why);
        if (!query)
            qFatal("%s: %s", qPrintable(text), qPrintable(why));
        QList<double> ms;
        qsizetype found = 0;
        for (int round = 0; round < rounds; ++round) {
            QElapsedTimer timer;
            timer.start();
            const std::optional<QList<SearchHit>> hits = store.search(*query, 200, 200);
            ms << double(timer.nsecsElapsed()) / 1e6;
            if (!hits)
                qFatal("%s", qPrintable(store.errorString()));
            found = hits->size();
        }
        const qsizetype all = store.search(*query, -1, 0).value_or(QList<SearchHit>{}).size();
        const double m = median(ms);
        ok = ok && m <= kMaxQueryMs;
        std::printf("  %-40s %7.1f ms (min %.1f, max %.1f)  %lld of %lld matching runs shown %s\n",
                    qPrintable(text), m, *std::min_element(ms.cbegin(), ms.cend()),
                    *std::max_element(ms.cbegin(), ms.cend()), static_cast<long long>(found),
                    static_cast<long long>(all), m <= kMaxQueryMs ? "" : "(> 200 ms: FAIL)");
    }
    return ok ? 0 : 1;
}
