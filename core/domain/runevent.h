// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonObject>

#include "run.h"

namespace Runwatch {

// What a connector hands to the engine. One reducer (applyEvent, runreducer.h) consumes these for live
// streams, replays after reconnect and polls alike.
struct RunEvent
{
    enum class Type {
        Identity,          // remoteId (+ model, streamable) became known
        Status,            // status / rawStatus
        PrimaryDelta,      // append `text` to the answer
        PrimarySnapshot,   // the server's full answer so far: `text`
        SecondaryDelta,    // append `text` to secondary item `itemId` (created on first sight)
        SecondarySnapshot, // replace secondary item `itemId` with `text` (done = true)
        InputRequired,     // `input`
        Error,             // `error`; the status comes with a separate Status event
        Cursor,            // only advances the position (keep-alives, unknown event types)
    };

    Type type = Type::Cursor;
    qint64 sequence = -1; // server sequence number; events at or below the run's cursor are dropped
    QString eventId;      // SSE id, if any

    RunStatus status = RunStatus::Unknown;
    QString rawStatus;
    QString text;
    QString itemId;
    SecondaryKind kind = SecondaryKind::Log;
    QString title;
    QString remoteId;
    QString model;
    bool streamable = false;
    // Identity: the run goes on in this new remote object (RunBackend::respond continued it, e.g.
    // an OpenAI response with previous_response_id); the old id joins the token's chain and
    // the cursor starts again. Under the same remote id, a tokenExtra that names something new
    // is the new object (a new run on the same thread): the cursor starts again.
    bool continuation = false;
    // Identity: connector-specific continuation data (service URLs, A2A contextId) merged into
    // Run::token.extra, so another process can reattach from the stored run alone.
    QJsonObject tokenExtra;
    // A PrimarySnapshot that a stream sends at its end (e.g. response.completed) to confirm what
    // the deltas built. A mismatch is repaired and counted in Run::reconciliations.
    bool verify = false;
    // A PrimarySnapshot that is the answer as the service saved it (a managed agent session's
    // saved outputs): it replaces the text even when shorter, since what it drops is a live
    // preview the service did not keep (a model request interrupted mid-answer). Expected, so not
    // counted as a reconciliation.
    bool authoritative = false;
    // Any type: the token usage the current remote object reported so far (absolute, not a
    // delta, so the same figures from a stream and a poll are applied once). A chain adds the
    // earlier objects' usage (ContinuationToken::usageBase).
    std::optional<TokenUsage> usage;
    std::optional<InputRequest> input;
    RunError error;

    static RunEvent identity(QString remoteId, QString model, bool streamable, qint64 seq = -1);
    static RunEvent statusChange(RunStatus status, QString raw, qint64 seq = -1);
    static RunEvent primaryDelta(QString text, qint64 seq = -1);
    static RunEvent primarySnapshot(QString text, qint64 seq = -1);
    static RunEvent secondaryDelta(SecondaryKind kind, QString itemId, QString text, qint64 seq = -1);
    static RunEvent secondarySnapshot(SecondaryKind kind, QString itemId, QString title, QString text,
                                      qint64 seq = -1);
    static RunEvent inputRequired(InputRequest request, qint64 seq = -1);
    static RunEvent failure(RunError error, qint64 seq = -1);
    static RunEvent cursor(qint64 seq, QString eventId = {});
};

} // namespace Runwatch

// Every member is relocatable (Qt's implicitly shared types, enums, and std::optional of those,
// which holds no pointer into itself): a decoder's batch of events grows by moving its buffer,
// not by moving each event (issue 25: a stream of small events makes a hundred per read).
Q_DECLARE_TYPEINFO(Runwatch::RunEvent, Q_RELOCATABLE_TYPE);
