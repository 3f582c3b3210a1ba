// SPDX-License-Identifier: GPL-3.0-or-later
// RunText: copies are cheap and stay as they were while the original grows; appending with copies
// alive does not copy the text again (the cost QString paid once per save of every live run).
#include "domain/runtext.h"

#include <QList>
#include <QSet>
#include <QTest>

#include <condition_variable>
#include <mutex>
#include <thread>

using namespace Runwatch;
using namespace Qt::StringLiterals;

class TestRunText final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void copiesKeepWhatTheySaw()
    {
        RunText text(u"hello"_s);
        const RunText copy = text;
        text += u" world";
        QCOMPARE(text, u"hello world"_s);
        QCOMPARE(copy, u"hello"_s);
        QVERIFY(text.extends(copy));
        QVERIFY(!copy.extends(text));
        QCOMPARE(text.mid(6), u"world"_s);
        QCOMPARE(text.left(4), u"hell"_s);
    }

    // The point of the type: a copy taken after every append (a save's baseline, a batch for the
    // writer) leaves the next append in place. Buffers change only when the text outgrows them,
    // so 10,000 appends touch a handful of buffers; QString detached (copied the whole text) on
    // every one of them.
    void appendsWithCopiesAliveStayInPlace()
    {
        RunText text;
        QList<RunText> copies;
        QSet<const QChar *> buffers;
        for (int i = 0; i < 10000; ++i) {
            text += u"word ";
            copies << text;
            buffers.insert(text.view().data());
        }
        QVERIFY2(buffers.size() <= 16, qPrintable(QString::number(buffers.size())));
        QCOMPARE(text.size(), 50000);
        for (int i = 0; i < copies.size(); i += 997) {
            QCOMPARE(copies.at(i).size(), 5 * (i + 1));
            QVERIFY(copies.at(i).view().endsWith(u"word "));
            QVERIFY(text.extends(copies.at(i)));
        }
    }

    // Two copies at the same end both append: the first claims the room, the second moves to a
    // buffer of its own, and neither sees the other's characters.
    void twoCopiesAppendingApart()
    {
        RunText a(u"ab"_s);
        RunText b = a;
        a += u"X";
        b += u"Y";
        QCOMPARE(a, u"abX"_s);
        QCOMPARE(b, u"abY"_s);
        QVERIFY(!a.extends(b));
        QVERIFY(a.extends(RunText(u"ab"_s)));
    }

    void truncateLeavesOtherCopies()
    {
        RunText a(u"hello world"_s);
        const RunText b = a;
        a.truncate(5);
        a += u"!";
        QCOMPARE(a, u"hello!"_s);
        QCOMPARE(b, u"hello world"_s);
        // Alone with its buffer, a text cut back appends in place again.
        RunText alone(u"abcdef"_s);
        const QChar *before = alone.view().data();
        alone.truncate(2);
        alone += u"Z";
        QCOMPARE(alone, u"abZ"_s);
        QCOMPARE(alone.view().data(), before);
        alone.truncate(0);
        QVERIFY(alone.isEmpty());
    }

    void assignmentLeavesOtherCopies()
    {
        RunText a(u"abc"_s);
        const RunText b = a;
        a = u"xyz"_s;
        QCOMPARE(a, u"xyz"_s);
        QCOMPARE(b, u"abc"_s);
        a = QString();
        QVERIFY(a.isEmpty());
        QCOMPARE(a, QString());
        QCOMPARE(a.toString(), QString());
    }

    void comparesByContentAcrossBuffers()
    {
        const RunText a(u"same text"_s);
        const RunText b(u"same text"_s);
        QVERIFY(a == b);
        QVERIFY(a.extends(b));
        QVERIFY(a != RunText(u"same"_s));
        QVERIFY(a.extends(RunText(u"same"_s)));
        QVERIFY(!a.extends(RunText(u"other"_s)));
        QVERIFY(a.startsWith(u"same"));
        QVERIFY(a.endsWith(u't'));
        QVERIFY(a.contains(u"E T", Qt::CaseInsensitive));
    }

    // The owner appends on one thread while copies it handed over are read on another, as the
    // store's writer reads a batch while the GUI thread goes on streaming (ASan and TSan look; the
    // hand-over is std's, which TSan sees — Debian's Qt is not instrumented).
    void copiesReadOnAnotherThreadWhileTheOwnerAppends()
    {
        std::mutex mutex;
        std::condition_variable handed;
        QList<RunText> queue;
        bool done = false;
        qsizetype checked = 0;
        QString failure;
        std::thread reader([&] {
            for (;;) {
                RunText copy;
                {
                    std::unique_lock lock(mutex);
                    handed.wait(lock, [&] { return !queue.isEmpty() || done; });
                    if (queue.isEmpty())
                        return;
                    copy = queue.takeFirst();
                }
                // Every copy is "0123456789" repeated up to its length.
                const QStringView view = copy.view();
                for (qsizetype i = 0; i < view.size(); ++i) {
                    if (view.at(i) != QChar(char16_t(u'0' + i % 10))) {
                        failure = u"character %1 of a copy of %2"_s.arg(i).arg(view.size());
                        return;
                    }
                }
                ++checked;
            }
        });
        RunText text;
        for (int i = 0; i < 20000; ++i) {
            text += QString(QChar(char16_t(u'0' + text.size() % 10)));
            if (i % 20 == 0) {
                const std::lock_guard lock(mutex);
                queue << text;
                handed.notify_one();
            }
        }
        {
            const std::lock_guard lock(mutex);
            done = true;
            handed.notify_one();
        }
        reader.join();
        QVERIFY2(failure.isEmpty(), qPrintable(failure));
        QCOMPARE(checked, 1000);
    }
};

QTEST_GUILESS_MAIN(TestRunText)
#include "tst_runtext.moc"
