// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "models/runfilter.h"

#include <QWidget>

#include <array>

class QButtonGroup;
class QComboBox;
class QLineEdit;
class QToolButton;

namespace Runwatch {

// Status chips with live counts (qBittorrent's status filter, as a row), a text search over
// title / ids / connection, and a connection filter. Emits changes; the window applies them to
// the proxy and remembers them.
class FilterBar final : public QWidget
{
    Q_OBJECT
public:
    explicit FilterBar(QWidget *parent = nullptr);

    void setCounts(const RunCounts &counts);
    void setConnections(const QStringList &names);

    StatusCategory category() const { return m_category; }
    QString text() const;
    QString connection() const; // empty: all

    void setCategory(StatusCategory category);
    void setText(const QString &text);
    void setConnection(const QString &connection);
    void focusSearch();

    QToolButton *chip(StatusCategory category) const { return m_chips.at(std::size_t(category)); }
    QLineEdit *searchField() const { return m_search; }
    QComboBox *connectionBox() const { return m_connection; }

Q_SIGNALS:
    void categoryChanged(Runwatch::StatusCategory category);
    void textChanged(const QString &text);
    void connectionChanged(const QString &connection);

private:
    void updateChipTexts();

    std::array<QToolButton *, kStatusCategoryCount> m_chips{};
    QButtonGroup *m_group = nullptr;
    QLineEdit *m_search = nullptr;
    QComboBox *m_connection = nullptr;
    StatusCategory m_category = StatusCategory::All;
    RunCounts m_counts;
};

} // namespace Runwatch
