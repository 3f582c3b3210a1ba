// SPDX-License-Identifier: GPL-3.0-or-later
#include "a2ascan.h"

#include "json/jsonscan.h"

#include <QUtf8StringView>

#include <algorithm>
#include <cstring>

using namespace Qt::StringLiterals;

namespace Runwatch::A2a {

namespace {

using JsonScan::Reader;

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

// A member name: compared inline (a call to compare memory per name and candidate was a tenth
// of a small event's cost).
template<qsizetype N>
bool is(QByteArrayView key, const char (&name)[N])
{
    return key.size() == N - 1 && std::memcmp(key.data(), name, N - 1) == 0;
}

struct Walk
{
    explicit Walk(QByteArrayView data)
        : reader(data)
    {}

    // The next member's key; a key with escapes is one the general path decodes.
    bool nextKey(QByteArrayView &key)
    {
        bool escapes = false;
        if (!reader.nextMember(key, escapes))
            return false;
        unusual = unusual || escapes;
        return true;
    }
    // The value at the cursor into `slot`: named twice, which of the two counts is the general
    // path's business.
    void once(QByteArrayView &slot)
    {
        const QByteArrayView value = reader.skip();
        unusual = unusual || !slot.isEmpty();
        slot = value;
    }
    // A value of a shape the scanner does not read.
    void skipUnusual()
    {
        unusual = true;
        reader.skip();
    }

    // A Part list of exactly one part with a string `text` (partsText() of it is that text).
    void parts(QByteArrayView &text)
    {
        if (reader.peek() != '[') {
            skipUnusual();
            return;
        }
        reader.enterArray();
        int count = 0;
        while (reader.nextElement()) {
            if (++count > 1 || reader.peek() != '{') {
                skipUnusual();
                continue;
            }
            reader.enterObject();
            QByteArrayView key;
            while (nextKey(key)) {
                if (is(key, "text")) {
                    once(text);
                } else {
                    reader.skip();
                }
            }
        }
        unusual = unusual || count != 1 || !text.startsWith('"');
    }

    void artifact(RawArtifact &a)
    {
        unusual = unusual || a.named;
        a.named = true;
        if (reader.peek() != '{') {
            skipUnusual();
            return;
        }
        reader.enterObject();
        bool hasParts = false;
        QByteArrayView key;
        while (nextKey(key)) {
            if (is(key, "artifactId")) {
                once(a.artifactId);
            } else if (is(key, "name")) {
                once(a.name);
            } else if (is(key, "parts")) {
                unusual = unusual || hasParts;
                hasParts = true;
                parts(a.text);
            } else {
                reader.skip();
            }
        }
        unusual = unusual || !hasParts;
    }

    void message(RawMessage &m)
    {
        if (reader.peek() != '{') {
            reader.skip(); // not an object: the status has no message (taskStatusOf())
            return;
        }
        m.present = true;
        reader.enterObject();
        QByteArrayView key;
        while (nextKey(key)) {
            if (is(key, "messageId")) {
                once(m.messageId);
            } else if (is(key, "taskId")) {
                once(m.taskId);
            } else if (is(key, "contextId")) {
                once(m.contextId);
            } else if (is(key, "role")) {
                once(m.role);
            } else if (is(key, "parts")) {
                unusual = unusual || m.hasParts;
                m.hasParts = true;
                parts(m.text);
            } else if (is(key, "content")) {
                skipUnusual(); // the 0.3 proto JSON spelling: parseMessage() decides
            } else {
                reader.skip();
            }
        }
        unusual = unusual || !m.hasParts;
    }

    void status(RawStatus &s)
    {
        unusual = unusual || s.named;
        s.named = true;
        if (reader.peek() != '{') {
            reader.skip(); // not an object: no status (statusUpdateOf())
            return;
        }
        s.present = true;
        reader.enterObject();
        bool hasMessage = false;
        QByteArrayView key;
        while (nextKey(key)) {
            if (is(key, "state")) {
                once(s.state);
            } else if (is(key, "message")) {
                unusual = unusual || hasMessage;
                hasMessage = true;
                message(s.message);
            } else {
                reader.skip();
            }
        }
    }

    // One member of an event object: false when it is none the general path reads.
    bool eventMember(QByteArrayView key, RawEvent &e)
    {
        if (is(key, "taskId")) {
            once(e.taskId);
        } else if (is(key, "contextId")) {
            once(e.contextId);
        } else if (is(key, "append")) {
            once(e.append);
        } else if (is(key, "lastChunk")) {
            once(e.lastChunk);
        } else if (is(key, "artifact")) {
            artifact(e.artifact);
        } else if (is(key, "status")) {
            status(e.status);
        } else {
            return false;
        }
        return true;
    }

    void event(RawEvent &e)
    {
        reader.enterObject();
        QByteArrayView key;
        while (nextKey(key)) {
            if (!eventMember(key, e))
                reader.skip();
        }
    }

    Reader reader;
    bool unusual = false;
};

// classify(), for the two kinds the scanner reads: the 1.0 members first, then the 0.x kind.
struct RawResult
{
    RawEvent own; // a 0.x event's members are the result's
    RawEvent artifactUpdate, statusUpdate;
    bool hasArtifactUpdate = false, hasStatusUpdate = false;
    QByteArrayView kind, error;
};

void readResult(Walk &w, RawResult &r)
{
    w.reader.enterObject();
    QByteArrayView key;
    while (w.nextKey(key)) {
        if (is(key, "task") || is(key, "message")) {
            w.skipUnusual();
        } else if (is(key, "artifactUpdate") || is(key, "statusUpdate")) {
            const bool artifact = is(key, "artifactUpdate");
            bool &seen = artifact ? r.hasArtifactUpdate : r.hasStatusUpdate;
            w.unusual = w.unusual || seen || w.reader.peek() != '{';
            seen = true;
            if (w.reader.peek() == '{') {
                w.event(artifact ? r.artifactUpdate : r.statusUpdate);
            } else {
                w.reader.skip();
            }
        } else if (is(key, "kind")) {
            w.once(r.kind);
        } else if (is(key, "error")) {
            w.once(r.error);
        } else if (!w.eventMember(key, r.own)) {
            w.reader.skip();
        }
    }
}

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
        if (std::all_of(inner.begin(), inner.end(),
                        [](char c) { return c != '\\' && static_cast<uchar>(c) < 0x80; })
            && QLatin1StringView(inner.data(), inner.size()) == known) {
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

std::optional<ScannedEvent> scanStreamEvent(Binding binding, QByteArrayView data, const ScanHints &hints)
{
    Walk w(data);
    RawResult r;
    if (binding == Binding::JsonRpc) {
        // The envelope (decodeJsonRpc): no error, a result object.
        if (!w.reader.enterObject())
            return std::nullopt;
        bool hasResult = false;
        QByteArrayView error;
        QByteArrayView key;
        while (w.nextKey(key)) {
            if (is(key, "result")) {
                w.unusual = w.unusual || hasResult || w.reader.peek() != '{';
                hasResult = true;
                if (w.reader.peek() == '{') {
                    readResult(w, r);
                } else {
                    w.reader.skip();
                }
            } else if (is(key, "error")) {
                w.once(error);
            } else {
                w.reader.skip();
            }
        }
        if (!hasResult || !error.isEmpty())
            return std::nullopt;
    } else {
        if (w.reader.peek() != '{')
            return std::nullopt;
        readResult(w, r);
        if (!r.error.isEmpty())
            return std::nullopt; // an error body, perhaps: decodeRest() decides
    }
    // QJsonDocument refuses text that is not UTF-8 anywhere; the scanner looks only at what it
    // decodes.
    if (!w.reader.finish() || w.unusual
        || (w.reader.sawNonAscii() && !QUtf8StringView(data.data(), data.size()).isValidUtf8()))
        return std::nullopt;

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
