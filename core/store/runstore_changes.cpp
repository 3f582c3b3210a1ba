// SPDX-License-Identifier: GPL-3.0-or-later
// RunStore's side of a shared server store: the changes other processes announce (PostgreSQL's
// LISTEN runwatch_runs, fed by triggers on every writer's rows: storeengine_pg.cpp), and the
// connection's upkeep — a dropped connection is noticed, said (connectionChanged) and made again
// with a growing pause, while the writer keeps what it is given (RunStoreWriter reconnects on its
// own at the next try). A SQLite store has neither: it never emits these signals.
#include "domain/boundedwait.h"
#include "store/runstore.h"

#include <QCoreApplication>
#include <QLoggingCategory>
#include <QSqlDriver>
#include <QSqlError>
#include <QSqlQuery>

using namespace Qt::StringLiterals;

Q_DECLARE_LOGGING_CATEGORY(lcStore)

namespace Runwatch {

namespace {
// Operator-facing messages; lupdate reads Text::tr() under "RunStore".
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(RunStore)
};

// Notices are gathered this long: a process streaming a hundred runs announces each about once a
// second, and the front end reads a run once per batch, not once per notice.
constexpr int kChangeBatchMs = 100;
// A connection nobody uses would drop unnoticed until the next read: one trivial statement this
// often notices it (not a poll of the runs: nothing is read).
constexpr int kLivenessMs = 2000;
constexpr int kFirstReconnectMs = 500;
constexpr int kLastReconnectMs = 30000;
} // namespace

void RunStore::setUpChangeTimers()
{
    m_changeTimer.setObjectName(u"storeChanges"_s);
    m_changeTimer.setSingleShot(true);
    m_changeTimer.setInterval(kChangeBatchMs);
    m_changeTimer.setTimerType(kChoreTimer);
    connect(&m_changeTimer, &QTimer::timeout, this, [this] {
        if (m_changedElsewhere.isEmpty())
            return;
        const QStringList ids = m_changedElsewhere.values();
        m_changedElsewhere.clear();
        Q_EMIT runsChangedElsewhere(ids);
    });
    m_livenessTimer.setInterval(kLivenessMs);
    connect(&m_livenessTimer, &QTimer::timeout, this, &RunStore::checkConnection);
    m_reconnectTimer.setSingleShot(true);
    connect(&m_reconnectTimer, &QTimer::timeout, this, &RunStore::reconnect);
}

void RunStore::closeConnection()
{
    if (!QSqlDatabase::contains(m_connectionName))
        return;
    {
        QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
        if (QSqlDriver *driver = db.driver()) {
            disconnect(driver, nullptr, this, nullptr);
            for (const QString &channel : driver->subscribedToNotifications())
                driver->unsubscribeFromNotification(channel);
        }
        db.close();
    }
    QSqlDatabase::removeDatabase(m_connectionName);
}

void RunStore::subscribeToChanges()
{
    m_livenessTimer.stop();
    m_reconnectTimer.stop();
    m_connected = true;
    m_reconnectDelayMs = 0;
    if (!m_engine || !m_engine->connectionCanDrop())
        return;
    m_livenessTimer.start();
    const QString channel = m_engine->changeChannel();
    if (channel.isEmpty())
        return;
    QSqlDriver *driver = QSqlDatabase::database(m_connectionName, false).driver();
    if (!driver || !driver->subscribeToNotification(channel)) {
        qCWarning(lcStore) << "cannot listen for changes on" << channel;
        return;
    }
    connect(driver, &QSqlDriver::notification, this,
            [this](const QString &name, QSqlDriver::NotificationSource, const QVariant &payload) {
                if (!m_engine || name != m_engine->changeChannel())
                    return;
                m_changedElsewhere.insert(payload.toString());
                if (!m_changeTimer.isActive())
                    m_changeTimer.start();
            });
}

void RunStore::checkConnection()
{
    if (!m_engine || !m_connected)
        return;
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    if (q.exec(u"SELECT 1"_s))
        return;
    QString why = q.lastError().text();
    if (why.trimmed().isEmpty())
        why = Text::tr("the server closed the connection");
    q = QSqlQuery();
    qCWarning(lcStore) << "run store connection lost:" << why;
    m_connected = false;
    m_livenessTimer.stop();
    m_statements = {};
    closeConnection();
    m_reconnectDelayMs = kFirstReconnectMs;
    m_reconnectTimer.start(m_reconnectDelayMs);
    Q_EMIT connectionChanged(false, Text::tr("Lost the connection to the run store %1: %2").arg(m_path, why));
}

void RunStore::reconnect()
{
    if (!m_engine || m_connected)
        return;
    QString why;
    if (m_engine->openConnection(m_connectionName, &why)) {
        const QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
        if (m_statements.prepare(db, m_engine, &why)) {
            subscribeToChanges();
            qCInfo(lcStore) << "run store connection made again:" << m_path;
            Q_EMIT connectionChanged(true, {});
            // What was written meanwhile was not announced to this process: the front end reads
            // the runs it shows again when it learns of the reconnection.
            return;
        }
        closeConnection();
    }
    m_reconnectDelayMs = std::min(m_reconnectDelayMs * 2, kLastReconnectMs);
    m_reconnectTimer.start(m_reconnectDelayMs);
    Q_EMIT connectionChanged(false, Text::tr("Cannot reach the run store %1 (trying again in %2 s): %3")
                                        .arg(m_path)
                                        .arg(m_reconnectDelayMs / 1000.0, 0, 'f', 1)
                                        .arg(why));
}

} // namespace Runwatch
