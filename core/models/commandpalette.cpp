// SPDX-License-Identifier: GPL-3.0-or-later
#include "commandpalette.h"

#include "runlistmodel.h"

#include "engine/runmanager.h"

#include <QCoreApplication>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace Runwatch {

namespace {

bool isWordChar(QChar c)
{
    return c.isLetterOrNumber();
}

// Letters of `word` in order within `text`.
bool isSubsequence(QStringView word, QStringView text)
{
    qsizetype at = 0;
    for (const QChar c : word) {
        const qsizetype found = text.indexOf(c, at, Qt::CaseInsensitive);
        if (found < 0)
            return false;
        at = found + 1;
    }
    return true;
}

// One word of the query against one text: the scores paletteScore() documents, -1 for none.
int wordScore(QStringView word, QStringView text, bool subsequence)
{
    if (word.size() > text.size())
        return -1;
    if (text.startsWith(word, Qt::CaseInsensitive))
        return word.size() == text.size() ? 100 : 80;
    qsizetype at = text.indexOf(word, 1, Qt::CaseInsensitive);
    if (at < 0)
        return subsequence && word.size() > 1 && isSubsequence(word, text) ? 10 : -1;
    // The best occurrence: one at the start of a word ("run" in "Nightly run"), else anywhere.
    for (; at >= 0; at = text.indexOf(word, at + 1, Qt::CaseInsensitive)) {
        if (!isWordChar(text.at(at - 1)))
            return 60;
    }
    return 40;
}

// A run's id is pasted whole, or its first letters typed: the whole id ranks above everything,
// four letters or more of one below any match in a title. Remote ids share prefixes ("resp_"):
// a typed "re" must not list every run, nor rank them above the commands and titles.
int idScore(QStringView word, QStringView id)
{
    const int score = wordScore(word, id, false);
    if (score == 100)
        return 105;
    return score < 0 || word.size() < 4 ? -1 : 30;
}

QList<QStringView> wordsOf(QStringView query)
{
    QList<QStringView> words;
    for (const QStringView word : query.tokenize(u' ', Qt::SkipEmptyParts))
        words.append(word);
    return words;
}

int scoreWords(const QList<QStringView> &words, QStringView text, bool subsequence)
{
    int total = 0;
    for (const QStringView word : words) {
        const int score = wordScore(word, text, subsequence);
        if (score < 0)
            return -1;
        total += score;
    }
    return total;
}

} // namespace

int paletteScore(QStringView query, QStringView text, bool subsequence)
{
    const QList<QStringView> words = wordsOf(query);
    return words.isEmpty() ? 0 : scoreWords(words, text, subsequence);
}

CommandPaletteModel::CommandPaletteModel(RunListModel *runs, QObject *parent)
    : QAbstractListModel(parent)
    , m_runs(runs)
{}

void CommandPaletteModel::setCommands(const QList<PaletteCommand> &commands)
{
    m_commands = commands;
    rebuild();
}

void CommandPaletteModel::setQuery(const QString &query)
{
    m_query = query.simplified();
    rebuild();
}

void CommandPaletteModel::rebuild()
{
    beginResetModel();
    m_items.clear();
    m_moreRuns = 0;
    const QList<QStringView> words = wordsOf(m_query);
    qint64 order = 0;
    for (const PaletteCommand &command : std::as_const(m_commands)) {
        const int score = words.isEmpty() ? 0 : scoreWords(words, command.text, true);
        if (score >= 0)
            m_items.append(Item{Kind::Command, command.key, command.text, command.shortcut, score, order});
        ++order;
    }
    if (!words.isEmpty() && m_runs) {
        // The best maxRuns runs, kept as a heap while the rows are scanned: no list of every match.
        QList<Item> best;
        // A max-heap under "better": its front is the worst of the best, the one a better run replaces.
        const auto better = [](const Item &a, const Item &b) {
            return a.score != b.score ? a.score > b.score : a.order < b.order;
        };
        int matched = 0;
        const int rows = m_runs->rowCount();
        for (int row = 0; row < rows; ++row) {
            const Run *run = m_runs->runAt(row);
            if (!run)
                continue;
            // Every word must match the run's title or one of its ids.
            int total = 0;
            for (const QStringView word : words) {
                const int score = std::max({wordScore(word, run->title, false), idScore(word, run->localId),
                                            idScore(word, run->remoteId)});
                if (score < 0) {
                    total = -1;
                    break;
                }
                total += score;
            }
            if (total < 0)
                continue;
            ++matched;
            // Newer runs first among equals: creation time, in ms.
            const qint64 created = run->createdAt.isValid() ? run->createdAt.toMSecsSinceEpoch() : 0;
            Item item{Kind::Run, run->localId, QString(), QString(), total, -created};
            if (best.size() < m_maxRuns) {
                best.append(item);
                std::push_heap(best.begin(), best.end(), better);
            } else if (m_maxRuns > 0 && better(item, best.front())) {
                std::pop_heap(best.begin(), best.end(), better);
                best.back() = item;
                std::push_heap(best.begin(), best.end(), better);
            }
        }
        m_moreRuns = matched - int(best.size());
        for (Item &item : best) {
            const Run *run = m_runs->manager() ? m_runs->manager()->run(item.key) : nullptr;
            if (!run)
                continue;
            item.text = run->title.isEmpty()
                            ? QCoreApplication::translate("CommandPalette", "Run %1").arg(run->localId)
                            : run->title;
            item.detail = u"%1 · %2"_s.arg(run->localId, statusLabel(run->status));
            m_items.append(item);
        }
    }
    // Best first; among equals commands before runs (the palette's first use is the window's
    // commands), then menu order or newest run first.
    std::stable_sort(m_items.begin(), m_items.end(), [](const Item &a, const Item &b) {
        if (a.score != b.score)
            return a.score > b.score;
        if (a.kind != b.kind)
            return a.kind == Kind::Command;
        return a.order < b.order;
    });
    endResetModel();
}

int CommandPaletteModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_items.size());
}

QVariant CommandPaletteModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_items.size())
        return {};
    const Item &item = m_items.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
    case Qt::AccessibleTextRole:
        return item.text;
    case Qt::ToolTipRole:
        return item.detail.isEmpty() ? item.text : u"%1 (%2)"_s.arg(item.text, item.detail);
    case KindRole:
        return int(item.kind);
    case KeyRole:
        return item.key;
    case DetailRole:
        return item.detail;
    default:
        return {};
    }
}

} // namespace Runwatch
