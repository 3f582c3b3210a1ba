// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace Runwatch {

// qHash(text, QHashSeed::globalSeed()), the same value, for a hot path that hashes a string per
// item and goes on with other string work (the reducer's SecondaryIndex, A2A's repeat filter).
//
// Why not qHash() itself: Qt 6.4's string hash runs AES instructions on 256-bit registers and
// returns with their upper halves in use. On the x86 VMs here the next SSE instruction outside
// it (a QString copy, say) then pays for that state: a hash and a copy took 170 ns where each
// alone takes 10-16 ns, about a tenth of a new A2A item's whole cost (issue 25). This clears the
// upper halves (VZEROUPPER) after the hash where the CPU has them: 20 ns for both.
size_t seededStringHash(const QString &text);

} // namespace Runwatch
