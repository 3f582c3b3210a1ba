// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QAbstractListModel>
#include <QList>
#include <QPointer>
#include <QString>
#include <QStringView>

namespace Runwatch {

class RunListModel;

// How well `query` matches `text`, for the command palette (Ctrl+K, issue 31); -1 when it does
// not. Case-insensitive; `query` is split into words and every word must match. A word scores by
// where it matches: the whole text (100), its start (80), the start of a word in it (60),
// anywhere (40), or — with `subsequence`, for short lists such as the window's commands — its
// letters in order ("nr" in "New Run", 10). Higher is better; the sum over the words.
int paletteScore(QStringView query, QStringView text, bool subsequence);

// One of the window's commands, as the palette shows it: the QAction's object name (what
// the front end triggers), its text without mnemonics and its shortcut's text.
struct PaletteCommand
{
    QString key;
    QString text;
    QString shortcut;

    friend bool operator==(const PaletteCommand &, const PaletteCommand &) = default;
};

// The palette's list for a query: the commands it matches and the runs whose title, local or
// remote id it matches, best first. A whole id ranks first; part of an id ranks below any match in
// a title (a typed "re" is not every "resp_…" remote id).
// Runs are read from the run list model row by row and only the best `maxRuns` are kept: with
// 100,000 runs a keystroke costs a scan of their titles, never a list of them all. An empty
// query lists every command and no run.
class CommandPaletteModel final : public QAbstractListModel
{
    Q_OBJECT
public:
    enum class Kind { Command, Run };
    Q_ENUM(Kind)
    enum Role {
        KindRole = Qt::UserRole + 1, // int(Kind)
        KeyRole,                     // the command's key or the run's local id
        DetailRole,                  // the shortcut, or the run's id and status
    };

    explicit CommandPaletteModel(RunListModel *runs, QObject *parent = nullptr);

    // The commands available now (the front end passes the enabled ones when the palette opens).
    void setCommands(const QList<PaletteCommand> &commands);
    void setQuery(const QString &query);
    QString query() const { return m_query; }
    void setMaxRuns(int maxRuns) { m_maxRuns = maxRuns; }
    int maxRuns() const { return m_maxRuns; }
    // Runs that matched beyond maxRuns (not listed): the palette says "N more, type more".
    int moreRuns() const { return m_moreRuns; }

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

private:
    struct Item
    {
        Kind kind = Kind::Command;
        QString key;
        QString text;
        QString detail;
        int score = 0;
        qint64 order = 0; // ties: commands in menu order, runs newest first
    };
    void rebuild();

    QPointer<RunListModel> m_runs;
    QList<PaletteCommand> m_commands;
    QString m_query;
    int m_maxRuns = 50;
    int m_moreRuns = 0;
    QList<Item> m_items;
};

} // namespace Runwatch
