// SPDX-License-Identifier: GPL-3.0-or-later
// pch_test.h and Qt Widgets, for the tests of the desktop app (target runwatch_test_gui_pch):
// a widget test parsed these for a third of its compile. A target of its own because Qt Test's
// headers read QT_GUI_LIB and QT_WIDGETS_LIB: a header precompiled without them is refused by
// a test defined with them (-Winvalid-pch), and the other way round.
#include "pch_test.h"

#include <QtWidgets>
