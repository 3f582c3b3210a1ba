// SPDX-License-Identifier: GPL-3.0-or-later
#include "announcer.h"

#include "runtableview.h"

#include "engine/runmanager.h"
#include "models/runfilter.h"
#include "models/runformat.h"

#include <QAccessible>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
constexpr int kTitleChars = 60;
constexpr int kBurstMs = 150; // changes this close together are one announcement
// Runs asking together reach the window up to the engine's pace for runs out of view apart
// (RunManager::kOutOfViewDelay): still one announcement.
constexpr int kNeedyBurstMs = kBurstMs + int(RunManager::kOutOfViewDelay.count());
constexpr int kShownMs = 15000; // how long the words stay on screen
constexpr int kMaxWidthEm = 40; // the widest the label asks to be, in average characters
} // namespace

Announcer::Announcer(RunManager *manager, RunTableView *table, QWidget *parent)
    : QLabel(parent)
    , m_manager(manager)
    , m_table(table)
{
    setObjectName(u"announcer"_s);
    setAccessibleDescription(tr("Announces status changes of the selected run and runs that need you"));
    setTextFormat(Qt::PlainText);
    m_flush.setObjectName(u"announcerFlush"_s);
    m_flush.setSingleShot(true);
    connect(&m_flush, &QTimer::timeout, this, &Announcer::flush);
    m_clear.setSingleShot(true);
    m_clear.setInterval(kShownMs);
    connect(&m_clear, &QTimer::timeout, this, [this] {
        m_last.clear();
        setText({});
        updateGeometry();
    });
    if (!manager)
        return;
    for (const QString &id : manager->runIds()) {
        if (const Run *run = manager->run(id))
            m_waited.insert(id, waitsForPerson(*run));
    }
    connect(manager, &RunManager::runAdded, this, [this](const QString &id) {
        if (const Run *run = m_manager ? m_manager->run(id) : nullptr)
            m_waited.insert(id, waitsForPerson(*run));
    });
    connect(manager, &RunManager::runRemoved, this, [this](const QString &id) { m_waited.remove(id); });
    connect(manager, &RunManager::runChanged, this, &Announcer::onRunChanged);
}

void Announcer::onRunChanged(const QString &id, RunChanges changes)
{
    if (!(changes & (RunChanges(RunChange::Status) | RunChange::Input)) || !m_manager)
        return;
    const Run *run = m_manager->run(id);
    if (!run)
        return;
    const bool waits = waitsForPerson(*run);
    const bool waited = m_waited.value(id);
    m_waited.insert(id, waits);
    if (waits && !waited) {
        // Wherever it is in the list, and whether or not the list shows it: someone must act.
        if (!m_needy.contains(shortRunTitle(*run, kTitleChars)))
            m_needy << shortRunTitle(*run, kTitleChars);
        m_flush.start(kNeedyBurstMs);
        return;
    }
    if (!changes.testFlag(RunChange::Status) || !m_table)
        return;
    const QStringList selected = m_table->selectedRunIds();
    if (selected.size() == 1 && selected.first() == id)
        queue(tr("%1: %2").arg(shortRunTitle(*run, kTitleChars), statusLabel(run->status)));
}

void Announcer::queue(const QString &sentence)
{
    if (!m_pending.contains(sentence))
        m_pending << sentence;
    m_flush.start(m_needy.isEmpty() ? kBurstMs : kNeedyBurstMs);
}

void Announcer::flush()
{
    if (m_pending.isEmpty() && m_needy.isEmpty())
        return;
    // Many runs asking at once (a batch that reached its approval step, a restart) make one
    // short sentence, not one per run.
    QStringList sentences;
    if (m_needy.size() == 1) {
        sentences << tr("%1 needs you").arg(m_needy.first());
    } else if (!m_needy.isEmpty()) {
        sentences << tr("%n run(s) need you: %1", nullptr, int(m_needy.size())).arg(m_needy.join(u", "_s));
    }
    sentences << m_pending;
    m_last = sentences.join(u". "_s);
    m_pending.clear();
    m_needy.clear();
    // The name first: the label's own NameChanged (from setText) then already carries the whole
    // sentence, not the elided one.
    setAccessibleName(m_last);
    updateGeometry();
    showElided();
    // setAccessibleName() sends NameChanged only when the name differs; the same words twice
    // (the same run asking again) must be heard twice.
    QAccessibleEvent event(this, QAccessible::NameChanged);
    QAccessible::updateAccessibility(&event);
    m_clear.start();
    Q_EMIT announced(m_last);
}

QSize Announcer::sizeHint() const
{
    const QMargins m = contentsMargins();
    const int want = m_last.isEmpty() ? 0 : fontMetrics().horizontalAdvance(m_last);
    const int most = fontMetrics().averageCharWidth() * kMaxWidthEm;
    return {qMin(want, most) + m.left() + m.right(), QLabel::sizeHint().height()};
}

QSize Announcer::minimumSizeHint() const
{
    return {0, QLabel::minimumSizeHint().height()};
}

void Announcer::resizeEvent(QResizeEvent *event)
{
    QLabel::resizeEvent(event);
    showElided();
}

void Announcer::showElided()
{
    const QString shown = fontMetrics().elidedText(m_last, Qt::ElideRight, qMax(0, contentsRect().width()));
    if (shown != text())
        setText(shown);
}

} // namespace Runwatch
