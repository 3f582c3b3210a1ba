// SPDX-License-Identifier: GPL-3.0-or-later
#include "runstoredialog.h"

#include "connections/keystore.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QThread>
#include <QVBoxLayout>

#include <QCoroTask>

#include <algorithm>
#include <memory>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// libpq's sslmode values, the default (empty: prefer) first.
const QStringList kSslModes{QString(), u"disable"_s, u"require"_s, u"verify-ca"_s, u"verify-full"_s};
} // namespace

RunStoreDialog::RunStoreDialog(const StoreChoice &current, KeyStore *keychain, QWidget *parent)
    : QDialog(parent)
    , m_keychain(keychain)
{
    setObjectName(u"runStoreDialog"_s);
    setWindowTitle(tr("Run Store"));
    auto *layout = new QVBoxLayout(this);

    m_override = new QLabel;
    m_override->setObjectName(u"runStoreOverride"_s);
    m_override->setWordWrap(true);
    m_override->setTextInteractionFlags(Qt::TextSelectableByMouse);
    if (current.source == StoreChoice::Source::CommandLine
        || current.source == StoreChoice::Source::Environment) {
        const QString by
            = current.source == StoreChoice::Source::CommandLine ? u"--store"_s : u"RUNWATCH_STORE"_s;
        m_override->setText(tr("This Runwatch was started with %1 = %2, which wins over the choice made "
                               "here. What you save is used when Runwatch starts without it.")
                                .arg(by, current.location));
    }
    m_override->setVisible(!m_override->text().isEmpty());
    layout->addWidget(m_override);

    auto *intro
        = new QLabel(tr("Runs, their output and the saved connections (never their keys) are kept in "
                        "the run store: a file on this computer, or a team's PostgreSQL database that "
                        "every member's Runwatch and runwatch-cli open together."));
    intro->setWordWrap(true);
    layout->addWidget(intro);

    m_thisComputer = new QRadioButton(tr("&This computer"));
    m_thisComputer->setObjectName(u"runStoreThisComputer"_s);
    layout->addWidget(m_thisComputer);
    auto *fileForm = new QFormLayout;
    fileForm->setContentsMargins(24, 0, 0, 0);
    m_file = new QLineEdit;
    m_file->setObjectName(u"runStoreFile"_s);
    // The default file, as the operator knows their home folder: "~/.local/share/…".
    QString defaultFile = StoreLocation{}.toLocation();
    if (const QString home = QDir::homePath(); defaultFile.startsWith(home + u'/'))
        defaultFile = u'~' + defaultFile.mid(home.size());
    m_file->setPlaceholderText(QDir::toNativeSeparators(defaultFile));
    m_file->setToolTip(tr("Empty: the default file, %1").arg(QDir::toNativeSeparators(defaultFile)));
    m_file->setAccessibleName(tr("Run store file"));
    fileForm->addRow(tr("&File:"), m_file);
    layout->addLayout(fileForm);

    m_team = new QRadioButton(tr("Team &database (PostgreSQL)"));
    m_team->setObjectName(u"runStoreTeam"_s);
    layout->addWidget(m_team);
    m_teamBox = new QGroupBox;
    m_teamBox->setFlat(true);
    auto *form = new QFormLayout(m_teamBox);
    form->setContentsMargins(24, 0, 0, 0);
    m_host = new QLineEdit;
    m_host->setObjectName(u"runStoreHost"_s);
    m_host->setPlaceholderText(u"db.example.net"_s);
    m_port = new QSpinBox;
    m_port->setObjectName(u"runStorePort"_s);
    m_port->setRange(1, 65535);
    m_port->setValue(5432);
    m_port->setAccessibleName(tr("Port"));
    auto *hostRow = new QHBoxLayout;
    hostRow->addWidget(m_host, 1);
    auto *portLabel = new QLabel(tr("P&ort:"));
    portLabel->setBuddy(m_port);
    hostRow->addWidget(portLabel);
    hostRow->addWidget(m_port);
    // A row whose field is a layout gets no buddy from QFormLayout: without one, the label would
    // show its '&' instead of a shortcut.
    auto *hostLabel = new QLabel(tr("&Host:"));
    hostLabel->setBuddy(m_host);
    form->addRow(hostLabel, hostRow);
    m_database = new QLineEdit;
    m_database->setObjectName(u"runStoreDatabase"_s);
    m_database->setPlaceholderText(u"runwatch"_s);
    form->addRow(tr("Data&base:"), m_database);
    m_user = new QLineEdit;
    m_user->setObjectName(u"runStoreUser"_s);
    m_user->setPlaceholderText(u"runwatch_team"_s);
    form->addRow(tr("&User:"), m_user);
    m_password = new QLineEdit;
    m_password->setObjectName(u"runStorePassword"_s);
    m_password->setEchoMode(QLineEdit::Password);
    m_password->setPlaceholderText(keychain ? tr("Kept in the OS keychain; empty: keep the saved one or use "
                                                 "~/.pgpass")
                                            : tr("No keychain: use ~/.pgpass, PGPASSWORD or a service file"));
    m_password->setEnabled(keychain != nullptr);
    form->addRow(tr("&Password:"), m_password);
    m_sslMode = new QComboBox;
    m_sslMode->setObjectName(u"runStoreSslMode"_s);
    m_sslMode->addItem(tr("libpq's default (encrypted if the server offers it, not checked)"), QString());
    m_sslMode->addItem(tr("disable: never encrypted"), u"disable"_s);
    m_sslMode->addItem(tr("require: encrypted, server not checked"), u"require"_s);
    m_sslMode->addItem(tr("verify-ca: encrypted, certificate checked"), u"verify-ca"_s);
    m_sslMode->addItem(tr("verify-full: encrypted, certificate and host name checked"), u"verify-full"_s);
    form->addRow(tr("T&LS:"), m_sslMode);
    m_caFile = new QLineEdit;
    m_caFile->setObjectName(u"runStoreCaFile"_s);
    m_caFile->setPlaceholderText(tr("The CA certificate (PEM) the server's certificate is issued by"));
    m_caBrowse = new QPushButton(tr("Bro&wse…"));
    m_caBrowse->setObjectName(u"runStoreCaBrowse"_s);
    connect(m_caBrowse, &QPushButton::clicked, this, [this] {
        const QString file = QFileDialog::getOpenFileName(this, tr("CA Certificate"), m_caFile->text(),
                                                          tr("Certificates (*.pem *.crt);;All files (*)"));
        if (!file.isEmpty())
            m_caFile->setText(file);
    });
    auto *caRow = new QHBoxLayout;
    caRow->addWidget(m_caFile, 1);
    caRow->addWidget(m_caBrowse);
    auto *caLabel = new QLabel(tr("&CA file:"));
    caLabel->setBuddy(m_caFile);
    form->addRow(caLabel, caRow);
    m_service = new QLineEdit;
    m_service->setObjectName(u"runStoreService"_s);
    m_service->setPlaceholderText(tr("Optional: an entry of ~/.pg_service.conf or PGSERVICEFILE"));
    form->addRow(tr("&Service:"), m_service);
    layout->addWidget(m_teamBox);

    auto *testRow = new QHBoxLayout;
    m_test = new QPushButton(tr("T&est"));
    m_test->setObjectName(u"runStoreTest"_s);
    m_test->setToolTip(tr("Connect and read the store's version, without changing anything"));
    connect(m_test, &QPushButton::clicked, this, &RunStoreDialog::runTest);
    testRow->addWidget(m_test);
    m_result = new QLabel;
    m_result->setObjectName(u"runStoreResult"_s);
    m_result->setWordWrap(true);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    testRow->addWidget(m_result, 1);
    layout->addLayout(testRow);

    auto *restart = new QLabel(tr("Runwatch opens the chosen store when it starts next."));
    restart->setWordWrap(true);
    layout->addWidget(restart);
    layout->addStretch(1);

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &RunStoreDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(m_buttons);

    connect(m_thisComputer, &QRadioButton::toggled, this, &RunStoreDialog::updateEnabled);
    setLocation(StoreLocation::fromSettings());
    resize(qMax(sizeHint().width(), 620), sizeHint().height());
}

StoreLocation RunStoreDialog::enteredLocation() const
{
    StoreLocation location;
    if (m_thisComputer->isChecked()) {
        location.file = m_file->text().trimmed();
        return location;
    }
    location.kind = StoreLocation::Kind::TeamDatabase;
    location.host = m_host->text().trimmed();
    location.port = location.host.isEmpty() ? -1 : m_port->value();
    location.database = m_database->text().trimmed();
    location.user = m_user->text().trimmed();
    location.sslMode = m_sslMode->currentData().toString();
    location.sslRootCert = m_caFile->text().trimmed();
    location.service = m_service->text().trimmed();
    return location;
}

void RunStoreDialog::setLocation(const StoreLocation &location)
{
    const bool team = location.kind == StoreLocation::Kind::TeamDatabase;
    m_thisComputer->setChecked(!team);
    m_team->setChecked(team);
    m_file->setText(location.file);
    m_host->setText(location.host);
    m_port->setValue(location.port > 0 ? location.port : 5432);
    m_database->setText(location.database);
    m_user->setText(location.user);
    m_sslMode->setCurrentIndex(std::max<int>(0, int(kSslModes.indexOf(location.sslMode))));
    m_caFile->setText(location.sslRootCert);
    m_service->setText(location.service);
    updateEnabled();
}

void RunStoreDialog::updateEnabled()
{
    const bool team = m_team->isChecked();
    m_file->setEnabled(!team && !m_busy);
    m_teamBox->setEnabled(team && !m_busy);
    m_test->setEnabled(!m_busy);
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(!m_busy);
}

void RunStoreDialog::showResult(const QString &text, bool error)
{
    m_result->setText(text);
    // Colour is not the message: the words say what happened; the colour only draws the eye.
    m_result->setStyleSheet(error ? u"color: #c0392b;"_s : QString());
}

void RunStoreDialog::runTest()
{
    const StoreLocation location = enteredLocation();
    if (const QString why = location.validationError(); !why.isEmpty()) {
        showResult(why, true);
        Q_EMIT tested(false, why);
        return;
    }
    m_busy = true;
    updateEnabled();
    showResult(tr("Connecting…"), false);
    // On a thread of its own: an unreachable server takes the connect timeout (5 s), which the
    // window must not freeze for. The probe makes and removes its own connection there.
    auto result = std::make_shared<StoreProbe>();
    QThread *thread = QThread::create([result, where = location.toLocation(), password = m_password->text()] {
        *result = probeStore(where, password);
    });
    connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    connect(thread, &QThread::finished, this, [this, result] {
        m_busy = false;
        updateEnabled();
        showResult(result->message, !result->ok());
        Q_EMIT tested(result->ok(), result->message);
    });
    thread->start();
}

void RunStoreDialog::accept()
{
    if (m_busy)
        return;
    const StoreLocation location = enteredLocation();
    if (const QString why = location.validationError(); !why.isEmpty()) {
        showResult(why, true);
        return;
    }
    const QString password
        = location.kind == StoreLocation::Kind::TeamDatabase ? m_password->text() : QString();
    if (password.isEmpty() || !m_keychain) {
        save(location);
        return;
    }
    m_busy = true;
    updateEnabled();
    showResult(tr("Saving the password in the OS keychain…"), false);
    QCoro::connect(m_keychain->write(location.keychainAccount(), password), this,
                   [this, location](const KeyStore::Result &result) {
                       m_busy = false;
                       updateEnabled();
                       if (!result.ok()) {
                           // Nothing saved: a choice whose password went nowhere would fail at the
                           // next start. Leave it empty to use ~/.pgpass instead.
                           showResult(tr("The password could not be saved in the OS keychain: %1. Nothing "
                                         "was changed; leave the password empty to use ~/.pgpass or "
                                         "PGPASSWORD instead.")
                                          .arg(result.error),
                                      true);
                           return;
                       }
                       save(location);
                   });
}

void RunStoreDialog::save(const StoreLocation &location)
{
    location.saveToSettings();
    Q_EMIT saved(location);
    QDialog::accept();
}

} // namespace Runwatch
