// SPDX-License-Identifier: GPL-3.0-or-later
#include "streamreply.h"

#include "httpmessage.h"
#include "netlog.h"

#include <QHostAddress>
#include <QNetworkAccessManager>
#include <QNetworkProxyFactory>
#include <QPointer>

#include <cstring>

using namespace Qt::StringLiterals;

namespace Runwatch::detail {

namespace {

// The request as bytes on the wire (RFC 9112 §3): origin-form target, Host first, the caller's
// fields, a body with its length. Connection: close — the connection carries this one stream.
// Returns an empty array when a field would smuggle a line break into the request (the check
// HttpClient makes before either transport, kept here for a request that reaches the pump
// another way).
QByteArray serialize(const HttpRequest &request, const QByteArray &method)
{
    if (!request.unsafeField().isEmpty())
        return {};
    const QUrl &url = request.url;
    QByteArray target = url.toEncoded(QUrl::RemoveScheme | QUrl::RemoveAuthority | QUrl::RemoveFragment);
    if (!target.startsWith('/'))
        target.prepend('/');
    QByteArray host = url.host(QUrl::FullyEncoded).toUtf8();
    if (QHostAddress(url.host()).protocol() == QAbstractSocket::IPv6Protocol)
        host = '[' + host + ']';
    const int defaultPort = url.scheme().compare(u"https"_s, Qt::CaseInsensitive) == 0 ? 443 : 80;
    if (url.port(defaultPort) != defaultPort)
        host += ':' + QByteArray::number(url.port());

    QByteArray wire;
    wire.reserve(512 + request.body.size());
    wire += method + ' ' + target + " HTTP/1.1\r\nHost: " + host + "\r\n";
    for (const auto &h : request.headers) {
        const QByteArray lower = h.first.toLower();
        if (lower == "host" || lower == "content-length" || lower == "connection"
            || lower == "transfer-encoding")
            continue; // ours to set
        wire += h.first + ": " + h.second + "\r\n";
    }
    if (!findHeader(request.headers, "user-agent"))
        wire += "User-Agent: Runwatch/" RUNWATCH_VERSION_STRING "\r\n";
    // Compressed event streams would need inflating here; ask for none.
    if (!findHeader(request.headers, "accept-encoding"))
        wire += "Accept-Encoding: identity\r\n";
    if (const QByteArray contentType = request.impliedContentType(); !contentType.isEmpty())
        wire += "Content-Type: " + contentType + "\r\n";
    if (!request.body.isEmpty() || method == "POST" || method == "PUT" || method == "PATCH")
        wire += "Content-Length: " + QByteArray::number(request.body.size()) + "\r\n";
    wire += "Connection: close\r\n\r\n";
    wire += request.body;
    return wire;
}

QByteArray combined(const QList<QByteArray> &values, const QByteArray &name)
{
    // As QNAM does: repeated fields become one, Set-Cookie lines stay apart.
    return values.join(name.compare("set-cookie", Qt::CaseInsensitive) == 0 ? "\n" : ", ");
}

} // namespace

bool StreamReply::usable(const QUrl &url, const QNetworkAccessManager *manager)
{
    const QString scheme = url.scheme().toLower();
    if ((scheme != u"http"_s && scheme != u"https"_s) || url.host().isEmpty())
        return false;
    if (!url.userName().isEmpty())
        return false; // credentials in the URL: QNAM's authentication handles them
    // The proxy QNAM would use: the manager's own, its factory's, then the application's.
    QList<QNetworkProxy> proxies;
    if (manager && manager->proxy().type() != QNetworkProxy::DefaultProxy) {
        proxies = {manager->proxy()};
    } else if (manager && manager->proxyFactory()) {
        proxies = manager->proxyFactory()->queryProxy(QNetworkProxyQuery(url));
    } else {
        proxies = QNetworkProxyFactory::proxyForQuery(QNetworkProxyQuery(url));
    }
    if (proxies.isEmpty())
        return true;
    const QNetworkProxy &first = proxies.first();
    return first.type() == QNetworkProxy::NoProxy
           || (first.type() == QNetworkProxy::DefaultProxy
               && QNetworkProxy::applicationProxy().type() == QNetworkProxy::NoProxy);
}

StreamReply::StreamReply(const HttpRequest &request, qint64 inactivityTimeoutMs, QObject *parent)
    : QNetworkReply(parent)
    , m_pump(StreamPump::shared())
{
    QNetworkRequest req(request.url);
    for (const auto &h : request.headers)
        req.setRawHeader(h.first, h.second);
    setRequest(req);
    setUrl(request.url);
    setOperation(request.method == "GET"    ? QNetworkAccessManager::GetOperation
                 : request.method == "POST" ? QNetworkAccessManager::PostOperation
                                            : QNetworkAccessManager::CustomOperation);
    setAttribute(QNetworkRequest::CustomVerbAttribute, request.method);
    open(QIODevice::ReadOnly | QIODevice::Unbuffered);

    StreamTarget target;
    target.host = request.url.host();
    target.tls = request.url.scheme().compare(u"https"_s, Qt::CaseInsensitive) == 0;
    target.port = static_cast<quint16>(request.url.port(target.tls ? 443 : 80));
    target.head = request.method == "HEAD";
    target.inactivityMs = inactivityTimeoutMs;
    target.wire = serialize(request, request.method);
    if (target.wire.isEmpty()) {
        qCWarning(lcNet) << "stream request to" << target.host
                         << "not sent: a line break in the method, URL or"
                         << "a header";
        // Reported from the event loop, like every other failure of a reply.
        QMetaObject::invokeMethod(
            this,
            [this] {
                fail(ProtocolInvalidOperationError,
                     u"invalid request: a line break in the method, URL or a header"_s);
            },
            Qt::QueuedConnection);
        return;
    }
    m_channel = m_pump->open(this, std::move(target));
}

StreamReply::~StreamReply()
{
    m_pump->close(m_channel);
}

void StreamReply::abort()
{
    m_reader = nullptr;
    if (m_done)
        return;
    m_pump->close(m_channel);
    fail(OperationCanceledError, u"Operation canceled"_s);
}

qint64 StreamReply::bytesAvailable() const
{
    return (m_buffer.size() - m_read) + QNetworkReply::bytesAvailable();
}

qint64 StreamReply::readData(char *data, qint64 maxSize)
{
    const qint64 n = std::min<qint64>(maxSize, m_buffer.size() - m_read);
    if (n <= 0)
        return m_done ? -1 : 0;
    std::memcpy(data, m_buffer.constData() + m_read, static_cast<size_t>(n));
    m_read += n;
    if (m_read == m_buffer.size()) {
        m_buffer.clear();
        m_read = 0;
    }
    if (m_wantMore && m_buffer.size() - m_read < StreamPump::MaxUnread / 2) {
        // The reader caught up: fetch what the connection holds back, from the event loop
        // (we are inside the reader's read()).
        m_wantMore = false;
        QMetaObject::invokeMethod(this, &StreamReply::absorb, Qt::QueuedConnection);
    }
    return n;
}

void StreamReply::fail(NetworkError code, const QString &message)
{
    if (m_done)
        return;
    QPointer<StreamReply> self(this);
    setError(code, message);
    m_done = true;
    setFinished(true);
    Q_EMIT errorOccurred(code);
    if (self)
        Q_EMIT finished();
}

void StreamReply::finish()
{
    if (m_done)
        return;
    m_done = true;
    setFinished(true);
    Q_EMIT finished();
}

template<typename CallOut>
bool StreamReply::survives(CallOut &&callOut)
{
    return m_watch.survives(std::forward<CallOut>(callOut)) && !m_done;
}

void StreamReply::attachDecoder(std::unique_ptr<StreamDecoder> decoder)
{
    if (!decoder)
        return;
    // What this reply holds comes before what the connection holds: decode it first, here (the
    // decoder is not shared yet).
    if (m_buffer.size() > m_read) {
        std::unique_ptr<StreamDecoded> out;
        decodeInto(*decoder, QByteArrayView(m_buffer).sliced(m_read), out);
        m_buffer.clear();
        m_read = 0;
        appendDecoded(m_decoded, std::move(out));
    }
    m_wantMore = false;
    if (m_channel)
        m_pump->attachDecoder(m_channel, std::move(decoder));
}

void StreamReply::setRelaxed(bool relaxed)
{
    if (m_channel)
        m_pump->setRelaxed(m_channel, relaxed);
}

void StreamReply::absorb()
{
    if (m_done || !m_channel)
        return;
    // Backpressure: at most MaxUnread bytes wait here for the reader; the rest stays with the
    // connection, which stops reading from the socket once it holds as much.
    const qsizetype unread = m_buffer.size() - m_read;
    StreamIncoming in = m_pump->take(m_channel, StreamPump::MaxUnread - unread);
    m_wantMore = unread + in.data.size() >= StreamPump::MaxUnread;
    if (in.headers) {
        setAttribute(QNetworkRequest::HttpStatusCodeAttribute, in.status);
        setAttribute(QNetworkRequest::HttpReasonPhraseAttribute, QString::fromLatin1(in.reason));
        QList<QByteArray> names;
        QHash<QByteArray, QList<QByteArray>> values;
        for (const auto &h : std::as_const(in.headerList)) {
            const QByteArray key = h.first.toLower();
            if (!values.contains(key))
                names.append(h.first);
            values[key].append(h.second);
        }
        for (const QByteArray &name : std::as_const(names))
            setRawHeader(name, combined(values.value(name.toLower()), name));
        if (!survives([this] { Q_EMIT metaDataChanged(); }))
            return;
    }
    appendDecoded(m_decoded, std::move(in.decoded));
    if (!in.data.isEmpty()) {
        if (m_read > 0) {
            m_buffer.remove(0, m_read);
            m_read = 0;
        }
        m_buffer.append(in.data);
    }
    // A reader that decodes is told directly (no signal per stream per frame); bytes go out as
    // readyRead, as from any QNetworkReply.
    const bool decodedOnly = in.data.isEmpty();
    const auto announce = [this, decodedOnly] {
        if (m_reader && decodedOnly) {
            m_reader->decodedReady();
        } else {
            Q_EMIT readyRead();
        }
    };
    if ((!decodedOnly || m_decoded) && !survives(announce))
        return;
    if (in.finished) {
        if (in.error != NoError) {
            fail(in.error, in.errorString);
            return;
        }
        finish();
    }
}

} // namespace Runwatch::detail
