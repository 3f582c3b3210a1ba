// SPDX-License-Identifier: GPL-3.0-or-later
// RunListModel, what its cells say: header, display text, tooltips, sort values and roles for one
// run. The row bookkeeping (inserts, removals, change signals, the ticker) is in runlistmodel.cpp.
#include "runlistmodel.h"

#include "domain/pricetable.h"
#include "domain/runprogress.h"
#include "engine/rundeadlines.h"
#include "engine/runmanager.h"
#include "engine/stuckruns.h"

#include <QCoreApplication>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// What a token or cost cell shows when there is nothing to show; its tooltip says why.
QString notReported()
{
    return u"—"_s;
}
} // namespace

QVariant RunListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= RunColumnCount)
        return {};
    if (role == Qt::DisplayRole || role == Qt::AccessibleTextRole)
        return runColumnTitle(section);
    return {};
}

QHash<int, QByteArray> RunListModel::roleNames() const
{
    QHash<int, QByteArray> names = QAbstractTableModel::roleNames();
    names.insert(IdRole, "runId");
    names.insert(RemoteIdRole, "remoteId");
    names.insert(StatusRole, "status");
    names.insert(RawStatusRole, "rawStatus");
    names.insert(ConnectionLostRole, "connectionLost");
    names.insert(CategoryRole, "category");
    names.insert(TitleRole, "title");
    names.insert(ConnectionRole, "connection");
    names.insert(BackendRole, "backend");
    names.insert(ModelRole, "model");
    names.insert(CreatedAtRole, "createdAt");
    names.insert(UpdatedAtRole, "updatedAt");
    names.insert(FinishedAtRole, "finishedAt");
    names.insert(DurationMsRole, "durationMs");
    names.insert(CapabilitiesRole, "capabilities");
    names.insert(InputReasonRole, "inputReason");
    names.insert(ErrorRole, "error");
    names.insert(ErrorRetryableRole, "errorRetryable");
    names.insert(SortValueRole, "sortValue");
    names.insert(ParentIdRole, "parentId");
    names.insert(StuckRole, "stuck");
    names.insert(OverDeadlineRole, "overDeadline");
    names.insert(DeadlineRole, "deadline");
    return names;
}

QVariant RunListModel::displayValue(const Run &run, int column, const QDateTime &now) const
{
    switch (column) {
    case StatusColumn:
        return statusText(run);
    case TitleColumn: {
        // Linked rows (docs/architecture.md, "Conversations"): a follow-up is marked as one.
        const QString title = run.title.isEmpty() ? Run::summarize(run.prompt) : run.title;
        return run.parentId.isEmpty() ? title : u"↳ "_s + title;
    }
    case ConnectionColumn:
        return run.connection;
    case BackendColumn:
        return run.backend;
    case ModelColumn:
        return run.model;
    case StartedColumn:
        return formatTimestamp(run.createdAt, now);
    case DurationColumn:
        return run.createdAt.isValid() ? formatDuration(runDurationMs(run, now)) : QString();
    case LastActivityColumn:
        return formatTimestamp(run.updatedAt, now);
    case InputTokensColumn:
        return run.usage.inputTokens >= 0 ? formatTokens(run.usage.inputTokens) : notReported();
    case OutputTokensColumn:
        return run.usage.outputTokens >= 0 ? formatTokens(run.usage.outputTokens) : notReported();
    case CostColumn: {
        const PriceTable &prices = m_manager->prices()->table();
        const auto cost = costOf(run, prices);
        return cost ? formatCost(*cost, prices.currency) : notReported();
    }
    default:
        return {};
    }
}

QString RunListModel::usageToolTip(const Run &run, int column) const
{
    const TokenUsage &u = run.usage;
    switch (column) {
    case InputTokensColumn:
        return u.inputTokens >= 0 ? tr("%1 input tokens").arg(formatTokens(u.inputTokens))
                                  : tr("The service reported no input tokens for this run");
    case OutputTokensColumn: {
        if (u.outputTokens < 0)
            return tr("The service reported no output tokens for this run");
        QString tip = tr("%1 output tokens").arg(formatTokens(u.outputTokens));
        // Reasoning is part of the output count (and billed with it): shown with it, not beside it.
        if (u.reasoningTokens >= 0)
            tip += u"\n"_s + tr("%1 of them reasoning tokens").arg(formatTokens(u.reasoningTokens));
        return tip;
    }
    case CostColumn: {
        const PriceTable &prices = m_manager->prices()->table();
        if (u.inputTokens < 0 && u.outputTokens < 0)
            return tr("No cost: the service reported no token usage for this run");
        if (!prices.priceFor(run.model)) {
            return run.model.isEmpty() ? tr("No cost: the run names no model")
                                       : tr("No price set for model %1 — Settings › Prices…").arg(run.model);
        }
        const auto cost = costOf(run, prices);
        return cost ? tr("%1 at the price set for %2 (input and output tokens)")
                          .arg(formatCost(*cost, prices.currency), prices.priceFor(run.model)->model)
                    : QString();
    }
    default:
        return {};
    }
}

QVariant RunListModel::sortValue(const Run &run, int column, const QDateTime &now) const
{
    switch (column) {
    case StatusColumn:
        return statusSortRank(run.status);
    case TitleColumn:
        return run.title;
    case ConnectionColumn:
        return run.connection;
    case BackendColumn:
        return run.backend;
    case ModelColumn:
        return run.model;
    case StartedColumn:
        return run.createdAt;
    case DurationColumn:
        return runDurationMs(run, now);
    case LastActivityColumn:
        return run.updatedAt;
    // Not reported sorts below zero.
    case InputTokensColumn:
        return run.usage.inputTokens;
    case OutputTokensColumn:
        return run.usage.outputTokens;
    case CostColumn:
        return costOf(run, m_manager->prices()->table()).value_or(-1.0);
    default:
        return {};
    }
}

namespace {
// The status tooltip's line for a run that reports progress: "42% · about 3 m left".
QString progressLine(const Run &run)
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const auto p = runProgress(run, now);
    if (!p)
        return {};
    QString line
        = u"\n"_s + QCoreApplication::translate("RunList", "%1% done").arg(qRound(p->fraction * 100));
    if (const QString eta = formatEta(p->eta, now); !eta.isEmpty())
        line += u" · "_s + eta;
    return line;
}
} // namespace

QString RunListModel::statusText(const Run &run) const
{
    QString text = badgeText(run);
    // Reconnecting and "needs input" say more about what to do next than the flags below.
    if (run.isTerminal() || run.connectionLost || run.status == RunStatus::InputRequired)
        return text;
    if (m_stuck && m_stuck->isStuck(run.localId))
        return tr("Stuck");
    if (m_deadlines && m_deadlines->isOverDeadline(run.localId))
        return tr("Over deadline");
    return text;
}

QString RunListModel::statusTip(const Run &run) const
{
    QString tip = statusToolTip(run) + progressLine(run);
    const QDateTime now = QDateTime::currentDateTimeUtc();
    if (m_stuck && m_stuck->isStuck(run.localId)) {
        tip += u"\n"_s + tr("Stuck: no progress since %1").arg(formatTimestamp(run.updatedAt, now));
        if (const auto expected = m_stuck->expectedDurationMs(run.localId))
            tip += u"\n"_s + tr("Expected to take about %1").arg(formatDuration(*expected));
    }
    if (const QString deadline = deadlineText(run, now); !deadline.isEmpty())
        tip += u"\n"_s + deadline;
    return tip;
}

const Run *RunListModel::runOfCell(const QModelIndex &index) const
{
    return checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)
               ? runAt(index.row())
               : nullptr;
}

QVariant RunListModel::data(const QModelIndex &index, int role) const
{
    const Run *run = runOfCell(index);
    return run ? cellData(*run, index.column(), role) : QVariant();
}

void RunListModel::multiData(const QModelIndex &index, QModelRoleDataSpan roleDataSpan) const
{
    // A delegate asks for seven roles a cell (QStyledItemDelegate::initStyleOption): the row's
    // run is looked up once, not once per role.
    const Run *run = runOfCell(index);
    for (QModelRoleData &roleData : roleDataSpan)
        roleData.setData(run ? cellData(*run, index.column(), roleData.role()) : QVariant());
}

QVariant RunListModel::cellData(const Run &run, int column, int role) const
{
    switch (role) {
    case Qt::DisplayRole:
        return displayValue(run, column, QDateTime::currentDateTimeUtc());
    case Qt::ToolTipRole:
        if (column == StatusColumn)
            return statusTip(run);
        if (column == TitleColumn) {
            QString tip = run.title + u"\n\n"_s + tr("Run %1").arg(run.localId);
            if (!run.remoteId.isEmpty())
                tip += u"\n"_s + tr("Server id %1").arg(run.remoteId);
            if (!run.parentId.isEmpty()) {
                const Run *parent = m_manager ? m_manager->run(run.parentId) : nullptr;
                tip += u"\n"_s
                       + (parent ? tr("Follow-up to “%1” (run %2)").arg(parent->title, run.parentId)
                                 : tr("Follow-up to run %1").arg(run.parentId));
            }
            return tip;
        }
        if (column == InputTokensColumn || column == OutputTokensColumn || column == CostColumn)
            return usageToolTip(run, column);
        return displayValue(run, column, QDateTime::currentDateTimeUtc());
    case Qt::AccessibleTextRole:
        if (column == StatusColumn)
            return statusTip(run).replace(u'\n', u"; "_s);
        return displayValue(run, column, QDateTime::currentDateTimeUtc());
    case Qt::AccessibleDescriptionRole:
        // The badge is painted (icon, colour, text): say what it is.
        return column == StatusColumn ? tr("Status badge") : runColumnTitle(column);
    case Qt::TextAlignmentRole:
        if (column == DurationColumn || column == InputTokensColumn || column == OutputTokensColumn
            || column == CostColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter);
    case IdRole:
        return run.localId;
    case ParentIdRole:
        return run.parentId;
    case RemoteIdRole:
        return run.remoteId;
    case StatusRole:
        return int(run.status);
    case RawStatusRole:
        return run.rawStatus;
    case ConnectionLostRole:
        return run.connectionLost && !run.isTerminal();
    case CategoryRole:
        return int(categoryOf(run));
    case TitleRole:
        return run.title;
    case ConnectionRole:
        return run.connection;
    case BackendRole:
        return run.backend;
    case ModelRole:
        return run.model;
    case CreatedAtRole:
        return run.createdAt;
    case UpdatedAtRole:
        return run.updatedAt;
    case FinishedAtRole:
        return run.finishedAt;
    case DurationMsRole:
        return runDurationMs(run, QDateTime::currentDateTimeUtc());
    case CapabilitiesRole:
        return int(run.capabilities.toInt());
    case InputReasonRole:
        return run.status == RunStatus::InputRequired && run.input ? int(run.input->reason) : -1;
    case ErrorRole:
        return run.error.isError() ? run.error.toString() : QString();
    case ErrorRetryableRole:
        return run.error.isError() && run.error.retryable;
    case ProgressRole:
        if (const auto p = runProgress(run, QDateTime::currentDateTimeUtc()))
            return p->fraction;
        return {};
    case EtaRole:
        if (const auto p = runProgress(run, QDateTime::currentDateTimeUtc()))
            return p->eta;
        return {};
    case SortValueRole:
        return sortValue(run, column, QDateTime::currentDateTimeUtc());
    case StuckRole:
        return m_stuck && m_stuck->isStuck(run.localId);
    case OverDeadlineRole:
        return m_deadlines && m_deadlines->isOverDeadline(run.localId);
    case DeadlineRole:
        return run.deadlineAt;
    default:
        return {};
    }
}

} // namespace Runwatch
