// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "a2amapper.h"

#include <QByteArrayView>

#include <optional>

// The usual stream events read in one pass without a QJsonDocument, which cost several times
// everything else on their path (issue 25). Pure, like a2amapper.h.
namespace Runwatch::A2a {

// One event the scanner read: an artifact chunk or a status update.
struct ScannedEvent
{
    enum class Kind {
        ArtifactUpdate,
        StatusUpdate,
    };
    Kind kind = Kind::ArtifactUpdate;
    ArtifactChunk chunk; // ArtifactUpdate
    StatusUpdate status; // StatusUpdate
};

// What the mapper already holds, so that the scanner need not decode it again: a string value
// equal to one of these (plain ASCII without escapes, the usual) comes back as a copy of it.
// withIds false: the task and context ids (the event's and its message's) stay empty, for a
// mapper that knows its task and needs none of them (A2aMapper::needsIds()).
struct ScanHints
{
    bool withIds = true;
    QString state;      // A2aMapper::lastWireState()
    QString artifactId; // A2aMapper::lastArtifactId()
};

// A reply (the binding's envelope) whose result is an artifactUpdate / statusUpdate (1.0) or a
// "kind":"artifact-update" / "status-update" event (0.3), of the usual shape: an artifact of
// exactly one text part; a status whose message (if any) has exactly one text part. nullopt for
// anything else, which then takes decodeReply() and classify(): an error, another kind, several
// or other parts, a member named twice or with escapes in its name, JSON that is not well-formed
// or not UTF-8. What it returns is what that general path reads from the same bytes
// (artifactChunkOf(), statusUpdateOf()), but for the ids `hints` leaves out.
std::optional<ScannedEvent> scanStreamEvent(Binding binding, QByteArrayView data,
                                            const ScanHints &hints = {});

// scanStreamEvent() for an artifact chunk only.
std::optional<ArtifactChunk> scanArtifactChunk(Binding binding, QByteArrayView data);

} // namespace Runwatch::A2a
