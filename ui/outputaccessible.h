// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QAccessibleWidget>

namespace Runwatch {

class OutputView;

// What a screen reader gets from OutputView: a read-only, multi-line text whose text, selection,
// character places and words it can ask for (QAccessibleTextInterface, in offsets into the text
// shown), and the text each frame appends.
class OutputAccessible final : public QAccessibleWidget, public QAccessibleTextInterface
{
public:
    explicit OutputAccessible(OutputView *view);

    // Registers the factory that gives every OutputView this interface (once per process).
    static void install();
    // Tells a screen reader that `text` was appended at `offset`.
    static void announceAppend(OutputView *view, qint64 offset, const QString &text);

    void *interface_cast(QAccessible::InterfaceType type) override;
    QAccessible::State state() const override;
    QString text(QAccessible::Text t) const override;

    void selection(int selectionIndex, int *startOffset, int *endOffset) const override;
    int selectionCount() const override;
    void addSelection(int startOffset, int endOffset) override;
    void removeSelection(int selectionIndex) override;
    void setSelection(int selectionIndex, int startOffset, int endOffset) override;
    int cursorPosition() const override;
    void setCursorPosition(int position) override;
    QString text(int startOffset, int endOffset) const override;
    int characterCount() const override;
    QRect characterRect(int offset) const override;
    int offsetAtPoint(const QPoint &point) const override;
    void scrollToSubstring(int startIndex, int endIndex) override;
    QString attributes(int offset, int *startOffset, int *endOffset) const override;

private:
    OutputView *view() const;
};

} // namespace Runwatch
