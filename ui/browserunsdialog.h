// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/runbackend.h"

#include <QDialog>
#include <QPointer>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTreeWidget;

namespace Runwatch {

class RunManager;

// "Browse runs on this connection…": the service's own run list (A2A ListTasks, the jobs
// listing — whatever RunBackend::list() offers, as `runwatch-cli list --remote`), with status
// and title; the selected runs are attached with RunManager::attachRemoteRun() and followed.
// Runs this app already follows are marked and cannot be selected, so none is attached twice.
// A connection that cannot list (OpenAI) says so; every connection can attach by remote id.
class BrowseRunsDialog final : public QDialog
{
    Q_OBJECT
public:
    enum Column { IdColumn, StatusColumn, TitleColumn, CreatedColumn, LocalColumn, ColumnCount };

    explicit BrowseRunsDialog(RunManager *manager, QWidget *parent = nullptr);

    void setConnection(const QString &name);
    QString connection() const;
    // Reads the list again (also done on every change of connection).
    void reload();
    // Attaches the selected runs and the ids typed in the id field; returns the local ids
    // (emitted as attached()).
    QStringList attachSelected();

    QComboBox *connectionBox() const { return m_connection; }
    QTreeWidget *runList() const { return m_list; }
    QLineEdit *idEdit() const { return m_idEdit; }
    QLabel *messageLabel() const { return m_message; }
    QPushButton *attachButton() const { return m_attach; }
    QPushButton *reloadButton() const { return m_reload; }
    // True while a list request is under way.
    bool isLoading() const { return m_loading; }

Q_SIGNALS:
    void attached(const QStringList &localIds);
    // A list request finished (shown in the list or as a message).
    void loaded();

private:
    void showList(const ListResult &listed);
    QString localRunFor(const QString &remoteId) const;
    void updateButtons();

    QPointer<RunManager> m_manager;
    QComboBox *m_connection = nullptr;
    QTreeWidget *m_list = nullptr;
    QLineEdit *m_idEdit = nullptr;
    QLabel *m_message = nullptr;
    QPushButton *m_attach = nullptr;
    QPushButton *m_reload = nullptr;
    QDialogButtonBox *m_buttons = nullptr;
    int m_generation = 0; // a list answer for an earlier request is dropped
    bool m_loading = false;
};

} // namespace Runwatch
