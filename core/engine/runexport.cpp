// SPDX-License-Identifier: GPL-3.0-or-later
#include "runexport.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QUrlQuery>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {
// The Markdown export is read by people: its labels follow the UI language; lupdate reads
// Text::tr() under "RunExport". The JSON export keeps its English keys.
struct Text
{
    Q_DECLARE_TR_FUNCTIONS(RunExport)
};
} // namespace

namespace {

bool looksSecret(const QString &name)
{
    const QString n = name.toLower();
    static const QStringList needles{u"key"_s, u"token"_s, u"secret"_s,     u"password"_s, u"passwd"_s,
                                     u"sig"_s, u"auth"_s,  u"credential"_s, u"code"_s};
    for (const QString &needle : needles) {
        if (n.contains(needle))
            return true;
    }
    return false;
}

QString iso(const QDateTime &dt)
{
    return dt.isValid() ? dt.toUTC().toString(Qt::ISODate) : QString();
}

// Markdown code fence long enough that the text cannot close it.
QString fenceFor(const QString &text)
{
    QString fence = u"```"_s;
    while (text.contains(fence))
        fence += u'`';
    return fence;
}

QJsonValue countValue(qint64 count)
{
    return count >= 0 ? QJsonValue(count) : QJsonValue(QJsonValue::Null);
}

QString countText(qint64 count)
{
    return count >= 0 ? QString::number(count) : Text::tr("not reported");
}

QString conversationMarkdown(const QList<Run> &turns, const QString &heading, int firstTurn)
{
    if (turns.isEmpty())
        return {};
    QString md = u"\n## "_s + heading + u'\n';
    int turn = firstTurn;
    for (const Run &t : turns) {
        md += u"\n### "_s + Text::tr("Turn %1 (run %2, %3)").arg(turn++).arg(t.localId, statusLabel(t.status))
              + u"\n\n"_s;
        md += Text::tr("Prompt:") + u"\n\n"_s + fenceFor(t.prompt) + u"\n"_s + t.prompt + u"\n"_s
              + fenceFor(t.prompt) + u"\n"_s;
        md += u"\n"_s + Text::tr("Answer:") + u"\n\n"_s
              + (t.primaryText.isEmpty() ? QString(u"_"_s + Text::tr("No output.") + u"_\n"_s)
                                         : t.primaryText.toString() + u'\n');
    }
    return md;
}

QJsonArray conversationJson(const QList<Run> &turns)
{
    QJsonArray out;
    for (const Run &t : turns) {
        out.append(QJsonObject{{u"run"_s, t.localId},
                               {u"remote_id"_s, t.remoteId},
                               {u"status"_s, statusName(t.status)},
                               {u"prompt"_s, t.prompt},
                               {u"output"_s, t.primaryText.toString()}});
    }
    return out;
}

QByteArray toMarkdown(const Run &run, const PriceTable &prices, const QList<Run> &earlier,
                      const QList<Run> &later, const QList<RunStore::JournalEntry> &journal)
{
    QString md;
    md += u"# "_s + (run.title.isEmpty() ? Text::tr("Run %1").arg(run.localId) : run.title) + u"\n\n"_s;
    md += u"| | |\n|---|---|\n"_s;
    auto row = [&md](const QString &k, const QString &v) {
        if (!v.isEmpty())
            md += u"| "_s + k + u" | "_s + QString(v).replace(u'|', u"\\|"_s) + u" |\n"_s;
    };
    row(Text::tr("Run"), run.localId);
    row(Text::tr("Remote id"), run.remoteId);
    row(Text::tr("Connection"), run.connection);
    row(Text::tr("Backend"), run.backend);
    row(Text::tr("Service"), redactUrl(run.baseUrl));
    row(Text::tr("Model"), run.model);
    row(Text::tr("Status"),
        statusLabel(run.status) + (run.rawStatus.isEmpty() ? QString() : u" (`"_s + run.rawStatus + u"`)"_s));
    row(Text::tr("Created"), iso(run.createdAt));
    row(Text::tr("Finished"), iso(run.finishedAt));
    if (run.usage.isKnown()) {
        row(Text::tr("Input tokens"), countText(run.usage.inputTokens));
        row(Text::tr("Output tokens"), countText(run.usage.outputTokens));
        row(Text::tr("Reasoning tokens"), countText(run.usage.reasoningTokens));
    }
    if (const auto cost = costOf(run, prices))
        row(Text::tr("Cost"), formatCost(*cost, prices.currency));
    row(Text::tr("Follow-up to"), run.parentId);
    md += conversationMarkdown(earlier, Text::tr("Conversation so far"), 1);
    md += u"\n## "_s + Text::tr("Prompt") + u"\n\n"_s + fenceFor(run.prompt) + u"\n"_s + run.prompt + u"\n"_s
          + fenceFor(run.prompt) + u"\n"_s;

    QStringList history;
    for (const SecondaryItem &item : run.secondary) {
        if (item.kind == SecondaryKind::StatusChange)
            history << u"- "_s + iso(item.at) + u" — "_s + item.text;
    }
    if (!history.isEmpty())
        md += u"\n## "_s + Text::tr("Status history") + u"\n\n"_s + history.join(u'\n') + u'\n';

    md += u"\n## "_s + Text::tr("Output") + u"\n\n"_s;
    md += run.primaryText.isEmpty() ? QString(u"_"_s + Text::tr("No output.") + u"_\n"_s)
                                    : run.primaryText.toString() + u'\n';

    QString secondary;
    for (const SecondaryItem &item : run.secondary) {
        if (item.kind == SecondaryKind::StatusChange)
            continue;
        secondary += u"\n### "_s + secondaryKindName(item.kind).replace(u'_', u' ');
        if (!item.title.isEmpty())
            secondary += u": "_s + item.title;
        secondary
            += u"\n\n"_s + fenceFor(item.text) + u'\n' + item.text + u'\n' + fenceFor(item.text) + u'\n';
    }
    if (!secondary.isEmpty())
        md += u"\n## "_s + Text::tr("Reasoning, tools and progress") + u"\n"_s + secondary;
    md += conversationMarkdown(later, Text::tr("Later turns"), int(earlier.size()) + 2);

    if (run.error.isError()) {
        md += u"\n## "_s + Text::tr("Error") + u"\n\n"_s + run.error.toString() + u"\n\n"_s
              + Text::tr("Retryable: ") + (run.error.retryable ? Text::tr("yes") : Text::tr("no")) + u'\n';
    }
    if (!journal.isEmpty()) {
        md += u"\n## "_s + Text::tr("Operator journal") + u"\n\n"_s;
        for (const RunStore::JournalEntry &j : journal) {
            md += u"- "_s + iso(j.at) + u" — "_s + j.operatorName + u'@' + j.host + u": "_s + j.action
                  + (j.detail.isEmpty() ? QString() : u" ("_s + j.detail + u')') + u'\n';
        }
    }
    return md.toUtf8();
}

QByteArray toJson(const Run &run, const PriceTable &prices, const QList<Run> &earlier,
                  const QList<Run> &later, const QList<RunStore::JournalEntry> &journal)
{
    QJsonObject o;
    o.insert(u"run"_s, run.localId);
    o.insert(u"remote_id"_s, run.remoteId);
    o.insert(u"connection"_s, run.connection);
    o.insert(u"backend"_s, run.backend);
    o.insert(u"service"_s, redactUrl(run.baseUrl));
    o.insert(u"model"_s, run.model);
    o.insert(u"title"_s, run.title);
    o.insert(u"prompt"_s, run.prompt);
    o.insert(u"status"_s, statusName(run.status));
    o.insert(u"raw_status"_s, run.rawStatus);
    o.insert(u"created_at"_s, iso(run.createdAt));
    o.insert(u"finished_at"_s, iso(run.finishedAt));
    o.insert(u"usage"_s, QJsonObject{{u"input_tokens"_s, countValue(run.usage.inputTokens)},
                                     {u"output_tokens"_s, countValue(run.usage.outputTokens)},
                                     {u"reasoning_tokens"_s, countValue(run.usage.reasoningTokens)}});
    if (const auto cost = costOf(run, prices))
        o.insert(u"cost"_s, QJsonObject{{u"amount"_s, *cost}, {u"currency"_s, prices.currency}});
    QJsonArray history, secondary;
    for (const SecondaryItem &item : run.secondary) {
        if (item.kind == SecondaryKind::StatusChange) {
            history.append(QJsonObject{{u"at"_s, iso(item.at)}, {u"change"_s, item.text}});
        } else {
            secondary.append(item.toJson());
        }
    }
    o.insert(u"status_history"_s, history);
    o.insert(u"output"_s, run.primaryText.toString());
    o.insert(u"secondary"_s, secondary);
    if (run.error.isError())
        o.insert(u"error"_s, run.error.toJson());
    if (run.input)
        o.insert(u"input_request"_s, run.input->toJson());
    if (!run.parentId.isEmpty())
        o.insert(u"parent"_s, run.parentId);
    if (!earlier.isEmpty())
        o.insert(u"conversation"_s, conversationJson(earlier));
    if (!later.isEmpty())
        o.insert(u"later_turns"_s, conversationJson(later));
    if (!journal.isEmpty()) {
        QJsonArray entries;
        for (const RunStore::JournalEntry &j : journal) {
            entries.append(QJsonObject{{u"at"_s, iso(j.at)},
                                       {u"operator"_s, j.operatorName},
                                       {u"host"_s, j.host},
                                       {u"action"_s, j.action},
                                       {u"detail"_s, j.detail}});
        }
        o.insert(u"journal"_s, entries);
    }
    return QJsonDocument(o).toJson(QJsonDocument::Indented);
}

} // namespace

QString redactUrl(const QString &text)
{
    QUrl url(text);
    if (!url.isValid() || url.scheme().isEmpty())
        return text;
    url.setUserInfo({});
    if (url.hasQuery()) {
        QUrlQuery query(url);
        const auto items = query.queryItems(QUrl::FullyEncoded);
        QUrlQuery clean;
        for (const auto &[name, value] : items)
            clean.addQueryItem(name, looksSecret(name) ? u"REDACTED"_s : value);
        url.setQuery(clean);
    }
    return url.toString();
}

QByteArray exportRun(const Run &run, ExportFormat format, const PriceTable &prices,
                     const QList<Run> &earlierTurns, const QList<Run> &laterTurns,
                     const QList<RunStore::JournalEntry> &journal)
{
    return format == ExportFormat::Markdown ? toMarkdown(run, prices, earlierTurns, laterTurns, journal)
                                            : toJson(run, prices, earlierTurns, laterTurns, journal);
}

QList<Run> conversationBefore(const Run &run,
                              const std::function<std::optional<Run>(const QString &)> &lookup)
{
    QList<Run> turns;
    QSet<QString> seen{run.localId};
    QString next = run.parentId;
    while (!next.isEmpty() && !seen.contains(next)) {
        seen.insert(next);
        std::optional<Run> parent = lookup(next);
        if (!parent)
            break;
        next = parent->parentId;
        turns.prepend(std::move(*parent));
    }
    return turns;
}

QList<Run> conversationAfter(const Run &run, const QStringList &order,
                             const std::function<QString(const QString &)> &parentOf,
                             const std::function<std::optional<Run>(const QString &)> &lookup)
{
    QList<Run> turns;
    QSet<QString> members{run.localId};
    for (const QString &id : order) {
        if (members.contains(id))
            continue;
        const QString parent = parentOf(id);
        if (parent.isEmpty() || !members.contains(parent))
            continue;
        std::optional<Run> turn = lookup(id);
        if (!turn)
            continue;
        members.insert(id);
        turns.append(std::move(*turn));
    }
    return turns;
}

} // namespace Runwatch
