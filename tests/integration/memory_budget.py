"""The heavy jobs' memory budget's site and images, for the tests of
admission control (test_jobs_memory.py, test_agent_admission.py): one
site with a small budget, the outline rule's estimates and two users
(mia, noa); checkerboard uploads, calibrated when asked; waiting for jobs
to end. Not a test module (run.py runs test_*.py)."""
from harness import Server, wait_for
from test_images import png_gray, upload


def budget_site(memory_mb):
    """A started site whose heavy jobs may take memory_mb, where images
    above 50,000 pixels are extracted by jobs (four may run). The outline
    rule even when the suite runs with the dome rule
    (FS_TEST_MEASUREMENT_RULE), whose estimates are larger: the tests'
    image sizes are chosen for the outline rule's."""
    srv = Server(env={"FISHSCALE_SYNC_MAX_PIXELS": "50000", "FISHSCALE_JOBS_MEMORY_MB": str(memory_mb),
                      "FISHSCALE_JOBS_MAX_RUNNING": "4", "FISHSCALE_MEASUREMENT_RULE": "outline"}).start()
    srv.add_users("mia", "noa")
    return srv


def checker_image(c, w, h, um_per_px=None, prefix="m"):
    """Uploads a w x h checkerboard (12 px squares) as client c, calibrated
    at um_per_px when given: (image id, the image's first set)."""
    r = upload(c, png_gray(w, h, lambda x, y: 200 if ((x // 12) + (y // 12)) % 2 else 30),
               "%s%dx%d.png" % (prefix, w, h))
    assert r.status == 201, r.text
    iid = r.json()["image"]["id"]
    if um_per_px:
        r = c.api("POST", "/api/images/%d/calibration" % iid, {"um_per_px": um_per_px})
        assert r.status == 200, r.text
    return iid, c.api("GET", "/api/images/%d/sets" % iid).json()["sets"][0]


def ended(c, path, key):
    """Waits until GET path's key (a job, or a batch's list of jobs) has
    ended (done, failed or cancelled) and returns it."""
    def done():
        j = c.api("GET", path).json()[key]
        items = j if isinstance(j, list) else [j]
        return j if all(x["state"] in ("done", "failed", "cancelled") for x in items) else None
    return wait_for(done, timeout=120, what=path)


def job_ended(c, job_id):
    return ended(c, "/api/jobs/%d" % job_id, "job")
