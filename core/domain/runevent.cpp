// SPDX-License-Identifier: GPL-3.0-or-later
#include "runevent.h"

using namespace Qt::StringLiterals;

namespace Runwatch {

RunEvent RunEvent::identity(QString remoteId, QString model, bool streamable, qint64 seq)
{
    RunEvent e;
    e.type = Type::Identity;
    e.remoteId = std::move(remoteId);
    e.model = std::move(model);
    e.streamable = streamable;
    e.sequence = seq;
    return e;
}

RunEvent RunEvent::statusChange(RunStatus status, QString raw, qint64 seq)
{
    RunEvent e;
    e.type = Type::Status;
    e.status = status;
    e.rawStatus = std::move(raw);
    e.sequence = seq;
    return e;
}

RunEvent RunEvent::primaryDelta(QString text, qint64 seq)
{
    RunEvent e;
    e.type = Type::PrimaryDelta;
    e.text = std::move(text);
    e.sequence = seq;
    return e;
}

RunEvent RunEvent::primarySnapshot(QString text, qint64 seq)
{
    RunEvent e;
    e.type = Type::PrimarySnapshot;
    e.text = std::move(text);
    e.sequence = seq;
    return e;
}

RunEvent RunEvent::secondaryDelta(SecondaryKind kind, QString itemId, QString text, qint64 seq)
{
    RunEvent e;
    e.type = Type::SecondaryDelta;
    e.kind = kind;
    e.itemId = std::move(itemId);
    e.text = std::move(text);
    e.sequence = seq;
    return e;
}

RunEvent RunEvent::secondarySnapshot(SecondaryKind kind, QString itemId, QString title, QString text,
                                     qint64 seq)
{
    RunEvent e;
    e.type = Type::SecondarySnapshot;
    e.kind = kind;
    e.itemId = std::move(itemId);
    e.title = std::move(title);
    e.text = std::move(text);
    e.sequence = seq;
    return e;
}

RunEvent RunEvent::inputRequired(InputRequest request, qint64 seq)
{
    RunEvent e;
    e.type = Type::InputRequired;
    e.input = std::move(request);
    e.sequence = seq;
    return e;
}

RunEvent RunEvent::failure(RunError error, qint64 seq)
{
    RunEvent e;
    e.type = Type::Error;
    e.error = std::move(error);
    e.sequence = seq;
    return e;
}

RunEvent RunEvent::cursor(qint64 seq, QString eventId)
{
    RunEvent e;
    e.type = Type::Cursor;
    e.sequence = seq;
    e.eventId = std::move(eventId);
    return e;
}

} // namespace Runwatch
