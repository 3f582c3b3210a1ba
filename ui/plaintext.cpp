// SPDX-License-Identifier: GPL-3.0-or-later
#include "plaintext.h"

using namespace Qt::StringLiterals;

namespace Runwatch {

QString plainToolTip(const QString &text)
{
    if (text.isEmpty())
        return {};
    return u"<p style='white-space:pre-wrap'>"_s + text.toHtmlEscaped() + u"</p>"_s;
}

} // namespace Runwatch
