// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/run.h"
#include "store/storeengine.h"

#include <QHash>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QString>

#include <memory>

namespace Runwatch::detail {

// Text forms shared by the store's reader and writer.
QString isoText(const QDateTime &dt);
QString compactJsonText(const QJsonObject &o);
// "?,?,?": the placeholders of an SQL list of n values.
QString placeholders(qsizetype n);

// How one run goes to disk: only what changed since the run's baseline (Run::stored), so that two
// processes on one store never undo each other. A command that sets a deadline writes the
// deadline; a stream's batch writes the status, token and usage it moved and appends the new
// piece of the answer and the items that changed; neither brings back a row another process
// deleted. Statements are prepared once per database connection and kept: re-preparing them per
// run was a tenth of the store's time with 200 streaming runs (bench_gui_live).
// One run as a batch hands it to the writer thread: the state to write, the baseline it is
// compared with and whether the store had the run, as they were when it was handed over. The
// state is shared, not copied again: the same object is the live run's next baseline
// (Run::stored), so a batch of a thousand live runs copies each once.
struct RunWrite
{
    std::shared_ptr<const Run> run; // without a baseline of its own (baselineOf)
    std::shared_ptr<const Run> baseline;
    bool inStore = false;

    // The run while this write is on its way, as loadRun() and listings give it: the state with
    // the baseline and the store membership it was handed over with.
    Run toRun() const;
};

class RunWriteStatements
{
public:
    enum class Outcome {
        Written,
        Gone, // the run was in the store and is no longer: another process deleted it
        Failed,
    };

    // False with `error` set when the schema does not fit. `engine` spells the upserts.
    bool prepare(const QSqlDatabase &db, std::shared_ptr<const StoreEngine> engine, QString *error);
    // In one transaction — the caller's when `inTransaction` (the writer's batch), else its own:
    // the output and the token (its position) go to disk together, or neither does.
    //  - a run new to the store (!inStore) is inserted whole;
    //  - a run with a `baseline` writes the columns that differ from it, appends its text past
    //    the stored end and writes the items that differ;
    //  - a run from the store without a baseline (a finished run listed as a summary) writes what
    //    a summary may change, and its whole output if that was loaded.
    // `run`'s own Run::stored and Run::inStore are not looked at: a snapshot handed to the writer
    // carries them beside it (RunWrite).
    Outcome write(const Run &run, const Run *baseline, bool inStore, QString *error, bool inTransaction);

private:
    QSqlQuery *statement(const QString &sql);
    bool exec(QSqlQuery *q, QString *error);
    bool insertRun(const Run &run, bool *inserted, QString *error);
    // UPDATE of the columns in `mask` (bits of the column table in runwrites.cpp); false on an error,
    // *found false when no row has the run's id.
    bool updateColumns(const Run &run, quint32 mask, bool *found, QString *error);
    bool rowExists(const QString &localId, bool *found, QString *error);
    bool writeText(const Run &run, const Run *baseline, QString *error);
    bool replaceText(const QString &localId, QStringView text, QString *error);
    bool appendText(const QString &localId, qsizetype pos, QStringView piece, QString *error);
    bool writeItems(const Run &run, const Run *baseline, QString *error);
    bool writeItem(const QString &localId, qsizetype index, const SecondaryItem &item, QString *error);

    QSqlDatabase m_db;
    std::shared_ptr<const StoreEngine> m_engine;
    QString m_upsertText; // run_text's piece
    QString m_upsertItem; // run_items' item
    // Every statement this connection has run, by its text: the UPDATE of a stream's batch names
    // the same few columns each time, so a handful are ever prepared.
    QHash<QString, std::shared_ptr<QSqlQuery>> m_statements;
    QString m_prepareError;
};

} // namespace Runwatch::detail
