#!/usr/bin/env python3
# clang-tidy over the tree's translation units, each one only when its input changed since it
# was last found clean (scripts/quality.sh's tidy stage; the idea of ctcache).
#
#   scripts/tidy-run.py ROOT DB JOBS [--no-cache]
#
# A translation unit's key is a SHA-256 of everything its findings can depend on: the
# clang-tidy version, every .clang-tidy file of the tree, the unit's compile command and its
# preprocessed text (clang's own -E, so headers and macros count as clang sees them), with the
# checkout and build paths written as @ROOT@ so that a key made in one clone holds in another.
# Only a unit whose run reported no finding is recorded as clean, in .ci/tidy-clean (one key and
# path a line, sorted: a change in review shows which units were re-checked). CI starts from the
# committed file, so it analyses only what changed since the last full run that recorded it;
# a key it does not find means a full analysis of that unit, never a skip. --no-cache checks
# every unit and rewrites the file from scratch.
#
# Exit status: 0 when no unit has findings, 1 otherwise (findings printed, paths relative).
import concurrent.futures
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys

TIDY = "clang-tidy-14"
CLANG = "clang++-14"
FINDING = re.compile(r"^/.*: (warning|error): ")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def main():
    root, db, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    use_cache = "--no-cache" not in sys.argv[4:]
    root = os.path.realpath(root)
    cache_path = os.path.join(root, ".ci", "tidy-clean")
    units = [e for e in json.load(open(os.path.join(db, "compile_commands.json")))
             if re.match(r"^" + re.escape(root) + r"/(app|core|sim|tests|ui)/.*\.cpp$", e["file"])]
    units.sort(key=lambda e: e["file"])

    version = subprocess.run([TIDY, "--version"], capture_output=True, text=True, check=True).stdout
    configs = ""
    for folder, _, files in sorted(os.walk(root)):
        rel = os.path.relpath(folder, root)
        if rel.startswith(("build", ".git", "node_modules")) or "/node_modules" in rel:
            continue
        if ".clang-tidy" in files:
            configs += rel + "\n" + open(os.path.join(folder, ".clang-tidy")).read()

    clean = {}
    if use_cache and os.path.exists(cache_path):
        for line in open(cache_path):
            parts = line.split()
            if len(parts) == 2:
                clean[parts[0]] = parts[1]

    def normalized(text):
        return text.replace(root, "@ROOT@")

    def key_of(entry):
        args = shlex.split(entry["command"])
        # The compiler and output go; clang preprocesses with the flags clang-tidy is given.
        flags, skip = [], False
        for a in args[1:]:
            if skip:
                skip = False
                continue
            if a in ("-o", "-c"):
                skip = a == "-o"
                continue
            flags.append(a)
        pre = subprocess.run([CLANG, "-E"] + flags, cwd=entry["directory"], capture_output=True, text=True)
        if pre.returncode != 0:
            return None  # clang-tidy will say why
        h = hashlib.sha256()
        for part in (version, configs, normalized(" ".join(flags)), normalized(pre.stdout)):
            h.update(part.encode())
            h.update(b"\0")
        return h.hexdigest()

    def check(entry):
        rel = os.path.relpath(entry["file"], root)
        key = key_of(entry)
        if key is not None and clean.get(key) == rel:
            return rel, key, None, True
        run = subprocess.run([TIDY, "-p", db, "--quiet", "-header-filter=^" + root + "/(app|core|sim|tests|ui)/",
                              entry["file"]], capture_output=True, text=True)
        out = ANSI.sub("", run.stdout + run.stderr)
        findings = sorted({l.replace(root + "/", "") for l in out.splitlines() if FINDING.match(l)})
        if run.returncode != 0 and not findings:
            findings = [rel + ": clang-tidy failed (exit %d):" % run.returncode] + out.splitlines()[-20:]
        return rel, key, findings, False

    # The cache is written as units finish, not only at the end: a run stopped halfway (a machine
    # shared with builds can take an hour) keeps what it found clean, and the next run resumes.
    # Entries of the old file stay until the end, where only this run's clean units are kept.
    new_clean, all_findings, reused, done = {}, [], 0, 0

    def save(entries):
        os.makedirs(os.path.dirname(cache_path), exist_ok=True)
        tmp = cache_path + ".tmp"
        with open(tmp, "w") as f:
            for key, rel in sorted(entries.items(), key=lambda kv: (kv[1], kv[0])):
                f.write("%s %s\n" % (key, rel))
        os.replace(tmp, cache_path)

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for rel, key, findings, cached in pool.map(check, units):
            done += 1
            if cached:
                reused += 1
            if not findings and key is not None:
                new_clean[key] = rel
            if not cached:
                # Progress and findings as they come (a CI log cut at its tail still shows them).
                print("tidy: [%d/%d] %s%s" % (done, len(units), rel, " (findings)" if findings else ""),
                      flush=True)
                for line in findings or []:
                    print("    " + line, flush=True)
                if use_cache:
                    save({**clean, **new_clean})
            all_findings += findings or []

    save(new_clean)
    print("tidy: %d units, %d analysed, %d unchanged since found clean (.ci/tidy-clean)"
          % (len(units), len(units) - reused, reused))
    for line in sorted(set(all_findings)):
        print("  " + line)
    if all_findings:
        print("tidy: %d findings" % len(set(all_findings)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
