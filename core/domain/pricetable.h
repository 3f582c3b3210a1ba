// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "run.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace Runwatch {

// The operator's price of one model, per million tokens, in the table's currency.
struct ModelPrice
{
    QString model;
    double inputPerMillion = 0;
    double outputPerMillion = 0;

    bool operator==(const ModelPrice &) const = default;
};

// The per-model price table the operator edits, stored in the run store's settings under
// kPriceSettingKey so the app and the CLI price runs alike. Empty until the operator sets a price:
// Runwatch ships no price list, because list prices change and differ by contract.
struct PriceTable
{
    QString currency; // a label only ("USD", "€"); nothing is converted
    QList<ModelPrice> prices;

    bool isEmpty() const { return prices.isEmpty(); }
    // The price for `model`: the entry of that exact name, else the longest entry the model name
    // extends with a dash (a price for "gpt-4o" covers the snapshot "gpt-4o-2024-08-06" the service
    // reports). nullptr when none fits.
    const ModelPrice *priceFor(const QString &model) const;

    // {"currency": "...", "models": [{"model","input_per_million","output_per_million"}]}.
    QJsonObject toJson() const;
    // Tolerant: entries without a model name or with a negative or non-number price are skipped.
    static PriceTable fromJson(const QJsonObject &object);
};

inline constexpr auto kPriceSettingKey = "prices";

// What `usage` cost at `price`: input and output tokens at their prices. Reasoning tokens are NOT
// added: OpenAI counts them inside output_tokens (the openai npm client's ResponseUsage documents
// output_tokens_details as "a detailed breakdown of the output tokens", and total_tokens is
// input + output), so billing them again would charge them twice. nullopt when neither count
// was reported.
std::optional<double> costOf(const TokenUsage &usage, const ModelPrice &price);

// The cost of `run` under `table`: nullopt when its model has no price or it reported no usage.
std::optional<double> costOf(const Run &run, const PriceTable &table);

// A cost as the front ends show it: four decimals (a run often costs less than a cent), then the
// currency label when there is one: "0.0123 USD".
QString formatCost(double cost, const QString &currency);

// One line for people (CLI status, detail pane): "tokens: 1200 input · 340 output (120 reasoning)",
// naming what was not reported. Translated (context "Runwatch::Usage").
QString usageSummary(const TokenUsage &usage);

} // namespace Runwatch
