// SPDX-License-Identifier: GPL-3.0-or-later
#include "newrundialog.h"

#include "backends/registry.h"
#include "backends/runbackend.h"
#include "engine/runmanager.h"
#include "typedanswerform.h"
#include "json/jsonschema.h"

#include <QCoroTask>

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Runwatch {

NewRunDialog::NewRunDialog(RunManager *manager, QWidget *parent)
    : QDialog(parent)
    , m_manager(manager)
{
    setObjectName(u"newRunDialog"_s);
    setWindowTitle(tr("New Run"));
    setAccessibleName(tr("New run"));
    auto *layout = new QVBoxLayout(this);
    auto *form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

    m_connection = new QComboBox;
    m_connection->setObjectName(u"newRunConnection"_s);
    m_connection->setAccessibleName(tr("Connection"));
    QStringList names = manager ? manager->connectionNames() : QStringList();
    names.sort(Qt::CaseInsensitive);
    m_connection->addItems(names);
    form->addRow(tr("&Connection:"), m_connection);

    m_model = new QComboBox;
    m_model->setObjectName(u"newRunModel"_s);
    m_model->setAccessibleName(tr("Model"));
    m_model->setEditable(true);
    m_model->setInsertPolicy(QComboBox::NoInsert);
    m_modelLabel = new QLabel(tr("&Model:"));
    m_modelLabel->setBuddy(m_model);
    form->addRow(m_modelLabel, m_model);

    m_agent = new QComboBox;
    m_agent->setObjectName(u"newRunAgent"_s);
    m_agent->setAccessibleName(tr("Agent"));
    m_agentLabel = new QLabel(tr("&Agent:"));
    m_agentLabel->setBuddy(m_agent);
    form->addRow(m_agentLabel, m_agent);

    m_prompt = new QPlainTextEdit;
    m_prompt->setObjectName(u"newRunPrompt"_s);
    m_prompt->setAccessibleName(tr("Prompt"));
    m_prompt->setTabChangesFocus(true);
    m_prompt->setPlaceholderText(tr("What should the run do?"));
    m_prompt->setMinimumSize(460, 140);
    form->addRow(tr("&Prompt:"), m_prompt);

    // Structured input, offered only where the connector takes it (takesStructuredInput()).
    m_input = new QPlainTextEdit;
    m_input->setObjectName(u"newRunInput"_s);
    m_input->setAccessibleName(tr("Structured input (JSON)"));
    m_input->setTabChangesFocus(true);
    m_input->setPlaceholderText(tr("Optional: JSON sent as the run's input, e.g. {\"ticket\": 4711}"));
    m_input->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    // Room for a small object as typed (seven lines); beyond that it shares the dialog's height
    // with the prompt, so a larger window shows more of both.
    m_input->setMinimumHeight(m_input->fontMetrics().lineSpacing() * 7 + 14);
    m_inputLabel = new QLabel(tr("&Input (JSON):"));
    m_inputLabel->setBuddy(m_input);
    form->addRow(m_inputLabel, m_input);

    // The picked agent's own input form (a tool's inputSchema), in place of the JSON box.
    m_inputForm = new TypedAnswerForm;
    m_inputForm->setObjectName(u"newRunInputForm"_s);
    m_inputForm->setAccessibleName(tr("Input"));
    m_inputFormLabel = new QLabel(tr("I&nput:"));
    m_inputFormLabel->setBuddy(m_inputForm);
    form->addRow(m_inputFormLabel, m_inputForm);
    m_inputForm->setVisible(false);
    m_inputFormLabel->setVisible(false);

    m_stream = new QCheckBox(tr("&Stream output while the run works"));
    m_stream->setObjectName(u"newRunStream"_s);
    m_stream->setAccessibleName(tr("Stream output"));
    m_stream->setChecked(true);
    m_stream->setToolTip(tr("Off: the run is started and then polled; output appears when it is ready."));
    form->addRow(QString(), m_stream);
    layout->addLayout(form);

    m_hint = new QLabel;
    m_hint->setTextFormat(Qt::PlainText); // may show what a server sent: never markup
    m_hint->setWordWrap(true);
    QPalette hp = m_hint->palette();
    hp.setColor(QPalette::WindowText, hp.color(QPalette::PlaceholderText));
    m_hint->setPalette(hp);
    layout->addWidget(m_hint);

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("&Start"));
    m_buttons->button(QDialogButtonBox::Ok)->setObjectName(u"newRunStart"_s);
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_connection, &QComboBox::currentIndexChanged, this, &NewRunDialog::onConnectionChanged);
    connect(m_prompt, &QPlainTextEdit::textChanged, this, &NewRunDialog::validate);
    connect(m_agent, &QComboBox::currentIndexChanged, this, &NewRunDialog::onAgentChanged);
    connect(m_model, &QComboBox::currentTextChanged, this, &NewRunDialog::nameNoAgentItem);
    connect(m_input, &QPlainTextEdit::textChanged, this, &NewRunDialog::validate);
    connect(m_inputForm, &TypedAnswerForm::changed, this, &NewRunDialog::validate);
    onConnectionChanged();
    m_prompt->setFocus();
}

void NewRunDialog::setConnection(const QString &name)
{
    const int at = m_connection->findText(name);
    if (at >= 0)
        m_connection->setCurrentIndex(at);
}

QString NewRunDialog::connection() const
{
    return m_connection->currentText();
}

StartRequest NewRunDialog::request() const
{
    StartRequest r;
    if (m_model->isVisibleTo(this))
        r.model = m_model->currentText().trimmed();
    r.prompt = m_prompt->toPlainText().trimmed();
    r.stream = m_stream->isChecked();
    if (m_agent->isVisibleTo(this))
        r.agent = m_agent->currentData().toString();
    if (inputFormShown()) {
        r.input = m_inputForm->value();
        // The prompt only titles such a run: the agent and its input when none is typed.
        if (r.prompt.isEmpty())
            r.prompt = Run::summarize(r.agent + u' ' + jsonValueText(r.input), 200);
    } else if (m_input->isVisibleTo(this) && !m_input->toPlainText().trimmed().isEmpty()) {
        r.input = parseJsonValue(m_input->toPlainText()).value_or(QJsonValue(QJsonValue::Undefined));
    }
    return r;
}

bool NewRunDialog::inputFormShown() const
{
    return m_inputForm->isVisibleTo(this);
}

void NewRunDialog::onConnectionChanged()
{
    const auto conn = m_manager ? m_manager->connection(connection()) : std::nullopt;
    const QString typed = m_model->currentText();
    m_model->clear();
    if (conn && !conn->defaultModel.isEmpty())
        m_model->addItem(conn->defaultModel);
    if (!typed.isEmpty() && m_model->findText(typed) < 0 && (!conn || typed != conn->defaultModel))
        m_model->setEditText(typed);
    RunBackend *backend = m_manager ? m_manager->backend(connection()) : nullptr;
    const bool canStream = backend && backend->capabilities().testFlag(Capability::Stream);
    m_stream->setEnabled(canStream);
    if (!canStream)
        m_stream->setChecked(false);
    const bool structured = takesStructuredInput(backend);
    m_input->setVisible(structured);
    m_inputLabel->setVisible(structured);
    // Until an agent with an input schema is picked from the new connection's list.
    m_inputForm->setVisible(false);
    m_inputFormLabel->setVisible(false);
    m_hint->setText(connectionHint());
    loadAgents();
    validate();
}

QString NewRunDialog::connectionHint() const
{
    const auto conn = m_manager ? m_manager->connection(connection()) : std::nullopt;
    if (!conn)
        return tr("No connection yet: add one with Connections… first.");
    return tr("%1 · %2").arg(conn->backend, conn->baseUrl.toDisplayString());
}

// The model a run without an agent uses: the one typed, else the connection's, else the
// connector's default (what the backend falls back to).
QString NewRunDialog::plainModel() const
{
    QString typed = m_model->currentText().trimmed();
    if (!typed.isEmpty())
        return typed;
    const auto conn = m_manager ? m_manager->connection(connection()) : std::nullopt;
    if (conn && !conn->defaultModel.isEmpty())
        return conn->defaultModel;
    const ConnectorDescriptor *row = conn ? connector(conn->backend) : nullptr;
    return row ? row->defaultModel : QString();
}

void NewRunDialog::nameNoAgentItem()
{
    if (!m_agentOptional)
        return;
    // The item whose data is an empty string (the "Loading…" placeholder has none at all).
    int at = -1;
    for (int i = 0; at < 0 && i < m_agent->count(); ++i) {
        const QVariant data = m_agent->itemData(i);
        if (data.isValid() && data.toString().isEmpty())
            at = i;
    }
    if (at < 0)
        return;
    const QString model = plainModel();
    m_agent->setItemText(at,
                         model.isEmpty() ? tr("No agent (a model)") : tr("No agent (model %1)").arg(model));
}

void NewRunDialog::onAgentChanged()
{
    // An agent brings its model; without one, the model field is what runs.
    const QString id = m_agent->currentData().toString();
    const bool agent = !id.isEmpty();
    m_model->lineEdit()->setPlaceholderText(m_agent->isVisibleTo(this) && agent ? tr("The agent's own")
                                                                                : QString());
    // An agent that publishes the schema of its input gets a form of it (where the schema fits
    // the form subset); the JSON box stays for the others.
    const auto entry = std::find_if(m_entries.cbegin(), m_entries.cend(),
                                    [&](const CatalogEntry &e) { return agent && e.id == id; });
    const bool withForm = entry != m_entries.cend() && !entry->inputSchema.isEmpty()
                          && SchemaForm::fromSchema(entry->inputSchema).has_value()
                          && takesStructuredInput(m_manager ? m_manager->backend(connection()) : nullptr);
    if (withForm)
        m_inputForm->setSchema(entry->inputSchema);
    m_inputForm->setVisible(withForm);
    m_inputFormLabel->setVisible(withForm);
    const bool structured = takesStructuredInput(m_manager ? m_manager->backend(connection()) : nullptr);
    m_input->setVisible(structured && !withForm);
    m_inputLabel->setVisible(structured && !withForm);
    m_prompt->setPlaceholderText(withForm ? tr("Optional: a title for the run")
                                          : tr("What should the run do?"));
    // Only a title beside a form: the form gets the room.
    m_prompt->setMinimumSize(460, withForm ? 0 : 140);
    m_prompt->setMaximumHeight(withForm ? m_prompt->fontMetrics().lineSpacing() * 2 + 14 : QWIDGETSIZE_MAX);
    validate();
}

void NewRunDialog::loadAgents()
{
    ++m_agentsGeneration;
    m_entries.clear();
    m_agent->clear();
    RunBackend *backend = m_manager ? m_manager->backend(connection()) : nullptr;
    const bool hasCatalog = backend && backend->capabilities().testFlag(Capability::Catalog);
    // Where a run may also go to a plain model (the connector does not need an agent, e.g. a
    // project endpoint that also serves models), the picker offers "no agent" too.
    const auto current = m_manager ? m_manager->connection(connection()) : std::nullopt;
    const ConnectorDescriptor *row = current ? connector(current->backend) : nullptr;
    m_agentOptional = hasCatalog && row && !row->needsAgent;
    m_agent->setVisible(hasCatalog);
    m_agentLabel->setVisible(hasCatalog);
    m_agentLabel->setText(tr("&Agent:"));
    const bool takesModel = !row || row->takesModel;
    m_model->setVisible(takesModel);
    m_modelLabel->setVisible(takesModel);
    m_model->lineEdit()->setPlaceholderText(hasCatalog ? tr("The agent's own") : QString());
    if (!hasCatalog)
        return;
    m_agent->blockSignals(true); // no agent chosen until the list is there
    m_agent->setEnabled(false);
    m_agent->addItem(tr("Loading the service's agents…"));
    m_agent->blockSignals(false);
    // A model typed for another connection would override the agent's: only one the operator
    // sets for this connection does.
    if (const auto c = m_manager->connection(connection()); c && c->defaultModel.isEmpty())
        m_model->clearEditText();
    const auto conn = m_manager->connection(connection());
    const QString preferred = conn ? conn->options.value(ConnectionOption::Agent).toString() : QString();
    const int generation = m_agentsGeneration;
    QCoro::connect(
        backend->catalog(), this, [this, generation, preferred, takesModel](const CatalogResult &list) {
            if (generation != m_agentsGeneration)
                return;
            m_entries = list.entries;
            m_agent->clear();
            // A list that offers the service's models too is where the model is picked: one field,
            // not a model typed beside a model picked.
            const bool offersModels = std::any_of(list.entries.cbegin(), list.entries.cend(),
                                                  [](const CatalogEntry &entry) { return entry.model; });
            m_model->setVisible(!offersModels && takesModel);
            m_modelLabel->setVisible(!offersModels && takesModel);
            m_agentLabel->setText(offersModels ? tr("&Runs on:") : tr("&Agent:"));
            // A list of models is its own way to run without an agent.
            if (m_agentOptional && !offersModels) {
                m_agent->addItem(QString(), QString());
                nameNoAgentItem();
            }
            for (const CatalogEntry &agent : list.entries) {
                QString name = agent.name.isEmpty() ? agent.id : agent.name;
                // A versioned agent (Foundry's) runs its latest version: the picker says which.
                if (!agent.version.isEmpty())
                    name = tr("%1 (v%2)").arg(name, agent.version);
                m_agent->addItem(agent.detail.isEmpty() ? name : tr("%1 · %2").arg(name, agent.detail),
                                 agent.id);
                // What it does, where the service says (a tool's description).
                m_agent->setItemData(m_agent->count() - 1,
                                     agent.description.isEmpty() ? agent.id
                                                                 : agent.id + u"\n"_s + agent.description,
                                     Qt::ToolTipRole);
            }
            // The connection's default agent, by id or by name (a graph name can stand for its
            // assistant); it stays choosable when the list cannot be read.
            int at = preferred.isEmpty() ? -1 : m_agent->findData(preferred);
            for (qsizetype i = 0; at < 0 && !preferred.isEmpty() && i < list.entries.size(); ++i) {
                if (list.entries.at(i).name == preferred)
                    at = int(i);
            }
            if (at < 0 && !preferred.isEmpty()) {
                m_agent->addItem(preferred, preferred);
                at = m_agent->count() - 1;
            }
            // No default agent: the first of the list, as the picker always offered.
            if (at < 0 && m_agentOptional && !list.entries.isEmpty())
                at = 1;
            if (at >= 0)
                m_agent->setCurrentIndex(at);
            m_agent->setEnabled(m_agent->count() > 0);
            if (list.error.isError()) {
                m_hint->setText(tr("The service's agents could not be read: %1").arg(list.error.toString()));
            } else if (list.entries.isEmpty()) {
                m_hint->setText(m_agentOptional ? tr("The service has no agents: runs go to the model.")
                                                : tr("The service has no agents: create one there first."));
            }
            onAgentChanged();
        });
}

void NewRunDialog::validate()
{
    const bool needsAgent = m_agent->isVisibleTo(this) && !m_agentOptional;
    // JSON that does not parse is never sent: Start waits, and the hint says what is wrong.
    QString inputError;
    const bool inputOk = !m_input->isVisibleTo(this) || m_input->toPlainText().trimmed().isEmpty()
                         || parseJsonValue(m_input->toPlainText(), &inputError).has_value();
    // While the list loads (or could not be read) no choice is made: "no agent" is one.
    const bool agentPending = m_agent->isVisibleTo(this) && !m_agent->currentData().isValid();
    const bool form = inputFormShown();
    const bool formOk = !form || m_inputForm->isValid();
    const bool ok = m_connection->count() > 0 && (form || !m_prompt->toPlainText().trimmed().isEmpty())
                    && !agentPending && (!needsAgent || !m_agent->currentData().toString().isEmpty())
                    && inputOk && formOk;
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(ok);
    // Foundry's agent hints never meet this: its connector takes no structured input.
    if (m_input->isVisibleTo(this))
        m_hint->setText(inputOk ? connectionHint() : tr("Input (JSON): %1").arg(inputError));
    if (form) {
        const auto entry = std::find_if(m_entries.cbegin(), m_entries.cend(), [this](const CatalogEntry &e) {
            return e.id == m_agent->currentData().toString();
        });
        const QString description = entry == m_entries.cend() ? QString() : entry->description;
        m_hint->setText(!formOk                 ? tr("The tool's input: %1").arg(m_inputForm->problem())
                        : description.isEmpty() ? connectionHint()
                                                : description);
    }
}

} // namespace Runwatch
