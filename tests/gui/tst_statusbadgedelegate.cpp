// SPDX-License-Identifier: GPL-3.0-or-later
// The run list's delegate: plain cells are drawn from text laid out once per value (not shaped on
// every paint) and must look as Qt's own delegate draws them — the text's ink where QStyledItemDelegate
// puts it, elided the same, in the selection's text colour — and the status badges, drawn once
// per look and size, must never be taken from the cache for a badge that looks different.
#include "models/runformat.h"
#include "statusbadgedelegate.h"
#include "statusstyle.h"

#include <QApplication>
#include <QImage>
#include <QPainter>
#include <QStandardItemModel>
#include <QStyledItemDelegate>
#include <QtTest>

#include <functional>

using namespace Runwatch;
using namespace Qt::StringLiterals;

namespace {
constexpr QSize kCell(160, 28);

// The cell as `delegate` paints it, on the base colour.
QImage paintCell(const QStyledItemDelegate &delegate, const QModelIndex &index, QStyle::State state)
{
    QImage image(kCell, QImage::Format_ARGB32_Premultiplied);
    // What the view shows under a selected row (the style may leave it to the view).
    image.fill(
        QApplication::palette().color(state & QStyle::State_Selected ? QPalette::Highlight : QPalette::Base));
    QPainter p(&image);
    QStyleOptionViewItem option;
    option.rect = QRect(QPoint(0, 0), kCell);
    option.state = state | QStyle::State_Enabled | QStyle::State_Active;
    option.palette = QApplication::palette();
    option.font = QApplication::font();
    option.textElideMode = Qt::ElideRight;
    delegate.paint(&p, option, index);
    p.end();
    return image;
}

// Where pixels of `ink` (or close to it) are: the text's box.
QRect inkBox(const QImage &image, const QColor &ink)
{
    QRect box;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = image.pixelColor(x, y);
            const int d = std::abs(c.red() - ink.red()) + std::abs(c.green() - ink.green())
                          + std::abs(c.blue() - ink.blue());
            if (d < 200)
                box |= QRect(x, y, 1, 1);
        }
    }
    return box;
}

bool near(const QRect &a, const QRect &b, int slack)
{
    return std::abs(a.left() - b.left()) <= slack && std::abs(a.right() - b.right()) <= slack
           && std::abs(a.top() - b.top()) <= slack && std::abs(a.bottom() - b.bottom()) <= slack;
}
} // namespace

class TestStatusBadgeDelegate final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void plainCellsAsQtDrawsThem_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("alignment");
        QTest::addColumn<bool>("selected");
        QTest::newRow("left") << u"Demo OpenAI"_s << int(Qt::AlignLeft | Qt::AlignVCenter) << false;
        QTest::newRow("right") << u"15 s"_s << int(Qt::AlignRight | Qt::AlignVCenter) << false;
        QTest::newRow("elided") << u"Reasoning: audit the TLS stacks we ship, and the ones we do not"_s
                                << int(Qt::AlignLeft | Qt::AlignVCenter) << false;
        QTest::newRow("selected") << u"runwatch-sim-1"_s << int(Qt::AlignLeft | Qt::AlignVCenter) << true;
    }

    void plainCellsAsQtDrawsThem()
    {
        QFETCH(QString, text);
        QFETCH(int, alignment);
        QFETCH(bool, selected);
        QStandardItemModel model(1, StatusColumn + 2);
        const QModelIndex index = model.index(0, StatusColumn + 1);
        model.setData(index, text);
        model.setData(index, alignment, Qt::TextAlignmentRole);
        const QStyle::State state = selected ? QStyle::State_Selected : QStyle::State_None;
        const QColor ink = QApplication::palette().color(
            QPalette::Active, selected ? QPalette::HighlightedText : QPalette::Text);
        QStyledItemDelegate qt;
        StatusBadgeDelegate ours;
        const QRect expected = inkBox(paintCell(qt, index, state), ink);
        QVERIFY(!expected.isEmpty());
        // Twice: laid out, then from what was kept.
        for (int round = 0; round < 2; ++round) {
            const QRect got = inkBox(paintCell(ours, index, state), ink);
            QVERIFY2(near(got, expected, 1),
                     qPrintable(u"text at %1,%2 %3x%4, Qt puts it at %5,%6 %7x%8"_s.arg(got.x())
                                    .arg(got.y())
                                    .arg(got.width())
                                    .arg(got.height())
                                    .arg(expected.x())
                                    .arg(expected.y())
                                    .arg(expected.width())
                                    .arg(expected.height())));
        }
    }

    // A cell's panel (background, selection, hover, alternate rows, a background colour) is the
    // very pixels the style's item control draws, however it is drawn; the focused cell keeps
    // the control (its focus frame).
    void panelsAsTheStyleDrawsThem_data()
    {
        QTest::addColumn<int>("state");
        QTest::addColumn<bool>("alternate");
        QTest::addColumn<QColor>("background");
        QTest::addColumn<bool>("primitive");
        const int on = int(QStyle::State_Enabled | QStyle::State_Active);
        QTest::newRow("plain") << on << false << QColor() << true;
        QTest::newRow("alternate") << on << true << QColor() << true;
        QTest::newRow("selected") << int(on | QStyle::State_Selected) << false << QColor() << true;
        QTest::newRow("selected, window inactive")
            << int(QStyle::State_Enabled | QStyle::State_Selected) << false << QColor() << true;
        QTest::newRow("hovered") << int(on | QStyle::State_MouseOver) << false << QColor() << true;
        QTest::newRow("coloured") << on << false << QColor(200, 120, 40) << true;
        QTest::newRow("focused") << int(on | QStyle::State_HasFocus | QStyle::State_Selected) << false
                                 << QColor() << false;
    }

    void panelsAsTheStyleDrawsThem()
    {
        QFETCH(int, state);
        QFETCH(bool, alternate);
        QFETCH(QColor, background);
        QFETCH(bool, primitive);
        QStandardItemModel model(1, StatusColumn + 2);
        const QModelIndex index = model.index(0, StatusColumn + 1); // no text: the panel alone
        if (background.isValid())
            model.setData(index, background, Qt::BackgroundRole);
        QStyleOptionViewItem option;
        option.rect = QRect(QPoint(0, 0), kCell);
        option.state = QStyle::State(state);
        option.palette = QApplication::palette();
        option.font = QApplication::font();
        if (alternate)
            option.features |= QStyleOptionViewItem::Alternate;
        const auto render = [](const std::function<void(QPainter *)> &draw) {
            QImage image(kCell, QImage::Format_ARGB32_Premultiplied);
            image.fill(Qt::transparent);
            QPainter p(&image);
            draw(&p);
            return image;
        };
        StatusBadgeDelegate ours;
        const QImage expected = render([&](QPainter *p) {
            // What QStyledItemDelegate hands the style for this cell.
            struct QtDelegate : QStyledItemDelegate
            {
                using QStyledItemDelegate::initStyleOption;
            };
            QStyleOptionViewItem opt = option;
            QtDelegate().initStyleOption(&opt, index);
            QApplication::style()->drawControl(QStyle::CE_ItemViewItem, &opt, p, nullptr);
        });
        // Twice: found out, then from what was kept.
        for (int round = 0; round < 2; ++round)
            QCOMPARE(render([&](QPainter *p) { ours.paint(p, option, index); }), expected);
        QCOMPARE(ours.primitivePanels() > 0, primitive);
    }

    void badgesFromTheCacheOnlyWhenAlike()
    {
        const auto paint = [](const BadgeStyle &style) {
            QImage image(kCell, QImage::Format_ARGB32_Premultiplied);
            image.fill(Qt::white);
            QPainter p(&image);
            paintBadge(&p, QRect(QPoint(0, 0), kCell), style, QApplication::font());
            return image;
        };
        BadgeStyle style = badgeStyle(RunStatus::InProgress, false, false, false);
        style.text = u"In progress"_s;
        const QImage first = paint(style);
        QCOMPARE(paint(style), first);
        // Each thing that makes a badge look different gives another badge.
        BadgeStyle other = style;
        other.fill = Qt::yellow;
        QVERIFY(paint(other) != first);
        other = style;
        other.text = u"In progresS"_s;
        QVERIFY(paint(other) != first);
        other = style;
        other.accent = Qt::red;
        QVERIFY(paint(other) != first);
        other = style;
        other.textColor = Qt::red;
        QVERIFY(paint(other) != first);
        other = style;
        other.dashed = true;
        QVERIFY(paint(other) != first);
        other = style;
        other.bold = true;
        QVERIFY(paint(other) != first);
        other = style;
        other.icon = u"status-queued"_s;
        QVERIFY(paint(other) != first);
        // And the one first drawn is still what it was.
        QCOMPARE(paint(style), first);
    }
};

QTEST_MAIN(TestStatusBadgeDelegate)
#include "tst_statusbadgedelegate.moc"
