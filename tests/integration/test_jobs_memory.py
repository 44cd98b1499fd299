"""Admission control's memory estimate through the API (issue 15 item 3):
with jobs_memory_mb lowered so that a 1000 x 1000 image's estimate does not
fit, its extraction is refused at once with 413 and a message that says
why (no job is made), a batch fails that image's job with the same reason
instead of queueing it for ever, and a smaller image still runs; the
estimate follows the method (log keeps ten full-size scale layers on an
image it detects whole)."""
from harness import Server, wait_for
from test_images import png_gray, upload

srv = None


def setup_module():
    global srv
    # 64 MiB base + 26 bytes a pixel (job_control.c): 300 x 200 fits in
    # 70 MiB, 1000 x 1000 (90 MiB) does not
    srv = Server(env={"FISHSCALE_SYNC_MAX_PIXELS": "50000", "FISHSCALE_JOBS_MEMORY_MB": "70"}).start()
    srv.add_users("mia")


def teardown_module():
    if srv:
        srv.cleanup()


def image(c, w, h):
    r = upload(c, png_gray(w, h, lambda x, y: 200 if ((x // 12) + (y // 12)) % 2 else 30), "m%dx%d.png" % (w, h))
    assert r.status == 201, r.text
    iid = r.json()["image"]["id"]
    return iid, c.api("GET", "/api/images/%d/sets" % iid).json()["sets"][0]


def ended(c, path, key):
    def done():
        j = c.api("GET", path).json()[key]
        items = j if isinstance(j, list) else [j]
        return j if all(x["state"] in ("done", "failed", "cancelled") for x in items) else None
    return wait_for(done, timeout=120, what=path)


def test_an_image_too_large_for_the_memory_budget_is_refused_before_a_job():
    c = srv.login_as("mia")
    iid, s = image(c, 1000, 1000)
    r = c.api("POST", "/api/sets/%d/extract" % s["id"], {"revision": s["revision"]})
    assert r.status == 413, r.text
    assert "1000000 pixels needs more memory" in r.json()["error"]
    assert c.api("GET", "/api/jobs").json()["jobs"] == []
    r = c.api("POST", "/api/batches", {"image_ids": [iid], "new_set": "b"})
    assert r.status == 201, r.text
    jobs = ended(c, "/api/batches/%d" % r.json()["batch"]["id"], "jobs")
    assert [j["state"] for j in jobs] == ["failed"] and "more memory" in jobs[0]["error"], jobs
    # a smaller image fits the same budget
    _, s = image(c, 300, 200)
    r = c.api("POST", "/api/sets/%d/extract" % s["id"], {"revision": s["revision"]})
    assert r.status == 202, r.text
    assert ended(c, "/api/jobs/%d" % r.json()["job"]["id"], "job")["state"] == "done"


def test_the_estimate_follows_the_method():
    # 400 x 400: auto's estimate (64 MiB + 26 bytes a pixel) fits in 70 MiB,
    # log's (60 bytes a pixel: ten full-size scale layers, on an image it
    # detects whole: at most four tiles) does not
    c = srv.login_as("mia")
    iid, s = image(c, 400, 400)
    r = c.api("POST", "/api/images/%d/calibration" % iid, {"um_per_px": 0.5})
    assert r.status == 200, r.text
    s = c.api("GET", "/api/images/%d/sets" % iid).json()["sets"][0]
    r = c.api("POST", "/api/sets/%d/extract" % s["id"], {"revision": s["revision"], "parameters": {"method": "log"}})
    assert r.status == 413 and "needs more memory" in r.json()["error"], (r.status, r.text)
    r = c.api("POST", "/api/sets/%d/extract" % s["id"], {"revision": s["revision"], "parameters": {"method": "auto"}})
    assert r.status == 202, r.text
    assert ended(c, "/api/jobs/%d" % r.json()["job"]["id"], "job")["state"] == "done"
