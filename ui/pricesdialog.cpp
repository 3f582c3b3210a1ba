// SPDX-License-Identifier: GPL-3.0-or-later
#include "pricesdialog.h"

#include "engine/runmanager.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSet>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// A price as typed: the locale's decimal separator or a dot; nullopt when not a finite number.
std::optional<double> parsePrice(const QString &text)
{
    bool ok = false;
    double value = QLocale().toDouble(text, &ok);
    if (!ok)
        value = QLocale::c().toDouble(text, &ok);
    if (!ok || !std::isfinite(value))
        return std::nullopt;
    return value;
}

QString priceText(double value)
{
    // Enough digits for prices such as 0.075 per million, none trailing.
    return QLocale().toString(value, 'g', 12);
}
} // namespace

PricesDialog::PricesDialog(RunManager *manager, QWidget *parent)
    : QDialog(parent)
    , m_manager(manager)
{
    setObjectName(u"pricesDialog"_s);
    setWindowTitle(tr("Prices"));
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(
        tr("The price of a million input and output tokens for each model, to show what runs cost. "
           "Runwatch ships no prices: list prices change and contracts differ, so enter yours. "
           "A price for “gpt-4o” also covers the snapshots the service reports, such as "
           "“gpt-4o-2024-08-06”. Reasoning tokens are billed as output tokens."));
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto *form = new QFormLayout;
    m_currency = new QLineEdit;
    m_currency->setObjectName(u"currencyEdit"_s);
    m_currency->setPlaceholderText(tr("e.g. USD"));
    m_currency->setMaxLength(12);
    m_currency->setToolTip(tr("A label shown after every cost; nothing is converted"));
    form->addRow(tr("&Currency:"), m_currency);
    layout->addLayout(form);

    m_table = new QTableWidget(0, 3);
    m_table->setObjectName(u"pricesTable"_s);
    m_table->setAccessibleName(tr("Prices per model"));
    m_table->setHorizontalHeaderLabels({tr("Model"), tr("Input per 1M tokens"), tr("Output per 1M tokens")});
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(ModelColumn, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(InputColumn, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(OutputColumn, QHeaderView::ResizeToContents);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    layout->addWidget(m_table, 1);

    auto *rowButtons = new QHBoxLayout;
    auto *add = new QPushButton(tr("&Add Model"));
    add->setObjectName(u"addPrice"_s);
    auto *remove = new QPushButton(tr("&Remove"));
    remove->setObjectName(u"removePrice"_s);
    rowButtons->addWidget(add);
    rowButtons->addWidget(remove);
    rowButtons->addStretch(1);
    layout->addLayout(rowButtons);

    m_error = new QLabel;
    m_error->setObjectName(u"pricesError"_s);
    m_error->setWordWrap(true);
    QPalette errorPalette = m_error->palette();
    errorPalette.setColor(QPalette::WindowText, QColor(0xc0, 0x1c, 0x28));
    m_error->setPalette(errorPalette);
    m_error->hide();
    layout->addWidget(m_error);

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &PricesDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    // The saved prices first, then the models the runs used that have none.
    QSet<QString> listed;
    if (manager) {
        const PriceTable &saved = manager->prices()->table();
        m_currency->setText(saved.currency);
        for (const ModelPrice &p : saved.prices) {
            addRow(p.model, priceText(p.inputPerMillion), priceText(p.outputPerMillion));
            listed.insert(p.model);
        }
        QStringList seen;
        for (const QString &id : manager->runIds()) {
            const Run *run = manager->run(id);
            if (run && !run->model.isEmpty() && !listed.contains(run->model) && !saved.priceFor(run->model)) {
                listed.insert(run->model);
                seen << run->model;
            }
        }
        seen.sort(Qt::CaseInsensitive);
        for (const QString &model : std::as_const(seen))
            addRow(model, {}, {});
    }

    connect(add, &QPushButton::clicked, this, [this] {
        addRow({}, {}, {});
        m_table->setCurrentCell(m_table->rowCount() - 1, ModelColumn);
        m_table->editItem(m_table->currentItem());
    });
    connect(remove, &QPushButton::clicked, this, [this] {
        QList<int> rows;
        for (const QModelIndex &index : m_table->selectionModel()->selectedRows())
            rows << index.row();
        std::sort(rows.begin(), rows.end(), std::greater<>());
        for (int row : std::as_const(rows))
            m_table->removeRow(row);
        validate();
    });
    connect(m_table, &QTableWidget::itemChanged, this, &PricesDialog::validate);
    resize(560, 420);
    validate();
}

void PricesDialog::addRow(const QString &model, const QString &input, const QString &output)
{
    const QSignalBlocker block(m_table);
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    m_table->setItem(row, ModelColumn, new QTableWidgetItem(model));
    for (const auto &[column, text] : {std::pair{InputColumn, input}, std::pair{OutputColumn, output}}) {
        auto *item = new QTableWidgetItem(text);
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(row, column, item);
    }
}

PriceTable PricesDialog::enteredTable(QString *validationError) const
{
    PriceTable table;
    table.currency = m_currency->text().trimmed();
    QStringList problems;
    QSet<QString> models;
    const auto text = [this](int row, int column) {
        const QTableWidgetItem *item = m_table->item(row, column);
        return item ? item->text().trimmed() : QString();
    };
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const QString model = text(row, ModelColumn);
        const QString input = text(row, InputColumn);
        const QString output = text(row, OutputColumn);
        if (input.isEmpty() && output.isEmpty())
            continue; // a model without a price (a seen model not priced yet) or an empty row
        const int line = row + 1;
        if (model.isEmpty()) {
            problems << tr("Row %1: enter the model's name.").arg(line);
            continue;
        }
        if (models.contains(model)) {
            problems << tr("Row %1: %2 is listed twice.").arg(line).arg(model);
            continue;
        }
        models.insert(model);
        const auto in = parsePrice(input);
        const auto out = parsePrice(output);
        if (input.isEmpty() || output.isEmpty()) {
            problems << tr("Row %1: enter both prices of %2 (0 for free).").arg(line).arg(model);
            continue;
        }
        if (!in || !out) {
            problems << tr("Row %1: the prices of %2 must be numbers.").arg(line).arg(model);
            continue;
        }
        if (*in < 0 || *out < 0) {
            problems << tr("Row %1: the prices of %2 cannot be negative.").arg(line).arg(model);
            continue;
        }
        table.prices << ModelPrice{model, *in, *out};
    }
    if (validationError)
        *validationError = problems.join(u'\n');
    return table;
}

void PricesDialog::validate()
{
    QString problems;
    enteredTable(&problems);
    m_error->setText(problems);
    m_error->setVisible(!problems.isEmpty());
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(problems.isEmpty());
}

void PricesDialog::accept()
{
    QString problems;
    const PriceTable table = enteredTable(&problems);
    if (!problems.isEmpty() || !m_manager)
        return;
    if (!m_manager->prices()->setTable(table)) {
        m_error->setText(tr("The prices could not be saved to the run store."));
        m_error->show();
        return;
    }
    QDialog::accept();
}

} // namespace Runwatch
