// SPDX-License-Identifier: GPL-3.0-or-later
#include "timelineview.h"
#include "models/runformat.h"

#include <QHeaderView>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
constexpr int kPreviewChars = 400;
constexpr int kToolTipChars = 4000;
} // namespace

TimelineView::TimelineView(QWidget *parent)
    : QTreeWidget(parent)
{
    setColumnCount(3);
    setHeaderLabels({tr("Time"), tr("Kind"), tr("Details")});
    setRootIsDecorated(false);
    setUniformRowHeights(true);
    setAlternatingRowColors(true);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setTextElideMode(Qt::ElideRight);
    header()->setStretchLastSection(true);
    header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    setAccessibleName(tr("Run timeline"));
    setAccessibleDescription(tr("Reasoning, tool calls, progress and status changes of the run"));
}

QString TimelineView::kindLabel(SecondaryKind kind)
{
    switch (kind) {
    case SecondaryKind::Reasoning:
        return tr("Reasoning");
    case SecondaryKind::ToolCall:
        return tr("Tool call");
    case SecondaryKind::Progress:
        return tr("Progress");
    case SecondaryKind::Log:
        return tr("Log");
    case SecondaryKind::StatusChange:
        return tr("Status");
    }
    return {};
}

void TimelineView::fill(QTreeWidgetItem *item, const SecondaryItem &source)
{
    item->setText(0, source.at.isValid() ? source.at.toLocalTime().toString(u"HH:mm:ss.zzz"_s) : QString());
    item->setText(1, kindLabel(source.kind));
    QString details = source.text.left(kPreviewChars).simplified();
    if (!source.title.isEmpty())
        details = source.title + (details.isEmpty() ? QString() : u": "_s + details);
    if (!source.done && source.kind != SecondaryKind::StatusChange)
        details += u" …"_s;
    item->setText(2, details);
    QString tip = source.text.left(kToolTipChars);
    if (source.text.size() > kToolTipChars)
        tip += u"\n[…]"_s;
    item->setToolTip(2, plainToolTip(source.title.isEmpty() ? tip : source.title + u"\n\n"_s + tip));
    QFont f = font();
    f.setBold(source.kind == SecondaryKind::StatusChange);
    item->setFont(2, f);
}

void TimelineView::setJournal(const QList<RunStore::JournalEntry> &journal)
{
    while (m_journalRows > 0) {
        delete takeTopLevelItem(topLevelItemCount() - 1);
        --m_journalRows;
    }
    QList<QTreeWidgetItem *> rows;
    for (const RunStore::JournalEntry &j : journal) {
        auto *item = new QTreeWidgetItem;
        item->setText(0, j.at.toLocalTime().toString(u"HH:mm:ss.zzz"_s));
        item->setText(1, tr("Operator"));
        const QString who = j.operatorName + u'@' + j.host;
        item->setText(2, j.detail.isEmpty()
                             ? tr("%1: %2").arg(who, j.action)
                             : tr("%1: %2 (%3)").arg(who, j.action, j.detail.left(kPreviewChars)));
        item->setToolTip(2, plainToolTip(j.at.toLocalTime().toString(Qt::ISODate) + u"\n"_s + who + u"\n"_s
                                         + j.action + u"\n"_s + j.detail.left(kToolTipChars)));
        rows << item;
    }
    m_journalRows = int(rows.size());
    addTopLevelItems(rows);
}

void TimelineView::showRun(const Run *run)
{
    const QString id = run ? run->localId : QString();
    if (id != m_runId || !run || run->secondary.size() < m_shown.size()) {
        clear();
        m_shown.clear();
        m_journalRows = 0;
        m_runId = id;
    }
    if (!run)
        return;
    const bool stick = topLevelItemCount() == 0
                       || visualItemRect(topLevelItem(topLevelItemCount() - 1)).top() < viewport()->height();
    for (qsizetype i = 0; i < m_shown.size(); ++i) {
        const SecondaryItem &s = run->secondary.at(i);
        Shown &shown = m_shown[i];
        if (shown.textSize != s.text.size() || shown.done != s.done) {
            fill(topLevelItem(int(i)), s);
            shown = {s.text.size(), s.done};
        }
    }
    QList<QTreeWidgetItem *> fresh;
    for (qsizetype i = m_shown.size(); i < run->secondary.size(); ++i) {
        const SecondaryItem &s = run->secondary.at(i);
        auto *item = new QTreeWidgetItem;
        fill(item, s);
        fresh.append(item);
        m_shown.append({s.text.size(), s.done});
    }
    if (!fresh.isEmpty()) {
        insertTopLevelItems(int(topLevelItemCount() - m_journalRows), fresh); // the journal stays last
        if (stick)
            scrollToBottom();
    }
}

} // namespace Runwatch
