// SPDX-License-Identifier: GPL-3.0-or-later
#include "detailpane.h"

#include "cancelladderbanner.h"
#include "conversationview.h"
#include "engine/rundeadlines.h"
#include "engine/runexport.h"

#include "domain/pricetable.h"
#include "domain/runprogress.h"
#include "engine/runmanager.h"
#include "icons.h"
#include "inputpanel.h"
#include "models/runactions.h"
#include "models/runfilter.h"
#include "models/runformat.h"
#include "outputview.h"
#include "rawlogview.h"
#include "statusstyle.h"
#include "store/runstore.h"
#include "timelineview.h"

#include <QCoreApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QStackedWidget>
#include <QTabWidget>
#include <QVBoxLayout>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Runwatch {

// The status badge of the header, painted like the table's.
class BadgeWidget final : public QWidget
{
    // Without it tr() would be QWidget::tr(), whose context lupdate never writes.
    Q_DECLARE_TR_FUNCTIONS(Runwatch::BadgeWidget)

public:
    using QWidget::QWidget;

    void setRun(RunStatus status, bool lost, bool needsPerson, const QString &text)
    {
        m_style = badgeStyle(status, lost, needsPerson, isDarkPalette(palette()));
        m_style.text = text;
        setAccessibleName(tr("Status: %1").arg(m_style.text));
        setAccessibleDescription(tr("Status badge of the selected run"));
        updateGeometry();
        update();
    }
    QSize sizeHint() const override { return badgeSize(m_style, font()) + QSize(2, 2); }

protected:
    void paintEvent(QPaintEvent *) override
    {
        QPainter p(this);
        paintBadge(&p, rect(), m_style, font());
    }

private:
    BadgeStyle m_style;
};

namespace {
enum Page { EmptyPage, SummaryPage, RunPage };

QWidget *emptyState(QWidget *parent)
{
    auto *w = new QWidget(parent);
    auto *l = new QVBoxLayout(w);
    l->addStretch(1);
    auto *icon = new QLabel;
    QColor muted = w->palette().color(QPalette::PlaceholderText);
    icon->setPixmap(Icons::pixmap(u"empty-runs"_s, 48, muted, w->devicePixelRatioF()));
    icon->setAlignment(Qt::AlignCenter);
    l->addWidget(icon);
    auto *text = new QLabel(DetailPane::tr("Select a run to see its live output,\n"
                                           "timeline and actions."));
    text->setAlignment(Qt::AlignCenter);
    QPalette pal = text->palette();
    pal.setColor(QPalette::WindowText, muted);
    text->setPalette(pal);
    l->addWidget(text);
    l->addStretch(2);
    return w;
}
} // namespace

DetailPane::DetailPane(RunManager *manager, RawEventRecorder *recorder, QWidget *parent)
    : QWidget(parent)
    , m_manager(manager)
{
    setAccessibleName(tr("Run details"));
    setAccessibleDescription(tr("The selected run: its status, output, timeline and what it waits for"));
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    m_pages = new QStackedWidget;
    outer->addWidget(m_pages);
    m_pages->addWidget(emptyState(this));

    m_summary = new QLabel;
    m_summary->setAlignment(Qt::AlignCenter);
    m_summary->setWordWrap(true);
    m_pages->addWidget(m_summary);

    auto *page = new QWidget;
    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(12, 10, 12, 8);
    layout->setSpacing(8);

    auto *header = new QHBoxLayout;
    header->setSpacing(10);
    m_badge = new BadgeWidget;
    header->addWidget(m_badge, 0, Qt::AlignTop);
    auto *titles = new QVBoxLayout;
    titles->setSpacing(2);
    m_title = new QLabel;
    m_title->setTextFormat(Qt::PlainText); // may show what a server sent: never markup
    m_title->setObjectName(u"runTitle"_s);
    m_title->setWordWrap(true);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont tf = m_title->font();
    tf.setPointSizeF(tf.pointSizeF() * 1.2);
    tf.setBold(true);
    m_title->setFont(tf);
    titles->addWidget(m_title);
    m_meta = new QLabel;
    m_meta->setTextFormat(Qt::PlainText); // may show what a server sent: never markup
    m_meta->setObjectName(u"runMeta"_s);
    m_meta->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_meta->setWordWrap(true); // long server ids must not widen the window
    QPalette mp = m_meta->palette();
    mp.setColor(QPalette::WindowText, mp.color(QPalette::PlaceholderText));
    m_meta->setPalette(mp);
    titles->addWidget(m_meta);
    m_usage = new QLabel;
    m_usage->setTextFormat(Qt::PlainText); // may show what a server sent: never markup
    m_usage->setObjectName(u"runUsage"_s);
    m_usage->setAccessibleName(tr("Token usage and cost"));
    m_usage->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_usage->setWordWrap(true);
    m_usage->setPalette(mp);
    m_usage->hide();
    titles->addWidget(m_usage);
    // The run's latest state could not be written to the store (RunManager::saveProblem): said on
    // the run itself, not only in the status bar, because closing the app now would lose it.
    m_unsaved = new QLabel;
    m_unsaved->setTextFormat(Qt::PlainText); // the error text is SQLite's or the system's
    m_unsaved->setObjectName(u"runUnsaved"_s);
    m_unsaved->setAccessibleName(tr("Not saved"));
    m_unsaved->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_unsaved->setWordWrap(true);
    m_unsaved->setStyleSheet(
        u"#runUnsaved { background: rgba(207, 34, 46, 0.10);"
        " border: 1px solid rgba(207, 34, 46, 0.45); border-radius: 4px; padding: 3px 6px; }"_s);
    m_unsaved->hide();
    titles->addWidget(m_unsaved);
    header->addLayout(titles, 1);
    layout->addLayout(header);

    m_progressRow = new QWidget;
    auto *pl = new QHBoxLayout(m_progressRow);
    pl->setContentsMargins(0, 0, 0, 0);
    m_progress = new QProgressBar;
    m_progress->setObjectName(u"runProgress"_s);
    m_progress->setAccessibleName(tr("Run progress"));
    m_progress->setRange(0, 1000);
    m_progress->setFormat(u"%p%"_s);
    pl->addWidget(m_progress, 1);
    m_eta = new QLabel;
    m_eta->setTextFormat(Qt::PlainText); // may show what a server sent: never markup
    m_eta->setObjectName(u"runEta"_s);
    m_eta->setAccessibleName(tr("Estimated time left"));
    pl->addWidget(m_eta);
    m_progressRow->hide();
    layout->addWidget(m_progressRow);

    auto *errorFrame = new QFrame;
    errorFrame->setObjectName(u"errorBanner"_s);
    errorFrame->setStyleSheet(u"#errorBanner { background: rgba(207, 34, 46, 0.10);"
                              " border: 1px solid rgba(207, 34, 46, 0.55); border-radius: 6px; }"_s);
    auto *el = new QHBoxLayout(errorFrame);
    el->setContentsMargins(10, 6, 8, 6);
    auto *errorIcon = new QLabel;
    errorIcon->setPixmap(
        Icons::pixmap(u"status-failed"_s, 18, QColor::fromString("#d03030"_L1), devicePixelRatioF()));
    el->addWidget(errorIcon, 0, Qt::AlignTop);
    m_errorText = new QLabel;
    // Rich text of ours around the server's words, which are escaped (refresh()).
    m_errorText->setTextFormat(Qt::RichText);
    m_errorText->setObjectName(u"errorText"_s);
    m_errorText->setWordWrap(true);
    m_errorText->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_errorText->setAccessibleName(tr("Error"));
    el->addWidget(m_errorText, 1);
    m_errorResume = new QPushButton(Icons::themed(u"resume"_s, palette()), tr("Resume"));
    m_errorResume->setAccessibleName(tr("Resume following the run"));
    el->addWidget(m_errorResume, 0, Qt::AlignVCenter);
    connect(m_errorResume, &QPushButton::clicked, this, [this] { Q_EMIT resumeRequested(m_runId); });
    m_errorFrame = errorFrame;
    layout->addWidget(errorFrame);
    m_cancelLadder = new CancelLadderBanner;
    layout->addWidget(m_cancelLadder);

    m_input = new InputPanel;
    layout->addWidget(m_input);
    connect(m_input, &InputPanel::answered, this, &DetailPane::answered);

    m_tabs = new QTabWidget;
    m_tabs->setDocumentMode(true);
    m_output = new OutputView;
    m_output->setObjectName(u"outputView"_s);
    m_output->setAccessibleName(tr("Run output"));
    m_output->setAccessibleDescription(tr("The answer of the run as it arrives"));
    m_tabs->addTab(m_output, tr("&Output"));
    m_timeline = new TimelineView;
    m_timeline->setObjectName(u"timelineView"_s);
    m_tabs->addTab(m_timeline, tr("&Timeline"));
    // Owned by the pane while its tab is hidden (a first turn), by the tab widget while shown.
    m_conversation = new ConversationView(this);
    m_conversation->hide();
    // Owned by the pane while its tab is hidden, by the tab widget while shown.
    m_rawLog = new RawLogView(recorder, this);
    m_rawLog->setObjectName(u"rawLogView"_s);
    m_rawLog->hide();
    m_rawPage = m_rawLog;
    layout->addWidget(m_tabs, 1);
    m_pages->addWidget(page);

    m_refresh.setObjectName(u"detailRefresh"_s);
    m_refresh.setSingleShot(true);
    m_refresh.setInterval(100);
    connect(&m_refresh, &QTimer::timeout, this, &DetailPane::refresh);
    m_countdown.setSingleShot(true);
    m_countdown.setTimerType(Qt::PreciseTimer); // a second shown late by 5 % reads as a stutter
    connect(&m_countdown, &QTimer::timeout, this, &DetailPane::refresh);
    if (manager) {
        connect(manager, &RunManager::runChanged, this, &DetailPane::onRunChanged);
        connect(manager, &RunManager::runRemoved, this, &DetailPane::onRunRemoved);
        // A follow-up to any turn of the conversation on screen joins its Conversation tab.
        connect(manager, &RunManager::runAdded, this, [this](const QString &id) {
            const Run *added = m_manager ? m_manager->run(id) : nullptr;
            if (added && !added->parentId.isEmpty()
                && (added->parentId == m_runId || m_conversationIds.contains(added->parentId))
                && !m_refresh.isActive())
                m_refresh.start();
        });
        // New prices change the cost line of the run shown.
        connect(manager->prices(), &PriceBook::changed, this, [this] {
            if (!m_runId.isEmpty() && !m_refresh.isActive())
                m_refresh.start();
        });
    }
    m_pages->setCurrentIndex(EmptyPage);
}

void DetailPane::setRawLogVisible(bool visible)
{
    const int at = m_tabs->indexOf(m_rawPage);
    if (visible && at < 0) {
        m_tabs->addTab(m_rawPage, Icons::themed(u"raw-log"_s, palette()), tr("&Raw events"));
        m_rawLog->showRun(m_runId);
    } else if (!visible && at >= 0) {
        m_tabs->removeTab(at);
    }
}

bool DetailPane::isRawLogVisible() const
{
    return m_tabs->indexOf(m_rawPage) >= 0;
}

void DetailPane::showOutputTab()
{
    m_tabs->setCurrentWidget(m_output);
}

void DetailPane::focusInput()
{
    if (m_input->isVisible())
        m_input->focusAnswer();
}

void DetailPane::showRuns(const QStringList &ids)
{
    m_ids = ids;
    if (m_manager)
        m_manager->setRunsInView(ids);
    const QString single = ids.size() == 1 ? ids.first() : QString();
    if (single != m_runId) {
        // Runs listed from the store come without output; fetch it for the one being shown.
        if (!single.isEmpty() && m_manager)
            m_manager->ensureOutputLoaded(single);
        m_runId = single;
        m_shownChars = 0;
        m_seenReconciliations = 0;
        m_timeline->showRun(nullptr);
        m_journalKey = {};
        m_rawLog->showRun(single);
        syncOutput(true);
    }
    if (ids.isEmpty()) {
        m_pages->setCurrentIndex(EmptyPage);
        return;
    }
    if (ids.size() > 1) {
        refreshSummary();
        m_pages->setCurrentIndex(SummaryPage);
        return;
    }
    m_pages->setCurrentIndex(RunPage);
    refresh();
}

void DetailPane::onRunChanged(const QString &id, RunChanges changes)
{
    if (id != m_runId) {
        // Another selected run (the summary), or another turn of the conversation on screen.
        if ((m_ids.contains(id) || m_conversationIds.contains(id)) && !m_refresh.isActive())
            m_refresh.start();
        return;
    }
    if (changes & RunChange::Primary)
        syncOutput(false);
    if ((changes & ~RunChanges(RunChange::Primary | RunChange::Cursor)) && !m_refresh.isActive())
        m_refresh.start();
}

void DetailPane::onRunRemoved(const QString &id)
{
    if (!m_ids.contains(id))
        return;
    QStringList rest = m_ids;
    rest.removeAll(id);
    showRuns(rest);
}

void DetailPane::syncOutput(bool reset)
{
    const Run *run = m_manager ? m_manager->run(m_runId) : nullptr;
    if (!run) {
        m_output->clearOutput();
        m_shownChars = 0;
        return;
    }
    // The reducer counts every time the server's text replaced ours; only then (or when the
    // text shrank) is a redraw needed, otherwise the new tail is appended.
    const RunText &text = run->primaryText;
    if (reset || run->reconciliations != m_seenReconciliations || text.size() < m_shownChars) {
        m_output->setText(text.toString());
    } else if (text.size() > m_shownChars) {
        m_output->appendText(text.mid(m_shownChars));
    }
    m_shownChars = text.size();
    m_seenReconciliations = run->reconciliations;
}

void DetailPane::refreshConversation(const Run &run)
{
    const int at = m_tabs->indexOf(m_conversation);
    const auto lookup = [this](const QString &id) -> std::optional<Run> {
        const Run *turn = m_manager && m_manager->ensureOutputLoaded(id) ? m_manager->run(id) : nullptr;
        return turn ? std::optional<Run>(*turn) : std::nullopt;
    };
    // The whole conversation, whichever turn is shown: the follow-ups made after it too.
    const QList<Run> later = m_manager ? conversationAfter(
                                 run, m_manager->runIds(),
                                 [this](const QString &id) {
                                     const Run *r = m_manager->run(id);
                                     return r ? r->parentId : QString();
                                 },
                                 lookup)
                                       : QList<Run>();
    const bool sentWhileWorking = std::any_of(run.secondary.cbegin(), run.secondary.cend(), isFollowUpItem);
    m_conversationIds.clear();
    if (run.parentId.isEmpty() && later.isEmpty() && !sentWhileWorking) {
        if (at >= 0)
            m_tabs->removeTab(at);
        return;
    }
    QList<Run> turns = conversationBefore(run, lookup);
    const int shown = int(turns.size());
    turns.append(run);
    turns += later;
    for (const Run &turn : std::as_const(turns))
        m_conversationIds.insert(turn.localId);
    m_conversation->showConversation(turns, shown);
    if (at < 0)
        m_tabs->insertTab(1, m_conversation, tr("Co&nversation"));
}

void DetailPane::refreshSummary()
{
    int active = 0;
    int waiting = 0;
    int done = 0;
    QList<RunActionState> states;
    for (const QString &id : std::as_const(m_ids)) {
        const Run *run = m_manager ? m_manager->run(id) : nullptr;
        if (!run)
            continue;
        states.append(actionStateFor(*run, m_manager->isFollowing(id)));
        if (run->status == RunStatus::InputRequired) {
            ++waiting;
        } else if (run->isTerminal()) {
            ++done;
        } else {
            ++active;
        }
    }
    // Several runs that wait for the same request are answered together (issue 31).
    const QString respond = actionStateForSelection(states).respond ? tr(
                                "<p>They wait for the same request: Respond (Ctrl+I) answers all of them in "
                                "one step.</p>")
                                                                    : QString();
    m_summary->setText(tr("<h3>%1 runs selected</h3><p>%2 active · %3 need input · %4 finished</p>"
                          "<p>Cancel and Delete apply to all of them.</p>")
                           .arg(m_ids.size())
                           .arg(active)
                           .arg(waiting)
                           .arg(done)
                       + respond);
}

void DetailPane::refreshUsage(const Run &run)
{
    const TokenUsage &u = run.usage;
    if (!u.isKnown()) {
        m_usage->hide();
        return;
    }
    const QLocale locale;
    const auto count = [&locale](qint64 n) { return n >= 0 ? locale.toString(n) : tr("not reported"); };
    QString line = tr("Tokens: %1 input · %2 output").arg(count(u.inputTokens), count(u.outputTokens));
    // Reasoning is counted within output (and billed with it), so it is said with it.
    if (u.reasoningTokens >= 0)
        line += u" "_s + tr("(%1 reasoning)").arg(locale.toString(u.reasoningTokens));
    const PriceTable &prices = m_manager->prices()->table();
    if (const auto cost = costOf(run, prices)) {
        line += u"  ·  "_s + tr("cost %1").arg(formatCost(*cost, prices.currency));
    } else if (u.inputTokens >= 0 || u.outputTokens >= 0) {
        line += u"  ·  "_s
                + (run.model.isEmpty() ? tr("no cost: the run names no model")
                                       : tr("no price set for %1 (Settings › Prices…)").arg(run.model));
    }
    m_usage->setText(line);
    m_usage->show();
}

void DetailPane::refresh()
{
    m_countdown.stop();
    if (m_ids.size() > 1) {
        refreshSummary();
        return;
    }
    const Run *run = m_manager ? m_manager->run(m_runId) : nullptr;
    if (!run)
        return;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    m_badge->setRun(run->status, run->connectionLost, waitsForPerson(*run),
                    badgeText(*run, BadgeSpace::Wide, now));
    if (run->connectionLost && !run->isTerminal() && run->nextTryAt.isValid()) {
        // The badge rounds the wait up to whole seconds: the next one starts this much later.
        if (const qint64 ms = now.msecsTo(run->nextTryAt); ms > 0)
            m_countdown.start(int((ms - 1) % 1000) + 1);
    }
    m_badge->setToolTip(statusToolTip(*run));
    m_title->setText(run->title.isEmpty() ? tr("(untitled run)") : run->title);
    m_title->setToolTip(plainToolTip(run->prompt.left(2000)));
    QStringList meta;
    meta << tr("Run %1").arg(run->localId);
    if (!run->remoteId.isEmpty()) {
        // Server ids can be 50+ characters; the full one is in the tooltip and selectable there.
        const QString &r = run->remoteId;
        meta << (r.size() > 28 ? r.left(14) + u"…"_s + r.right(8) : r);
    }
    meta << run->connection;
    if (!run->model.isEmpty())
        meta << run->model;
    if (run->createdAt.isValid())
        meta << tr("started %1").arg(formatTimestamp(run->createdAt, now));
    if (!run->parentId.isEmpty())
        meta << tr("follow-up to run %1").arg(run->parentId);
    if (const QString deadline = deadlineText(*run, now); !deadline.isEmpty())
        meta << deadline;
    m_meta->setText(meta.join(u"  ·  "_s));
    refreshUsage(*run);
    if (const QString problem = m_manager->saveProblem(m_runId); !problem.isEmpty()) {
        m_unsaved->setText(tr("Not saved: %1. What arrived is kept in this window and saved as soon as "
                              "the run store can be written; closing Runwatch now would lose it.")
                               .arg(problem));
        m_unsaved->show();
    } else {
        m_unsaved->hide();
    }
    refreshConversation(*run);
    if (const auto progress = runProgress(*run, now)) {
        m_progress->setValue(qRound(progress->fraction * 1000));
        const QString eta = formatEta(progress->eta, now);
        m_eta->setText(eta);
        m_eta->setToolTip(progress->eta.isValid()
                              ? tr("Expected to finish at %1").arg(formatTimestamp(progress->eta, now))
                              : QString());
        m_progressRow->show();
    } else {
        m_progressRow->hide();
    }
    m_meta->setToolTip(run->remoteId.isEmpty() ? QString()
                                               : plainToolTip(tr("Server id: %1").arg(run->remoteId)));

    if (run->error.isError()) {
        const RunError &e = run->error;
        QString code = e.code.isEmpty() ? errorKindName(e.kind) : e.code;
        if (e.httpStatus > 0)
            code += u" (HTTP %1)"_s.arg(e.httpStatus);
        const QString retry
            = e.retryable ? tr("Retryable: yes — resuming may succeed.") : tr("Retryable: no.");
        QString text = u"<b>%1</b> — %2<br>%3"_s.arg(code.toHtmlEscaped(), e.message.toHtmlEscaped(), retry);
        if (!e.requestId.isEmpty())
            text += u" "_s + tr("Request id: %1").arg(e.requestId.toHtmlEscaped());
        m_errorText->setText(text);
        const RunActionState actions = actionStateFor(*run, m_manager->isFollowing(m_runId));
        m_errorResume->setVisible(actions.resume);
        m_errorFrame->show();
    } else {
        m_errorFrame->hide();
    }

    m_cancelLadder->showRun(*run, actionStateFor(*run, m_manager->isFollowing(m_runId)));
    if (run->status == RunStatus::InputRequired && run->input) {
        m_input->showRequest(run->localId, *run->input, run->capabilities.testFlag(Capability::Respond));
        m_input->show();
    } else {
        m_input->hide();
    }

    if (run->primaryText.isEmpty()) {
        m_output->setPlaceholderText(run->isTerminal() ? tr("This run produced no output.")
                                                       : tr("Waiting for output…"));
    }
    m_timeline->showRun(run);
    // The journal changes with a command (this process's or another's): read again when the
    // run shown or what commands change on it did, not for every piece of streamed output.
    const auto journalKey = std::tuple(run->localId, run->status, run->deadlineAt, run->cancelAtDeadline,
                                       run->input.has_value(), run->remoteId);
    if (m_manager && m_manager->store() && journalKey != m_journalKey) {
        m_journalKey = journalKey;
        m_timeline->setJournal(m_manager->store()->journal(run->localId));
    }
    const int timelineTab = m_tabs->indexOf(m_timeline);
    m_tabs->setTabText(timelineTab, tr("&Timeline (%1)").arg(run->secondary.size()));
}

} // namespace Runwatch
