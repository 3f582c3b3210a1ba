// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStringView>

// What OutputView's two source files share about the pieces a paragraph is cut into.
namespace Runwatch::OutputCuts {

// QTextBlock::userState() of the piece after a cut: its text goes on the block's before it.
inline constexpr int kCutContinues = 0x43555421;

// Whether anything in `text` reads right to left: a piece cut from such a paragraph would take a
// direction of its own, so it is left whole.
bool readsRightToLeft(QStringView text);

} // namespace Runwatch::OutputCuts
