"""Transforms of large images as background jobs: above sync_max_pixels a
rotation, crop, autocrop, undo or reset answers 202 with a job at once
(Location: /api/jobs/{id}); the job applies the step as one whole
operation, so the image JSON, its history and its files change exactly as
for a small image; a stale revision is refused before a job starts; the
user's one-job limit holds (429 with Retry-After); small images stay
synchronous."""
import os

from harness import Server, wait_for
from test_images import png_gray, upload

srv = None


def setup_module():
    global srv
    srv = Server(env={"FISHSCALE_SYNC_MAX_PIXELS": "20000"}).start()
    os.makedirs(os.path.join(srv.data, "jobs"), exist_ok=True)


def teardown_module():
    if srv:
        release()
        srv.cleanup()


def release():
    try:
        os.unlink(os.path.join(srv.data, "jobs", "hold"))
    except FileNotFoundError:
        pass


def login():
    c = srv.client()
    assert c.login().status == 303
    return c


def finish(c, r):
    assert r.status == 202, (r.status, r.text)
    job = r.json()["job"]
    assert job["kind"] == "transform", job
    assert r.header("Location").endswith("/api/jobs/%d" % job["id"])
    def done():
        j = c.api("GET", "/api/jobs/%d" % job["id"]).json()["job"]
        return j if j["state"] not in ("queued", "starting", "running") else None
    return wait_for(done, timeout=30)


def image(c, iid):
    return c.api("GET", "/api/images/%d" % iid).json()["image"]


def test_rotate_crop_undo_of_a_large_image_run_as_jobs():
    c = login()
    img = upload(c, png_gray(200, 120, lambda x, y: (x * 3 + y) & 255), "large.png").json()["image"]
    iid = img["id"]
    j = finish(c, c.api("POST", "/api/images/%d/rotate" % iid, {"direction": "left", "revision": img["revision"]}))
    assert j["state"] == "done", j
    assert (j["result"]["width"], j["result"]["height"]) == (120, 200), j
    now = image(c, iid)
    assert (now["width"], now["height"]) == (120, 200) and now["revision"] == img["revision"] + 1
    j = finish(c, c.api("POST", "/api/images/%d/crop" % iid, {"x": 10, "y": 20, "width": 100, "height": 150}))
    assert j["state"] == "done", j
    assert (image(c, iid)["width"], image(c, iid)["height"]) == (100, 150)
    # 100 x 150 = 15,000 pixels: small again, so the undo is synchronous
    r = c.api("POST", "/api/images/%d/transforms/undo" % iid)
    assert r.status == 200, r.text
    # back at 120 x 200 (24,000): undo of the rotation is a job again
    j = finish(c, c.api("POST", "/api/images/%d/transforms/reset" % iid))
    assert j["state"] == "done", j
    back = image(c, iid)
    assert (back["width"], back["height"]) == (200, 120) and back["undoable_steps"] == 0


def test_a_failing_transform_job_says_why_and_changes_nothing():
    c = login()
    img = upload(c, png_gray(200, 110, lambda x, y: 0), "flat.png").json()["image"]
    j = finish(c, c.api("POST", "/api/images/%d/autocrop" % img["id"]))
    assert j["state"] == "failed" and "crop" in j["error"], j
    assert image(c, img["id"])["revision"] == img["revision"]


def test_stale_revision_is_refused_before_a_job():
    c = login()
    img = upload(c, png_gray(210, 100, lambda x, y: (x + y) & 255), "stale.png").json()["image"]
    r = c.api("POST", "/api/images/%d/rotate" % img["id"], {"direction": "right", "revision": img["revision"] + 5})
    assert r.status == 409, (r.status, r.text)


def test_one_transform_job_per_user():
    c = login()
    a = upload(c, png_gray(220, 100, lambda x, y: (x * 5 + y) & 255), "a.png").json()["image"]
    b = upload(c, png_gray(230, 100, lambda x, y: (x * 7 + y) & 255), "b.png").json()["image"]
    open(os.path.join(srv.data, "jobs", "hold"), "w").close()
    try:
        r1 = c.api("POST", "/api/images/%d/rotate" % a["id"], {"direction": "left"})
        assert r1.status == 202, r1.text
        r2 = c.api("POST", "/api/images/%d/rotate" % b["id"], {"direction": "left"})
        assert r2.status == 429 and r2.header("Retry-After"), (r2.status, r2.text)
    finally:
        release()
    assert finish(c, r1)["state"] == "done"


def test_small_images_stay_synchronous():
    c = login()
    img = upload(c, png_gray(100, 100, lambda x, y: (x * 9 + y) & 255), "small.png").json()["image"]
    r = c.api("POST", "/api/images/%d/rotate" % img["id"], {"direction": "left"})
    assert r.status == 200 and r.json()["image"]["revision"] == img["revision"] + 1, r.text
