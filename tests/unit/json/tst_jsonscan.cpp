// SPDX-License-Identifier: GPL-3.0-or-later
#include "json/jsonscan.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace Runwatch;

// Inputs with raw string literals live in a moc-free file: moc cannot tokenize them.
QList<QByteArray> jsonScanRows();
QByteArray jsonEscapesRow();
QByteArray jsonUnicodeRow();
QByteArray jsonLoneSurrogateRow();
using namespace Qt::StringLiterals;

class TestJsonScan final : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // The scanner accepts exactly what a strict JSON parser accepts as one object.
    void agreesWithQJson_data()
    {
        QTest::addColumn<QByteArray>("json");
        for (const QByteArray &row : jsonScanRows())
            QTest::addRow("%s", row.constData()) << row;
        QTest::addRow("raw control char") << QByteArray("{\"a\":\"x\x01y\"}");
        QTest::addRow("deep nesting")
            << (QByteArray("{\"a\":") + QByteArray(300, '[') + QByteArray(300, ']') + '}');
    }
    void agreesWithQJson()
    {
        QFETCH(QByteArray, json);
        QJsonParseError err;
        const QJsonDocument doc = QJsonDocument::fromJson(json, &err);
        const bool qtOk = err.error == QJsonParseError::NoError && doc.isObject();
        int members = 0;
        const bool ok = JsonScan::forEachMember(json, [&](const JsonScan::Member &) { ++members; });
        // Qt's parser is more lenient than RFC 8259 here; we follow the RFC.
        const bool rfcInvalidButQtAccepts
            = json == "{\"a\":1.}" || json == "{\"a\":\"x\\q\"}" || json.contains('\x01');
        if (rfcInvalidButQtAccepts) {
            QVERIFY(!ok);
            return;
        }
        if (json.startsWith("{\"a\":[[[[")) {
            QVERIFY(!ok); // we cap nesting at 256 even where Qt would accept more
            return;
        }
        QCOMPARE(ok, qtOk);
        if (ok)
            QCOMPARE(members, doc.object().size());
    }

    // Decoded strings equal QJsonDocument's decoding, including escapes and surrogate pairs.
    void decodeStrings_data()
    {
        QTest::addColumn<QByteArray>("raw");
        QTest::addRow("ascii") << QByteArray("\"hello world\"");
        QTest::addRow("utf8") << QByteArray("\"gr\xc3\xbc\xc3\x9f dich \xe2\x82\xac\"");
        QTest::addRow("escapes") << jsonEscapesRow();
        QTest::addRow("unicode") << jsonUnicodeRow();
        QTest::addRow("empty") << QByteArray("\"\"");
    }
    void decodeStrings()
    {
        QFETCH(QByteArray, raw);
        const auto mine = JsonScan::decodeString(raw);
        QVERIFY(mine);
        const QJsonDocument doc = QJsonDocument::fromJson("{\"k\":" + raw + '}');
        QCOMPARE(*mine, doc.object().value(u"k"_s).toString());
    }

    void rejectsInvalidUtf8()
    {
        QVERIFY(!JsonScan::decodeString(QByteArray("\"\xff\xfe\"")));
        QVERIFY(!JsonScan::decodeString(QByteArray("\"\xc3\"")));
        QVERIFY(!JsonScan::decodeString(QByteArray("\"abc")));
        QVERIFY(!JsonScan::decodeString(QByteArray("abc")));
    }

    void lonelySurrogateBecomesReplacement()
    {
        QCOMPARE(*JsonScan::decodeString(jsonLoneSurrogateRow()), QString(QChar(0xFFFD)) + u'x');
    }

    void integers_data()
    {
        QTest::addColumn<QByteArray>("raw");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<qint64>("value");
        QTest::addRow("zero") << QByteArray("0") << true << qint64(0);
        QTest::addRow("big") << QByteArray("9223372036854775807") << true
                             << std::numeric_limits<qint64>::max();
        QTest::addRow("min") << QByteArray("-9223372036854775808") << true
                             << std::numeric_limits<qint64>::min();
        QTest::addRow("overflow") << QByteArray("9223372036854775808") << false << qint64(0);
        QTest::addRow("long") << QByteArray("123456789012345678901234") << false << qint64(0);
        QTest::addRow("float") << QByteArray("1.5") << false << qint64(0);
        QTest::addRow("empty") << QByteArray() << false << qint64(0);
        QTest::addRow("minus") << QByteArray("-") << false << qint64(0);
    }
    void integers()
    {
        QFETCH(QByteArray, raw);
        QFETCH(bool, ok);
        QFETCH(qint64, value);
        const auto n = JsonScan::decodeInteger(raw);
        QCOMPARE(bool(n), ok);
        if (ok)
            QCOMPARE(*n, value);
    }
};

QTEST_GUILESS_MAIN(TestJsonScan)
#include "tst_jsonscan.moc"
