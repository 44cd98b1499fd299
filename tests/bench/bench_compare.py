#!/usr/bin/env python3
"""Benchmark of the Compare API through nginx (printed, not asserted):
"all Base sets of my images" with 200 sets of 400 tubercles each (target:
GET /api/compare?my_base_sets=1 within 1 s), the same with the three
drawings (svg=1), the chart as SVG and PNG, the table as CSV: median wall
time, the FastCGI workers' CPU time (steadier on a shared machine) and the
size of each answer, over 5 requests.
"""
import json
import math
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from harness import Server, unique_png, upload_image  # noqa: E402

N_SETS = 200
SIDE = 20  # 20 x 20 = 400 tubercles per set


def jitter(k, pitch):
    """A deterministic offset of up to 4 % of the pitch: measured centres are
    never exactly on a lattice (an exact one makes every Delaunay test a tie)."""
    return pitch * 0.04 * (((k * 2654435761) % 1000) / 500.0 - 1)


def lattice(r_px, pitch):
    tub, edges = [], []
    for j in range(SIDE):
        for i in range(SIDE):
            k = len(tub)
            tub.append({"id": k + 1, "centroid_x": 10 + i * pitch + (j % 2) * pitch / 2 + jitter(2 * k, pitch),
                        "centroid_y": 10 + j * pitch * math.sqrt(3) / 2 + jitter(2 * k + 1, pitch),
                        "radius_px": r_px * (1 + 0.05 * (((i * 7 + j * 3) % 5) - 2)), "circularity": 1})
    for k, a in enumerate(tub):
        i, j = k % SIDE, k // SIDE
        for di, dj in ((1, 0), (0, 1), (-1, 1) if j % 2 == 0 else (1, 1)):
            ii, jj = i + di, j + dj
            if 0 <= ii < SIDE and 0 <= jj < SIDE:
                edges.append({"id1": a["id"], "id2": jj * SIDE + ii + 1})
    return tub, edges


def workers_cpu(srv):
    """CPU seconds (user + system) the FastCGI workers have used so far."""
    total = 0
    for pid in srv.worker_pids():
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def timed(srv, c, path, n=5):
    times, body = [], b""
    cpu0 = workers_cpu(srv)
    for _ in range(n):
        t0 = time.perf_counter()
        r = c.get(path)
        times.append(time.perf_counter() - t0)
        assert r.status == 200, (path, r.status, r.text[:200])
        body = r.body
    return statistics.median(times) * 1000, (workers_cpu(srv) - cpu0) * 1000 / n, len(body)


def main():
    srv = Server(env={"FISHSCALE_FCGI_WORKERS": "4"}).start()
    try:
        c = srv.client()
        c.login()
        t0 = time.perf_counter()
        for k in range(N_SETS):
            image = upload_image(c, data=unique_png(440, 400), filename="cmp-%03d.png" % k)["image"]
            r = c.api("POST", "/api/images/%d/calibration" % image["id"], {"um_per_px": 0.1 + 0.001 * k,
                                                                           "method": "direct"})
            assert r.status == 200, r.text
            tub, edges = lattice(6 + (k % 7) * 0.5, 21)
            doc = {"format": "fish-scale-annotations", "version": "3.0",
                   "sets": [{"id": "s", "name": "Measured", "tubercles": tub, "edges": edges}]}
            r = c.api("POST", "/api/images/%d/import" % image["id"], None, body=json.dumps(doc).encode(),
                      headers={"Content-Type": "application/json"})
            assert r.status == 201, r.text
            base = c.get("/api/images/%d/sets" % image["id"]).json()["sets"][0]
            # the measured set becomes the image's first ("Base") set
            r = c.api("DELETE", "/api/sets/%d?revision=%d" % (base["id"], base["revision"]))
            assert r.status == 200, r.text
        print("compare: set-up of %d images with %d tubercles each: %.1f s" % (N_SETS, SIDE * SIDE,
                                                                               time.perf_counter() - t0))
        j = c.get("/api/compare?my_base_sets=1").json()
        assert len(j["sets"]) == N_SETS and all(s["statistics"]["n_tubercles"] == SIDE * SIDE for s in j["sets"])
        for label, path, target in (
                ("GET /api/compare?my_base_sets=1", "/api/compare?my_base_sets=1", " (target < 1000 ms)"),
                ("  with the three drawings (svg=1)", "/api/compare?my_base_sets=1&svg=1", ""),
                ("GET /api/compare/chart.svg (all parts)", "/api/compare/chart.svg?my_base_sets=1", ""),
                ("GET /api/compare/chart.svg?parts=main", "/api/compare/chart.svg?my_base_sets=1&parts=main", ""),
                ("GET /api/compare/chart.png?parts=main (scale 2)",
                 "/api/compare/chart.png?my_base_sets=1&parts=main", ""),
                ("GET /api/compare/chart.png (all parts)", "/api/compare/chart.png?my_base_sets=1", ""),
                ("GET /api/compare/table.csv", "/api/compare/table.csv?my_base_sets=1", "")):
            ms, cpu, size = timed(srv, c, path)
            print("compare %d sets: %s: %.0f ms (CPU %.0f ms), %.0f kB%s" % (N_SETS, label, ms, cpu, size / 1024,
                                                                          target))
    finally:
        srv.cleanup()


if __name__ == "__main__":
    main()
