// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "a2ascan.h"

#include <QByteArrayView>

#include <optional>

// The byte-level half of the A2A stream scanner (a2ascan.h): one walk through an event that
// collects the members the general path reads as raw spans, and the ScanMemo that lets the next
// event of a stream start where the last one's bytes stopped being the same. Not API.
namespace Runwatch::A2a {

// The members the general path reads, as raw spans (empty when absent), collected on one walk
// through the reply. Anything the general path might read differently from the scanner makes
// the walk `unusual`, and the reply then takes the general path.
struct RawMessage
{
    QByteArrayView messageId, taskId, contextId, role, text;
    bool present = false; // an object
    bool hasParts = false;
};

struct RawStatus
{
    QByteArrayView state;
    RawMessage message;
    bool present = false; // an object
    bool named = false;   // the member is there (of any type)
};

struct RawArtifact
{
    QByteArrayView artifactId, name, text;
    bool named = false;
};

struct RawEvent
{
    QByteArrayView taskId, contextId, append, lastChunk;
    RawArtifact artifact;
    RawStatus status;
};

// classify(), for the two kinds the scanner reads: the 1.0 members first, then the 0.x kind; and
// the JSON-RPC envelope's own members.
struct RawResult
{
    RawEvent own; // a 0.x event's members are the result's
    RawEvent artifactUpdate, statusUpdate;
    bool hasArtifactUpdate = false, hasStatusUpdate = false;
    QByteArrayView kind, error;
    bool hasResult = false;       // JSON-RPC: the envelope's result
    QByteArrayView envelopeError; // JSON-RPC: the envelope's error
};

// The members of `data`, an event of the usual shape under `binding`: a result (JSON-RPC: in an
// envelope without an error; REST: without an error member) whose members are read once each,
// no escaped member name, well-formed JSON, UTF-8 throughout. nullopt for anything else, which
// the general path decides. With a `memo`, walked from its checkpoint when the event begins with
// its bytes (the same spans come out), and a walk from the start leaves one there.
std::optional<RawResult> walkEvent(Binding binding, QByteArrayView data, ScanMemo *memo);

} // namespace Runwatch::A2a
