// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/run.h"

#include <QFrame>
#include <QTimer>

class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QStackedWidget;

namespace Runwatch {
class ToolCallsForm;
class TypedAnswerForm;
} // namespace Runwatch

namespace Runwatch {

// The "needs input" panel of the detail pane: the run's question and the matching controls —
// free text, approve / reject with a comment, a choice among options; for tool calls one row per
// call (ToolCallsForm) and every answer in one submit; for a timer a countdown, for a webhook the
// callback URL and "waiting for the callback" (those two resume by themselves, so nothing is
// sent). A deadline (a timer's, or the time left before the service expires the run) counts down
// in the heading row. A request with a JSON Schema gets a typed form (TypedAnswerForm) whose Send
// stays disabled, with the reason shown, while the answer does not fit; where the request may be
// turned down (InputRequest::declinable, dismissChoice) Decline and Dismiss send that instead,
// whatever the fields hold. Emits answered(); the window sends it through the RunManager.
class InputPanel final : public QFrame
{
    Q_OBJECT
public:
    explicit InputPanel(QWidget *parent = nullptr);

    // Shows the request of run `runId`; `canRespond` false shows it read-only with the reason.
    void showRequest(const QString &runId, const InputRequest &request, bool canRespond);
    QString runId() const { return m_runId; }
    // While an answer is on its way the controls are disabled.
    void setBusy(bool busy);
    bool isBusy() const { return m_busy; }
    // Puts the keyboard focus on the first control (the Respond action).
    void focusAnswer();
    void setError(const QString &message);

Q_SIGNALS:
    void answered(const QString &runId, const Runwatch::InputAnswer &answer);

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    void send(InputAnswer::Kind kind);
    // Approve; for a URL to open (an MCP URL-mode elicitation) after asking, and only http(s).
    void approve();
    bool opensUrl() const;
    void sendToolAnswers();
    void sendValue();
    // Turns the form down: Reject (decline) or the request's dismissChoice, whatever is typed.
    void sendFormRefusal(InputAnswer::Kind kind);
    // False for timers and webhooks: the run resumes without an answer from the operator.
    bool answerable() const;
    void updateCountdown();
    void updateEnabled();

    QString m_runId;
    InputRequest m_request;
    bool m_canRespond = false;
    bool m_busy = false;
    QLabel *m_heading = nullptr;
    QLabel *m_prompt = nullptr;
    QLabel *m_countdown = nullptr;
    QLabel *m_note = nullptr;
    QStackedWidget *m_pages = nullptr;
    QPlainTextEdit *m_text = nullptr;
    QPushButton *m_send = nullptr;
    QLineEdit *m_comment = nullptr;
    QPushButton *m_approve = nullptr;
    QPushButton *m_reject = nullptr;
    QListWidget *m_options = nullptr;
    QPushButton *m_choose = nullptr;
    QLabel *m_info = nullptr; // what a timer or a webhook waits for
    QLineEdit *m_callbackUrl = nullptr;
    QPushButton *m_copyUrl = nullptr;
    ToolCallsForm *m_toolCalls = nullptr;
    QPushButton *m_sendAll = nullptr;
    TypedAnswerForm *m_form = nullptr;
    QLabel *m_formProblem = nullptr; // why Send is disabled
    QPushButton *m_sendValue = nullptr;
    QPushButton *m_declineValue = nullptr; // shown when the request is declinable
    QPushButton *m_dismissValue = nullptr; // shown when the request has a dismissChoice
    QTimer m_tick;
};

} // namespace Runwatch
