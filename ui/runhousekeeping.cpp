// SPDX-License-Identifier: GPL-3.0-or-later
#include "runhousekeeping.h"

#include "engine/retention.h"
#include "engine/runmanager.h"
#include "runtableview.h"
#include "store/runstore.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QMessageBox>
#include <QSaveFile>
#include <QStandardPaths>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// A file name from the run title: letters, digits, spaces, dashes and underscores only, so that
// no title can point the dialog at another directory or produce a name the file system refuses.
QString fileNameFor(const Run &run)
{
    QString base;
    for (const QChar c : run.title.left(60)) {
        const bool keep = c.isLetterOrNumber() || c == u' ' || c == u'-' || c == u'_';
        base.append(keep ? c : u'-');
    }
    base = base.simplified();
    if (base.isEmpty())
        base = u"run-"_s + run.localId;
    return base;
}
} // namespace

RunHousekeeping::RunHousekeeping(RunManager *manager, RunTableView *table, QWidget *window)
    : QObject(window)
    , m_manager(manager)
    , m_table(table)
    , m_window(window)
{
    m_export = new QAction(tr("&Export…"), this);
    m_export->setObjectName(u"actionExport"_s);
    m_export->setShortcut(QKeySequence(u"Ctrl+E"_s));
    m_export->setShortcutContext(Qt::WindowShortcut);
    m_export->setToolTip(tr("Save the selected run as Markdown or JSON (Ctrl+E)"));
    m_export->setStatusTip(tr("Save the selected run as Markdown or JSON"));
    m_removeOld = new QAction(tr("Remove Finished Runs &Older Than…"), this);
    m_removeOld->setObjectName(u"actionRemoveOld"_s);
    m_removeOld->setShortcut(QKeySequence(u"Ctrl+Shift+Del"_s));
    m_removeOld->setStatusTip(tr("Delete finished runs older than a number of days from this computer"));
    m_retention = new QAction(tr("&Keep Finished Runs…"), this);
    m_retention->setObjectName(u"actionRetention"_s);
    m_retention->setShortcut(QKeySequence(u"Ctrl+Shift+K"_s));
    m_retention->setStatusTip(tr("How many days finished runs are kept; older ones are removed at startup"));
    connect(m_export, &QAction::triggered, this, &RunHousekeeping::exportSelected);
    connect(m_removeOld, &QAction::triggered, this, &RunHousekeeping::removeOld);
    connect(m_retention, &QAction::triggered, this, &RunHousekeeping::editRetention);

    // Modal dialogs by default: each question needs its answer before anything else happens.
    m_prompts.exportPath = [this](const QString &suggested, ExportFormat *format) {
        const QString md = tr("Markdown (*.md)");
        const QString json = tr("JSON (*.json)");
        QString filter = *format == ExportFormat::Json ? json : md;
        QString path = QFileDialog::getSaveFileName(m_window, tr("Export Run"), suggested,
                                                    md + u";;"_s + json, &filter);
        *format = filter == json ? ExportFormat::Json : ExportFormat::Markdown;
        return path;
    };
    m_prompts.days = [this](const QString &title, const QString &label, int value) -> std::optional<int> {
        bool ok = false;
        const int days = QInputDialog::getInt(m_window, title, label, value, 0, Retention::MaxDays, 1, &ok);
        return ok ? std::optional<int>(days) : std::nullopt;
    };
    m_prompts.confirm = [this](const QString &title, const QString &text) {
        return QMessageBox::question(m_window, title, text, QMessageBox::Yes | QMessageBox::No,
                                     QMessageBox::No)
               == QMessageBox::Yes;
    };
    m_prompts.error
        = [this](const QString &title, const QString &text) { QMessageBox::warning(m_window, title, text); };
    updateActions();
}

void RunHousekeeping::setPrompts(Prompts prompts)
{
    // Keep the defaults for the questions a caller leaves unset.
    if (prompts.exportPath)
        m_prompts.exportPath = std::move(prompts.exportPath);
    if (prompts.days)
        m_prompts.days = std::move(prompts.days);
    if (prompts.confirm)
        m_prompts.confirm = std::move(prompts.confirm);
    if (prompts.error)
        m_prompts.error = std::move(prompts.error);
}

QString RunHousekeeping::selectedRunId() const
{
    const QStringList ids = m_table->selectedRunIds();
    return ids.size() == 1 && m_manager && m_manager->run(ids.first()) ? ids.first() : QString();
}

void RunHousekeeping::updateActions()
{
    m_export->setEnabled(!selectedRunId().isEmpty());
    m_removeOld->setEnabled(m_manager != nullptr);
}

bool RunHousekeeping::exportTo(const QString &runId, const QString &path, ExportFormat format, QString *error)
{
    // Finished runs are listed as summaries: without this the file would lack prompt and output.
    if (!m_manager || !m_manager->ensureOutputLoaded(runId) || !m_manager->run(runId)) {
        if (error)
            *error = tr("The run's output could not be read from the run store.");
        return false;
    }
    // The document holds the whole conversation: earlier and later turns with their output.
    const auto lookup = [this](const QString &id) {
        const Run *turn = m_manager->ensureOutputLoaded(id) ? m_manager->run(id) : nullptr;
        return turn ? std::optional<Run>(*turn) : std::nullopt;
    };
    const QList<Run> earlier = conversationBefore(*m_manager->run(runId), lookup);
    const QList<Run> later = conversationAfter(
        *m_manager->run(runId), m_manager->runIds(),
        [this](const QString &id) {
            const Run *r = m_manager->run(id);
            return r ? r->parentId : QString();
        },
        lookup);
    const QByteArray data = exportRun(
        *m_manager->run(runId), format, m_manager->prices()->table(), earlier, later,
        m_manager->store() ? m_manager->store()->journal(runId) : QList<RunStore::JournalEntry>{});
    // QSaveFile: a failed write never leaves a truncated file in place of an older export.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(data) != data.size() || !file.commit()) {
        if (error)
            *error = file.errorString();
        return false;
    }
    return true;
}

void RunHousekeeping::exportSelected()
{
    const QString id = selectedRunId();
    if (id.isEmpty())
        return;
    QPointer<RunHousekeeping> self = this;
    ExportFormat format = ExportFormat::Markdown;
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    const QString suggested = QDir(dir).filePath(fileNameFor(*m_manager->run(id)) + u".md"_s);
    QString path = m_prompts.exportPath(suggested, &format);
    if (!self || path.isEmpty() || !m_manager || !m_manager->run(id))
        return; // backed out, or the window or the run went while the dialog was open
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == u"json") {
        format = ExportFormat::Json;
    } else if (suffix == u"md" || suffix == u"markdown") {
        format = ExportFormat::Markdown;
    } else if (suffix.isEmpty()) {
        path += format == ExportFormat::Json ? u".json"_s : u".md"_s;
    }
    QString why;
    if (!exportTo(id, path, format, &why)) {
        m_prompts.error(
            tr("Export Failed"),
            tr("The run could not be exported to %1:\n%2").arg(QDir::toNativeSeparators(path), why));
        return;
    }
    Q_EMIT message(tr("Exported to %1").arg(QDir::toNativeSeparators(path)), 5000);
}

void RunHousekeeping::removeOld()
{
    if (!m_manager)
        return;
    QPointer<RunHousekeeping> self = this;
    const int keep = Retention::keepDays();
    const std::optional<int> days
        = m_prompts.days(tr("Remove Finished Runs"), tr("Remove finished runs older than this many days:"),
                         keep > 0 ? keep : 30);
    if (!self || !days || !m_manager)
        return;
    const QDateTime cutoff = Retention::cutoffFor(*days);
    const int count = int(Retention::finishedBefore(m_manager, cutoff).size());
    if (count == 0) {
        Q_EMIT message(tr("No finished run is older than %n day(s).", nullptr, *days), 5000);
        return;
    }
    const bool yes = m_prompts.confirm(tr("Remove Finished Runs"),
                                       tr("Remove %n finished run(s) older than %1 day(s)? They are deleted "
                                          "from this computer only; servers keep their copies.",
                                          nullptr, count)
                                           .arg(*days));
    if (!self || !yes || !m_manager)
        return;
    // The cutoff as of the question, so runs that finish meanwhile are not swept up. Runs another
    // process (the CLI) stored since startup match the same rule and go too; the message counts them.
    const int removed = Retention::removeFinishedBefore(m_manager, m_manager->store(), cutoff);
    Q_EMIT message(tr("Removed %n finished run(s).", nullptr, removed), 5000);
}

void RunHousekeeping::editRetention()
{
    QPointer<RunHousekeeping> self = this;
    const std::optional<int> days
        = m_prompts.days(tr("Keep Finished Runs"),
                         tr("Keep finished runs for this many days (0 = forever).\nOlder ones are removed "
                            "when Runwatch starts."),
                         Retention::keepDays());
    if (!self || !days)
        return;
    Retention::setKeepDays(*days);
    Q_EMIT message(*days == 0 ? tr("Finished runs are kept forever.")
                              : tr("Finished runs are kept for %n day(s).", nullptr, *days),
                   5000);
}

} // namespace Runwatch
