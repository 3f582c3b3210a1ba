// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/run.h"
#include "store/runstore.h"

#include <QTreeWidget>

namespace Runwatch {

// Secondary output of a run (seed 003) as a timeline: reasoning, tool calls, progress, logs and
// status changes with their timestamps. Updates are incremental: items already shown are only
// touched when their text grew or they completed, new ones are appended.
class TimelineView final : public QTreeWidget
{
    Q_OBJECT
public:
    explicit TimelineView(QWidget *parent = nullptr);

    // Shows `run`'s items (nullptr: clears). Cheap to call repeatedly for the same run.
    void showRun(const Run *run);
    // The run's operator journal (RunStore::journal: who gave which command, when), shown after
    // its items; replaced by each call, cleared with the run.
    void setJournal(const QList<RunStore::JournalEntry> &journal);
    QString runId() const { return m_runId; }

    static QString kindLabel(SecondaryKind kind);

private:
    void fill(QTreeWidgetItem *item, const SecondaryItem &source);

    QString m_runId;
    struct Shown
    {
        qsizetype textSize = 0;
        bool done = false;
    };
    QList<Shown> m_shown;
    int m_journalRows = 0; // after the items
};

} // namespace Runwatch
