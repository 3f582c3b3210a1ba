// SPDX-License-Identifier: GPL-3.0-or-later
#include "a2ascanwalk.h"

#include "json/jsonscan.h"

#include <QUtf8StringView>

#include <algorithm>
#include <array>
#include <cstring>

namespace Runwatch::A2a {

namespace {

// Every span of `r`, for moving them to other bytes.
template<typename F>
void forEachSpan(RawResult &r, F &&f)
{
    for (RawEvent *e : {&r.own, &r.artifactUpdate, &r.statusUpdate}) {
        for (QByteArrayView *v :
             {&e->taskId, &e->contextId, &e->append, &e->lastChunk, &e->artifact.artifactId,
              &e->artifact.name, &e->artifact.text, &e->status.state, &e->status.message.messageId,
              &e->status.message.taskId, &e->status.message.contextId, &e->status.message.role,
              &e->status.message.text}) {
            f(*v);
        }
    }
    f(r.kind);
    f(r.error);
    f(r.envelopeError);
}

// The spans of `r` that point into `from` (where they were read), pointing at the same offsets
// of `to` (a copy of those bytes).
void moveSpans(RawResult &r, const char *from, const char *to)
{
    forEachSpan(r, [from, to](QByteArrayView &v) {
        if (!v.isEmpty())
            v = QByteArrayView(to + (v.data() - from), v.size());
    });
}

// A member name: compared inline (a call to compare memory per name and candidate was a tenth
// of a small event's cost).
template<qsizetype N>
bool is(QByteArrayView key, const char (&name)[N])
{
    return key.size() == N - 1 && std::memcmp(key.data(), name, N - 1) == 0;
}

// Deepest a checkpoint's object may be: the usual events put their message or artifact four or
// five objects deep.
constexpr int kMaxCheckpointDepth = 8;

} // namespace

// Where a usual event's walk entered its message or artifact object: the bytes up to there, the
// walk's spans into them, and the member keys it went down by (ScanMemo).
struct ScanCheckpoint
{
    Binding binding = Binding::JsonRpc;
    QByteArray prefix;
    JsonScan::Reader::Mark mark;
    RawResult raw;
    std::array<QByteArrayView, kMaxCheckpointDepth> path; // the key taken at each level above it
};

ScanMemo::ScanMemo() = default;
ScanMemo::~ScanMemo() = default;

const ScanCheckpoint *ScanMemo::resumeFrom(Binding binding, QByteArrayView data)
{
    for (std::size_t i = 0; i < m_checkpoints.size(); ++i) {
        const ScanCheckpoint *c = m_checkpoints[i].get();
        if (c && c->binding == binding && data.size() > c->prefix.size()
            && std::memcmp(data.data(), c->prefix.constData(), std::size_t(c->prefix.size())) == 0) {
            std::swap(m_checkpoints[0], m_checkpoints[i]);
            ++m_resumed;
            return m_checkpoints[0].get();
        }
    }
    return nullptr;
}

ScanCheckpoint *ScanMemo::spare()
{
    if (!m_spare)
        m_spare = std::make_unique<ScanCheckpoint>();
    return m_spare.get();
}

void ScanMemo::keepSpare(Binding binding, QByteArrayView data)
{
    // Its spans and keys now point into the copy, kept in the spare's buffer: a stream whose
    // events differ early pays no allocation.
    ScanCheckpoint &c = *m_spare;
    c.binding = binding;
    c.prefix.resize(c.mark.offset);
    std::memcpy(c.prefix.data(), data.data(), std::size_t(c.mark.offset));
    const char *copy = c.prefix.constData();
    moveSpans(c.raw, data.data(), copy);
    for (std::size_t i = 0; i + 1 < std::size_t(c.mark.depth); ++i)
        c.path[i] = QByteArrayView(copy + (c.path[i].data() - data.data()), c.path[i].size());
    std::swap(m_spare, m_checkpoints[1]);
    std::swap(m_checkpoints[0], m_checkpoints[1]);
}

namespace {

struct Walk
{
    Walk(QByteArrayView data, RawResult &result)
        : reader(data)
        , raw(result)
    {}

    // From `checkpoint`, whose prefix `data` begins with: the raw spans read up to there (in
    // `result`), the reader after it, and its path to go down again without reading. The spans
    // and keys stay in the checkpoint's copy of those bytes, which outlives the walk and reads
    // the same.
    Walk(QByteArrayView data, RawResult &result, const ScanCheckpoint &checkpoint)
        : reader(JsonScan::Reader::resumed(data, checkpoint.mark))
        , raw(result)
        , path(checkpoint.path)
        , replay(std::size_t(checkpoint.mark.depth - 1))
        , entered(checkpoint.mark.depth)
    {}

    // The next member's key; a key with escapes is one the general path decodes. Going down to a
    // checkpoint, the key taken there.
    bool nextKey(QByteArrayView &key)
    {
        if (replayed < replay) {
            key = path[replayed++];
            return true;
        }
        bool escapes = false;
        if (!reader.nextMember(key, escapes))
            return false;
        unusual = unusual || escapes;
        const auto level = std::size_t(reader.depth() - 1);
        if (level < path.size())
            path[level] = key;
        return true;
    }
    // An object about to be read: false for one the walk is already in (going down to a
    // checkpoint), whose opening was read with the checkpoint's bytes.
    bool opens()
    {
        if (entered > 0) {
            --entered;
            return false;
        }
        return true;
    }
    // The first byte of the value at the cursor; going down to a checkpoint, the object's.
    char peek() const { return entered > 0 ? '{' : reader.peek(); }
    // A member that may come once: false when it came before. Going down to a checkpoint, it
    // came once, on the way there.
    bool firstOf(bool &seen) const
    {
        if (entered > 0)
            return true;
        return !std::exchange(seen, true);
    }
    // The walk has just entered the message or artifact object: where a later event with the
    // same bytes so far may start (the first such place of a walk from the start).
    void mayResumeHere()
    {
        if (taking && !took && reader.depth() <= kMaxCheckpointDepth) {
            took = true;
            taking->mark = reader.mark();
            taking->raw = raw;
            std::copy_n(path.cbegin(), reader.depth() - 1, taking->path.begin());
        }
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
        if (opens()) {
            unusual = unusual || a.named;
            a.named = true;
            if (reader.peek() != '{') {
                skipUnusual();
                return;
            }
            reader.enterObject();
            mayResumeHere();
        }
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
        if (opens()) {
            if (reader.peek() != '{') {
                reader.skip(); // not an object: the status has no message (taskStatusOf())
                return;
            }
            m.present = true;
            reader.enterObject();
            mayResumeHere();
        }
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
        if (opens()) {
            unusual = unusual || s.named;
            s.named = true;
            if (reader.peek() != '{') {
                reader.skip(); // not an object: no status (statusUpdateOf())
                return;
            }
            s.present = true;
            reader.enterObject();
        }
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
        if (opens())
            reader.enterObject();
        QByteArrayView key;
        while (nextKey(key)) {
            if (!eventMember(key, e))
                reader.skip();
        }
    }

    // classify()'s members of a result object (the cursor at it).
    void result()
    {
        if (opens())
            reader.enterObject();
        QByteArrayView key;
        while (nextKey(key)) {
            if (is(key, "task") || is(key, "message")) {
                skipUnusual();
            } else if (is(key, "artifactUpdate") || is(key, "statusUpdate")) {
                const bool artifact = is(key, "artifactUpdate");
                bool &seen = artifact ? raw.hasArtifactUpdate : raw.hasStatusUpdate;
                unusual = unusual || !firstOf(seen) || peek() != '{';
                if (peek() == '{') {
                    event(artifact ? raw.artifactUpdate : raw.statusUpdate);
                } else {
                    reader.skip();
                }
            } else if (is(key, "kind")) {
                once(raw.kind);
            } else if (is(key, "error")) {
                once(raw.error);
            } else if (!eventMember(key, raw.own)) {
                reader.skip();
            }
        }
    }

    // The JSON-RPC envelope (decodeJsonRpc) around a result (the cursor at it); false when it is
    // not an object.
    bool envelope()
    {
        if (opens() && !reader.enterObject())
            return false;
        QByteArrayView key;
        while (nextKey(key)) {
            if (is(key, "result")) {
                unusual = unusual || !firstOf(raw.hasResult) || peek() != '{';
                if (peek() == '{') {
                    result();
                } else {
                    reader.skip();
                }
            } else if (is(key, "error")) {
                once(raw.envelopeError);
            } else {
                reader.skip();
            }
        }
        return true;
    }

    JsonScan::Reader reader;
    RawResult &raw;
    bool unusual = false;
    // Keys taken at each level of the walk so far (checkpoints), or to take (going down to one).
    std::array<QByteArrayView, kMaxCheckpointDepth> path;
    std::size_t replay = 0;   // going down to a checkpoint: path[0, replay) are its keys
    std::size_t replayed = 0; // of them, taken
    int entered = 0;          // objects on the way down the walk is in already
    // Where a walk from the start keeps the first message or artifact it enters, for a memo.
    ScanCheckpoint *taking = nullptr;
    bool took = false;
};

} // namespace

std::optional<RawResult> walkEvent(Binding binding, QByteArrayView data, ScanMemo *memo)
{
    const ScanCheckpoint *from = memo ? memo->resumeFrom(binding, data) : nullptr;
    RawResult r = from ? from->raw : RawResult();
    std::optional<Walk> walk;
    if (from) {
        walk.emplace(data, r, *from);
    } else {
        walk.emplace(data, r);
        if (memo)
            walk->taking = memo->spare();
    }
    Walk &w = *walk;
    if (binding == Binding::JsonRpc) {
        // The envelope (decodeJsonRpc): no error, a result object.
        if (!w.envelope() || !r.hasResult || !r.envelopeError.isEmpty())
            return std::nullopt;
    } else {
        if (w.peek() != '{')
            return std::nullopt;
        w.result();
        if (!r.error.isEmpty())
            return std::nullopt; // an error body, perhaps: decodeRest() decides
    }
    // QJsonDocument refuses text that is not UTF-8 anywhere; the scanner looks only at what it
    // decodes.
    if (!w.reader.finish() || w.unusual
        || (w.reader.sawNonAscii() && !QUtf8StringView(data.data(), data.size()).isValidUtf8()))
        return std::nullopt;
    // A usual event walked from its start: the next one with the same bytes up to its message or
    // artifact goes on from there.
    if (w.took)
        memo->keepSpare(binding, data);
    return r;
}

} // namespace Runwatch::A2a
