#!/usr/bin/env python3
"""Checks the layering of lib/: every #include "..." in lib/<folder>/ names a
folder ("analysis/detect.h") that is the file's own or one below it in LAYERS,
and the header exists. An include that goes upward (or sideways to a folder
not below) would close a cycle between folders, so none is allowed. Prints
each violation and ends with one line "N passed, N failed" (one check per
folder)."""
import os
import re
import sys

# Bottom to top: a folder may include its own headers and those of the
# folders before it. DEVELOPERS.md has the same map in words.
LAYERS = ["base", "image", "analysis", "store", "web", "agent"]
# Generated at build time, outside lib/: the only include without a folder.
GENERATED = {("base", "fs_build_info.h"), ("analysis", "fs_reference_conf.h")}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    lib = os.path.join(root, "lib")
    problems = {f: [] for f in LAYERS}
    for entry in sorted(os.listdir(lib)):
        path = os.path.join(lib, entry)
        if os.path.isfile(path):
            print("lib/%s: a file at the top of lib/ (each belongs to a subsystem folder)" % entry)
            problems.setdefault("(top)", []).append(entry)
        elif entry not in LAYERS:
            print("lib/%s/: a folder that is not in LAYERS of tools/check_layers.py" % entry)
            problems.setdefault(entry, []).append(entry)
    for folder in LAYERS:
        allowed = LAYERS[: LAYERS.index(folder) + 1]
        d = os.path.join(lib, folder)
        for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if not name.endswith((".c", ".h")):
                continue
            text = open(os.path.join(d, name), encoding="utf-8").read()
            for n, inc in enumerate(INCLUDE.findall(text)):
                where = "lib/%s/%s" % (folder, name)
                if (folder, inc) in GENERATED:
                    continue
                parts = inc.split("/")
                if len(parts) != 2:
                    problems[folder].append(inc)
                    print('%s: #include "%s" does not name a lib/ folder' % (where, inc))
                    continue
                if parts[0] not in allowed:
                    problems[folder].append(inc)
                    up = parts[0] in LAYERS
                    print('%s: #include "%s" %s' % (
                        where, inc,
                        "goes upward (%s may use %s)" % (folder, ", ".join(allowed)) if up
                        else "is not a lib/ folder"))
                    continue
                if not os.path.isfile(os.path.join(lib, inc)):
                    problems[folder].append(inc)
                    print('%s: #include "%s": no such header' % (where, inc))
    failed = sum(1 for v in problems.values() if v)
    passed = len(problems) - failed
    print("layers: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
