// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "store/storeengine.h"

namespace Runwatch::detail {

// A team's PostgreSQL database through Qt's QPSQL driver (storeengine_pg.cpp). nullptr with the
// reason in *error for a URL that cannot be used: a password in it, an option libpq does not take
// from us, or no QPSQL driver installed.
std::shared_ptr<const StoreEngine> makePostgresEngine(const QString &location, QString *error);

} // namespace Runwatch::detail
