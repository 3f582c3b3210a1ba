// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "domain/heavyframes.h"

#include <QElapsedTimer>
#include <QList>
#include <QTimer>

namespace RunwatchTest {

// Another heavy chore of the test's thread (HeavyFrames): it claims a frame every 20 ms, which
// leaves a gap of 3 ms between its frames, and remembers when its claims succeeded. A chore under
// test that claims its frames never starts within one of these.
class OtherHeavyChore final
{
public:
    OtherHeavyChore()
    {
        m_clock.start();
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(20);
        QObject::connect(&m_timer, &QTimer::timeout, [this] {
            if (Runwatch::HeavyFrames::claim())
                m_claims << m_clock.elapsed();
        });
        m_timer.start();
    }

    // Milliseconds since the test started it.
    qint64 now() const { return m_clock.elapsed(); }
    void stop() { m_timer.stop(); }
    qsizetype claims() const { return m_claims.size(); }
    // How long before `at` (a now()) this chore's last frame began; a second if it had none.
    qint64 sinceItsFrame(qint64 at) const
    {
        qint64 last = at - 1000;
        for (const qint64 claim : m_claims) {
            if (claim <= at)
                last = claim;
        }
        return at - last;
    }

private:
    QElapsedTimer m_clock;
    QTimer m_timer;
    QList<qint64> m_claims;
};

} // namespace RunwatchTest
