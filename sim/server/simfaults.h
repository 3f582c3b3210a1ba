// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Fault injection the simulators share: how an event stream is cut, which of a run's stream
// connections the stream faults hit, and injected HTTP answers counted per fault. What a fault
// answers with (status, headers, body) is each protocol's own.

#include <QList>
#include <QString>
#include <QStringView>

#include <optional>

namespace RunwatchSim {

enum class DropMode {
    Close,    // flush what was written, then FIN: the client sees a clean EOF without terminal event
    Reset,    // RST (SO_LINGER 0): bytes still in flight may be lost, as on a real reset
    MidEvent, // write the first half of the next event, then FIN
};

// "close", "reset", "mid".
QString dropModeName(DropMode mode);
std::optional<DropMode> dropModeFromName(QStringView name);

// Faults applied to a run's SSE connections. Event numbers are the protocol's own (OpenAI sequence
// numbers, jobs event ids); counts are per connection (each connection counts from its own start).
// Not every simulator applies every field: each one's options say which.
struct StreamFaults
{
    int connections = -1;     // only the first N stream connections of each run; -1 = all
    int dropAfterEvents = -1; // drop the connection after writing this many events; -1 = off
    DropMode dropMode = DropMode::Close;
    qint64 malformedAt = -1;   // the event with this number is sent with truncated JSON
    qint64 invalidUtf8At = -1; // the event with this number gets bytes C3 28 in its delta
    qint64 endlessLineAt = -1; // at this event, a `data:` line starts that never ends
    int dripIntervalMs = 0;    // > 0: the body goes out one byte per interval

    // Whether the faults hit a run's `number`th stream connection (1 = the first).
    bool hitConnection(int number) const { return connections < 0 || number <= connections; }
};

// Counts one more injection of a fault allowed `count` times (-1: without end). False, and nothing
// counted, once `served` has reached it.
inline bool takeFault(int count, int *served)
{
    if (count >= 0 && *served >= count)
        return false;
    ++*served;
    return true;
}

// An injected HTTP answer's spec, "status=503,count=2,on=a+b,retry-after=1|none,body=html|PLAIN",
// every key optional (the fault's defaults stay for the others): how the Foundry and LangGraph
// simulators read theirs. `Fault` has `endpoints` (a QSet), `count`, `status`, `retryAfterSeconds`
// and `htmlBody`; `fromName` reads an endpoint's name; `plainBody` names the protocol's own error
// body. nullopt, and why in *error, when the spec is not one.
template<typename Fault, typename FromName>
std::optional<Fault> httpFaultFromSpec(QStringView spec, Fault fault, FromName fromName,
                                       QStringView plainBody, QString *error)
{
    const auto fail = [&](const QString &why) -> std::optional<Fault> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    for (const QStringView part : spec.split(u',', Qt::SkipEmptyParts)) {
        const qsizetype eq = part.indexOf(u'=');
        if (eq <= 0)
            return fail(QStringLiteral("fault \"%1\": expected key=value").arg(part));
        const QStringView key = part.left(eq).trimmed();
        const QStringView value = part.mid(eq + 1).trimmed();
        bool ok = true;
        if (key == u"status") {
            fault.status = value.toInt(&ok);
            ok = ok && fault.status >= 100 && fault.status <= 599;
        } else if (key == u"count") {
            fault.count = value.toInt(&ok);
            ok = ok && fault.count >= -1;
        } else if (key == u"on") {
            fault.endpoints.clear();
            if (value != u"any") {
                for (const QStringView name : value.split(u'+', Qt::SkipEmptyParts)) {
                    const auto endpoint = fromName(name);
                    if (!endpoint)
                        return fail(QStringLiteral("fault: unknown endpoint \"%1\"").arg(name));
                    fault.endpoints.insert(*endpoint);
                }
            }
        } else if (key == u"retry-after") {
            fault.retryAfterSeconds = value == u"none" ? -1 : value.toInt(&ok);
            ok = ok && fault.retryAfterSeconds >= -1;
        } else if (key == u"body") {
            ok = value == u"html" || value == plainBody;
            fault.htmlBody = value == u"html";
        } else {
            return fail(QStringLiteral("fault: unknown key \"%1\"").arg(key));
        }
        if (!ok)
            return fail(QStringLiteral("fault: bad value for %1: \"%2\"").arg(key, value));
    }
    return fault;
}

// Injected faults, checked in order: the first that matches a request and is not used up answers
// it. `Fault` has `int count` (-1: every matching request).
template<typename Fault>
class FaultList
{
public:
    void reset(const QList<Fault> &faults)
    {
        m_entries.clear();
        for (const Fault &fault : faults)
            append(fault);
    }
    void append(const Fault &fault) { m_entries.append(Entry{fault, 0}); }
    void clear() { m_entries.clear(); }

    // The fault to inject (counted), or nullptr. `matches(fault)` says whether it aims at this request.
    template<typename Match>
    const Fault *take(Match matches)
    {
        for (Entry &entry : m_entries) {
            if (matches(entry.fault) && takeFault(entry.fault.count, &entry.served))
                return &entry.fault;
        }
        return nullptr;
    }

private:
    struct Entry
    {
        Fault fault;
        int served = 0;
    };
    QList<Entry> m_entries;
};

} // namespace RunwatchSim
