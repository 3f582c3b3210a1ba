// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "connections/connectionregistry.h"
#include "connections/credentialorigin.h"

#include <QCoroTask>
#include <QDialog>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;

namespace Runwatch {

class ConnectionOptionsForm;
struct ConnectionInfo;
struct ConnectorDescriptor;

// Add, edit, remove and test connections. The API key goes to the OS keychain through the
// registry; when no keychain is available the dialog says so plainly and offers two explicit
// opt-ins (this session only, or an owner-only plain-text file) — never a silent fallback. A stored
// key or token command stays with the origin it was saved for: Test leaves it out when the URL in
// the form points elsewhere, and Save asks whether it goes along (connectionsdialog_probe.cpp).
class ConnectionsDialog final : public QDialog
{
    Q_OBJECT
public:
    explicit ConnectionsDialog(ConnectionRegistry *registry, QWidget *parent = nullptr);

    QListWidget *list() const { return m_list; }
    QPushButton *addButton() const { return m_add; }
    QLineEdit *nameEdit() const { return m_name; }
    QComboBox *backendBox() const { return m_backend; }
    QLineEdit *urlEdit() const { return m_url; }
    QComboBox *authBox() const { return m_auth; }
    QLineEdit *authHeaderEdit() const { return m_authHeader; }
    QLineEdit *keyEdit() const { return m_key; }
    QPushButton *saveButton() const { return m_save; }
    QPushButton *testButton() const { return m_test; }
    QPushButton *browseButton() const { return m_browse; }
    QWidget *keychainWarning() const { return m_warning; }
    QLabel *keychainWarningText() const { return m_warningText; }
    QPushButton *sessionButton() const { return m_useSession; }
    QPushButton *plaintextButton() const { return m_usePlaintext; }
    QLabel *statusLabel() const { return m_status; }
    QCheckBox *insecureBox() const { return m_insecure; }
    ConnectionOptionsForm *optionsForm() const { return m_options; }

    void selectConnection(const QString &name);
    void startNew();
    // The auth style a new connection of `row`'s connector starts with.
    void applyDefaultAuth(const ConnectorDescriptor &row);

Q_SIGNALS:
    void saved(const QString &name);
    void tested(bool ok, const QString &message);
    // "Browse runs…" on a saved connection: the window opens its Browse Runs dialog there.
    void browseRequested(const QString &name);

private:
    enum class MovedCredentialAnswer { Use, Remove, Cancel };

    void reloadList();
    void showProfile(const QString &name);
    ConnectionProfile formProfile() const;
    std::optional<QString> formKey() const;
    void onSave();
    void onSaved(const ConnectionRegistry::SaveResult &result, const QString &name);
    void optIn(KeyStorage storage);
    void setStatus(const QString &text, bool error);
    // Checks the form as typed (core's validateConnectionOptions); Save waits for a clean form.
    void validateForm();
    // What of the edited connection's stored key and token command would go to another origin
    // than the one they were saved for (core's credentialMove()).
    CredentialMove formCredentialMove() const;
    // Asks whether the stored credential goes along to the new origin (Save).
    MovedCredentialAnswer askAboutMovedCredential(const CredentialMove &move);
    // What the Test result adds when the stored credential was left out.
    static QString movedCredentialNote(const CredentialMove &move);
    void onTest();
    // Tests `connection` and shows the outcome, followed by `note` when there is one.
    QCoro::Task<> runTest(Connection connection, QString note);
    // "Connected to “Agent” (A2A 1.0 (JSONRPC))." plus description, skills and warnings.
    static QString describeService(const ConnectionInfo &info);

    ConnectionRegistry *m_registry;
    QString m_editing; // name of the profile in the form; empty: a new one
    QListWidget *m_list = nullptr;
    QLineEdit *m_name = nullptr;
    QComboBox *m_backend = nullptr;
    QLineEdit *m_url = nullptr;
    QComboBox *m_auth = nullptr;
    QLineEdit *m_authHeader = nullptr; // its name with AuthStyle::Header, shown only then
    QFormLayout *m_fields = nullptr;
    QLineEdit *m_key = nullptr;
    QLineEdit *m_model = nullptr;
    QCheckBox *m_insecure = nullptr;
    QLabel *m_keyInfo = nullptr;
    QLabel *m_status = nullptr;
    QWidget *m_warning = nullptr;
    QLabel *m_warningText = nullptr;
    QPushButton *m_useSession = nullptr;
    QPushButton *m_usePlaintext = nullptr;
    QPushButton *m_add = nullptr;
    QPushButton *m_save = nullptr;
    QPushButton *m_test = nullptr;
    QPushButton *m_browse = nullptr;
    QPushButton *m_remove = nullptr;
    QWidget *m_form = nullptr;
    ConnectionOptionsForm *m_options = nullptr;
    bool m_saving = false;
};

} // namespace Runwatch
