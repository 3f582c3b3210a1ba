// SPDX-License-Identifier: GPL-3.0-or-later
#include "runstatus.h"

#include "enumnames.h"

#include <QCoreApplication>

#include <array>
#include <utility>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// The enumnames.h table, with the status's translatable label as a third column.
struct StatusNames
{
    RunStatus value;
    QLatin1StringView name;
    const char *label;
};

constexpr std::array kNames{
    StatusNames{RunStatus::Unknown, "unknown"_L1, QT_TRANSLATE_NOOP("RunStatus", "Unknown")},
    StatusNames{RunStatus::Queued, "queued"_L1, QT_TRANSLATE_NOOP("RunStatus", "Queued")},
    StatusNames{RunStatus::InProgress, "in_progress"_L1, QT_TRANSLATE_NOOP("RunStatus", "In progress")},
    StatusNames{RunStatus::Cancelling, "cancelling"_L1, QT_TRANSLATE_NOOP("RunStatus", "Cancelling")},
    StatusNames{RunStatus::InputRequired, "input_required"_L1, QT_TRANSLATE_NOOP("RunStatus", "Needs input")},
    StatusNames{RunStatus::Completed, "completed"_L1, QT_TRANSLATE_NOOP("RunStatus", "Completed")},
    StatusNames{RunStatus::Failed, "failed"_L1, QT_TRANSLATE_NOOP("RunStatus", "Failed")},
    StatusNames{RunStatus::Cancelled, "cancelled"_L1, QT_TRANSLATE_NOOP("RunStatus", "Cancelled")},
    StatusNames{RunStatus::Incomplete, "incomplete"_L1, QT_TRANSLATE_NOOP("RunStatus", "Incomplete")},
    StatusNames{RunStatus::Expired, "expired"_L1, QT_TRANSLATE_NOOP("RunStatus", "Expired")},
    StatusNames{RunStatus::Rejected, "rejected"_L1, QT_TRANSLATE_NOOP("RunStatus", "Rejected")},
    StatusNames{RunStatus::TimedOut, "timed_out"_L1, QT_TRANSLATE_NOOP("RunStatus", "Timed out")},
    StatusNames{RunStatus::Deleted, "deleted"_L1, QT_TRANSLATE_NOOP("RunStatus", "Deleted")},
    StatusNames{RunStatus::StoppedWatching, "stopped_watching"_L1,
                QT_TRANSLATE_NOOP("RunStatus", "Stopped watching")},
};
} // namespace

bool isTerminal(RunStatus status)
{
    switch (status) {
    case RunStatus::Completed:
    case RunStatus::Failed:
    case RunStatus::Cancelled:
    case RunStatus::Incomplete:
    case RunStatus::Expired:
    case RunStatus::Rejected:
    case RunStatus::TimedOut:
    case RunStatus::Deleted:
    case RunStatus::StoppedWatching:
        return true;
    case RunStatus::Unknown:
    case RunStatus::Queued:
    case RunStatus::InProgress:
    case RunStatus::Cancelling:
    case RunStatus::InputRequired:
        return false;
    }
    return false;
}

bool isFailureLike(RunStatus status)
{
    switch (status) {
    case RunStatus::Failed:
    case RunStatus::Expired:
    case RunStatus::Rejected:
    case RunStatus::TimedOut:
    case RunStatus::Incomplete:
        return true;
    default:
        return false;
    }
}

QString statusName(RunStatus status)
{
    return nameOf(kNames, status, "unknown"_L1);
}

RunStatus statusFromName(QStringView name)
{
    return fromName(kNames, name).value_or(RunStatus::Unknown);
}

QString statusLabel(RunStatus status)
{
    for (const auto &entry : kNames) {
        if (entry.value == status)
            return QCoreApplication::translate("RunStatus", entry.label);
    }
    return QCoreApplication::translate("RunStatus", "Unknown");
}

} // namespace Runwatch
