// SPDX-License-Identifier: GPL-3.0-or-later
#include "toolcallsform.h"

#include <QButtonGroup>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QRadioButton>
#include <QShortcut>
#include <QTextDocument>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// Tests and screen readers find each control by its object name and accessible name.
template<typename W>
W *named(W *widget, const QString &objectName, const QString &accessibleName)
{
    widget->setObjectName(objectName);
    widget->setAccessibleName(accessibleName);
    return widget;
}

// A box of at most `lines` lines; more scroll.
void limitLines(QPlainTextEdit *edit, int lines)
{
    // The document's margin on both sides, and a little slack: a box one pixel short shows a
    // scroll bar for a single line.
    const int margin = int(edit->document()->documentMargin());
    edit->setFixedHeight(edit->fontMetrics().lineSpacing() * lines + 2 * edit->frameWidth() + 2 * margin + 6);
}
} // namespace

ToolCallsForm::ToolCallsForm(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(u"toolCallsForm"_s);
    // Rows straight in the panel: each call's arguments scroll in their own box, so a row stays a
    // few lines tall however long they are.
    m_list = new QVBoxLayout(this);
    m_list->setContentsMargins(0, 0, 0, 0);
    m_list->setSpacing(10);
}

void ToolCallsForm::setCalls(const QList<ToolCallRequest> &calls)
{
    m_rows.clear();
    while (QLayoutItem *item = m_list->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    for (int i = 0; i < calls.size(); ++i) {
        QWidget *row = addRow(calls.at(i), i);
        m_list->addWidget(row);
        // Now, not on the layout's queued show: until then the rows count as hidden, and the
        // panel would be sized without them.
        row->show();
    }
    updateGeometry();
    Q_EMIT completeChanged();
}

QWidget *ToolCallsForm::addRow(const ToolCallRequest &call, int index)
{
    auto *row = new QFrame;
    row->setObjectName(u"toolCall_%1"_s.arg(index));
    auto *layout = new QVBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);

    auto *title = new QHBoxLayout;
    auto *name = named(new QLabel, u"toolName_%1"_s.arg(index), tr("Tool"));
    // Plain text: a name is the service's, never markup.
    name->setTextFormat(Qt::PlainText);
    name->setText(call.name.isEmpty() ? tr("(unnamed tool)") : call.name);
    QFont bold = name->font();
    bold.setBold(true);
    name->setFont(bold);
    title->addWidget(name);
    QString where = call.approval ? tr("asks for approval") : tr("needs its output");
    if (!call.serverLabel.isEmpty())
        where = tr("on %1, %2").arg(call.serverLabel, where);
    auto *detail = new QLabel(where);
    detail->setTextFormat(Qt::PlainText);
    detail->setEnabled(false); // the palette's muted text
    title->addWidget(detail);
    auto *id = new QLabel(call.id);
    id->setTextFormat(Qt::PlainText);
    id->setEnabled(false);
    id->setTextInteractionFlags(Qt::TextSelectableByMouse);
    id->setToolTip(call.id);
    // The id gives way first when the pane is narrow; the name never does.
    id->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    id->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    title->addWidget(id, 1);
    layout->addLayout(title);

    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    auto *arguments
        = named(new QPlainTextEdit, u"toolArguments_%1"_s.arg(index), tr("Arguments of %1").arg(call.name));
    arguments->setReadOnly(true);
    arguments->setFont(mono);
    // Read-only input looks unlike the output fields the operator types into.
    QPalette argumentsPalette = arguments->palette();
    argumentsPalette.setColor(QPalette::Base, argumentsPalette.color(QPalette::AlternateBase));
    arguments->setPalette(argumentsPalette);
    arguments->setPlainText(call.arguments.isEmpty() ? tr("(no arguments)") : call.arguments);
    arguments->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    arguments->setTabChangesFocus(true);
    limitLines(arguments, qBound(1, int(arguments->document()->lineCount()), 3));
    layout->addWidget(arguments);

    Row r;
    r.call = call;
    if (call.approval) {
        layout->addLayout(addDecisions(r, index, row));
    } else {
        r.output
            = named(new QPlainTextEdit, u"toolOutput_%1"_s.arg(index), tr("Output of %1").arg(call.name));
        r.output->setPlaceholderText(tr("Output of %1… (Ctrl+Enter sends all)").arg(call.name));
        r.output->setTabChangesFocus(true);
        limitLines(r.output, 2);
        layout->addWidget(r.output);
        connect(r.output, &QPlainTextEdit::textChanged, this, &ToolCallsForm::completeChanged);
        auto *shortcut = new QShortcut(QKeySequence(u"Ctrl+Return"_s), r.output);
        shortcut->setContext(Qt::WidgetShortcut);
        connect(shortcut, &QShortcut::activated, this, &ToolCallsForm::submitRequested);
    }
    m_rows.append(r);
    return row;
}

QLayout *ToolCallsForm::addDecisions(Row &r, int index, QWidget *row)
{
    const ToolCallRequest &call = r.call;
    auto *choice = new QHBoxLayout;
    auto *group = new QButtonGroup(row);
    // Only the decisions the service takes for this call: another one would fail the run.
    if (call.approveAllowed) {
        r.approve = named(new QRadioButton(tr("Approve")), u"toolApprove_%1"_s.arg(index),
                          tr("Approve %1").arg(call.name));
        group->addButton(r.approve);
        choice->addWidget(r.approve);
    }
    if (call.rejectAllowed) {
        r.reject = named(new QRadioButton(tr("Reject")), u"toolReject_%1"_s.arg(index),
                         tr("Reject %1").arg(call.name));
        group->addButton(r.reject);
        choice->addWidget(r.reject);
    }
    if (!r.approve && !r.reject) {
        auto *note = new QLabel(tr("Only an edit of this call is allowed, which this panel does not offer "
                                   "(runwatch-cli respond --value)."));
        note->setObjectName(u"toolNoDecision_%1"_s.arg(index));
        note->setWordWrap(true);
        choice->addWidget(note, 1);
        return choice;
    }
    connect(group, &QButtonGroup::buttonToggled, this, &ToolCallsForm::completeChanged);
    if (!r.reject || !call.reasonOnReject) {
        choice->addStretch(1);
        return choice;
    }
    // Typing a reason is rejecting: the box picks Reject, so a reason never goes out with an
    // approval the operator did not mean.
    r.reason
        = named(new QLineEdit, u"toolReason_%1"_s.arg(index), tr("Reason for rejecting %1").arg(call.name));
    r.reason->setPlaceholderText(tr("Reason (optional, sent to the agent)"));
    r.reason->setClearButtonEnabled(true);
    choice->addWidget(r.reason, 1);
    QRadioButton *reject = r.reject;
    connect(r.reason, &QLineEdit::textEdited, reject, [reject](const QString &text) {
        if (!text.isEmpty())
            reject->setChecked(true);
    });
    connect(r.reason, &QLineEdit::returnPressed, this, &ToolCallsForm::submitRequested);
    if (r.approve) {
        // An approval sends no reason: the box greys out (its text kept for a change of mind).
        QLineEdit *reason = r.reason;
        connect(r.approve, &QRadioButton::toggled, reason,
                [this, reason](bool approved) { reason->setEnabled(m_editable && !approved); });
    }
    return choice;
}

void ToolCallsForm::setEditable(bool editable)
{
    m_editable = editable;
    for (const Row &r : std::as_const(m_rows)) {
        for (QWidget *w : {static_cast<QWidget *>(r.output), static_cast<QWidget *>(r.approve),
                           static_cast<QWidget *>(r.reject)}) {
            if (w)
                w->setEnabled(editable);
        }
        if (r.reason)
            r.reason->setEnabled(editable && !(r.approve && r.approve->isChecked()));
    }
}

bool ToolCallsForm::isComplete() const
{
    if (m_rows.isEmpty())
        return false;
    for (const Row &r : m_rows) {
        const bool answered
            = r.output ? !r.output->toPlainText().trimmed().isEmpty()
                       : ((r.approve && r.approve->isChecked()) || (r.reject && r.reject->isChecked()));
        if (!answered)
            return false;
    }
    return true;
}

QList<ToolCallAnswer> ToolCallsForm::answers() const
{
    QList<ToolCallAnswer> list;
    for (const Row &r : m_rows) {
        ToolCallAnswer a;
        a.callId = r.call.id;
        if (r.output) {
            a.output = r.output->toPlainText();
        } else {
            a.approved = r.approve && r.approve->isChecked();
            if (!a.approved && r.reason)
                a.output = r.reason->text().trimmed();
        }
        list.append(a);
    }
    return list;
}

void ToolCallsForm::focusFirst()
{
    if (m_rows.isEmpty())
        return;
    const Row &r = m_rows.constFirst();
    if (r.output) {
        r.output->setFocus(Qt::ShortcutFocusReason);
    } else if (r.approve) {
        r.approve->setFocus(Qt::ShortcutFocusReason);
    } else if (r.reject) {
        r.reject->setFocus(Qt::ShortcutFocusReason);
    }
}

} // namespace Runwatch
