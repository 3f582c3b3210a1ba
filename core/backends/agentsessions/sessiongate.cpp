// SPDX-License-Identifier: GPL-3.0-or-later
#include "sessiongate.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonParseError>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Runwatch::AgentSessions {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "AgentSessions".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(AgentSessions)
};

// How much of an unreadable event its note keeps.
constexpr qsizetype kMaxKeptData = 2000;

} // namespace

SessionGate::SessionGate(WireReader reader, QString turnId)
    : m_reader(reader)
    , m_turn(std::move(turnId))
{}

void SessionGate::setTurn(const QString &turnId)
{
    const QMutexLocker lock(&m_mutex);
    m_turn = SessionTurn(turnId);
}

void SessionGate::followNextTurn()
{
    const QMutexLocker lock(&m_mutex);
    m_turn.followNextTurn();
}

SessionEvent SessionGate::read(WireReader reader, QByteArrayView sseType, QByteArrayView data)
{
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(data.toByteArray(), &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject()) {
        SessionEvent malformed;
        malformed.kind = SessionEvent::Kind::Malformed;
        malformed.error = RunError::protocol(
            u"malformed_event"_s, Text::tr("Malformed \"%1\" event: %2")
                                      .arg(QString::fromUtf8(sseType), error.error != QJsonParseError::NoError
                                                                           ? error.errorString()
                                                                           : Text::tr("not a JSON object")));
        malformed.text = QString::fromUtf8(data.first(std::min(data.size(), kMaxKeptData)));
        return malformed;
    }
    return reader(doc.object(), QString::fromUtf8(sseType));
}

void SessionGate::frame(QByteArrayView sseType, QByteArrayView data, QList<RunEvent> &out)
{
    const QMutexLocker lock(&m_mutex);
    if (!m_open) {
        m_kept.append(Kept{sseType.toByteArray(), data.toByteArray()});
        return;
    }
    m_turn.live(read(m_reader, sseType, data), out);
}

SessionGate::Opened SessionGate::open(const QList<SessionEvent> &history)
{
    const QMutexLocker lock(&m_mutex);
    for (const SessionEvent &event : history)
        m_turn.history(event);
    Opened opened;
    opened.events = m_turn.historyEvents();
    // What the stream brought while the history was read: after it, each id once.
    for (const Kept &kept : std::as_const(m_kept))
        m_turn.live(read(m_reader, kept.type, kept.data), opened.events);
    m_kept.clear();
    m_open = true;
    opened.turn = m_turn;
    return opened;
}

bool SessionGate::over() const
{
    const QMutexLocker lock(&m_mutex);
    return m_turn.ended() || m_turn.waiting();
}

bool SessionGate::isOpen() const
{
    const QMutexLocker lock(&m_mutex);
    return m_open;
}

SessionTurn SessionGate::turn() const
{
    const QMutexLocker lock(&m_mutex);
    return m_turn;
}

} // namespace Runwatch::AgentSessions
