"""Agent runs on large images share the heavy jobs' memory budget (issue
15, h22b; cgi/app/job_control.c's fs_job_agent_memory_estimate_for,
lib/store/agent_runs.c): an agent run on an image above sync_max_pixels is
refused with 503, Retry-After and a message naming the memory while a
held extraction leaves too little of the budget, and starts once that job
is done; a run on an image small enough to extract synchronously is not
counted and starts beside the held job.

Estimates (8-bit, margin 25 %): an agent run on 300 x 200 about 107 MB
(auto's extraction estimate, 23 MB, and 64 MiB the session keeps besides);
log on 1000 x 1000, which it detects whole, about 140 MB; the budget is
200 MB: each fits alone, not both. The job is held at its "detecting"
stage by the hold file (cgi/main_job.c)."""

from harness import wait_for
from memory_budget import budget_site, checker_image, job_ended

srv = None


def setup_module():
    global srv
    srv = budget_site(200)


def teardown_module():
    if srv:
        srv.cleanup()


def image(c, w, h):
    return checker_image(c, w, h, um_per_px=0.5, prefix="a")


def start_edit(c, iid, s):
    return c.api("POST", "/api/agent/edit/start", {"image_id": iid, "set_id": s["id"], "provider": "local",
                                                   "max_iterations": 1})


def run_ended(c, rid):
    def done():
        j = c.api("GET", "/api/agent/edit/status/%d" % rid).json()
        return j if j["state"] not in ("starting", "running") else None
    return wait_for(done, timeout=120, what="agent run %d to end" % rid)


def test_an_agent_run_on_a_large_image_waits_for_the_memory_a_job_holds():
    mia, noa = srv.login_as("mia"), srv.login_as("noa")
    big_id, big = image(mia, 300, 200)
    small_id, small = image(mia, 200, 200)
    _, held_set = image(noa, 1000, 1000)
    srv.hold_jobs()
    try:
        r = noa.api("POST", "/api/sets/%d/extract" % held_set["id"],
                    {"revision": held_set["revision"], "parameters": {"method": "log"}})
        assert r.status == 202, r.text
        held = r.json()["job"]["id"]
        r = start_edit(mia, big_id, big)
        assert r.status == 503, r.text
        assert int(r.header("Retry-After")) >= 1
        err = r.json()["error"]
        assert "memory" in err and "MB" in err, err
        assert [x for x in mia.api("GET", "/api/agent/list").json()["runs"] if x["set_id"] == big["id"]] == []
        # 40,000 pixels: extracted synchronously, its agent run not counted
        r = start_edit(mia, small_id, small)
        assert r.status == 200, r.text
        assert run_ended(mia, r.json()["run_id"])["state"] == "completed"
    finally:
        srv.release_jobs()
    assert job_ended(noa, held)["state"] == "done"
    r = start_edit(mia, big_id, big)
    assert r.status == 200, r.text
    assert run_ended(mia, r.json()["run_id"])["state"] == "completed"
