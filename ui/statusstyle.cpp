// SPDX-License-Identifier: GPL-3.0-or-later
#include "statusstyle.h"

#include "icons.h"
#include "models/runformat.h"

#include <QCoreApplication>
#include <QFontMetrics>
#include <QHash>
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

// What a badge's pixels depend on, with the cell it is drawn in.
struct BadgeKey
{
    QString text;
    QString icon;
    QRgb accent = 0;
    QRgb fill = 0;
    QRgb textColor = 0;
    QFont font;
    bool dashed = false;
    bool bold = false;
    QSize cell;
    qreal dpr = 1.0;
    bool operator==(const BadgeKey &) const = default;
};

size_t qHash(const BadgeKey &k, size_t seed = 0)
{
    return qHashMulti(seed, k.text, k.icon, k.accent, k.fill, k.textColor, k.font, k.dashed, k.bold,
                      k.cell.width(), k.cell.height(), k.dpr);
}
} // namespace

void paintBadge(QPainter *painter, const QRect &rect, const BadgeStyle &style, const QFont &font)
{
    const qreal dpr = painter->device() ? painter->device()->devicePixelRatioF() : 1.0;
    // Drawn once per look and cell size, then copied: a list shows the same few badges on every
    // row, and laying out each one's text and antialiased outline again was a good part of a
    // repaint of a thousand live runs (bench_team_store, BENCH_BREAKDOWN=1). Looked up by value,
    // not by a string made of them: the string (the font's key, the colours' names) and the
    // badge's measured text were a third of a list's repaint (bench_table_scroll, perf). The
    // pixmaps stay in QPixmapCache (its budget, evicted with everything else); this keeps their
    // handles, by look, for the looks a list shows at once.
    static QHash<BadgeKey, QPixmapCache::Key> handles;
    // Emptied with the application: its fonts must not outlive the font database.
    static const bool cleared = [] {
        qAddPostRoutine([] { handles.clear(); });
        return true;
    }();
    Q_UNUSED(cleared);
    const BadgeKey key{
        style.text, style.icon,   style.accent.rgba(), style.fill.rgba(), style.textColor.rgba(),
        font,       style.dashed, style.bold,          rect.size(),       dpr};
    QPixmap badge;
    if (const auto it = handles.constFind(key);
        it == handles.constEnd() || !QPixmapCache::find(*it, &badge)) {
        const QSize want = badgeSize(style, font);
        const int h = qMin(want.height(), rect.height());
        const int w = qMin(want.width(), rect.width());
        if (w <= 0 || h <= 0)
            return;
        badge = QPixmap(QSize(w, h) * dpr);
        badge.setDevicePixelRatio(dpr);
        badge.fill(Qt::transparent);
        QPainter p(&badge);
        drawBadge(&p, w, h, style, font, dpr);
        p.end();
        if (handles.size() >= 512) // many looks (countdowns, sizes): start again
            handles.clear();
        handles.insert(key, QPixmapCache::insert(badge));
    }
    // Centred on a whole pixel (the integer halving is meant), then on the pixel grid.
    const int h = qRound(badge.deviceIndependentSize().height());
    const int top = rect.top() + (rect.height() - h) / 2;
    painter->drawPixmap(rect.left(), top, badge);
}

} // namespace Runwatch
