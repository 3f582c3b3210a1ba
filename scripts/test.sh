#!/usr/bin/env bash
# The whole test suite on a fresh Debian 12 machine: installs what is missing, builds, runs ctest.
# The build carries Debian's hardening flags (dpkg-buildflags, hardening=+all) because
# scripts/package.sh ships this very build: CI packages what it tested, with no second compile.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup-deps.sh"
"$root/scripts/setup-test-peers.sh" # the official A2A SDK agent, openai and @azure/ai-agents clients (npm)
cd "$root" # dpkg-buildflags maps this directory out of the debug paths (-ffile-prefix-map)
export DEB_BUILD_MAINT_OPTIONS=hardening=+all
cxxflags="$(dpkg-buildflags --get CPPFLAGS) $(dpkg-buildflags --get CXXFLAGS)"
ldflags="$(dpkg-buildflags --get LDFLAGS)"
"$root/scripts/build.sh" -DRUNWATCH_WERROR=ON "-DCMAKE_CXX_FLAGS=$cxxflags" "-DCMAKE_EXE_LINKER_FLAGS=$ldflags"
build="${RUNWATCH_BUILD_DIR:-$root/build}"
cd "$build"
QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j"$(nproc)" "$@"
