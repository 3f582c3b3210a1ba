// SPDX-License-Identifier: GPL-3.0-or-later
#include "conversationview.h"

#include "domain/runstatus.h"

using namespace Qt::StringLiterals;

namespace Runwatch {

ConversationView::ConversationView(QWidget *parent)
    : QTextBrowser(parent)
{
    setObjectName(u"conversationView"_s);
    setAccessibleName(tr("Conversation"));
    setOpenLinks(false);
}

void ConversationView::showConversation(const QList<Run> &turns, int shown)
{
    m_turns = int(turns.size());
    m_messages.clear();
    QString html;
    int turn = 0;
    for (const Run &run : turns) {
        const bool isShown = turn == shown;
        // Plain text escaped: answers are the service's words, never markup to interpret.
        const QString answer = run.primaryText.isEmpty() ? tr("(no answer yet)") : run.primaryText.toString();
        const QString heading = isShown ? tr("Turn %1 · %2 · this run") : tr("Turn %1 · %2");
        html += u"<h4>%1</h4><p><b>%2</b></p><p style=\"white-space: pre-wrap\">%3</p>"_s.arg(
            heading.arg(++turn).arg(statusLabel(run.status)).toHtmlEscaped(), tr("Prompt").toHtmlEscaped(),
            run.prompt.toHtmlEscaped());
        m_messages << run.prompt;
        for (const SecondaryItem &item : run.secondary) {
            if (!isFollowUpItem(item))
                continue;
            html += u"<p><b>%1</b></p><p style=\"white-space: pre-wrap\">%2</p>"_s.arg(
                tr("Follow-up while working").toHtmlEscaped(), item.text.toHtmlEscaped());
            m_messages << item.text;
        }
        html += u"<p><b>%1</b></p><p style=\"white-space: pre-wrap\">%2</p><hr>"_s.arg(
            tr("Answer").toHtmlEscaped(), answer.toHtmlEscaped());
    }
    setHtml(html);
}

} // namespace Runwatch
