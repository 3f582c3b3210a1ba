// SPDX-License-Identifier: GPL-3.0-or-later
#include "connectionoptionsform.h"

#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Runwatch {

ConnectionOptionsForm::ConnectionOptionsForm(QFormLayout *form, QObject *parent)
    : QObject(parent)
    , m_layout(form)
{
    setObjectName(u"connectionOptions"_s);
    // One row per option key of any connector (the registry's rows), then the common ones;
    // setBackend() shows the chosen connector's and words them as its row does.
    for (const ConnectorDescriptor &row : connectors()) {
        for (const ConnectorOption &option : row.options)
            addRow(option);
    }
    for (const ConnectorOption &option : commonConnectionOptions())
        addRow(option);
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
    setBackend(defaultConnector().name);
}

void ConnectionOptionsForm::addRow(const ConnectorOption &option)
{
    const QString key(option.key);
    if (m_edits.contains(key))
        return; // another connector's option of the same key (api_version): one row, worded per backend
    auto *edit = new QLineEdit;
    edit->setObjectName(u"option_"_s + key);
    connect(edit, &QLineEdit::textChanged, this, &ConnectionOptionsForm::edited);
    QWidget *field = edit;
    if (option.kind == ConnectorOption::Kind::File) {
        field = new QWidget;
        auto *row = new QHBoxLayout(field);
        row->setContentsMargins(0, 0, 0, 0);
        row->addWidget(edit, 1);
        auto *browse = new QToolButton;
        browse->setText(tr("…"));
        browse->setObjectName(u"browse_"_s + key);
        connect(browse, &QToolButton::clicked, this, [edit] {
            const QString path
                = QFileDialog::getOpenFileName(edit->window(), edit->accessibleName(), edit->text());
            if (!path.isEmpty())
                edit->setText(path);
        });
        row->addWidget(browse);
    }
    auto *label = new QLabel;
    label->setBuddy(edit);
    m_layout->addRow(label, field);
    m_edits.insert(key, edit);
    m_rows.insert(key, field);
    describe(option);
}

void ConnectionOptionsForm::describe(const ConnectorOption &option)
{
    QLineEdit *edit = m_edits.value(QString(option.key));
    const QString label = connectorText(option.label);
    const QString help = connectorText(option.help);
    edit->setPlaceholderText(connectorText(option.placeholder));
    edit->setToolTip(help);
    edit->setProperty("help", help);
    edit->setAccessibleName(QString(label).remove(u'&').remove(u':'));
    edit->setAccessibleDescription(help);
    if (auto *buddy = qobject_cast<QLabel *>(m_layout->labelForField(m_rows.value(QString(option.key)))))
        buddy->setText(label);
    if (auto *browse = m_rows.value(QString(option.key))->findChild<QToolButton *>()) {
        browse->setAccessibleName(tr("Choose a file for %1").arg(edit->accessibleName()));
        browse->setToolTip(browse->accessibleName());
    }
}

void ConnectionOptionsForm::setBackend(const QString &backend)
{
    m_backend = backend;
    const QList<ConnectorOption> shown = connectionOptions(backend);
    for (auto it = m_rows.constBegin(); it != m_rows.constEnd(); ++it) {
        const bool visible = std::any_of(shown.cbegin(), shown.cend(), [&](const ConnectorOption &option) {
            return option.key == it.key();
        });
        m_layout->setRowVisible(it.value(), visible);
    }
    for (const ConnectorOption &option : shown)
        describe(option);
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
        if (shown.contains(it.key()) && !value.isEmpty()) {
            base.insert(it.key(), value);
        } else {
            base.remove(it.key()); // another backend's option, or cleared
        }
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
