#!/usr/bin/env bash
# Configures and builds Runwatch into ./build (or $RUNWATCH_BUILD_DIR). Extra arguments go to cmake
# after ours, so they win.
#
# Every entry point configures through here with the same flags: scripts/run.sh, scripts/test.sh and
# the build scripts/package.sh packages. One set of flags means one build: running run.sh, then test.sh
# (or the other way round) compiles once, not twice. The flags:
#  - Debian's hardening flags (dpkg-buildflags, hardening=+all), because scripts/package.sh ships
#    this very build: CI packages what it tested, with no second compile;
#  - warnings as errors (-DRUNWATCH_WERROR=ON), as CI builds.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${RUNWATCH_BUILD_DIR:-$root/build}"
flags=(-DRUNWATCH_WERROR=ON)
if command -v dpkg-buildflags >/dev/null; then
    # Asked from the source root whatever directory the caller is in: dpkg-buildflags maps the
    # current directory out of the debug paths (-ffile-prefix-map), so every caller gets one set.
    buildflag() { (cd "$root" && DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get "$1"); }
    flags+=("-DCMAKE_CXX_FLAGS=$(buildflag CPPFLAGS) $(buildflag CXXFLAGS)"
        "-DCMAKE_EXE_LINKER_FLAGS=$(buildflag LDFLAGS)")
fi
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-RelWithDebInfo}" "${flags[@]}" "$@"
cmake --build "$build" -j"$(nproc)"
