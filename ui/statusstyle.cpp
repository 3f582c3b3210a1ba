// SPDX-License-Identifier: GPL-3.0-or-later
#include "statusstyle.h"

#include "icons.h"
#include "models/runformat.h"

#include <QFontMetrics>
#include <QPainter>
#include <QPainterPath>
#include <QPixmapCache>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

constexpr int kPadX = 8;
constexpr int kGap = 5;
constexpr int kIcon = 12;

struct Pair
{
    const char *light;
    const char *dark;
};

QColor pick(Pair p, bool dark)
{
    return QColor::fromString(QLatin1StringView(dark ? p.dark : p.light));
}

constexpr Pair kBlue{"#0b5cc4", "#6cb0ff"};
constexpr Pair kGreen{"#17733a", "#4fcf6c"};
constexpr Pair kRed{"#c0202b", "#ff7b72"};
constexpr Pair kOrange{"#a04a00", "#f0a040"};
constexpr Pair kPurple{"#7a3fd0", "#c8a2ff"};
constexpr Pair kGrey{"#565f6a", "#a4adb8"};

} // namespace

bool isDarkPalette(const QPalette &palette)
{
    return palette.color(QPalette::Window).lightnessF() < 0.45;
}

BadgeStyle badgeStyle(RunStatus status, bool connectionLost, bool needsPerson, bool dark)
{
    BadgeStyle s;
    s.text = statusLabel(status);
    Pair colour = kGrey;
    switch (status) {
    case RunStatus::Queued:
        s.icon = u"status-queued"_s;
        break;
    case RunStatus::InProgress:
        s.icon = u"status-running"_s;
        colour = kBlue;
        break;
    case RunStatus::Cancelling:
        s.icon = u"status-cancelling"_s;
        colour = kOrange;
        s.dashed = true;
        break;
    case RunStatus::InputRequired:
        if (!needsPerson) { // a timer or a callback: busy, not the operator's turn
            s.icon = u"status-queued"_s;
            colour = kBlue;
            break;
        }
        s.icon = u"status-input"_s;
        s.bold = true;
        break;
    case RunStatus::Completed:
        s.icon = u"status-completed"_s;
        colour = kGreen;
        break;
    case RunStatus::Failed:
        s.icon = u"status-failed"_s;
        colour = kRed;
        break;
    case RunStatus::Incomplete:
    case RunStatus::Expired:
    case RunStatus::Rejected:
    case RunStatus::TimedOut:
        s.icon = u"status-warning"_s;
        colour = kRed;
        break;
    case RunStatus::Cancelled:
    case RunStatus::Deleted:
        s.icon = u"status-cancelled"_s;
        break;
    case RunStatus::StoppedWatching:
        // Not the service's word: outlined like the other states Runwatch decided by itself.
        s.icon = u"status-cancelled"_s;
        s.dashed = true;
        break;
    case RunStatus::Unknown:
        s.icon = u"status-unknown"_s;
        break;
    }
    if (connectionLost && !isTerminal(status)) {
        s.icon = u"status-reconnecting"_s;
        colour = kPurple;
        s.dashed = true;
    }
    if (status == RunStatus::InputRequired && needsPerson && !(connectionLost && !isTerminal(status))) {
        // Solid amber with dark text reads well on light and dark windows alike.
        s.fill = QColor::fromString("#f4a51c"_L1);
        s.accent = QColor::fromString("#4a2e00"_L1);
        s.textColor = s.accent;
        return s;
    }
    s.accent = pick(colour, dark);
    s.textColor = s.accent;
    s.fill = s.accent;
    s.fill.setAlphaF(dark ? 0.20f : 0.11f);
    return s;
}

namespace {
void recolour(BadgeStyle &s, Pair colour, bool dark)
{
    s.icon = u"status-warning"_s;
    s.accent = pick(colour, dark);
    s.textColor = s.accent;
    s.fill = s.accent;
    s.fill.setAlphaF(dark ? 0.20f : 0.11f);
}
} // namespace

void markStuck(BadgeStyle &style, bool dark)
{
    recolour(style, kOrange, dark);
    style.bold = true;
    style.dashed = true;
}

void markOverDeadline(BadgeStyle &style, bool dark)
{
    recolour(style, kRed, dark);
    style.dashed = true;
}

QColor blendOver(const QColor &top, const QColor &below)
{
    const float a = top.alphaF();
    return QColor::fromRgbF(top.redF() * a + below.redF() * (1 - a),
                            top.greenF() * a + below.greenF() * (1 - a),
                            top.blueF() * a + below.blueF() * (1 - a));
}

QSize badgeSize(const BadgeStyle &style, const QFont &font)
{
    QFont f = font;
    f.setBold(style.bold);
    const QFontMetrics fm(f);
    return {kPadX + kIcon + kGap + fm.horizontalAdvance(style.text) + kPadX, fm.height() + 6};
}

namespace {
// The pill drawn into `painter` at (0, 0), `w` × `h`.
void drawBadge(QPainter *painter, int w, int h, const BadgeStyle &style, const QFont &font, qreal dpr)
{
    QFont f = font;
    f.setBold(style.bold);
    const QFontMetrics fm(f);
    const QRectF pill(0.5, 0.5, w - 1, h - 1);
    painter->setRenderHint(QPainter::Antialiasing);
    QPainterPath path;
    path.addRoundedRect(pill, pill.height() / 2, pill.height() / 2);
    painter->fillPath(path, style.fill);
    QColor outline = style.accent;
    outline.setAlphaF(style.dashed ? 0.9f : 0.45f);
    QPen pen(outline, 1.0, style.dashed ? Qt::DashLine : Qt::SolidLine);
    if (style.dashed)
        pen.setDashPattern({3.0, 2.0});
    painter->setPen(pen);
    painter->drawPath(path);

    const int iconTop = int(pill.top() + (pill.height() - kIcon) / 2);
    painter->drawPixmap(int(pill.left()) + kPadX, iconTop,
                        Icons::pixmap(style.icon, kIcon, style.accent, dpr));

    painter->setFont(f);
    painter->setPen(style.textColor);
    const int textLeft = int(pill.left()) + kPadX + kIcon + kGap;
    const QRect textRect(textLeft, int(pill.top()), int(pill.right()) - textLeft - kPadX + 2,
                         int(pill.height()));
    painter->drawText(textRect, Qt::AlignVCenter | Qt::AlignLeft,
                      fm.elidedText(style.text, Qt::ElideRight, textRect.width()));
}
} // namespace

void paintBadge(QPainter *painter, const QRect &rect, const BadgeStyle &style, const QFont &font)
{
    const QSize want = badgeSize(style, font);
    const int h = qMin(want.height(), rect.height());
    const int w = qMin(want.width(), rect.width());
    if (w <= 0 || h <= 0)
        return;
    // Centred on a whole pixel (the integer halving is meant), then on the pixel grid.
    const int top = rect.top() + (rect.height() - h) / 2;
    const qreal dpr = painter->device() ? painter->device()->devicePixelRatioF() : 1.0;
    // Drawn once per look and size, then copied: a list shows the same few badges on every row,
    // and laying out each one's text and antialiased outline again was a good part of a repaint
    // of a thousand live runs (bench_team_store, BENCH_BREAKDOWN=1).
    const QString key = u"runwatch-badge\x1f%1\x1f%2\x1f%3\x1f%4\x1f%5\x1f%6\x1f%7\x1f%8\x1f%9"_s.arg(
        style.text, style.icon, style.accent.name(QColor::HexArgb), style.fill.name(QColor::HexArgb),
        style.textColor.name(QColor::HexArgb), font.key(),
        QString::number(int(style.dashed) | int(style.bold) << 1),
        QString::number(w) + u'x' + QString::number(h), QString::number(dpr));
    QPixmap badge;
    if (!QPixmapCache::find(key, &badge)) {
        badge = QPixmap(QSize(w, h) * dpr);
        badge.setDevicePixelRatio(dpr);
        badge.fill(Qt::transparent);
        QPainter p(&badge);
        drawBadge(&p, w, h, style, font, dpr);
        p.end();
        QPixmapCache::insert(key, badge);
    }
    painter->drawPixmap(rect.left(), top, badge);
}

} // namespace Runwatch
