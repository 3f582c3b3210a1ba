// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The request log every simulator keeps for assertions in tests: one record per request, numbered
// in arrival order, each protocol adding what it knows of the request (endpoint, run id, …).

#include "httpmessage.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QUrl>

#include <utility>

namespace RunwatchSim {

struct RequestRecord
{
    qint64 serial = 0; // 1, 2, … in arrival order
    QByteArray method;
    QString path;       // decoded, without the query
    QString query;      // fully encoded, may be empty
    HeaderList headers; // names lower-cased
    QByteArray body;
    int status = 0;       // what was answered; 0 while unanswered (or when the answer was lost)
    bool faulted = false; // answered (or lost) by an injected fault

    // First value of a header (any case), empty when absent.
    QByteArray header(QByteArrayView name) const { return headerValue(headers, name); }
    // Copies method, path, query, headers and body.
    void setRequest(const HttpRequest &request)
    {
        method = request.method;
        path = request.path;
        query = request.query.toString(QUrl::FullyEncoded);
        headers = request.headers;
        body = request.body;
    }
};

template<typename Record>
class RequestLog
{
public:
    // Appends `record` under the next serial number and returns that number.
    qint64 append(Record record)
    {
        if (m_records.size() >= kMaxRecords) {
            // A standalone server runs for days: keep the newest half.
            m_records.remove(0, kMaxRecords / 2);
            m_firstSerial += kMaxRecords / 2;
        }
        record.serial = m_nextSerial++;
        m_records.append(std::move(record));
        return m_records.last().serial;
    }

    // The record of request `serial`, or nullptr when it is no longer (or not yet) kept.
    Record *find(qint64 serial)
    {
        const qint64 index = serial - m_firstSerial;
        return index >= 0 && index < m_records.size() ? &m_records[index] : nullptr;
    }

    const QList<Record> &records() const { return m_records; }

    // Forgets the records; the numbering goes on.
    void clear()
    {
        m_records.clear();
        m_firstSerial = m_nextSerial;
    }

private:
    static constexpr qsizetype kMaxRecords = 20000;

    QList<Record> m_records;
    qint64 m_firstSerial = 1;
    qint64 m_nextSerial = 1;
};

} // namespace RunwatchSim
