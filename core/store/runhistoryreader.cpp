// SPDX-License-Identifier: GPL-3.0-or-later
#include "store/runhistoryreader.h"

#include "store/runstorerows.h"
#include "store/storeengine.h"

#include <QMutexLocker>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QThread>
#include <QUuid>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// Runs per hand-over: large enough that the mutex and the signal cost nothing per run, small
// enough that the first batch after the first page arrives within a few milliseconds.
constexpr qsizetype kBatchSize = 1000;
} // namespace

RunHistoryReader::RunHistoryReader(QObject *parent)
    : QObject(parent)
{}

RunHistoryReader::~RunHistoryReader()
{
    stop();
    if (m_thread)
        m_thread->wait();
}

void RunHistoryReader::start(const QString &path, const QString &afterCreatedAt, const QString &afterLocalId)
{
    if (m_thread)
        return;
    m_thread.reset(QThread::create(
        [this, path, afterCreatedAt, afterLocalId] { read(path, afterCreatedAt, afterLocalId); }));
    m_thread->setObjectName(u"Runwatch history"_s);
    m_thread->start();
}

void RunHistoryReader::stop()
{
    m_stop.store(true, std::memory_order_relaxed);
}

QList<Run> RunHistoryReader::takeBatch()
{
    QMutexLocker lock(&m_mutex);
    if (m_batches.isEmpty()) {
        m_signalled = false; // the next batch (or the end) signals again
        return {};
    }
    return m_batches.takeFirst();
}

bool RunHistoryReader::isDone() const
{
    QMutexLocker lock(&m_mutex);
    return m_ended && m_batches.isEmpty();
}

QString RunHistoryReader::errorString() const
{
    QMutexLocker lock(&m_mutex);
    return m_error;
}

void RunHistoryReader::hand(QList<Run> batch, bool last, const QString &error)
{
    m_readCount.fetch_add(batch.size(), std::memory_order_relaxed);
    bool notify = false;
    {
        QMutexLocker lock(&m_mutex);
        if (!batch.isEmpty())
            m_batches.append(std::move(batch));
        if (last) {
            m_ended = true;
            m_error = error;
        }
        notify = !std::exchange(m_signalled, true);
    }
    if (notify)
        Q_EMIT runsAvailable(); // queued to the receivers' thread
}

void RunHistoryReader::read(QString path, QString afterCreatedAt, QString afterLocalId)
{
    // QtSql connections belong to the thread that made them: this one is made, used and removed here.
    const QString name = u"runwatch-history-"_s + QUuid::createUuid().toString(QUuid::WithoutBraces);
    QString error;
    QList<Run> batch;
    const std::shared_ptr<const detail::StoreEngine> engine = detail::StoreEngine::forLocation(path, &error);
    if (QString why; engine && !engine->openConnection(name, &why)) {
        error = tr("Cannot read the run history: %1").arg(why);
    } else if (!engine) {
        error = tr("Cannot read the run history: %1").arg(error);
    }
    if (error.isEmpty()) {
        QSqlDatabase db = QSqlDatabase::database(name, false);
        if (!engine->beginSnapshot(db))
            error = tr("Cannot read the run history: %1").arg(db.lastError().text());
        if (error.isEmpty()) {
            QSqlQuery q(db);
            engine->prepareNestedRead(q); // a live run's output is read as the rows go by
            const bool after = !afterLocalId.isEmpty();
            // The order of RunStore::loadRunsPage, continued in one statement: the created_at index
            // is walked once instead of once per page.
            q.prepare(u"SELECT %1 %2ORDER BY r.created_at DESC, r.local_id DESC"_s.arg(
                detail::selectRuns(true),
                after ? u"WHERE (r.created_at, r.local_id) < (?, ?) "_s : QString()));
            if (after) {
                q.addBindValue(afterCreatedAt);
                q.addBindValue(afterLocalId);
            }
            if (!q.exec()) {
                error = tr("Cannot read the run history: %1").arg(q.lastError().text());
            } else {
                batch.reserve(kBatchSize);
                // Finished runs without their output (RunManager::ensureOutputLoaded() reads it on
                // demand); the few that are still going with it, as they will be followed.
                detail::RunRowReader reader(db);
                while (!m_stop.load(std::memory_order_relaxed) && q.next()) {
                    batch.append(reader.read(q, true));
                    if (batch.size() == kBatchSize) {
                        hand(std::exchange(batch, {}), false, {});
                        batch.reserve(kBatchSize);
                    }
                }
                // next() is false at the end and on an error (a corrupt page): only the error is news.
                if (q.lastError().isValid())
                    error = tr("The run history was read only in part: %1").arg(q.lastError().text());
            }
            q.finish();
            engine->endSnapshot(db);
        }
    }
    if (QSqlDatabase::contains(name)) {
        QSqlDatabase::database(name, false).close();
        QSqlDatabase::removeDatabase(name);
    }
    hand(std::move(batch), true, error);
}

} // namespace Runwatch
