// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/pricetable.h"
#include "domain/run.h"
#include "store/runstore.h"

#include <QByteArray>
#include <QList>
#include <QUrl>

#include <functional>
#include <optional>

namespace Runwatch {

enum class ExportFormat { Markdown, Json };

// A run as a document an operator can file or share: prompt, status history, primary output,
// secondary items and error. Secrets never appear: runs hold no keys, and URLs are redacted
// (redactUrl) because a base URL may carry user info or a key in its query. The token usage is
// included as reported (JSON: null where not reported); the cost when `prices` prices its model.
// For a follow-up, `earlierTurns` (conversationBefore()) come first and `laterTurns`
// (conversationAfter()) last, each turn's prompt and answer in order, so the document holds the
// whole conversation (JSON: "conversation" and "later_turns"). `journal` (RunStore::journal) is
// who gave which command on the run, when (JSON: "journal").
QByteArray exportRun(const Run &run, ExportFormat format, const PriceTable &prices = {},
                     const QList<Run> &earlierTurns = {}, const QList<Run> &laterTurns = {},
                     const QList<RunStore::JournalEntry> &journal = {});

// The turns before `run` in its conversation, oldest first, following Run::parentId through
// `lookup` (the store, or the engine with output loaded). Stops at a turn `lookup` does not
// know (deleted) and at a cycle, which a damaged store could hold.
QList<Run> conversationBefore(const Run &run,
                              const std::function<std::optional<Run>(const QString &)> &lookup);

// The turns after `run` in its conversation, oldest first: the follow-ups made from it and, in
// turn, from those (Run::parentId). `order` lists every run oldest first (a follow-up is always
// created after its parent, so one pass finds them all); `parentOf` answers a run's parentId
// without loading its output, `lookup` gives a turn in full.
QList<Run> conversationAfter(const Run &run, const QStringList &order,
                             const std::function<QString(const QString &)> &parentOf,
                             const std::function<std::optional<Run>(const QString &)> &lookup);

// Drops user info and the values of query items whose names look like credentials
// (key, token, secret, password, sig, signature, code…).
QString redactUrl(const QString &text);

} // namespace Runwatch
