"""Admission control's memory estimate through the API (issue 15 item 3;
the estimate is app/job_control.c's, from the peaks measured per method):
with jobs_memory_mb at 100, an extraction whose estimate alone exceeds it
is refused at once with 413 and a message that says why (no job is made)
and a batch fails that image's job with the same reason instead of queueing
it for ever; while a job runs, one that would fit alone but not beside it
is refused with 503, Retry-After and a message naming the memory, and one
that fits beside it is admitted; the estimate follows the method (log keeps
its full-size scale layers on an image it detects whole).

Under the dome rule (a site of its own): an image it detects whole (at
most four 1024-px tiles) takes about (23 MB + 33 bytes a pixel) x 1.25, so
1000 x 1000 about 70 MB, admitted under 100 MB, and its job's own peak is
within it; 1400 x 1400 about 110 MB, refused before a job.

Estimates (8-bit images, margin 25 %): auto about (18 MB + 5.5 bytes a
pixel) x 1.25, so a 300 x 200 image about 23 MB, 800 x 800 about 27 MB; log on an image of at most four
1024-px tiles (the whole-image path) about (55 MB + 57 bytes a pixel) x
1.25: 600 x 600 about 94 MB, 800 x 800 about 114 MB, 1000 x 1000 about
140 MB. Jobs are held at their "detecting" stage by the hold file
(cgi/main_job.c), so nothing depends on how long a detection takes."""

from harness import Server, gray_png
from memory_budget import budget_site, checker_image as image, ended
from test_images import upload

srv = None


def setup_module():
    global srv
    srv = budget_site(100)


def teardown_module():
    if srv:
        srv.cleanup()


def extract(c, s, method=None):
    body = {"revision": s["revision"]}
    if method:
        body["parameters"] = {"method": method}
    return c.api("POST", "/api/sets/%d/extract" % s["id"], body)


def test_an_image_too_large_for_the_memory_budget_is_refused_before_a_job():
    srv.release_jobs()
    c = srv.login_as("mia")
    iid, s = image(c, 1000, 1000, um_per_px=0.5)
    before = len(c.api("GET", "/api/jobs").json()["jobs"])
    r = extract(c, s, "log")
    assert r.status == 413, r.text
    err = r.json()["error"]
    assert "1000000 pixels needs more memory" in err and "jobs may take 100 MB" in err, err
    assert len(c.api("GET", "/api/jobs").json()["jobs"]) == before
    r = c.api("POST", "/api/batches", {"image_ids": [iid], "new_set": "b", "parameters": {"method": "log"}})
    assert r.status == 201, r.text
    jobs = ended(c, "/api/batches/%d" % r.json()["batch"]["id"], "jobs")
    assert [j["state"] for j in jobs] == ["failed"] and "more memory" in jobs[0]["error"], jobs
    # the same image fits the budget with auto, a small image too
    s = c.api("GET", "/api/images/%d/sets" % iid).json()["sets"][0]
    r = extract(c, s)
    assert r.status == 202, r.text
    assert ended(c, "/api/jobs/%d" % r.json()["job"]["id"], "job")["state"] == "done"


def test_a_job_that_does_not_fit_beside_a_running_one_is_refused_with_retry_after():
    mia, noa = srv.login_as("mia"), srv.login_as("noa")
    _, small = image(mia, 300, 200)
    _, large = image(noa, 600, 600, um_per_px=0.5)
    _, small2 = image(noa, 300, 200)
    srv.hold_jobs()
    try:
        r = extract(mia, small)
        assert r.status == 202, r.text
        held = r.json()["job"]["id"]
        # log on 600 x 600 (about 94 MB) fits 100 MB alone, not beside auto's 23 MB
        r = extract(noa, large, "log")
        assert r.status == 503, r.text
        assert int(r.header("Retry-After")) >= 1
        err = r.json()["error"]
        assert "not enough memory free" in err and "needs about" in err and "100 MB" in err, err
        assert [j for j in noa.api("GET", "/api/jobs").json()["jobs"] if j["set_id"] == large["id"]] == []
        # a job that fits beside it is admitted at once
        r = extract(noa, small2)
        assert r.status == 202, r.text
        admitted = r.json()["job"]["id"]
    finally:
        srv.release_jobs()
    assert ended(mia, "/api/jobs/%d" % held, "job")["state"] == "done"
    assert ended(noa, "/api/jobs/%d" % admitted, "job")["state"] == "done"
    # alone it fits
    r = extract(noa, large, "log")
    assert r.status == 202, r.text
    assert ended(noa, "/api/jobs/%d" % r.json()["job"]["id"], "job")["state"] == "done"


def test_the_estimate_follows_the_method():
    # 800 x 800: auto's estimate (about 27 MB) fits 100 MB, log's (about
    # 114 MB: its full-size scale layers on an image it detects whole) not
    c = srv.login_as("mia")
    _, s = image(c, 800, 800, um_per_px=0.5)
    r = extract(c, s, "log")
    assert r.status == 413 and "needs more memory" in r.json()["error"], (r.status, r.text)
    r = extract(c, s, "auto")
    assert r.status == 202, r.text
    assert ended(c, "/api/jobs/%d" % r.json()["job"]["id"], "job")["state"] == "done"


def test_the_dome_rule_admits_what_fits_and_refuses_what_does_not():
    dome = Server(env={"FISHSCALE_SYNC_MAX_PIXELS": "50000", "FISHSCALE_JOBS_MEMORY_MB": "100",
                       "FISHSCALE_JOBS_MAX_RUNNING": "4", "FISHSCALE_MEASUREMENT_RULE": "dome"}).start()
    try:
        dome.add_users("mia")
        c = dome.login_as("mia")
        _, fits = image(c, 1000, 1000)
        _, too_large = image(c, 1400, 1400)
        r = extract(c, too_large)
        assert r.status == 413 and "needs more memory" in r.json()["error"], (r.status, r.text)
        r = extract(c, fits)
        assert r.status == 202, r.text
        job = ended(c, "/api/jobs/%d" % r.json()["job"]["id"], "job")
        assert job["state"] == "done", job
        # what it was admitted for: its own peak is within the budget
        assert 0 < job["result"]["peak_rss_mb"] < 100, job["result"]
    finally:
        dome.cleanup()


def lattice_png_with_border(w, h, border=40):
    """An 8-bit grey PNG of bright squares on a dark ground inside a flat
    border (autocrop has something to remove), made a row at a time."""
    flat = b"\x00" + b"\x50" * w
    inner = [b"\x00" + b"\x50" * border +
             bytes(200 if (x // 12 + y) % 2 else 30 for x in range(w - 2 * border)) + b"\x50" * border
             for y in range(2)]
    raw = b"".join(flat if y < border or y >= h - border else inner[(y // 12) % 2] for y in range(h))
    return gray_png(w, h, raw)


def test_imports_and_transforms_peak_within_their_estimate():
    """An upload decoded by an import job and the image's rotation, crop,
    autocrop and undo as transform jobs (all of a 3000 x 2000 8-bit image,
    held compact): each job's own peak (result.peak_rss_mb) is within what
    admission control counted it at (job.memory_mb), which is far below the
    old 26 bytes a pixel (156 MB here) now that none of them makes a float
    copy of the image. Then the image's set re-measured by a job: its peak
    within its estimate as well."""
    site = Server(env={"FISHSCALE_SYNC_MAX_PIXELS": "1000000", "FISHSCALE_IMPORT_SYNC_MAX_PIXELS": "1000000",
                       "FISHSCALE_MEASUREMENT_RULE": "outline"}).start()
    try:
        site.add_users("mia")
        c = site.login_as("mia")
        w, h = 3000, 2000
        r = upload(c, lattice_png_with_border(w, h), "wide.png")
        assert r.status == 202, r.text
        jobs = [ended(c, "/api/jobs/%d" % r.json()["job"]["id"], "job")]
        iid = jobs[0]["result"]["image_id"]
        steps = [("rotate", {"direction": "left"}), ("crop", {"x": 10, "y": 20, "width": 1900, "height": 2900}),
                 ("autocrop", {}), ("transforms/undo", {})]
        for path, body in steps:
            r = c.api("POST", "/api/images/%d/%s" % (iid, path), body)
            assert r.status == 202, (path, r.status, r.text)
            jobs.append(ended(c, "/api/jobs/%d" % r.json()["job"]["id"], "job"))
        for j in jobs:
            assert j["state"] == "done", j
            assert 0 < j["result"]["peak_rss_mb"] <= j["memory_mb"], j
            assert j["memory_mb"] < 26 * w * h / 2 ** 20 * 0.6, j
        im = c.api("GET", "/api/images/%d" % iid).json()["image"]
        # rotated, cropped, autocropped, the autocrop undone
        assert (im["width"], im["height"]) == (1900, 2900), im
        # Re-measure of the image's extracted set (as measured before
        # versioning, so every diameter is measured and stored) as a job:
        # within its estimate too, the float measurement image included
        s = c.api("GET", "/api/images/%d/sets" % iid).json()["sets"][0]
        r = c.api("POST", "/api/sets/%d/extract" % s["id"], {"revision": s["revision"]})
        assert r.status == 202, r.text
        assert ended(c, "/api/jobs/%d" % r.json()["job"]["id"], "job")["state"] == "done"
        site.sql("UPDATE sets SET measurement_version = 0 WHERE id = ?", (s["id"],))
        rev = c.api("GET", "/api/sets/%d/revision" % s["id"]).json()["revision"]
        r = c.api("POST", "/api/sets/%d/remeasure" % s["id"], {"revision": rev})
        assert r.status == 202, r.text
        j = ended(c, "/api/jobs/%d" % r.json()["job"]["id"], "job")
        assert j["state"] == "done" and j["result"]["n_tubercles"] > 1000, j
        assert 0 < j["result"]["peak_rss_mb"] <= j["memory_mb"], j
        print("remeasure job: %d tubercles, peak %.1f MiB, estimate %d MiB" %
              (j["result"]["n_tubercles"], j["result"]["peak_rss_mb"], j["memory_mb"]))
    finally:
        site.cleanup()
