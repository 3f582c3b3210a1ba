// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/pricetable.h"
#include "domain/run.h"

#include <QByteArray>
#include <QUrl>

namespace Runwatch {

enum class ExportFormat { Markdown, Json };

// A run as a document an operator can file or share: prompt, status history, primary output,
// secondary items and error. Secrets never appear: runs hold no keys, and URLs are redacted
// (redactUrl) because a base URL may carry user info or a key in its query. The token usage is
// included as reported (JSON: null where not reported); the cost when `prices` prices its model.
QByteArray exportRun(const Run &run, ExportFormat format, const PriceTable &prices = {});

// Drops user info and the values of query items whose names look like credentials
// (key, token, secret, password, sig, signature, code…).
QString redactUrl(const QString &text);

} // namespace Runwatch
