// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/runevent.h"

#include <QHash>
#include <QPlainTextEdit>
#include <QPointer>
#include <QTimer>

namespace Runwatch {

class RunManager;

// Records the typed events the engine applied, per run, while enabled (a debugging aid, off by
// default: formatting every event costs time nobody needs otherwise). Bounded per run.
class RawEventRecorder final : public QObject
{
    Q_OBJECT
public:
    explicit RawEventRecorder(RunManager *manager, QObject *parent = nullptr);

    void setEnabled(bool enabled);
    bool isEnabled() const { return m_enabled; }
    void setMaxLinesPerRun(int lines) { m_maxLines = qMax(1, lines); }

    QStringList lines(const QString &runId) const { return m_logs.value(runId).lines; }
    // Lines ever recorded for the run, trimmed ones included.
    qint64 totalLines(const QString &runId) const { return m_logs.value(runId).total; }
    static QString format(const RunEvent &event);

Q_SIGNALS:
    void linesAdded(const QString &runId, int count);

private:
    void record(const QString &runId, const QList<Runwatch::RunEvent> &events);

    QPointer<RunManager> m_manager;
    struct Log
    {
        QStringList lines;
        qint64 total = 0;
    };
    QHash<QString, Log> m_logs;
    bool m_enabled = false;
    int m_maxLines = 2000;
};

// Shows the recorder's lines of one run and follows new ones (batched, 10 per second at most).
class RawLogView final : public QPlainTextEdit
{
    Q_OBJECT
public:
    explicit RawLogView(RawEventRecorder *recorder, QWidget *parent = nullptr);

    void showRun(const QString &runId);

private:
    void refresh();

    QPointer<RawEventRecorder> m_recorder;
    QString m_runId;
    qint64 m_shownTotal = 0;
    QTimer m_refresh;
};

} // namespace Runwatch
