// SPDX-License-Identifier: GPL-3.0-or-later
#include "browserunsdialog.h"
#include "models/runformat.h"

#include "engine/runmanager.h"
#include "statusstyle.h"

#include <QComboBox>
#include <QCoroTask>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QTreeWidget>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
constexpr int kRemoteIdRole = Qt::UserRole;
constexpr int kTitleRole = Qt::UserRole + 1;
} // namespace

BrowseRunsDialog::BrowseRunsDialog(RunManager *manager, QWidget *parent)
    : QDialog(parent)
    , m_manager(manager)
{
    setWindowTitle(tr("Browse Runs on Connection"));
    setObjectName(u"browseRunsDialog"_s);

    m_connection = new QComboBox(this);
    m_connection->setObjectName(u"browseConnection"_s);
    m_connection->setAccessibleName(tr("Connection"));
    QStringList names = manager ? manager->connectionNames() : QStringList();
    names.sort(Qt::CaseInsensitive);
    m_connection->addItems(names);

    m_list = new QTreeWidget(this);
    m_list->setObjectName(u"remoteRunList"_s);
    m_list->setAccessibleName(tr("Runs on the service"));
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_list->setColumnCount(ColumnCount);
    m_list->setHeaderLabels({tr("Remote id"), tr("Status"), tr("Title"), tr("Created"), tr("In Runwatch")});
    m_list->header()->setSectionResizeMode(TitleColumn, QHeaderView::Stretch);
    m_list->header()->setStretchLastSection(false);

    m_message = new QLabel(this);
    m_message->setTextFormat(Qt::PlainText); // may show what a server sent: never markup
    m_message->setObjectName(u"browseMessage"_s);
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_idEdit = new QLineEdit(this);
    m_idEdit->setObjectName(u"attachIdEdit"_s);
    m_idEdit->setAccessibleName(tr("Remote ids to attach"));
    m_idEdit->setPlaceholderText(tr("e.g. resp_… or a task id; several separated by spaces"));

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_attach = m_buttons->addButton(tr("&Attach"), QDialogButtonBox::AcceptRole);
    m_attach->setObjectName(u"attachButton"_s);
    m_attach->setToolTip(tr("Add the selected runs to the list and follow them"));
    m_reload = m_buttons->addButton(tr("&Reload"), QDialogButtonBox::ActionRole);
    m_reload->setObjectName(u"reloadButton"_s);

    auto *form = new QFormLayout;
    form->addRow(tr("&Connection:"), m_connection);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_list, 1);
    layout->addWidget(m_message);
    auto *byId = new QFormLayout;
    byId->addRow(tr("Attach by &id:"), m_idEdit);
    layout->addLayout(byId);
    layout->addWidget(m_buttons);
    resize(720, 420);

    connect(m_connection, &QComboBox::currentTextChanged, this, &BrowseRunsDialog::reload);
    connect(m_list, &QTreeWidget::itemSelectionChanged, this, &BrowseRunsDialog::updateButtons);
    connect(m_idEdit, &QLineEdit::textChanged, this, &BrowseRunsDialog::updateButtons);
    connect(m_reload, &QPushButton::clicked, this, &BrowseRunsDialog::reload);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    // Attach keeps the dialog open only when nothing could be attached (the message says why).
    connect(m_attach, &QPushButton::clicked, this, [this] {
        if (!attachSelected().isEmpty())
            accept();
    });
    // The button box would accept on its own: Attach decides.
    disconnect(m_buttons, &QDialogButtonBox::accepted, this, nullptr);

    reload();
}

void BrowseRunsDialog::setConnection(const QString &name)
{
    const int at = m_connection->findText(name);
    if (at >= 0 && at != m_connection->currentIndex())
        m_connection->setCurrentIndex(at);
}

QString BrowseRunsDialog::connection() const
{
    return m_connection->currentText();
}

void BrowseRunsDialog::reload()
{
    ++m_generation;
    m_list->clear();
    RunBackend *backend = m_manager ? m_manager->backend(connection()) : nullptr;
    if (!backend) {
        m_loading = false;
        m_message->setText(tr("No connection to browse: add one with File ▸ Connections…"));
        updateButtons();
        Q_EMIT loaded();
        return;
    }
    if (!backend->capabilities().testFlag(Capability::List)) {
        m_loading = false;
        // OpenAI's Responses API has no endpoint that lists background responses.
        m_message->setText(tr("The %1 service offers no list of its runs. Attach a run by its id "
                              "(for OpenAI, the response id) below.")
                               .arg(backend->kind()));
        m_list->setEnabled(false);
        updateButtons();
        m_idEdit->setFocus();
        Q_EMIT loaded();
        return;
    }
    m_list->setEnabled(true);
    m_loading = true;
    m_message->setText(tr("Reading the service's runs…"));
    updateButtons();
    const int generation = m_generation;
    QCoro::connect(backend->list(), this, [this, generation](const ListResult &listed) {
        if (generation != m_generation)
            return;
        m_loading = false;
        showList(listed);
        updateButtons();
        Q_EMIT loaded();
    });
}

void BrowseRunsDialog::showList(const ListResult &listed)
{
    if (listed.error.isError()) {
        m_message->setText(tr("The runs could not be read: %1").arg(listed.error.toString()));
        return;
    }
    const bool dark = isDarkPalette(palette());
    int attached = 0;
    for (const RemoteRunInfo &info : listed.runs) {
        auto *item = new QTreeWidgetItem(m_list);
        item->setText(IdColumn, info.remoteId);
        item->setText(StatusColumn, badgeStyle(info.status, false, false, dark).text);
        item->setToolTip(StatusColumn, plainToolTip(info.rawStatus));
        item->setText(TitleColumn, info.title);
        item->setToolTip(TitleColumn, plainToolTip(info.title));
        item->setText(CreatedColumn, QLocale().toString(info.createdAt.toLocalTime(), QLocale::ShortFormat));
        item->setData(IdColumn, kRemoteIdRole, info.remoteId);
        item->setData(IdColumn, kTitleRole, info.title);
        if (const QString local = localRunFor(info.remoteId); !local.isEmpty()) {
            // Already followed here: shown, but not selectable, so that it is not attached twice.
            ++attached;
            item->setText(LocalColumn, tr("already attached"));
            item->setToolTip(LocalColumn, tr("Local run %1").arg(local));
            item->setFlags(item->flags() & ~(Qt::ItemIsSelectable | Qt::ItemIsEnabled));
        }
    }
    for (int c = 0; c < ColumnCount; ++c) {
        if (c != TitleColumn)
            m_list->resizeColumnToContents(c);
    }
    if (listed.runs.isEmpty()) {
        m_message->setText(tr("The service lists no runs."));
    } else {
        m_message->setText(tr("%n run(s) on the service", nullptr, int(listed.runs.size()))
                           + (attached ? tr(", %n already attached", nullptr, attached) : QString()));
    }
}

QString BrowseRunsDialog::localRunFor(const QString &remoteId) const
{
    if (!m_manager)
        return {};
    const Run *run = m_manager->findRun(remoteId);
    return run && run->connection == connection() ? run->localId : QString();
}

QStringList BrowseRunsDialog::attachSelected()
{
    if (!m_manager || !m_manager->backend(connection()))
        return {};
    QList<std::pair<QString, QString>> wanted; // remote id, title
    for (QTreeWidgetItem *item : m_list->selectedItems()) {
        wanted.append(
            {item->data(IdColumn, kRemoteIdRole).toString(), item->data(IdColumn, kTitleRole).toString()});
    }
    static const QRegularExpression separators(u"[\\s,]+"_s);
    for (const QString &id : m_idEdit->text().split(separators, Qt::SkipEmptyParts))
        wanted.append({id, QString()});
    QStringList ids;
    QStringList already;
    for (const auto &[remoteId, title] : std::as_const(wanted)) {
        if (!localRunFor(remoteId).isEmpty()) {
            already << remoteId;
            continue;
        }
        const QString id = m_manager->attachRemoteRun(connection(), remoteId, title);
        if (!id.isEmpty() && !ids.contains(id))
            ids << id;
    }
    if (ids.isEmpty() && !already.isEmpty())
        m_message->setText(tr("Already attached: %1").arg(already.join(u", "_s)));
    if (!ids.isEmpty())
        Q_EMIT attached(ids);
    return ids;
}

void BrowseRunsDialog::updateButtons()
{
    const bool any = !m_list->selectedItems().isEmpty() || !m_idEdit->text().trimmed().isEmpty();
    m_attach->setEnabled(any && m_manager && m_manager->backend(connection()));
    m_reload->setEnabled(!m_loading && m_manager && m_manager->backend(connection()));
}

} // namespace Runwatch
