// SPDX-License-Identifier: GPL-3.0-or-later
#include "runreducer.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

// The item a delta or snapshot of an id not seen before starts.
SecondaryItem newItem(const RunEvent &event, const QDateTime &now)
{
    SecondaryItem item;
    item.id = event.itemId;
    item.kind = event.kind;
    item.title = event.title;
    item.text = event.text;
    item.at = now;
    return item;
}

SecondaryItem *findItem(Run &run, const QString &id)
{
    const qsizetype at = run.secondaryIndex.find(run.secondary, id);
    return at >= 0 ? &run.secondary[at] : nullptr;
}

RunChanges applyStatus(Run &run, RunStatus status, const QString &raw, const QDateTime &now)
{
    RunChanges changes;
    if (!raw.isEmpty() && raw != run.rawStatus) {
        run.rawStatus = raw;
        changes |= RunChange::Status;
    }
    // A terminal status is final: a late poll or a replayed "in_progress" must not reopen it.
    // Cancellation is best effort, so terminal -> other terminal (cancelled -> completed) is allowed.
    if (run.isTerminal() && !isTerminal(status))
        return changes;
    // Cancelling is our own request in flight; the server's "in progress" does not undo it.
    if (run.status == RunStatus::Cancelling
        && (status == RunStatus::InProgress || status == RunStatus::Queued))
        return changes;
    if (status == run.status)
        return changes;

    SecondaryItem item;
    item.kind = SecondaryKind::StatusChange;
    item.text = statusLabel(run.status) + u" → "_s + statusLabel(status);
    item.at = now;
    item.done = true;
    run.secondary.append(std::move(item));

    if (run.status == RunStatus::InputRequired && status != RunStatus::InputRequired) {
        run.input.reset();
        changes |= RunChange::Input;
    }
    run.status = status;
    run.cancelUnconfirmed = false; // only ever said of a run still cancelling
    if (isTerminal(status)) {
        run.finishedAt = now;
        run.connectionLost = false;
        run.nextTryAt = {};
        run.failedTries = 0;
        run.lostReason.clear();
    }
    changes |= RunChange::Status | RunChange::Secondary;
    return changes;
}

// A delta the stream delivered at its cursor. Usually the cursor is at the end of the text and the
// delta is appended. After a snapshot read without a cursor (a poll, `status`) the text may run
// ahead of it: a resumed stream then replays deltas the snapshot already has. Those are matched,
// not appended again; where the stream and the snapshot part ways, the stream's text wins.
RunChanges applyDeltaAtCursor(Run &run, const QString &delta)
{
    const qint64 size = run.primaryText.size();
    const qint64 at = run.token.textAtCursor < 0 ? size : std::min(run.token.textAtCursor, size);
    if (at == size) {
        run.token.textAtCursor = -1; // at the end again: the common case, nothing to remember
        if (delta.isEmpty())
            return {};
        run.primaryText += delta;
        return RunChange::Primary;
    }
    const QStringView ahead = QStringView(run.primaryText).mid(at);
    RunChanges changes;
    if (ahead.startsWith(delta)) {
        // Already there.
    } else if (QStringView(delta).startsWith(ahead)) {
        run.primaryText += QStringView(delta).mid(ahead.size());
        changes |= RunChange::Primary;
    } else {
        run.primaryText.truncate(at);
        run.primaryText += delta;
        ++run.reconciliations;
        changes |= RunChange::Primary;
    }
    const qint64 next = at + delta.size();
    run.token.textAtCursor = next >= run.primaryText.size() ? -1 : next;
    return changes;
}

// Whether merging `update` into `extra` changes a value.
bool changesExtra(const QJsonObject &extra, const QJsonObject &update)
{
    for (auto it = update.begin(); it != update.end(); ++it) {
        if (extra.value(it.key()) != it.value())
            return true;
    }
    return false;
}

} // namespace

RunChanges applyEvent(Run &run, const RunEvent &event, const QDateTime &now)
{
    RunChanges changes;
    if (event.sequence >= 0) {
        if (event.sequence <= run.token.sequence)
            return RunChange::Dropped;
        run.token.sequence = event.sequence;
        changes |= RunChange::Cursor;
    }
    if (!event.eventId.isEmpty() && event.eventId != run.token.eventId) {
        run.token.eventId = event.eventId;
        changes |= RunChange::Cursor;
    }
    const bool atCursor = changes.testFlag(RunChange::Cursor);

    switch (event.type) {
    case RunEvent::Type::Identity: {
        const bool newId = !event.remoteId.isEmpty() && event.remoteId != run.remoteId;
        // A new object under the same id is one the token's extra names anew (a new run on
        // the same thread): applied once, like a new id, since a replay changes nothing.
        if (event.continuation && !run.remoteId.isEmpty()
            && (newId || changesExtra(run.token.extra, event.tokenExtra))) {
            // The run goes on in a new remote object: its positions start again, the text so
            // far stays as the base its snapshots extend.
            if (newId)
                run.token.previousRemoteIds << run.remoteId;
            run.token.sequence = -1;
            run.token.eventId.clear();
            run.token.streamable = false;
            run.token.textBase = run.primaryText.size();
            run.token.textAtCursor = -1;
            run.token.usageBase = run.usage;
            changes |= RunChange::Identity;
        }
        if (newId) {
            run.remoteId = event.remoteId;
            run.token.remoteId = event.remoteId;
            changes |= RunChange::Identity;
        }
        if (!event.model.isEmpty() && event.model != run.model) {
            run.model = event.model;
            changes |= RunChange::Identity;
        }
        if (event.streamable && !run.token.streamable) {
            run.token.streamable = true;
            changes |= RunChange::Identity;
        }
        for (auto it = event.tokenExtra.begin(); it != event.tokenExtra.end(); ++it) {
            if (run.token.extra.value(it.key()) != it.value()) {
                run.token.extra.insert(it.key(), it.value());
                changes |= RunChange::Identity;
            }
        }
        break;
    }
    case RunEvent::Type::Status:
        changes |= applyStatus(run, event.status, event.rawStatus, now);
        break;
    case RunEvent::Type::PrimaryDelta:
        if (atCursor) {
            changes |= applyDeltaAtCursor(run, event.text);
        } else if (!event.text.isEmpty()) {
            run.primaryText += event.text;
            changes |= RunChange::Primary;
        }
        break;
    case RunEvent::Type::PrimarySnapshot: {
        // A continued run's snapshots cover only the current remote object's text.
        const qint64 base = std::clamp<qint64>(run.token.textBase, 0, run.primaryText.size());
        const QString text = base > 0 ? run.primaryText.left(base) + event.text : event.text;
        if (event.text.isEmpty() && !event.authoritative)
            break;
        // An equal or shorter-prefix snapshot (a stale poll, a stream resumed behind a poll) never
        // throws away text we already have — unless it is the service's saved answer, which
        // drops a preview it did not keep. A stream's still says where its cursor is: its next
        // delta goes after this text, and is matched with ours from there (a delta placed after a
        // cursor left behind by an earlier poll replaced the whole answer).
        if (text == run.primaryText || (!event.authoritative && run.primaryText.startsWith(text))) {
            // The saved answer is the whole of it: the stream's next text goes after it.
            if (event.authoritative) {
                run.token.textAtCursor = -1;
            } else if (atCursor) {
                run.token.textAtCursor = text.size() < run.primaryText.size() ? text.size() : -1;
            }
            break;
        }
        // Whether the snapshot goes on from our text: asked once (it compares the whole answer).
        const bool extendsOurs = text.startsWith(run.primaryText);
        if (!event.authoritative && (event.verify || !extendsOurs))
            ++run.reconciliations;
        // A stream's snapshot is where its cursor is. A poll's (no cursor) may be ahead of a
        // stream's cursor: remember where the stream had got to, for when it is resumed.
        const bool hasCursor = run.token.sequence >= 0 || !run.token.eventId.isEmpty();
        if (atCursor || event.authoritative) {
            run.token.textAtCursor = -1;
        } else if (hasCursor && run.token.textAtCursor < 0) {
            run.token.textAtCursor = run.primaryText.size();
        }
        // A poll's growing answer extends the text in place (its copies stay cheap); anything else
        // replaces it.
        if (extendsOurs) {
            run.primaryText += QStringView(text).mid(run.primaryText.size());
        } else {
            run.primaryText = text;
        }
        changes |= RunChange::Primary;
        break;
    }
    case RunEvent::Type::SecondaryDelta:
        if (SecondaryItem *item = findItem(run, event.itemId)) {
            item->text += event.text;
        } else {
            run.secondary.append(newItem(event, now));
        }
        changes |= RunChange::Secondary;
        break;
    case RunEvent::Type::SecondarySnapshot:
        if (SecondaryItem *item = findItem(run, event.itemId)) {
            // The same finished item again (output_item.done after its own .done event, the
            // final response object, a poll): nothing new.
            if (item->done && item->text == event.text
                && (event.title.isEmpty() || event.title == item->title))
                break;
            item->text = event.text;
            if (!event.title.isEmpty())
                item->title = event.title;
            item->done = true;
        } else {
            SecondaryItem fresh = newItem(event, now);
            fresh.done = true;
            run.secondary.append(std::move(fresh));
        }
        changes |= RunChange::Secondary;
        break;
    case RunEvent::Type::InputRequired:
        if (event.input) {
            run.input = event.input;
            changes |= RunChange::Input;
            changes |= applyStatus(run, RunStatus::InputRequired, run.rawStatus, now);
        }
        break;
    case RunEvent::Type::Error:
        if (event.error != run.error) {
            run.error = event.error;
            changes |= RunChange::Error;
        }
        break;
    case RunEvent::Type::Cursor:
        break;
    }
    if (event.usage) {
        const TokenUsage total = run.token.usageBase.plus(*event.usage);
        if (total != run.usage) {
            run.usage = total;
            changes |= RunChange::Usage;
        }
    }
    if (changes & ~RunChanges(RunChange::Cursor))
        run.updatedAt = now;
    return changes;
}

} // namespace Runwatch
