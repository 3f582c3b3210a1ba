// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "models/commandpalette.h"

#include <QFrame>
#include <QIcon>
#include <QPointer>

class QAction;
class QLabel;
class QLineEdit;
class QListView;

namespace Runwatch {

class RunListModel;

// The command palette (Ctrl+K, as Qt Creator's locator): a filter line over the window's commands
// and its runs, keyboard-only — type, arrows, Enter, Esc. A command runs its QAction (only
// enabled ones are listed); a run is selected in the list (runChosen). Matching and ranking are
// core's (CommandPaletteModel); the commands are read from the window's menus and toolbars each
// time the palette opens, so their enabled state is the current one.
class CommandPalettePopup final : public QFrame
{
    Q_OBJECT
public:
    explicit CommandPalettePopup(RunListModel *runs, QWidget *window);

    // The window's commands: every QAction in its menu bar (submenus included) and toolbars,
    // enabled and with text, once each, without `except` (the palette's own action).
    static QList<QAction *> windowActions(QWidget *window, const QAction *except = nullptr);

    // Collects the commands, clears the filter and shows the popup over the top of the window.
    void popup();

    QLineEdit *filterEdit() const { return m_filter; }
    QListView *listView() const { return m_list; }
    CommandPaletteModel *model() const { return m_model; }

Q_SIGNALS:
    void runChosen(const QString &id);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void activate(const QModelIndex &index);
    QIcon iconFor(const QModelIndex &index) const;
    void selectFirst();
    void updateHint();

    QPointer<QWidget> m_window;
    QPointer<RunListModel> m_runs;
    CommandPaletteModel *m_model;
    QLineEdit *m_filter;
    QListView *m_list;
    QLabel *m_hint;
    QList<QPointer<QAction>> m_actions; // the listed commands, by their key
};

} // namespace Runwatch
