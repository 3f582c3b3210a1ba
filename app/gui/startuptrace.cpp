// SPDX-License-Identifier: GPL-3.0-or-later
#include "startuptrace.h"

#include "engine/runmanager.h"
#include "mainwindow.h"
#include "models/runlistmodel.h"
#include "runtableview.h"

#include <QDateTime>
#include <QEvent>
#include <QFile>

#include <algorithm>
#include <cstdio>
#include <ctime>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

qint64 residentKb()
{
    QFile f(u"/proc/self/status"_s);
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').constFirst().toLongLong();
    }
    return -1;
}

} // namespace

StartupTrace *StartupTrace::installIfRequested(MainWindow *window, RunManager *manager, QObject *parent)
{
    if (!qEnvironmentVariableIsSet("RUNWATCH_STARTUP_TRACE") || !window || !manager)
        return nullptr;
    return new StartupTrace(window, manager, parent);
}

StartupTrace::StartupTrace(MainWindow *window, RunManager *manager, QObject *parent)
    : QObject(parent)
    , m_window(window)
    , m_manager(manager)
{
    window->table()->viewport()->installEventFilter(this);
    m_heartbeat.setTimerType(Qt::PreciseTimer);
    m_heartbeat.setInterval(2);
    connect(&m_heartbeat, &QTimer::timeout, this,
            [this] { m_longestStallMs = std::max(m_longestStallMs, m_sinceBeat.restart()); });
}

void StartupTrace::historyLoaded()
{
    m_historyLoaded = true;
    if (m_window)
        m_window->table()->viewport()->update();
}

bool StartupTrace::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() != QEvent::Paint || !m_window || m_completeReported)
        return QObject::eventFilter(watched, event);
    const int rows = m_window->runModel()->rowCount();
    // Reported from the event loop's next turn: the paint this filter sees has not happened yet.
    if (rows > 0 && !m_firstRowsReported) {
        m_firstRowsReported = true;
        m_sinceBeat.start();
        m_heartbeat.start();
        QMetaObject::invokeMethod(
            this, [this] { report("first-rows"); }, Qt::QueuedConnection);
    }
    if (m_historyLoaded && rows == m_manager->runIds().size()) {
        m_completeReported = true;
        m_heartbeat.stop();
        QMetaObject::invokeMethod(
            this, [this] { report("list-complete"); }, Qt::QueuedConnection);
    }
    return QObject::eventFilter(watched, event);
}

void StartupTrace::report(const char *what)
{
    timespec cpu{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
    const QByteArray stall
        = qstrcmp(what, "list-complete") == 0 ? " " + QByteArray::number(m_longestStallMs) : QByteArray();
    std::fprintf(stderr, "runwatch-startup: %s %lld %d %lld %lld%s\n", what,
                 QDateTime::currentMSecsSinceEpoch(), m_window ? m_window->runModel()->rowCount() : -1,
                 residentKb(), qlonglong(cpu.tv_sec) * 1000 + cpu.tv_nsec / 1000000, stall.constData());
    std::fflush(stderr);
}

} // namespace Runwatch
