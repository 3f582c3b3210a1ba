// SPDX-License-Identifier: GPL-3.0-or-later
#include "stuckruledialog.h"

#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Runwatch {

StuckRuleDialog::StuckRuleDialog(const StuckPolicy &policy, QWidget *parent)
    : QDialog(parent)
{
    setObjectName(u"stuckRuleDialog"_s);
    setWindowTitle(tr("Stuck Runs"));
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(tr("A live run is flagged stuck when it makes no progress (no output, status "
                                "change, progress or error) for a multiple of its expected duration: the "
                                "service's estimate, else the median of the completed runs of its connection "
                                "and model."));
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto *form = new QFormLayout;
    m_factor = new QDoubleSpinBox;
    m_factor->setObjectName(u"stuckFactor"_s);
    // The bounds StuckPolicy::fromJson accepts: below 1 a run would be stuck before it is due.
    m_factor->setRange(1.0, 1000.0);
    m_factor->setDecimals(1);
    m_factor->setSingleStep(0.5);
    m_factor->setSuffix(tr(" × expected duration"));
    m_factor->setValue(policy.factor);
    m_factor->setAccessibleName(tr("Silence that counts as stuck, as a multiple of the expected duration"));
    form->addRow(tr("&No progress for:"), m_factor);
    m_floorMinutes = new QSpinBox;
    m_floorMinutes->setObjectName(u"stuckFloor"_s);
    m_floorMinutes->setRange(0, 7 * 24 * 60);
    m_floorMinutes->setSuffix(tr(" min"));
    m_floorMinutes->setValue(int(policy.floorMs / 60000));
    m_floorMinutes->setAccessibleName(tr("Shortest silence that counts as stuck, in minutes"));
    m_floorMinutes->setToolTip(tr("A short job is not flagged because one answer came late."));
    form->addRow(tr("&But at least:"), m_floorMinutes);
    layout->addLayout(form);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

StuckPolicy StuckRuleDialog::policy() const
{
    StuckPolicy p;
    p.factor = m_factor->value();
    p.floorMs = qint64(m_floorMinutes->value()) * 60000;
    return p;
}

} // namespace Runwatch
