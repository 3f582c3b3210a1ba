// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/pricetable.h"

#include <QDialog>
#include <QPointer>

class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QTableWidget;

namespace Runwatch {

class PriceBook;
class RunManager;

// Settings › Prices…: the operator's price per million input and output tokens of each model,
// and a currency label. Prefilled with the saved prices and, below them, the models the runs
// used that have none yet (empty: Runwatch ships no price list). Checked as typed (numbers, not
// negative, both prices of a row, no model twice); OK saves through the RunManager's PriceBook,
// which re-prices the run list, the detail pane and the totals.
class PricesDialog final : public QDialog
{
    Q_OBJECT
public:
    enum Column { ModelColumn, InputColumn, OutputColumn };

    explicit PricesDialog(RunManager *manager, QWidget *parent = nullptr);

    QTableWidget *priceTable() const { return m_table; }
    QLineEdit *currencyEdit() const { return m_currency; }
    QLabel *errorLabel() const { return m_error; }
    QDialogButtonBox *buttons() const { return m_buttons; }

    // The table as entered; valid only when validationError() is empty. Rows with a model and no
    // price are left out (not priced).
    PriceTable enteredTable(QString *validationError = nullptr) const;

    void accept() override;

private:
    void addRow(const QString &model, const QString &input, const QString &output);
    void validate();

    QPointer<RunManager> m_manager;
    QLineEdit *m_currency = nullptr;
    QTableWidget *m_table = nullptr;
    QLabel *m_error = nullptr;
    QDialogButtonBox *m_buttons = nullptr;
};

} // namespace Runwatch
