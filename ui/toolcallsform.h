// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/run.h"

#include <QList>
#include <QWidget>

class QLayout;
class QLineEdit;
class QPlainTextEdit;
class QRadioButton;
class QVBoxLayout;

namespace Runwatch {

// The tool calls a run waits on (InputRequest::toolCalls, whichever backend asked), one row per
// call: the function or MCP tool name, its arguments as the service sent them in a monospace box
// that scrolls, and the answer — an output field, or Approve / Reject for a call that asks for
// approval, and beside Reject a reason for the agent where the service takes one. The answers go out together (the services take every call of an action in one submit),
// so the form is complete only when every call has one.
class ToolCallsForm final : public QWidget
{
    Q_OBJECT
public:
    explicit ToolCallsForm(QWidget *parent = nullptr);

    // Rebuilds the rows; answers typed for the previous calls are dropped.
    void setCalls(const QList<ToolCallRequest> &calls);
    void setEditable(bool editable);
    // Every call answered (an output that is not blank, or a decision).
    bool isComplete() const;
    QList<ToolCallAnswer> answers() const;
    void focusFirst();

Q_SIGNALS:
    void completeChanged();
    // Ctrl+Enter in an output field, Enter in a reason field.
    void submitRequested();

private:
    struct Row
    {
        ToolCallRequest call;
        QPlainTextEdit *output = nullptr;
        QRadioButton *approve = nullptr;
        QRadioButton *reject = nullptr;
        QLineEdit *reason = nullptr; // only where the call takes a reason on reject
    };

    QWidget *addRow(const ToolCallRequest &call, int index);
    // The approval row's choices (those the call allows) and, where it takes one, the reason box.
    QLayout *addDecisions(Row &r, int index, QWidget *row);

    QList<Row> m_rows;
    QVBoxLayout *m_list = nullptr;
    bool m_editable = true;
};

} // namespace Runwatch
