// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "store/runstore.h"
#include "store/threadconnection.h"

#include <QHash>
#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>

class QSqlDatabase;

namespace Runwatch::detail {

class StoreEngine;

// Ids per round of statements: two bound values each in the text query, well inside SQLite's
// limit of 32,766 and PostgreSQL's of 65,535.
constexpr qsizetype kChangedRunsPerRound = 500;

// One round of RunStore::loadChangedRuns() on `db`: the rows of `ids`, each run's text from where
// `known`'s copy of it ends (whole when the store does not go on from that copy, or the run just
// ended), its items. An id missing from *runs is not in the store. False, with *error, on a
// database error.
bool readChangedRuns(const QSqlDatabase &db, const QStringList &ids, const RunStore::KnownRun &known,
                     QHash<QString, Run> *runs, QString *error);

// Those reads on a thread and a connection of their own (RunStore::requestChangedRuns()), so that
// the front end's thread only applies what comes back: reading a round of a colleague's thousand
// streaming runs was most of the GUI thread's work per frame with ten processes on one database
// (bench_team_store). Lives in RunStore's reader thread and is deleted there.
class ChangedRunsReader final : public QObject
{
public:
    explicit ChangedRunsReader(std::shared_ptr<const StoreEngine> engine);

    // On the reader's thread. `known`: copies of what the asker holds of the runs (their text,
    // whether it was loaded, their status); nullopt on a database error (the connection is made
    // again for the next read, as a server's may have dropped).
    std::optional<QHash<QString, Run>> read(const QStringList &ids, const QHash<QString, Run> &known);
    // On the reader's thread: the deadline fields of the rows of `ids` (RunStore::requestDeadlines).
    QHash<QString, StoredDeadline> readDeadlines(const QStringList &ids);

private:
    ThreadConnection m_connection;
};

} // namespace Runwatch::detail
