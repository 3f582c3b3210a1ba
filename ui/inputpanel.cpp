// SPDX-License-Identifier: GPL-3.0-or-later
#include "inputpanel.h"

#include "icons.h"
#include "models/runformat.h"
#include "toolcallsform.h"
#include "typedanswerform.h"

#include <QClipboard>
#include <QDateTime>
#include <QDesktopServices>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QShortcut>
#include <QStackedWidget>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
enum Page { TextPage, ApprovalPage, OptionsPage, TimerPage, WebhookPage, ToolCallsPage, ValuePage };

QString reasonHeading(InputReason reason)
{
    switch (reason) {
    case InputReason::Question:
        return InputPanel::tr("The run asks a question");
    case InputReason::Approval:
        return InputPanel::tr("The run asks for approval");
    case InputReason::Options:
        return InputPanel::tr("The run asks you to choose");
    case InputReason::ToolOutput:
        return InputPanel::tr("The run waits for a tool result");
    case InputReason::Auth:
        return InputPanel::tr("The run needs credentials");
    case InputReason::Timer:
        return InputPanel::tr("The run is waiting for a timer");
    case InputReason::Webhook:
        return InputPanel::tr("The run waits for a callback");
    }
    return {};
}

QString countdownText(qint64 ms)
{
    if (ms <= 0)
        return InputPanel::tr("Deadline reached");
    return InputPanel::tr("%1 left").arg(formatCountdown(ms));
}

// Tests and screen readers find each control by its object name and accessible name.
template<typename W>
W *named(W *widget, const QString &objectName, const QString &accessibleName)
{
    widget->setObjectName(objectName);
    widget->setAccessibleName(accessibleName);
    return widget;
}

// One page of the answer stack: a row without margins.
QHBoxLayout *addPage(QStackedWidget *pages, const QString &objectName)
{
    auto *page = new QWidget;
    page->setObjectName(objectName);
    auto *row = new QHBoxLayout(page);
    row->setContentsMargins(0, 0, 0, 0);
    pages->addWidget(page);
    return row;
}
} // namespace

InputPanel::InputPanel(QWidget *parent)
    : QFrame(parent)
{
    setObjectName(u"inputPanel"_s);
    setFrameShape(QFrame::StyledPanel);
    setAccessibleName(tr("Input required"));
    setAccessibleDescription(tr("Respond panel: the run waits for you; answer, approve or choose here"));
    // Never taller than its content: spare height belongs to the output below.
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
    // An amber edge ties the panel to the badge of the same colour.
    setStyleSheet(u"#inputPanel { background: rgba(244, 165, 28, 0.08); border: 1px solid #e0a030;"
                  " border-left: 4px solid #f4a51c; border-radius: 6px; }"_s);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(14, 10, 14, 12);
    layout->setSpacing(8);

    auto *top = new QHBoxLayout;
    auto *icon = new QLabel;
    icon->setPixmap(
        Icons::pixmap(u"status-input"_s, 20, QColor::fromString("#c07a00"_L1), devicePixelRatioF()));
    top->addWidget(icon);
    m_heading = new QLabel;
    m_heading->setTextFormat(Qt::PlainText); // may show what a server sent: never markup
    QFont hf = m_heading->font();
    hf.setBold(true);
    hf.setPointSizeF(hf.pointSizeF() * 1.08);
    m_heading->setFont(hf);
    m_heading->setWordWrap(true); // a narrow pane must not push the countdown out of sight
    top->addWidget(m_heading, 1);
    m_countdown = new QLabel;
    m_countdown->setTextFormat(Qt::PlainText); // may show what a server sent: never markup
    m_countdown->setObjectName(u"inputCountdown"_s);
    m_countdown->setAccessibleName(tr("Time left"));
    top->addWidget(m_countdown);
    layout->addLayout(top);

    m_prompt = new QLabel;
    m_prompt->setTextFormat(Qt::PlainText); // may show what a server sent: never markup
    m_prompt->setObjectName(u"inputPrompt"_s);
    m_prompt->setWordWrap(true);
    m_prompt->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_prompt->setAccessibleName(tr("Question"));
    layout->addWidget(m_prompt);

    m_pages = new QStackedWidget;
    layout->addWidget(m_pages);

    // Free text.
    QHBoxLayout *tl = addPage(m_pages, u"textPage"_s);
    m_text = named(new QPlainTextEdit, u"inputAnswer"_s, tr("Answer"));
    m_text->setPlaceholderText(tr("Type your answer… (Ctrl+Enter sends)"));
    m_text->setTabChangesFocus(true);
    m_text->setFixedHeight(m_text->fontMetrics().lineSpacing() * 3 + 14);
    tl->addWidget(m_text, 1);
    m_send = named(new QPushButton(tr("&Send")), u"inputSend"_s, tr("Send answer"));
    tl->addWidget(m_send, 0, Qt::AlignBottom);
    auto *sendShortcut = new QShortcut(QKeySequence(u"Ctrl+Return"_s), m_text);
    sendShortcut->setContext(Qt::WidgetShortcut);
    connect(sendShortcut, &QShortcut::activated, m_send, &QPushButton::click);
    connect(m_send, &QPushButton::clicked, this, [this] { send(InputAnswer::Kind::Text); });
    connect(m_text, &QPlainTextEdit::textChanged, this, &InputPanel::updateEnabled);

    // Approve / reject.
    QHBoxLayout *al = addPage(m_pages, u"approvalPage"_s);
    m_comment = named(new QLineEdit, u"inputComment"_s, tr("Comment"));
    m_comment->setPlaceholderText(tr("Comment (optional)"));
    al->addWidget(m_comment, 1);
    m_approve = named(new QPushButton(tr("&Approve")), u"inputApprove"_s, tr("Approve"));
    m_reject = named(new QPushButton(tr("Re&ject")), u"inputReject"_s, tr("Reject"));
    al->addWidget(m_approve);
    al->addWidget(m_reject);
    connect(m_approve, &QPushButton::clicked, this, &InputPanel::approve);
    connect(m_reject, &QPushButton::clicked, this, [this] { send(InputAnswer::Kind::Reject); });

    // One of several options.
    QHBoxLayout *ol = addPage(m_pages, u"optionsPage"_s);
    m_options = named(new QListWidget, u"inputOptions"_s, tr("Options"));
    m_options->setMaximumHeight(m_options->fontMetrics().lineSpacing() * 5 + 12);
    ol->addWidget(m_options, 1);
    m_choose = named(new QPushButton(tr("&Choose")), u"inputChoose"_s, tr("Choose the selected option"));
    ol->addWidget(m_choose, 0, Qt::AlignBottom);
    connect(m_choose, &QPushButton::clicked, this, [this] { send(InputAnswer::Kind::Choice); });
    connect(m_options, &QListWidget::currentRowChanged, this, &InputPanel::updateEnabled);
    connect(m_options, &QListWidget::itemActivated, m_choose, &QPushButton::click);

    // A timer: nothing to answer; the countdown in the heading row and the note below say when
    // the run goes on. The page is empty so the stack takes no room.
    addPage(m_pages, u"timerPage"_s);

    // A webhook: an external system answers by calling the URL; the operator can copy it.
    QHBoxLayout *wl = addPage(m_pages, u"webhookPage"_s);
    m_callbackUrl = named(new QLineEdit, u"inputCallbackUrl"_s, tr("Callback URL"));
    m_callbackUrl->setReadOnly(true);
    wl->addWidget(m_callbackUrl, 1);
    m_copyUrl = named(new QPushButton(tr("Copy &URL")), u"inputCopyUrl"_s, tr("Copy the callback URL"));
    wl->addWidget(m_copyUrl);
    connect(m_copyUrl, &QPushButton::clicked, this, [this] {
        QGuiApplication::clipboard()->setText(m_request.callbackUrl);
        m_copyUrl->setText(tr("Copied"));
    });

    // Tool calls: a row per call, and one button that sends every answer in one submit.
    auto *toolPage = new QWidget;
    toolPage->setObjectName(u"toolCallsPage"_s);
    auto *tcl = new QVBoxLayout(toolPage);
    tcl->setContentsMargins(0, 0, 0, 0);
    m_toolCalls = new ToolCallsForm;
    tcl->addWidget(m_toolCalls);
    m_sendAll = named(new QPushButton(tr("&Send")), u"inputSendAll"_s, tr("Send every answer"));
    tcl->addWidget(m_sendAll, 0, Qt::AlignRight);
    m_pages->addWidget(toolPage);
    connect(m_toolCalls, &ToolCallsForm::completeChanged, this, &InputPanel::updateEnabled);
    connect(m_toolCalls, &ToolCallsForm::submitRequested, m_sendAll, &QPushButton::click);
    connect(m_sendAll, &QPushButton::clicked, this, &InputPanel::sendToolAnswers);

    // A typed form (the request's JSON Schema): the fields, then why Send is disabled and Send.
    auto *valuePage = new QWidget;
    valuePage->setObjectName(u"valuePage"_s);
    auto *vl = new QVBoxLayout(valuePage);
    vl->setContentsMargins(0, 0, 0, 0);
    m_form = new TypedAnswerForm;
    vl->addWidget(m_form);
    auto *sendRow = new QHBoxLayout;
    m_formProblem = named(new QLabel, u"inputValueProblem"_s, tr("Why the answer cannot be sent"));
    m_formProblem->setWordWrap(true);
    m_formProblem->setStyleSheet(u"color: #b3261e;"_s);
    sendRow->addWidget(m_formProblem, 1);
    // Takes the room while the problem is hidden, so the buttons keep their size on the right.
    sendRow->addStretch(0);
    m_sendValue = named(new QPushButton(tr("&Send")), u"inputSendValue"_s, tr("Send the form"));
    sendRow->addWidget(m_sendValue, 0, Qt::AlignTop);
    // Where the service lets a form be turned down (InputRequest::declinable, dismissChoice).
    // "Dismiss", never "Cancel": beside a run, Cancel means cancelling the run (Run > Cancel
    // Run), while this only closes the request unanswered and the server decides what its task
    // does next.
    m_declineValue
        = named(new QPushButton(tr("&Decline")), u"inputDeclineValue"_s, tr("Decline the request"));
    m_declineValue->setToolTip(tr("Tell the server you refuse to give this information"));
    sendRow->addWidget(m_declineValue, 0, Qt::AlignTop);
    m_dismissValue = named(new QPushButton(tr("Dis&miss")), u"inputDismissValue"_s,
                           tr("Dismiss the request without answering"));
    m_dismissValue->setToolTip(
        tr("Close the request without answering; this does not cancel the run, the server decides what "
           "happens next"));
    sendRow->addWidget(m_dismissValue, 0, Qt::AlignTop);
    vl->addLayout(sendRow);
    m_pages->addWidget(valuePage);
    connect(m_form, &TypedAnswerForm::changed, this, &InputPanel::updateEnabled);
    connect(m_form, &TypedAnswerForm::submitRequested, m_sendValue, &QPushButton::click);
    connect(m_sendValue, &QPushButton::clicked, this, &InputPanel::sendValue);
    connect(m_declineValue, &QPushButton::clicked, this,
            [this] { sendFormRefusal(InputAnswer::Kind::Reject); });
    connect(m_dismissValue, &QPushButton::clicked, this,
            [this] { sendFormRefusal(InputAnswer::Kind::Choice); });

    // Outside the stack: a stacked widget does not do height-for-width, so wrapped text in a
    // page would leave the panel too tall or cut it off.
    m_info = new QLabel;
    m_info->setTextFormat(Qt::PlainText); // may show what a server sent: never markup
    m_info->setObjectName(u"inputInfo"_s);
    m_info->setWordWrap(true);
    m_info->hide();
    layout->addWidget(m_info);

    m_note = new QLabel;
    m_note->setTextFormat(Qt::PlainText); // may show what a server sent: never markup
    m_note->setWordWrap(true);
    m_note->setObjectName(u"inputNote"_s);
    m_note->hide();
    layout->addWidget(m_note);

    m_tick.setInterval(1000);
    connect(&m_tick, &QTimer::timeout, this, &InputPanel::updateCountdown);
}

void InputPanel::showRequest(const QString &runId, const InputRequest &request, bool canRespond)
{
    const bool same = runId == m_runId && request == m_request;
    m_runId = runId;
    m_request = request;
    m_canRespond = canRespond;
    if (!same) {
        m_busy = false;
        m_text->clear();
        m_comment->clear();
        m_note->hide();
        m_heading->setText(reasonHeading(request.reason));
        m_prompt->setText(request.prompt.isEmpty() ? tr("(no question text)") : request.prompt);
        m_options->clear();
        m_options->addItems(request.options);
        m_info->clear();
        m_toolCalls->setCalls(request.toolCalls);
        m_sendAll->setText(request.toolCalls.size() > 1 ? tr("&Send all %1").arg(request.toolCalls.size())
                                                        : tr("&Send"));
        m_form->setSchema(request.schema);
        m_declineValue->setVisible(request.declinable);
        m_dismissValue->setVisible(!request.dismissChoice.isEmpty());
        m_approve->setText(opensUrl() ? tr("&Open and accept…") : tr("&Approve"));
        if (!request.toolCalls.isEmpty()) {
            // Whatever the reason says (tool output, approval), the calls are what is answered.
            m_pages->setCurrentIndex(ToolCallsPage);
        } else if (!request.schema.isEmpty() && answerable()) {
            // A typed form is what the service asked for, whatever the reason says.
            m_pages->setCurrentIndex(ValuePage);
        } else {
            switch (request.reason) {
            case InputReason::Approval:
                m_pages->setCurrentIndex(ApprovalPage);
                break;
            case InputReason::Auth:
                // A URL to open (MCP's URL-mode elicitation): accept opens it, after asking.
                m_pages->setCurrentIndex(opensUrl() ? ApprovalPage : TextPage);
                if (opensUrl()) {
                    m_prompt->setText(m_prompt->text() + u"\n"_s + request.callbackUrl);
                    m_info->setText(tr("Accept opens this address in your browser; Reject declines."));
                }
                break;
            case InputReason::Options:
                m_pages->setCurrentIndex(request.options.isEmpty() ? TextPage : OptionsPage);
                break;
            case InputReason::Timer:
                m_pages->setCurrentIndex(TimerPage);
                m_info->setText(request.deadline.isValid()
                                    ? tr("The run resumes by itself at %1; there is nothing to answer.")
                                          .arg(QLocale().toString(request.deadline.toLocalTime().time(),
                                                                  QLocale::ShortFormat))
                                    : tr("The run resumes by itself; there is nothing to answer."));
                break;
            case InputReason::Webhook:
                m_pages->setCurrentIndex(WebhookPage);
                m_callbackUrl->setText(request.callbackUrl.isEmpty() ? tr("(the server did not say)")
                                                                     : request.callbackUrl);
                m_callbackUrl->setCursorPosition(0);
                m_copyUrl->setText(tr("Copy &URL"));
                m_info->setText(tr("Waiting for the callback… The run goes on when the external system calls "
                                   "this URL; there is nothing to answer here."));
                break;
            default:
                m_pages->setCurrentIndex(TextPage);
                break;
            }
        }
    }
    if (!canRespond && answerable()) {
        m_note->setText(tr("This connection cannot send answers; respond where the run was started."));
        m_note->show();
    }
    m_info->setVisible(!m_info->text().isEmpty());
    m_pages->setVisible(m_pages->currentIndex() != TimerPage);
    // A stacked widget is as tall as its tallest page unless the others ignore their size.
    for (int i = 0; i < m_pages->count(); ++i) {
        m_pages->widget(i)->setSizePolicy(QSizePolicy::Preferred, i == m_pages->currentIndex()
                                                                      ? QSizePolicy::Preferred
                                                                      : QSizePolicy::Ignored);
    }
    // updateGeometry(), not adjustSize(): the latter sizes the pages to their hint, wider than
    // the pane when a label is long, until something else happens to re-run the layout.
    m_pages->updateGeometry();
    updateCountdown();
    updateEnabled();
}

void InputPanel::setBusy(bool busy)
{
    m_busy = busy;
    updateEnabled();
}

void InputPanel::setError(const QString &message)
{
    m_busy = false;
    m_note->setText(message);
    m_note->setVisible(!message.isEmpty());
    updateEnabled();
}

void InputPanel::focusAnswer()
{
    switch (m_pages->currentIndex()) {
    case ApprovalPage:
        m_comment->setFocus(Qt::ShortcutFocusReason);
        break;
    case OptionsPage:
        m_options->setFocus(Qt::ShortcutFocusReason);
        if (m_options->currentRow() < 0 && m_options->count() > 0)
            m_options->setCurrentRow(0);
        break;
    case TimerPage:
        break;
    case WebhookPage:
        m_copyUrl->setFocus(Qt::ShortcutFocusReason);
        break;
    case ToolCallsPage:
        m_toolCalls->focusFirst();
        break;
    case ValuePage:
        m_form->focusFirst();
        break;
    default:
        m_text->setFocus(Qt::ShortcutFocusReason);
        break;
    }
}

void InputPanel::updateEnabled()
{
    const bool on = m_canRespond && !m_busy;
    m_text->setEnabled(on);
    m_send->setEnabled(on && !m_text->toPlainText().trimmed().isEmpty());
    m_comment->setEnabled(on);
    m_approve->setEnabled(on);
    m_reject->setEnabled(on);
    m_options->setEnabled(on);
    m_choose->setEnabled(on && m_options->currentRow() >= 0);
    m_copyUrl->setEnabled(!m_request.callbackUrl.isEmpty());
    m_toolCalls->setEditable(on);
    m_sendAll->setEnabled(on && m_toolCalls->isComplete());
    m_form->setEditable(on);
    m_sendValue->setEnabled(on && m_form->isValid());
    m_declineValue->setEnabled(on); // turning a form down needs nothing filled in
    m_dismissValue->setEnabled(on);
    m_formProblem->setText(m_form->problem());
    m_formProblem->setVisible(!m_form->isValid());
}

void InputPanel::updateCountdown()
{
    if (!m_request.deadline.isValid()) {
        m_countdown->clear();
        m_tick.stop();
        return;
    }
    const qint64 ms = QDateTime::currentDateTimeUtc().msecsTo(m_request.deadline);
    m_countdown->setText(countdownText(ms));
    if (ms > 0 && isVisible()) {
        m_tick.start();
    } else {
        m_tick.stop();
    }
}

void InputPanel::showEvent(QShowEvent *event)
{
    QFrame::showEvent(event);
    updateCountdown();
}

void InputPanel::hideEvent(QHideEvent *event)
{
    QFrame::hideEvent(event);
    m_tick.stop();
}

bool InputPanel::opensUrl() const
{
    const QUrl url(m_request.callbackUrl);
    return m_request.reason == InputReason::Auth && url.isValid()
           && (url.scheme() == u"https"_s || url.scheme() == u"http"_s);
}

void InputPanel::approve()
{
    if (opensUrl()) {
        // The address is the server's: say where it goes before a browser opens it.
        const QUrl url(m_request.callbackUrl);
        if (QMessageBox::question(
                this, tr("Open address"),
                tr("Open %1 in your browser and tell the server you accept?").arg(url.toDisplayString()))
            != QMessageBox::Yes)
            return;
        QDesktopServices::openUrl(url);
    }
    send(InputAnswer::Kind::Approve);
}

bool InputPanel::answerable() const
{
    return m_request.reason != InputReason::Timer && m_request.reason != InputReason::Webhook;
}

void InputPanel::send(InputAnswer::Kind kind)
{
    if (!m_canRespond || !answerable() || m_busy || m_runId.isEmpty())
        return;
    InputAnswer answer;
    answer.kind = kind;
    switch (kind) {
    case InputAnswer::Kind::Text:
        answer.text = m_text->toPlainText().trimmed();
        if (answer.text.isEmpty())
            return;
        break;
    case InputAnswer::Kind::Approve:
    case InputAnswer::Kind::Reject:
        answer.comment = m_comment->text().trimmed();
        break;
    case InputAnswer::Kind::Choice:
        if (!m_options->currentItem())
            return;
        answer.choice = m_options->currentItem()->text();
        break;
    case InputAnswer::Kind::Value:
        return; // sendValue()
    }
    m_note->hide();
    setBusy(true);
    Q_EMIT answered(m_runId, answer);
}

void InputPanel::sendToolAnswers()
{
    if (!m_canRespond || m_busy || m_runId.isEmpty() || !m_toolCalls->isComplete())
        return;
    InputAnswer answer;
    answer.toolAnswers = m_toolCalls->answers();
    m_note->hide();
    setBusy(true);
    Q_EMIT answered(m_runId, answer);
}

void InputPanel::sendValue()
{
    if (!m_canRespond || m_busy || m_runId.isEmpty() || !m_form->isValid())
        return;
    InputAnswer answer;
    answer.kind = InputAnswer::Kind::Value;
    answer.value = m_form->value();
    m_note->hide();
    setBusy(true);
    Q_EMIT answered(m_runId, answer);
}

void InputPanel::sendFormRefusal(InputAnswer::Kind kind)
{
    if (!m_canRespond || m_busy || m_runId.isEmpty())
        return;
    InputAnswer answer;
    answer.kind = kind;
    if (kind == InputAnswer::Kind::Reject) {
        if (!m_request.declinable)
            return;
    } else {
        if (m_request.dismissChoice.isEmpty())
            return;
        answer.choice = m_request.dismissChoice;
    }
    m_note->hide();
    setBusy(true);
    Q_EMIT answered(m_runId, answer);
}

} // namespace Runwatch
