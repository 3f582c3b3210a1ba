// SPDX-License-Identifier: GPL-3.0-or-later
// seededStringHash() is qHash() with the process seed, whatever it does after the hash: the
// reducer's index and A2A's repeat filter keep these values, and compare them with qHash()'s
// wherever an item was hashed before.
#include "domain/stringhash.h"

#include <QHash>
#include <QTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

class TestStringHash final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // Every length up to a few AES blocks (Qt hashes short strings another way than long ones),
    // plain and not: the same values as qHash().
    void sameAsQHash()
    {
        QString text;
        for (int length = 0; length <= 70; ++length) {
            QCOMPARE(seededStringHash(text), qHash(text, QHashSeed::globalSeed()));
            const QString other = text + u"é€😀"_s;
            QCOMPARE(seededStringHash(other), qHash(other, QHashSeed::globalSeed()));
            text += QChar(char16_t(u'a' + length % 26));
        }
        QCOMPARE(seededStringHash(QString()), qHash(QString(), QHashSeed::globalSeed()));
    }
};

QTEST_GUILESS_MAIN(TestStringHash)
#include "tst_stringhash.moc"
