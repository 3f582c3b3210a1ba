#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks of the installer files (packaging/), one ctest each (tests/packaging/CMakeLists.txt).

   check_packaging.py desktop  FILE                 desktop-file-validate, and no field code in Exec
   check_packaging.py metainfo FILE VERSION         appstreamcli validate, newest <release> = VERSION
   check_packaging.py man      VERSION PAGE...      groff -ww and man --warnings print nothing; .TH names VERSION
   check_packaging.py flatpak  MANIFEST             flatpak-builder --show-manifest with no warning; app id,
                                                    KDE 6 runtime, QCoro/QtKeychain modules, only the allowed finish-args
   check_packaging.py plist    INFO_PLIST VERSION   the macOS bundle's Info.plist parses and has what a bundle needs
   check_packaging.py version  VERSION PROGRAM...   every program's --version prints VERSION
   check_packaging.py windows  VERSION RC...        windres (mingw-w64) compiles each version resource

A tool that is missing fails the check (scripts/setup-deps.sh installs them all)."""
import gzip
import json
import os
import plistlib
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

APP_ID = "io.github.runwatch.Runwatch"
failures = []


def fail(message):
    failures.append(message)
    print("FAIL: " + message)


def tool(name):
    path = shutil.which(name)
    if not path:
        fail(f"{name} is not installed (scripts/setup-deps.sh installs it)")
    return path


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, **kw)


def check_desktop(path):
    exe = tool("desktop-file-validate")
    if exe:
        r = run([exe, path])
        # Hints are advice; errors and warnings fail.
        bad = [l for l in (r.stdout + r.stderr).splitlines() if "hint:" not in l and l.strip()]
        if r.returncode != 0 or bad:
            fail("desktop-file-validate: " + "\n".join(bad))
    text = open(path, encoding="utf-8").read()
    execs = re.findall(r"^Exec=(.*)$", text, re.M)
    if not execs:
        fail("no Exec line")
    for line in execs:
        # runwatch exits on any argument it does not know, so a launcher must pass none.
        if re.search(r"%[fFuUdDnNickvm]", line):
            fail(f"Exec has a field code the app does not accept: {line}")
    for key in ("Keywords", "Categories", "Icon"):
        if not re.search(rf"^{key}=.+$", text, re.M):
            fail(f"desktop entry lacks {key}")
    if not re.search(rf"^Icon={re.escape(APP_ID)}$", text, re.M):
        fail(f"Icon is not {APP_ID}")


def check_metainfo(path, version):
    exe = tool("appstreamcli")
    if exe:
        r = run([exe, "validate", "--no-net", "--pedantic", path])
        if r.returncode != 0:
            fail("appstreamcli validate:\n" + r.stdout + r.stderr)
        # Pedantic notes are printed as "P:"; anything else (I/W/E) fails.
        issues = [l for l in r.stdout.splitlines() if re.match(r"^[IWE]: ", l)]
        if issues:
            fail("appstreamcli issues:\n" + "\n".join(issues))
    root = ET.parse(path).getroot()
    if root.findtext("id") != APP_ID:
        fail(f"metainfo id is not {APP_ID}")
    if root.findtext("project_license") != "GPL-3.0-or-later":
        fail("project_license is not GPL-3.0-or-later (the licence of the sources and LICENSE)")
    releases = root.findall("releases/release")
    if not releases or releases[0].get("version") != version:
        fail(f"newest <release> is not {version}")
    shots = root.findall("screenshots/screenshot/image")
    if len(shots) < 2:
        fail("fewer than two screenshots")
    launchable = root.findtext("launchable")
    if launchable != APP_ID + ".desktop":
        fail("launchable is not the desktop entry")


def check_man(version, pages):
    groff = tool("groff")
    man = tool("man")
    for page in pages:
        opener = gzip.open if page.endswith(".gz") else open
        with opener(page, "rt", encoding="utf-8") as f:
            text = f.read()
        th = re.search(r"^\.TH .*$", text, re.M)
        if not th or f"Runwatch {version}" not in th.group(0):
            fail(f"{page}: .TH does not name Runwatch {version}")
        if groff:
            r = run([groff, "-ww", "-man", "-Tutf8", "-z"], input=text)
            if r.returncode != 0 or r.stderr.strip():
                fail(f"{page}: groff -ww:\n{r.stderr}")
        if man:
            r = run([man, "--warnings", "-E", "UTF-8", "-l", page],
                    env={"LC_ALL": "C.UTF-8", "MANWIDTH": "80", "PATH": "/usr/bin:/bin", "MAN_KEEP_STDERR": "1"})
            if r.returncode != 0 or r.stderr.strip():
                fail(f"{page}: man --warnings:\n{r.stderr}")


ALLOWED_FINISH_ARGS = {
    "--share=network", "--socket=wayland", "--socket=fallback-x11", "--share=ipc",
    "--talk-name=org.freedesktop.secrets", "--talk-name=org.freedesktop.Notifications",
}


def check_flatpak(manifest):
    exe = tool("flatpak-builder")
    if not exe:
        return
    # flatpak-builder keeps a state directory (.flatpak-builder) in its working directory.
    with tempfile.TemporaryDirectory() as tmp:
        r = run([exe, "--show-manifest", os.path.abspath(manifest)], cwd=tmp)
    if r.returncode != 0 or r.stderr.strip():
        fail("flatpak-builder --show-manifest:\n" + r.stderr)
        return
    m = json.loads(r.stdout)
    if m.get("id") != APP_ID:
        fail(f"flatpak id is not {APP_ID}")
    if m.get("runtime") != "org.kde.Platform" or m.get("sdk") != "org.kde.Sdk" \
            or not str(m.get("runtime-version", "")).startswith("6."):
        fail("flatpak runtime is not the KDE 6.x runtime")
    if m.get("command") != "runwatch":
        fail("flatpak command is not runwatch")
    names = [mod.get("name") for mod in m.get("modules", []) if isinstance(mod, dict)]
    for needed in ("qcoro", "qtkeychain", "runwatch"):
        if needed not in names:
            fail(f"flatpak module {needed} missing")
    if names and names[-1] != "runwatch":
        fail("runwatch must be the last flatpak module (it needs the others)")
    args = set(m.get("finish-args", []))
    if args - ALLOWED_FINISH_ARGS:
        fail(f"flatpak finish-args beyond network, display, secrets, notifications: {sorted(args - ALLOWED_FINISH_ARGS)}")
    for needed in ("--share=network", "--socket=wayland", "--talk-name=org.freedesktop.secrets",
                   "--talk-name=org.freedesktop.Notifications"):
        if needed not in args:
            fail(f"flatpak finish-args lack {needed}")


def check_plist(path, version):
    try:
        with open(path, "rb") as f:
            p = plistlib.load(f)
    except Exception as e:  # any parse error is the failure this check exists for
        fail(f"{path} does not parse: {e}")
        return
    expect = {
        "CFBundleIdentifier": APP_ID,
        "CFBundleExecutable": "runwatch",
        "CFBundlePackageType": "APPL",
        "CFBundleShortVersionString": version,
        "CFBundleVersion": version,
        "CFBundleIconFile": "runwatch.icns",
        "NSHighResolutionCapable": True,
    }
    for key, value in expect.items():
        if p.get(key) != value:
            fail(f"Info.plist {key} = {p.get(key)!r}, expected {value!r}")
    minimum = p.get("LSMinimumSystemVersion", "")
    if not re.fullmatch(r"\d+(\.\d+)*", str(minimum)):
        fail(f"Info.plist LSMinimumSystemVersion {minimum!r} is not a version")
    for key, value in p.items():
        if isinstance(value, str) and re.search(r"\$\{|@\w+@", value):
            fail(f"Info.plist {key} was not configured: {value}")


def check_windows(version, resources):
    exe = tool("x86_64-w64-mingw32-windres")
    if not exe:
        return
    # mingw-w64's headers with the host preprocessor: no cross compiler needed for a resource.
    argv = [exe, "--preprocessor=cpp", "--preprocessor-arg=-xc", "--preprocessor-arg=-DRC_INVOKED",
            "--preprocessor-arg=-D_WIN32", "--preprocessor-arg=-D_WIN64", "-I", "/usr/share/mingw-w64/include"]
    with tempfile.TemporaryDirectory() as tmp:
        for rc in resources:
            out = os.path.join(tmp, os.path.basename(rc) + ".o")
            r = run(argv + [rc, "-O", "coff", "-o", out])
            if r.returncode != 0:
                fail(f"windres {rc}:\n{r.stderr}")
                continue
            data = open(out, "rb").read()
            for needed in ("ProductVersion", "FileVersion", version, "Runwatch"):
                if needed.encode("utf-16-le") not in data:
                    fail(f"{rc}: the compiled version resource lacks {needed!r}")


def check_version(version, programs):
    for program in programs:
        r = run([program, "--version"], env={"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin"})
        words = r.stdout.split()
        if r.returncode != 0 or version not in words:
            fail(f"{program} --version printed {r.stdout.strip()!r} (exit {r.returncode}), expected {version}")


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    what, args = argv[1], argv[2:]
    {
        "desktop": lambda: check_desktop(args[0]),
        "metainfo": lambda: check_metainfo(args[0], args[1]),
        "man": lambda: check_man(args[0], args[1:]),
        "flatpak": lambda: check_flatpak(args[0]),
        "plist": lambda: check_plist(args[0], args[1]),
        "version": lambda: check_version(args[0], args[1:]),
        "windows": lambda: check_windows(args[0], args[1:]),
    }[what]()
    if failures:
        return 1
    print(f"{what}: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
