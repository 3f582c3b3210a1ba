// SPDX-License-Identifier: GPL-3.0-or-later
#include "outputaccessible.h"

#include "outputview.h"

#include <QAccessibleEvent>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
QAccessibleInterface *outputFactory(const QString &className, QObject *object)
{
    if (className == "Runwatch::OutputView"_L1 && object && object->isWidgetType())
        return new OutputAccessible(static_cast<OutputView *>(object));
    return nullptr;
}
} // namespace

OutputAccessible::OutputAccessible(OutputView *view)
    : QAccessibleWidget(view, QAccessible::EditableText)
{}

void OutputAccessible::install()
{
    static const bool installed = [] {
        QAccessible::installFactory(outputFactory);
        return true;
    }();
    Q_UNUSED(installed)
}

void OutputAccessible::announceAppend(OutputView *view, qint64 offset, const QString &text)
{
    QAccessibleTextInsertEvent event(view, int(offset), text);
    QAccessible::updateAccessibility(&event);
}

OutputView *OutputAccessible::view() const
{
    return static_cast<OutputView *>(widget());
}

void *OutputAccessible::interface_cast(QAccessible::InterfaceType type)
{
    if (type == QAccessible::TextInterface)
        return static_cast<QAccessibleTextInterface *>(this);
    return QAccessibleWidget::interface_cast(type);
}

QAccessible::State OutputAccessible::state() const
{
    QAccessible::State state = QAccessibleWidget::state();
    state.readOnly = true;
    state.multiLine = true;
    state.selectableText = true;
    return state;
}

QString OutputAccessible::text(QAccessible::Text t) const
{
    if (t == QAccessible::Value)
        return view()->shownText();
    return QAccessibleWidget::text(t);
}

void OutputAccessible::selection(int selectionIndex, int *startOffset, int *endOffset) const
{
    *startOffset = *endOffset = 0;
    if (selectionIndex != 0 || !view()->hasSelection())
        return;
    const auto [start, end] = view()->selectionOffsets();
    *startOffset = int(start);
    *endOffset = int(end);
}

int OutputAccessible::selectionCount() const
{
    return view()->hasSelection() ? 1 : 0;
}

void OutputAccessible::addSelection(int startOffset, int endOffset)
{
    view()->selectOffsets(startOffset, endOffset);
}

void OutputAccessible::removeSelection(int selectionIndex)
{
    if (selectionIndex == 0)
        view()->selectOffsets(0, 0);
}

void OutputAccessible::setSelection(int selectionIndex, int startOffset, int endOffset)
{
    if (selectionIndex == 0)
        view()->selectOffsets(startOffset, endOffset);
}

int OutputAccessible::cursorPosition() const
{
    return int(view()->caretOffset());
}

void OutputAccessible::setCursorPosition(int position)
{
    view()->selectOffsets(position, position);
    view()->ensureOffsetVisible(position);
}

QString OutputAccessible::text(int startOffset, int endOffset) const
{
    return view()->textBetween(startOffset, endOffset);
}

int OutputAccessible::characterCount() const
{
    return int(view()->characterCount());
}

QRect OutputAccessible::characterRect(int offset) const
{
    const QRect rect = view()->characterRect(offset);
    if (rect.isEmpty())
        return {};
    return QRect(view()->viewport()->mapToGlobal(rect.topLeft()), rect.size());
}

int OutputAccessible::offsetAtPoint(const QPoint &point) const
{
    const QPoint local = view()->viewport()->mapFromGlobal(point);
    if (!view()->viewport()->rect().contains(local))
        return -1;
    return int(view()->offsetAt(local));
}

void OutputAccessible::scrollToSubstring(int startIndex, int endIndex)
{
    Q_UNUSED(endIndex)
    view()->ensureOffsetVisible(startIndex);
}

QString OutputAccessible::attributes(int offset, int *startOffset, int *endOffset) const
{
    // One look for the whole text.
    *startOffset = 0;
    *endOffset = characterCount();
    Q_UNUSED(offset)
    return {};
}

} // namespace Runwatch
