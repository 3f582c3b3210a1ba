// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "engine/stuckruns.h"

#include <QDialog>

class QDoubleSpinBox;
class QSpinBox;

namespace Runwatch {

// Settings › Stuck Runs…: when a live run counts as stuck — no progress for `factor` × its
// expected duration, never before the floor. The rule is core's (StuckPolicy, StuckRunWatcher);
// the setting is the store's, shared with `runwatch-cli stuck-rule`. This only asks.
class StuckRuleDialog final : public QDialog
{
    Q_OBJECT
public:
    explicit StuckRuleDialog(const StuckPolicy &policy, QWidget *parent = nullptr);

    // The rule as entered (when accepted).
    StuckPolicy policy() const;

    QDoubleSpinBox *factorBox() const { return m_factor; }
    QSpinBox *floorBox() const { return m_floorMinutes; }

private:
    QDoubleSpinBox *m_factor;
    QSpinBox *m_floorMinutes;
};

} // namespace Runwatch
