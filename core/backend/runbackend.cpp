// SPDX-License-Identifier: GPL-3.0-or-later
#include "runbackend.h"

namespace Runwatch {

void RunStream::finish(StreamEnd end)
{
    if (m_finished)
        return;
    m_finished = true;
    Q_EMIT finished(end);
}

} // namespace Runwatch
