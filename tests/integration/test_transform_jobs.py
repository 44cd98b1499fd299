"""Transforms of large images as background jobs: above sync_max_pixels a
rotation, crop, autocrop, undo or reset answers 202 with a job at once
(Location: /api/jobs/{id}); the job applies the step as one whole
operation, so the image JSON, its history and its files change exactly as
for a small image; a stale revision is refused before a job starts; the
user's one-job limit holds (429 with Retry-After); small images stay
synchronous."""

from harness import Server, wait_for
from test_images import png_gray, upload

srv = None


def setup_module():
    global srv
    srv = Server(env={"FISHSCALE_SYNC_MAX_PIXELS": "20000", "FISHSCALE_IMPORT_SYNC_MAX_PIXELS": "20000"}).start()


def teardown_module():
    if srv:
        srv.cleanup()


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


def upload_large(c, data, name):
    """An upload over the import limit: the import job's image."""
    j = finish_kind(c, upload(c, data, name), "import")
    assert j["state"] == "done", j
    return image(c, j["result"]["image_id"])


def image(c, iid):
    return c.api("GET", "/api/images/%d" % iid).json()["image"]


def test_rotate_crop_undo_of_a_large_image_run_as_jobs():
    c = login()
    img = upload_large(c, png_gray(200, 120, lambda x, y: (x * 3 + y) & 255), "large.png")
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
    img = upload_large(c, png_gray(200, 110, lambda x, y: 0), "flat.png")
    j = finish(c, c.api("POST", "/api/images/%d/autocrop" % img["id"]))
    assert j["state"] == "failed" and "crop" in j["error"], j
    assert image(c, img["id"])["revision"] == img["revision"]


def test_stale_revision_is_refused_before_a_job():
    c = login()
    img = upload_large(c, png_gray(210, 100, lambda x, y: (x + y) & 255), "stale.png")
    r = c.api("POST", "/api/images/%d/rotate" % img["id"], {"direction": "right", "revision": img["revision"] + 5})
    assert r.status == 409, (r.status, r.text)


def test_one_transform_job_per_user():
    c = login()
    a = upload_large(c, png_gray(220, 100, lambda x, y: (x * 5 + y) & 255), "a.png")
    b = upload_large(c, png_gray(230, 100, lambda x, y: (x * 7 + y) & 255), "b.png")
    srv.hold_jobs()
    try:
        r1 = c.api("POST", "/api/images/%d/rotate" % a["id"], {"direction": "left"})
        assert r1.status == 202, r1.text
        r2 = c.api("POST", "/api/images/%d/rotate" % b["id"], {"direction": "left"})
        assert r2.status == 429 and r2.header("Retry-After"), (r2.status, r2.text)
    finally:
        srv.release_jobs()
    assert finish(c, r1)["state"] == "done"


def test_small_images_stay_synchronous():
    c = login()
    img = upload(c, png_gray(100, 100, lambda x, y: (x * 9 + y) & 255), "small.png").json()["image"]
    r = c.api("POST", "/api/images/%d/rotate" % img["id"], {"direction": "left"})
    assert r.status == 200 and r.json()["image"]["revision"] == img["revision"] + 1, r.text


def test_large_upload_is_imported_by_a_job():
    """Above sync_max_pixels the upload stores the original and answers 202;
    the import job makes the entry (result.image_id) with its Base set; the
    same file again is the same entry; a refused import leaves nothing."""
    from test_images import state
    c = login()
    data = png_gray(240, 100, lambda x, y: (x * 11 + y * 3) & 255)
    r = upload(c, data, "imported.png")
    j = finish_kind(c, r, "import")
    assert j["state"] == "done", j
    iid = j["result"]["image_id"]
    img = image(c, iid)
    assert (img["width"], img["height"]) == (240, 100) and img["name"] == "imported.png"
    sets = c.api("GET", "/api/images/%d/sets" % iid).json()["sets"]
    assert [s["name"] for s in sets] == ["Base"]
    assert c.get("/api/images/%d/display.png" % iid).status == 200
    # the automatic scale region was found while the image was decoded, so
    # the first extraction does not spend its time on it
    rows = srv.sql("SELECT source, width, height FROM scale_regions WHERE image_id = ?", (iid,))
    assert rows == [("auto", 240, 100)], rows
    # the same file again: the entry it already has, at once
    r = upload(c, data, "imported.png")
    assert r.status == 200 and r.json()["image"]["id"] == iid, r.text
    # a file that fails to decode after its header: the job fails, nothing stays
    before = state(srv)
    bad = bytearray(png_gray(250, 100, lambda x, y: (x + y) & 255))
    bad[-30:-12] = b"\x00" * 18  # breaks the IDAT stream's end
    j = finish_kind(c, upload(c, bytes(bad), "broken.png"), "import")
    assert j["state"] == "failed" and j["error"], j
    after = state(srv)
    assert after == before, (before, after)


def finish_kind(c, r, kind):
    assert r.status == 202, (r.status, r.text)
    job = r.json()["job"]
    assert job["kind"] == kind, job
    def done():
        j = c.api("GET", "/api/jobs/%d" % job["id"]).json()["job"]
        return j if j["state"] not in ("queued", "starting", "running") else None
    return wait_for(done, timeout=30)
