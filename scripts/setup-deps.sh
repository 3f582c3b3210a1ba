#!/usr/bin/env bash
# Installs the Debian 12 packages Runwatch needs to build, test and run. Idempotent: does nothing
# when everything is already there. Uses sudo when not run as root.
set -euo pipefail

packages=(
    # build
    cmake ninja-build g++ pkg-config lld   # lld: links the ~100 test programs 4x faster than ld
    qt6-base-dev qt6-base-dev-tools libqt6sql6-sqlite libqt6sql6-psql libgl-dev
    qcoro-qt6-dev qtkeychain-qt6-dev qt6-svg-dev qt6-tools-dev qt6-tools-dev-tools
    qt6-l10n-tools qt6-translations-l10n   # lupdate/lrelease; Qt's own catalogs (qtbase_de)
    # tests and quality gates; postgresql: the store tests' throwaway cluster (tests/common/teststore.h);
    # openssl: the CA and server certificate of the team store's TLS test (tst_teamstore_cli)
    postgresql openssl
    xvfb xauth dbus dbus-x11 gnome-keyring python3-dbusmock
    at-spi2-core   # the AT-SPI bus and registry: tst_announcements reads announcements as Orca would
    clang-14 libclang-rt-14-dev clang-format clang-tidy
    # packages and their checks (scripts/package.sh, scripts/package-test.sh, tests/packaging)
    dpkg-dev file binutils python3 lintian desktop-file-utils appstream groff man-db mmdebstrap nsis
    flatpak-builder binutils-mingw-w64-x86-64 mingw-w64-x86-64-dev
)

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi
echo "Installing: ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
