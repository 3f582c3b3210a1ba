// SPDX-License-Identifier: GPL-3.0-or-later
#include "runfilter.h"

#include "domain/enumnames.h"

#include "runformat.h"

#include <QCoreApplication>

#include <array>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// "needs_me", the filter bar's word for it, is read back as well.
constexpr std::array kCategoryNames{
    EnumName{StatusCategory::All, "all"_L1},
    EnumName{StatusCategory::Active, "active"_L1},
    EnumName{StatusCategory::NeedsInput, "needs_input"_L1},
    EnumName{StatusCategory::NeedsInput, "needs_me"_L1},
    EnumName{StatusCategory::Completed, "completed"_L1},
    EnumName{StatusCategory::Failed, "failed"_L1},
    EnumName{StatusCategory::Cancelled, "cancelled"_L1},
    EnumName{StatusCategory::Stuck, "stuck"_L1},
};
static_assert(kCategoryNames.size() == kStatusCategoryCount + 1); // every category, and the alias
} // namespace

StatusCategory categoryOf(RunStatus status)
{
    switch (status) {
    case RunStatus::Unknown:
    case RunStatus::Queued:
    case RunStatus::InProgress:
    case RunStatus::Cancelling:
        return StatusCategory::Active;
    case RunStatus::InputRequired:
        return StatusCategory::NeedsInput;
    case RunStatus::Completed:
        return StatusCategory::Completed;
    case RunStatus::Failed:
    case RunStatus::Incomplete:
    case RunStatus::Expired:
    case RunStatus::Rejected:
    case RunStatus::TimedOut:
        return StatusCategory::Failed;
    case RunStatus::Cancelled:
    case RunStatus::Deleted:
    case RunStatus::StoppedWatching:
        return StatusCategory::Cancelled;
    }
    return StatusCategory::Active;
}

bool waitsForPerson(const Run &run)
{
    if (run.status != RunStatus::InputRequired)
        return false;
    // Without details the run still waits on someone: better listed once too often than missed.
    if (!run.input)
        return true;
    return run.input->reason != InputReason::Timer && run.input->reason != InputReason::Webhook;
}

StatusCategory categoryOf(const Run &run)
{
    if (run.status == RunStatus::InputRequired && !waitsForPerson(run))
        return StatusCategory::Active;
    return categoryOf(run.status);
}

QString categoryLabel(StatusCategory category)
{
    switch (category) {
    case StatusCategory::All:
        return QCoreApplication::translate("RunFilter", "All");
    case StatusCategory::Active:
        return QCoreApplication::translate("RunFilter", "Active");
    case StatusCategory::NeedsInput:
        return QCoreApplication::translate("RunFilter", "Needs me");
    case StatusCategory::Completed:
        return QCoreApplication::translate("RunFilter", "Completed");
    case StatusCategory::Failed:
        return QCoreApplication::translate("RunFilter", "Failed");
    case StatusCategory::Cancelled:
        return QCoreApplication::translate("RunFilter", "Cancelled");
    case StatusCategory::Stuck:
        return QCoreApplication::translate("RunFilter", "Stuck");
    }
    return {};
}

QString categoryName(StatusCategory category)
{
    return nameOf(kCategoryNames, category);
}

StatusCategory categoryFromName(QStringView name)
{
    return fromName(kCategoryNames, name).value_or(StatusCategory::All);
}

void RunCounts::add(StatusCategory c, int delta)
{
    Q_ASSERT(c != StatusCategory::Stuck && c != StatusCategory::All);
    values.at(std::size_t(c)) += delta;
    values.at(std::size_t(StatusCategory::All)) += delta;
}

bool RunFilter::setCategory(StatusCategory category)
{
    if (category == m_category)
        return false;
    m_category = category;
    return true;
}

bool RunFilter::setText(const QString &text)
{
    const QString simplified = text.simplified();
    if (simplified == m_text)
        return false;
    m_text = simplified;
    return true;
}

bool RunFilter::setConnection(const QString &connection)
{
    if (connection == m_connection)
        return false;
    m_connection = connection;
    return true;
}

bool RunFilter::setSearchHits(std::optional<QHash<QString, QString>> hits)
{
    if (hits == m_hits)
        return false;
    m_hits = std::move(hits);
    return true;
}

QString RunFilter::snippet(const QString &localId) const
{
    return m_hits ? m_hits->value(localId) : QString();
}

bool RunFilter::isEmpty() const
{
    return m_category == StatusCategory::All && m_text.isEmpty() && m_connection.isEmpty();
}

bool RunFilter::matches(const Run &run) const
{
    if (m_category == StatusCategory::Stuck) {
        if (!m_isStuck || !m_isStuck(run.localId))
            return false;
    } else if (m_category != StatusCategory::All && categoryOf(run) != m_category) {
        return false;
    }
    if (!m_connection.isEmpty() && run.connection != m_connection)
        return false;
    if (m_text.isEmpty())
        return true;
    if (m_hits && m_hits->contains(run.localId))
        return true;
    return run.title.contains(m_text, Qt::CaseInsensitive)
           || run.localId.contains(m_text, Qt::CaseInsensitive)
           || run.remoteId.contains(m_text, Qt::CaseInsensitive)
           || run.connection.contains(m_text, Qt::CaseInsensitive);
}

int statusSortRank(RunStatus status)
{
    switch (status) {
    case RunStatus::InputRequired:
        return 0;
    case RunStatus::InProgress:
        return 1;
    case RunStatus::Cancelling:
        return 2;
    case RunStatus::Queued:
        return 3;
    case RunStatus::Unknown:
        return 4;
    case RunStatus::Failed:
        return 5;
    case RunStatus::TimedOut:
        return 6;
    case RunStatus::Expired:
        return 7;
    case RunStatus::Rejected:
        return 8;
    case RunStatus::Incomplete:
        return 9;
    case RunStatus::Cancelled:
    case RunStatus::StoppedWatching:
        return 10;
    case RunStatus::Completed:
        return 11;
    case RunStatus::Deleted:
        return 12;
    }
    return 13;
}

namespace {

template<typename T>
int cmp(const T &a, const T &b)
{
    return a < b ? -1 : (b < a ? 1 : 0);
}

int compareColumn(const Run &a, const Run &b, int column, const QDateTime &now)
{
    switch (column) {
    case StatusColumn: {
        // A reconnecting run sorts right after the healthy ones of its status.
        const int r = cmp(statusSortRank(a.status), statusSortRank(b.status));
        return r != 0 ? r : cmp(a.connectionLost, b.connectionLost);
    }
    case TitleColumn:
        return a.title.compare(b.title, Qt::CaseInsensitive);
    case ConnectionColumn:
        return a.connection.compare(b.connection, Qt::CaseInsensitive);
    case BackendColumn:
        return a.backend.compare(b.backend, Qt::CaseInsensitive);
    case ModelColumn:
        return a.model.compare(b.model, Qt::CaseInsensitive);
    case StartedColumn:
        return cmp(a.createdAt, b.createdAt);
    case DurationColumn:
        return cmp(runDurationMs(a, now), runDurationMs(b, now));
    case LastActivityColumn:
        return cmp(a.updatedAt, b.updatedAt);
    case InputTokensColumn: // not reported (-1) sorts below zero
        return cmp(a.usage.inputTokens, b.usage.inputTokens);
    case OutputTokensColumn:
        return cmp(a.usage.outputTokens, b.usage.outputTokens);
    default: // CostColumn needs the price table: RunFilterProxy::lessThan
        return 0;
    }
}

} // namespace

bool runLessThan(const Run &a, const Run &b, int column, const QDateTime &now)
{
    int r = compareColumn(a, b, column, now);
    if (r == 0 && column != StartedColumn)
        r = cmp(a.createdAt, b.createdAt);
    if (r == 0)
        r = a.localId.compare(b.localId);
    return r < 0;
}

} // namespace Runwatch
