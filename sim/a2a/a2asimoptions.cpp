// SPDX-License-Identifier: GPL-3.0-or-later
#include "a2asimoptions.h"

#include "server/simnames.h"

#include <QStringList>

using namespace Qt::StringLiterals;

namespace RunwatchSim {

namespace {

const std::array kScenarios{
    std::pair{A2aScenario::Normal, "normal"_L1}, std::pair{A2aScenario::Long, "long"_L1},
    std::pair{A2aScenario::Fail, "fail"_L1},     std::pair{A2aScenario::Reject, "reject"_L1},
    std::pair{A2aScenario::Input, "input"_L1},   std::pair{A2aScenario::Auth, "auth"_L1},
    std::pair{A2aScenario::Error, "error"_L1},   std::pair{A2aScenario::Message, "message"_L1},
    std::pair{A2aScenario::Multi, "multi"_L1},   std::pair{A2aScenario::Replace, "replace"_L1},
    std::pair{A2aScenario::Listen, "listen"_L1}, std::pair{A2aScenario::Recall, "recall"_L1},
};

} // namespace

A2aRunOptions resolveRunOptions(const A2aSimConfig &config, const QString &text)
{
    A2aRunOptions o;
    o.chunks = config.chunks;
    o.intervalMs = config.intervalMs;
    o.faults = config.streamFaults;
    const QStringList words = text.simplified().split(u' ', Qt::SkipEmptyParts);
    QString first = words.value(0).toLower();
    while (!first.isEmpty() && (first.endsWith(u':') || first.endsWith(u',') || first.endsWith(u'.')))
        first.chop(1);
    if (const auto s = valueOfName(kScenarios, first))
        o.scenario = *s;
    if (o.scenario == A2aScenario::Long)
        o.chunks = config.longChunks;
    for (const QString &w : words) {
        const qsizetype eq = w.indexOf(u'=');
        if (eq <= 0)
            continue;
        const QString key = w.left(eq).toLower();
        const QString value = w.mid(eq + 1);
        bool ok = false;
        const int n = value.toInt(&ok);
        if (key == u"chunks" && ok && n >= 0) {
            o.chunks = n;
        } else if (key == u"interval_ms" && ok && n >= 0) {
            o.intervalMs = n;
        } else if (key == u"fail_after" && ok && n >= 0) {
            o.failAfter = n;
        } else if (key == u"status_every" && ok && n >= 0) {
            o.statusEvery = n;
        } else if (key == u"drop_after" && ok) {
            o.faults.dropAfterEvents = n;
        } else if (key == u"fault_connections" && ok) {
            o.faults.connections = n;
        } else if (key == u"drop_mode") {
            if (const auto m = dropModeFromName(value))
                o.faults.dropMode = *m;
        } else if (key == u"cancel") {
            o.cancel = value.toLower();
        } else if (key == u"cancel_delay_ms" && ok && n >= 0) {
            o.cancelDelayMs = n;
        }
    }
    if (o.failAfter < 0)
        o.failAfter = o.chunks / 2;
    return o;
}

QString a2aOptionsHelpText()
{
    return u"A2A mode (--a2a): the first word of the user's text picks the scenario: normal, long, fail, "
           u"reject, input, auth, error, message, multi, replace, listen (a working task takes further "
           u"messages), recall (names the earlier turns of its context). key=value words set chunks, "
           u"interval_ms, fail_after, status_every, drop_after, drop_mode (close|reset|mid), "
           u"fault_connections, cancel (refuse|slow), cancel_delay_ms.\n"_s;
}

} // namespace RunwatchSim
