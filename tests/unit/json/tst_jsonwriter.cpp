// SPDX-License-Identifier: GPL-3.0-or-later
// JsonObjectWriter / appendJsonString: what they write parses with QJsonDocument to the same
// values, for hostile strings too (control characters, quotes, backslashes, non-BMP characters,
// lone surrogates), and is valid UTF-8.
#include "json/jsonwriter.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QStringDecoder>
#include <QtTest>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {

// What a string must read back as: lone surrogates replaced by U+FFFD, everything else as is.
QString expectedBack(QStringView s)
{
    QString out;
    for (qsizetype i = 0; i < s.size(); ++i) {
        const QChar c = s.at(i);
        if (c.isHighSurrogate() && i + 1 < s.size() && s.at(i + 1).isLowSurrogate()) {
            out += c;
            out += s.at(++i);
        } else if (c.isSurrogate()) {
            out += QChar(0xFFFD);
        } else {
            out += c;
        }
    }
    return out;
}

QByteArray line(QStringView text)
{
    QByteArray out;
    JsonObjectWriter w(out);
    w.addString("type"_L1, u"delta").addString("text"_L1, text).addInt("n"_L1, -42).addBool("final"_L1, true);
    w.close();
    return out;
}

} // namespace

class TestJsonWriter final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void hostileStrings_data()
    {
        QTest::addColumn<QString>("text");
        QString controls;
        for (char16_t c = 0; c < 0x20; ++c)
            controls += QChar(c);
        QTest::addRow("empty") << QString();
        QTest::addRow("plain") << u"tok0 tok1"_s;
        QTest::addRow("all controls") << controls;
        QTest::addRow("quotes and backslashes") << uR"(say "hi" \ \\ \" \n (not a newline) / end\)"_s;
        QTest::addRow("DEL and C1") << u"\u007f\u0080\u009f"_s;
        QTest::addRow("non-BMP") << u"emoji 😀 and 𝄞 clef"_s;
        QTest::addRow("BMP wide") << u"Grüße — 日本語 \u2028\u2029 \uFEFF"_s;
        QTest::addRow("lone high surrogate") << (u"a"_s + QChar(0xD83D) + u"b"_s);
        QTest::addRow("lone low surrogate") << (u"a"_s + QChar(0xDE00) + u"b"_s);
        QTest::addRow("high surrogate at the end") << (u"end"_s + QChar(0xD83D));
        QTest::addRow("swapped pair") << (QString(QChar(0xDE00)) + QChar(0xD83D));
        QTest::addRow("two highs then low") << (QString(QChar(0xD83D)) + QChar(0xD83D) + QChar(0xDE00));
        QTest::addRow("NUL inside") << QString::fromUtf16(u"a\0b", 3);
    }
    void hostileStrings()
    {
        QFETCH(QString, text);
        const QByteArray json = line(text);
        QVERIFY2(!json.contains('\n'), json.constData()); // one line, whatever the text
        QStringDecoder utf8(QStringDecoder::Utf8);
        const QString decoded = utf8(json);
        QVERIFY2(!utf8.hasError(), json.toHex().constData());
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString() + u' ' + decoded));
        const QJsonObject o = doc.object();
        QCOMPARE(o.value(u"type"_s).toString(), u"delta"_s);
        QCOMPARE(o.value(u"text"_s).toString(), expectedBack(text));
        QCOMPARE(o.value(u"n"_s).toInteger(), -42);
        QCOMPARE(o.value(u"final"_s).toBool(), true);
        QCOMPARE(o.size(), 4);
    }

    // Random UTF-16 (surrogates and controls included), many seeds: always parses back.
    void randomStrings()
    {
        QRandomGenerator random(13);
        for (int round = 0; round < 2000; ++round) {
            QString text;
            const int length = int(random.bounded(0, 40));
            for (int i = 0; i < length; ++i) {
                const quint32 pick = random.bounded(0, 4);
                const char16_t c = pick == 0   ? char16_t(random.bounded(0, 0x20))
                                   : pick == 1 ? char16_t(random.bounded(0xD800, 0xE000))
                                   : pick == 2 ? char16_t(random.bounded(0x20, 0x80))
                                               : char16_t(random.bounded(0, 0x10000));
                text += QChar(c);
            }
            const QByteArray json = line(text);
            QJsonParseError error;
            const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
            QVERIFY2(error.error == QJsonParseError::NoError, json.toHex().constData());
            QCOMPARE(doc.object().value(u"text"_s).toString(), expectedBack(text));
        }
    }

    void rawMembersAndOrder()
    {
        QByteArray out = "prefix ";
        JsonObjectWriter w(out);
        w.addRaw("request"_L1, R"({"a":[1,2]})")
            .addInt("big"_L1, std::numeric_limits<qint64>::min())
            .addBool("no"_L1, false);
        w.close();
        QCOMPARE(out, QByteArray(R"(prefix {"request":{"a":[1,2]},"big":-9223372036854775808,"no":false})"));
    }
};

QTEST_GUILESS_MAIN(TestJsonWriter)
#include "tst_jsonwriter.moc"
