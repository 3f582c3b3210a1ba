// SPDX-License-Identifier: GPL-3.0-or-later
#include "traystatus.h"

#include "icons.h"

#include "engine/runmanager.h"
#include "models/runfilter.h"
#include "models/runformat.h"

#include <QGuiApplication>
#include <QMenu>
#include <QPainter>
#include <QSystemTrayIcon>
#include <QTimer>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

constexpr int kTitleChars = 60;

// The app icon with the count in a red disc at its lower right, as docks and trays show unread
// counts; plain when nothing waits.
QIcon badgedIcon(int count)
{
    QIcon base = Icons::appIcon();
    if (count <= 0)
        return base;
    QIcon icon;
    for (const int size : {16, 22, 24, 32, 48, 64}) {
        QPixmap pixmap = base.pixmap(size, size);
        QPainter painter(&pixmap);
        painter.setRenderHint(QPainter::Antialiasing);
        const QString text = count > 99 ? u"99+"_s : QString::number(count);
        const qreal disc = size * 0.62;
        const QRectF rect(size - disc, size - disc, disc, disc);
        painter.setPen(Qt::NoPen);
        painter.setBrush(QColor(0xd3, 0x2f, 0x2f));
        painter.drawEllipse(rect);
        QFont font = QGuiApplication::font();
        font.setBold(true);
        font.setPixelSize(qMax(6, int(disc * (text.size() > 2 ? 0.42 : 0.62))));
        painter.setFont(font);
        painter.setPen(Qt::white);
        painter.drawText(rect, Qt::AlignCenter, text);
        painter.end();
        icon.addPixmap(pixmap);
    }
    return icon;
}

} // namespace

TrayStatus::TrayStatus(RunManager *manager, QSystemTrayIcon *tray, QObject *parent)
    : QObject(parent)
    , m_manager(manager)
    , m_tray(tray)
    , m_menu(std::make_unique<QMenu>())
{
    if (tray)
        tray->setContextMenu(m_menu.get());
    if (manager) {
        for (const QString &id : manager->runIds())
            track(id);
        connect(manager, &RunManager::runAdded, this, [this](const QString &id) {
            track(id);
            scheduleRefresh();
        });
        connect(manager, &RunManager::runChanged, this, &TrayStatus::onRunChanged);
        connect(manager, &RunManager::runRemoved, this, [this](const QString &id) {
            if (m_waiting.removeAll(id) > 0)
                scheduleRefresh();
        });
    }
    refresh();
}

TrayStatus::~TrayStatus()
{
    if (m_tray && m_tray->contextMenu() == m_menu.get())
        m_tray->setContextMenu(nullptr);
}

QStringList TrayStatus::runIds() const
{
    QStringList out(m_waiting.crbegin(), m_waiting.crend());
    return out;
}

void TrayStatus::track(const QString &id)
{
    const Run *run = m_manager ? m_manager->run(id) : nullptr;
    const bool waits = run && waitsForPerson(*run);
    const bool known = m_waiting.contains(id);
    if (waits && !known) {
        m_waiting.append(id);
    } else if (!waits && known) {
        m_waiting.removeAll(id);
    }
}

void TrayStatus::onRunChanged(const QString &id, RunChanges changes)
{
    // Whether it waits (status, request) and what the menu calls it (identity: the title).
    if (!(changes & (RunChanges(RunChange::Status) | RunChange::Input | RunChange::Identity)))
        return;
    track(id);
    scheduleRefresh();
}

void TrayStatus::scheduleRefresh()
{
    // A burst of changes (a store reload, many runs asking at once) repaints the icon once.
    if (m_refreshQueued)
        return;
    m_refreshQueued = true;
    QTimer::singleShot(0, this, [this] {
        m_refreshQueued = false;
        refresh();
    });
}

void TrayStatus::refresh()
{
    const int n = count();
    if (m_tray) {
        m_tray->setToolTip(n == 0 ? u"Runwatch"_s : tr("Runwatch — %n run(s) need you", nullptr, n));
        if (n != m_shownCount)
            m_tray->setIcon(badgedIcon(n));
    }
    m_shownCount = n;

    m_menu->clear();
    const QStringList ids = runIds();
    if (ids.isEmpty()) {
        m_menu->addAction(tr("No run needs you"))->setEnabled(false);
    } else {
        m_menu->addSection(tr("Needs you"));
        for (const QString &id : ids.mid(0, kMenuRuns)) {
            const Run *run = m_manager ? m_manager->run(id) : nullptr;
            if (!run)
                continue;
            QAction *action = m_menu->addAction(shortRunTitle(*run, kTitleChars));
            action->setData(id);
            connect(action, &QAction::triggered, this, [this, id] { Q_EMIT runActivated(id); });
        }
        if (ids.size() > kMenuRuns) {
            QAction *more = m_menu->addAction(tr("%n more…", nullptr, int(ids.size() - kMenuRuns)));
            connect(more, &QAction::triggered, this, &TrayStatus::showWindowRequested);
        }
    }
    m_menu->addSeparator();
    connect(m_menu->addAction(tr("Show Runwatch")), &QAction::triggered, this,
            &TrayStatus::showWindowRequested);
    connect(m_menu->addAction(tr("Quit Runwatch")), &QAction::triggered, this, &TrayStatus::quitRequested);
}

} // namespace Runwatch
