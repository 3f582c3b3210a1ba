// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLoggingCategory>

namespace Runwatch {

// runwatch.models: the item models behind the run list (batched inserts, refreshes), for any
// front end.
// Debug lines are off by default: QT_LOGGING_RULES="runwatch.models.debug=true" (README, "Logging").
Q_DECLARE_LOGGING_CATEGORY(lcModels)

} // namespace Runwatch
