#!/usr/bin/env python3
"""The large-set downloads (issue 15; printed, not asserted): for a set of
about 70,000 tubercles (the 10000 x 10000 bench image extracted by a job),
each download's peak RSS of the FastCGI worker that served it (VmHWM of a
worker started afresh just before), that worker's CPU, the wall time to
the last byte, the answer's size, and how many GET /api/health a second
client got answered meanwhile (slowest of them) - whether a download holds
the site. The downloads stream (cgi/app/http.h): the worker's peak is the
set's rows plus a chunk, not the answer.

Image: FS_BENCH_EXPORTS_IMAGE (default /work/large10k.tif; without it a
10000 x 10000 lattice PNG of pitch 40 from support_images.py, the same
number of tubercles).

FS_BENCH_EXPORTS_COMPARE=ROOT: then stops the site and serves the same
data directory with the build at ROOT (a checkout of another commit with
its build/), measures the same downloads and compares them byte for byte
(the annotation file's document "created" and "modified" lines, which are
the time of the download, left out), e.g. before/after a change of the
writers. FS_BENCH_EXPORTS_SAVE=DIR keeps the answers that differ there.
MB here are MiB."""
import hashlib
import os
import re
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
sys.path.insert(0, HERE)
import harness  # noqa: E402
from harness import Server  # noqa: E402
from support_images import lattice_png  # noqa: E402
from test_images import upload  # noqa: E402
# a worker's peak and CPU, a job's end, and the harness's connections
# patient enough for 100 MP downloads (importing it sets them)
from bench_paths_memory import cpu_s, hwm_kb, wait_job  # noqa: E402


DOC_TIMES = re.compile(rb'^\t"(created|modified)":\t"[^"]*",\n', re.M)


def fresh_workers(srv):
    old = set(srv.worker_pids())
    for p in old:
        harness.kill_process(p, "fishscale.fcgi")
    t_end = time.time() + 60
    while time.time() < t_end:
        now = set(srv.worker_pids())
        if len(now) >= 2 and not now & old:
            return sorted(now)
        time.sleep(0.02)
    raise RuntimeError("no fresh workers")


def prepare(srv, c):
    path = os.environ.get("FS_BENCH_EXPORTS_IMAGE", "/work/large10k.tif")
    if os.path.exists(path):
        with open(path, "rb") as f:
            data = f.read()
        name = os.path.basename(path)
    else:
        data, name = lattice_png(10000, 10000), "lattice10k.png"
    r = upload(c, data, name)
    del data
    if r.status == 202:
        j = wait_job(c, r.json()["job"]["id"])
        res = j.get("result") or {}
        iid = res.get("image_id") or (res.get("image") or {}).get("id")
    else:
        assert r.status == 201, r.text
        iid = r.json()["image"]["id"]
    # a pixel size, so that every µm column is written
    assert c.api("POST", "/api/images/%d/calibration" % iid, {"um_per_px": 0.4}).status == 200
    s = c.api("GET", "/api/images/%d/sets" % iid).json()["sets"][0]
    r = c.api("POST", "/api/sets/%d/extract" % s["id"], {"revision": s["revision"]})
    if r.status == 202:
        j = wait_job(c, r.json()["job"]["id"])
        assert j["state"] == "done", j
    else:
        assert r.status == 200, r.text
    n = c.api("GET", "/api/sets/%d/revision" % s["id"]).status
    assert n == 200
    return name, iid, s["id"]


def downloads(iid, sid, until):
    return [("set export.json", "/api/sets/%d/export.json" % sid),
            ("image export.json", "/api/images/%d/export.json" % iid),
            ("tubercles.csv", "/api/sets/%d/tubercles.csv" % sid),
            ("edges.csv", "/api/sets/%d/edges.csv" % sid),
            ("summary.csv (not streamed)", "/api/sets/%d/summary.csv" % sid),
            ("GET set (rows)", "/api/sets/%d" % sid),
            ("GET set (columns)", "/api/sets/%d?layout=columns" % sid),
            ("log export.jsonl", "/api/log/export.jsonl?until=%d" % until)]


def health_meanwhile(srv, stop, out):
    c = srv.client()
    while not stop.is_set():
        t0 = time.time()
        r = c.get("/api/health")
        out.append((time.time() - t0, r.status))
        time.sleep(0.05)


def measure(srv, c, what, path):
    pids = fresh_workers(srv)
    base = {p: cpu_s(p) for p in pids}
    stop, seen = threading.Event(), []
    th = threading.Thread(target=health_meanwhile, args=(srv, stop, seen))
    th.start()
    t0 = time.time()
    r = c.get(path)
    wall = time.time() - t0
    stop.set()
    th.join()
    peak = max(hwm_kb(p) for p in pids) / 1024.0
    cpu = sum(cpu_s(p) - base[p] for p in pids)
    ok = [s for s, st in seen if st == 200]
    print("  %-28s %3d  %7.1f MB  peak %6.1f MB  CPU %5.2f s  wall %5.2f s  health %d/%d answered, slowest %.0f ms" %
          (what, r.status, len(r.body) / 1048576.0, peak, cpu, wall, len(ok), len(seen),
           1000 * max(ok) if ok else float("nan")))
    sys.stdout.flush()
    body = DOC_TIMES.sub(b"", r.body) if "export.json" in path else r.body
    return body


def run(srv, c, iid, sid, until, label):
    print(label)
    return {what: measure(srv, c, what, p) for what, p in downloads(iid, sid, until)}


def main():
    srv = Server(env={"FISHSCALE_FCGI_WORKERS": "2", "FISHSCALE_UPLOAD_MAX_MB": "400",
                      "FISHSCALE_JOBS_MEMORY_MB": "16000"}).start()
    other = os.environ.get("FS_BENCH_EXPORTS_COMPARE")
    try:
        c = srv.login_as("admin")
        name, iid, sid = prepare(srv, c)
        n = len(c.get("/api/sets/%d?layout=columns" % sid).json()["tubercles"]["id"])
        until = int(time.time()) + 1
        time.sleep(1.1)  # the downloads' own events come after `until`
        print("%s: set %d, %d tubercles; each download on a fresh worker (2 workers)" % (name, sid, n))
        mine = run(srv, c, iid, sid, until, "this build (%s)" % harness.ROOT)
        if other:
            srv.stop()
            srv.env["FISHSCALE_ROOT"] = other
            out = subprocess.run(["sh", os.path.join(other, "tools", "run.sh"), "--detach"], env=srv.env,
                                 capture_output=True, text=True, timeout=120)
            assert out.returncode == 0, out.stdout + out.stderr
            c = srv.login_as("admin")
            theirs = run(srv, c, iid, sid, until, "the build at " + other)
            save = os.environ.get("FS_BENCH_EXPORTS_SAVE")
            for what in mine:
                same = mine[what] == theirs[what]
                print("  %-28s %s (%d bytes, sha256 %s)" % (what, "identical" if same else "DIFFERENT",
                                                           len(mine[what]),
                                                           hashlib.sha256(mine[what]).hexdigest()[:16]))
                if not same and save:
                    os.makedirs(save, exist_ok=True)
                    stem = re.sub(r"\W+", "_", what)
                    for tag, body in (("this", mine[what]), ("other", theirs[what])):
                        with open(os.path.join(save, "%s.%s" % (stem, tag)), "wb") as f:
                            f.write(body)
    finally:
        srv.cleanup()


if __name__ == "__main__":
    main()
