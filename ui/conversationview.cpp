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

void ConversationView::showConversation(const QList<Run> &turns)
{
    m_turns = int(turns.size());
    QString html;
    int turn = 0;
    for (const Run &run : turns) {
        // Plain text escaped: answers are the service's words, never markup to interpret.
        const QString answer = run.primaryText.isEmpty() ? tr("(no answer yet)") : run.primaryText;
        html += u"<h4>%1</h4><p><b>%2</b></p><p style=\"white-space: pre-wrap\">%3</p>"
                u"<p><b>%4</b></p><p style=\"white-space: pre-wrap\">%5</p><hr>"_s.arg(
                    tr("Turn %1 · %2").arg(++turn).arg(statusLabel(run.status)).toHtmlEscaped(),
                    tr("Prompt").toHtmlEscaped(), run.prompt.toHtmlEscaped(), tr("Answer").toHtmlEscaped(),
                    answer.toHtmlEscaped());
    }
    setHtml(html);
}

} // namespace Runwatch
