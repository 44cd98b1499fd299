"""Background jobs through nginx + FastCGI: the extraction of an image over
sync_max_pixels answers 202 with a job at once and the result lands in the
set as one undoable step; admission control (one job per user, a site-wide
limit, Retry-After); the site answers while jobs run; cancel; a dead worker
is reported failed; batches over several images of the library.

Jobs are held at their "detecting" stage by a hold file in the data
directory (see cgi/main_job.c), so the tests never depend on how long a
detection takes."""
import os

from harness import Server, gray_png, kill_process, wait_for, wait_job
from test_images import png_gray, upload, PAPER

srv = None
USERS = ("ann", "ben", "cat", "dan", "eve")
OTHERS = ("fay", "gil")


def setup_module():
    global srv
    srv = Server(env={"FISHSCALE_SYNC_MAX_PIXELS": "50000", "FISHSCALE_JOBS_MAX_RUNNING": "4"}).start()
    for who in USERS + OTHERS:
        srv.cli("user", "add", who, input=who + "-password-123\n")


def teardown_module():
    if srv:
        srv.cleanup()


def login(who):
    c = srv.client()
    if who == "admin":
        assert c.login().status == 303
    else:
        assert c.login(who, who + "-password-123").status == 303
    return c


def paper_image(c):
    with open(PAPER, "rb") as f:
        r = upload(c, f.read(), "paper.tif")
    assert r.status in (200, 201), r.text
    img = r.json()["image"]
    sets = c.api("GET", "/api/images/%d/sets" % img["id"]).json()["sets"]
    return img, sets[0]


def job_state(c, jid):
    r = c.api("GET", "/api/jobs/%d" % jid)
    assert r.status == 200, r.text
    return r.json()["job"]


def extract(c, set_):
    return c.api("POST", "/api/sets/%d/extract" % set_["id"], json_body={"revision": set_["revision"]})


def test_large_extraction_is_a_job_and_lands_as_one_step():
    srv.release_jobs()
    c = login("fay")
    img, s = paper_image(c)
    assert img["width"] * img["height"] > 50000
    r = extract(c, s)
    assert r.status == 202, r.text
    job = r.json()["job"]
    assert job["kind"] == "extract" and job["image_id"] == img["id"] and job["set_id"] == s["id"]
    assert r.header("Location").endswith("/api/jobs/%d" % job["id"])
    done = wait_job(c, job["id"])
    assert done["state"] == "done", done
    res = done["result"]
    assert res["n_tubercles"] > 20 and res["set_id"] == s["id"]
    got = c.api("GET", "/api/sets/%d" % s["id"]).json()
    assert len(got["tubercles"]) == res["n_tubercles"]
    assert len(got["edges"]) == res["n_edges"]
    hist = c.api("GET", "/api/sets/%d/history" % s["id"]).json()
    assert any(h["type"] == "extraction" for h in hist["history"])
    # one step: a single undo takes the whole result back
    u = c.api("POST", "/api/sets/%d/undo" % s["id"], json_body={"revision": got["set"]["revision"]})
    assert u.status == 200, u.text
    assert len(c.api("GET", "/api/sets/%d" % s["id"]).json()["tubercles"]) == 0


def test_a_job_says_where_its_time_went():
    """The result's phases (base/phase_clock.h): each stage and store step
    in order, their CPU within the process's own CPU time (getrusage), and
    the time the job was held at "detecting" (a sleep: no CPU) in that
    phase's wall time, not in its CPU time."""
    import time
    srv.hold_jobs()
    try:
        c = login("gil")
        _, s = paper_image(c)
        jid = extract(c, s).json()["job"]["id"]
        wait_for(lambda: job_state(c, jid)["stage"] == "detecting", timeout=30, what="the job at detecting")
        seen = time.monotonic()
        # what a held job's phase must show: every poll here is held time
        for _ in range(5):
            assert job_state(c, jid)["stage"] == "detecting"
        held_ms = (time.monotonic() - seen) * 1000
    finally:
        srv.release_jobs()
    done = wait_job(c, jid)
    assert done["state"] == "done", done
    res = done["result"]
    ph = {p["phase"]: p for p in res["phases"]}
    names = [p["phase"] for p in res["phases"]]
    for a, b in [("loading", "detecting"), ("detecting", "connecting"), ("connecting", "statistics"),
                 ("statistics", "diff"), ("diff", "journal"), ("journal", "write"), ("write", "history")]:
        assert names.index(a) < names.index(b), names
    assert ph["detecting"]["wall_ms"] >= held_ms - 2, (ph["detecting"], held_ms)
    assert ph["detecting"]["cpu_ms"] < ph["detecting"]["wall_ms"] - 0.5 * held_ms, ph["detecting"]
    cpu = sum(p["cpu_ms"] for p in res["phases"])
    assert 0 < cpu <= res["cpu_s"] * 1000 + 5, (cpu, res["cpu_s"])
    assert all(p["wall_ms"] >= 0 and p["cpu_ms"] >= 0 for p in res["phases"]), res["phases"]
    assert 0 <= res["spawn_ms"] < 60000, res


def test_small_image_stays_in_the_request():
    c = login("ann")
    r = upload(c, png_gray(120, 100, lambda x, y: 200 if ((x // 12) + (y // 12)) % 2 else 30), "small.png")
    img = r.json()["image"]
    s = c.api("GET", "/api/images/%d/sets" % img["id"]).json()["sets"][0]
    r = extract(c, s)
    assert r.status == 200, r.text


def test_admission_control_refuses_with_retry_after_and_the_site_keeps_answering():
    srv.hold_jobs()
    try:
        clients = {who: login(who) for who in USERS}
        jobs = {}
        for who in USERS[:4]:
            _, s = paper_image(clients[who])
            r = extract(clients[who], s)
            assert r.status == 202, (who, r.status, r.text)
            jobs[who] = r.json()["job"]["id"]
        for who in USERS[:4]:
            wait_job(clients[who], jobs[who], states=("running",), timeout=30)
        # the fifth user: every slot is taken
        _, s5 = paper_image(clients["eve"])
        r = extract(clients["eve"], s5)
        assert r.status == 503, r.text
        assert int(r.header("Retry-After")) >= 1
        assert "busy" in r.json()["error"]
        # a second job of the same user: one at a time
        _, s2 = paper_image(clients["ann"])
        r = extract(clients["ann"], s2)
        assert r.status == 429, r.text
        assert int(r.header("Retry-After")) >= 1
        # the site answers meanwhile, and other users' edits go through
        assert srv.client().get("/api/health").status == 200
        t = clients["eve"].api("POST", "/api/sets/%d/tubercles" % s5["id"],
                               json_body={"revision": s5["revision"], "x": 50, "y": 60, "radius_px": 5})
        assert t.status in (200, 201), t.text
    finally:
        srv.release_jobs()
    for who, jid in jobs.items():
        assert wait_job(clients[who], jid)["state"] == "done"


def test_cancel_leaves_the_set_as_it_was():
    srv.hold_jobs()
    try:
        c = login("ben")
        _, s = paper_image(c)
        before = c.api("GET", "/api/sets/%d" % s["id"]).json()
        jid = extract(c, s).json()["job"]["id"]
        wait_job(c, jid, states=("running",), timeout=30)
        # cancel takes no fields: a key is refused and the job runs on
        r = c.api("POST", "/api/jobs/%d/cancel" % jid, {"force": True})
        assert r.status == 422 and r.json()["error"] == "unknown field 'force'", r.text
        assert job_state(c, jid)["state"] == "running"
        r = c.api("POST", "/api/jobs/%d/cancel" % jid)
        assert r.status == 200, r.text
        assert wait_job(c, jid)["state"] == "cancelled"
        after = c.api("GET", "/api/sets/%d" % s["id"]).json()
        assert after["tubercles"] == before["tubercles"]
        assert c.api("POST", "/api/jobs/%d/cancel" % jid).status == 409
    finally:
        srv.release_jobs()


def test_the_active_jobs_on_an_image_or_set_are_listed_for_their_user_only():
    """GET /api/jobs?image_id=N[&set_id=M]: what a reloaded workspace
    follows again - the user's active jobs on that image (into that set),
    no finished ones, no other user's; bad parameters are a 422."""
    srv.hold_jobs()
    try:
        c = login("ann")
        img, s = paper_image(c)
        other_set = c.api("POST", "/api/images/%d/sets" % img["id"], {"name": "second"})
        assert other_set.status in (200, 201), other_set.text
        other_sid = other_set.json()["set"]["id"]
        jid = extract(c, s).json()["job"]["id"]
        wait_job(c, jid, states=("running",), timeout=30)
        on = lambda q: c.api("GET", "/api/jobs?" + q)
        r = on("image_id=%d" % img["id"])
        assert r.status == 200 and "batches" not in r.json(), r.text
        assert [(j["id"], j["kind"], j["state"], j["set_id"]) for j in r.json()["jobs"]] == \
            [(jid, "extract", "running", s["id"])], r.text
        assert [j["id"] for j in on("image_id=%d&set_id=%d" % (img["id"], s["id"])).json()["jobs"]] == [jid]
        assert on("image_id=%d&set_id=%d" % (img["id"], other_sid)).json()["jobs"] == []
        assert on("image_id=%d" % (img["id"] + 1000)).json()["jobs"] == []
        # another user's list never holds it
        assert login("dan").api("GET", "/api/jobs?image_id=%d" % img["id"]).json()["jobs"] == []
        for q, word in (("image_id=x", "image_id"), ("image_id=0", "image_id"), ("set_id=%d" % s["id"], "image_id"),
                        ("image_id=%d&sets=1" % img["id"], "sets")):
            r = on(q)
            assert r.status == 422 and word in r.json()["error"], (q, r.text)
        # the list without parameters is the library's, as before
        whole = c.api("GET", "/api/jobs").json()
        assert "batches" in whole and jid in [j["id"] for j in whole["jobs"]]
    finally:
        srv.release_jobs()
    assert wait_job(c, jid)["state"] == "done"
    assert on("image_id=%d" % img["id"]).json()["jobs"] == []
    # a step of the image belongs to no set: listed with every set's jobs,
    # named, so a reloaded Image tab can follow it
    srv.hold_jobs()
    try:
        rev = c.api("GET", "/api/images/%d" % img["id"]).json()["image"]["revision"]
        r = c.api("POST", "/api/images/%d/rotate" % img["id"], {"direction": "right", "revision": rev})
        assert r.status == 202, r.text
        tid = r.json()["job"]["id"]
        for q in ("image_id=%d" % img["id"], "image_id=%d&set_id=%d" % (img["id"], s["id"]),
                  "image_id=%d&set_id=%d" % (img["id"], other_sid)):
            assert [(j["id"], j["kind"], j["set_id"], j.get("step")) for j in on(q).json()["jobs"]] == \
                [(tid, "transform", None, "rotate_right")], (q, on(q).text)
    finally:
        srv.release_jobs()
    assert wait_job(c, tid)["state"] == "done"


def test_a_dead_worker_is_reported_failed_and_others_cannot_see_jobs():
    srv.hold_jobs()
    try:
        c = login("cat")
        _, s = paper_image(c)
        jid = extract(c, s).json()["job"]["id"]
        wait_job(c, jid, states=("running",), timeout=30)
        pid = srv.sql("SELECT pid FROM jobs WHERE id = ?", (jid,))[0][0]
        assert pid
        # another user cannot see or cancel it
        other = login("dan")
        assert other.api("GET", "/api/jobs/%d" % jid).status == 404
        assert other.api("POST", "/api/jobs/%d/cancel" % jid).status == 404
        kill_process(pid, "fishscale-job")
        j = wait_job(c, jid, timeout=30)
        assert j["state"] == "failed" and "ended" in j["error"], j
    finally:
        srv.release_jobs()


def test_batch_over_several_images_fills_a_new_set_in_each():
    srv.release_jobs()
    c = login("dan")
    ids = []
    for i in range(3):
        r = upload(c, png_gray(260 + 10 * i, 240, lambda x, y: 220 if ((x // 13) + (y // 13)) % 2 else 25),
                   "batch%d.png" % i)
        ids.append(r.json()["image"]["id"])
    r = c.api("POST", "/api/batches", json_body={"image_ids": ids, "new_set": "auto", "name": "three"})
    assert r.status == 201, r.text
    batch = r.json()["batch"]
    assert batch["name"] == "three" and len(r.json()["jobs"]) == 3

    def all_done():
        jobs = c.api("GET", "/api/batches/%d" % batch["id"]).json()["jobs"]
        return jobs if all(j["state"] in ("done", "failed") for j in jobs) else None
    jobs = wait_for(all_done, timeout=90, what="the batch")
    assert all(j["state"] == "done" for j in jobs), jobs
    for iid in ids:
        sets = c.api("GET", "/api/images/%d/sets" % iid).json()["sets"]
        auto = [s for s in sets if s["name"] == "auto"]
        assert len(auto) == 1 and auto[0]["n_tubercles"] > 0, sets
    # the listing shows the batch while it is recent
    listing = c.api("GET", "/api/jobs").json()
    assert any(b["id"] == batch["id"] and b["counts"]["done"] == 3 for b in listing["batches"])


def test_batch_into_base_sets_is_one_undoable_step_per_image_and_a_failure_says_why():
    """A batch without new_set fills each image's Base set: over what the set
    held (here one manual tubercle) the result is one step, which a single
    undo takes back. An image whose working file has gone fails alone, with
    the reason in its job, while the others finish."""
    import glob
    srv.release_jobs()
    c = login("gil")
    ids, bases = [], []
    for i in range(3):
        r = upload(c, png_gray(250 + 10 * i, 230, lambda x, y: 215 if ((x // 12) + (y // 12)) % 2 else 30),
                   "base%d.png" % i)
        img = r.json()["image"]
        ids.append(img["id"])
        base = [s for s in c.api("GET", "/api/images/%d/sets" % img["id"]).json()["sets"] if s["name"] == "Base"][0]
        rev = c.api("GET", "/api/sets/%d" % base["id"]).json()["set"]["revision"]
        r = c.api("POST", "/api/sets/%d/tubercles" % base["id"],
                  json_body={"revision": rev, "x": 20.5, "y": 30.5, "radius_px": 4})
        assert r.status in (200, 201), r.text
        bases.append(base["id"])
    # the third image's working file is lost: its job cannot read the image
    key = srv.sql("SELECT work_key FROM images WHERE id = ?", (ids[2],))[0][0]
    lost = glob.glob(os.path.join(srv.data, "work", key + "*"))
    assert lost, key
    for f in lost:
        os.unlink(f)
    r = c.api("POST", "/api/batches", json_body={"image_ids": ids})
    assert r.status == 201, r.text
    bid = r.json()["batch"]["id"]

    def ended():
        jobs = c.api("GET", "/api/batches/%d" % bid).json()["jobs"]
        return jobs if all(j["state"] in ("done", "failed", "cancelled") for j in jobs) else None
    jobs = {j["image_id"]: j for j in wait_for(ended, timeout=90, what="the batch")}
    assert jobs[ids[0]]["state"] == jobs[ids[1]]["state"] == "done", jobs
    assert jobs[ids[2]]["state"] == "failed" and jobs[ids[2]]["error"], jobs[ids[2]]
    for sid in bases[:2]:
        got = c.api("GET", "/api/sets/%d" % sid).json()
        assert len(got["tubercles"]) > 10, len(got["tubercles"])
        u = c.api("POST", "/api/sets/%d/undo" % sid, json_body={"revision": got["set"]["revision"]})
        assert u.status == 200, u.text
        back = c.api("GET", "/api/sets/%d" % sid).json()["tubercles"]
        assert [(t["centroid_x"], t["centroid_y"]) for t in back] == [(20.5, 30.5)], back
    # the failed image's Base set is as it was
    assert len(c.api("GET", "/api/sets/%d" % bases[2]).json()["tubercles"]) == 1


def test_batch_refusals():
    c = login("eve")
    assert c.api("POST", "/api/batches", json_body={}).status == 422
    assert c.api("POST", "/api/batches", json_body={"image_ids": [], "profile": "default"}).status == 422
    assert c.api("POST", "/api/batches", json_body={"image_ids": [999999]}).status == 404
    assert c.api("POST", "/api/batches", json_body={"q": "no-such-image-name"}).status == 422
    assert c.api("POST", "/api/batches", json_body={"q": "x", "profile": "nope"}).status == 422
    assert c.api("POST", "/api/batches", json_body={"q": "x", "bogus": 1}).status == 422
    assert c.api("GET", "/api/batches/999999").status == 404


def test_batch_naming_an_image_twice_extracts_it_once():
    c = login("eve")
    iid = upload(c, png_gray(250, 230, lambda x, y: 210 if ((x // 11) + (y // 11)) % 2 else 30),
                 "twice.png").json()["image"]["id"]
    r = c.api("POST", "/api/batches", json_body={"image_ids": [iid, iid, iid], "new_set": "once"})
    assert r.status == 201, r.text
    assert [j["image_id"] for j in r.json()["jobs"]] == [iid], r.json()["jobs"]
    assert r.json()["batch"]["name"] == "Extraction of 1 image"
    bid = r.json()["batch"]["id"]

    def done():
        jobs = c.api("GET", "/api/batches/%d" % bid).json()["jobs"]
        return jobs if all(j["state"] in ("done", "failed", "cancelled") for j in jobs) else None
    assert [j["state"] for j in wait_for(done, timeout=90, what="the batch")] == ["done"]
    sets = c.api("GET", "/api/images/%d/sets" % iid).json()["sets"]
    assert [s["name"] for s in sets].count("once") == 1, sets


def flat_png(w, h, patch=0):
    """An 8-bit grey PNG, level 40, with bright discs (diameter 16 px, pitch
    24 px) in its top-left patch x patch px, made a row pattern at a time
    (no per-pixel loop)."""
    flat = b"\x00" + bytes([40]) * w
    disc_rows = []
    for dy in range(24):
        row = bytearray([40]) * w
        for cx in range(12, patch - 12, 24):
            for x in range(cx - 8, cx + 8):
                if (x - cx + 0.5) ** 2 + (dy - 12 + 0.5) ** 2 <= 64:
                    row[x] = 200
        disc_rows.append(b"\x00" + bytes(row))
    raw = b"".join(disc_rows[y % 24] if y < patch - 24 else flat for y in range(h))
    return gray_png(w, h, raw, level=1)


def test_log_on_a_large_image_is_a_job_detected_tile_by_tile():
    """log, dog and ellipse detect tile by tile (detect_scale.h): a 30
    megapixel image (above the 26 the whole-image layers allowed) is
    accepted as a job with method log, which finishes and finds the discs
    of the image's corner; nothing is refused for its size."""
    srv.release_jobs()
    c = login("eve")
    r = upload(c, flat_png(6000, 5000, patch=600), "big.png")  # 30 MP
    assert r.status in (200, 201, 202), r.text
    if r.status == 202:  # imported by a job (import_sync_max_pixels)
        j = wait_job(c, r.json()["job"]["id"], timeout=300)
        assert j["state"] == "done", j
        img = {"id": j["result"]["image_id"]}
    else:
        img = r.json()["image"]
    assert c.api("POST", "/api/images/%d/calibration" % img["id"],
                 {"um_per_px": 0.5, "method": "direct"}).status == 200
    set_ = c.api("GET", "/api/images/%d/sets" % img["id"]).json()["sets"][0]
    r = c.api("POST", "/api/sets/%d/extract" % set_["id"],
              json_body={"revision": set_["revision"], "parameters": {"method": "log"}})
    assert r.status == 202, r.text
    j = wait_job(c, r.json()["job"]["id"], timeout=900)
    assert j["state"] == "done", j
    # 6 x 5 tiles of 1024 px in the job's computing threads: the cores
    # shared out among the 4 jobs this site runs at once (job_control.h),
    # at least 1, at most 4
    cores = os.sysconf("SC_NPROCESSORS_ONLN")
    expected = min(4, max(1, cores // 4))
    assert j["result"]["tile_threads"] == expected, (j["result"], cores)
    got = c.api("GET", "/api/sets/%d" % set_["id"]).json()
    # 24 x 24 discs in the corner, less those within the edge margin
    assert 400 <= len(got["tubercles"]) <= 24 * 24, len(got["tubercles"])


def test_batch_over_a_library_search_extracts_exactly_the_matching_images():
    """Issue 15 item 4's "or all matching a search": q takes every image the
    library search finds, and no other; each receives its result in the new
    set, the image that does not match gets no such set."""
    srv.release_jobs()
    c = login("gil")
    board = lambda x, y: 215 if ((x // 12) + (y // 12)) % 2 else 35
    ids = {}
    for name in ("kv9-match-a.png", "kv9-match-b.png", "kv9-other.png"):
        r = upload(c, png_gray(240 + len(ids) * 8, 230, board), name)
        assert r.status == 201, r.text
        ids[name] = r.json()["image"]["id"]
    r = c.api("POST", "/api/batches", json_body={"q": "kv9-match", "new_set": "searched", "profile": "default"})
    assert r.status == 201, r.text
    bid = r.json()["batch"]["id"]
    assert sorted(j["image_id"] for j in r.json()["jobs"]) == sorted([ids["kv9-match-a.png"], ids["kv9-match-b.png"]])

    def done():
        jobs = c.api("GET", "/api/batches/%d" % bid).json()["jobs"]
        return jobs if all(j["state"] in ("done", "failed", "cancelled") for j in jobs) else None
    assert [j["state"] for j in wait_for(done, timeout=90, what="the batch")] == ["done", "done"]
    for name, iid in ids.items():
        sets = c.api("GET", "/api/images/%d/sets" % iid).json()["sets"]
        searched = [s for s in sets if s["name"] == "searched"]
        if "match" in name:
            assert len(searched) == 1 and searched[0]["n_tubercles"] > 0, (name, sets)
        else:
            assert not searched, (name, sets)
