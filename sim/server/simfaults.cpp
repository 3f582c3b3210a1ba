// SPDX-License-Identifier: GPL-3.0-or-later
#include "simfaults.h"

#include "simnames.h"

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

const std::array kDropModes{
    std::pair{DropMode::Close, "close"_L1},
    std::pair{DropMode::Reset, "reset"_L1},
    std::pair{DropMode::MidEvent, "mid"_L1},
};

} // namespace

QString dropModeName(DropMode mode)
{
    return nameOfValue(kDropModes, mode);
}

std::optional<DropMode> dropModeFromName(QStringView name)
{
    return valueOfName(kDropModes, name);
}

} // namespace RunwatchSim
