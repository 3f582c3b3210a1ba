// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "engine/runexport.h"

#include <QObject>
#include <QPointer>

#include <functional>
#include <optional>

class QAction;
class QWidget;

namespace Runwatch {

class RunManager;
class RunTableView;

// Export of the selected run to a file, and the actions and questions of retention: "Keep
// finished runs for N days" (applied at startup by AppController) and "Remove finished runs older
// than…". The rule and the setting are core's (engine/retention.h), shared with `runwatch-cli
// prune`. Kept out of MainWindow so the window stays a layout; the dialogs go through Prompts so
// that tests answer them without a modal event loop.
class RunHousekeeping final : public QObject
{
    Q_OBJECT
public:
    // Every question the actions ask. The defaults are modal Qt dialogs on the window; tests
    // replace them. An empty path / nullopt / false means the operator backed out.
    struct Prompts
    {
        // `suggested` is a file name from the run title; `format` is preset and may be changed.
        std::function<QString(const QString &suggested, ExportFormat *format)> exportPath;
        std::function<std::optional<int>(const QString &title, const QString &label, int value)> days;
        std::function<bool(const QString &title, const QString &text)> confirm;
        std::function<void(const QString &title, const QString &text)> error;
    };

    RunHousekeeping(RunManager *manager, RunTableView *table, QWidget *window);

    QAction *exportAction() const { return m_export; }
    QAction *removeOldAction() const { return m_removeOld; }
    QAction *retentionAction() const { return m_retention; }

    void setPrompts(Prompts prompts);
    void updateActions();

    // Writes the run, loaded in full, to `path`. False with *error on failure.
    bool exportTo(const QString &runId, const QString &path, ExportFormat format, QString *error = nullptr);

Q_SIGNALS:
    void message(const QString &text, int timeoutMs);

private:
    void exportSelected();
    void removeOld();
    void editRetention();
    QString selectedRunId() const;

    QPointer<RunManager> m_manager;
    RunTableView *m_table;
    QWidget *m_window;
    QAction *m_export;
    QAction *m_removeOld;
    QAction *m_retention;
    Prompts m_prompts;
};

} // namespace Runwatch
