// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace Runwatch {

// A tooltip is shown as rich text whenever Qt::mightBeRichText() guesses so, and a run's title,
// a server's status or message can look like markup ("<b>", "<img src=…>"). Text that may come
// from a server goes into tooltips through this: escaped, in a paragraph that keeps its line
// breaks, so it always shows as the characters it is. (Labels get Qt::PlainText instead.)
QString plainToolTip(const QString &text);

} // namespace Runwatch
