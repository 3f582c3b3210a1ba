// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "a2amapper.h"

#include <QByteArrayView>

#include <array>
#include <memory>
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

struct ScanCheckpoint; // a2ascanwalk.cpp
struct RawResult;      // a2ascanwalk.h

// What a stream's scanner remembers of the usual events it read: the bytes of one up to its
// message or artifact object, and what the walk had read of them. The next event that begins
// with the same bytes is walked from there: a stream's status updates and chunks repeat their
// envelope, task, context and state, about two thirds of each event (issue 25). What comes out is
// what a walk from the start gives: it would read those bytes the same way. Two checkpoints,
// the last used kept: a stream that mixes chunks and status updates has one for each. One per
// stream, as the decoder is.
class ScanMemo
{
public:
    ScanMemo();
    ~ScanMemo();
    Q_DISABLE_COPY_MOVE(ScanMemo)

    // How many events went on from a checkpoint (tests and benchmarks).
    qint64 resumed() const { return m_resumed; }

private:
    friend std::optional<RawResult> walkEvent(Binding binding, QByteArrayView data, ScanMemo *memo);
    // The checkpoint `data` begins with (now the last used), or null.
    const ScanCheckpoint *resumeFrom(Binding binding, QByteArrayView data);
    // Where a walk from the start takes its checkpoint.
    ScanCheckpoint *spare();
    // The spare's checkpoint, taken from `data`, kept as the last used.
    void keepSpare(Binding binding, QByteArrayView data);

    std::array<std::unique_ptr<ScanCheckpoint>, 2> m_checkpoints; // the last used first
    std::unique_ptr<ScanCheckpoint> m_spare; // what a walk from the start fills, then swapped in
    qint64 m_resumed = 0;
};

// A reply (the binding's envelope) whose result is an artifactUpdate / statusUpdate (1.0) or a
// "kind":"artifact-update" / "status-update" event (0.3), of the usual shape: an artifact of
// exactly one text part; a status whose message (if any) has exactly one text part. nullopt for
// anything else, which then takes decodeReply() and classify(): an error, another kind, several
// or other parts, a member named twice or with escapes in its name, JSON that is not well-formed
// or not UTF-8. What it returns is what that general path reads from the same bytes
// (artifactChunkOf(), statusUpdateOf()), but for the ids `hints` leaves out. With a `memo`, the
// same, sooner.
std::optional<ScannedEvent> scanStreamEvent(Binding binding, QByteArrayView data, const ScanHints &hints = {},
                                            ScanMemo *memo = nullptr);

// scanStreamEvent() for an artifact chunk only.
std::optional<ArtifactChunk> scanArtifactChunk(Binding binding, QByteArrayView data);

} // namespace Runwatch::A2a
