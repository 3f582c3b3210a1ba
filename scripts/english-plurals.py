#!/usr/bin/env python3
# Fills the unfinished plural forms of the English catalog (resources/translations/runwatch_en.ts,
# plural messages only: English is the source language, so "%n run(s)" needs its two forms
# "%n run" / "%n runs" from a catalog). Regular sources are filled by rule: the first "(s)" after
# %n is dropped for one and becomes "s" for many. Irregular ones are listed below; a source that
# fits neither is reported and left unfinished, so tst_translations fails until it is added here.
#
#   scripts/english-plurals.py [TS-FILE]   (default: resources/translations/runwatch_en.ts)
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

IRREGULAR = {
    "%n tries failed in a row: %1": ("%n try failed: %1", "%n tries failed in a row: %1"),
    "Cancel %n runs?": ("Cancel %n run?", "Cancel %n runs?"),
    "Delete %n runs?": ("Delete %n run?", "Delete %n runs?"),
    "…and %n more": ("…and %n more", "…and %n more"),
    ", %n already attached": (", %n already attached", ", %n already attached"),
    "%n without a price": ("%n without a price", "%n without a price"),
    "%n tool calls are pending: give one output per call id.": (
        "%n tool call is pending: give one output for it.",
        "%n tool calls are pending: give one output per call id.",
    ),
}


def forms(source):
    if source in IRREGULAR:
        return IRREGULAR[source]
    at = source.find("%n")
    cut = source.find("(s)", at) if at >= 0 else -1
    if cut < 0:
        return None
    return source[:cut] + source[cut + 3 :], source[:cut] + "s" + source[cut + 3 :]


def main():
    root = Path(__file__).resolve().parent.parent
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else root / "resources/translations/runwatch_en.ts"
    tree = ET.parse(path)
    left = []
    for message in tree.iter("message"):
        translation = message.find("translation")
        if message.get("numerus") != "yes" or translation.get("type") != "unfinished":
            continue
        source = message.find("source").text
        both = forms(source)
        if not both:
            left.append(source)
            continue
        for child in list(translation):
            translation.remove(child)
        for text in both:
            ET.SubElement(translation, "numerusform").text = text
        del translation.attrib["type"]
    tree.write(path, encoding="utf-8", xml_declaration=True)
    for source in left:
        print(f"english-plurals.py: no rule for {source!r}: add it to IRREGULAR", file=sys.stderr)
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
