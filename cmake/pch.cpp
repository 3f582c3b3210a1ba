// SPDX-License-Identifier: GPL-3.0-or-later
// The one source of target runwatch_pch, which exists to build cmake/pch.h once for every target.
