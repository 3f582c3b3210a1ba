// SPDX-License-Identifier: GPL-3.0-or-later
#include "deadlinedialog.h"

#include "domain/timebudget.h"

#include <QCheckBox>
#include <QDateTimeEdit>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Runwatch {

DeadlineDialog::DeadlineDialog(const QDateTime &current, bool cancelAtDeadline, QWidget *parent)
    : QDialog(parent)
{
    setObjectName(u"deadlineDialog"_s);
    setWindowTitle(tr("Set Deadline"));
    auto *layout = new QVBoxLayout(this);
    auto *form = new QFormLayout;
    m_inButton = new QRadioButton(tr("&In:"));
    m_budget = new QLineEdit;
    m_budget->setObjectName(u"deadlineBudget"_s);
    m_budget->setPlaceholderText(tr("e.g. 45m, 2h, 1h30m"));
    m_budget->setAccessibleName(tr("Time budget from now"));
    m_budget->setToolTip(tr("How long the run may still take, from now: 90s, 45m, 2h, 1h30m, 1d."));
    form->addRow(m_inButton, m_budget);
    m_atButton = new QRadioButton(tr("&At:"));
    m_at = new QDateTimeEdit;
    m_at->setObjectName(u"deadlineAt"_s);
    m_at->setCalendarPopup(true);
    m_at->setDisplayFormat(u"yyyy-MM-dd HH:mm"_s);
    m_at->setAccessibleName(tr("Deadline time"));
    m_at->setDateTime(
        (current.isValid() ? current : QDateTime::currentDateTime().addSecs(3600)).toLocalTime());
    form->addRow(m_atButton, m_at);
    layout->addLayout(form);
    m_cancel = new QCheckBox(tr("&Cancel the run at the deadline"));
    m_cancel->setObjectName(u"deadlineCancel"_s);
    m_cancel->setToolTip(tr("Otherwise the run is only marked over deadline. You are warned 5 minutes "
                            "before (or at 90% of a shorter budget)."));
    m_cancel->setChecked(cancelAtDeadline);
    layout->addWidget(m_cancel);
    m_problem = new QLabel;
    m_problem->setObjectName(u"deadlineProblem"_s);
    m_problem->setWordWrap(true);
    layout->addWidget(m_problem);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    QPushButton *remove = m_buttons->addButton(tr("&Remove Deadline"), QDialogButtonBox::ResetRole);
    remove->setObjectName(u"deadlineRemove"_s);
    remove->setEnabled(current.isValid());
    layout->addWidget(m_buttons);
    (current.isValid() ? m_atButton : m_inButton)->setChecked(true);

    connect(m_budget, &QLineEdit::textChanged, this, [this] {
        m_inButton->setChecked(true);
        validate();
    });
    connect(m_at, &QDateTimeEdit::dateTimeChanged, this, [this] {
        m_atButton->setChecked(true);
        validate();
    });
    connect(m_inButton, &QRadioButton::toggled, this, &DeadlineDialog::validate);
    connect(m_buttons, &QDialogButtonBox::accepted, this, [this] {
        validate();
        if (m_buttons->button(QDialogButtonBox::Ok)->isEnabled())
            accept();
    });
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(remove, &QPushButton::clicked, this, [this] {
        m_result = {};
        accept();
    });
    validate();
}

bool DeadlineDialog::cancelAtDeadline() const
{
    return m_result.isValid() && m_cancel->isChecked();
}

void DeadlineDialog::validate()
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    QString problem;
    if (m_inButton->isChecked()) {
        const auto ms = parseTimeBudgetMs(m_budget->text());
        m_result = ms ? now.addMSecs(*ms) : QDateTime();
        if (!ms) {
            problem = m_budget->text().trimmed().isEmpty()
                          ? QString()
                          : tr("A time budget looks like 90s, 45m, 2h or 1h30m.");
        }
    } else {
        m_result = m_at->dateTime().toUTC();
        if (m_result <= now)
            problem = tr("The deadline must be in the future.");
    }
    if (!problem.isEmpty())
        m_result = {};
    m_problem->setText(problem);
    m_problem->setVisible(!problem.isEmpty());
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(m_result.isValid());
}

} // namespace Runwatch
