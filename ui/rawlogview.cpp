// SPDX-License-Identifier: GPL-3.0-or-later
#include "rawlogview.h"

#include "domain/enumnames.h"
#include "engine/runmanager.h"

#include <QDateTime>
#include <QFontDatabase>
#include <QScrollBar>

#include <array>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
constexpr int kTextPreview = 160;

constexpr std::array kTypeNames{
    EnumName{RunEvent::Type::Identity, "identity"_L1},
    EnumName{RunEvent::Type::Status, "status"_L1},
    EnumName{RunEvent::Type::PrimaryDelta, "primary.delta"_L1},
    EnumName{RunEvent::Type::PrimarySnapshot, "primary.snapshot"_L1},
    EnumName{RunEvent::Type::SecondaryDelta, "secondary.delta"_L1},
    EnumName{RunEvent::Type::SecondarySnapshot, "secondary.snapshot"_L1},
    EnumName{RunEvent::Type::InputRequired, "input_required"_L1},
    EnumName{RunEvent::Type::Error, "error"_L1},
    EnumName{RunEvent::Type::Cursor, "cursor"_L1},
};

QString typeName(RunEvent::Type type)
{
    return nameOf(kTypeNames, type, "?"_L1);
}

QString quoted(const QString &text)
{
    QString t = text.left(kTextPreview);
    t.replace(u'\\', u"\\\\"_s).replace(u'\n', u"\\n"_s).replace(u'"', u"\\\""_s);
    if (text.size() > kTextPreview)
        t += u"…"_s;
    return u'"' + t + u'"';
}
} // namespace

RawEventRecorder::RawEventRecorder(RunManager *manager, QObject *parent)
    : QObject(parent)
    , m_manager(manager)
{}

void RawEventRecorder::setEnabled(bool enabled)
{
    if (enabled == m_enabled || !m_manager)
        return;
    m_enabled = enabled;
    if (enabled) {
        connect(m_manager, &RunManager::runEventsApplied, this, &RawEventRecorder::record);
    } else {
        disconnect(m_manager, &RunManager::runEventsApplied, this, &RawEventRecorder::record);
    }
}

QString RawEventRecorder::format(const RunEvent &e)
{
    QString line = QDateTime::currentDateTime().toString(u"HH:mm:ss.zzz"_s);
    line += e.sequence >= 0 ? u"  #%1"_s.arg(e.sequence, -6) : u"  #-    "_s;
    line += u"  "_s + typeName(e.type);
    switch (e.type) {
    case RunEvent::Type::Identity:
        line += u" remote_id=%1 model=%2 streamable=%3"_s.arg(e.remoteId, e.model,
                                                              e.streamable ? u"yes"_s : u"no"_s);
        break;
    case RunEvent::Type::Status:
        line += u" %1 raw=%2"_s.arg(statusName(e.status), e.rawStatus);
        break;
    case RunEvent::Type::PrimaryDelta:
    case RunEvent::Type::PrimarySnapshot:
        line += u' ' + quoted(e.text);
        break;
    case RunEvent::Type::SecondaryDelta:
    case RunEvent::Type::SecondarySnapshot:
        line += u" %1 item=%2 %3"_s.arg(secondaryKindName(e.kind), e.itemId, quoted(e.text));
        break;
    case RunEvent::Type::InputRequired:
        if (e.input)
            line += u" %1 %2"_s.arg(inputReasonName(e.input->reason), quoted(e.input->prompt));
        break;
    case RunEvent::Type::Error:
        line += u' ' + e.error.toString();
        break;
    case RunEvent::Type::Cursor:
        break;
    }
    if (!e.eventId.isEmpty())
        line += u" id=%1"_s.arg(e.eventId);
    return line;
}

void RawEventRecorder::record(const QString &runId, const QList<RunEvent> &events)
{
    Log &log = m_logs[runId];
    for (const RunEvent &e : events)
        log.lines.append(format(e));
    log.total += events.size();
    if (log.lines.size() > m_maxLines)
        log.lines.remove(0, log.lines.size() - m_maxLines);
    Q_EMIT linesAdded(runId, int(events.size()));
}

RawLogView::RawLogView(RawEventRecorder *recorder, QWidget *parent)
    : QPlainTextEdit(parent)
    , m_recorder(recorder)
{
    setReadOnly(true);
    setUndoRedoEnabled(false);
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setMaximumBlockCount(5000);
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setAccessibleName(tr("Raw event log"));
    setAccessibleDescription(tr("Every event of the run as the connector typed it, for debugging"));
    m_refresh.setSingleShot(true);
    m_refresh.setInterval(100);
    connect(&m_refresh, &QTimer::timeout, this, &RawLogView::refresh);
    if (recorder) {
        connect(recorder, &RawEventRecorder::linesAdded, this, [this](const QString &id) {
            if (id == m_runId && !m_refresh.isActive())
                m_refresh.start();
        });
    }
}

void RawLogView::showRun(const QString &runId)
{
    if (runId == m_runId)
        return;
    m_runId = runId;
    m_shownTotal = 0;
    clear();
    refresh();
}

void RawLogView::refresh()
{
    if (!m_recorder || m_runId.isEmpty())
        return;
    const QStringList lines = m_recorder->lines(m_runId);
    const qint64 total = m_recorder->totalLines(m_runId);
    if (lines.isEmpty() && m_shownTotal == 0) {
        setPlaceholderText(m_recorder->isEnabled()
                               ? tr("No events recorded for this run yet.")
                               : tr("The raw event log is off. Turn it on with View ▸ Raw Event Log."));
        return;
    }
    qint64 freshCount = total - m_shownTotal;
    // More new lines than the recorder kept: start over with what it has.
    if (freshCount > lines.size()) {
        clear();
        freshCount = lines.size();
    }
    const bool stick = verticalScrollBar()->value() >= verticalScrollBar()->maximum();
    if (freshCount > 0)
        appendPlainText(lines.mid(lines.size() - freshCount).join(u'\n'));
    m_shownTotal = total;
    if (stick)
        verticalScrollBar()->setValue(verticalScrollBar()->maximum());
}

} // namespace Runwatch
