// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>
#include <QIcon>
#include <QPalette>
#include <QPixmap>

namespace Runwatch::Icons {

// Our own line icons (resources/icons/*.svg) are drawn black; these helpers tint them, so one
// set serves light and dark palettes and the status colours. Rendered pixmaps are cached.
QPixmap pixmap(const QString &name, int size, const QColor &color, qreal devicePixelRatio = 1.0);
// Normal and disabled states tinted from the palette's button text.
QIcon themed(const QString &name, const QPalette &palette);
// The application icon (full colour).
QIcon appIcon();

} // namespace Runwatch::Icons
