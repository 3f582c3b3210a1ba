// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Helpers shared by A2aBackend's two translation units (a2atransport.cpp, a2abackend.cpp).

#include "domain/runerror.h"

#include <QString>

namespace Runwatch::A2a {

// A request Runwatch refuses before sending it (no such method, empty answer, …).
RunError clientError(const QString &code, const QString &message);
// What an operation reports when its backend was destroyed while it waited.
RunError cancelledError();
// A task id as one URL path segment (HTTP+JSON binding).
QString encodedId(const QString &id);

} // namespace Runwatch::A2a
