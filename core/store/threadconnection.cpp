// SPDX-License-Identifier: GPL-3.0-or-later
#include "store/threadconnection.h"

#include "store/storeengine.h"

#include <QUuid>

using namespace Qt::StringLiterals;

namespace Runwatch::detail {

ThreadConnection::ThreadConnection(std::shared_ptr<const StoreEngine> engine, const QString &role)
    : m_engine(std::move(engine))
    , m_name(u"runwatch-store-"_s + role + u'-' + QUuid::createUuid().toString(QUuid::WithoutBraces))
{}

ThreadConnection::~ThreadConnection()
{
    close();
}

QSqlDatabase ThreadConnection::open(QString *error)
{
    if (!m_open) {
        if (!m_engine->openConnection(m_name, error)) {
            close();
            return {};
        }
        m_open = true;
    }
    return QSqlDatabase::database(m_name, false);
}

QSqlDatabase ThreadConnection::database() const
{
    return QSqlDatabase::database(m_name, false);
}

void ThreadConnection::close()
{
    m_open = false;
    if (!QSqlDatabase::contains(m_name))
        return;
    {
        QSqlDatabase db = QSqlDatabase::database(m_name, false);
        db.close();
    }
    QSqlDatabase::removeDatabase(m_name);
}

} // namespace Runwatch::detail
