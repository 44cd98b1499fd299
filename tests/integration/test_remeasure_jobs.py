"""Re-measure of a large image's set as a background job (issue 15 item 3)
through nginx + FastCGI: over sync_max_pixels the request answers 202 with
a job at once; the job measures the set's centres at the revision the
request saw and stores them as one undoable step (history, event log) with
the diameters a synchronous Re-measure gives; an edit made while the job
runs is kept and the job says so; admission control refuses a second job
of the same user (429) and one beyond the site's slots (503), with
Retry-After.

The limit is the configurable one (FISHSCALE_SYNC_MAX_PIXELS), so a paper
figure is "large"; jobs are held at their measuring stage by the hold file
(cgi/main_job.c), never by timing."""
import json
import os

from harness import Server, ok, wait_for, wait_job
from test_images import login, upload, PAPER

srv = None
USERS = ("ann", "ben", "cat")


def setup_module():
    global srv
    srv = Server(env={"FISHSCALE_SYNC_MAX_PIXELS": "50000", "FISHSCALE_JOBS_MAX_RUNNING": "1"}).start()
    for who in USERS:
        srv.cli("user", "add", who, input=who + "-password-123\n")


def teardown_module():
    if srv:
        srv.cleanup()


def outdated_set(server, c, resize=True):
    """A paper figure extracted into its Base set (a job over the limit),
    marked as measured before versioning, with one tubercle's radius
    doubled by hand: (set id, GET of the set, the resized tubercle)."""
    with open(PAPER, "rb") as f:
        r = upload(c, f.read(), "paper.tif")
    assert r.status in (200, 201), r.text
    img = r.json()["image"]
    s = ok(c.api("GET", "/api/images/%d/sets" % img["id"]))["sets"][0]
    r = c.api("POST", "/api/sets/%d/extract" % s["id"], {"revision": s["revision"]})
    if r.status == 202:
        assert wait_job(c, r.json()["job"]["id"])["state"] == "done"
    else:
        ok(r)
    got = ok(c.api("GET", "/api/sets/%d" % s["id"]))
    assert len(got["tubercles"]) > 20
    t0 = got["tubercles"][len(got["tubercles"]) // 2]
    if resize:
        ok(c.api("PATCH", "/api/sets/%d/tubercles/%d" % (s["id"], t0["id"]),
                 {"revision": got["set"]["revision"], "radius_px": t0["radius_px"] * 2}))
    server.sql("UPDATE sets SET measurement_version = 0 WHERE id = ?", (s["id"],))
    return s["id"], ok(c.api("GET", "/api/sets/%d" % s["id"])), t0


def remeasure(c, sid, rev):
    return c.api("POST", "/api/sets/%d/remeasure" % sid, {"revision": rev})


def sizes(s):
    return {t["id"]: t["radius_px"] for t in s["tubercles"]}


def sizes_at(s):
    """Radii by centre (an imported set numbers its tubercles afresh)."""
    return {(t["centroid_x"], t["centroid_y"]): t["radius_px"] for t in s["tubercles"]}


def test_remeasure_of_a_large_set_is_a_job_and_one_undoable_step():
    srv.release_jobs()
    c = login(srv, "ann")
    sid, old, t0 = outdated_set(srv, c)
    # revision-checked at once, like the synchronous Re-measure
    assert remeasure(c, sid, old["set"]["revision"] - 1).status == 409
    r = remeasure(c, sid, old["set"]["revision"])
    assert r.status == 202, r.text
    job = r.json()["job"]
    assert job["kind"] == "remeasure" and job["set_id"] == sid
    assert r.header("Location").endswith("/api/jobs/%d" % job["id"])
    done = wait_job(c, job["id"])
    assert done["state"] == "done", done
    res = done["result"]
    assert res["set_id"] == sid and res["from_version"] == 0 and res["n_tubercles"] == len(old["tubercles"])
    assert res["n_changed"] >= 1
    after = ok(c.api("GET", "/api/sets/%d" % sid))
    assert after["set"]["revision"] == res["revision"]
    assert after["set"]["measurement_version"] == res["to_version"] >= 1
    assert after["set"]["measurement_outdated"] is False
    # centres, ids and connections as they were; the doubled radius measured again
    key = lambda t: (t["id"], t["centroid_x"], t["centroid_y"], t["source"])
    assert sorted(map(key, after["tubercles"])) == sorted(map(key, old["tubercles"]))
    pairs = lambda s: sorted((e["id1"], e["id2"]) for e in s["edges"])
    assert pairs(after) == pairs(old)
    ra = sizes(after)[t0["id"]]
    assert ra is None or abs(ra - t0["radius_px"]) < 0.25 * t0["radius_px"], (ra, t0)
    # the same diameters as a synchronous Re-measure of the same centres on
    # a site without the limit
    with Server() as plain:
        pc = login(plain, "admin")
        with open(PAPER, "rb") as f:
            img2 = upload(pc, f.read(), "paper.tif").json()["image"]
        # the export of the state before the job: undo it first, export, redo
        ok(c.api("POST", "/api/sets/%d/undo" % sid, {"revision": after["set"]["revision"]}))
        doc = c.get("/api/sets/%d/export.json" % sid).json()
        back = ok(c.api("GET", "/api/sets/%d" % sid))
        r = pc.api("POST", "/api/images/%d/import" % img2["id"], None, body=json.dumps(doc).encode(),
                   headers={"Content-Type": "application/json"})
        sid2 = ok(r, 201)["sets"][0]["id"]
        s2 = ok(pc.api("GET", "/api/sets/%d" % sid2))
        j2 = ok(remeasure(pc, sid2, s2["set"]["revision"]))
        assert j2["remeasure"]["n_changed"] == res["n_changed"]
        synced = ok(pc.api("GET", "/api/sets/%d" % sid2))
        assert sizes_at(synced) == sizes_at(after), [
            (k, v, sizes_at(after).get(k)) for k, v in sizes_at(synced).items() if sizes_at(after).get(k) != v][:5]
    # one undo (above) restored the old diameters and version exactly
    full = lambda t: (t["id"], t["centroid_x"], t["centroid_y"], t["radius_px"], t["circularity"])
    assert sorted(map(full, back["tubercles"])) == sorted(map(full, old["tubercles"]))
    assert back["set"]["measurement_version"] == 0
    hist = ok(c.api("GET", "/api/sets/%d/history" % sid))["history"]
    rm = [h for h in hist if h["type"] == "remeasure"]
    assert len(rm) == 1 and rm[0]["job_id"] == job["id"] and rm[0]["n_changed"] == res["n_changed"]
    journal = ok(c.api("GET", "/api/sets/%d/journal" % sid))["actions"]
    assert sum(1 for a in journal if a["kind"] == "remeasure") == 1


def test_an_edit_made_while_the_job_runs_is_kept():
    c = login(srv, "ben")
    sid, old, t0 = outdated_set(srv, c, resize=False)
    srv.hold_jobs()
    try:
        r = remeasure(c, sid, old["set"]["revision"])
        assert r.status == 202, r.text
        jid = r.json()["job"]["id"]
        wait_for(lambda: (lambda j: j["state"] == "running" and j["stage"] == "measuring")(
            ok(c.api("GET", "/api/jobs/%d" % jid))["job"]), timeout=60, what="the job running at its measuring stage")
        # the user moves on: a tubercle added while the job measures
        e = ok(c.api("POST", "/api/sets/%d/tubercles" % sid,
                     {"revision": old["set"]["revision"], "x": 40, "y": 40, "radius_px": 7}))
    finally:
        srv.release_jobs()
    j = wait_job(c, jid)
    assert j["state"] == "failed", j
    assert "changed while it was being re-measured" in j["error"] and "kept" in j["error"], j
    now = ok(c.api("GET", "/api/sets/%d" % sid))
    assert now["set"]["revision"] == e["revision"]
    assert now["set"]["measurement_version"] == 0
    assert len(now["tubercles"]) == len(old["tubercles"]) + 1
    new = {k: v for k, v in sizes(now).items() if k not in sizes(old)}
    assert list(new.values()) == [7]
    assert {k: v for k, v in sizes(now).items() if k in sizes(old)} == sizes(old)
    hist = ok(c.api("GET", "/api/sets/%d/history" % sid))["history"]
    assert not any(h["type"] == "remeasure" for h in hist)
    events = ok(c.api("GET", "/api/log?type=remeasure_failed"))["entries"]
    assert any(ev["details"].get("job_id") == jid for ev in events), events


def test_admission_refuses_a_second_job_of_the_user_and_one_beyond_the_slots():
    a, b = login(srv, "cat"), login(srv, "ann")
    sa, olda, _ = outdated_set(srv, a, resize=False)
    # the same file uploaded again is the same image: a second set of it
    img_a = ok(a.api("GET", "/api/sets/%d" % sa))["set"]["image_id"]
    sa2 = ok(a.api("POST", "/api/images/%d/sets" % img_a, {"name": "Second"}), 201)["set"]["id"]
    sb, oldb, _ = outdated_set(srv, b, resize=False)
    srv.hold_jobs()
    try:
        r = remeasure(a, sa, olda["set"]["revision"])
        assert r.status == 202, r.text
        jid = r.json()["job"]["id"]
        wait_job(a, jid, states=("running",), timeout=60)
        # one job at a time per user
        r = remeasure(a, sa2, 0)
        assert r.status == 429, r.text
        assert int(r.header("Retry-After")) >= 1 and "one at a time" in r.json()["error"]
        # the site's one slot is taken
        r = remeasure(b, sb, oldb["set"]["revision"])
        assert r.status == 503, r.text
        assert int(r.header("Retry-After")) >= 1 and "busy" in r.json()["error"]
        # the refused sets are untouched and the site answers
        assert ok(b.api("GET", "/api/sets/%d" % sb))["set"]["revision"] == oldb["set"]["revision"]
        assert srv.client().get("/api/health").status == 200
    finally:
        srv.release_jobs()
    assert wait_job(a, jid)["state"] == "done"
