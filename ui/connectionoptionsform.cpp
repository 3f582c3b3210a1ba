// SPDX-License-Identifier: GPL-3.0-or-later
#include "connectionoptionsform.h"

#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>

using namespace Qt::StringLiterals;

namespace Runwatch {

ConnectionOptionsForm::ConnectionOptionsForm(QFormLayout *form, QObject *parent)
    : QObject(parent)
    , m_layout(form)
{
    setObjectName(u"connectionOptions"_s);
    addRow(ConnectionOption::Organization, tr("&Organization:"), tr("org-… (OpenAI-Organization header)"),
           tr("Sent as the OpenAI-Organization header: which organization's quota and billing the runs use."),
           false);
    addRow(ConnectionOption::Project, tr("Pro&ject:"), tr("proj_… (OpenAI-Project header)"),
           tr("Sent as the OpenAI-Project header."), false);
    addRow(ConnectionOption::ApiVersion, tr("API ve&rsion:"), tr("e.g. 2025-04-01-preview (Azure)"),
           tr("Sent as ?api-version= on every request (Azure OpenAI and Azure AI Foundry)."), false);
    addRow(ConnectionOption::TokenCommand, tr("Token &command:"),
           u"az account get-access-token --resource https://ai.azure.com --query accessToken -o tsv"_s,
           tr("Prints an access token (e.g. Entra ID, OAuth), sent in place of the key in the chosen "
              "authentication style. Run when there is no token, near its expiry and after a 401; its "
              "output is never shown, logged or stored, and it does not see API keys in its environment."),
           false);
    addRow(ConnectionOption::ProfileFile, tr("Jobs &profile:"), tr("/path/to/profile.json (optional)"),
           tr("The connection profile that fits this job API to the contract (see docs/jobs-profile.md). "
              "It is read as you type; its errors name the JSON pointer of the bad value."),
           true);
    addRow(ConnectionOption::CaBundle, tr("CA bund&le:"), tr("/path/to/ca.pem (optional)"),
           tr("PEM certificates trusted besides the system's, e.g. a company CA."), true);
    addRow(ConnectionOption::Proxy, tr("Pro&xy:"), tr("http://host:port or socks5://host:port (optional)"),
           tr("Every request of this connection goes through this proxy. A password in it "
              "(socks5://user:password@host:port) is kept in the system keychain, not in the saved "
              "connection."),
           false);
    addRow(ConnectionOption::DefaultTimeBudget, tr("Default time &budget:"), tr("e.g. 2h (optional)"),
           tr("Runs started on this connection get this deadline: a warning before it, \"over deadline\" "
              "after it. Set Deadline… changes it per run and can cancel at the deadline."),
           false);
    m_problems = new QLabel;
    m_problems->setObjectName(u"connectionOptionProblems"_s);
    m_problems->setAccessibleName(tr("Problems with the options"));
    m_problems->setWordWrap(true);
    m_problems->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QPalette pal = m_problems->palette();
    pal.setColor(QPalette::WindowText, QColor::fromString("#c0202b"_L1));
    m_problems->setPalette(pal);
    m_problems->hide();
    m_layout->addRow(m_problems);
    setBackend(u"openai"_s);
}

void ConnectionOptionsForm::addRow(QLatin1StringView option, const QString &label, const QString &placeholder,
                                   const QString &help, bool isFile)
{
    auto *edit = new QLineEdit;
    const QString key(option);
    edit->setObjectName(u"option_"_s + key);
    edit->setPlaceholderText(placeholder);
    edit->setToolTip(help);
    edit->setProperty("help", help);
    edit->setAccessibleName(QString(label).remove(u'&').remove(u':'));
    edit->setAccessibleDescription(help);
    connect(edit, &QLineEdit::textChanged, this, &ConnectionOptionsForm::edited);
    QWidget *field = edit;
    if (isFile) {
        field = new QWidget;
        auto *row = new QHBoxLayout(field);
        row->setContentsMargins(0, 0, 0, 0);
        row->addWidget(edit, 1);
        auto *browse = new QToolButton;
        browse->setText(tr("…"));
        browse->setAccessibleName(tr("Choose a file for %1").arg(edit->accessibleName()));
        browse->setToolTip(browse->accessibleName());
        connect(browse, &QToolButton::clicked, this, [edit] {
            const QString path
                = QFileDialog::getOpenFileName(edit->window(), edit->accessibleName(), edit->text());
            if (!path.isEmpty())
                edit->setText(path);
        });
        row->addWidget(browse);
    }
    m_layout->addRow(label, field);
    if (auto *buddy = qobject_cast<QLabel *>(m_layout->labelForField(field)))
        buddy->setBuddy(edit);
    m_edits.insert(key, edit);
    m_rows.insert(key, field);
}

void ConnectionOptionsForm::setBackend(const QString &backend)
{
    m_backend = backend;
    const QStringList shown = connectionOptionsFor(backend);
    for (auto it = m_rows.constBegin(); it != m_rows.constEnd(); ++it)
        m_layout->setRowVisible(it.value(), shown.contains(it.key()));
    // Foundry always sends an API version: say which one an empty field means.
    if (QLineEdit *version = edit(ConnectionOption::ApiVersion))
        version->setPlaceholderText(backend == u"foundry" ? tr("2025-05-01 (the default)")
                                                          : tr("e.g. 2025-04-01-preview (Azure)"));
}

void ConnectionOptionsForm::setOptions(const QJsonObject &options)
{
    for (auto it = m_edits.constBegin(); it != m_edits.constEnd(); ++it)
        it.value()->setText(options.value(it.key()).toString());
}

QJsonObject ConnectionOptionsForm::options(QJsonObject base) const
{
    const QStringList shown = connectionOptionsFor(m_backend);
    for (auto it = m_edits.constBegin(); it != m_edits.constEnd(); ++it) {
        const QString value = it.value()->text().trimmed();
        if (shown.contains(it.key()) && !value.isEmpty())
            base.insert(it.key(), value);
        else
            base.remove(it.key()); // another backend's option, or cleared
    }
    return base;
}

void ConnectionOptionsForm::clear()
{
    for (QLineEdit *edit : std::as_const(m_edits))
        edit->clear();
}

void ConnectionOptionsForm::showProblems(const QList<ConnectionOptionProblem> &problems)
{
    QStringList lines;
    for (auto it = m_edits.constBegin(); it != m_edits.constEnd(); ++it) {
        QString problem;
        for (const ConnectionOptionProblem &p : problems) {
            if (p.option == it.key())
                problem = p.message;
        }
        QLineEdit *edit = it.value();
        edit->setToolTip(problem.isEmpty() ? edit->property("help").toString() : problem);
        edit->setStyleSheet(problem.isEmpty() ? QString() : u"QLineEdit { border: 1px solid #c0202b; }"_s);
        if (!problem.isEmpty()) {
            const QString label = edit->accessibleName();
            lines << tr("%1: %2").arg(label, problem);
        }
    }
    lines.sort();
    // What is not about one field (plain http without the opt-in) comes first.
    for (const ConnectionOptionProblem &p : problems) {
        if (!m_edits.contains(p.option))
            lines.prepend(p.message);
    }
    m_problems->setText(lines.join(u'\n'));
    m_problems->setVisible(!lines.isEmpty());
}

} // namespace Runwatch
