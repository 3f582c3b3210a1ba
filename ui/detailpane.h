// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/runevent.h"
#include "domain/runreducer.h"

#include <QDateTime>
#include <QPointer>
#include <QSet>
#include <QTimer>
#include <QWidget>

#include <tuple>

class QLabel;
class QProgressBar;
class QPushButton;
class QStackedWidget;
class QTabWidget;

namespace Runwatch {

class BadgeWidget;
class CancelLadderBanner;
class InputPanel;
class OutputView;
class RawEventRecorder;
class RawLogView;
class RunManager;
class ConversationView;
class TimelineView;

// The right-hand side of the main window: what the selected run is doing. A header (badge,
// title, ids), an error banner (code, message, retryable or not), the input panel when the run
// waits for the operator, and tabs for the live output, the timeline of secondary items and
// the raw event log. Output goes to the OutputView as it arrives (it batches per frame); the
// rest is refreshed at most ten times a second.
class DetailPane final : public QWidget
{
    Q_OBJECT
public:
    DetailPane(RunManager *manager, RawEventRecorder *recorder, QWidget *parent = nullptr);

    // The selection: none shows a hint, several a summary, one the run.
    void showRuns(const QStringList &ids);
    QString runId() const { return m_runId; }

    void setRawLogVisible(bool visible);
    bool isRawLogVisible() const;
    void showOutputTab();
    void focusInput();

    OutputView *outputView() const { return m_output; }
    TimelineView *timelineView() const { return m_timeline; }
    ConversationView *conversationView() const { return m_conversation; }
    InputPanel *inputPanel() const { return m_input; }
    QLabel *errorBanner() const { return m_errorText; }
    // The cancel ladder's next step for a cancel the service has not confirmed.
    CancelLadderBanner *cancelLadder() const { return m_cancelLadder; }
    // Shown for a live run that reports progress, with its ETA beside it.
    QProgressBar *progressBar() const { return m_progress; }
    QLabel *etaLabel() const { return m_eta; }
    // The selected run's token usage and cost; hidden while it reported none.
    QLabel *usageLabel() const { return m_usage; }

Q_SIGNALS:
    void answered(const QString &runId, const Runwatch::InputAnswer &answer);
    void resumeRequested(const QString &runId);

private:
    void onRunChanged(const QString &id, Runwatch::RunChanges changes);
    void onRunRemoved(const QString &id);
    void syncOutput(bool reset);
    void refresh();
    void refreshSummary();
    void refreshUsage(const Run &run);

    QPointer<RunManager> m_manager;
    QString m_runId;
    QSet<QString> m_conversationIds; // the turns the Conversation tab shows
    QStringList m_ids;
    qsizetype m_shownChars = 0;
    int m_seenReconciliations = 0;
    QTimer m_refresh;
    // Ends when the shown second of "Reconnecting, next try in N s" does: the countdown moves by
    // itself, with no change of the run to repaint it. Runs only while the run on screen waits.
    QTimer m_countdown;

    QStackedWidget *m_pages = nullptr;
    QLabel *m_summary = nullptr;
    BadgeWidget *m_badge = nullptr;
    QLabel *m_title = nullptr;
    QLabel *m_meta = nullptr;
    QLabel *m_unsaved = nullptr; // the run's latest state is not in the store
    QLabel *m_usage = nullptr;
    QWidget *m_progressRow = nullptr;
    QProgressBar *m_progress = nullptr;
    QLabel *m_eta = nullptr;
    QWidget *m_errorFrame = nullptr;
    QLabel *m_errorText = nullptr;
    QPushButton *m_errorResume = nullptr;
    CancelLadderBanner *m_cancelLadder = nullptr;
    InputPanel *m_input = nullptr;
    QTabWidget *m_tabs = nullptr;
    OutputView *m_output = nullptr;
    TimelineView *m_timeline = nullptr;
    // What the timeline's journal rows were read for (refreshDetails).
    std::tuple<QString, RunStatus, QDateTime, bool, bool, QString> m_journalKey;
    ConversationView *m_conversation = nullptr; // a tab only for a follow-up
    void refreshConversation(const Run &run);
    RawLogView *m_rawLog = nullptr;
    QWidget *m_rawPage = nullptr;
};

} // namespace Runwatch
