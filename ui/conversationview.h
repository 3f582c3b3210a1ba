// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/run.h"

#include <QTextBrowser>

namespace Runwatch {

// A run's whole conversation in the detail pane: every turn in order (the earlier ones, the shown
// one, the follow-ups made after it), each with its prompt, the follow-ups sent to it while it
// worked (kFollowUpItemTitle items) and its answer (final text, or the text so far). The Output
// tab stays the live view of the shown turn; this one is rebuilt (at most every 100 ms) when any
// of its turns changes or a new one joins.
class ConversationView final : public QTextBrowser
{
    Q_OBJECT
public:
    explicit ConversationView(QWidget *parent = nullptr);

    // `turns`: oldest first; `shown` the index of the shown run (marked as such).
    void showConversation(const QList<Run> &turns, int shown);
    int turnCount() const { return m_turns; }
    // The operator's messages shown, prompts and follow-ups sent to working turns, in order.
    const QStringList &messages() const { return m_messages; }

private:
    int m_turns = 0;
    QStringList m_messages;
};

} // namespace Runwatch
