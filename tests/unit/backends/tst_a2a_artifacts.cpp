// SPDX-License-Identifier: GPL-3.0-or-later
// How the A2aMapper assembles a task's artifacts into the primary text (§6: append, replace,
// lastChunk; artifacts in order of first appearance, a blank line between them). Chunks that
// extend the text at its end are mapped without composing the whole text again (issue 25); these
// tests hold that path to the same events as composing everything after every chunk, which is
// what the mapper did before and what `Composer` below still does.
#include "backends/a2a/a2amapper.h"
#include "domain/runreducer.h"

#include <QJsonArray>
#include <QRandomGenerator>
#include <QtTest>

using namespace Runwatch;
using namespace Runwatch::A2a;
using namespace Qt::StringLiterals;

namespace {

QJsonObject artifactUpdate(const QString &id, const QString &text, bool append, bool last = false)
{
    QJsonObject artifact{{u"artifactId"_s, id}, {u"parts"_s, QJsonArray{QJsonObject{{u"text"_s, text}}}}};
    QJsonObject event{{u"taskId"_s, u"t"_s}, {u"artifact"_s, artifact}};
    if (append)
        event.insert(u"append"_s, true);
    if (last)
        event.insert(u"lastChunk"_s, true);
    return QJsonObject{{u"artifactUpdate"_s, event}};
}

QJsonObject task(const QList<std::pair<QString, QString>> &artifacts)
{
    QJsonArray list;
    for (const auto &[id, text] : artifacts)
        list << QJsonObject{{u"artifactId"_s, id}, {u"parts"_s, QJsonArray{QJsonObject{{u"text"_s, text}}}}};
    return QJsonObject{{u"task"_s, QJsonObject{{u"id"_s, u"t"_s},
                                               {u"status"_s, QJsonObject{{u"state"_s, u"working"_s}}},
                                               {u"artifacts"_s, list}}}};
}

// Only the primary text's events: the identity and status events are not what this is about.
QList<RunEvent> primaryOf(const QList<RunEvent> &events)
{
    QList<RunEvent> out;
    for (const RunEvent &e : events) {
        if (e.type == RunEvent::Type::PrimaryDelta || e.type == RunEvent::Type::PrimarySnapshot)
            out << e;
    }
    return out;
}

QList<RunEvent> apply(A2aMapper &mapper, const QJsonObject &item)
{
    QList<RunEvent> events;
    mapper.apply(classify(item), events);
    return primaryOf(events);
}

// The assembly as the mapper did it before issue 25: every chunk composes the whole text and
// compares it with what went out.
class Composer
{
public:
    QList<RunEvent> update(const QString &id, const QString &text, bool append)
    {
        auto it = std::find_if(m_artifacts.begin(), m_artifacts.end(),
                               [&](const auto &a) { return a.first == id; });
        bool extendsOnly = true;
        if (it == m_artifacts.end()) {
            m_artifacts.append({id, text});
        } else if (append) {
            it->second += text;
        } else {
            extendsOnly = it->second.isEmpty();
            it->second = text;
        }
        return compose(!extendsOnly);
    }
    QList<RunEvent> snapshot(const QList<std::pair<QString, QString>> &artifacts)
    {
        m_artifacts.clear();
        for (const auto &artifact : artifacts) {
            auto it = std::find_if(m_artifacts.begin(), m_artifacts.end(),
                                   [&](const auto &a) { return a.first == artifact.first; });
            if (it != m_artifacts.end()) {
                it->second += artifact.second;
            } else {
                m_artifacts.append(artifact);
            }
        }
        return compose(true);
    }
    const QString &emitted() const { return m_emitted; }

private:
    QList<RunEvent> compose(bool snapshot)
    {
        QString text;
        bool first = true;
        for (const auto &a : std::as_const(m_artifacts)) {
            if (a.second.isEmpty())
                continue;
            if (!first)
                text += u"\n\n"_s;
            text += a.second;
            first = false;
        }
        QList<RunEvent> out;
        if (snapshot) {
            if (text != m_emitted && m_emitted.startsWith(text))
                m_shrank = true;
            if (!text.isEmpty())
                out << RunEvent::primarySnapshot(text);
        } else if (text != m_emitted) {
            if (m_emitted.startsWith(text))
                m_shrank = true;
            out << (text.startsWith(m_emitted) && !m_shrank
                        ? RunEvent::primaryDelta(text.mid(m_emitted.size()))
                        : RunEvent::primarySnapshot(text));
        }
        m_emitted = text;
        return out;
    }

    QList<std::pair<QString, QString>> m_artifacts;
    QString m_emitted;
    bool m_shrank = false;
};

void compareEvents(const QList<RunEvent> &actual, const QList<RunEvent> &expected, const QString &where)
{
    QVERIFY2(actual.size() == expected.size(), qPrintable(where));
    for (qsizetype i = 0; i < actual.size(); ++i) {
        QVERIFY2(actual.at(i).type == expected.at(i).type, qPrintable(where));
        QVERIFY2(actual.at(i).text == expected.at(i).text, qPrintable(where));
    }
}

} // namespace

class TestA2aArtifacts final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // The usual stream: every chunk goes out as a delta of exactly that chunk.
    void appendedChunksAreTheirOwnDeltas()
    {
        A2aMapper mapper;
        Run run;
        QString expected;
        for (int i = 0; i < 5000; ++i) {
            const QString chunk = u"tok%1 "_s.arg(i);
            const QList<RunEvent> events = apply(mapper, artifactUpdate(u"r"_s, chunk, i > 0));
            QCOMPARE(events.size(), 1);
            QCOMPARE(events.first().type, RunEvent::Type::PrimaryDelta);
            QCOMPARE(events.first().text, chunk);
            applyEvent(run, events.first());
            expected += chunk;
        }
        QCOMPARE(mapper.primaryText(), expected);
        QCOMPARE(run.primaryText, expected);
        QCOMPARE(run.reconciliations, 0);
        // Empty chunks change nothing and say nothing.
        QVERIFY(apply(mapper, artifactUpdate(u"r"_s, {}, true)).isEmpty());
        QVERIFY(apply(mapper, artifactUpdate(u"empty"_s, {}, false)).isEmpty());
        QCOMPARE(mapper.primaryText(), expected);
    }

    // A second artifact starts after a blank line; an earlier one growing changes the middle
    // (a snapshot); the last one growing is a delta again.
    void artifactsInOrderOfFirstAppearance()
    {
        A2aMapper mapper;
        Run run;
        const auto step = [&](const QJsonObject &item, RunEvent::Type type, const QString &text) {
            const QList<RunEvent> events = apply(mapper, item);
            QCOMPARE(events.size(), 1);
            QCOMPARE(events.first().type, type);
            QCOMPARE(events.first().text, text);
            applyEvent(run, events.first());
            QCOMPARE(run.primaryText, mapper.primaryText());
        };
        step(artifactUpdate(u"a"_s, u"A"_s, false), RunEvent::Type::PrimaryDelta, u"A"_s);
        step(artifactUpdate(u"b"_s, u"B"_s, true), RunEvent::Type::PrimaryDelta, u"\n\nB"_s);
        step(artifactUpdate(u"b"_s, u"b"_s, true), RunEvent::Type::PrimaryDelta, u"b"_s);
        step(artifactUpdate(u"a"_s, u"a"_s, true), RunEvent::Type::PrimarySnapshot, u"Aa\n\nBb"_s);
        step(artifactUpdate(u"b"_s, u"!"_s, true, true), RunEvent::Type::PrimaryDelta, u"!"_s);
        // After the last chunk of one artifact the next one starts after a blank line.
        step(artifactUpdate(u"c"_s, u"C"_s, true, true), RunEvent::Type::PrimaryDelta, u"\n\nC"_s);
        QCOMPARE(mapper.primaryText(), u"Aa\n\nBb!\n\nC"_s);
        QCOMPARE(mapper.artifactCount(), 3);
    }

    // A chunk without append replaces its artifact: a snapshot when it had text, a delta when it
    // was empty (nothing to replace). A shorter replacement makes only snapshots go out.
    void replaceAndShrink()
    {
        A2aMapper mapper;
        QCOMPARE(apply(mapper, artifactUpdate(u"a"_s, {}, false)).size(), 0);
        QList<RunEvent> events = apply(mapper, artifactUpdate(u"a"_s, u"first"_s, false));
        QCOMPARE(events.size(), 1);
        QCOMPARE(events.first().type, RunEvent::Type::PrimaryDelta);
        events = apply(mapper, artifactUpdate(u"a"_s, u"first, longer"_s, false));
        QCOMPARE(events.size(), 1);
        QCOMPARE(events.first().type, RunEvent::Type::PrimarySnapshot);
        QCOMPARE(events.first().text, u"first, longer"_s);
        QVERIFY(!mapper.shrank());
        events = apply(mapper, artifactUpdate(u"a"_s, u"first"_s, false));
        QCOMPARE(events.first().type, RunEvent::Type::PrimarySnapshot);
        QVERIFY(mapper.shrank());
        // From here the run holds text the agent no longer has: a delta would land after it.
        events = apply(mapper, artifactUpdate(u"a"_s, u"!"_s, true));
        QCOMPARE(events.size(), 1);
        QCOMPARE(events.first().type, RunEvent::Type::PrimarySnapshot);
        QCOMPARE(events.first().text, u"first!"_s);
        events = apply(mapper, artifactUpdate(u"b"_s, u"B"_s, true));
        QCOMPARE(events.first().type, RunEvent::Type::PrimarySnapshot);
        QCOMPARE(events.first().text, u"first!\n\nB"_s);
    }

    // A Task snapshot replaces what was assembled (entries of one id add up, empty artifacts
    // take no place); chunks after it extend the snapshot's text.
    void chunksAfterATaskSnapshot()
    {
        A2aMapper mapper;
        apply(mapper, artifactUpdate(u"old"_s, u"gone"_s, false));
        QList<RunEvent> events
            = apply(mapper, task({{u"a"_s, u"A1"_s}, {u"e"_s, {}}, {u"a"_s, u"A2"_s}, {u"c"_s, u"C"_s}}));
        QCOMPARE(events.size(), 1);
        QCOMPARE(events.first().type, RunEvent::Type::PrimarySnapshot);
        QCOMPARE(events.first().text, u"A1A2\n\nC"_s);
        events = apply(mapper, artifactUpdate(u"c"_s, u"c"_s, true));
        QCOMPARE(events.first().type, RunEvent::Type::PrimaryDelta);
        QCOMPARE(events.first().text, u"c"_s);
        // The empty artifact between them fills in the middle.
        events = apply(mapper, artifactUpdate(u"e"_s, u"E"_s, true));
        QCOMPARE(events.first().type, RunEvent::Type::PrimarySnapshot);
        QCOMPARE(events.first().text, u"A1A2\n\nE\n\nCc"_s);
        events = apply(mapper, artifactUpdate(u"old"_s, u"new"_s, true));
        QCOMPARE(events.first().type, RunEvent::Type::PrimaryDelta);
        QCOMPARE(events.first().text, u"\n\nnew"_s);
        QCOMPARE(mapper.artifactCount(), 4);
    }

    // Many artifacts: each chunk finds its own.
    void manyArtifacts()
    {
        A2aMapper mapper;
        Run run;
        for (int i = 0; i < 3000; ++i) {
            for (const RunEvent &e : apply(mapper, artifactUpdate(u"art-%1"_s.arg(i), u"%1"_s.arg(i), false)))
                applyEvent(run, e);
        }
        QCOMPARE(mapper.artifactCount(), 3000);
        QStringList parts;
        for (int i = 0; i < 3000; ++i)
            parts << u"%1"_s.arg(i);
        QCOMPARE(run.primaryText, parts.join(u"\n\n"_s));
        for (const int i : {0, 1500, 2999}) {
            for (const RunEvent &e : apply(mapper, artifactUpdate(u"art-%1"_s.arg(i), u"+"_s, true)))
                applyEvent(run, e);
            parts[i] += u"+"_s;
        }
        QCOMPARE(mapper.artifactCount(), 3000);
        QCOMPARE(mapper.primaryText(), parts.join(u"\n\n"_s));
        QCOMPARE(run.primaryText, mapper.primaryText());
    }

    // Random sequences of chunks and snapshots give exactly the events of composing the whole
    // text after every one.
    void sameEventsAsComposingEverything()
    {
        const QStringList ids{u"a"_s, u"b"_s, u"c"_s, u"d"_s};
        const QStringList texts{u""_s, u"x"_s, u"yz"_s, u"a longer chunk"_s, u"\n"_s};
        for (quint32 seed = 1; seed <= 40; ++seed) {
            QRandomGenerator random(seed);
            A2aMapper mapper;
            Composer reference;
            Run run;
            for (int op = 0; op < 300; ++op) {
                const QString where = u"seed %1, op %2"_s.arg(seed).arg(op);
                QList<RunEvent> actual;
                QList<RunEvent> expected;
                if (random.bounded(25) == 0) {
                    QList<std::pair<QString, QString>> artifacts;
                    for (int n = int(random.bounded(4)); n > 0; --n) {
                        artifacts.append(
                            {ids.at(random.bounded(ids.size())), texts.at(random.bounded(texts.size()))});
                    }
                    actual = apply(mapper, task(artifacts));
                    expected = reference.snapshot(artifacts);
                } else {
                    const QString id = ids.at(random.bounded(ids.size()));
                    const QString text = texts.at(random.bounded(texts.size()));
                    const bool append = random.bounded(5) != 0;
                    actual = apply(mapper, artifactUpdate(id, text, append, random.bounded(3) == 0));
                    expected = reference.update(id, text, append);
                }
                compareEvents(actual, expected, where);
                if (QTest::currentTestFailed())
                    return;
                QCOMPARE(mapper.primaryText(), reference.emitted());
                for (const RunEvent &e : std::as_const(actual))
                    applyEvent(run, e);
                if (!mapper.shrank())
                    QCOMPARE(run.primaryText, mapper.primaryText());
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestA2aArtifacts)
#include "tst_a2a_artifacts.moc"
