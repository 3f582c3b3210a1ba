// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The two things HttpClient::perform() waits for: one attempt's reply, and the pause between
// attempts. Both can be cut short by the client (abortAll, shutdown, destruction).

#include "httpmessage.h"
#include "httppolicy.h"
#include "resumablewait.h"

#include <QObject>
#include <QPointer>
#include <QTimer>

#include <chrono>

class QNetworkReply;

namespace Runwatch {
class HttpClient;
}

namespace Runwatch::detail {

// Watches one QNetworkReply until it is done for our purposes: finished (buffered), headers of a
// 2xx arrived (stream), a redirect, a timeout, an overflow or an abort. Owned by the coroutine
// frame that awaits it (done()).
class HttpAttempt final : public QObject, public ResumableWait
{
public:
    struct Result
    {
        HttpResponse response;
        bool streamReady = false;
        bool redirect = false;
        QUrl redirectTo;
    };

    HttpAttempt(HttpClient *client, QNetworkReply *reply, bool stream, const RetryPolicy &policy);
    ~HttpAttempt() override;

    // The client aborts it: the result is Cancelled.
    void cancel();
    Result result() const;

private:
    qint64 bodyLimit() const;
    void onMetaData();
    void onReadyRead();
    void drain();
    void onFinished();
    void onConnectTimeout();
    void onReplyDestroyed();
    void finish();
    void finishAndAbort();

    QPointer<HttpClient> m_client;
    QPointer<QNetworkReply> m_reply;
    RetryPolicy m_policy;
    QTimer m_connectTimer;
    QByteArray m_body;
    int m_status = 0;
    bool m_stream = false;
    bool m_headers = false;
    bool m_timedOut = false;
    bool m_cancelled = false;
    bool m_tooLarge = false;
    bool m_redirect = false;
    bool m_replyGone = false;
};

// The wait between two attempts. Unlike QCoro::sleepFor it can be cut short: abortAll(),
// shutdown() and the client's destructor wake every sleeper, so that no coroutine stays
// suspended for up to maxRetryAfter after the client was told to stop. Owned by the coroutine
// frame that awaits it, like HttpAttempt.
class RetrySleep final : public QObject, public ResumableWait
{
public:
    RetrySleep(HttpClient *client, std::chrono::milliseconds delay);
    ~RetrySleep() override;

    void wake();

private:
    QPointer<HttpClient> m_client;
    QTimer m_timer;
};

} // namespace Runwatch::detail
