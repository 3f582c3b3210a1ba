// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "store/storelocation.h"

#include <QDialog>
#include <QPointer>

class QComboBox;
class QDialogButtonBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QRadioButton;
class QSpinBox;

namespace Runwatch {

class KeyStore;

// Settings › Run Store…: where runs are kept — this computer's file, or a team's PostgreSQL
// database (host, port, database, user, TLS mode and CA file, or a service). "Test" connects
// without creating anything and says what it found (core's probeStore()). OK saves the choice
// (core's StoreLocation, never a password) and the password, when one was typed, to the OS
// keychain; the app opens the new store when it starts next. Every rule is core's; this holds
// widgets.
class RunStoreDialog final : public QDialog
{
    Q_OBJECT
public:
    // `current`: the store this process opened and why (an override from --store or
    // RUNWATCH_STORE is said at the top). `keychain`: where the password goes (may be null: then
    // the password field is off and libpq's own conventions apply).
    RunStoreDialog(const StoreChoice &current, KeyStore *keychain, QWidget *parent = nullptr);

    QRadioButton *thisComputerButton() const { return m_thisComputer; }
    QRadioButton *teamButton() const { return m_team; }
    QLineEdit *fileEdit() const { return m_file; }
    QLineEdit *hostEdit() const { return m_host; }
    QSpinBox *portBox() const { return m_port; }
    QLineEdit *databaseEdit() const { return m_database; }
    QLineEdit *userEdit() const { return m_user; }
    QLineEdit *passwordEdit() const { return m_password; }
    QComboBox *sslModeBox() const { return m_sslMode; }
    QLineEdit *caFileEdit() const { return m_caFile; }
    QLineEdit *serviceEdit() const { return m_service; }
    QPushButton *testButton() const { return m_test; }
    QLabel *resultLabel() const { return m_result; }
    QLabel *overrideLabel() const { return m_override; }
    QDialogButtonBox *buttons() const { return m_buttons; }

    // The fields as a location (validated by StoreLocation::validationError()).
    StoreLocation enteredLocation() const;
    void setLocation(const StoreLocation &location);

    void accept() override;

Q_SIGNALS:
    // After Test: whether the store can be used, and the sentence shown.
    void tested(bool ok, const QString &message);
    // After OK: the choice is in the settings (and the password, if typed, in the keychain).
    void saved(const StoreLocation &location);

private:
    void updateEnabled();
    void runTest();
    void showResult(const QString &text, bool error);
    void save(const StoreLocation &location);

    QRadioButton *m_thisComputer = nullptr;
    QRadioButton *m_team = nullptr;
    QLineEdit *m_file = nullptr;
    QGroupBox *m_teamBox = nullptr;
    QLineEdit *m_host = nullptr;
    QSpinBox *m_port = nullptr;
    QLineEdit *m_database = nullptr;
    QLineEdit *m_user = nullptr;
    QLineEdit *m_password = nullptr;
    QComboBox *m_sslMode = nullptr;
    QLineEdit *m_caFile = nullptr;
    QPushButton *m_caBrowse = nullptr;
    QLineEdit *m_service = nullptr;
    QPushButton *m_test = nullptr;
    QLabel *m_result = nullptr;
    QLabel *m_override = nullptr;
    QDialogButtonBox *m_buttons = nullptr;
    QPointer<KeyStore> m_keychain;
    bool m_busy = false;
};

} // namespace Runwatch
