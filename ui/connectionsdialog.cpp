// SPDX-License-Identifier: GPL-3.0-or-later
#include "connectionsdialog.h"

#include "backends/registry.h"
#include "connectionoptionsform.h"
#include "connections/connectionoptions.h"
#include "connections/keychain.h"
#include "icons.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// What the Header style starts with: Azure OpenAI's header, the one Runwatch offered first.
constexpr auto kDefaultAuthHeader = "api-key"_L1;
} // namespace

ConnectionsDialog::ConnectionsDialog(ConnectionRegistry *registry, QWidget *parent)
    : QDialog(parent)
    , m_registry(registry)
{
    setObjectName(u"connectionsDialog"_s);
    setWindowTitle(tr("Connections"));
    setAccessibleName(tr("Connections"));
    resize(780, 560);
    auto *outer = new QVBoxLayout(this);
    auto *body = new QHBoxLayout;
    outer->addLayout(body, 1);

    auto *left = new QVBoxLayout;
    m_list = new QListWidget;
    m_list->setObjectName(u"connectionList"_s);
    m_list->setAccessibleName(tr("Connections"));
    m_list->setMinimumWidth(200);
    left->addWidget(m_list, 1);
    auto *listButtons = new QHBoxLayout;
    m_add = new QPushButton(Icons::themed(u"new-run"_s, palette()), tr("&Add"));
    m_add->setAccessibleName(tr("Add connection"));
    m_remove = new QPushButton(Icons::themed(u"delete"_s, palette()), tr("Remo&ve"));
    m_remove->setAccessibleName(tr("Remove connection"));
    listButtons->addWidget(m_add);
    listButtons->addWidget(m_remove);
    left->addLayout(listButtons);
    body->addLayout(left);

    m_form = new QWidget;
    auto *formLayout = new QVBoxLayout(m_form);
    formLayout->setContentsMargins(8, 0, 0, 0);
    auto *form = new QFormLayout;
    m_fields = form;
    m_name = new QLineEdit;
    m_name->setObjectName(u"connectionName"_s);
    m_name->setAccessibleName(tr("Name"));
    form->addRow(tr("&Name:"), m_name);
    m_backend = new QComboBox;
    m_backend->setObjectName(u"connectionBackend"_s);
    m_backend->setAccessibleName(tr("Backend type"));
    for (const ConnectorDescriptor &row : connectors()) {
        m_backend->addItem(QString(row.name));
        m_backend->setItemData(m_backend->count() - 1, connectorText(row.displayName), Qt::ToolTipRole);
    }
    form->addRow(tr("&Backend:"), m_backend);
    m_url = new QLineEdit;
    m_url->setObjectName(u"connectionUrl"_s);
    m_url->setAccessibleName(tr("Base URL"));
    m_url->setPlaceholderText(QString::fromLatin1(defaultConnector().urlPlaceholder));
    form->addRow(tr("Base &URL:"), m_url);
    m_auth = new QComboBox;
    m_auth->setObjectName(u"connectionAuth"_s);
    m_auth->setAccessibleName(tr("Authentication style"));
    m_auth->addItem(tr("Authorization: Bearer <key>"), int(AuthStyle::Bearer));
    m_auth->addItem(tr("The key in a header of its own"), int(AuthStyle::Header));
    m_auth->addItem(tr("No authentication"), int(AuthStyle::None));
    form->addRow(tr("A&uthentication:"), m_auth);
    // The header's name, shown with the Header style: api-key (Azure OpenAI), x-api-key
    // (Anthropic, LangGraph), x-goog-api-key (Gemini), X-API-Key (many job APIs), …
    m_authHeader = new QLineEdit(kDefaultAuthHeader);
    m_authHeader->setObjectName(u"connectionAuthHeader"_s);
    m_authHeader->setAccessibleName(tr("Header name"));
    m_authHeader->setPlaceholderText(u"api-key, x-api-key, x-goog-api-key, X-API-Key"_s);
    m_authHeader->setToolTip(tr("The key is sent as \"<name>: <key>\" (api-key for Azure OpenAI)."));
    form->addRow(tr("Hea&der name:"), m_authHeader);
    m_key = new QLineEdit;
    m_key->setObjectName(u"connectionKey"_s);
    m_key->setAccessibleName(tr("API key"));
    m_key->setEchoMode(QLineEdit::Password);
    form->addRow(tr("API &key:"), m_key);
    m_keyInfo = new QLabel;
    m_keyInfo->setTextFormat(Qt::PlainText); // may show what a server sent: never markup
    m_keyInfo->setWordWrap(true);
    QPalette kp = m_keyInfo->palette();
    kp.setColor(QPalette::WindowText, kp.color(QPalette::PlaceholderText));
    m_keyInfo->setPalette(kp);
    form->addRow(QString(), m_keyInfo);
    m_model = new QLineEdit;
    m_model->setObjectName(u"connectionModel"_s);
    m_model->setAccessibleName(tr("Default model"));
    form->addRow(tr("Default &model:"), m_model);
    m_insecure = new QCheckBox(tr("Allow plain &http:// to a remote host (not recommended)"));
    m_insecure->setAccessibleName(tr("Allow insecure HTTP"));
    form->addRow(QString(), m_insecure);
    // The chosen backend's own options and the transport's (CA bundle, proxy), checked as typed.
    m_options = new ConnectionOptionsForm(form, this);
    formLayout->addLayout(form);

    // The no-keychain message with its two explicit opt-ins.
    m_warning = new QFrame;
    m_warning->setObjectName(u"keychainWarning"_s);
    m_warning->setStyleSheet(u"#keychainWarning { background: rgba(244, 165, 28, 0.14);"
                             " border: 1px solid rgba(200, 130, 0, 0.6); border-radius: 6px; }"_s);
    auto *wl = new QVBoxLayout(m_warning);
    m_warningText = new QLabel;
    m_warningText->setObjectName(u"keychainWarningText"_s);
    m_warningText->setWordWrap(true);
    m_warningText->setAccessibleName(tr("Keychain problem"));
    wl->addWidget(m_warningText);
    auto *wb = new QHBoxLayout;
    m_useSession = new QPushButton(tr("Keep for this &session only"));
    m_useSession->setObjectName(u"keySessionOnly"_s);
    m_usePlaintext = new QPushButton(tr("Store &unencrypted…"));
    m_usePlaintext->setObjectName(u"keyPlaintext"_s);
    wb->addStretch(1);
    wb->addWidget(m_useSession);
    wb->addWidget(m_usePlaintext);
    wl->addLayout(wb);
    m_warning->hide();
    formLayout->addWidget(m_warning);

    m_status = new QLabel;
    m_status->setTextFormat(Qt::PlainText); // may show what a server sent: never markup
    m_status->setObjectName(u"connectionStatus"_s);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    formLayout->addWidget(m_status);
    formLayout->addStretch(1);
    auto *actions = new QHBoxLayout;
    m_test = new QPushButton(tr("&Test connection"));
    m_test->setObjectName(u"connectionTest"_s);
    m_save = new QPushButton(tr("&Save"));
    m_save->setObjectName(u"connectionSave"_s);
    m_save->setDefault(true);
    // Runs started elsewhere (another machine, a script) are found from the connection they
    // run on; the button is here because this is where an operator looks at a connection.
    m_browse = new QPushButton(tr("&Browse runs…"));
    m_browse->setObjectName(u"connectionBrowse"_s);
    m_browse->setToolTip(tr("List the runs on this connection, including those started by other clients, "
                            "and attach to them"));
    m_browse->setEnabled(false);
    actions->addWidget(m_browse);
    actions->addStretch(1);
    actions->addWidget(m_test);
    actions->addWidget(m_save);
    formLayout->addLayout(actions);
    body->addWidget(m_form, 1);

    auto *close = new QDialogButtonBox(QDialogButtonBox::Close);
    outer->addWidget(close);
    connect(close, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_add, &QPushButton::clicked, this, &ConnectionsDialog::startNew);
    connect(m_remove, &QPushButton::clicked, this, [this] {
        if (m_editing.isEmpty())
            return;
        const auto answer = QMessageBox::question(this, tr("Remove Connection"),
                                                  tr("Remove the connection \"%1\" and its stored API key?\n"
                                                     "Its runs stay in the list.")
                                                      .arg(m_editing));
        if (answer != QMessageBox::Yes)
            return;
        // The list changes at once; the key store lets go of the key in the background.
        m_registry->remove(m_editing);
        startNew();
    });
    connect(m_list, &QListWidget::currentTextChanged, this, &ConnectionsDialog::showProfile);
    connect(m_save, &QPushButton::clicked, this, &ConnectionsDialog::onSave);
    connect(m_test, &QPushButton::clicked, this, &ConnectionsDialog::onTest);
    connect(m_browse, &QPushButton::clicked, this, [this] {
        if (!m_editing.isEmpty())
            Q_EMIT browseRequested(m_editing);
    });
    connect(m_useSession, &QPushButton::clicked, this, [this] { optIn(KeyStorage::Session); });
    connect(m_usePlaintext, &QPushButton::clicked, this, [this] {
        const auto answer = QMessageBox::warning(
            this, tr("Store the API Key Unencrypted?"),
            tr("The key will be written in plain text to\n%1\nreadable only by your user account. "
               "Any program running as you can read it.\n\nStore it there?")
                .arg(Keychain::defaultInsecurePath()),
            QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel);
        if (answer == QMessageBox::Yes)
            optIn(KeyStorage::Plaintext);
    });
    connect(m_backend, &QComboBox::currentTextChanged, this, [this](const QString &backend) {
        m_options->setBackend(backend);
        if (const ConnectorDescriptor *row = connector(backend)) {
            m_url->setPlaceholderText(QString::fromLatin1(row->urlPlaceholder));
            // A new connection's key goes where the service takes it (LangSmith: X-Api-Key); a
            // saved one keeps the style it was saved with.
            if (m_editing.isEmpty())
                applyDefaultAuth(*row);
        }
        validateForm();
    });
    connect(m_options, &ConnectionOptionsForm::edited, this, &ConnectionsDialog::validateForm);
    connect(m_url, &QLineEdit::textChanged, this, &ConnectionsDialog::validateForm);
    connect(m_auth, &QComboBox::currentIndexChanged, this, &ConnectionsDialog::validateForm);
    connect(m_authHeader, &QLineEdit::textChanged, this, &ConnectionsDialog::validateForm);
    connect(m_insecure, &QCheckBox::toggled, this, &ConnectionsDialog::validateForm);
    connect(m_registry, &ConnectionRegistry::changed, this, &ConnectionsDialog::reloadList);
    reloadList();
    if (m_list->count() > 0) {
        m_list->setCurrentRow(0);
    } else {
        startNew();
    }
}

void ConnectionsDialog::reloadList()
{
    const QString current = m_editing;
    QSignalBlocker block(m_list);
    m_list->clear();
    for (const ConnectionProfile &p : m_registry->profiles()) {
        auto *item = new QListWidgetItem(p.connection.name, m_list);
        item->setToolTip(u"%1 · %2"_s.arg(p.connection.backend, p.connection.baseUrl.toDisplayString()));
        if (p.connection.name == current)
            m_list->setCurrentItem(item);
    }
}

void ConnectionsDialog::selectConnection(const QString &name)
{
    const auto items = m_list->findItems(name, Qt::MatchExactly);
    if (items.isEmpty())
        return;
    // After startNew() the list keeps its current item: choosing it again must show it again.
    if (m_list->currentItem() == items.first()) {
        showProfile(name);
    } else {
        m_list->setCurrentItem(items.first());
    }
}

void ConnectionsDialog::applyDefaultAuth(const ConnectorDescriptor &row)
{
    const bool byHeader = !row.defaultAuthHeader.isEmpty();
    m_auth->setCurrentIndex(m_auth->findData(int(byHeader ? AuthStyle::Header : AuthStyle::Bearer)));
    m_authHeader->setText(byHeader ? QString(row.defaultAuthHeader) : QString(kDefaultAuthHeader));
}

void ConnectionsDialog::startNew()
{
    m_editing.clear();
    m_list->clearSelection();
    m_name->clear();
    m_backend->setCurrentText(defaultConnector().name);
    m_url->setText(defaultConnector().defaultUrl);
    applyDefaultAuth(defaultConnector());
    m_key->clear();
    m_key->setPlaceholderText(tr("Stored in the system keychain"));
    m_keyInfo->setText(tr("The key is kept in the system keychain, never in a settings file."));
    m_model->clear();
    m_insecure->setChecked(false);
    m_options->clear();
    m_options->setBackend(m_backend->currentText());
    validateForm();
    m_warning->hide();
    m_status->clear();
    m_form->setEnabled(true);
    m_remove->setEnabled(false);
    m_browse->setEnabled(false);
    m_name->setFocus();
}

void ConnectionsDialog::showProfile(const QString &name)
{
    const auto p = m_registry->profile(name);
    if (!p)
        return;
    m_editing = name;
    const Connection &c = p->connection;
    m_name->setText(c.name);
    m_backend->setCurrentText(c.backend);
    m_url->setText(c.baseUrl.toString());
    m_auth->setCurrentIndex(m_auth->findData(int(c.auth)));
    m_authHeader->setText(c.auth == AuthStyle::Header ? c.authHeader : QString(kDefaultAuthHeader));
    m_key->clear();
    m_model->setText(c.defaultModel);
    m_insecure->setChecked(c.allowInsecureHttp);
    m_options->setBackend(c.backend);
    m_options->setOptions(c.options);
    validateForm();
    m_warning->hide();
    m_status->clear();
    switch (p->keyStorage) {
    case KeyStorage::None:
        m_key->setPlaceholderText(tr("No key stored"));
        m_keyInfo->setText(tr("A key you enter goes to the system keychain."));
        break;
    case KeyStorage::Keychain:
        m_key->setPlaceholderText(tr("Stored in the system keychain — leave empty to keep"));
        m_keyInfo->setText(tr("The key is kept in the system keychain."));
        break;
    case KeyStorage::Session:
        m_key->setPlaceholderText(tr("Kept for this session only — leave empty to keep"));
        m_keyInfo->setText(tr("No keychain was available: the key is forgotten when Runwatch quits."));
        break;
    case KeyStorage::Plaintext:
        m_key->setPlaceholderText(tr("Stored unencrypted — leave empty to keep"));
        m_keyInfo->setText(
            tr("You chose to store this key unencrypted in %1.").arg(Keychain::defaultInsecurePath()));
        break;
    }
    // The demo's connections exist only while the demo runs.
    m_form->setEnabled(!p->transient);
    m_remove->setEnabled(!p->transient);
    m_browse->setEnabled(true);
    if (p->transient)
        m_status->setText(tr("Built-in demo connection; it is not saved."));
}

ConnectionProfile ConnectionsDialog::formProfile() const
{
    ConnectionProfile p;
    Connection &c = p.connection;
    c.name = m_name->text().trimmed();
    c.backend = m_backend->currentText();
    c.baseUrl = QUrl(m_url->text().trimmed());
    c.auth = AuthStyle(m_auth->currentData().toInt());
    if (c.auth == AuthStyle::Header)
        c.authHeader = m_authHeader->text().trimmed();
    c.defaultModel = m_model->text().trimmed();
    c.allowInsecureHttp = m_insecure->isChecked();
    // Options this dialog does not edit (e.g. timeouts set in the store) are kept.
    const auto old = m_registry->profile(m_editing);
    c.options = m_options->options(old ? old->connection.options : QJsonObject());
    return p;
}

std::optional<QString> ConnectionsDialog::formKey() const
{
    const QString key = m_key->text().trimmed();
    if (key.isEmpty())
        return std::nullopt; // unchanged
    return key;
}

void ConnectionsDialog::validateForm()
{
    const QList<ConnectionOptionProblem> problems = validateConnectionOptions(formProfile().connection);
    m_options->showProblems(problems);
    const bool byHeader = AuthStyle(m_auth->currentData().toInt()) == AuthStyle::Header;
    m_fields->setRowVisible(m_authHeader, byHeader);
    m_save->setEnabled(problems.isEmpty() && !m_saving);
}

void ConnectionsDialog::setStatus(const QString &text, bool error)
{
    QPalette pal = m_status->palette();
    pal.setColor(QPalette::WindowText,
                 error ? QColor::fromString("#c0202b"_L1) : palette().color(QPalette::WindowText));
    m_status->setPalette(pal);
    m_status->setText(text);
}

void ConnectionsDialog::onSave()
{
    std::optional<QString> key = formKey();
    // A stored key or token command goes to another origin only when the operator says so.
    if (const CredentialMove move = formCredentialMove(); move.any()) {
        switch (askAboutMovedCredential(move)) {
        case MovedCredentialAnswer::Cancel:
            return;
        case MovedCredentialAnswer::Remove: {
            if (move.key)
                key = QString(); // empty: the stored key is removed
            // Cleared in the form too, so that the form shows what is saved (and a save after
            // the keychain opt-in, which reads the form again, saves the same).
            QLineEdit *command = m_options->edit(ConnectionOption::TokenCommand);
            if (move.tokenCommand && command)
                command->clear();
            break;
        }
        case MovedCredentialAnswer::Use:
            break; // given for the new origin now: saved as it is
        }
    }
    const ConnectionProfile p = formProfile();
    const QString name = p.connection.name;
    m_warning->hide();
    m_saving = true;
    m_save->setEnabled(false);
    setStatus(tr("Saving…"), false);
    QCoro::connect(m_registry->save(p, m_editing, key), this,
                   [this, name](const ConnectionRegistry::SaveResult &r) { onSaved(r, name); });
}

void ConnectionsDialog::onSaved(const ConnectionRegistry::SaveResult &result, const QString &name)
{
    m_saving = false;
    validateForm();
    if (result.keychainUnavailable) {
        m_warningText->setText(
            tr("<b>No system keychain is available</b>, so the API key was not saved.<br>"
               "The keychain said: %1<br>"
               "Runwatch never writes API keys to a file on its own. Start a keyring (for example "
               "GNOME Keyring or KWallet) and save again, or choose one of these:")
                .arg(result.error.toHtmlEscaped()));
        m_warning->show();
        setStatus(tr("Not saved yet."), true);
        return;
    }
    if (!result.ok) {
        setStatus(result.error, true);
        return;
    }
    m_editing = name;
    m_key->clear();
    setStatus(tr("Saved."), false);
    selectConnection(name);
    showProfile(name);
    setStatus(tr("Saved."), false);
    Q_EMIT saved(name);
}

void ConnectionsDialog::optIn(KeyStorage storage)
{
    const auto key = formKey();
    if (!key) {
        m_warning->hide();
        return;
    }
    const ConnectionProfile p = formProfile();
    const QString name = p.connection.name;
    QCoro::connect(m_registry->saveWithWeakerStore(p, m_editing, *key, storage), this,
                   [this, name](const ConnectionRegistry::SaveResult &r) {
                       if (r.ok)
                           m_warning->hide();
                       onSaved(r, name);
                   });
}

} // namespace Runwatch
