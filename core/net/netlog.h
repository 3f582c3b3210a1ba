// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLoggingCategory>

// The network layer (core/net): which transport a stream takes, retries, refused redirects,
// requests that never went out. Debug output is off unless asked for, e.g.
// QT_LOGGING_RULES="runwatch.net.debug=true". Never a header's value: requests carry credentials.
Q_DECLARE_LOGGING_CATEGORY(lcNet)
