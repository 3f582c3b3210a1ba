// SPDX-License-Identifier: GPL-3.0-or-later
#include "typedanswerform.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QPlainTextEdit>
#include <QShortcut>
#include <QSpinBox>
#include <QVBoxLayout>

#include <climits>
#include <cmath>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

// Without a bound of its own a number box still needs one; a service that means more than
// this says so with minimum / maximum.
constexpr double kNumberRange = 1e12;

// Shows 12.5 as "12.5", not "12.500000": the box keeps six decimals for input.
class NumberBox final : public QDoubleSpinBox
{
public:
    using QDoubleSpinBox::QDoubleSpinBox;

protected:
    QString textFromValue(double value) const override
    {
        QString text = locale().toString(value, 'g', 15);
        if (!isGroupSeparatorShown())
            text.remove(locale().groupSeparator());
        return text;
    }
};

// A control without a value yet (no default) shows "(none)" one step below its minimum: the
// form then says the field is required instead of sending a number nobody chose.
template<typename Box, typename T>
void allowNone(Box *box, T minimum)
{
    box->setMinimum(minimum - 1);
    box->setSpecialValueText(TypedAnswerForm::tr("(none)"));
    box->setValue(minimum - 1);
}

QString labelText(const SchemaField &field)
{
    return field.required ? field.title + u" *"_s : field.title;
}

} // namespace

TypedAnswerForm::TypedAnswerForm(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(u"typedAnswerForm"_s);
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    m_title = new QLabel;
    m_title->setObjectName(u"typedAnswerTitle"_s);
    m_title->setWordWrap(true);
    m_title->hide();
    outer->addWidget(m_title);
    m_layout = new QFormLayout;
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    outer->addLayout(m_layout);
}

void TypedAnswerForm::setSchema(const QJsonObject &schema)
{
    while (m_layout->rowCount() > 0)
        m_layout->removeRow(0);
    m_fields.clear();
    m_jsonEditor = nullptr;
    m_schema = schema;
    const std::optional<SchemaForm> form = SchemaForm::fromSchema(schema);
    QString heading = form ? form->title : schema.value(u"title"_s).toString();
    const QString description = form ? form->description : schema.value(u"description"_s).toString();
    if (!description.isEmpty())
        heading = heading.isEmpty() ? description : heading + u" — "_s + description;
    m_title->setText(heading);
    m_title->setVisible(!heading.isEmpty());
    if (form) {
        for (const SchemaField &spec : form->fields) {
            Field field{spec, editorFor(spec)};
            auto *label = new QLabel(labelText(spec));
            label->setBuddy(field.editor);
            label->setToolTip(spec.description);
            m_layout->addRow(label, field.editor);
            m_fields << field;
        }
    } else {
        // Outside the subset: the answer as JSON, still checked against the schema where the
        // validator can.
        m_jsonEditor = new QPlainTextEdit;
        m_jsonEditor->setObjectName(u"typedAnswerJson"_s);
        m_jsonEditor->setAccessibleName(tr("Answer as JSON"));
        m_jsonEditor->setAccessibleDescription(
            tr("The form is too complex to show field by field; type the answer "
               "as JSON"));
        m_jsonEditor->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
        m_jsonEditor->setTabChangesFocus(true);
        m_jsonEditor->setFixedHeight(m_jsonEditor->fontMetrics().lineSpacing() * 5 + 14);
        const QJsonValue start = schema.value(u"default"_s);
        m_jsonEditor->setPlainText(start.isUndefined() ? QString() : jsonValueText(start));
        connect(m_jsonEditor, &QPlainTextEdit::textChanged, this, &TypedAnswerForm::revalidate);
        auto *submit = new QShortcut(QKeySequence(u"Ctrl+Return"_s), m_jsonEditor);
        submit->setContext(Qt::WidgetShortcut);
        connect(submit, &QShortcut::activated, this, &TypedAnswerForm::submitRequested);
        m_layout->addRow(new QLabel(tr("Answer (JSON)")), m_jsonEditor);
    }
    revalidate();
}

QWidget *TypedAnswerForm::editorFor(const SchemaField &field)
{
    QWidget *editor = nullptr;
    const QJsonValue def = field.defaultValue;
    switch (field.type) {
    case SchemaField::Type::Text: {
        auto *line = new QLineEdit;
        if (field.maxLength && *field.maxLength > 0 && *field.maxLength < INT_MAX)
            line->setMaxLength(int(*field.maxLength));
        line->setText(def.toString());
        connect(line, &QLineEdit::textChanged, this, &TypedAnswerForm::revalidate);
        connect(line, &QLineEdit::returnPressed, this, &TypedAnswerForm::submitRequested);
        editor = line;
        break;
    }
    case SchemaField::Type::MultiLineText: {
        auto *box = new QPlainTextEdit;
        box->setTabChangesFocus(true);
        box->setFixedHeight(box->fontMetrics().lineSpacing() * 3 + 14);
        box->setPlainText(def.toString());
        connect(box, &QPlainTextEdit::textChanged, this, &TypedAnswerForm::revalidate);
        auto *submit = new QShortcut(QKeySequence(u"Ctrl+Return"_s), box);
        submit->setContext(Qt::WidgetShortcut);
        connect(submit, &QShortcut::activated, this, &TypedAnswerForm::submitRequested);
        editor = box;
        break;
    }
    case SchemaField::Type::Integer: {
        auto *spin = new QSpinBox;
        const qint64 lo = field.minimum ? qint64(std::ceil(std::max(*field.minimum, double(INT_MIN + 1))))
                                        : qint64(INT_MIN + 1);
        const qint64 hi
            = field.maximum ? qint64(std::floor(std::min(*field.maximum, double(INT_MAX)))) : INT_MAX;
        spin->setRange(int(lo), int(std::max(lo, hi)));
        if (def.isDouble()) {
            spin->setValue(def.toInt());
        } else {
            allowNone(spin, int(lo));
        }
        connect(spin, &QSpinBox::valueChanged, this, &TypedAnswerForm::revalidate);
        editor = spin;
        break;
    }
    case SchemaField::Type::Number: {
        auto *spin = new NumberBox;
        spin->setDecimals(6);
        spin->setStepType(QAbstractSpinBox::AdaptiveDecimalStepType);
        const double lo = field.minimum.value_or(-kNumberRange);
        spin->setRange(lo, std::max(lo, field.maximum.value_or(kNumberRange)));
        if (def.isDouble()) {
            spin->setValue(def.toDouble());
        } else {
            allowNone(spin, lo);
        }
        connect(spin, &QDoubleSpinBox::valueChanged, this, &TypedAnswerForm::revalidate);
        editor = spin;
        break;
    }
    case SchemaField::Type::Boolean: {
        auto *check = new QCheckBox;
        check->setChecked(def.toBool());
        connect(check, &QCheckBox::toggled, this, &TypedAnswerForm::revalidate);
        editor = check;
        break;
    }
    case SchemaField::Type::Choice: {
        auto *combo = new QComboBox;
        // An optional choice, or one without a default, starts at "nothing chosen".
        if (!field.required || def.isUndefined())
            combo->addItem(field.required ? tr("Choose…") : tr("(none)"), -1);
        for (qsizetype i = 0; i < field.choices.size(); ++i) {
            combo->addItem(field.choiceTitles.value(i), int(i));
            if (field.choices.at(i) == def)
                combo->setCurrentIndex(combo->count() - 1);
        }
        connect(combo, &QComboBox::currentIndexChanged, this, &TypedAnswerForm::revalidate);
        editor = combo;
        break;
    }
    case SchemaField::Type::MultiChoice: {
        auto *list = new QListWidget;
        const QJsonArray chosen = def.toArray();
        for (qsizetype i = 0; i < field.choices.size(); ++i) {
            auto *item = new QListWidgetItem(field.choiceTitles.value(i), list);
            item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable | Qt::ItemIsSelectable);
            item->setCheckState(chosen.contains(field.choices.at(i)) ? Qt::Checked : Qt::Unchecked);
            item->setData(Qt::AccessibleTextRole, field.choiceTitles.value(i));
        }
        const int rows = int(std::min<qsizetype>(field.choices.size(), 5));
        list->setFixedHeight(list->sizeHintForRow(0) * rows + 2 * list->frameWidth() + 2);
        connect(list, &QListWidget::itemChanged, this, &TypedAnswerForm::revalidate);
        editor = list;
        break;
    }
    }
    editor->setObjectName(u"field_"_s + field.key);
    editor->setAccessibleName(field.required ? tr("%1 (required)").arg(field.title) : field.title);
    editor->setAccessibleDescription(field.description);
    editor->setToolTip(field.description);
    return editor;
}

QJsonValue TypedAnswerForm::fieldValue(const Field &field) const
{
    switch (field.spec.type) {
    case SchemaField::Type::Text: {
        const QString text = static_cast<QLineEdit *>(field.editor)->text();
        return text.isEmpty() ? QJsonValue(QJsonValue::Undefined) : QJsonValue(text);
    }
    case SchemaField::Type::MultiLineText: {
        const QString text = static_cast<QPlainTextEdit *>(field.editor)->toPlainText();
        return text.isEmpty() ? QJsonValue(QJsonValue::Undefined) : QJsonValue(text);
    }
    case SchemaField::Type::Integer: {
        const auto *spin = static_cast<QSpinBox *>(field.editor);
        const bool none = !spin->specialValueText().isEmpty() && spin->value() == spin->minimum();
        return none ? QJsonValue(QJsonValue::Undefined) : QJsonValue(spin->value());
    }
    case SchemaField::Type::Number: {
        const auto *spin = static_cast<QDoubleSpinBox *>(field.editor);
        const bool none = !spin->specialValueText().isEmpty() && spin->value() == spin->minimum();
        return none ? QJsonValue(QJsonValue::Undefined) : QJsonValue(spin->value());
    }
    case SchemaField::Type::Boolean:
        return static_cast<QCheckBox *>(field.editor)->isChecked();
    case SchemaField::Type::Choice: {
        const int index = static_cast<QComboBox *>(field.editor)->currentData().toInt();
        return index >= 0 ? field.spec.choices.at(index) : QJsonValue(QJsonValue::Undefined);
    }
    case SchemaField::Type::MultiChoice: {
        const auto *list = static_cast<QListWidget *>(field.editor);
        QJsonArray chosen;
        for (int i = 0; i < list->count(); ++i) {
            if (list->item(i)->checkState() == Qt::Checked)
                chosen.append(field.spec.choices.at(i));
        }
        return chosen.isEmpty() && !field.spec.required ? QJsonValue(QJsonValue::Undefined)
                                                        : QJsonValue(chosen);
    }
    }
    return QJsonValue::Undefined;
}

QJsonValue TypedAnswerForm::value() const
{
    if (m_jsonEditor)
        return parseJsonValue(m_jsonEditor->toPlainText()).value_or(QJsonValue(QJsonValue::Undefined));
    QJsonObject o;
    for (const Field &field : m_fields) {
        if (const QJsonValue v = fieldValue(field); !v.isUndefined())
            o.insert(field.spec.key, v);
    }
    return o;
}

void TypedAnswerForm::revalidate()
{
    m_problems.clear();
    QString parseError;
    if (m_jsonEditor && !parseJsonValue(m_jsonEditor->toPlainText(), &parseError)) {
        m_problems << parseError;
    } else {
        m_problems = validateJson(m_schema, value());
    }
    Q_EMIT changed();
}

void TypedAnswerForm::setEditable(bool editable)
{
    for (const Field &field : std::as_const(m_fields))
        field.editor->setEnabled(editable);
    if (m_jsonEditor)
        m_jsonEditor->setEnabled(editable);
}

void TypedAnswerForm::focusFirst()
{
    if (m_jsonEditor) {
        m_jsonEditor->setFocus(Qt::ShortcutFocusReason);
    } else if (!m_fields.isEmpty()) {
        m_fields.first().editor->setFocus(Qt::ShortcutFocusReason);
    }
}

} // namespace Runwatch
