// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "outputview.h"

#include <QHBoxLayout>
#include <QImage>
#include <QLineEdit>
#include <QScreen>
#include <QtTest>

namespace RunwatchTest {

using namespace Qt::StringLiterals;

// An output view in a window whose focus is elsewhere, as in the detail pane while the operator
// works in the list.
struct ViewInWindow
{
    QWidget window;
    QLineEdit *focus = new QLineEdit;
    Runwatch::OutputView *view = new Runwatch::OutputView;

    ViewInWindow()
    {
        auto *layout = new QHBoxLayout(&window);
        layout->addWidget(focus);
        layout->addWidget(view, 1);
        view->setSoftSplitColumn(100000); // only the lines under test
        window.resize(560, 260);
    }

    bool showWithText()
    {
        window.show();
        window.activateWindow();
        if (!QTest::qWaitForWindowActive(&window))
            return false;
        focus->setFocus();
        for (int i = 0; i < 40; ++i)
            view->appendText(u"line %1\n"_s.arg(i));
        view->flushAll();
        return !view->hasFocus();
    }

    // What the window shows where the view's text is (its backing store, painted piecemeal).
    QImage shown() const
    {
        QCoreApplication::sendPostedEvents(const_cast<QWidget *>(&window), QEvent::UpdateRequest);
        const QImage all
            = window.screen()->grabWindow(window.winId()).toImage().convertToFormat(QImage::Format_RGB32);
        return all.copy(QRect(view->viewport()->mapTo(&window, QPoint()), view->viewport()->size()));
    }
    QImage fresh() const { return view->viewport()->grab().toImage().convertToFormat(QImage::Format_RGB32); }
};

// The word around `offset` in `text`.
inline QString wordAt(const QString &text, qint64 offset)
{
    qsizetype start = offset;
    while (start > 0 && !text.at(start - 1).isSpace())
        --start;
    qsizetype end = offset;
    while (end < text.size() && !text.at(end).isSpace())
        ++end;
    return text.mid(start, end - start);
}
} // namespace RunwatchTest
