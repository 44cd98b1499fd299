#!/usr/bin/env python3
"""Large images through the web API (issue 15; printed, not asserted):
- a 10000x10000 8-bit lattice of about 72,000 tubercles uploaded: the
  upload's answer (202, the import job) and the import job to its end;
- its extraction as a background job, from the request to the finished
  result (target < 3 s on a quiet machine);
- four such extractions submitted at once by four users (jobs_max_running
  4): GET /api/health p50/p99 (target p99 < 20 ms) and edits of another
  user's small set p50/p99 (target p99 < 50 ms) while they run, the
  errors seen (target none) and the longest time one of their results held
  SQLite's write lock (the jobs' result.write_lock_ms: the longest of the
  short transactions a staged result is written in, staged_blob.h; target
  < 200 ms).
  Before the jobs, the same probes with no job running (the baseline, in
  the same conditions); per edit, what the FastCGI workers spent on a core
  and runnable but waiting for one (/proc/PID/schedstat), the rest being
  sleep (SQLite's write lock, I/O); the edits that fell while a job stored
  its result apart from the others; each job thread's nice value and
  scheduling policy and the workers'; the jobs' peak RSS.
The extraction alone and again over its result: median of FS_BENCH_RUNS
(default 5; 0 skips it) runs, each into a set of its own, and where the
jobs' time went (their results' phases: each stage and store step's wall
time, time on a core and runnable waiting for one, the medians).
FS_BENCH_ROUNDS=N repeats the baseline and the four at once N times
(default 1), running the shell command FS_BENCH_ROUND_HOOK (if set) before
each with FS_BENCH_ROUND=k in its environment: an A/B of two builds of
build/fishscale-job, alternated round by round under the same load.
Set FS_BENCH_QUICK=1 for a 4000x4000 image instead.
FS_BENCH_JOBS_MAX_RUNNING sets the site's jobs_max_running (default 4, so
that the four run at once; 0 is the shipped default, cores - 1): a job
computes in the cores shared out among them (job_control.h), so the
extraction alone is a default site's figure with 0 (two threads on two
cores), and FS_BENCH_ROUNDS=0 then leaves out the four at once."""
import os
import sys
import subprocess
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from harness import Server  # noqa: E402
from support_images import lattice_png  # noqa: E402
from test_images import png_gray, upload  # noqa: E402

SIDE = 4000 if os.environ.get("FS_BENCH_QUICK") else 10000
# issue 15's figures are medians of 5 runs
_runs = os.environ.get("FS_BENCH_RUNS", "")
RUNS = int(_runs) if _runs.isdigit() and 0 <= int(_runs) <= 9 else 5  # 0: four at once only


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))] if v else float("nan")


def median(v):
    v = sorted(v)
    n = len(v)
    return (v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2) if v else float("nan")


def fmt_ms(v):
    """Lock times of the runs: their median, and each."""
    v = [x for x in v if isinstance(x, (int, float))]
    return "%.0f (median; each %s)" % (median(v), ", ".join("%.0f" % x for x in v)) if v else "?"


def wait_job(c, job_id, timeout=900, stages=None):
    """Polls the job to its end; with stages (a list), appends (seconds since
    the call, state/stage) each time the job's state or stage changes."""
    t0 = time.time()
    t_end = t0 + timeout
    last = None
    while time.time() < t_end:
        j = c.api("GET", "/api/jobs/%d" % job_id).json()["job"]
        now = "%s/%s" % (j["state"], j.get("stage") or "")
        if stages is not None and now != last:
            stages.append((time.time() - t0, now))
            last = now
        if j["state"] not in ("queued", "starting", "running"):
            return j
        time.sleep(0.02)
    raise RuntimeError("job %d did not finish" % job_id)


def print_stages(stages, t_total):
    """Each stage seen while polling and how long it lasted (to the next one;
    the poll's 20 ms interval is the resolution)."""
    for k, (t, name) in enumerate(stages):
        end = stages[k + 1][0] if k + 1 < len(stages) else t_total
        if k + 1 < len(stages):
            print("    %-22s from %6.2f s, %6.2f s" % (name, t, end - t))


def print_phases(results, indent="    "):
    """Where the jobs' time went, from their results' phases (the job's own
    clocks, base/phase_clock.h): per phase the median over the runs of the
    wall time, the time on a core and runnable waiting for one (ms); the
    rest of the wall time the job was blocked (I/O, pauses, locks). Also
    the spawn (from the request's job row to the job's process)."""
    names, by = [], {}
    for r in results:
        for p in r.get("phases") or []:
            if p["phase"] not in by:
                names.append(p["phase"])
                by[p["phase"]] = []
            by[p["phase"]].append(p)
    if not names:
        return
    cols = []
    for n in names:
        v = by[n]
        w, c = median([p["wall_ms"] for p in v]), median([p["cpu_ms"] for p in v])
        rq = [p["runq_ms"] for p in v if "runq_ms" in p]
        cols.append("%s %.0f/%.0f/%s" % (n, w, c, "%.0f" % median(rq) if rq else "?"))
    spawn = [r["spawn_ms"] for r in results if isinstance(r.get("spawn_ms"), (int, float))]
    print("%sphases (median of %d; wall/on a core/waiting for one, ms): spawn %s; %s" %
          (indent, len(results), "%.0f" % median(spawn) if spawn else "?", ", ".join(cols)))
    cpu = [r["cpu_s"] for r in results if isinstance(r.get("cpu_s"), (int, float))]
    if cpu:
        print("%sthe job's CPU time: %.2f s (median; each %s)" % (indent, median(cpu), ", ".join("%.2f" % x for x in cpu)))


_rounds = os.environ.get("FS_BENCH_ROUNDS", "")
ROUNDS = int(_rounds) if _rounds.isdigit() and 0 <= int(_rounds) <= 20 else 1  # baseline + four at once, repeated
_max_running = os.environ.get("FS_BENCH_JOBS_MAX_RUNNING", "")
MAX_RUNNING = _max_running if _max_running.isdigit() else "4"
BASELINE_EDITS = 150  # edits probed with no job running, as many as four jobs' time usually holds
POLICIES = {0: "SCHED_OTHER", 3: "SCHED_BATCH", 5: "SCHED_IDLE"}


def sched_of(pid, label):
    """label, pid, nice and scheduling policy of each of a process's threads
    (/proc/PID/task/TID/stat: fields 19 and 41), its I/O priority."""
    out = []
    try:
        for tid in sorted(os.listdir("/proc/%d/task" % pid), key=int):
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                st = f.read().rsplit(")", 1)[1].split()
            out.append("nice %s %s" % (st[16], POLICIES.get(int(st[38]), st[38])))
    except OSError:
        return "%s %d gone" % (label, pid)
    io = subprocess.run(["ionice", "-p", str(pid)], capture_output=True, text=True).stdout.strip()
    return "%s %d: threads %s, io %s" % (label, pid, ", ".join(out), io or "?")


def job_processes(srv, n, still_running):
    """The scheduling of the jobs' processes (build/fishscale-job --run ID
    --root ROOT of this checkout) once n of them run, or once
    still_running() says they have ended."""
    seen = {}
    t_end = time.time() + 60
    root = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")).encode()
    t_check = 0
    while len(seen) < n and time.time() < t_end:
        for p in os.listdir("/proc"):
            if not p.isdigit() or int(p) in seen:
                continue
            try:
                # workers are started as argv[0] "fishscale-agent" (worker_spawn.c): the executable says
                exe = os.readlink("/proc/%s/exe" % p).encode()
                with open("/proc/%s/cmdline" % p, "rb") as f:
                    cmd = f.read().split(b"\0")
            except OSError:
                continue
            if exe.endswith(b"fishscale-job") and root in cmd:
                # the job lowers its computing thread once it has started
                time.sleep(0.3)
                seen[int(p)] = sched_of(int(p), "job")
        if time.time() > t_check:
            if not still_running():
                break
            t_check = time.time() + 0.5
        time.sleep(0.05)
    return list(seen.values())


class Prober:
    """GET /api/health, then one edit (a tubercle added to another user's
    small set), every 50 ms; per edit its wall time and what the FastCGI
    workers spent meanwhile (/proc/PID/schedstat: time on a core, time
    runnable but waiting for one); the rest of an edit's time is sleeping:
    waiting for SQLite's write lock (the busy handler), I/O, nginx and the
    client."""

    def __init__(self, srv, ed, es):
        self.srv, self.ed, self.es = srv, ed, es
        self.rev = es["revision"]
        self.k = 0
        self.pids = srv.worker_pids()

    def _sched(self):
        cpu = wait = 0
        for p in self.pids:
            try:
                with open("/proc/%d/schedstat" % p) as f:
                    a = f.read().split()
                cpu += int(a[0])
                wait += int(a[1])
            except OSError:
                pass
        return cpu / 1e6, wait / 1e6

    def _reset(self):
        self.health, self.edits, self.errors = [], [], []
        self.stop = threading.Event()

    def _one(self, hc):
        a = time.time()
        h = hc.get("/api/health")
        self.health.append((time.time() - a) * 1000)
        if h.status != 200:
            self.errors.append("health %d" % h.status)
        k = self.k
        s0 = self._sched()
        a = time.time()
        e = self.ed.api("POST", "/api/sets/%d/tubercles" % self.es["id"],
                        {"revision": self.rev, "x": 20 + (k * 7) % 360, "y": 20 + (k * 13) % 260, "radius_px": 5})
        b = time.time()
        s1 = self._sched()
        self.edits.append({"t0": a, "t1": b, "ms": (b - a) * 1000, "cpu": s1[0] - s0[0], "runq": s1[1] - s0[1]})
        if e.status != 200:
            self.errors.append("edit %d %s" % (e.status, e.text[:80]))
        else:
            self.rev = e.json().get("revision", self.rev + 1)
        self.k += 1
        time.sleep(0.05)

    def _loop(self, count):
        hc = self.srv.client()
        while not self.stop.is_set() and (count is None or len(self.edits) < count):
            self._one(hc)

    def run(self, count, poll):
        """count edits with no job, while poll (a client) lists the jobs
        every 20 ms as wait_job does during the four jobs."""
        self._reset()

        def poller():
            while not self.stop.is_set():
                poll.api("GET", "/api/jobs")
                time.sleep(0.02)
        th = threading.Thread(target=poller)
        th.start()
        self._loop(count)
        self.stop.set()
        th.join()
        return {"health": self.health, "edits": self.edits, "errors": self.errors}

    def start(self):
        self._reset()
        self.th = threading.Thread(target=self._loop, args=(None,))
        self.th.start()

    def finish(self):
        self.stop.set()
        self.th.join()
        return {"health": self.health, "edits": self.edits, "errors": self.errors}


def report(title, data, results):
    """Health and edits: percentiles; edits during a job's storing of its
    result (results' store_started .. store_ended) and outside; the slowest
    edits' make-up."""
    ms = [e["ms"] for e in data["edits"]]
    print("  %s:" % title)
    print("    GET /api/health: %d requests, p50 %.1f ms, p99 %.1f ms (target p99 < 20 ms)" %
          (len(data["health"]), pct(data["health"], 50), pct(data["health"], 99)))
    print("    edits of another set: %d, p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms (target p99 < 50 ms); "
          "workers' CPU a edit %.1f ms, runnable-waiting %.1f ms (means)" %
          (len(ms), pct(ms, 50), pct(ms, 90), pct(ms, 99), max(ms) if ms else float("nan"),
           sum(e["cpu"] for e in data["edits"]) / max(1, len(ms)),
           sum(e["runq"] for e in data["edits"]) / max(1, len(ms))))
    wins = [(r["store_started"], r["store_ended"], r.get("write_lock_ms", 0),
             (r.get("write_lock_cpu_ms"), r.get("write_lock_runq_ms")))
            for r in results if isinstance(r.get("store_started"), (int, float))]
    if wins:
        def during(e):
            return any(e["t0"] < b and e["t1"] > a for a, b, _, _ in wins)
        inn = [e["ms"] for e in data["edits"] if during(e)]
        out = [e["ms"] for e in data["edits"] if not during(e)]
        print("    edits while a job stored its result: %d, p50 %.1f ms, max %.1f ms; the others: %d, p50 %.1f ms, "
              "p99 %.1f ms, max %.1f ms" % (len(inn), pct(inn, 50), max(inn) if inn else float("nan"), len(out),
                                             pct(out, 50), pct(out, 99), max(out) if out else float("nan")))
        def lock_parts(cpu, runq):
            """the lock's time on a core, runnable but waiting for one, and the rest (blocked: I/O)"""
            if cpu is None:
                return ""
            if runq is None:
                return ", %.0f ms of it on a core" % cpu
            return ", %.0f ms of it on a core, %.0f runnable waiting for one" % (cpu, runq)
        print("    the jobs' stores: %s" % ", ".join(
            "%.0f ms (lock %.0f ms%s)" % ((b - a) * 1000, lk, lock_parts(*parts)) for a, b, lk, parts in wins))
    else:
        during = None
    slow = sorted(data["edits"], key=lambda e: -e["ms"])[:5]
    print("    slowest edits (wall = workers' CPU + runnable-waiting + the rest: lock, I/O, nginx): " +
          "; ".join("%.1f = %.1f + %.1f + %.1f%s" % (e["ms"], e["cpu"], e["runq"], e["ms"] - e["cpu"] - e["runq"],
                                                    " (during a store)" if during and during(e) else "")
                    for e in slow))
    print("    errors: %d %s" % (len(data["errors"]), data["errors"][:5]))


def main():
    t0 = time.time()
    data = lattice_png(SIDE, SIDE)
    print("image: %dx%d lattice PNG, %.1f MB, made in %.1f s" % (SIDE, SIDE, len(data) / 1e6, time.time() - t0))
    srv = Server(env={"FISHSCALE_JOBS_MAX_RUNNING": MAX_RUNNING, "FISHSCALE_USER_QUOTA_MB": "0"}).start()
    try:
        users = ["u%d" % i for i in range(1, 5)] + ["editor"]
        for u in users:
            srv.cli("user", "add", u, input=u + "-password-123\n")
        clients = {}
        for u in users:
            c = srv.client()
            assert c.login(u, u + "-password-123").status == 303
            clients[u] = c
        c1 = clients["u1"]
        t = time.time()
        r = upload(c1, data, "lattice.png")
        t_answer = time.time() - t
        if r.status == 202:
            j = wait_job(c1, r.json()["job"]["id"])
            t_import = time.time() - t
            assert j["state"] == "done", j
            iid = j["result"]["image_id"]
            print("upload: answered %d in %.2f s (upload included), imported by its job in %.1f s" %
                  (r.status, t_answer, t_import))
        else:
            assert r.status == 201, r.text
            iid = r.json()["image"]["id"]
            print("upload: answered %d in %.2f s" % (r.status, t_answer))
        ids = {"u1": iid}
        for u in ("u2", "u3", "u4"):
            r = upload(clients[u], data, "lattice.png")
            if r.status == 202:
                j = wait_job(clients[u], r.json()["job"]["id"])
                ids[u] = j["result"]["image_id"]
            else:
                ids[u] = r.json()["image"]["id"]

        def base_set(c, image_id):
            return c.api("GET", "/api/images/%d/sets" % image_id).json()["sets"][0]

        # one extraction, alone: into an empty set, then again over its
        # result (the scale region cached, the image's files warm); RUNS
        # times each, each run into a set of its own
        def extract(c, set_id, stages=None):
            sets = c.api("GET", "/api/images/%d/sets" % iid).json()["sets"]
            rev = [x["revision"] for x in sets if x["id"] == set_id][0]
            t = time.time()
            r = c.api("POST", "/api/sets/%d/extract" % set_id, {"revision": rev})
            assert r.status == 202, (r.status, r.text)
            t_answer = time.time() - t
            j = wait_job(c, r.json()["job"]["id"], stages=stages)
            return time.time() - t, t_answer, j

        first, again, lock_first, lock_again, stages0 = [], [], [], [], []
        res_first, res_again = [], []
        for k in range(RUNS):
            if k == 0:
                sid = base_set(c1, iid)["id"]
            else:
                r = c1.api("POST", "/api/images/%d/sets" % iid, {"name": "run %d" % (k + 1)})
                assert r.status in (200, 201), r.text
                sid = r.json()["set"]["id"]
            dt, t_answer, j = extract(c1, sid, stages0 if k == 0 else None)
            if k == 0:
                answer0, n_tub, dt0 = t_answer, j.get("result", {}).get("n_tubercles"), dt
            first.append(dt)
            lock_first.append(j.get("result", {}).get("write_lock_ms"))
            res_first.append(j.get("result", {}))
            dt, _, j = extract(c1, sid)
            again.append(dt)
            lock_again.append(j.get("result", {}).get("write_lock_ms"))
            res_again.append(j.get("result", {}))
        if RUNS:
            print("extraction through the API as a job: %.1f s to the finished result (median of %d: %s), %s "
                  "tubercles (target < 3 s on a quiet machine), jobs_max_running %s, the job's threads %s, write "
                  "lock held %s ms; the first request answered in %.2f s, then:" %
                  (median(first), RUNS, ", ".join("%.1f" % x for x in first), n_tub, MAX_RUNNING,
                   res_first[0].get("tile_threads"), fmt_ms(lock_first), answer0))
            print_stages(stages0, dt0 - answer0)
            print_phases(res_first)
            print("  a second extraction of the same image (over the first's result): %.1f s (median of %d: %s), "
                  "write lock held %s ms" % (median(again), RUNS, ", ".join("%.1f" % x for x in again),
                                            fmt_ms(lock_again)))
            print_phases(res_again)

        # four at once, with health and edits measured meanwhile, after the
        # same probes with no job running (the baseline, same conditions:
        # the same server, set and polling of the jobs list)
        ed = clients["editor"]
        small = upload(ed, png_gray(400, 300), "small.png").json()["image"]
        es = base_set(ed, small["id"])
        probe = Prober(srv, ed, es)
        print("processes: %s" % "; ".join(sched_of(p, "worker") for p in srv.worker_pids()))
        hook = os.environ.get("FS_BENCH_ROUND_HOOK", "")
        for rnd in range(1, ROUNDS + 1):
            if hook:  # e.g. an A/B of two job binaries, round by round
                subprocess.run(["sh", "-c", hook], env=dict(os.environ, FS_BENCH_ROUND=str(rnd)), check=True)
            print("round %d of %d%s:" % (rnd, ROUNDS, "" if rnd == 1 else " (each set over its last result)"))
            base = probe.run(count=BASELINE_EDITS, poll=c1)
            report("no job running (baseline)", base, [])
            probe.start()
            jobs = []
            t = time.time()
            for u in ("u1", "u2", "u3", "u4"):
                s = base_set(clients[u], ids[u])
                r = clients[u].api("POST", "/api/sets/%d/extract" % s["id"], {"revision": s["revision"]})
                if r.status != 202:
                    probe.errors.append("submit %s %d" % (u, r.status))
                else:
                    jobs.append((u, r.json()["job"]["id"]))
            seen = job_processes(srv, len(jobs), lambda: any(
                clients[u].api("GET", "/api/jobs/%d" % jid).json()["job"]["state"] in ("queued", "starting", "running")
                for u, jid in jobs))
            done = [wait_job(clients[u], jid) for u, jid in jobs]
            ends = time.time() - t
            loaded = probe.finish()
            states = [d["state"] for d in done]
            print("four extractions at once: all finished in %.1f s, states %s" % (ends, states))
            for line in seen:
                print("  " + line)
            for d in done:
                if d["state"] != "done":
                    print("  job %d %s: %s" % (d["id"], d["state"], d.get("error")))
            report("while the four jobs ran", loaded, [d.get("result", {}) for d in done])
            print_phases([d.get("result", {}) for d in done], indent="  ")
            locks = [d.get("result", {}).get("write_lock_ms") for d in done]
            locks = [x for x in locks if isinstance(x, (int, float))]
            if locks:
                print("  longest write lock of a result: %.0f ms (each: %s; target < 200 ms)" %
                      (max(locks), ", ".join("%.0f" % x for x in locks)))
            rss = [d.get("result", {}).get("peak_rss_mb") for d in done]
            if all(isinstance(x, (int, float)) for x in rss) and rss:
                print("  the jobs' peak RSS: %s MB (%s bytes a pixel)" %
                      (", ".join("%.0f" % x for x in rss), ", ".join("%.2f" % (x * 1048576 / SIDE ** 2) for x in rss)))
    finally:
        srv.cleanup()


if __name__ == "__main__":
    main()
