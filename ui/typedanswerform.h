// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "json/jsonschema.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QWidget>

class QFormLayout;
class QLabel;
class QPlainTextEdit;

namespace Runwatch {

// The typed answer to a request with a JSON Schema (InputRequest::schema): one labelled control
// per field of the form subset (core/json/jsonschema.h) — a line or a multi-line box for text,
// spin boxes within the bounds for numbers, a check box, a drop-down for a choice, a checkable
// list for several choices — with required fields marked "*" and the schema's defaults filled
// in. A schema outside the subset gets a JSON editor instead. The value is checked against the
// schema as it is typed; problem() says what is wrong, naming the field.
class TypedAnswerForm final : public QWidget
{
    Q_OBJECT
public:
    explicit TypedAnswerForm(QWidget *parent = nullptr);

    // Rebuilds the controls; what was typed for the previous schema is dropped.
    void setSchema(const QJsonObject &schema);
    void setEditable(bool editable);
    // True when the schema is outside the form subset and a JSON editor is shown.
    bool isJsonEditor() const { return m_jsonEditor != nullptr; }
    // The answer as built from the controls (a JSON object; the editor's value, when it parses).
    QJsonValue value() const;
    // The first problem of the current value, operator-facing; empty when it fits the schema.
    QString problem() const { return m_problems.value(0); }
    bool isValid() const { return m_problems.isEmpty(); }
    void focusFirst();

Q_SIGNALS:
    void changed();
    // Ctrl+Enter in a text box.
    void submitRequested();

private:
    struct Field
    {
        SchemaField spec;
        QWidget *editor = nullptr;
    };

    QWidget *editorFor(const SchemaField &field);
    QJsonValue fieldValue(const Field &field) const;
    void revalidate();

    QJsonObject m_schema;
    QList<Field> m_fields;
    QPlainTextEdit *m_jsonEditor = nullptr;
    QFormLayout *m_layout = nullptr;
    QLabel *m_title = nullptr;
    QStringList m_problems;
};

} // namespace Runwatch
