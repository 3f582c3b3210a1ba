#!/usr/bin/env bash
# Brings the translation catalogs up to date with the source: runs lupdate over core/, ui/ and app/
# (every file, including ones added since the last run), so new strings appear as "unfinished" and
# strings that are gone are dropped. Then translate the unfinished ones (Qt Linguist:
# `linguist resources/translations/runwatch_de.ts`, or by hand; the English plural forms with
# scripts/english-plurals.py) and rebuild; tst_translations fails while any message is unfinished.
#
#   scripts/update-translations.sh [TS-FILE...]   (default: every resources/translations/*.ts)
#
# Locations are left out of the .ts on purpose: line numbers change with every edit of a source
# file and would make every catalog update a merge conflict.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
lupdate="${LUPDATE:-}"
if [ -z "${LUPDATE+set}" ]; then
    for candidate in /usr/lib/qt6/bin/lupdate "$(command -v lupdate6 || true)" "$(command -v lupdate || true)"; do
        if [ -n "$candidate" ] && [ -x "$candidate" ]; then
            lupdate="$candidate"
            break
        fi
    done
fi
if [ -z "$lupdate" ] || [ ! -x "$lupdate" ]; then
    echo "update-translations.sh: lupdate not found (Debian: apt install qt6-l10n-tools)" >&2
    exit 1
fi
if [ $# -gt 0 ]; then
    ts_files=("$@")
else
    ts_files=("$root"/resources/translations/*.ts)
fi
cd "$root"
for ts in "${ts_files[@]}"; do
    # English is the source language: its catalog holds only the plural forms ("%n run(s)" reads
    # "1 run", "3 runs"); scripts/english-plurals.py fills new ones.
    extra=()
    case "$(basename "$ts")" in *_en.ts) extra=(-pluralonly) ;; esac
    "$lupdate" -silent -no-obsolete -locations none "${extra[@]}" -extensions cpp,h core ui app -ts "$ts"
done
