// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDateTime>
#include <QDialog>

class QCheckBox;
class QDateTimeEdit;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QRadioButton;

namespace Runwatch {

// "Set Deadline…": a time budget from now ("45m", "2h") or an absolute time, and whether the run
// is cancelled at the deadline. What it means is core's (RunManager::setDeadline,
// DeadlineWatcher); this only asks. "Remove Deadline" clears it (deadlineAt() invalid).
class DeadlineDialog final : public QDialog
{
    Q_OBJECT
public:
    // `current`: the run's deadline when it has one (shown as the absolute time).
    explicit DeadlineDialog(const QDateTime &current, bool cancelAtDeadline, QWidget *parent = nullptr);

    // When accepted: the chosen deadline (UTC), invalid when the operator removed it.
    QDateTime deadlineAt() const { return m_result; }
    bool cancelAtDeadline() const;

    QLineEdit *budgetEdit() const { return m_budget; }
    QCheckBox *cancelBox() const { return m_cancel; }

private:
    void validate();

    QRadioButton *m_inButton;
    QRadioButton *m_atButton;
    QLineEdit *m_budget;
    QDateTimeEdit *m_at;
    QCheckBox *m_cancel;
    QLabel *m_problem;
    QDialogButtonBox *m_buttons;
    QDateTime m_result;
};

} // namespace Runwatch
