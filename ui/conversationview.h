// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/run.h"

#include <QTextBrowser>

namespace Runwatch {

// A follow-up's whole conversation in the detail pane: every turn in order, each with its prompt
// and its answer (the earlier turns' final text, the shown turn's text so far). The Output tab
// stays the live view of the shown turn; this one is rebuilt on its status changes.
class ConversationView final : public QTextBrowser
{
    Q_OBJECT
public:
    explicit ConversationView(QWidget *parent = nullptr);

    // `turns`: oldest first, the shown run last.
    void showConversation(const QList<Run> &turns);
    int turnCount() const { return m_turns; }

private:
    int m_turns = 0;
};

} // namespace Runwatch
