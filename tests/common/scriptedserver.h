// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QElapsedTimer>
#include <QHash>
#include <QList>
#include <QMetaType>
#include <QObject>
#include <QPair>
#include <QPointer>
#include <QTcpServer>
#include <QUrl>

#include <deque>
#include <memory>

class QTcpSocket;

namespace RunwatchTest {

using HeaderList = QList<QPair<QByteArray, QByteArray>>;

// One scripted answer. Build it with the static helpers and adjust fields as needed:
//   ScriptedReply::json(429, R"({"error":{...}})", {{"Retry-After", "1"}})
//   ScriptedReply::stream(200, {{"Content-Type","text/event-stream"}}, {{0, "data: a\n\n"},
//                                                                        {200, "data: b\n\n"}})
struct ScriptedReply
{
    enum class Action {
        Respond,            // status line, headers, body (or timed chunks)
        CloseWithoutAnswer, // read the request, then close the connection (FIN): no status line
        ResetWithoutAnswer, // read the request, then abort the connection (RST where possible)
        NeverAnswer,        // read the request, keep the connection open, say nothing
        HeadersThenDrop,    // send status line + headers (Content-Length of the body), then close
        Hold,               // send status line + headers (chunked) and keep the stream open for
                            // ScriptedServer::pushToHeld()/endHeld()/dropHeld()
    };
    struct Chunk
    {
        int delayMs = 0; // after the previous chunk (or after the headers)
        QByteArray data;
    };

    Action action = Action::Respond;
    int status = 200;
    QByteArray reason;            // default: the standard phrase
    HeaderList headers;           // sent as given; Content-Length / Transfer-Encoding added as needed
    QByteArray body;              // ignored when `chunks` is not empty
    QList<Chunk> chunks;          // non-empty: body sent with chunked encoding, chunk by chunk
    bool dropAfterChunks = false; // close after the last chunk without the terminating chunk
    int delayMs = 0;              // wait this long after the request arrived before doing anything
    bool closeConnection = false; // send `Connection: close` and close after the reply

    static ScriptedReply json(int status, const QByteArray &body, HeaderList headers = {});
    static ScriptedReply text(int status, const QByteArray &contentType, const QByteArray &body,
                              HeaderList headers = {});
    // {"error":{"message","type","param":null,"code"}}; an empty code is sent as null.
    static ScriptedReply openAiError(int status, const QByteArray &message, const QByteArray &type,
                                     const QByteArray &code, HeaderList headers = {});
    static ScriptedReply redirect(int status, const QByteArray &location);
    static ScriptedReply stream(int status, HeaderList headers, QList<Chunk> chunks);
    static ScriptedReply hold(int status = 200, HeaderList headers = {{"Content-Type", "text/event-stream"}});
    static ScriptedReply closeWithoutAnswer();
    static ScriptedReply resetWithoutAnswer();
    static ScriptedReply neverAnswer();
    static ScriptedReply headersThenDrop(int status, HeaderList headers, qint64 promisedLength);
};

struct RecordedRequest
{
    QByteArray method;
    QByteArray target;  // path + query as sent, e.g. "/v1/responses/r1?stream=true"
    QByteArray path;    // without the query
    HeaderList headers; // names lower-cased
    QByteArray body;
    qint64 receivedAtMs = 0; // when the whole request had arrived, ms since the server started
    quint16 peerPort = 0;    // tells connections apart (keep-alive reuse)

    QByteArray header(QByteArrayView lowerName) const;
};

// A loopback HTTP/1.1 server for tests: 127.0.0.1, port chosen by the OS. Each path has a queue
// of scripted replies, consumed in order; a request with no reply queued gets a 404 with an
// OpenAI-style error body saying so. Every request is recorded (method, target, headers, body,
// arrival time), so tests can assert what was sent and when, e.g. the time between retries.
// Keep-alive is supported (requests on one connection are answered in order).
class ScriptedServer : public QObject
{
    Q_OBJECT
public:
    explicit ScriptedServer(QObject *parent = nullptr);
    ~ScriptedServer() override;

    bool isListening() const { return m_server.isListening(); }
    quint16 port() const { return m_server.serverPort(); }
    // http://127.0.0.1:<port><pathAndQuery>
    QUrl url(const QString &pathAndQuery = QStringLiteral("/")) const;

    // Queues `reply` (`times` times) for requests whose path, or full target with the query,
    // equals `path`. An exact target match wins over a path match.
    void enqueue(const QByteArray &path, const ScriptedReply &reply, int times = 1);
    int pendingReplies(const QByteArray &path) const;

    // By reference: valid until the next request arrives; copy an entry to keep it longer.
    const QList<RecordedRequest> &requests() const { return m_requests; }
    QList<RecordedRequest> requests(const QByteArray &path) const;
    int requestCount() const { return static_cast<int>(m_requests.size()); }
    int requestCount(const QByteArray &path) const;
    qint64 elapsedMs() const { return m_clock.elapsed(); }
    void clearRecorded() { m_requests.clear(); }

    // Streams left open by ScriptedReply::Hold (in the order they were opened).
    int heldCount() const;
    void pushToHeld(const QByteArray &data, int index = -1); // -1: every held stream
    void endHeld(int index = -1);                            // terminating chunk, stream finishes cleanly
    void dropHeld(int index = -1);                           // close the connection mid-body

    // Stops listening (new connections are refused) and closes every connection.
    void close();

Q_SIGNALS:
    void requestReceived(const RunwatchTest::RecordedRequest &request);
    void connectionClosed();

private:
    struct Connection;
    struct Held
    {
        std::shared_ptr<Connection> connection;
    };

    void onNewConnection();
    void onReadyRead(QTcpSocket *socket);
    void processBuffer(const std::shared_ptr<Connection> &connection);
    ScriptedReply takeReply(const RecordedRequest &request);
    void answer(const std::shared_ptr<Connection> &connection, const ScriptedReply &reply,
                const RecordedRequest &request);
    void sendChunks(const std::shared_ptr<Connection> &connection, const ScriptedReply &reply, int index);
    void replyDone(const std::shared_ptr<Connection> &connection, bool close);
    QList<std::shared_ptr<Connection>> liveHeld(int index);

    QTcpServer m_server;
    QElapsedTimer m_clock;
    QHash<QByteArray, std::deque<ScriptedReply>> m_script;
    QList<RecordedRequest> m_requests;
    QHash<QTcpSocket *, std::shared_ptr<Connection>> m_connections;
    QList<Held> m_held;
};

} // namespace RunwatchTest

// For QTest data columns and QSignalSpy.
Q_DECLARE_METATYPE(RunwatchTest::ScriptedReply)
Q_DECLARE_METATYPE(RunwatchTest::RecordedRequest)
