// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace Runwatch {

// The run store holds what must stay the operator's: prompts and answers, token commands, the
// URLs keys are sent to. Its folder is made for the owner only (0700) and its file, with SQLite's
// companions (-wal, -shm, -journal), is the owner's only (0600) — created so, and narrowed again
// when found wider (a store from an older version, a copy, a umask of 022). Returns an error
// message, or empty. `tightenFolder`: the folder is Runwatch's own (made here, or the default
// location), not a folder the operator chose for other files too.
QString makeStoreFilesPrivate(const QString &databasePath, bool tightenFolder);

} // namespace Runwatch
