#!/usr/bin/env python3
"""Peak memory of every path a large upload takes on the site (issue 15
item 1; printed, not asserted): per image, the import job (decoding, the
working image, display copies, pyramid, the scale region cached), the
data-bar reader (build/fishscale-databar run again on the image under
/usr/bin/time), the scale region route, an extraction job, the overlay
download, the CSV and JSON exports, an analysed point, the transform jobs
(rotate, crop, autocrop, undo) and a Re-measure (a job over
sync_max_pixels, of the extracted set marked as measured before
versioning, so that every diameter is measured and stored). A job's
figure is its own result.peak_rss_mb; a request's is the VmHWM of the
site's one FastCGI worker, started afresh just before the request (what an
earlier request left in a worker's heap would count otherwise). CPU is
user + system of the process that ran it. MB here are MiB.

Images: FS_BENCH_PATHS_IMAGES (colon-separated paths; default
/work/large10k.tif when present) and a generated 6144 x 4096 16-bit TIFF
(a lattice of disks, uncompressed) unless FS_BENCH_PATHS_NO16=1.
FS_BENCH_PATHS_SKIP: comma-separated steps to skip (extract, transforms,
exports, remeasure)."""
import os
import re
import signal
import sqlite3
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
import harness  # noqa: E402
from harness import ROOT, Server  # noqa: E402
from test_images import upload  # noqa: E402
from support_images import lattice_spans  # noqa: E402

class _PatientConnection(harness.http.client.HTTPConnection):
    """The requests answered in place on a 100 MP image (the upload, the
    overlay and the exports of 70,000 tubercles) can take longer under load
    than the harness's 60 s; a Re-measure over sync_max_pixels is a job
    (h24b) and only its submission is a request."""

    def __init__(self, host, port=None, timeout=None, **kw):
        super().__init__(host, port, timeout=1800, **kw)


harness.http.client.HTTPConnection = _PatientConnection

SKIP = set(filter(None, os.environ.get("FS_BENCH_PATHS_SKIP", "").split(",")))


def tiff16_lattice(path, w, h, pitch=40.0, radius=12.0):
    """An uncompressed 16-bit grey TIFF of bright disks on a dark surface,
    written a row at a time (one strip per 64 rows)."""
    rows_per_strip = 64
    n_strips = (h + rows_per_strip - 1) // rows_per_strip
    tags = []
    with open(path, "wb") as f:
        f.write(b"II*\x00" + struct.pack("<I", 0))  # IFD offset patched below
        offsets, counts = [], []
        for s in range(n_strips):
            offsets.append(f.tell())
            data = bytearray()
            for y in range(s * rows_per_strip, min(h, (s + 1) * rows_per_strip)):
                row = [9000 + (y * 7) % 97] * w
                for a, b in lattice_spans(y, w, pitch, radius):
                    for x in range(a, b + 1):
                        row[x] = 52000 + (x * 13) % 211
                data += struct.pack("<%dH" % w, *row)
            counts.append(len(data))
            f.write(data)
        arr_off = f.tell()
        f.write(struct.pack("<%dI" % n_strips, *offsets))
        cnt_off = f.tell()
        f.write(struct.pack("<%dI" % n_strips, *counts))
        ifd = f.tell()
        tags = [(256, 4, 1, w), (257, 4, 1, h), (258, 3, 1, 16), (259, 3, 1, 1), (262, 3, 1, 1),
                (273, 4, n_strips, arr_off), (277, 3, 1, 1), (278, 4, 1, rows_per_strip),
                (279, 4, n_strips, cnt_off)]
        f.write(struct.pack("<H", len(tags)))
        for tag, typ, n, v in tags:
            f.write(struct.pack("<HHII", tag, typ, n, v))
        f.write(struct.pack("<I", 0))
        f.seek(4)
        f.write(struct.pack("<I", ifd))


def wait_job(c, job_id, timeout=3600):
    t_end = time.time() + timeout
    while time.time() < t_end:
        j = c.api("GET", "/api/jobs/%d" % job_id).json()["job"]
        if j["state"] not in ("queued", "starting", "running"):
            return j
        time.sleep(0.05)
    raise RuntimeError("job %d did not finish" % job_id)


def hwm_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        return int(re.search(r"VmHWM:\s+(\d+)", f.read()).group(1))


def cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        parts = f.read().rsplit(")", 1)[1].split()
    return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")


class Worker:
    """The site's one FastCGI worker: a request's peak and CPU. The worker
    is replaced by a fresh one before each request (the supervisor starts
    another when one dies), so the peak is the request's own, not memory an
    earlier request left in the worker's heap."""

    def __init__(self, srv):
        self.srv = srv

    def fresh(self):
        old = set(self.srv.worker_pids())
        for p in old:
            os.kill(p, signal.SIGKILL)
        t_end = time.time() + 60
        while time.time() < t_end:
            now = set(self.srv.worker_pids())
            if now and not now & old:
                return sorted(now)
            time.sleep(0.02)
        raise RuntimeError("no fresh worker")

    def measure(self, what, fn):
        pids = self.fresh()
        c0 = sum(cpu_s(p) for p in pids)
        t0 = time.time()
        r = fn()
        wall = time.time() - t0
        peak = max(hwm_kb(p) for p in pids) / 1024.0
        cpu = sum(cpu_s(p) for p in pids) - c0
        print("  %-34s peak %7.1f MB  CPU %6.2f s  wall %6.2f s  -> %s" %
              (what, peak, cpu, wall, getattr(r, "status", r)))
        sys.stdout.flush()
        return r


def job_line(what, j, wall):
    res = j.get("result") or {}
    print("  %-34s peak %7.1f MB  CPU %6.2f s  wall %6.2f s  (job's own) -> %s %s" %
          (what, res.get("peak_rss_mb", float("nan")), res.get("cpu_s", float("nan")), wall, j["state"],
           j.get("error") or ""))
    sys.stdout.flush()
    return res


def run_image(srv, c, path):
    name = os.path.basename(path)
    print("%s (%.1f MB)" % (name, os.path.getsize(path) / 1048576.0))
    with open(path, "rb") as f:
        data = f.read()
    w = Worker(srv)
    t0 = time.time()
    r = w.measure("upload request", lambda: upload(c, data, name))
    del data
    if r.status == 202:
        j = wait_job(c, r.json()["job"]["id"])
        res = job_line("upload + import job", j, time.time() - t0)
        iid = res.get("image_id") or (res.get("image") or {}).get("id")
    else:
        assert r.status == 201, r.text
        iid = r.json()["image"]["id"]
        print("  upload (synchronous)")
    im = c.api("GET", "/api/images/%d" % iid).json()["image"]
    print("  image %d: %d x %d" % (iid, im["width"], im["height"]))
    # a pixel size, so that the point analysis and Re-measure run
    r = c.api("POST", "/api/images/%d/calibration" % iid, {"um_per_px": 0.4})
    assert r.status == 200, r.text
    # the data-bar reader, again on the same image, under /usr/bin/time
    exe = os.path.join(ROOT, "build", "fishscale-databar")
    out = subprocess.run(["/usr/bin/time", "-f", "TIME %U %S %M", exe, "--run", str(iid), "--root", ROOT],
                         env=srv.env, capture_output=True, text=True, timeout=3600)
    m = re.search(r"TIME (\S+) (\S+) (\d+)", out.stderr)
    if m:
        print("  %-34s peak %7.1f MB  CPU %6.2f s  (exit %d)" %
              ("data-bar reader", int(m.group(3)) / 1024.0, float(m.group(1)) + float(m.group(2)), out.returncode))
    w.measure("scale region (GET, cached)", lambda: c.api("GET", "/api/images/%d/scale_region" % iid).status)
    sets = c.api("GET", "/api/images/%d/sets" % iid).json()["sets"]
    s = sets[0]
    if "extract" not in SKIP:
        t0 = time.time()
        r = c.api("POST", "/api/sets/%d/extract" % s["id"], {"revision": s["revision"]})
        if r.status == 202:
            j = wait_job(c, r.json()["job"]["id"])
            job_line("extraction job", j, time.time() - t0)
        else:
            print("  extraction (synchronous) -> %d" % r.status)
        s = c.api("GET", "/api/images/%d/sets" % iid).json()["sets"][0]
    w.measure("overlay.png", lambda: c.api("GET", "/api/sets/%d/overlay.png" % s["id"]).status)
    if "exports" not in SKIP:
        for ex in ("tubercles.csv", "edges.csv", "summary.csv", "export.json"):
            w.measure(ex, lambda ex=ex: c.api("GET", "/api/sets/%d/%s" % (s["id"], ex)).status)
    w.measure("analyze-point", lambda: c.api(
        "POST", "/api/sets/%d/analyze-point" % s["id"],
        {"x": im["width"] / 2, "y": im["height"] / 2}).status)
    if "transforms" not in SKIP:
        steps = [("rotate left", "/api/images/%d/rotate" % iid, {"direction": "left"}),
                 ("crop", "/api/images/%d/crop" % iid,
                  {"x": 16, "y": 16, "width": im["height"] - 64, "height": im["width"] - 64}),
                 ("autocrop", "/api/images/%d/autocrop" % iid, {}),
                 ("undo", "/api/images/%d/transforms/undo" % iid, {})]
        for what, p, body in steps:
            cur = c.api("GET", "/api/images/%d" % iid).json()["image"]
            body = dict(body, revision=cur.get("revision", 0))
            t0 = time.time()
            r = c.api("POST", p, body)
            if r.status == 202:
                j = wait_job(c, r.json()["job"]["id"])
                job_line(what + " job", j, time.time() - t0)
            else:
                print("  %-34s -> %d %s" % (what, r.status, r.text[:200]))
    # Re-measure: the set as if measured before versioning, so that the job
    # measures and stores every diameter (a job over sync_max_pixels)
    if "remeasure" not in SKIP:
        con = sqlite3.connect(srv.db_path(), timeout=30)
        con.execute("UPDATE sets SET measurement_version = 0 WHERE id = ?", (s["id"],))
        con.commit()
        con.close()
        rev = c.api("GET", "/api/sets/%d/revision" % s["id"]).json()["revision"]
        t0 = time.time()
        r = w.measure("remeasure request", lambda: c.api("POST", "/api/sets/%d/remeasure" % s["id"],
                                                         {"revision": rev}))
        if r.status == 202:
            j = wait_job(c, r.json()["job"]["id"])
            res = job_line("remeasure job", j, time.time() - t0)
            print("  %-34s %s tubercles, %s changed, write lock %s ms, estimate %.0f MB" % (
                "", res.get("n_tubercles"), res.get("n_changed"), res.get("write_lock_ms"),
                j.get("memory_mb", float("nan"))))
        else:
            print("  remeasure (synchronous) -> %d %s" % (r.status, r.text[:200]))


def main():
    images = [p for p in os.environ.get("FS_BENCH_PATHS_IMAGES", "/work/large10k.tif").split(":")
              if p and os.path.exists(p)]
    tmp = tempfile.mkdtemp(prefix="fs-paths-")
    if os.environ.get("FS_BENCH_PATHS_NO16") != "1":
        p16 = os.path.join(tmp, "lattice6144x4096_16bit.tif")
        tiff16_lattice(p16, 6144, 4096)
        images.append(p16)
    srv = Server(env={"FISHSCALE_FCGI_WORKERS": "1", "FISHSCALE_UPLOAD_MAX_MB": "400",
                      "FISHSCALE_JOBS_MEMORY_MB": "16000"}).start()
    try:
        c = srv.login_as("admin")
        for p in images:
            run_image(srv, c, p)
    finally:
        for p in srv.worker_pids():  # a Re-measure may still be computing
            os.kill(p, signal.SIGKILL)
        srv.cleanup()
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)


if __name__ == "__main__":
    main()
