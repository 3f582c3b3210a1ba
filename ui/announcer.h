// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/runreducer.h"

#include <QHash>
#include <QLabel>
#include <QPointer>
#include <QTimer>

namespace Runwatch {

class RunManager;
class RunTableView;

// The window's live region for screen readers (Qt 6.4 has no QAccessibleAnnouncementEvent): a
// label in the status bar that says what changed, with its accessible name set to the same words
// and a NameChanged event, which the AT-SPI bridge sends as object:property-change:accessible-name
// (Orca and others read it). Announced: a status change of the selected run, and a run that
// starts to need a person wherever it is in the list. The words stay on screen for a while so a
// sighted operator sees the same thing; several changes in one burst are said in one sentence.
class Announcer final : public QLabel
{
    Q_OBJECT
public:
    Announcer(RunManager *manager, RunTableView *table, QWidget *parent = nullptr);

    // What was announced last, while it is still shown (tests).
    QString lastAnnouncement() const { return m_last; }
    // As wide as the whole sentence, up to a share of the status bar: temporary messages need the
    // rest. What does not fit is elided.
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    void announced(const QString &text);

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    // The words on screen, elided to the label's width; the accessible name keeps them whole.
    void showElided();

    void onRunChanged(const QString &id, Runwatch::RunChanges changes);
    void queue(const QString &sentence);
    void flush();

    QPointer<RunManager> m_manager;
    QPointer<RunTableView> m_table;
    QHash<QString, bool> m_waited; // run id → it waited for a person when last seen
    QStringList m_pending;         // status sentences of this burst
    QStringList m_needy;           // titles of the runs that started to need a person in this burst
    QString m_last;
    QTimer m_flush;
    QTimer m_clear;
};

} // namespace Runwatch
