// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "models/runfilter.h"

#include <QWidget>

#include <array>

class QButtonGroup;
class QComboBox;
class QHBoxLayout;
class QSpacerItem;
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
    // What the full-text search made of the text (RunFilterProxy::searchChanged): why it could
    // not search, shown on the field with a warning sign, or how many runs it found.
    void setSearchState(const QString &error, int found, bool more);
    // Type-to-filter: focuses the search field and appends what was typed in the list.
    void typeIntoSearch(const QString &text);

    QToolButton *chip(StatusCategory category) const { return m_chips.at(std::size_t(category)); }
    QLineEdit *searchField() const { return m_search; }
    QComboBox *connectionBox() const { return m_connection; }
    // Whether the search field and the connection filter sit on a second row (a narrow bar).
    bool isWrapped() const { return m_wrapped; }
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    void categoryChanged(Runwatch::StatusCategory category);
    void textChanged(const QString &text);
    void connectionChanged(const QString &connection);
    // Esc in the search field: the text is cleared, and the list should take the focus back.
    void searchLeft();
    // Enter in the search field: search the store again for the same text.
    void searchSubmitted();

protected:
    void resizeEvent(QResizeEvent *event) override;
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void updateChipTexts();
    int oneRowWidth() const;
    void setWrapped(bool wrapped);

    std::array<QToolButton *, kStatusCategoryCount> m_chips{};
    QButtonGroup *m_group = nullptr;
    QLineEdit *m_search = nullptr;
    QAction *m_searchWarning = nullptr;
    QComboBox *m_connection = nullptr;
    QHBoxLayout *m_chipRow = nullptr;
    QHBoxLayout *m_secondRow = nullptr;
    QSpacerItem *m_gap = nullptr;
    bool m_wrapped = false;
    StatusCategory m_category = StatusCategory::All;
    RunCounts m_counts;
};

} // namespace Runwatch
