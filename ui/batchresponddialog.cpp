// SPDX-License-Identifier: GPL-3.0-or-later
#include "batchresponddialog.h"

#include "engine/runmanager.h"
#include "statusstyle.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
enum Column { TitleColumn, IdColumn, ResultColumn };
} // namespace

BatchRespondDialog::BatchRespondDialog(RunManager *manager, const BatchRequest &batch, QWidget *parent)
    : QDialog(parent)
    , m_manager(manager)
    , m_batch(batch)
    , m_responder(new BatchResponder(manager, this))
{
    setObjectName(u"batchRespondDialog"_s);
    const int count = int(batch.runIds.size());
    setWindowTitle(tr("Respond to %n Runs", nullptr, count));
    auto *layout = new QVBoxLayout(this);

    m_heading = new QLabel;
    m_heading->setObjectName(u"batchHeading"_s);
    QString heading;
    switch (batch.kind) {
    case BatchKind::Approval:
        heading = tr("%n run(s) wait for an approval. One answer goes to each of them, each its own request.",
                     nullptr, count);
        break;
    case BatchKind::Question:
    case BatchKind::Choice:
    case BatchKind::None:
        heading
            = tr("%n run(s) ask the same question. One answer goes to each of them, each its own request.",
                 nullptr, count);
        break;
    }
    m_heading->setText(heading);
    m_heading->setWordWrap(true);
    layout->addWidget(m_heading);

    // Approvals may differ in wording (a manager's and a director's step): say so rather than
    // show one run's prompt as everyone's.
    bool samePrompt = true;
    QList<const Run *> runs;
    for (const QString &id : batch.runIds) {
        const Run *run = manager ? manager->run(id) : nullptr;
        runs.append(run);
        if (run && run->input && run->input->prompt != batch.prompt)
            samePrompt = false;
    }
    m_prompt = new QLabel;
    m_prompt->setObjectName(u"batchPrompt"_s);
    m_prompt->setWordWrap(true);
    m_prompt->setTextFormat(Qt::PlainText);
    m_prompt->setText(samePrompt ? batch.prompt
                                 : tr("The runs ask in different words; each run's request is in the list."));
    QFont bold = m_prompt->font();
    bold.setBold(true);
    m_prompt->setFont(bold);
    layout->addWidget(m_prompt);

    m_list = new QTreeWidget;
    m_list->setObjectName(u"batchRuns"_s);
    m_list->setAccessibleName(tr("Runs to answer"));
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->setSelectionMode(QAbstractItemView::NoSelection);
    m_list->setHeaderLabels({tr("Run"), tr("Id"), tr("Result")});
    for (int i = 0; i < count; ++i) {
        const Run *run = runs.at(i);
        const QString &id = batch.runIds.at(i);
        auto *item = new QTreeWidgetItem(m_list);
        item->setText(TitleColumn, run && !run->title.isEmpty() ? run->title : id);
        if (run && run->input && !samePrompt)
            item->setToolTip(TitleColumn, run->input->prompt);
        item->setText(IdColumn, id);
        item->setText(ResultColumn, tr("Not sent yet"));
        m_items.insert(id, item);
    }
    // The result (a failure's reason) gets the room; the title what it needs, up to a third.
    m_list->header()->setSectionResizeMode(TitleColumn, QHeaderView::Interactive);
    m_list->header()->setSectionResizeMode(IdColumn, QHeaderView::ResizeToContents);
    m_list->header()->setStretchLastSection(true);
    m_list->resizeColumnToContents(TitleColumn);
    m_list->header()->resizeSection(TitleColumn,
                                    std::min(m_list->header()->sectionSize(TitleColumn) + 12, 240));
    layout->addWidget(m_list, 1);

    auto *answerRow = new QHBoxLayout;
    switch (batch.kind) {
    case BatchKind::Approval: {
        m_comment = new QLineEdit;
        m_comment->setObjectName(u"batchComment"_s);
        m_comment->setPlaceholderText(tr("Comment for every run (optional)"));
        m_comment->setAccessibleName(tr("Comment"));
        answerRow->addWidget(m_comment, 1);
        m_approve = new QPushButton(tr("&Approve All (%n)", nullptr, count));
        m_approve->setObjectName(u"batchApprove"_s);
        m_approve->setAccessibleName(tr("Approve %n runs", nullptr, count));
        m_approve->setEnabled(batch.approveAllowed);
        m_reject = new QPushButton(tr("&Reject All (%n)", nullptr, count));
        m_reject->setObjectName(u"batchReject"_s);
        m_reject->setAccessibleName(tr("Reject %n runs", nullptr, count));
        m_reject->setEnabled(batch.rejectAllowed);
        answerRow->addWidget(m_approve);
        answerRow->addWidget(m_reject);
        connect(m_approve, &QPushButton::clicked, this, [this] {
            InputAnswer a;
            a.kind = InputAnswer::Kind::Approve;
            a.comment = m_comment->text().trimmed();
            send(a);
        });
        connect(m_reject, &QPushButton::clicked, this, [this] {
            InputAnswer a;
            a.kind = InputAnswer::Kind::Reject;
            a.comment = m_comment->text().trimmed();
            send(a);
        });
        break;
    }
    case BatchKind::Question:
    case BatchKind::None:
        m_text = new QPlainTextEdit;
        m_text->setObjectName(u"batchText"_s);
        m_text->setAccessibleName(tr("Answer for every run"));
        m_text->setTabChangesFocus(true);
        m_text->setMaximumHeight(m_text->fontMetrics().lineSpacing() * 4);
        answerRow->addWidget(m_text, 1);
        break;
    case BatchKind::Choice:
        m_choice = new QComboBox;
        m_choice->setObjectName(u"batchChoice"_s);
        m_choice->setAccessibleName(tr("Option for every run"));
        m_choice->addItems(batch.options);
        answerRow->addWidget(m_choice, 1);
        break;
    }
    if (batch.kind != BatchKind::Approval) {
        m_send = new QPushButton(tr("&Send to %n", nullptr, count));
        m_send->setObjectName(u"batchSend"_s);
        m_send->setAccessibleName(tr("Send to %n runs", nullptr, count));
        answerRow->addWidget(m_send);
        if (m_text) {
            m_send->setEnabled(false);
            connect(m_text, &QPlainTextEdit::textChanged, this,
                    [this] { m_send->setEnabled(!m_text->toPlainText().trimmed().isEmpty()); });
        }
        connect(m_send, &QPushButton::clicked, this, [this] {
            InputAnswer a;
            if (m_choice) {
                a.kind = InputAnswer::Kind::Choice;
                a.choice = m_choice->currentText();
            } else {
                a.kind = InputAnswer::Kind::Text;
                a.text = m_text->toPlainText();
            }
            send(a);
        });
    }
    layout->addLayout(answerRow);

    m_summary = new QLabel;
    m_summary->setObjectName(u"batchSummary"_s);
    m_summary->setWordWrap(true);
    layout->addWidget(m_summary);

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(m_buttons);

    connect(m_responder, &BatchResponder::runAnswered, this, &BatchRespondDialog::showOutcome);
    connect(m_responder, &BatchResponder::finished, this, [this] {
        updateSummary();
        const int failed = m_responder->failedCount();
        Q_EMIT batchFinished(int(m_responder->outcomes().size()) - failed, failed);
    });
    resize(820, 460);
}

void BatchRespondDialog::send(InputAnswer answer)
{
    // One answer, once: the controls stay disabled; the list tells each run's fate.
    for (QWidget *w :
         std::initializer_list<QWidget *>{m_comment, m_approve, m_reject, m_text, m_choice, m_send}) {
        if (w)
            w->setEnabled(false);
    }
    for (QTreeWidgetItem *item : std::as_const(m_items))
        item->setText(ResultColumn, tr("Sending…"));
    m_summary->setText(tr("Sending %n answer(s)…", nullptr, int(m_batch.runIds.size())));
    m_responder->start(m_batch.runIds, answer);
}

void BatchRespondDialog::showOutcome(const BatchOutcome &outcome)
{
    QTreeWidgetItem *item = m_items.value(outcome.runId);
    if (!item)
        return;
    if (outcome.ok) {
        item->setText(ResultColumn, tr("✓ Answered"));
        item->setToolTip(ResultColumn, {});
    } else {
        // Colour and words: the failure's reason is the text, the colour only points at it.
        item->setText(ResultColumn, tr("✗ Not taken: %1").arg(outcome.error.message));
        item->setToolTip(ResultColumn, outcome.error.toString());
        const BadgeStyle failed = badgeStyle(RunStatus::Failed, false, false, isDarkPalette(palette()));
        item->setForeground(ResultColumn, failed.accent);
    }
    updateSummary();
}

void BatchRespondDialog::updateSummary()
{
    int answered = 0;
    int failed = 0;
    int pending = 0;
    for (const BatchOutcome &o : m_responder->outcomes()) {
        if (!o.done) {
            ++pending;
        } else if (o.ok) {
            ++answered;
        } else {
            ++failed;
        }
    }
    QString text = tr("%n answered", nullptr, answered);
    QStringList failedRuns;
    for (const BatchOutcome &o : m_responder->outcomes()) {
        if (o.done && !o.ok && failedRuns.size() < 3)
            failedRuns << m_items.value(o.runId)->text(TitleColumn) + u" ("_s + o.runId + u')';
    }
    if (failed > 0) {
        text += u", "_s + tr("%n not taken (still waiting: see each run's reason)", nullptr, failed) + u": "_s
                + failedRuns.join(u", "_s) + (failed > failedRuns.size() ? u", …"_s : QString());
    }
    if (pending > 0)
        text += u", "_s + tr("%n on the way", nullptr, pending);
    m_summary->setText(text + u'.');
}

} // namespace Runwatch
