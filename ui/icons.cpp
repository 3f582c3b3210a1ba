// SPDX-License-Identifier: GPL-3.0-or-later
#include "icons.h"

#include <QPainter>
#include <QPixmapCache>
#include <QSvgRenderer>

using namespace Qt::StringLiterals;

namespace Runwatch::Icons {

QPixmap pixmap(const QString &name, int size, const QColor &color, qreal devicePixelRatio)
{
    const int px = qRound(size * devicePixelRatio);
    const QString key
        = u"rwicon:%1:%2:%3:%4"_s.arg(name).arg(size).arg(devicePixelRatio).arg(color.rgba(), 0, 16);
    QPixmap cached;
    if (QPixmapCache::find(key, &cached))
        return cached;
    QPixmap pm(px, px);
    pm.fill(Qt::transparent);
    {
        QSvgRenderer renderer(u":/icons/%1.svg"_s.arg(name));
        QPainter p(&pm);
        p.setRenderHint(QPainter::Antialiasing);
        renderer.render(&p, QRectF(0, 0, px, px));
        // Keep the glyph's alpha, replace its colour.
        p.setCompositionMode(QPainter::CompositionMode_SourceIn);
        p.fillRect(pm.rect(), color);
    }
    pm.setDevicePixelRatio(devicePixelRatio);
    QPixmapCache::insert(key, pm);
    return pm;
}

QIcon themed(const QString &name, const QPalette &palette)
{
    QIcon icon;
    const QColor normal = palette.color(QPalette::Active, QPalette::ButtonText);
    const QColor disabled = palette.color(QPalette::Disabled, QPalette::ButtonText);
    for (int size : {16, 20, 24, 32}) {
        for (qreal dpr : {1.0, 2.0}) {
            icon.addPixmap(pixmap(name, size, normal, dpr), QIcon::Normal);
            icon.addPixmap(pixmap(name, size, disabled, dpr), QIcon::Disabled);
        }
    }
    return icon;
}

QIcon appIcon()
{
    return QIcon(u":/icons/io.github.runwatch.Runwatch.svg"_s);
}

} // namespace Runwatch::Icons
