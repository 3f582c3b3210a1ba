// SPDX-License-Identifier: GPL-3.0-or-later
#include "cancelladderbanner.h"

#include "domain/runstatus.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

using namespace Qt::StringLiterals;

namespace Runwatch {

CancelLadderBanner::CancelLadderBanner(QWidget *parent)
    : QFrame(parent)
{
    setObjectName(u"cancelLadderBanner"_s);
    // Amber, not red: nothing failed yet, the operator has a decision to make.
    setStyleSheet(u"#cancelLadderBanner { background: rgba(244, 165, 28, 0.14);"
                  " border: 1px solid rgba(180, 110, 0, 0.6); border-radius: 6px; }"_s);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(10, 6, 8, 6);
    m_text = new QLabel;
    m_text->setObjectName(u"cancelLadderText"_s);
    m_text->setWordWrap(true);
    m_text->setTextFormat(Qt::PlainText);
    m_text->setAccessibleName(tr("Cancel not confirmed"));
    layout->addWidget(m_text, 1);
    m_force = new QPushButton(tr("Force Ca&ncel"));
    m_force->setObjectName(u"cancelLadderForce"_s);
    m_force->setAccessibleName(tr("Force the service to cancel the run"));
    layout->addWidget(m_force, 0, Qt::AlignVCenter);
    m_stop = new QPushButton(tr("Stop &Watching…"));
    m_stop->setObjectName(u"cancelLadderStop"_s);
    m_stop->setAccessibleName(tr("Stop watching the run"));
    layout->addWidget(m_stop, 0, Qt::AlignVCenter);
    connect(m_force, &QPushButton::clicked, this, [this] { Q_EMIT forceCancelRequested(m_runId); });
    connect(m_stop, &QPushButton::clicked, this, [this] { Q_EMIT stopWatchingRequested(m_runId); });
    hide();
}

void CancelLadderBanner::showRun(const Run &run, const RunActionState &actions)
{
    m_runId = run.localId;
    if (!actions.stopWatching && !actions.forceCancel) {
        hide();
        return;
    }
    const QString said = run.rawStatus.isEmpty() ? statusName(run.status) : run.rawStatus;
    m_text->setText(actions.forceCancel
                        ? tr("The service accepted the cancel but has not confirmed it; it still says “%1”. "
                             "It offers a stronger cancel, or you can stop watching the run.")
                              .arg(said)
                        : tr("The service accepted the cancel but has not confirmed it; it still says “%1”. "
                             "You can stop watching the run: it ends here, with what the server last said "
                             "in its timeline, and a later confirmation still updates it.")
                              .arg(said));
    m_force->setVisible(actions.forceCancel);
    m_stop->setVisible(actions.stopWatching);
    show();
}

} // namespace Runwatch
