// SPDX-License-Identifier: GPL-3.0-or-later
#include "a2ascan.h"

#include "a2ascanwalk.h"

#include "json/jsonscan.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Runwatch::A2a {

namespace {

// QJsonValue::toString(): a string's text, anything else (or nothing) empty. False for a
// string that does not decode.
bool readString(QByteArrayView value, QString &out)
{
    if (!value.startsWith('"'))
        return true;
    std::optional<QString> text = JsonScan::decodeString(value);
    if (!text)
        return false;
    out = std::move(*text);
    return true;
}

// readString(), but a value equal to `known` (plain ASCII without escapes: no decoding needed to
// tell) is `known` itself, sharing its text instead of a new string.
bool readString(QByteArrayView value, QString &out, const QString &known)
{
    if (!known.isEmpty() && value.size() == known.size() + 2 && value.startsWith('"')) {
        const QByteArrayView inner = value.sliced(1, known.size());
        // One pass, byte against UTF-16 unit: a call to compare Latin-1 with UTF-16 was a few
        // percent of a status update.
        if (std::equal(inner.begin(), inner.end(), known.constData(), [](char c, QChar u) {
                return c != '\\' && static_cast<uchar>(c) < 0x80 && u.unicode() == static_cast<uchar>(c);
            })) {
            out = known;
            return true;
        }
    }
    return readString(value, out);
}

// QJsonValue::toBool(false).
bool isTrue(QByteArrayView value)
{
    return value == "true";
}

// parseMessage()'s role test: "user" / "ROLE_USER" in any case. Plain ASCII (the usual) is
// compared as it is; anything else is decoded and lowered as parseMessage() does.
bool readFromUser(QByteArrayView raw, bool &fromUser)
{
    if (!raw.startsWith('"'))
        return true;
    const QByteArrayView inner = raw.sliced(1, raw.size() - 2);
    if (std::all_of(inner.begin(), inner.end(),
                    [](char c) { return c != '\\' && static_cast<uchar>(c) < 0x80; })) {
        const QLatin1StringView role(inner.data(), inner.size());
        fromUser = role.compare("user"_L1, Qt::CaseInsensitive) == 0
                   || role.compare("role_user"_L1, Qt::CaseInsensitive) == 0;
        return true;
    }
    QString decoded;
    if (!readString(raw, decoded))
        return false;
    const QString role = decoded.toLower();
    fromUser = role == u"user" || role == u"role_user";
    return true;
}

bool readArtifactChunk(const RawEvent &e, const ScanHints &hints, ArtifactChunk &chunk)
{
    if (!e.artifact.named)
        return false;
    if (hints.withIds && (!readString(e.taskId, chunk.taskId) || !readString(e.contextId, chunk.contextId)))
        return false;
    chunk.append = isTrue(e.append);
    chunk.lastChunk = isTrue(e.lastChunk);
    return readString(e.artifact.artifactId, chunk.artifactId, hints.artifactId)
           && readString(e.artifact.name, chunk.name) && readString(e.artifact.text, chunk.text);
}

bool readStatusUpdate(const RawEvent &e, const ScanHints &hints, StatusUpdate &update)
{
    if (hints.withIds && (!readString(e.taskId, update.taskId) || !readString(e.contextId, update.contextId)))
        return false;
    if (!e.status.present)
        return true;
    TaskStatus &status = update.status.emplace();
    if (!readString(e.status.state, status.state, hints.state))
        return false;
    const RawMessage &raw = e.status.message;
    if (!raw.present)
        return true;
    MessageInfo &m = status.message.emplace();
    if (hints.withIds && (!readString(raw.taskId, m.taskId) || !readString(raw.contextId, m.contextId)))
        return false;
    return readString(raw.messageId, m.messageId) && readFromUser(raw.role, m.fromUser)
           && readString(raw.text, m.text);
}

} // namespace

std::optional<ScannedEvent> scanStreamEvent(Binding binding, QByteArrayView data, const ScanHints &hints,
                                            ScanMemo *memo)
{
    const std::optional<RawResult> raw = walkEvent(binding, data, memo);
    if (!raw)
        return std::nullopt;
    const RawResult &r = *raw;
    const RawEvent *event = nullptr;
    ScannedEvent scanned;
    if (r.hasStatusUpdate && !r.hasArtifactUpdate) {
        scanned.kind = ScannedEvent::Kind::StatusUpdate;
        event = &r.statusUpdate;
    } else if (r.hasArtifactUpdate && !r.hasStatusUpdate) {
        event = &r.artifactUpdate;
    } else if (r.hasArtifactUpdate || r.hasStatusUpdate) {
        return std::nullopt;
    } else if (r.kind == "\"artifact-update\"") {
        event = &r.own;
    } else if (r.kind == "\"status-update\"") {
        scanned.kind = ScannedEvent::Kind::StatusUpdate;
        event = &r.own;
    } else {
        return std::nullopt;
    }
    const bool read = scanned.kind == ScannedEvent::Kind::ArtifactUpdate
                          ? readArtifactChunk(*event, hints, scanned.chunk)
                          : readStatusUpdate(*event, hints, scanned.status);
    if (!read)
        return std::nullopt;
    return scanned;
}

std::optional<ArtifactChunk> scanArtifactChunk(Binding binding, QByteArrayView data)
{
    std::optional<ScannedEvent> scanned = scanStreamEvent(binding, data);
    if (!scanned || scanned->kind != ScannedEvent::Kind::ArtifactUpdate)
        return std::nullopt;
    return std::move(scanned->chunk);
}

} // namespace Runwatch::A2a
