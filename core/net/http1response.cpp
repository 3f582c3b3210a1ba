// SPDX-License-Identifier: GPL-3.0-or-later
#include "http1response.h"

#include <limits>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

// Longest chunk-size line accepted (size, extensions, CRLF): real ones are a few bytes.
constexpr qsizetype kMaxChunkLine = 4096;

bool isTokenChar(char c)
{
    // RFC 9110 tchar.
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    switch (c) {
    case '!':
    case '#':
    case '$':
    case '%':
    case '&':
    case '\'':
    case '*':
    case '+':
    case '-':
    case '.':
    case '^':
    case '_':
    case '`':
    case '|':
    case '~':
        return true;
    default:
        return false;
    }
}

QByteArray trimmedOws(QByteArrayView v)
{
    qsizetype b = 0;
    qsizetype e = v.size();
    while (b < e && (v[b] == ' ' || v[b] == '\t'))
        ++b;
    while (e > b && (v[e - 1] == ' ' || v[e - 1] == '\t'))
        --e;
    return v.sliced(b, e - b).toByteArray();
}

// Strict non-negative decimal (Content-Length): digits only, no overflow.
bool parseDecimal(QByteArrayView v, qint64 &out)
{
    if (v.isEmpty())
        return false;
    qint64 n = 0;
    for (char c : v) {
        if (c < '0' || c > '9')
            return false;
        if (n > (std::numeric_limits<qint64>::max() - (c - '0')) / 10)
            return false;
        n = n * 10 + (c - '0');
    }
    out = n;
    return true;
}

bool parseHex(QByteArrayView v, qint64 &out)
{
    if (v.isEmpty())
        return false;
    qint64 n = 0;
    for (char c : v) {
        int d = -1;
        if (c >= '0' && c <= '9') {
            d = c - '0';
        } else if (c >= 'a' && c <= 'f') {
            d = c - 'a' + 10;
        } else if (c >= 'A' && c <= 'F') {
            d = c - 'A' + 10;
        }
        if (d < 0)
            return false;
        if (n > (std::numeric_limits<qint64>::max() - d) / 16)
            return false;
        n = n * 16 + d;
    }
    out = n;
    return true;
}

} // namespace

Http1ResponseParser::Http1ResponseParser(bool headRequest)
    : m_headRequest(headRequest)
{}

bool Http1ResponseParser::fail(const QString &why)
{
    m_state = State::Failed;
    m_error = why;
    m_line.clear();
    return false;
}

// Takes bytes up to and including the next LF into `line` (without CR LF / LF). `complete` says
// whether a whole line was found; otherwise everything was consumed into the partial line.
bool Http1ResponseParser::takeLine(QByteArrayView &bytes, qsizetype limit, QByteArray &line, bool &complete)
{
    const qsizetype lf = bytes.indexOf('\n');
    const qsizetype take = lf < 0 ? bytes.size() : lf;
    if (m_line.size() + take > limit)
        return false;
    m_line.append(bytes.first(take));
    if (lf < 0) {
        bytes = {};
        complete = false;
        return true;
    }
    bytes = bytes.sliced(lf + 1);
    if (m_line.endsWith('\r'))
        m_line.chop(1);
    line = std::exchange(m_line, {});
    complete = true;
    return true;
}

bool Http1ResponseParser::parseStatusLine(const QByteArray &line)
{
    // HTTP-version SP 3DIGIT SP [reason-phrase]; some servers omit the space after the code.
    if (!line.startsWith("HTTP/1.") || line.size() < 12 || line[8] != ' ') {
        return fail(u"not an HTTP/1.x response (status line \"%1\")"_s.arg(
            QString::fromLatin1(line.left(40)).toHtmlEscaped()));
    }
    int status = 0;
    for (int i = 9; i < 12; ++i) {
        const char c = line[i];
        if (c < '0' || c > '9')
            return fail(u"invalid HTTP status code"_s);
        status = status * 10 + (c - '0');
    }
    if (status < 100 || (line.size() > 12 && line[12] != ' '))
        return fail(u"invalid HTTP status code"_s);
    m_status = status;
    m_reason = line.size() > 13 ? line.mid(13) : QByteArray();
    m_headers.clear();
    m_state = State::Headers;
    return true;
}

bool Http1ResponseParser::parseHeaderLine(const QByteArray &line)
{
    if (line.front() == ' ' || line.front() == '\t') {
        // obs-fold (RFC 9112 §5.2): a recipient may replace it with a space.
        if (m_headers.isEmpty())
            return fail(u"malformed HTTP header section"_s);
        m_headers.last().second += ' ' + trimmedOws(line);
        return true;
    }
    const qsizetype colon = line.indexOf(':');
    if (colon <= 0)
        return fail(u"malformed HTTP header line"_s);
    const QByteArrayView name = QByteArrayView(line).first(colon);
    for (char c : name) {
        if (!isTokenChar(c))
            return fail(u"malformed HTTP header name"_s);
    }
    m_headers.append({name.toByteArray(), trimmedOws(QByteArrayView(line).sliced(colon + 1))});
    return true;
}

bool Http1ResponseParser::headersEnded()
{
    if (m_status >= 100 && m_status < 200) {
        if (m_status == 101)
            return fail(u"the server switched protocols"_s);
        // Interim response (100 Continue, 103 Early Hints): the real one follows.
        m_state = State::StatusLine;
        m_headerBytes = 0;
        return true;
    }
    // Transfer-Encoding overrides Content-Length (RFC 9112 §6.3); chunked must be the final
    // coding, and a body with any other final coding ends with the connection.
    bool hasTransferEncoding = false;
    bool chunked = false;
    for (const auto &h : m_headers) {
        if (h.first.compare("transfer-encoding", Qt::CaseInsensitive) == 0) {
            hasTransferEncoding = true;
            const QList<QByteArray> codings = h.second.split(',');
            chunked = trimmedOws(codings.last()).compare("chunked", Qt::CaseInsensitive) == 0;
        }
    }
    bool haveLength = false;
    qint64 length = 0;
    for (const auto &h : m_headers) {
        if (hasTransferEncoding || h.first.compare("content-length", Qt::CaseInsensitive) != 0)
            continue;
        // Repeated identical values are allowed (RFC 9110 §8.6), different ones are not.
        for (const QByteArray &part : h.second.split(',')) {
            qint64 v = 0;
            if (!parseDecimal(QByteArrayView(trimmedOws(part)), v))
                return fail(u"invalid Content-Length"_s);
            if (haveLength && v != length)
                return fail(u"conflicting Content-Length values"_s);
            length = v;
            haveLength = true;
        }
    }
    m_headerBytes = 0;
    m_headersDone = true;
    if (m_headRequest || m_status == 204 || m_status == 304) {
        m_framing = Framing::None;
        m_state = State::Done;
    } else if (chunked) {
        m_framing = Framing::Chunked;
        m_chunkState = ChunkState::Size;
        m_state = State::Body;
    } else if (haveLength) {
        m_framing = Framing::Length;
        m_remaining = length;
        m_state = length == 0 ? State::Done : State::Body;
    } else {
        m_framing = Framing::Close;
        m_state = State::Body;
    }
    return true;
}

bool Http1ResponseParser::feedChunked(QByteArrayView &bytes, QByteArray &body)
{
    while (!bytes.isEmpty() && m_state == State::Body) {
        switch (m_chunkState) {
        case ChunkState::Size: {
            QByteArray line;
            bool complete = false;
            if (!takeLine(bytes, kMaxChunkLine, line, complete))
                return fail(u"chunk-size line too long"_s);
            if (!complete)
                return true;
            QByteArrayView size(line);
            if (const qsizetype semi = size.indexOf(';'); semi >= 0)
                size = size.first(semi); // chunk extensions carry nothing we use
            qint64 n = 0;
            if (!parseHex(QByteArrayView(trimmedOws(size)), n))
                return fail(u"invalid chunk size"_s);
            if (n == 0) {
                m_chunkState = ChunkState::Trailers;
                m_headerBytes = 0;
            } else {
                m_remaining = n;
                m_chunkState = ChunkState::Data;
            }
            break;
        }
        case ChunkState::Data: {
            const qsizetype take = static_cast<qsizetype>(std::min<qint64>(m_remaining, bytes.size()));
            body.append(bytes.first(take));
            bytes = bytes.sliced(take);
            m_remaining -= take;
            if (m_remaining == 0)
                m_chunkState = ChunkState::DataEnd;
            break;
        }
        case ChunkState::DataEnd: {
            QByteArray line;
            bool complete = false;
            if (!takeLine(bytes, 2, line, complete))
                return fail(u"missing CRLF after chunk data"_s);
            if (!complete)
                return true;
            if (!line.isEmpty())
                return fail(u"missing CRLF after chunk data"_s);
            m_chunkState = ChunkState::Size;
            break;
        }
        case ChunkState::Trailers: {
            QByteArray line;
            bool complete = false;
            const qsizetype before = bytes.size();
            if (!takeLine(bytes, MaxHeaderBytes, line, complete))
                return fail(u"trailer section too large"_s);
            m_headerBytes += before - bytes.size();
            if (m_headerBytes > MaxHeaderBytes)
                return fail(u"trailer section too large"_s);
            if (complete && line.isEmpty())
                m_state = State::Done; // trailer fields themselves are dropped
            break;
        }
        }
    }
    return true;
}

bool Http1ResponseParser::feed(QByteArrayView bytes, QByteArray &body)
{
    while (!bytes.isEmpty()) {
        switch (m_state) {
        case State::Done:
            return true;
        case State::Failed:
            return false;
        case State::StatusLine:
        case State::Headers: {
            QByteArray line;
            bool complete = false;
            const qsizetype before = bytes.size();
            if (!takeLine(bytes, MaxHeaderBytes, line, complete))
                return fail(u"HTTP header section larger than %1 bytes"_s.arg(MaxHeaderBytes));
            m_headerBytes += before - bytes.size();
            if (m_headerBytes > MaxHeaderBytes)
                return fail(u"HTTP header section larger than %1 bytes"_s.arg(MaxHeaderBytes));
            if (!complete)
                return true;
            if (m_state == State::StatusLine) {
                if (line.isEmpty())
                    break; // empty lines before the status line are ignored (RFC 9112 §2.2)
                if (!parseStatusLine(line))
                    return false;
            } else if (line.isEmpty()) {
                if (!headersEnded())
                    return false;
            } else if (!parseHeaderLine(line)) {
                return false;
            }
            break;
        }
        case State::Body:
            switch (m_framing) {
            case Framing::Close:
                body.append(bytes);
                return true;
            case Framing::Length: {
                const qsizetype take = static_cast<qsizetype>(std::min<qint64>(m_remaining, bytes.size()));
                body.append(bytes.first(take));
                bytes = bytes.sliced(take);
                m_remaining -= take;
                if (m_remaining == 0)
                    m_state = State::Done;
                break;
            }
            case Framing::Chunked:
                if (!feedChunked(bytes, body))
                    return false;
                break;
            case Framing::None:
                m_state = State::Done;
                break;
            }
            break;
        }
    }
    return m_state != State::Failed;
}

bool Http1ResponseParser::closed()
{
    if (m_state == State::Body && m_framing == Framing::Close)
        m_state = State::Done;
    if (m_state == State::Done)
        return true;
    if (m_state != State::Failed) {
        fail(m_state == State::Body ? u"the connection closed before the response body was complete"_s
                                    : u"the connection closed before a complete HTTP response"_s);
    }
    return false;
}

} // namespace Runwatch
