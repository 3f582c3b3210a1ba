// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/run.h"

#include <QColor>
#include <QFont>
#include <QPalette>
#include <QRect>
#include <QString>

class QPainter;

namespace Runwatch {

// How a status badge looks: colour *and* icon *and* text, never colour alone. Input required
// is a solid amber pill (the one state that waits for the operator), cancelling and a lost
// connection get a dashed outline, everything else a tinted pill.
struct BadgeStyle
{
    QString text;
    QString icon;  // resources/icons/<icon>.svg
    QColor accent; // icon, text and outline
    QColor fill;   // background
    QColor textColor;
    bool dashed = false;
    bool bold = false;
};

// `needsPerson`: an input-required run waits for the operator, not for a timer or a callback
// (waitsForPerson()). `dark`: the palette's window colour is dark (see isDarkPalette()). The
// text is the status's label; callers show the run's badgeText() instead, which says more.
BadgeStyle badgeStyle(RunStatus status, bool connectionLost, bool needsPerson, bool dark);
bool isDarkPalette(const QPalette &palette);
// A live run flagged stuck (orange, warning icon, bold, dashed: it may need the operator's
// Cancel) or over its deadline (red outline, warning icon); the text stays the caller's.
void markStuck(BadgeStyle &style, bool dark);
void markOverDeadline(BadgeStyle &style, bool dark);
// `top` (with alpha) composited over the opaque `below`.
QColor blendOver(const QColor &top, const QColor &below);

// Width and height the badge needs with `font`.
QSize badgeSize(const BadgeStyle &style, const QFont &font);
// Paints the badge left-aligned and vertically centred in `rect`, elided to fit.
void paintBadge(QPainter *painter, const QRect &rect, const BadgeStyle &style, const QFont &font);

} // namespace Runwatch
