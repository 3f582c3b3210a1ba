// SPDX-License-Identifier: GPL-3.0-or-later
#include "commandpalettepopup.h"

#include "engine/runmanager.h"
#include "icons.h"
#include "models/runfilter.h"
#include "models/runlistmodel.h"
#include "statusstyle.h"

#include <QAction>
#include <QApplication>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QPainter>
#include <QScreen>
#include <QStyledItemDelegate>
#include <QToolBar>
#include <QVBoxLayout>

#include <functional>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

// The icon (the command's, or the run's status icon), the name and, right-aligned and dimmed, the
// shortcut or the run's id and status. Rows a little taller than a list's: a target for the eye.
class PaletteDelegate final : public QStyledItemDelegate
{
public:
    using IconFor = std::function<QIcon(const QModelIndex &)>;
    PaletteDelegate(IconFor iconFor, QObject *parent)
        : QStyledItemDelegate(parent)
        , m_iconFor(std::move(iconFor))
    {}

    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        QSize size = QStyledItemDelegate::sizeHint(option, index);
        size.setHeight(std::max(size.height(), option.fontMetrics.height()) + 8);
        return size;
    }

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        QStyleOptionViewItem opt = option;
        initStyleOption(&opt, index);
        opt.icon = m_iconFor(index);
        opt.features |= QStyleOptionViewItem::HasDecoration;
        opt.decorationSize = QSize(16, 16);
        const QString detail = index.data(CommandPaletteModel::DetailRole).toString();
        const int detailWidth = detail.isEmpty() ? 0 : opt.fontMetrics.horizontalAdvance(detail) + 16;
        const QRect textRect = opt.rect.adjusted(0, 0, -detailWidth, 0);
        opt.text = opt.fontMetrics.elidedText(opt.text, Qt::ElideRight, std::max(0, textRect.width() - 12));
        QStyledItemDelegate::paint(painter, opt, index);
        if (detail.isEmpty())
            return;
        painter->save();
        const bool selected = opt.state.testFlag(QStyle::State_Selected);
        QColor colour = opt.palette.color(selected ? QPalette::HighlightedText : QPalette::Text);
        colour.setAlphaF(0.65f);
        painter->setPen(colour);
        painter->drawText(opt.rect.adjusted(0, 0, -8, 0), Qt::AlignRight | Qt::AlignVCenter, detail);
        painter->restore();
    }

private:
    IconFor m_iconFor;
};

QString withoutMnemonic(const QString &text)
{
    QString out;
    out.reserve(text.size());
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (text.at(i) == u'&') {
            if (i + 1 < text.size() && text.at(i + 1) == u'&')
                out += text.at(++i); // "&&" is a literal ampersand
            continue;
        }
        out += text.at(i);
    }
    return out;
}

void collect(const QList<QAction *> &actions, const QAction *except, QList<QAction *> &into)
{
    for (QAction *a : actions) {
        if (a->menu()) {
            collect(a->menu()->actions(), except, into);
            continue;
        }
        if (a == except || a->isSeparator() || !a->isEnabled() || !a->isVisible() || a->text().isEmpty()
            || into.contains(a))
            continue;
        into.append(a);
    }
}

} // namespace

CommandPalettePopup::CommandPalettePopup(RunListModel *runs, QWidget *window)
    : QFrame(window, Qt::Popup)
    , m_window(window)
    , m_runs(runs)
    , m_model(new CommandPaletteModel(runs, this))
{
    setObjectName(u"commandPalette"_s);
    setAccessibleName(tr("Command palette"));
    setFrameShape(QFrame::StyledPanel);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 6);
    m_filter = new QLineEdit;
    m_filter->setObjectName(u"commandPaletteFilter"_s);
    m_filter->setAccessibleName(tr("Command or run"));
    m_filter->setPlaceholderText(tr("Type a command, a run's title or id…"));
    m_filter->setClearButtonEnabled(true);
    m_filter->installEventFilter(this);
    layout->addWidget(m_filter);
    m_list = new QListView;
    m_list->setObjectName(u"commandPaletteList"_s);
    m_list->setAccessibleName(tr("Matching commands and runs"));
    m_list->setModel(m_model);
    m_list->setItemDelegate(
        new PaletteDelegate([this](const QModelIndex &index) { return iconFor(index); }, m_list));
    m_list->setUniformItemSizes(true);
    m_list->setEditTriggers(QAbstractItemView::NoEditTriggers);
    // The filter keeps the focus; the list follows its arrows.
    m_list->setFocusPolicy(Qt::NoFocus);
    layout->addWidget(m_list, 1);
    m_hint = new QLabel;
    m_hint->setObjectName(u"commandPaletteHint"_s);
    QFont hintFont = m_hint->font();
    hintFont.setPointSizeF(hintFont.pointSizeF() * 0.9);
    m_hint->setFont(hintFont);
    m_hint->setForegroundRole(QPalette::PlaceholderText);
    layout->addWidget(m_hint);

    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString &text) {
        m_model->setQuery(text);
        selectFirst();
        updateHint();
    });
    // Only clicks: the keyboard's Enter is the filter's (eventFilter), and a style that also
    // activates on a click would otherwise run the command twice.
    connect(m_list, &QListView::clicked, this, &CommandPalettePopup::activate);
}

QList<QAction *> CommandPalettePopup::windowActions(QWidget *window, const QAction *except)
{
    QList<QAction *> actions;
    if (auto *main = qobject_cast<QMainWindow *>(window); main && main->menuBar())
        collect(main->menuBar()->actions(), except, actions);
    for (QToolBar *bar : window->findChildren<QToolBar *>())
        collect(bar->actions(), except, actions);
    return actions;
}

void CommandPalettePopup::popup()
{
    // The palette's own action would only reopen it.
    const auto *own = m_window->findChild<QAction *>(u"actionCommandPalette"_s);
    const QList<QAction *> actions = windowActions(m_window, own);
    m_actions.clear();
    QList<PaletteCommand> commands;
    for (QAction *a : actions) {
        // The key is the action's place in m_actions: many menu actions have no object name.
        commands.append({QString::number(m_actions.size()), withoutMnemonic(a->text()),
                         a->shortcut().toString(QKeySequence::NativeText)});
        m_actions.append(a);
    }
    m_model->setCommands(commands);
    m_filter->clear();
    m_model->setQuery({});
    const int width = std::clamp(m_window->width() * 6 / 10, 360, 720);
    const int height = std::clamp(m_window->height() / 2, 240, 440);
    resize(width, height);
    move(m_window->mapToGlobal(QPoint((m_window->width() - width) / 2, 56)));
    show();
    raise();
    activateWindow();
    m_filter->setFocus(Qt::PopupFocusReason);
    selectFirst();
    updateHint();
}

bool CommandPalettePopup::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_filter && event->type() == QEvent::KeyPress) {
        auto *key = static_cast<QKeyEvent *>(event);
        switch (key->key()) {
        case Qt::Key_Up:
        case Qt::Key_Down:
        case Qt::Key_PageUp:
        case Qt::Key_PageDown:
            // The list moves; the filter keeps the keyboard for the next letter.
            QApplication::sendEvent(m_list, event);
            return true;
        case Qt::Key_Return:
        case Qt::Key_Enter:
            activate(m_list->currentIndex());
            return true;
        case Qt::Key_Escape:
            hide();
            return true;
        default:
            break;
        }
    }
    return QFrame::eventFilter(watched, event);
}

void CommandPalettePopup::activate(const QModelIndex &index)
{
    if (!index.isValid())
        return;
    const auto kind = CommandPaletteModel::Kind(index.data(CommandPaletteModel::KindRole).toInt());
    const QString key = index.data(CommandPaletteModel::KeyRole).toString();
    // Closed first: the command may open a dialog, which must not sit under the popup.
    hide();
    if (kind == CommandPaletteModel::Kind::Run) {
        Q_EMIT runChosen(key);
        return;
    }
    bool ok = false;
    const int at = key.toInt(&ok);
    QAction *action = ok && at >= 0 && at < m_actions.size() ? m_actions.at(at).data() : nullptr;
    // Runs move on while the palette is open: an action that became disabled is not run.
    if (action && action->isEnabled())
        action->trigger();
}

QIcon CommandPalettePopup::iconFor(const QModelIndex &index) const
{
    const QString key = index.data(CommandPaletteModel::KeyRole).toString();
    if (CommandPaletteModel::Kind(index.data(CommandPaletteModel::KindRole).toInt())
        == CommandPaletteModel::Kind::Command) {
        bool ok = false;
        const int at = key.toInt(&ok);
        const QAction *action = ok && at >= 0 && at < m_actions.size() ? m_actions.at(at).data() : nullptr;
        return action ? action->icon() : QIcon();
    }
    // A run: its status badge's icon, so that runs and commands differ at a glance.
    const RunManager *manager = m_runs ? m_runs->manager() : nullptr;
    const Run *run = manager ? manager->run(key) : nullptr;
    if (!run)
        return {};
    const BadgeStyle style
        = badgeStyle(run->status, run->connectionLost, waitsForPerson(*run), isDarkPalette(palette()));
    return Icons::themed(style.icon, palette());
}

void CommandPalettePopup::selectFirst()
{
    if (m_model->rowCount() > 0)
        m_list->setCurrentIndex(m_model->index(0));
}

void CommandPalettePopup::updateHint()
{
    QString hint = tr("↑↓ to choose · Enter to run or select · Esc to close");
    if (m_model->moreRuns() > 0) {
        hint
            = tr("%n more run(s) match: type more to narrow", nullptr, m_model->moreRuns()) + u" · "_s + hint;
    } else if (m_model->rowCount() == 0 && !m_model->query().isEmpty()) {
        hint = tr("Nothing matches “%1”.").arg(m_model->query());
    }
    m_hint->setText(hint);
}

} // namespace Runwatch
