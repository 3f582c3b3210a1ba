// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/registry.h"
#include "connections/connectionoptions.h"

#include <QHash>
#include <QJsonObject>
#include <QObject>

class QFormLayout;
class QLabel;
class QLineEdit;
class QWidget;

namespace Runwatch {

// The connector's own and the common options of a connection in the Connections dialog: one
// field per option of the registry's rows (core/backends/registry.h), only those of the chosen
// backend shown,
// checked as typed by core's validateConnectionOptions() (the problems are listed under the
// fields and on each field's tooltip). Its rows go into the dialog's own form layout, so that
// their labels line up with the name's and the URL's.
class ConnectionOptionsForm final : public QObject
{
    Q_OBJECT
public:
    ConnectionOptionsForm(QFormLayout *form, QObject *parent = nullptr);

    void setBackend(const QString &backend);
    // Fills the fields from a saved connection's options.
    void setOptions(const QJsonObject &options);
    // `base` (a saved connection's options, kept for keys this form does not edit) with the
    // fields applied: the options of the current backend that are filled in, no others.
    QJsonObject options(QJsonObject base) const;
    void clear();

    // Shows `problems` (from validateConnectionOptions) on the fields they are about.
    void showProblems(const QList<ConnectionOptionProblem> &problems);

    QLineEdit *edit(const QString &option) const { return m_edits.value(option); }
    QLabel *problemsLabel() const { return m_problems; }

Q_SIGNALS:
    void edited();

private:
    void addRow(const ConnectorOption &option);
    // Words the option's row (label, placeholder, help) as `option` does.
    void describe(const ConnectorOption &option);

    QFormLayout *m_layout = nullptr;
    QHash<QString, QLineEdit *> m_edits;
    QHash<QString, QWidget *> m_rows;
    QLabel *m_problems = nullptr;
    QString m_backend;
};

} // namespace Runwatch
