// SPDX-License-Identifier: GPL-3.0-or-later
#include "ssedecoder.h"

using namespace Qt::StringLiterals;

namespace Runwatch {

void SseBatch::append(StreamDecoded &&later)
{
    // Only SseDecoders hand SseBatches to a stream that reads them.
    auto &next = static_cast<SseBatch &>(later);
    events.append(std::move(next.events));
    if (next.end && !end && !settle)
        end = std::move(next.end);
    settle = settle || (next.settle && !end);
    gotBytes = gotBytes || next.gotBytes;
    if (next.retryMs)
        retryMs = next.retryMs;
    if (next.readerState.has_value())
        readerState = std::move(next.readerState);
}

void SseDecoder::setLimits(Limits limits)
{
    if (limits.maxEventSize)
        m_parser.setMaxEventSize(*limits.maxEventSize);
    m_oversizeRetryable = limits.oversizeRetryable;
}

std::any SseDecoder::readerState() const
{
    return {};
}

bool SseDecoder::decode(QByteArrayView bytes)
{
    if (m_stopped)
        return false;
    if (bytes.isEmpty())
        return true;
    m_fresh = true;
    m_pending.gotBytes = true;
    bool keepGoing = true;
    const bool parsed = m_parser.feed(bytes, [this, &keepGoing](const SseEvent &event) {
        if (keepGoing)
            keepGoing = handleEvent(event, m_pending.events);
    });
    if (!parsed && keepGoing) {
        endAfterBatch({StreamEnd::Reason::Error,
                       RunError::protocol(u"event_too_large"_s, m_parser.errorString(), m_oversizeRetryable),
                       std::nullopt});
        keepGoing = false;
    }
    m_pending.retryMs = m_parser.retryMs();
    m_pending.readerState = readerState();
    m_stopped = !keepGoing;
    return keepGoing;
}

void SseDecoder::handOver(std::unique_ptr<StreamDecoded> &out)
{
    if (!m_fresh)
        return;
    m_fresh = false;
    SseBatch batch = std::exchange(m_pending, {});
    if (out) {
        out->append(std::move(batch));
    } else {
        out = std::make_unique<SseBatch>(std::move(batch));
    }
}

} // namespace Runwatch
