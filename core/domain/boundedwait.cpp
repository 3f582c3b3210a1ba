// SPDX-License-Identifier: GPL-3.0-or-later
#include "domain/boundedwait.h"

#include <QRandomGenerator>

#include <algorithm>

namespace Runwatch {

std::chrono::milliseconds boundedWait(qint64 ms)
{
    return std::chrono::milliseconds(std::clamp<qint64>(ms, 0, kMaxTimerWait.count()));
}

std::chrono::milliseconds boundedWait(std::chrono::milliseconds wait)
{
    return boundedWait(qint64(wait.count()));
}

std::chrono::milliseconds fullJitter(std::chrono::milliseconds ceiling)
{
    const qint64 top = boundedWait(ceiling).count();
    return std::chrono::milliseconds(qint64(QRandomGenerator::global()->bounded(double(top) + 1.0)));
}

} // namespace Runwatch
