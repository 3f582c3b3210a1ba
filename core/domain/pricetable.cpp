// SPDX-License-Identifier: GPL-3.0-or-later
#include "pricetable.h"

#include <QCoreApplication>
#include <QJsonArray>

#include <cmath>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
std::optional<double> priceValue(const QJsonValue &value)
{
    if (!value.isDouble())
        return std::nullopt;
    const double d = value.toDouble();
    if (!std::isfinite(d) || d < 0)
        return std::nullopt;
    return d;
}
} // namespace

const ModelPrice *PriceTable::priceFor(const QString &model) const
{
    if (model.isEmpty())
        return nullptr;
    const ModelPrice *best = nullptr;
    for (const ModelPrice &p : prices) {
        if (p.model == model)
            return &p;
        if (model.size() > p.model.size() && model.startsWith(p.model) && model.at(p.model.size()) == u'-'
            && (!best || p.model.size() > best->model.size()))
            best = &p;
    }
    return best;
}

QJsonObject PriceTable::toJson() const
{
    QJsonArray models;
    for (const ModelPrice &p : prices) {
        models.append(QJsonObject{{u"model"_s, p.model},
                                  {u"input_per_million"_s, p.inputPerMillion},
                                  {u"output_per_million"_s, p.outputPerMillion}});
    }
    return QJsonObject{{u"currency"_s, currency}, {u"models"_s, models}};
}

PriceTable PriceTable::fromJson(const QJsonObject &object)
{
    PriceTable t;
    t.currency = object.value(u"currency"_s).toString();
    for (const QJsonValue &v : object.value(u"models"_s).toArray()) {
        const QJsonObject o = v.toObject();
        ModelPrice p;
        p.model = o.value(u"model"_s).toString().trimmed();
        const auto in = priceValue(o.value(u"input_per_million"_s));
        const auto out = priceValue(o.value(u"output_per_million"_s));
        if (p.model.isEmpty() || !in || !out)
            continue;
        p.inputPerMillion = *in;
        p.outputPerMillion = *out;
        t.prices << p;
    }
    return t;
}

std::optional<double> costOf(const TokenUsage &usage, const ModelPrice &price)
{
    if (usage.inputTokens < 0 && usage.outputTokens < 0)
        return std::nullopt;
    double cost = 0;
    if (usage.inputTokens > 0)
        cost += double(usage.inputTokens) * price.inputPerMillion / 1e6;
    if (usage.outputTokens > 0)
        cost += double(usage.outputTokens) * price.outputPerMillion / 1e6;
    return cost;
}

std::optional<double> costOf(const Run &run, const PriceTable &table)
{
    const ModelPrice *price = table.priceFor(run.model);
    if (!price)
        return std::nullopt;
    return costOf(run.usage, *price);
}

QString usageSummary(const TokenUsage &usage)
{
    const auto part = [](qint64 n, const char *known, const char *unknown) {
        return n >= 0 ? QCoreApplication::translate("Runwatch::Usage", known).arg(n)
                      : QCoreApplication::translate("Runwatch::Usage", unknown);
    };
    QString line = QCoreApplication::translate("Runwatch::Usage", "tokens: %1 · %2")
                       .arg(part(usage.inputTokens, QT_TRANSLATE_NOOP("Runwatch::Usage", "%1 input"),
                                 QT_TRANSLATE_NOOP("Runwatch::Usage", "input not reported")),
                            part(usage.outputTokens, QT_TRANSLATE_NOOP("Runwatch::Usage", "%1 output"),
                                 QT_TRANSLATE_NOOP("Runwatch::Usage", "output not reported")));
    if (usage.reasoningTokens >= 0)
        line += QCoreApplication::translate("Runwatch::Usage", " (%1 reasoning)").arg(usage.reasoningTokens);
    return line;
}

QString formatCost(double cost, const QString &currency)
{
    const QString amount = QString::number(cost, 'f', 4);
    return currency.isEmpty() ? amount : amount + u' ' + currency;
}

} // namespace Runwatch
