// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QSqlDatabase>
#include <QString>

#include <memory>

namespace Runwatch::detail {

class StoreEngine;

// A database connection of one thread's own, for the store's helpers that work beside the front
// end's thread (RunStoreWriter, ChangedRunsReader, LeaseKeeper): Qt lets a connection be used only by the thread
// that opened it, so it is opened there, on first use, and made again after an error (a server's
// connection may have dropped). Created, used and destroyed on that thread.
class ThreadConnection
{
public:
    // `role` names the connection for Qt's registry (a unique name is made from it).
    ThreadConnection(std::shared_ptr<const StoreEngine> engine, const QString &role);
    ~ThreadConnection();
    ThreadConnection(const ThreadConnection &) = delete;
    ThreadConnection &operator=(const ThreadConnection &) = delete;

    // The open connection; an invalid one, with *error, when it cannot be opened.
    QSqlDatabase open(QString *error);
    // The connection open() opened (invalid before).
    QSqlDatabase database() const;
    // After a database error: the next open() makes the connection again.
    void close();

private:
    std::shared_ptr<const StoreEngine> m_engine;
    QString m_name;
    bool m_open = false;
};

} // namespace Runwatch::detail
