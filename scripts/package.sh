#!/usr/bin/env bash
# Builds the Debian packages from an existing build (the one scripts/test.sh made and tested):
#   dist/runwatch_<version>_<arch>.deb      the desktop app and runwatch-cli
#   dist/runwatch-sim_<version>_<arch>.deb  the protocol simulator
# No second compile: CPack installs the build's programs, strips them and computes the library
# dependencies with dpkg-shlibdeps. The build must carry Debian's hardening flags, as
# scripts/build.sh (and so test.sh and run.sh) configures it; otherwise this script refuses.
#
#   scripts/package.sh            build dir: $RUNWATCH_BUILD_DIR or ./build
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${RUNWATCH_BUILD_DIR:-$root/build}" && pwd)"
dist="$root/dist"

die() { echo "package.sh: $*" >&2; exit 1; }
[ -f "$build/CPackConfig.cmake" ] || die "$build is not a configured build; run scripts/test.sh (or build.sh) first"
for tool in cpack dpkg-shlibdeps dpkg-deb; do
    command -v "$tool" >/dev/null || die "$tool is missing (scripts/setup-deps.sh installs it)"
done
cache_value() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
case "$(cache_value CMAKE_CXX_FLAGS)" in
    *_FORTIFY_SOURCE=*-fstack-protector-strong*) ;;
    *) die "the build in $build lacks the dpkg-buildflags hardening flags; configure it with scripts/build.sh" ;;
esac
case "$(cache_value CMAKE_EXE_LINKER_FLAGS)" in
    *-z,relro*-z,now*) ;;
    *) die "the build in $build links without -z relro -z now; configure it with scripts/build.sh" ;;
esac
[ "$(cache_value CMAKE_BUILD_TYPE)" != Debug ] || die "refusing to package a Debug build"

# Up to date already after scripts/test.sh; this only builds what is missing.
cmake --build "$build" --target runwatch runwatch-cli runwatch-sim runwatch_packaging_files

work="$build/cpack-deb"
rm -rf "$work"
(cd "$build" && cpack -G DEB -B "$work" >"$build/cpack-deb.log" 2>&1) || {
    cat "$build/cpack-deb.log" >&2
    die "cpack failed"
}
mkdir -p "$dist"
version="$(cache_value CMAKE_PROJECT_VERSION)"
arch="$(dpkg --print-architecture)"
for pkg in runwatch runwatch-sim; do
    deb="$work/${pkg}_${version}_${arch}.deb"
    [ -f "$deb" ] || die "cpack did not write $(basename "$deb") (see $build/cpack-deb.log)"
    cp "$deb" "$dist/"
    echo "$dist/$(basename "$deb")"
done
