// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "models/batchrespond.h"

#include <QDialog>
#include <QHash>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace Runwatch {

class RunManager;

// "Respond" on several runs that wait for the same kind of request (batchRequestFor()): how many
// and which runs, the one answer for all (approve / reject with a comment, the text of the shared
// question, one of its options), then each run's outcome as its service replies. The sending and
// the re-checks are core's (BatchResponder); a run that failed keeps its line with the reason.
class BatchRespondDialog final : public QDialog
{
    Q_OBJECT
public:
    BatchRespondDialog(RunManager *manager, const BatchRequest &batch, QWidget *parent = nullptr);

    BatchResponder *responder() const { return m_responder; }
    QTreeWidget *runList() const { return m_list; }
    QPushButton *approveButton() const { return m_approve; }
    QPushButton *rejectButton() const { return m_reject; }
    QPushButton *sendButton() const { return m_send; }
    QLineEdit *commentEdit() const { return m_comment; }
    QPlainTextEdit *textEdit() const { return m_text; }
    QComboBox *choiceBox() const { return m_choice; }
    QLabel *summaryLabel() const { return m_summary; }

Q_SIGNALS:
    // Every run has its outcome; `failed` of them did not take the answer.
    void batchFinished(int answered, int failed);

private:
    void send(InputAnswer answer);
    void showOutcome(const BatchOutcome &outcome);
    void updateSummary();

    RunManager *m_manager;
    BatchRequest m_batch;
    BatchResponder *m_responder;
    QLabel *m_heading = nullptr;
    QLabel *m_prompt = nullptr;
    QTreeWidget *m_list = nullptr;
    QLineEdit *m_comment = nullptr;
    QPushButton *m_approve = nullptr;
    QPushButton *m_reject = nullptr;
    QPlainTextEdit *m_text = nullptr;
    QComboBox *m_choice = nullptr;
    QPushButton *m_send = nullptr;
    QLabel *m_summary = nullptr;
    QDialogButtonBox *m_buttons = nullptr;
    QHash<QString, QTreeWidgetItem *> m_items;
};

} // namespace Runwatch
