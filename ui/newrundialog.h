// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "backends/runbackend.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QPlainTextEdit;

namespace Runwatch {

class RunManager;
class TypedAnswerForm;

// Connection, model, prompt, structured input (where the connector takes it) and streaming on/off
// for a new run; for a connection whose service lists agents (Capability::Catalog), the agent,
// picked from the list the backend reads, or none where the connector also runs a plain model.
class NewRunDialog final : public QDialog
{
    Q_OBJECT
public:
    explicit NewRunDialog(RunManager *manager, QWidget *parent = nullptr);

    void setConnection(const QString &name);
    QString connection() const;
    StartRequest request() const;

    QComboBox *connectionBox() const { return m_connection; }
    QComboBox *modelBox() const { return m_model; }
    QPlainTextEdit *promptEdit() const { return m_prompt; }
    QCheckBox *streamBox() const { return m_stream; }
    // Shown when the connection's connector takes structured input (takesStructuredInput()):
    // JSON sent as StartRequest::input; Start waits while it does not parse.
    QPlainTextEdit *inputEdit() const { return m_input; }
    // Shown where the service lists agents: "name · model" items whose data is the agent's id,
    // and first "No agent (model M)" (empty data) where the connector also runs a plain model.
    QComboBox *agentBox() const { return m_agent; }
    // Shown instead of inputEdit() where the picked agent publishes the schema of its input (an
    // MCP tool's inputSchema) in the form subset: its fields, checked as typed; the prompt then
    // only titles the run and may stay empty.
    TypedAnswerForm *inputForm() const { return m_inputForm; }

private:
    void onConnectionChanged();
    void validate();
    void loadAgents();
    void onAgentChanged();
    void nameNoAgentItem();
    QString plainModel() const;
    QString connectionHint() const;

    RunManager *m_manager;
    QComboBox *m_connection = nullptr;
    QLabel *m_modelLabel = nullptr;
    QComboBox *m_model = nullptr;
    QPlainTextEdit *m_prompt = nullptr;
    QLabel *m_inputLabel = nullptr;
    QPlainTextEdit *m_input = nullptr;
    QCheckBox *m_stream = nullptr;
    QLabel *m_agentLabel = nullptr;
    QComboBox *m_agent = nullptr;
    QLabel *m_inputFormLabel = nullptr;
    TypedAnswerForm *m_inputForm = nullptr;
    QList<CatalogEntry> m_entries; // the catalog the picker shows
    // The picked agent's input schema, when a form shows it.
    bool inputFormShown() const;
    // The picker also offers "no agent" (its data empty): the connector runs a plain model too.
    bool m_agentOptional = false;
    // Bumped on every connection change: a list that arrives for an earlier choice is dropped.
    int m_agentsGeneration = 0;
    QLabel *m_hint = nullptr;
    QDialogButtonBox *m_buttons = nullptr;
};

} // namespace Runwatch
