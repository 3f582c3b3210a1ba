#!/usr/bin/env bash
# Tests the Debian packages of scripts/package.sh the way a user gets them, and the other
# platforms' installer configuration as far as this machine can:
#   contents   control fields (version, shlibdeps + plugin dependencies, Recommends), the file list,
#              stripped and hardened (RELRO, BIND_NOW, PIE) binaries
#   tree       the unpacked packages: desktop-file-validate, appstreamcli validate-tree, man pages
#              rendered with warnings on, changelog and copyright
#   lintian    every error and warning fails
#   nsis       CPack generates the Windows installer script and makensis compiles it
#   install    a clean Debian 12 root (mmdebstrap, the machine's own Debian mirror): apt installs
#              both packages with their dependencies; --version of the three programs, a CLI store,
#              the GUI in demo mode under Xvfb, a CLI run against runwatch-sim, then purge and
#              check nothing of ours is left
# Every tool it needs is in scripts/setup-deps.sh; a missing one fails the test. Needs root for the
# clean root (CI runs as root). Scratch files live in the build tree and are removed on success.
#
#   scripts/package-test.sh [STAGE...]     default: contents tree lintian nsis install
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${RUNWATCH_BUILD_DIR:-$root/build}" && pwd)"
dist="$root/dist"
stages=("$@")
[ ${#stages[@]} -eq 0 ] && stages=(contents tree lintian nsis install)

die() { echo "package-test.sh: FAIL: $*" >&2; exit 1; }
[ -f "$build/CMakeCache.txt" ] || die "no build in $build (scripts/test.sh, then scripts/package.sh)"
for tool in dpkg-deb file readelf lintian desktop-file-validate appstreamcli groff man python3 \
    mmdebstrap makensis cpack; do
    command -v "$tool" >/dev/null || die "$tool is missing (scripts/setup-deps.sh installs it)"
done
version="$(sed -n 's/^CMAKE_PROJECT_VERSION:[A-Z]*=//p' "$build/CMakeCache.txt")"
arch="$(dpkg --print-architecture)"
app_deb="$dist/runwatch_${version}_${arch}.deb"
sim_deb="$dist/runwatch-sim_${version}_${arch}.deb"
[ -f "$app_deb" ] && [ -f "$sim_deb" ] || die "$app_deb or $sim_deb missing: run scripts/package.sh"

tmp="$(mktemp -d "$build/package-test.XXXXXX")"
chmod 755 "$tmp" # apt in the new root downloads as the unprivileged _apt user
keep_tmp=1
cleanup() { if [ "$keep_tmp" = 0 ]; then rm -rf "$tmp"; else echo "package-test.sh: scratch kept in $tmp" >&2; fi; }
trap cleanup EXIT

summary=()
run_stage() {
    local name="$1" start=$SECONDS
    echo "=== package-test: $name"
    "stage_$name"
    summary+=("$name: ok ($((SECONDS - start)) s)")
}

field() { dpkg-deb -f "$1" "$2"; }
expect_field() { # deb, field, extended regex
    local value
    value="$(field "$1" "$2")"
    [[ "$value" =~ $3 ]] || die "$(basename "$1"): $2 is '$value', expected /$3/"
}

stage_contents() {
    expect_field "$app_deb" Package '^runwatch$'
    expect_field "$sim_deb" Package '^runwatch-sim$'
    for deb in "$app_deb" "$sim_deb"; do
        expect_field "$deb" Version "^${version//./\\.}$"
        expect_field "$deb" Architecture "^$arch$"
        expect_field "$deb" Maintainer '^[^<]+ <[^@> ]+@[^> ]+>$'
        expect_field "$deb" Depends 'libqt6core6'
        expect_field "$deb" Depends 'libqt6network6'
        expect_field "$deb" Depends 'libc6 \(>='
    done
    # shlibdeps finds the libraries; the SQLite driver is a plugin it cannot see.
    expect_field "$app_deb" Depends 'libqt6widgets6'
    expect_field "$app_deb" Depends 'qt6keychain|libqt6keychain'
    expect_field "$app_deb" Depends 'libqt6sql6-sqlite'
    expect_field "$app_deb" Recommends 'gnome-keyring'
    expect_field "$app_deb" Recommends 'qt6-wayland'
    expect_field "$app_deb" Recommends 'libqt6sql6-psql'
    # The simulator links no client and no GUI code.
    if field "$sim_deb" Depends | grep -Eq 'libqt6widgets6|libqt6gui6|keychain'; then
        die "runwatch-sim depends on GUI or keychain libraries: $(field "$sim_deb" Depends)"
    fi

    local app_id=io.github.runwatch.Runwatch
    check_files "$app_deb" \
        ./usr/bin/runwatch ./usr/bin/runwatch-cli \
        "./usr/share/applications/$app_id.desktop" "./usr/share/metainfo/$app_id.metainfo.xml" \
        "./usr/share/icons/hicolor/scalable/apps/$app_id.svg" \
        ./usr/share/man/man1/runwatch.1.gz ./usr/share/man/man1/runwatch-cli.1.gz \
        ./usr/share/doc/runwatch/copyright ./usr/share/doc/runwatch/changelog.gz
    check_files "$sim_deb" \
        ./usr/bin/runwatch-sim ./usr/share/man/man1/runwatch-sim.1.gz \
        ./usr/share/doc/runwatch-sim/copyright ./usr/share/doc/runwatch-sim/changelog.gz
}

check_files() { # deb, every file it must hold (and nothing else)
    local deb="$1"
    shift
    local expected actual
    expected="$(printf '%s\n' "$@" | sort)"
    actual="$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' | sort)"
    [ "$expected" = "$actual" ] || die "$(basename "$deb") holds:
$actual
expected:
$expected"
    # Owned by root, no group- or world-writable file or directory.
    if dpkg-deb -c "$deb" | awk '$2 != "root/root" || substr($1, 6, 1) == "w" || substr($1, 9, 1) == "w"' | grep -q .; then
        die "$(basename "$deb") has wrong owners or permissions:
$(dpkg-deb -c "$deb")"
    fi
}

stage_tree() {
    local tree="$tmp/tree"
    mkdir -p "$tree"
    dpkg-deb -x "$app_deb" "$tree"
    dpkg-deb -x "$sim_deb" "$tree"
    for exe in "$tree"/usr/bin/*; do
        local info
        info="$(file -b "$exe")"
        [[ "$info" == *", stripped"* ]] || die "$exe is not stripped: $info"
        [[ "$info" == *"pie executable"* ]] || die "$exe is not PIE: $info"
        readelf -lW "$exe" | grep -q GNU_RELRO || die "$exe has no RELRO segment"
        readelf -dW "$exe" | grep -Eq 'BIND_NOW|FLAGS.*NOW' || die "$exe is not linked with -z now"
    done
    desktop-file-validate "$tree"/usr/share/applications/*.desktop
    appstreamcli validate-tree --no-net "$tree"
    python3 "$root/tests/packaging/check_packaging.py" man "$version" "$tree"/usr/share/man/man1/*.1.gz
    for pkg in runwatch runwatch-sim; do
        local top
        top="$(zcat "$tree/usr/share/doc/$pkg/changelog.gz" | head -n 1)"
        [[ "$top" == "$pkg ($version) "* ]] || die "$pkg changelog starts with '$top', not version $version"
        head -n 1 "$tree/usr/share/doc/$pkg/copyright" |
            grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' ||
            die "$pkg copyright is not machine-readable (DEP-5)"
    done
}

stage_lintian() {
    # lintian refuses nothing as root but says so; the verdict is its exit status.
    lintian --fail-on error,warning --display-level '>=warning' --tag-display-limit 0 "$app_deb" "$sim_deb"
}

stage_nsis() {
    # Windows binaries cannot be built here; CPack still writes the real installer script (pages,
    # Start-menu entry, uninstaller, icon) around this build's files and makensis must compile it.
    (cd "$build" && cpack -G NSIS -B "$tmp/nsis" >"$tmp/nsis.log" 2>&1) || {
        cat "$tmp/nsis.log"
        die "cpack -G NSIS failed"
    }
    local nsi exe
    nsi="$(find "$tmp/nsis" -name project.nsi | head -n 1)"
    exe="$(find "$tmp/nsis" -maxdepth 1 -name "runwatch-$version-*.exe" | head -n 1)"
    [ -n "$nsi" ] && [ -n "$exe" ] || die "no NSIS script or installer written (see $tmp/nsis.log)"
    for needle in 'MUI_PAGE_LICENSE' 'CreateShortCut "$SMPROGRAMS\$STARTMENU_FOLDER\Runwatch.lnk"' \
        'WriteUninstaller' 'runwatch.ico'; do
        grep -qF "$needle" "$nsi" || die "the NSIS script lacks $needle"
    done
    rm -rf "$tmp/nsis"
}

# The machine's own Debian 12 archive lines (deb822 .sources and one-line .list files).
debian_mirrors() {
    {
        grep -hsE '^[[:space:]]*deb[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list || true
        for f in /etc/apt/sources.list.d/*.sources; do
            [ -f "$f" ] || continue
            awk 'function flush() { if (types ~ /(^| )deb( |$)/ && enabled != "no")
                                      for (i = 1; i <= nu; i++) for (j = 1; j <= ns; j++)
                                          print "deb " u[i] " " s[j] " " comps;
                                    types = ""; enabled = ""; comps = ""; nu = 0; ns = 0 }
                 /^[[:space:]]*$/ { flush(); next }
                 /^Types:/ { sub(/^Types:[[:space:]]*/, ""); types = $0 }
                 /^Enabled:/ { enabled = $2 }
                 /^URIs:/ { nu = split(substr($0, 6), u, " ") }
                 /^Suites:/ { ns = split(substr($0, 8), s, " ") }
                 /^Components:/ { sub(/^Components:[[:space:]]*/, ""); comps = $0 }
                 END { flush() }' "$f"
        done
    } | sed -E 's/[[:space:]]+/ /g; s/^ //' | awk '$3 ~ /^bookworm/' | sort -u
}

stage_install() {
    local -a mirrors
    mapfile -t mirrors < <(debian_mirrors)
    [ ${#mirrors[@]} -gt 0 ] || die "no Debian 12 (bookworm) archive in /etc/apt/sources.list*"
    printf 'mirror: %s\n' "${mirrors[@]}"
    mkdir -p "$tmp/debs"
    cp "$app_deb" "$sim_deb" "$tmp/debs/"
    cp "$root/scripts/package-test-inside.sh" "$tmp/debs/inside.sh"
    # x11-utils: xwininfo, to see the app's window; xvfb: the X server it runs on.
    mmdebstrap --variant=apt --include=xvfb,x11-utils,procps \
        --customize-hook='mkdir -p "$1/tmp/debs"' \
        --customize-hook="cp -a '$tmp/debs/.' \"\$1/tmp/debs/\"" \
        --customize-hook="chroot \"\$1\" env RUNWATCH_VERSION='$version' bash /tmp/debs/inside.sh" \
        bookworm "$tmp/root" "${mirrors[@]}"
    rm -rf "$tmp/root"
}

for s in "${stages[@]}"; do
    declare -F "stage_$s" >/dev/null || die "unknown stage $s"
    run_stage "$s"
done
keep_tmp=0
echo
echo "package-test: all passed"
printf '  %s\n' "${summary[@]}"
