// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/run.h"

#include <QDateTime>

namespace RunwatchTest {

// A live run on FakeBackend's connection ("fake") as another process left it in the store:
// in progress, streamable, its text so far and the continuation at sequence 7.
inline Runwatch::Run liveFakeRun(const QString &localId)
{
    using namespace Qt::StringLiterals;
    Runwatch::Run run;
    run.localId = localId;
    run.connection = u"fake"_s;
    run.backend = u"fake"_s;
    run.remoteId = u"r-"_s + localId;
    run.createdAt = QDateTime::currentDateTimeUtc();
    run.updatedAt = run.createdAt;
    run.prompt = u"Write a long novel about otters"_s;
    run.token.remoteId = run.remoteId;
    run.token.sequence = 7;
    run.token.streamable = true;
    run.status = Runwatch::RunStatus::InProgress;
    run.rawStatus = Runwatch::statusName(run.status);
    run.primaryText = u"Once upon"_s;
    return run;
}

} // namespace RunwatchTest
