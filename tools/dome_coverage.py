#!/usr/bin/env python3
"""Which lines of the dome rule's code the accuracy guards reach (h38u).

A change in code that no guard runs passes every guard unjudged (h38r: a
gate in the whole-image first pass printed nothing under test_sem_accuracy
and test_paper_images). This builds the unit tests with gcov in a build
directory of its own (never build/), runs the guards each under its own
GCOV_PREFIX so a line's count is known per test, and prints per function
of the dome rule's files the lines no test reached, and which tests reach
the function at all. Evidence only: not part of make test.

  python3 tools/dome_coverage.py                 # build, run, report
  python3 tools/dome_coverage.py --all-unit      # and which other tests reach the rest
  python3 tools/dome_coverage.py --no-build --no-run --all-unit --markdown   # report again

Use a fresh build directory, or delete its libfishscale.a after changing
a source: the Makefile's .SECONDARY keeps an archive whose objects were
deleted, so a removed object is not rebuilt. SEM_SCENE_CACHE is passed on
(the scenes' renders are not what is measured).

Lines are gcc -O2's (the guards' own optimisation: at -O0 the scenes take
several times longer); a line folded into another by the optimiser shows
with its neighbour's count, so read a range, not a single line. A line
whose text is an error report or an out-of-memory branch is marked "err".
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GUARDS = ["test_sem_accuracy", "test_paper_images", "test_detect_domes_tiled", "test_sem_smooth"]
# the dome rule's files in lib/analysis (globs)
FILES = ["detect.c", "detect_measure.c", "detect_base_fit.c", "detect_domes_tiled.c", "detect_offset.c", "dome_*.c", "base_*.c",
         "centre_*.c", "detect_cand_*.c"]
ERR = re.compile(r"snprintf\(err|out of memory|return -1;|goto (out|fail|done|bad|oom)\b|errno|ENOMEM")
# lines that only tidy up after an error (a range of these and ERR lines is an error path)
TIDY = re.compile(r"^(\{|\}|break;|rc = -1;|(fs_image_)?free\w*\(.*\);|[a-z_]+ = NULL;|\w*\(?\"|[a-z_]+\);?)$")


def err_kind(lines):
    """"err" when every line of the range reports or tidies up after an
    error, "err?" when only some do (read those by eye), "" otherwise."""
    body = [ln.strip() for ln in lines if ln.strip() and not ln.strip().startswith(("/*", "*"))]
    hits = [bool(ERR.search(ln)) for ln in body]
    if not any(hits):
        return ""
    return "(err)" if all(h or TIDY.match(ln) for h, ln in zip(hits, body)) else "(err?)"
FLAGS = "-std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -fno-strict-aliasing --coverage"


def sources():
    out = []
    for g in FILES:
        out += sorted(glob.glob(os.path.join(ROOT, "lib/analysis", g)))
    return sorted(set(out))


def build(bdir, tests, all_unit):
    targets = ["unit-bin"] if all_unit else [f"{bdir}/tests/analysis/{t}" for t in tests]
    subprocess.run(["nice", "make", "-j2", f"BUILD={bdir}", f"CFLAGS_BASE={FLAGS}",
                    "LINK_FLAGS=--coverage -fuse-ld=gold"] + targets, cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)


def others(bdir, guards):
    """Every other unit binary of the build (the make accuracy tables'
    decomposition and oracle left out: minutes of CPU, and they measure the
    simulator's information, not the rule's code paths)."""
    skip = set(guards) | {"test_sem_decompose", "test_sem_oracle"}
    return sorted(os.path.relpath(t, os.path.join(ROOT, bdir, "tests"))
                  for t in glob.glob(os.path.join(ROOT, bdir, "tests/*/test_*"))
                  if os.path.basename(t) not in skip and os.access(t, os.X_OK))


def run(bdir, out, tests):
    for t in tests:
        name = os.path.basename(t)
        pre = os.path.join(out, name)
        shutil.rmtree(pre, ignore_errors=True)
        env = dict(os.environ, GCOV_PREFIX=pre)
        exe = os.path.join(ROOT, bdir, "tests", t if "/" in t else "analysis/" + t)
        with open(os.path.join(out, name + ".log"), "w") as log:
            rc = subprocess.call(["nice", exe], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        print(f"{t}: rc {rc}", file=sys.stderr)


def gcov_json(bdir, out, test, src):
    """One test's counts of one source file, or None if it never ran it."""
    objdir = os.path.join(ROOT, bdir, "lib/analysis")
    name = os.path.splitext(os.path.basename(src))[0]
    ddir = os.path.join(out, test) + objdir
    if not os.path.exists(os.path.join(ddir, name + ".gcda")):
        return None
    shutil.copy(os.path.join(objdir, name + ".gcno"), ddir)  # gcov wants the notes next to the data
    r = subprocess.run(["gcov", "--json-format", "--stdout", "-b", "-o", ddir, src], cwd=out,
                       capture_output=True, text=True)
    files = json.loads(r.stdout)["files"]
    return next((f for f in files if f["file"].endswith(os.path.basename(src))), None)


def ranges(nums):
    nums = sorted(nums)
    out, i = [], 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] <= nums[j] + 2:  # one blank or brace line apart: one range
            j += 1
        out.append(f"{nums[i]}" if i == j else f"{nums[i]}-{nums[j]}")
        i = j + 1
    return out


def report(bdir, out, tests, rest, markdown):
    short = {t: t.replace("test_", "").replace("detect_domes_", "").replace("sem_", "") for t in tests}
    for src in sources():
        per = {t: gcov_json(bdir, out, t, src) for t in tests}
        alt = {t: gcov_json(bdir, out, t, src) for t in rest}
        reach = {}  # line -> the other tests that run it
        for t, f in alt.items():
            for ln in (f or {}).get("lines", []):
                if ln["count"] > 0:
                    reach.setdefault(ln["line_number"], []).append(short.get(t, t.replace("test_", "")))
        any_f = next((f for f in per.values() if f), None)
        if not any_f:
            print(f"\n{os.path.basename(src)}: not run by any test")
            continue
        text = open(src).read().split("\n")
        funcs = sorted(any_f["functions"], key=lambda f: f["start_line"])
        counts = {}  # line -> {test: count}
        branches = {}  # line -> [taken by any test per arc]
        for t, f in per.items():
            for ln in (f or {}).get("lines", []):
                n = ln["line_number"]
                counts.setdefault(n, {})[t] = ln["count"] if f else 0
                arcs = branches.setdefault(n, [False] * len(ln["branches"]))
                for k, b in enumerate(ln["branches"]):
                    if k < len(arcs) and b["count"] > 0:
                        arcs[k] = True
        fentry = {t: {g["name"]: g["execution_count"] for g in (f or {}).get("functions", [])} for t, f in per.items()}
        tot = [0, 0, 0, 0]  # lines; unreached by the guards; of which error paths; of which some other test runs
        print(f"\n{os.path.relpath(src, ROOT)}")
        if markdown:
            print("| function | lines | unreached by the guards | guards that run it | those lines (err: an error/OOM path, err?: partly; [other tests that run them] or [NO TEST]) | arcs never taken |")
            print("|---|---|---|---|---|---|")
        for fn in funcs:
            lines = [n for n in counts if fn["start_line"] <= n <= fn["end_line"]]
            # a nested static inline's lines belong to it, not to its caller: skip lines of later functions
            inner = [g for g in funcs if g is not fn and fn["start_line"] < g["start_line"] <= fn["end_line"]]
            lines = [n for n in lines if not any(g["start_line"] <= n <= g["end_line"] for g in inner)]
            dead = [n for n in lines if all(c == 0 for c in counts[n].values())]
            by = [short[t] for t in tests if fentry[t].get(fn["name"], 0) > 0]
            arcs = sum(sum(1 for a in branches.get(n, []) if not a) for n in lines if n not in dead)
            marks = []
            for r in ranges(dead):
                a, _, b = r.partition("-")
                by_rest = sorted({x for n in range(int(a), int(b or a) + 1) for x in reach.get(n, [])})
                marks.append(r + err_kind(text[int(a) - 1:int(b or a)]) +
                             (f"[{'+'.join(by_rest[:3])}{'+..' if len(by_rest) > 3 else ''}]" if by_rest
                              else ("[NO TEST]" if rest else "")))
            tot[0] += len(lines)
            tot[1] += len(dead)
            tot[2] += sum(1 for n in dead if ERR.search(text[n - 1]) or TIDY.match(text[n - 1].strip()))
            tot[3] += sum(1 for n in dead if n in reach)
            row = [fn["name"], str(len(lines)), str(len(dead)), ",".join(by) or "NONE", " ".join(marks) or "-",
                   str(arcs)]
            print(("| " + " | ".join(row) + " |") if markdown else "  " + "  ".join(row))
        print(f"  total: {tot[0]} lines, {tot[1]} unreached by the guards ({tot[2]} on error/tidy lines, "
              f"{tot[3]} run by another test, {tot[1] - tot[3]} by none)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build-dir", default="build-cov")
    ap.add_argument("--out", default="/tmp/dome_coverage")
    ap.add_argument("--tests", default=",".join(GUARDS))
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--no-run", action="store_true")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--all-unit", action="store_true",
                    help="also run every other unit binary: a line no guard reaches is marked with the tests that"
                         " do, or [NO TEST]")
    a = ap.parse_args()
    if a.build_dir.rstrip("/") == "build":
        sys.exit("dome_coverage: use a build directory of its own (build/ is the tests')")
    tests = a.tests.split(",")
    os.makedirs(a.out, exist_ok=True)
    if not a.no_build:
        build(a.build_dir, tests, a.all_unit)
    rest = others(a.build_dir, tests) if a.all_unit else []
    if not a.no_run:
        run(a.build_dir, a.out, tests + rest)
    report(a.build_dir, os.path.abspath(a.out), tests, [os.path.basename(t) for t in rest], a.markdown)


if __name__ == "__main__":
    main()
