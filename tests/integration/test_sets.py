"""Annotation sets on the server: edits with revision checks, two users at
once, undo/redo of each user's own steps, undo of one step from the journal
(with the connections it touched), save/revert with net summaries,
history, journal, extraction and connections, and a FastCGI worker killed
in the middle of a burst of edits."""
import json
import math
import os
import sqlite3
import threading

from harness import TESTDATA, Server, kill_process, unique_png, upload_image, wait_for

srv = None
PAPER = os.path.join(TESTDATA, "P2_Pl1_Fig1a_Lepisosteus_platostomus_5.38um.tif")


def setup_module():
    global srv
    srv = Server().start()
    srv.add_users("bea")


def teardown_module():
    srv.cleanup()


def admin():
    return srv.login_as("admin")


def bea():
    return srv.login_as("bea")


def new_image(c, paper=False):
    """A fresh image (uploads are deduplicated by content, so each test
    makes its own unless it needs the paper figure)."""
    j = upload_image(c, PAPER) if paper else upload_image(c, data=unique_png(), filename="t.png")
    image = j["image"]
    sets = c.api("GET", "/api/images/%d/sets" % image["id"]).json()["sets"]
    assert [s["name"] for s in sets] == ["Base"]
    return image, sets[0]


def test_edit_cycle_with_revisions():
    c = admin()
    image, base = new_image(c)
    sid, rev = base["id"], base["revision"]
    r = c.api("POST", "/api/sets/%d/tubercles" % sid, {"revision": rev, "x": 50, "y": 60, "radius_px": 7})
    assert r.status == 200, r.text
    j = r.json()
    assert j["revision"] == rev + 1
    assert j["changed"]["added"][0]["id"] == 1
    assert j["changed"]["added"][0]["centroid_x"] == 50
    assert j["statistics"]["n_tubercles"] == 1
    rev = j["revision"]
    r = c.api("POST", "/api/sets/%d/tubercles" % sid, {"revision": rev, "x": 80, "y": 60})
    rev = r.json()["revision"]
    assert r.json()["changed"]["added"][0]["radius_px"] == 7  # mean of existing radii
    r = c.api("POST", "/api/sets/%d/edges" % sid, {"revision": rev, "id1": 1, "id2": 2})
    assert r.status == 200
    rev = r.json()["revision"]
    e = r.json()["changed"]["edges_added"][0]
    assert e["center_distance_px"] == 30 and e["edge_distance_px"] == 16
    assert e["edge_distance_um"] is None  # uncalibrated: no µm values
    r = c.api("PATCH", "/api/sets/%d/tubercles/2" % sid, {"revision": rev, "x": 90, "y": 61})
    assert r.status == 200
    rev = r.json()["revision"]
    r = c.api("PATCH", "/api/sets/%d/tubercles/99" % sid, {"revision": rev, "x": 1, "y": 1})
    assert r.status == 404
    r = c.api("DELETE", "/api/sets/%d/edges/1/2?revision=%d" % (sid, rev))
    assert r.status == 200
    rev = r.json()["revision"]
    full = c.api("GET", "/api/sets/%d" % sid).json()
    assert full["set"]["revision"] == rev
    assert len(full["tubercles"]) == 2 and full["edges"] == []
    assert full["tubercles"][1]["centroid_x"] == 90
    # errors: missing revision, bad values, outside the image
    assert c.api("POST", "/api/sets/%d/tubercles" % sid, {"x": 1, "y": 1}).status == 422
    assert c.api("POST", "/api/sets/%d/tubercles" % sid, {"revision": rev, "x": "a", "y": 1}).status == 422
    assert c.api("POST", "/api/sets/%d/tubercles" % sid, {"revision": rev, "x": 99999, "y": 1}).status == 422
    assert c.api("DELETE", "/api/sets/%d/tubercles/1" % sid).status == 400


def test_two_users_one_gets_409_and_nothing_is_lost():
    a = admin()
    b = bea()
    image, base = new_image(a)
    sid, rev = base["id"], base["revision"]
    ra = a.api("POST", "/api/sets/%d/tubercles" % sid, {"revision": rev, "x": 10, "y": 10, "radius_px": 4})
    assert ra.status == 200
    rb = b.api("POST", "/api/sets/%d/tubercles" % sid, {"revision": rev, "x": 20, "y": 20, "radius_px": 4})
    assert rb.status == 409
    assert rb.json()["revision"] == ra.json()["revision"]
    assert "changed" in rb.json()["error"]
    rb = b.api("POST", "/api/sets/%d/tubercles" % sid,
               {"revision": rb.json()["revision"], "x": 20, "y": 20, "radius_px": 4})
    assert rb.status == 200
    full = a.api("GET", "/api/sets/%d" % sid).json()
    assert sorted((t["centroid_x"], t["centroid_y"]) for t in full["tubercles"]) == [(10, 10), (20, 20)]
    # each undoes their own step, whoever made the newest one
    r = a.api("POST", "/api/sets/%d/undo" % sid, {"revision": rb.json()["revision"]})
    assert r.status == 200 and r.json()["changed"]["removed"] == [1]
    r = a.api("POST", "/api/sets/%d/redo" % sid, {"revision": r.json()["revision"]})
    assert r.status == 200 and r.json()["changed"]["added"][0]["id"] == 1
    stale = a.api("POST", "/api/sets/%d/undo" % sid, {"revision": 0})
    assert stale.status == 409


def test_save_history_revert_and_journal():
    c = admin()
    image, base = new_image(c)
    sid, rev = base["id"], base["revision"]
    for i in range(4):
        r = c.api("POST", "/api/sets/%d/tubercles" % sid, {"revision": rev, "x": 20 + 30 * i, "y": 40, "radius_px": 5})
        rev = r.json()["revision"]
    r = c.api("POST", "/api/sets/%d/delete" % sid, {"revision": rev, "tubercles": [1, 2]})
    assert r.status == 200 and sorted(r.json()["changed"]["removed"]) == [1, 2]
    rev = r.json()["revision"]
    assert c.api("GET", "/api/sets/%d/revision" % sid).json()["dirty"] is True
    r = c.api("POST", "/api/sets/%d/save" % sid, {"revision": rev})
    assert r.status == 200
    rev = r.json()["revision"]
    assert r.json()["set"]["dirty"] is False
    h = c.api("GET", "/api/sets/%d/history" % sid).json()["history"]
    assert h[0]["type"] == "manual_edit"
    assert h[0]["summary"] == "+2 tubercles"  # net: two of the four added were deleted again
    assert h[0]["result"]["n_tubercles"] == 2
    assert h[0]["user"] == "Administrator"
    r = c.api("POST", "/api/sets/%d/tubercles" % sid, {"revision": rev, "x": 5, "y": 5, "radius_px": 3})
    rev = r.json()["revision"]
    r = c.api("POST", "/api/sets/%d/revert" % sid, {"revision": rev})
    assert r.status == 200 and r.json().get("reload") is True
    assert r.json()["statistics"]["n_tubercles"] == 2
    j = c.api("GET", "/api/sets/%d/journal" % sid).json()["actions"]
    assert j[0]["kind"] == "revert" and j[0]["user"] == "Administrator"
    assert j[1]["label"].startswith("Added tubercle #") and j[1]["state"] == "reverted"
    # selective undo of the area delete while later steps stay
    delete_op = [a for a in j if a["kind"] == "delete_multi"][0]
    r = c.api("POST", "/api/sets/%d/journal/%d/undo" % (sid, delete_op["id"]))
    assert r.status == 200, r.text
    assert r.json()["statistics"]["n_tubercles"] == 4
    r = c.api("POST", "/api/sets/%d/journal/%d/undo" % (sid, delete_op["id"]))
    assert r.status == 422


def test_sets_create_rename_duplicate_delete():
    c = admin()
    image, base = new_image(c)
    r = c.api("POST", "/api/images/%d/sets" % image["id"], {"name": "Second"})
    assert r.status == 201
    second = r.json()["set"]
    assert c.api("POST", "/api/images/%d/sets" % image["id"], {"name": "second"}).status == 409
    assert c.api("POST", "/api/images/%d/sets" % image["id"], {"name": "a/b"}).status == 422
    r = c.api("PATCH", "/api/sets/%d" % second["id"], {"revision": second["revision"], "name": "Renamed <b>"})
    assert r.status == 422
    r = c.api("PATCH", "/api/sets/%d" % second["id"], {"revision": second["revision"], "name": "Renamed"})
    assert r.status == 200
    r = c.api("POST", "/api/sets/%d/duplicate" % second["id"], {"name": "Copy"})
    assert r.status == 201
    names = [s["name"] for s in c.api("GET", "/api/images/%d/sets" % image["id"]).json()["sets"]]
    assert names == ["Base", "Renamed", "Copy"]
    for s in c.api("GET", "/api/images/%d/sets" % image["id"]).json()["sets"][1:]:
        assert c.api("DELETE", "/api/sets/%d?revision=%d" % (s["id"], s["revision"])).status == 200
    r = c.api("DELETE", "/api/sets/%d?revision=%d" % (base["id"], base["revision"]))
    assert r.status == 422 and "last set" in r.json()["error"]


def test_extraction_and_connections_through_the_api():
    c = admin()
    image, base = new_image(c, paper=True)
    sid = base["id"]
    r = c.api("POST", "/api/sets/%d/extract" % sid, {"revision": base["revision"], "parameters": {"method": "auto"}})
    assert r.status == 200, r.text
    j = r.json()
    assert j["statistics"]["n_tubercles"] >= 10
    assert j["statistics"]["n_edges"] >= 10
    assert j["set"]["parameters"]["method"] == "auto"
    h = c.api("GET", "/api/sets/%d/history" % sid).json()["history"]
    assert h[0]["type"] == "extraction" and h[0]["n_tubercles"] == j["statistics"]["n_tubercles"]
    r = c.api("GET", "/api/sets/%d/history/%d/parameters" % (sid, h[0]["id"]))
    assert r.status == 200 and r.json()["parameters"]["method"] == "auto"
    r = c.api("POST", "/api/sets/%d/connections" % sid,
              {"revision": j["revision"], "graph_type": "rng", "cull_long_edges": False})
    assert r.status == 200
    assert r.json()["statistics"]["n_edges"] <= j["statistics"]["n_edges"]
    # one undo step brings the Gabriel edges back
    r = c.api("POST", "/api/sets/%d/undo" % sid, {"revision": r.json()["revision"]})
    assert r.json()["statistics"]["n_edges"] == j["statistics"]["n_edges"]
    # edges deleted by their pairs, every pair asked; a malformed pair refused
    s = c.api("GET", "/api/sets/%d" % sid).json()
    pairs = [[e["id1"], e["id2"]] for e in s["edges"][:2]]
    bad = c.api("POST", "/api/sets/%d/delete" % sid, {"revision": r.json()["revision"], "edges": [pairs[0][:1]]})
    assert bad.status == 422 and "edges" in bad.json()["error"]
    r = c.api("POST", "/api/sets/%d/delete" % sid, {"revision": r.json()["revision"], "edges": pairs})
    assert r.status == 200, r.text
    assert r.json()["statistics"]["n_edges"] == j["statistics"]["n_edges"] - 2
    # methods other than auto need a calibration
    r = c.api("POST", "/api/sets/%d/extract" % sid, {"revision": r.json()["revision"], "parameters": {"method": "log"}})
    assert r.status == 422 and "calibration" in r.json()["error"]
    r = c.api("POST", "/api/sets/%d/extract" % sid, {"revision": 0, "parameters": {"threshold": 7}})
    assert r.status == 422


def test_other_users_private_image_sets_are_invisible():
    a = admin()
    image, base = new_image(a)
    r = a.api("PATCH", "/api/images/%d" % image["id"], {"visibility": "private"})
    assert r.status == 200, r.text
    b = bea()
    assert b.api("GET", "/api/sets/%d" % base["id"]).status == 404
    assert b.api("GET", "/api/images/%d/sets" % image["id"]).status == 404
    r = b.api("POST", "/api/sets/%d/tubercles" % base["id"], {"revision": 0, "x": 1, "y": 1})
    assert r.status == 404
    assert b.api("GET", "/api/sets/999999").status == 404
    assert b.api("GET", "/api/sets/abc").status == 404


def test_killed_worker_during_edit_burst_loses_no_acknowledged_edit():
    """Four editors at once; one FastCGI worker is SIGKILLed in the middle
    of the burst. No acknowledged edit is lost, the database is intact,
    and the site keeps answering: every GET is answered (nginx passes an
    idempotent request whose worker died to a live one, conf/nginx.conf.in),
    and of the POSTs only the one the killed worker held may fail, with 502
    (it may or may not have been applied, so it is not acknowledged)."""
    c = admin()
    image, base = new_image(c)
    sid = base["id"]
    acked, failed = [], []
    lock = threading.Lock()
    killed = threading.Event()

    def note(what, r, after_kill):
        with lock:
            failed.append((what, r.status, r.text[:300], "after the kill" if after_kill else "before the kill"))

    def editor(k, cl):
        try:
            # bounded whatever the answers: every attempt counts, and each
            # editor goes on until it has made 10 attempts after the kill,
            # so the kill always falls inside the burst
            after = 0
            for n in range(200):
                if killed.is_set():
                    after += 1
                    if after > 10:
                        return
                was_killed = killed.is_set()
                rev = cl.api("GET", "/api/sets/%d/revision" % sid)
                if rev.status != 200:
                    note("GET revision", rev, was_killed)
                    continue
                x, y = 5 + (k * 40 + n) % 290, 5 + k * 50
                r = cl.api("POST", "/api/sets/%d/tubercles" % sid,
                           {"revision": rev.json()["revision"], "x": x, "y": y, "radius_px": 2})
                if r.status == 200:
                    with lock:
                        acked.append(r.json()["changed"]["added"][0]["id"])
                elif r.status != 409:  # 409: another editor's edit came first
                    note("POST tubercles", r, was_killed)
        except Exception as e:  # a thread's exception would pass silently
            with lock:
                failed.append(("editor %d" % k, "exception", repr(e), ""))

    # logged in before the burst: a login is a POST, which the kill may fail
    editors = [admin() for _ in range(4)]
    threads = [threading.Thread(target=editor, args=(k, cl)) for k, cl in enumerate(editors)]
    for t in threads:
        t.start()
    try:
        wait_for(lambda: len(acked) >= 20, timeout=60, what="edits before the kill")
        victims = srv.worker_pids()[:1]
        assert victims, "no FastCGI worker to kill"
        kill_process(victims[0], "fishscale.fcgi")
    finally:
        killed.set()
        for t in threads:
            t.join(60)
    assert not any(t.is_alive() for t in threads), "an editor did not end"
    # the killed worker held at most one request; a GET is never lost
    assert all(f[0] == "POST tubercles" and f[1] == 502 for f in failed) and len(failed) <= 1, failed
    r = c.api("GET", "/api/sets/%d" % sid)
    assert r.status == 200, (r.status, r.headers, r.text)
    ids = {t["id"] for t in r.json()["tubercles"]}
    assert set(acked) <= ids, set(acked) - ids
    db = sqlite3.connect(srv.db_path(), timeout=10)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    n = db.execute("SELECT count(*) FROM tubercles WHERE set_id = ?", (sid,)).fetchone()[0]
    db.close()
    assert n == len(ids)


def test_gradient_optimizer_step_on_a_set():
    c = admin()
    image, base = new_image(c, paper=True)
    sid = base["id"]
    # make the image calibrated so that every method may run
    r = c.api("POST", "/api/images/%d/calibration" % image["id"], {"um_per_px": 0.5, "method": "direct"})
    assert r.status == 200, r.text
    rev = c.api("GET", "/api/sets/%d/revision" % sid).json()["revision"]
    r = c.api("POST", "/api/sets/%d/optimize-step" % sid,
              {"revision": rev, "params": {"method": "auto"}, "enabled_params": ["auto_prominence", "blur_sigma"],
               "iteration": 1, "max_iterations": 1, "target_score": 0.99})
    assert r.status == 200, r.text
    j = r.json()
    assert j["extractions_performed"] == 2 * 2 + 2
    assert set(j["gradient"]) == {"auto_prominence", "blur_sigma"}
    assert j["should_stop"] is True and j["stop_reason"] in ("max_iterations", "target_reached")
    assert 0 <= j["hexagonalness"] <= 1
    assert j["revision"] == rev + 1  # the step's result became the set's content
    assert j["statistics"]["n_tubercles"] > 0
    r = c.api("POST", "/api/sets/%d/optimize-step" % sid,
              {"revision": j["revision"], "params": {}, "enabled_params": ["nonsense"]})
    assert r.status == 422


def tubs_of(c, sid):
    j = c.api("GET", "/api/sets/%d" % sid).json()
    return ({t["id"]: (t["centroid_x"], t["centroid_y"]) for t in j["tubercles"]},
            {(e["id1"], e["id2"]) for e in j["edges"]})


def step(c, sid, method, sub, body=None, expect=200):
    rev = c.api("GET", "/api/sets/%d/revision" % sid).json()["revision"]
    if method == "DELETE":
        r = c.api("DELETE", "/api/sets/%d/%s?revision=%d" % (sid, sub, rev))
    else:
        r = c.api(method, "/api/sets/%d/%s" % (sid, sub), dict(body or {}, revision=rev))
    assert r.status == expect, (r.status, r.text)
    return r.json()


def test_undo_and_redo_act_on_the_users_own_steps():
    a, b = admin(), bea()
    image, base = new_image(a)
    sid = base["id"]
    step(b, sid, "POST", "tubercles", {"x": 20, "y": 20, "radius_px": 4})  # bea's #1
    step(a, sid, "POST", "tubercles", {"x": 60, "y": 20, "radius_px": 4})  # the admin's #2
    step(a, sid, "PATCH", "tubercles/2", {"x": 70, "y": 25})
    # bea's Ctrl+Z takes back her own step, not the admin's newer ones
    r = step(b, sid, "POST", "undo")
    assert r["changed"]["removed"] == [1], r["changed"]
    assert tubs_of(a, sid)[0] == {2: (70, 25)}
    r = step(b, sid, "POST", "undo", expect=422)
    assert "nothing to undo" in r["error"]
    sb = b.api("GET", "/api/sets/%d" % sid).json()["set"]
    sa = a.api("GET", "/api/sets/%d" % sid).json()["set"]
    assert (sb["can_undo"], sb["can_redo"]) == (False, True)
    assert (sa["can_undo"], sa["can_redo"]) == (True, False)
    r = step(b, sid, "POST", "redo")
    assert r["changed"]["added"][0]["id"] == 1
    # the admin's undo goes newest first through the admin's own steps
    r = step(a, sid, "POST", "undo")
    assert r["changed"]["updated"][0]["centroid_x"] == 60
    r = step(a, sid, "POST", "redo")
    assert r["changed"]["updated"][0]["centroid_x"] == 70
    # a step someone else has touched since is refused, saying by whom
    step(b, sid, "PATCH", "tubercles/2", {"x": 80, "y": 30})
    r = step(a, sid, "POST", "undo", expect=422)
    assert "#2" in r["error"] and "bea" in r["error"], r["error"]
    assert tubs_of(a, sid)[0][2] == (80, 30)
    # someone else's step is undone only from the journal, which names its author
    j = a.api("GET", "/api/sets/%d/journal" % sid).json()["actions"]
    move = j[0]
    assert move["user"] == "bea" and move["label"].startswith("Moved tubercle #2") and move["mine"] is False
    assert move["can_undo"] is True
    r = a.api("POST", "/api/sets/%d/journal/%d/undo" % (sid, move["id"]))
    assert r.status == 200, r.text
    assert tubs_of(a, sid)[0][2] == (70, 25)


def test_undoing_one_step_takes_its_connections_along():
    c = admin()
    image, base = new_image(c)
    sid = base["id"]
    for x, y in ((20, 20), (60, 20), (40, 50), (80, 50)):
        step(c, sid, "POST", "tubercles", {"x": x, "y": y, "radius_px": 4})
    for e in ((1, 2), (2, 3), (3, 4)):
        step(c, sid, "POST", "edges", {"id1": e[0], "id2": e[1]})
    step(c, sid, "POST", "tubercles", {"x": 100, "y": 20, "radius_px": 4})
    step(c, sid, "POST", "edges", {"id1": 4, "id2": 5})

    def op(prefix):
        j = c.api("GET", "/api/sets/%d/journal" % sid).json()["actions"]
        return [a for a in j if a["label"].startswith(prefix)][0]
    # undoing the addition of #5 takes its connection along
    add5 = op("Added tubercle #5")
    assert add5["can_undo"] is True and add5["why"] is None, add5
    r = c.api("POST", "/api/sets/%d/journal/%d/undo" % (sid, add5["id"]))
    assert r.status == 200, r.text
    t, e = tubs_of(c, sid)
    assert 5 not in t and (4, 5) not in e
    # undoing a deletion brings back the tubercle with the connections it had
    step(c, sid, "DELETE", "tubercles/3")
    step(c, sid, "DELETE", "tubercles/4")
    r = c.api("POST", "/api/sets/%d/journal/%d/undo" % (sid, op("Deleted tubercle #3")["id"]))
    assert r.status == 200, r.text
    t, e = tubs_of(c, sid)
    assert t[3] == (40, 50) and e == {(1, 2), (2, 3)}  # 3-4 cannot come back: #4 is gone
    # a step that no longer applies is marked so, with the reason, before anyone tries
    step(c, sid, "PATCH", "tubercles/1", {"x": 25, "y": 25})
    step(c, sid, "DELETE", "tubercles/1")
    move = op("Moved tubercle #1")
    assert move["can_undo"] is False and "#1 no longer exists" in move["why"], move
    r = c.api("POST", "/api/sets/%d/journal/%d/undo" % (sid, move["id"]))
    assert r.status == 422 and "#1 no longer exists" in r.json()["error"]


def test_save_after_an_extraction_summarises_the_net_effect():
    c = admin()
    image, base = new_image(c, paper=True)
    sid = base["id"]
    r = step(c, sid, "POST", "extract", {"parameters": {"method": "auto"}})
    n1, e1 = r["statistics"]["n_tubercles"], r["statistics"]["n_edges"]
    step(c, sid, "POST", "save")
    r = step(c, sid, "POST", "optimize-step", {"params": {"method": "auto"}, "enabled_params": ["auto_prominence"],
                                               "iteration": 1, "max_iterations": 1})
    r = step(c, sid, "POST", "extract", {"parameters": {"method": "auto", "auto_prominence": 0.6}})
    n2, e2 = r["statistics"]["n_tubercles"], r["statistics"]["n_edges"]
    step(c, sid, "POST", "tubercles", {"x": 3, "y": 3, "radius_px": 2})
    step(c, sid, "POST", "save")
    h = c.api("GET", "/api/sets/%d/history" % sid).json()["history"][0]
    assert h["type"] == "manual_edit"
    want = "optimiser step, extraction: %d → %d tubercles, %d → %d connections; then +1 tubercle" % (
        n1, n2 + 1, e1, e2)
    assert h["summary"] == want, (h["summary"], want)
    assert h["details"]["tubercles_before"] == n1 and h["details"]["tubercles_after"] == n2 + 1
    assert [s["kind"] for s in h["details"]["steps"]] == ["optimize_step", "extraction"]


def test_column_layout_holds_the_same_values_as_the_rows():
    """GET /api/sets/{id}?layout=columns (what the workspace reads: a
    quarter of the bytes for a large set) carries every row field but the
    edges' end points, value for value, nulls included. An image of its
    own (the paper figure is shared by the other tests and stays
    uncalibrated), a set imported with and without ellipses."""
    c = admin()
    image, _ = new_image(c)
    tub = [{"id": i + 1, "centroid_x": 20.5 + 30 * (i % 6) + 15 * (i // 6 % 2), "centroid_y": 20.25 + 26 * (i // 6),
            "radius_px": 8 + 0.1 * i, "circularity": 0.9, "is_boundary": False, "source": "extracted"}
           for i in range(30)]
    for t in tub[::3]:
        t.update({"major_axis_px": 18.5, "minor_axis_px": 15.25, "orientation": 0.5, "eccentricity": 0.57})
    edges = [{"id1": i + 1, "id2": i + 2} for i in range(29) if (i + 1) % 6] + \
            [{"id1": i + 1, "id2": i + 7} for i in range(24)]
    doc = {"format": "fish-scale-annotations", "version": "3.0", "image_name": "cols",
           "sets": [{"id": "s", "name": "cols", "tubercles": tub, "edges": edges}]}
    r = c.api("POST", "/api/images/%d/import" % image["id"], None, body=json.dumps(doc).encode(),
              headers={"Content-Type": "application/json"})
    assert r.status == 201, r.text
    sid = r.json()["sets"][0]["id"]
    for calibrated in (False, True):
        if calibrated:
            r = c.api("POST", "/api/images/%d/calibration" % image["id"], {"um_per_px": 0.5, "method": "direct"})
            assert r.status == 200, r.text
        rows = c.api("GET", "/api/sets/%d" % sid).json()
        cols = c.api("GET", "/api/sets/%d?layout=columns" % sid).json()
        assert cols["set"] == rows["set"] and cols["statistics"] == rows["statistics"]
        t, e = cols["tubercles"], cols["edges"]
        assert t["n"] == len(rows["tubercles"]) == 30 and e["n"] == len(rows["edges"]) >= 40
        assert any("major_axis_px" in row for row in rows["tubercles"])
        for i, row in enumerate(rows["tubercles"]):
            for k in t:
                if k == "n":
                    continue
                want = row.get(k)  # a field the row leaves out is null in its column
                if k == "is_boundary":
                    want = 1 if want else 0
                assert t[k][i] == want, (i, k, t[k][i], want)
        for i, row in enumerate(rows["edges"]):
            for k in e:
                if k != "n":
                    assert e[k][i] == row[k], (i, k)
        assert (rows["edges"][0]["edge_distance_um"] is not None) == calibrated
        # ?layout=compact (what the workspace reads): the columns' own
        # fields, a column without any value as one null, no derived one
        # (diameters, µm lengths, connections' lengths: store.js derives
        # them as below); the same set, statistics and image
        comp = c.api("GET", "/api/sets/%d?layout=compact" % sid).json()
        assert comp["set"] == cols["set"] and comp["statistics"] == cols["statistics"] and comp["image"] == cols["image"]
        ct, ce = comp["tubercles"], comp["edges"]
        derived = {"diameter_px", "diameter_um", "major_axis_um", "minor_axis_um"}
        assert set(ct) == set(t) - derived and set(ce) == {"n", "id1", "id2"}
        for k in ct:
            want = t[k] if k == "n" or any(v is not None for v in t[k]) else None
            assert ct[k] == want, k
        assert ce == {"n": e["n"], "id1": e["id1"], "id2": e["id2"]}
        um = 0.5 if calibrated else None
        close = lambda a, b: (a is None and b is None) or (a is not None and b is not None and abs(a - b) < 1e-8)
        for i in range(t["n"]):
            r = t["radius_px"][i]
            assert close(t["diameter_px"][i], 2 * r) and close(t["diameter_um"][i], 2 * r * um if um else None)
            if t["major_axis_px"][i] is not None:
                assert close(t["major_axis_um"][i], t["major_axis_px"][i] * um if um else None)
        pos = {t["id"][i]: (t["centroid_x"][i], t["centroid_y"][i], t["radius_px"][i]) for i in range(t["n"])}
        for i in range(e["n"]):
            a, b = pos[e["id1"][i]], pos[e["id2"][i]]
            cd = math.hypot(a[0] - b[0], a[1] - b[1])
            assert close(e["center_distance_px"][i], cd) and close(e["edge_distance_px"][i], cd - a[2] - b[2])
            assert close(e["edge_distance_um"][i], (cd - a[2] - b[2]) * um if um else None)


def test_misspelt_keys_are_refused_naming_the_key():
    """Every key of a set route's body is declared: a misspelt one is a 422
    naming it, and the set does not change (before, "paramters" on extract
    was ignored and the set re-extracted with the stored parameters)."""
    c = admin()
    image, base = new_image(c)
    sid, rev = base["id"], base["revision"]
    r = c.api("POST", "/api/sets/%d/tubercles" % sid, {"revision": rev, "x": 50, "y": 60, "radius_px": 7})
    assert r.status == 200, r.text
    rev = r.json()["revision"]
    cases = [
        ("extract", {"paramters": {"threshold": 0.2}}, "paramters"),
        ("delete", {"tubercle": [1]}, "tubercle"),
        ("radius", {"radius_px": 9, "tubercle": [1]}, "tubercle"),
        ("remeasure", {"rule": "dome"}, "rule"),
        ("analyze-point", {"x": 50, "y": 60, "region_factr": 3}, "region_factr"),
        ("optimize-step", {"params": {"method": "auto"}, "enabled_param": ["threshold"]}, "enabled_param"),
        ("clear", {"confirm": True}, "confirm"),
        ("undo", {"steps": 2}, "steps"),
        ("redo", {"steps": 2}, "steps"),
        ("save", {"nmae": "checkpoint"}, "nmae"),
        ("revert", {"to": 0}, "to"),
    ]
    for sub, body, key in cases:
        body = dict(body)
        if sub != "analyze-point":
            body["revision"] = rev
        r = c.api("POST", "/api/sets/%d/%s" % (sid, sub), body)
        assert r.status == 422, (sub, r.status, r.text)
        assert r.json()["error"] == "unknown field '%s'" % key, (sub, r.text)
    s = c.api("GET", "/api/sets/%d" % sid).json()["set"]
    assert s["revision"] == rev
    assert [t["radius_px"] for t in c.api("GET", "/api/sets/%d" % sid).json()["tubercles"]] == [7]
    # the documented fields are still taken
    r = c.api("POST", "/api/sets/%d/radius" % sid, {"revision": rev, "radius_px": 9, "tubercles": [1]})
    assert r.status == 200, r.text
    r = c.api("POST", "/api/sets/%d/undo" % sid, {"revision": r.json()["revision"]})
    assert r.status == 200, r.text
