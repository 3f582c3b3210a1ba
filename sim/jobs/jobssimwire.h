// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The Alternate shape of the jobs simulator (JobsShape): every path, field and status string
// renamed, for tests of client connection profiles. Jobs are built in the Standard (contract)
// shape and reshaped here on the way out.

#include "jobssimconfig.h"

#include <QJsonObject>
#include <QString>

namespace RunwatchSim {

// Standard → Alternate shape of a job object (and of {"job_id","result"} result bodies):
// {"task":{"uid","state","percent","output":{"text"},"problem","pending","idem","meta",…},
//  "links":{"self","stream","output"}}. Standard: unchanged.
QJsonObject shapeJobObject(const QJsonObject &standard, JobsShape shape);
// A contract status in the given shape ("succeeded" → "DONE" for Alternate).
QString shapeStatus(const QString &status, JobsShape shape);

} // namespace RunwatchSim
