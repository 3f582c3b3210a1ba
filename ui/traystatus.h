// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/runreducer.h"

#include <QObject>
#include <QPointer>
#include <QStringList>

#include <memory>

class QMenu;
class QSystemTrayIcon;

namespace Runwatch {

class RunManager;

// The tray icon's share of "Needs me": the number of runs that wait for a person on the icon (a
// badge) and in its tooltip, and a menu that lists them (newest first, at most kMenuRuns) so one
// is a click away; choosing one asks the window to show it. Follows status changes only: a
// streaming run's text deltas never repaint the icon.
class TrayStatus final : public QObject
{
    Q_OBJECT
public:
    static constexpr int kMenuRuns = 10;

    TrayStatus(RunManager *manager, QSystemTrayIcon *tray, QObject *parent = nullptr);
    ~TrayStatus() override;

    int count() const { return int(m_waiting.size()); }
    // The runs that need a person, newest first.
    QStringList runIds() const;
    QMenu *menu() const { return m_menu.get(); }

Q_SIGNALS:
    void runActivated(const QString &runId);
    void showWindowRequested();
    void quitRequested();

private:
    void onRunChanged(const QString &id, Runwatch::RunChanges changes);
    void track(const QString &id);
    void scheduleRefresh();
    void refresh();

    QPointer<RunManager> m_manager;
    QPointer<QSystemTrayIcon> m_tray;
    std::unique_ptr<QMenu> m_menu; // the tray does not own its context menu
    QStringList m_waiting;         // in the order they started waiting; newest last
    bool m_refreshQueued = false;
    int m_shownCount = -1;
};

} // namespace Runwatch
