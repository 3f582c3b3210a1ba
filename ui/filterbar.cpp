// SPDX-License-Identifier: GPL-3.0-or-later
#include "filterbar.h"

#include "icons.h"

#include <QAction>
#include <QButtonGroup>
#include <QComboBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLineEdit>
#include <QResizeEvent>
#include <QSpacerItem>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// The order of the chips on screen: what may need the operator first ("Stuck" overlaps "Active"),
// "All" last, as the catch-all.
constexpr std::array kChipOrder{
    StatusCategory::Active, StatusCategory::NeedsInput, StatusCategory::Stuck, StatusCategory::Completed,
    StatusCategory::Failed, StatusCategory::Cancelled,  StatusCategory::All};
static_assert(kChipOrder.size() == kStatusCategoryCount);
} // namespace

FilterBar::FilterBar(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(u"filterBar"_s);
    setAccessibleName(tr("Filters"));
    setAccessibleDescription(tr("Status chips with live counts (Alt+1, Alt+2, …), a search field (Ctrl+F) "
                                "and a connection filter"));
    // Chips on the first row; the search field and the connection filter beside them when the
    // bar is wide enough, else on a second row (setWrapped), so a narrow window (a 1280-pixel
    // laptop with the detail pane open) never has to be wider than the chips.
    auto *rows = new QVBoxLayout(this);
    // The bar's minimum is minimumSizeHint() (the chips), not the one-row layout's.
    rows->setSizeConstraint(QLayout::SetNoConstraint);
    rows->setContentsMargins(8, 6, 8, 6);
    rows->setSpacing(6);
    auto *layout = new QHBoxLayout;
    layout->setSpacing(6);
    rows->addLayout(layout);
    m_chipRow = layout;
    m_secondRow = new QHBoxLayout;
    m_secondRow->setSpacing(6);
    rows->addLayout(m_secondRow);
    m_group = new QButtonGroup(this);
    m_group->setExclusive(true);
    // Chips: rounded, the checked one filled with the highlight colour.
    setStyleSheet(u"QToolButton[chip=\"true\"] { border: 1px solid palette(mid); border-radius: 11px;"
                  " padding: 2px 10px; }"
                  "QToolButton[chip=\"true\"]:checked { background: palette(highlight);"
                  " color: palette(highlighted-text); border-color: palette(highlight); }"
                  "QToolButton[chip=\"true\"]:focus { border: 2px solid palette(highlight); }"_s);
    int shortcut = 1;
    for (StatusCategory c : kChipOrder) {
        auto *chip = new QToolButton;
        chip->setProperty("chip", true);
        chip->setCheckable(true);
        chip->setAutoRaise(false);
        chip->setFocusPolicy(Qt::StrongFocus);
        chip->setObjectName(u"chip_"_s + categoryName(c));
        chip->setProperty("chipShortcut", QKeySequence(u"Alt+%1"_s.arg(shortcut++)));
        m_group->addButton(chip, int(c));
        m_chips.at(std::size_t(c)) = chip;
        layout->addWidget(chip);
    }
    m_chips.at(std::size_t(StatusCategory::All))->setChecked(true);
    connect(m_group, &QButtonGroup::idClicked, this, [this](int id) {
        const auto c = StatusCategory(id);
        if (c == m_category)
            return;
        m_category = c;
        Q_EMIT categoryChanged(c);
    });
    m_gap = new QSpacerItem(8, 0, QSizePolicy::Fixed, QSizePolicy::Minimum);
    layout->addSpacerItem(m_gap);

    m_search = new QLineEdit;
    m_search->setObjectName(u"searchField"_s);
    m_search->setPlaceholderText(tr("Search runs: words, \"a phrase\", status:failed since:7d  (Ctrl+F)"));
    m_search->setAccessibleName(tr("Search runs"));
    m_search->setAccessibleDescription(tr(
        "Filters the list by title, id or connection, and by anything in a run's prompt, answer, reasoning, "
        "tool calls or error; Esc clears it"));
    m_search->installEventFilter(this);
    m_search->setClearButtonEnabled(true);
    m_search->addAction(Icons::themed(u"search"_s, palette()), QLineEdit::LeadingPosition);
    m_searchWarning
        = m_search->addAction(Icons::themed(u"status-warning"_s, palette()), QLineEdit::TrailingPosition);
    m_searchWarning->setVisible(false);
    connect(m_search, &QLineEdit::returnPressed, this, &FilterBar::searchSubmitted);
    setSearchState({}, 0, false);
    m_search->setMinimumWidth(160);
    layout->addWidget(m_search, 1);
    // Typing is debounced so a 100k-row list is not re-filtered on every keystroke.
    auto *debounce = new QTimer(this);
    debounce->setSingleShot(true);
    debounce->setInterval(150);
    connect(m_search, &QLineEdit::textChanged, debounce, qOverload<>(&QTimer::start));
    connect(debounce, &QTimer::timeout, this, [this] { Q_EMIT textChanged(m_search->text()); });

    m_connection = new QComboBox;
    m_connection->setObjectName(u"connectionFilter"_s);
    m_connection->setAccessibleName(tr("Connection filter"));
    m_connection->setAccessibleDescription(tr("Shows the runs of one connection only"));
    // Long connection names are elided rather than widening the bar.
    m_connection->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_connection->setMinimumContentsLength(16);
    m_connection->addItem(tr("All connections"), QString());
    layout->addWidget(m_connection);
    connect(m_connection, &QComboBox::currentIndexChanged, this,
            [this] { Q_EMIT connectionChanged(connection()); });
    updateChipTexts();
}

int FilterBar::oneRowWidth() const
{
    // On one row the search field keeps room for a few words.
    constexpr int kSearchWidth = 220;
    const QMargins margins = layout()->contentsMargins();
    int width = margins.left() + margins.right() + 8;
    for (const QToolButton *chip : m_chips)
        width += chip->sizeHint().width() + m_chipRow->spacing();
    width += kSearchWidth + m_chipRow->spacing();
    return width + m_connection->sizeHint().width();
}

void FilterBar::setWrapped(bool wrapped)
{
    if (wrapped == m_wrapped)
        return;
    m_wrapped = wrapped;
    QHBoxLayout *to = wrapped ? m_secondRow : m_chipRow;
    to->addWidget(m_search, 1);
    to->addWidget(m_connection);
    // Wrapped, the gap after the chips takes the spare width (else the chips spread out); on one
    // row the search field (stretch 1) takes it.
    m_gap->changeSize(wrapped ? 0 : 8, 0, wrapped ? QSizePolicy::Expanding : QSizePolicy::Fixed,
                      QSizePolicy::Minimum);
    layout()->invalidate();
    updateGeometry();
}

void FilterBar::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    // The decision depends on the width alone (the splitter's), never on the height it causes.
    setWrapped(width() < oneRowWidth());
}

QSize FilterBar::minimumSizeHint() const
{
    // Narrow enough for the chips alone: the rest wraps.
    QSize hint = QWidget::minimumSizeHint();
    int chips = 0;
    for (const QToolButton *chip : m_chips)
        chips += chip->sizeHint().width() + m_chipRow->spacing();
    const QMargins margins = layout()->contentsMargins();
    hint.setWidth(chips + margins.left() + margins.right());
    return hint;
}

QString FilterBar::text() const
{
    return m_search->text();
}

QString FilterBar::connection() const
{
    return m_connection->currentData().toString();
}

void FilterBar::setCounts(const RunCounts &counts)
{
    if (counts == m_counts)
        return;
    m_counts = counts;
    updateChipTexts();
}

void FilterBar::updateChipTexts()
{
    for (StatusCategory c : kChipOrder) {
        QToolButton *chip = m_chips.at(std::size_t(c));
        const int n = m_counts.value(c);
        chip->setText(u"%1  %2"_s.arg(categoryLabel(c)).arg(n));
        // setText() replaces the shortcut with the text's mnemonic: put Alt+N back.
        const auto shortcut = chip->property("chipShortcut").value<QKeySequence>();
        chip->setShortcut(shortcut);
        const QString keys = shortcut.toString(QKeySequence::NativeText);
        chip->setAccessibleName(tr("%1: %n run(s)", "filter chip", n).arg(categoryLabel(c)));
        if (c == StatusCategory::Stuck) {
            // Not a status: say what puts a run here, or the chip reads as a fourth kind of failure.
            chip->setAccessibleDescription(
                tr("Filter chip: lists only the live runs without progress for too long (%1)").arg(keys));
            chip->setToolTip(tr("Show only the live runs that made no progress for several times their "
                                "expected duration (%1)")
                                 .arg(keys));
            continue;
        }
        chip->setAccessibleDescription(tr("Filter chip: lists only these runs (%1)").arg(keys));
        chip->setToolTip(tr("Show only the runs of “%1” (%2)").arg(categoryLabel(c), keys));
    }
}

void FilterBar::setConnections(const QStringList &names)
{
    const QString current = connection();
    QSignalBlocker block(m_connection);
    while (m_connection->count() > 1)
        m_connection->removeItem(1);
    for (const QString &name : names)
        m_connection->addItem(name, name);
    const int at = m_connection->findData(current);
    m_connection->setCurrentIndex(at < 0 ? 0 : at);
    if (at < 0 && !current.isEmpty())
        Q_EMIT connectionChanged(QString());
}

void FilterBar::setCategory(StatusCategory category)
{
    m_chips.at(std::size_t(category))->setChecked(true);
    if (category != m_category) {
        m_category = category;
        Q_EMIT categoryChanged(category);
    }
}

void FilterBar::setText(const QString &text)
{
    m_search->setText(text);
    Q_EMIT textChanged(text);
}

void FilterBar::setConnection(const QString &connection)
{
    int at = m_connection->findData(connection);
    if (at < 0 && !connection.isEmpty()) {
        // Remembered from last time; the connection may come back once the profiles load.
        m_connection->addItem(connection, connection);
        at = m_connection->count() - 1;
    }
    m_connection->setCurrentIndex(at < 0 ? 0 : at);
}

bool FilterBar::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_search && event->type() == QEvent::KeyPress) {
        const auto *key = static_cast<QKeyEvent *>(event);
        if (key->key() == Qt::Key_Escape && key->modifiers() == Qt::NoModifier) {
            if (!m_search->text().isEmpty())
                setText({});
            Q_EMIT searchLeft();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void FilterBar::typeIntoSearch(const QString &text)
{
    m_search->setFocus(Qt::OtherFocusReason);
    m_search->deselect();
    m_search->end(false);
    m_search->insert(text);
}

void FilterBar::setSearchState(const QString &error, int found, bool more)
{
    m_searchWarning->setVisible(!error.isEmpty());
    m_searchWarning->setToolTip(error);
    QString tip;
    if (!error.isEmpty()) {
        tip = error;
    } else if (m_search->text().trimmed().isEmpty()) {
        tip = tr(
            "Words and \"exact phrases\" are found in titles, prompts, answers, reasoning, tool calls and "
            "errors; word* finds every word it begins.\nFilters: status:failed, backend:a2a, "
            "connection:NAME, "
            "model:M, since:7d, until:2026-11-01 (commas for several).\nEnter searches again.");
    } else if (more) {
        tip = tr("More than %1 runs hold these words; the newest %1 are listed. Enter searches again.")
                  .arg(found);
    } else {
        tip = tr("%n run(s) hold these words. Enter searches again.", nullptr, found);
    }
    m_search->setToolTip(tip);
}

void FilterBar::focusSearch()
{
    m_search->setFocus(Qt::ShortcutFocusReason);
    m_search->selectAll();
}

} // namespace Runwatch
