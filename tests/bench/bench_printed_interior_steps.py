#!/usr/bin/env python3
"""bench_printed_interior_steps.py - where the dome rule loses the printed interior
scenes' centres, scene by scene over seed sets (issue 13; docs/paper-figures.md,
h44d). Asserts nothing.

Why: h43o's bench_interior_seeds --halftone P counts the printed interior's
misses; this says at which step each scene-seed's centres went astray. It
runs bench_centre_steps --interior N SEED halftone=P (the replay of the
rule's first pass: candidates, refined circles, the formation's offset and
its trials, the base fit; and the same path with the refinement off) and
bench_sem_split --true (D from the rule's centres and from the TRUE
centres), and prints one line per scene-seed: the centres' mean error along
the detector's axis (px, + towards it) after each step, the rule's final
along (% of the pitch) and across (px), the unrefined path's final, and the
two D errors. Where the replay does not reproduce the rule (h43j's refused
rule or h44d's coarse-screen choice took the other path) only the rule's
final centres are printed.

h45d: where the rule kept the unrefined path, its own steps (candidates,
base circle, offset read, after it, after its second look under a coarse
screen, base fit) are printed on the line marked "unrefined".

Usage: bench_printed_interior_steps.py [--halftone P] [--seeds 0,4000,...]
[--scenes 0,1,...] [--build DIR] (defaults: 5, the 8 seed sets 0..28000,
all 14 scenes, build). SEM_SCENE_CACHE shares the renders (about 1 s a
scene-seed with them cached).
"""
import argparse
import os
import re
import subprocess
import sys

NUM = r"([+-]?[\d.]+)"


def mean_along(line):
    m = re.search(r"mean\s+" + NUM + r" px along, mean\s+" + NUM + r" across", line)
    return (float(m.group(1)), float(m.group(2))) if m else (None, None)


def steps(build, scene, seed, halftone):
    out = subprocess.run([os.path.join(build, "bench", "bench_centre_steps"), "--interior", str(scene), str(seed),
                          "halftone=%d" % halftone], capture_output=True, text=True, check=True).stdout
    r = {"blk": 0}
    for line in out.splitlines():
        m = re.search(r"pitch ([\d.]+) px", line)
        if m:
            r["pitch"] = float(m.group(1))
        b = r["blk"]
        if "candidates (template" in line:
            r["cand"] = mean_along(line)[0]
        elif "refined + base circle" in line:
            r["refined"] = mean_along(line)[0]
        elif "offset's trials" in line:
            m = re.search(r"trials: (\d+) of (\d+) kept", line)
            r["trials%d" % b] = (int(m.group(1)), int(m.group(2)))
        elif "formation fit:" in line:
            m = re.search(r"= " + NUM + r" along, applied (\d), moved (\d+), R\^2 ([\d.]+)", line)
            r["fit%d" % b] = (float(m.group(1)), float(m.group(4)))
        elif "after the common offset" in line:
            r["offset%d" % b] = mean_along(line)[0]
        elif "after the base fit" in line:
            r["base%d" % b] = mean_along(line)[0]
        elif "same with the refinement off" in line:
            r["blk"] = 1
        elif "replay with the refinement off = rule" in line:
            r["blk"] = 1  # (h45d: the rule kept the unrefined path)
            r["unrefined_rule"] = 1
        elif "base circle, no refinement" in line:
            r["ubase"] = mean_along(line)[0]
        elif "after the offset looked for again" in line:
            r["again"] = mean_along(line)[0]
        elif "final centres" in line:
            r["final"], r["across"] = mean_along(line)
    return r


def split(build, seed, halftone, scenes):
    out = subprocess.run([os.path.join(build, "bench", "bench_sem_split"), "--true", "--set", "halftone=%d" % halftone,
                          "--seed-add", str(seed)] + ["i%d" % k for k in scenes],
                         capture_output=True, text=True, check=True).stdout
    d = {}
    for line in out.splitlines():
        f = line.split()
        if f and re.match(r"^i\d+$", f[0]) and len(f) >= 14:
            d[int(f[0][1:])] = (float(f[7]), float(f[13]))
    return d


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--halftone", type=int, default=5)
    ap.add_argument("--seeds", default="0,4000,8000,12000,16000,20000,24000,28000")
    ap.add_argument("--scenes", default=",".join(str(k) for k in range(14)))
    ap.add_argument("--build", default="build")
    a = ap.parse_args()
    seeds = [int(s) for s in a.seeds.split(",")]
    scenes = [int(s) for s in a.scenes.split(",")]
    print("scene@seed pitch | along px: candidates refined offset(read px, moved/n, R^2) after-offset base-fit | "
          "final along px (% pitch) across px | unrefined: moved/n R^2 final px (% pitch) | D % rule, true centres")
    for seed in seeds:
        d = split(a.build, seed, a.halftone, scenes)
        for k in scenes:
            r = steps(a.build, k, seed, a.halftone)
            p = r.get("pitch", float("nan"))
            D, Dt = d.get(k, (float("nan"), float("nan")))
            head = "i%-2d@%-5d %5.1f |" % (k, seed, p)
            tail = "| %+6.1f %+5.1f" % (D, Dt)
            fin = "%+5.2f (%+5.1f) %+5.2f" % (r["final"], 100 * r["final"] / p, r["across"])
            if r.get("unrefined_rule"):
                t1, f1 = r["trials1"], r["fit1"]
                print("%s %+5.2f unrefined %+5.2f (%+5.2f, %3d/%3d, %.3f) %+5.2f again %+5.2f %+5.2f | %s %s" %
                      (head, r["cand"], r["ubase"], f1[0], t1[0], t1[1], f1[1], r["offset1"],
                       r.get("again", float("nan")), r["base1"], fin, tail))
                continue
            if "fit0" not in r:
                print("%s %+5.2f (the replay is not the rule's path) | %s %s" % (head, r["cand"], fin, tail))
                continue
            t0, f0 = r["trials0"], r["fit0"]
            t1, f1 = r.get("trials1", (0, 0)), r.get("fit1", (float("nan"), float("nan")))
            b1 = r.get("base1", float("nan"))
            print("%s %+5.2f %+5.2f (%+5.2f, %3d/%3d, %.3f) %+5.2f %+5.2f | %s | %3d/%3d %.3f %+5.2f (%+5.1f) %s" %
                  (head, r["cand"], r["refined"], f0[0], t0[0], t0[1], f0[1], r["offset0"], r["base0"], fin, t1[0],
                   t1[1], f1[1], b1, 100 * b1 / p, tail))
    return 0


if __name__ == "__main__":
    sys.exit(main())
