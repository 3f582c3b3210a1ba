// SPDX-License-Identifier: GPL-3.0-or-later
#include "sseparser.h"

#include <cstring>
#include <limits>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

constexpr char Bom[] = "\xEF\xBB\xBF";
constexpr qsizetype BomSize = 3;
// Buffers that grew for one huge event are given back instead of pinning that memory for the
// rest of a long stream.
constexpr qsizetype KeepCapacity = 1024 * 1024;

const char *findCr(const char *from, const char *end)
{
    const void *hit = std::memchr(from, '\r', size_t(end - from));
    return hit ? static_cast<const char *>(hit) : end;
}

bool startsWith(QByteArrayView line, const char (&prefix)[6])
{
    return line.size() >= 5 && std::memcmp(line.data(), prefix, 5) == 0;
}

bool startsWith(QByteArrayView line, const char (&prefix)[7])
{
    return line.size() >= 6 && std::memcmp(line.data(), prefix, 6) == 0;
}

// Field names are compared byte for byte: they are case-sensitive.
template<qsizetype N>
bool is(QByteArrayView name, const char (&literal)[N])
{
    return name.size() == N - 1 && std::memcmp(name.data(), literal, N - 1) == 0;
}

// "If value starts with a U+0020 SPACE character, remove it" — exactly one, nothing else.
QByteArrayView fieldValue(QByteArrayView afterColon)
{
    if (!afterColon.isEmpty() && afterColon.front() == ' ')
        afterColon = afterColon.sliced(1);
    return afterColon;
}

QString formatSize(qsizetype bytes)
{
    constexpr qsizetype KiB = 1024;
    constexpr qsizetype MiB = 1024 * KiB;
    if (bytes % MiB == 0)
        return u"%1 MiB"_s.arg(bytes / MiB);
    if (bytes % KiB == 0)
        return u"%1 KiB"_s.arg(bytes / KiB);
    return u"%1-byte"_s.arg(bytes);
}

void reuse(QByteArray &buffer)
{
    if (buffer.capacity() > KeepCapacity) {
        buffer = QByteArray();
    } else {
        buffer.resize(0); // keeps the capacity, unlike clear()
    }
}

} // namespace

SseParser::SseParser(qsizetype maxEventSize)
    : m_maxEventSize(qMax<qsizetype>(1, maxEventSize))
{}

SseParser::~SseParser() = default;

void SseParser::dropEvent()
{
    m_line = QByteArray();
    m_data = QByteArray();
    m_type = QByteArray();
    m_dataView = {};
    m_typeView = {};
    m_dataLines = 0;
    m_dataOwned = false;
    m_typeOwned = false;
}

void SseParser::reset()
{
    dropEvent();
    // Like a reconnecting EventSource, the new stream starts from the committed ID: only an id:
    // field seen on the new stream replaces it, a blank line alone does not wipe it.
    m_idBuffer = QByteArray();
    m_idPending = false;
    m_error.clear();
    m_bomMatched = 0;
    m_bomDone = false;
    m_skipLf = false;
    m_failed = false;
}

QByteArray SseParser::lastEventId() const
{
    return m_lastEventId;
}

std::optional<qint64> SseParser::retryMs() const
{
    return m_retryMs;
}

bool SseParser::hasError() const
{
    return m_failed;
}

QString SseParser::errorString() const
{
    return m_error;
}

qsizetype SseParser::bufferedBytes() const
{
    return m_line.size() + (m_dataLines > 0 && m_dataOwned ? m_data.size() : 0)
           + (m_typeOwned ? m_type.size() : 0);
}

qsizetype SseParser::maxEventSize() const
{
    return m_maxEventSize;
}

void SseParser::setMaxEventSize(qsizetype maxEventSize)
{
    m_maxEventSize = qMax<qsizetype>(1, maxEventSize);
}

void SseParser::fail(const char *what)
{
    m_failed = true;
    m_error = u"SSE %1 exceeds the %2 limit"_s.arg(QLatin1StringView(what), formatSize(m_maxEventSize));
    // Nothing of this stream can be used any more: give the memory back now.
    dropEvent();
}

bool SseParser::appendPartialLine(QByteArrayView bytes)
{
    // Checked before growing, so a line without end never holds more than the limit.
    if (m_line.size() + bytes.size() > m_maxEventSize) {
        fail("event line");
        return false;
    }
    m_line.append(bytes);
    return true;
}

// The UTF-8 decoder the spec runs over the stream drops one leading BOM. It may arrive a byte at
// a time; bytes that turn out not to be a BOM belong to the first line.
bool SseParser::consumeBom(const char *&p, const char *end)
{
    while (!m_bomDone && p < end) {
        if (*p == Bom[m_bomMatched]) {
            ++p;
            if (++m_bomMatched == BomSize)
                m_bomDone = true;
            continue;
        }
        m_bomDone = true;
        if (m_bomMatched > 0 && !appendPartialLine(QByteArrayView(Bom, m_bomMatched)))
            return false;
    }
    return true;
}

void SseParser::appendData(QByteArrayView value, bool stable)
{
    if (m_dataLines == 0) {
        // The common case, one data: line: keep a view, copy nothing.
        if (stable) {
            m_dataView = value;
            m_dataOwned = false;
        } else {
            m_data.resize(0);
            m_data.append(value);
            m_dataOwned = true;
        }
    } else {
        if (!m_dataOwned) {
            m_data.resize(0);
            m_data.append(m_dataView);
            m_dataOwned = true;
        }
        if (m_data.size() + 1 + value.size() > m_maxEventSize) {
            fail("event");
            return;
        }
        m_data.append('\n');
        m_data.append(value);
    }
    ++m_dataLines;
}

void SseParser::processField(QByteArrayView name, QByteArrayView value, bool stable)
{
    switch (name.size()) {
    case 4:
        if (is(name, "data"))
            appendData(value, stable);
        return;
    case 5:
        if (is(name, "event")) {
            if (stable) {
                m_typeView = value;
                m_typeOwned = false;
            } else {
                m_type.resize(0);
                m_type.append(value);
                m_typeOwned = true;
            }
        } else if (is(name, "retry")) {
            // Only ASCII digits count; anything else (sign, space, dot, empty) is ignored, and so
            // is a number too large to be a reconnection time.
            if (value.isEmpty())
                return;
            qint64 ms = 0;
            for (const char c : value) {
                if (c < '0' || c > '9')
                    return;
                const int digit = c - '0';
                if (ms > (std::numeric_limits<qint64>::max() - digit) / 10)
                    return;
                ms = ms * 10 + digit;
            }
            m_retryMs = ms;
        }
        return;
    case 2:
        if (is(name, "id") && (value.isEmpty() || !std::memchr(value.data(), '\0', size_t(value.size())))) {
            m_idBuffer = value.toByteArray();
            m_idPending = true;
        }
        return;
    default:
        return; // unknown field
    }
}

void SseParser::processLine(QByteArrayView line, bool stable, EventSink sink)
{
    if (line.isEmpty()) {
        dispatch(sink);
        return;
    }
    if (line.size() > m_maxEventSize) {
        fail("event line");
        return;
    }
    if (line.front() == ':')
        return; // comment, e.g. a keep-alive
    // The two lines every OpenAI event has, without the generic colon search.
    if (startsWith(line, "data:")) {
        appendData(fieldValue(line.sliced(5)), stable);
        return;
    }
    if (startsWith(line, "event:")) {
        processField(line.first(5), fieldValue(line.sliced(6)), stable);
        return;
    }
    const void *colon = std::memchr(line.data(), ':', size_t(line.size()));
    if (!colon) {
        processField(line, {}, stable); // the whole line is the field name, the value is empty
        return;
    }
    const qsizetype nameSize = static_cast<const char *>(colon) - line.data();
    processField(line.first(nameSize), fieldValue(line.sliced(nameSize + 1)), stable);
}

void SseParser::dispatch(EventSink sink)
{
    // Every blank line commits the ID buffer, even one that dispatches nothing. Committing only
    // after an id: field is the same thing: otherwise the buffer still equals the committed ID.
    if (m_idPending) {
        m_lastEventId = m_idBuffer;
        m_idPending = false;
    }
    if (m_dataLines > 0) {
        QByteArrayView type = m_typeOwned ? QByteArrayView(m_type) : m_typeView;
        if (type.isEmpty())
            type = "message";
        const SseEvent event{type, m_dataOwned ? QByteArrayView(m_data) : m_dataView,
                             QByteArrayView(m_lastEventId)};
        sink.invoke(sink.context, event);
        m_dataLines = 0;
        m_dataView = {};
        if (m_dataOwned) {
            reuse(m_data);
            m_dataOwned = false;
        }
    }
    m_typeView = {};
    if (m_typeOwned) {
        reuse(m_type);
        m_typeOwned = false;
    }
}

// Views into the chunk die when feed() returns: copy what the unfinished event still needs.
void SseParser::keepPendingEvent()
{
    if (m_dataLines > 0 && !m_dataOwned) {
        m_data.resize(0);
        m_data.append(m_dataView);
        m_dataOwned = true;
        m_dataView = {};
    }
    if (!m_typeOwned && !m_typeView.isEmpty()) {
        m_type.resize(0);
        m_type.append(m_typeView);
        m_typeOwned = true;
        m_typeView = {};
    }
}

bool SseParser::feedImpl(QByteArrayView bytes, EventSink sink)
{
    if (m_failed)
        return false;
    if (bytes.isEmpty())
        return true;

    const char *p = bytes.data();
    const char *const end = p + bytes.size();
    if (!m_bomDone && (!consumeBom(p, end) || p == end))
        return !m_failed;
    if (m_skipLf) {
        m_skipLf = false;
        if (*p == '\n')
            ++p;
    }

    // Lines end at \n, \r\n or \r. The next \r is searched once and remembered, so streams
    // without \r cost one memchr per line and a \r-heavy stream is still scanned linearly.
    const char *cr = p < end ? findCr(p, end) : end;
    const auto findLineEnd = [&](const char *from, const char *&eol, const char *&next) {
        if (cr < from)
            cr = findCr(from, end);
        if (const void *lf = std::memchr(from, '\n', size_t(cr - from))) {
            eol = static_cast<const char *>(lf);
            next = eol + 1;
            return true;
        }
        if (cr == end)
            return false;
        eol = cr;
        if (cr + 1 < end) {
            next = cr + (cr[1] == '\n' ? 2 : 1);
        } else {
            next = end;
            m_skipLf = true; // a \n opening the next chunk completes this \r\n
        }
        return true;
    };

    const char *eol = nullptr;
    const char *next = nullptr;
    if (!m_line.isEmpty()) {
        // Finish the line left over from the last chunk; it is the only one that is copied.
        if (!findLineEnd(p, eol, next))
            return appendPartialLine(QByteArrayView(p, end - p));
        if (!appendPartialLine(QByteArrayView(p, eol - p)))
            return false;
        processLine(m_line, false, sink);
        if (m_failed)
            return false;
        reuse(m_line);
        p = next;
    }
    while (p < end) {
        if (*p == '\n') {
            // The blank line that ends nearly every event: no need to search for it.
            dispatch(sink);
            ++p;
            continue;
        }
        if (!findLineEnd(p, eol, next)) {
            if (!appendPartialLine(QByteArrayView(p, end - p)))
                return false;
            break;
        }
        processLine(QByteArrayView(p, eol - p), true, sink);
        if (m_failed)
            return false;
        p = next;
    }
    keepPendingEvent();
    return true;
}

} // namespace Runwatch
