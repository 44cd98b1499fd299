"""Agent runs through nginx + FastCGI: start/status/log/stop/list/cleanup/
reset of the optimiser and the editing agent as detached worker processes,
with the offline provider `local` and with the mock LLM provider
(tests/mock_provider/mock_server.py) standing in for OpenRouter."""
import json
import os
import signal
import time

from harness import TESTDATA, agent_set, kill_process, wait_for
from mock_provider import start_site, stop_site

PAPER = os.path.join(TESTDATA, "P1_Fig4_Atractosteus_simplex_7.07um.tif")

srv = None
mock = None


def setup_module():
    global srv, mock
    srv, mock = start_site({
        "FISHSCALE_AGENT_MAX_RUNS_PER_USER": "1",
        "FISHSCALE_AGENT_MAX_ITERATIONS": "40",
        "FISHSCALE_AGENT_MAX_COST_USD": "5",
    }, users=("ann", "ben"))


def teardown_module():
    stop_site(srv, mock)


def client(login="admin"):
    c = srv.login_as(login)
    # a run left going by a failed test would hold the user's only slot
    for run in c.api("GET", "/api/agent/list").json()["runs"]:
        if run["state"] in ("starting", "running"):
            c.api("POST", "/api/agent/stop/%d" % run["run_id"])
    return c


def script(responses):
    """Loads the mock provider's next answers. The mock is shared by the
    module's runs: wait until no earlier run (any user's, stopped or not)
    is still going, so none of them can consume this test's answers."""
    admin = srv.client()
    admin.login()
    wait_for(lambda: not [x for x in admin.api("GET", "/api/agent/list?all=1").json()["runs"]
                          if x["state"] in ("starting", "running")], 30, "earlier runs to end")
    mock.script(responses)


def turn(calls, delay_ms=0, usage=(100, 20), text="Working on it."):
    return {"text": text, "tool_calls": [{"name": n, "arguments": a} for n, a in calls],
            "usage": {"input": usage[0], "output": usage[1]}, "delay_ms": delay_ms}


def new_set(c, paper=False, extract=False):
    """A set of its own (harness's agent_set)."""
    return agent_set(c, PAPER if paper else None, extract, "agent")


def status(c, rid, edit=False):
    r = c.api("GET", "/api/agent/%sstatus/%d" % ("edit/" if edit else "", rid))
    assert r.status == 200, r.text
    return r.json()


def finished(c, rid, edit=False, timeout=60):
    return wait_for(lambda: (lambda s: s if s["state"] not in ("starting", "running") else None)(
        status(c, rid, edit)), timeout, "run %d to end" % rid)


def start(c, body, edit=False, expect=200):
    r = c.api("POST", "/api/agent/edit/start" if edit else "/api/agent/start", body)
    assert r.status == expect, (r.status, r.text)
    return r.json()


def slow_edit(c, n=30, delay_ms=700):
    image_id, sid = new_set(c)
    script([turn([("get_state", {})], delay_ms=delay_ms) for _ in range(n)])
    j = start(c, {"image_id": image_id, "set_id": sid, "provider": "openrouter",
                  "model": "anthropic/claude-sonnet-4", "max_iterations": 40, "plateau_threshold": 10,
                  "auto_connect": False, "cleanup_boundary": False}, edit=True)
    wait_for(lambda: status(c, j["run_id"], True)["state"] == "running", 10, "running")
    return j["run_id"], image_id, sid


# ---- catalogue and validation ----

def test_providers_lists_local_and_configured_keys():
    c = client()
    j = c.api("GET", "/api/agent/providers").json()
    by = {p["name"]: p for p in j["providers"]}
    assert by["local"]["configured"] is True
    assert by["openrouter"]["configured"] is True
    assert by["anthropic"]["configured"] is False
    assert any(m["input_per_mtok"] > 0 for m in by["openrouter"]["models"])
    assert j["default_provider"] == "openrouter"


def test_agent_api_needs_login_and_csrf():
    anon = srv.client()
    assert anon.get("/api/agent/list").status == 401
    c = client()
    r = c.request("POST", "/api/agent/start", json_body={"image_id": 1, "set_id": 1})
    assert r.status == 403


def test_start_refuses_bad_values_with_422():
    c = client()
    image_id, sid = new_set(c)
    base = {"image_id": image_id, "set_id": sid, "provider": "local"}
    for extra, word in [({"max_iterations": 41}, "max_iterations"), ({"max_iterations": 0}, "max_iterations"),
                        ({"provider": "skynet"}, "provider"), ({"target_score": 2}, "target_score"),
                        ({"max_cost_usd": 6}, "max_cost_usd"), ({"profile": "nope"}, "profile"),
                        ({"unknown_field": 1}, "unknown_field"), ({"provider": "anthropic"}, "API key")]:
        r = c.api("POST", "/api/agent/start", dict(base, **extra))
        assert r.status == 422, (extra, r.status, r.text)
        assert word in r.json()["error"], (extra, r.text)
    r = c.api("POST", "/api/agent/edit/start", dict(base, auto_connect_method="zigzag"))
    assert r.status == 422 and "auto_connect_method" in r.text
    r = c.api("POST", "/api/agent/edit/start", dict(base, plateau_threshold=11))
    assert r.status == 422


def test_start_on_unknown_or_foreign_set_is_404():
    c = client()
    image_id, sid = new_set(c)
    other_image, other_set = new_set(c)
    assert start(c, {"image_id": 999999, "set_id": sid}, expect=404)["error"] == "no such image"
    start(c, {"image_id": image_id, "set_id": other_set}, expect=404)
    r = c.api("GET", "/api/agent/status/999999")
    assert r.status == 404


# ---- full runs with the local provider ----

def test_optimizer_run_with_local_provider_completes_with_every_field():
    c = client()
    image_id, sid = new_set(c, paper=True)
    j = start(c, {"image_id": image_id, "set_id": sid, "provider": "local", "max_iterations": 3})
    assert j["state"] == "starting" and j["session_id"] == str(j["run_id"])
    st = finished(c, j["run_id"])
    assert st["state"] == "completed", st
    assert st["finish_reason"] == "max_iterations"
    for k in ("iteration", "max_iterations", "elapsed_seconds", "phase", "current_params", "current_metrics",
              "best_iteration", "best_metrics", "history", "last_prompt", "last_response", "usage",
              "best_score", "pid", "started_at", "finished_at"):
        assert k in st, k
    assert st["iteration"] == 3 and len(st["history"]) == 3
    assert st["best_metrics"]["n_tubercles"] > 10
    assert st["log_lines"] and st["log_lines"][0].startswith("[")
    # the row has the outcome; the set carries the best extraction
    runs = c.api("GET", "/api/agent/list").json()["runs"]
    row = [x for x in runs if x["run_id"] == j["run_id"]][0]
    assert row["state"] == "completed" and row["iterations"] == 3 and row["best_score"] is not None
    s = c.api("GET", "/api/sets/%d" % sid).json()
    assert len(s["tubercles"]) == st["best_metrics"]["n_tubercles"]


def test_optimizer_stops_at_the_target():
    c = client()
    image_id, sid = new_set(c, paper=True)
    j = start(c, {"image_id": image_id, "set_id": sid, "provider": "local", "max_iterations": 10,
                  "target_score": 0.05})
    st = finished(c, j["run_id"])
    assert st["state"] == "completed" and st["finish_reason"] == "target_achieved", st
    assert st["iteration"] == 1


def test_edit_run_with_local_provider_and_log_paging():
    c = client()
    image_id, sid = new_set(c, paper=True, extract=True)
    n0 = len(c.api("GET", "/api/sets/%d" % sid).json()["tubercles"])
    j = start(c, {"image_id": image_id, "set_id": sid, "provider": "local", "max_iterations": 5}, edit=True)
    assert j["session_id"] == "edit-%d" % j["run_id"]
    st = finished(c, j["run_id"], edit=True)
    assert st["state"] == "completed", st
    for k in ("phase", "iteration", "max_iterations", "tubercle_count", "tubercle_delta", "itc_count",
              "hexagonalness", "coverage_percent", "plateau_count", "plateau_threshold", "elapsed_seconds",
              "step_time_seconds", "log_lines", "last_prompt", "last_response", "costs"):
        assert k in st, k
    assert set(st["costs"]) >= {"provider", "model", "input_tokens", "output_tokens", "estimated_cost",
                                "last_step_cost"}
    assert st["tubercle_count"] == n0 + st["tubercle_delta"]
    log = c.api("GET", "/api/agent/status/%d/log" % j["run_id"]).json()
    assert log["lines"] and log["complete"] is True
    half = c.api("GET", "/api/agent/status/%d/log?since=%d" % (j["run_id"], log["offset"])).json()
    assert half["lines"] == [] and half["offset"] == log["offset"]
    assert c.api("GET", "/api/agent/status/%d/log?since=-1" % j["run_id"]).status == 422
    stop = c.api("POST", "/api/agent/edit/stop/%d" % j["run_id"]).json()
    assert stop["message"] == "Agent already completed"
    assert {"final_hexagonalness", "tubercles_added", "tubercles_deleted"} <= set(stop)
    # the run is in the set's history: the worker writes it after the row
    # says the run is over (cgi/main_agent.c history_and_event), so it may
    # land a moment after the state this test waited for
    wait_for(lambda: any(e["type"] == "agent_edit"
                         for e in c.api("GET", "/api/sets/%d/history" % sid).json()["history"]),
             10, "the run in the set's history")


# ---- runs with the mock provider ----

def test_edit_run_changes_the_set_while_it_runs():
    c = client()
    image_id, sid = new_set(c)
    rev0 = c.api("GET", "/api/sets/%d/revision" % sid).json()["revision"]
    script([turn([("add_tubercle", {"x": 20 + 15 * i, "y": 40})], delay_ms=300) for i in range(8)] +
           [turn([("finish", {"reason": "done"})])])
    j = start(c, {"image_id": image_id, "set_id": sid, "provider": "openrouter", "max_iterations": 20,
                  "plateau_threshold": 10, "auto_connect": False, "cleanup_boundary": False}, edit=True)
    seen = []

    def grew():
        st = status(c, j["run_id"], True)
        rev = c.api("GET", "/api/sets/%d/revision" % sid).json()["revision"]
        seen.append((st["state"], st["iteration"], rev))
        return st["state"] == "running" and rev > rev0 + 1
    wait_for(grew, 20, "the set to change during the run")
    st = finished(c, j["run_id"], edit=True)
    assert st["state"] == "completed" and st["finish_reason"] == "finished", st
    iters = [s[1] for s in seen]
    assert iters == sorted(iters)
    assert st["tubercles_added"] == 8
    assert st["costs"]["input_tokens"] == 900 and st["costs"]["estimated_cost"] > 0


def test_edit_run_stops_on_plateau():
    c = client()
    image_id, sid = new_set(c)
    script([turn([("get_state", {})]) for _ in range(10)])
    j = start(c, {"image_id": image_id, "set_id": sid, "provider": "openrouter", "plateau_threshold": 2,
                  "auto_connect": False, "cleanup_boundary": False}, edit=True)
    st = finished(c, j["run_id"], edit=True)
    assert st["finish_reason"] == "plateau_detected" and st["state"] == "completed", st
    assert st["iteration"] == 2


def test_edit_run_stops_at_max_iterations():
    c = client()
    image_id, sid = new_set(c)
    script([turn([("add_tubercle", {"x": 30 + 20 * i, "y": 50})]) for i in range(6)])
    j = start(c, {"image_id": image_id, "set_id": sid, "provider": "openrouter", "max_iterations": 3,
                  "plateau_threshold": 10, "auto_connect": False, "cleanup_boundary": False}, edit=True)
    st = finished(c, j["run_id"], edit=True)
    assert st["finish_reason"] == "max_iterations", st
    assert st["iteration"] == 3


def test_edit_run_stops_at_the_cost_limit():
    c = client()
    image_id, sid = new_set(c)
    # 1 M input tokens of claude-sonnet-4 through OpenRouter: $3 a turn
    script([turn([("get_state", {})], usage=(1000000, 10)) for _ in range(5)])
    j = start(c, {"image_id": image_id, "set_id": sid, "provider": "openrouter",
                  "model": "anthropic/claude-sonnet-4", "max_cost_usd": 4, "plateau_threshold": 10,
                  "auto_connect": False, "cleanup_boundary": False}, edit=True)
    st = finished(c, j["run_id"], edit=True)
    assert st["finish_reason"] == "max_cost", st
    # the second turn's worst case ($3 of input + max_tokens) is checked
    # before it is made: the run stops under the limit (issue 16)
    assert 3 <= st["costs"]["estimated_cost"] <= 4, st["costs"]


def test_stop_ends_a_running_worker_with_state_stopped():
    c = client()
    rid, image_id, sid = slow_edit(c)
    t0 = time.monotonic()
    r = c.api("POST", "/api/agent/edit/stop/%d" % rid)
    assert r.status == 200, r.text
    j = r.json()
    assert j["success"] and j["state"] == "stopped" and j["finish_reason"] == "user_stopped", j
    assert {"final_hexagonalness", "tubercles_added", "tubercles_deleted"} <= set(j)
    assert time.monotonic() - t0 < 6
    st = status(c, rid, True)
    assert st["state"] == "stopped"
    pid = st["pid"]
    wait_for(lambda: not os.path.exists("/proc/%d" % pid) or
             open("/proc/%d/stat" % pid).read().split(")")[1].split()[0] == "Z", 10, "worker gone")
    h = c.api("GET", "/api/sets/%d/history" % sid).json()["history"]
    assert any(e["type"] == "agent_edit" and e.get("state") == "stopped" for e in h), h


def test_killed_worker_is_reported_failed():
    c = client()
    rid, image_id, sid = slow_edit(c)
    pid = status(c, rid, True)["pid"]
    kill_process(pid, "fishscale-agent")
    st = wait_for(lambda: (lambda s: s if s["state"] == "failed" else None)(status(c, rid, True)), 15, "failed")
    assert st["finish_reason"] == "worker_died"
    assert "without recording a final state" in st["error"]


def test_crashed_worker_says_how_it_died():
    """A worker ended by a fatal signal leaves its last words on its stderr
    file (cgi/app/fatal_note.c), and the run's error shows them: without
    them a run that crashed reads like one that was killed."""
    c = client()
    rid, image_id, sid = slow_edit(c)
    pid = status(c, rid, True)["pid"]
    kill_process(pid, "fishscale-agent", signal.SIGSEGV)
    st = wait_for(lambda: (lambda s: s if s["state"] == "failed" else None)(status(c, rid, True)), 15, "failed")
    assert st["finish_reason"] == "worker_died", st
    assert "fishscale-agent %d: fatal signal %d (SIGSEGV)" % (rid, signal.SIGSEGV) in st["error"], st["error"]


def test_second_run_over_the_user_limit_is_429_and_others_unaffected():
    c = client()
    rid, image_id, sid = slow_edit(c)
    image2, sid2 = new_set(c)
    r = c.api("POST", "/api/agent/start", {"image_id": image2, "set_id": sid2, "provider": "local"})
    assert r.status == 429 and "limit 1" in r.json()["error"], r.text
    # another user still may start one
    ann = client("ann")
    image3, sid3 = new_set(ann)
    j = start(ann, {"image_id": image3, "set_id": sid3, "provider": "local", "max_iterations": 1})
    finished(ann, j["run_id"])
    assert c.api("POST", "/api/agent/edit/stop/%d" % rid).json()["state"] == "stopped"
    j = start(c, {"image_id": image2, "set_id": sid2, "provider": "local", "max_iterations": 1})
    finished(c, j["run_id"])


def test_users_cannot_read_or_stop_each_others_runs():
    ann, ben = client("ann"), client("ben")
    image_id, sid = new_set(ann)
    j = start(ann, {"image_id": image_id, "set_id": sid, "provider": "local", "max_iterations": 1})
    rid = j["run_id"]
    for method, path in [("GET", "/api/agent/status/%d"), ("GET", "/api/agent/edit/status/%d"),
                         ("GET", "/api/agent/status/%d/log"), ("POST", "/api/agent/stop/%d"),
                         ("POST", "/api/agent/edit/stop/%d"), ("POST", "/api/agent/reset/%d")]:
        r = ben.api(method, path % rid)
        assert r.status == 404, (path, r.status, r.text)
        if method == "POST":
            # these take no fields: a key is refused before anything is looked up
            r = ann.api(method, path % rid, {"run_id": rid})
            assert r.status == 422 and r.json()["error"] == "unknown field 'run_id'", (path, r.text)
    assert all(x["run_id"] != rid for x in ben.api("GET", "/api/agent/list").json()["runs"])
    assert ben.api("GET", "/api/agent/list?all=1").status == 403
    assert any(x["run_id"] == rid for x in client().api("GET", "/api/agent/list?all=1").json()["runs"])
    finished(ann, rid)


def test_status_file_is_never_seen_half_written():
    c = client()
    image_id, sid = new_set(c)
    script([turn([("add_tubercle", {"x": 10 + 9 * i, "y": 20 + (i % 5) * 20})], delay_ms=20)
            for i in range(18)] + [turn([("finish", {"reason": "done"})])])
    j = start(c, {"image_id": image_id, "set_id": sid, "provider": "openrouter", "plateau_threshold": 10,
                  "max_iterations": 30, "auto_connect": False, "cleanup_boundary": False}, edit=True)
    path = os.path.join(srv.data, "runs", str(j["run_id"]), "status.json")
    reads, seqs = 0, []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with open(path) as f:
                text = f.read()
        except FileNotFoundError:
            continue
        st = json.loads(text)  # a torn file would raise here
        reads += 1
        seqs.append(st["seq"])
        if st["state"] not in ("starting", "running"):
            break
    assert reads > 10 and seqs == sorted(seqs), (reads, seqs[:20])
    assert oct(os.stat(os.path.dirname(path)).st_mode & 0o777) == "0o700"
    assert not [n for n in os.listdir(os.path.dirname(path)) if n.endswith(".tmp")]


def test_reset_returns_the_set_to_its_state_before_the_run():
    c = client()
    image_id, sid = new_set(c, paper=True, extract=True)

    def snapshot():
        s = c.api("GET", "/api/sets/%d" % sid).json()
        return (sorted((t["id"], round(t["centroid_x"], 3), round(t["centroid_y"], 3)) for t in s["tubercles"]),
                sorted((e["id1"], e["id2"]) for e in s["edges"]))
    before = snapshot()
    j = start(c, {"image_id": image_id, "set_id": sid, "provider": "local", "max_iterations": 5}, edit=True)
    st = finished(c, j["run_id"], edit=True)
    assert st["tubercles_added"] + st["tubercles_deleted"] + st["tubercles_moved"] > 0, st
    assert snapshot() != before
    r = c.api("POST", "/api/agent/reset/%d" % j["run_id"])
    assert r.status == 200, r.text
    assert r.json()["undone_steps"] > 0
    assert snapshot() == before


def test_undoing_one_agent_step_takes_its_connections_along():
    """Selective undo of agent steps: an added tubercle goes with the
    connections the run made to it, a deleted one comes back with the
    connections it had, and a step that no longer applies says why in the
    journal before anyone presses its button."""
    c = client()
    image_id, sid = new_set(c)

    def add(x, y):
        rev = c.api("GET", "/api/sets/%d/revision" % sid).json()["revision"]
        r = c.api("POST", "/api/sets/%d/tubercles" % sid, {"revision": rev, "x": x, "y": y, "radius_px": 5})
        assert r.status == 200, r.text
    for x, y in ((40, 40), (80, 40), (60, 80)):
        add(x, y)
    # #4 at a neighbour's distance from #3 (40 px, the set's median
    # connection 44.7 px): its connection to #3 is kept by the default
    # long-edge culling (1.4 x the median) and by the older 1.8 alike
    script([turn([("add_tubercle", {"x": 100, "y": 80, "radius": 5})]),
            turn([("add_tubercle", {"x": 160, "y": 80, "radius": 5})]),
            turn([("auto_connect", {"method": "delaunay"})]),
            turn([("move_tubercle", {"id": 5, "x": 165, "y": 85})]),
            turn([("delete_tubercle", {"id": 5})]),
            turn([("delete_tubercle", {"id": 2})]),
            turn([("finish", {"reason": "done"})])])
    j = start(c, {"image_id": image_id, "set_id": sid, "provider": "openrouter", "max_iterations": 20,
                  "plateau_threshold": 10, "auto_connect": False, "cleanup_boundary": False,
                  "keep_best": False}, edit=True)
    st = finished(c, j["run_id"], edit=True)
    assert st["state"] == "completed", st

    def view():
        s = c.api("GET", "/api/sets/%d" % sid).json()
        return {t["id"] for t in s["tubercles"]}, {(e["id1"], e["id2"]) for e in s["edges"]}

    def action(prefix):
        acts = c.api("GET", "/api/sets/%d/journal" % sid).json()["actions"]
        return [a for a in acts if a["agent_run_id"] == j["run_id"] and a["label"].startswith(prefix)][0]
    ids, edges = view()
    assert ids == {1, 3, 4} and any(4 in e for e in edges), (ids, edges)
    delete2 = action("Deleted tubercle #2")
    had = {e for e in edges if 2 in e}  # none: #2 is gone
    assert not had
    # the addition of #4: its connections from the run's auto_connect go along
    add4 = action("Added tubercle #4")
    assert add4["can_undo"] is True, add4
    r = c.api("POST", "/api/sets/%d/journal/%d/undo" % (sid, add4["id"]))
    assert r.status == 200, r.text
    ids, edges = view()
    assert 4 not in ids and not any(4 in e for e in edges)
    # the deletion of #2: it returns with its connections to the tubercles still there
    r = c.api("POST", "/api/sets/%d/journal/%d/undo" % (sid, delete2["id"]))
    assert r.status == 200, r.text
    ids, edges = view()
    assert ids == {1, 2, 3} and (1, 2) in edges and (2, 3) in edges, (ids, edges)
    # the move of #5 cannot be undone any more (#5 was deleted): disabled, with the reason
    move = action("Moved tubercle #5")
    assert move["can_undo"] is False and "#5 no longer exists" in move["why"], move
    assert action("Deleted tubercle #2")["can_undo"] is False  # already undone


def test_reset_of_a_running_run_is_409_and_cleanup_keeps_running_runs():
    c = client()
    rid, image_id, sid = slow_edit(c)
    assert c.api("POST", "/api/agent/reset/%d" % rid).status == 409
    r = c.api("POST", "/api/agent/cleanup", {"max_age_hours": 0})
    assert r.status == 200
    assert os.path.isdir(os.path.join(srv.data, "runs", str(rid)))
    assert status(c, rid, True)["state"] == "running"
    c.api("POST", "/api/agent/edit/stop/%d" % rid)
    r = c.api("POST", "/api/agent/cleanup", {"max_age_hours": 0})
    assert r.json()["removed_count"] >= 1
    assert not os.path.exists(os.path.join(srv.data, "runs", str(rid)))
    assert c.api("GET", "/api/agent/status/%d" % rid).status == 404
    assert c.api("POST", "/api/agent/cleanup", {"max_age_hours": -1}).status == 422


def test_approve_each_step_waits_for_the_users_answer():
    c = client()
    image_id, sid = new_set(c)
    script([turn([("add_tubercle", {"x": 40, "y": 40})]), turn([("add_tubercle", {"x": 90, "y": 40})]),
            turn([("finish", {"reason": "done"})])])
    j = start(c, {"image_id": image_id, "set_id": sid, "provider": "openrouter", "approve_each_step": True,
                  "plateau_threshold": 10, "auto_connect": False, "cleanup_boundary": False}, edit=True)
    rid = j["run_id"]
    answers = [True, False]
    while True:
        st = wait_for(lambda: (lambda s: s if s.get("pending_approval") or s["state"] not in
                               ("starting", "running") else None)(status(c, rid, True)), 20, "a proposal")
        if st["state"] not in ("starting", "running"):
            break
        assert st["pending_approval"]["tool"] in ("add_tubercle", "finish")
        ok = answers.pop(0) if answers else True
        r = c.api("POST", "/api/agent/approve/%d" % rid, {"approve": ok, "reason": "" if ok else "not there"})
        assert r.status == 200, r.text
        wait_for(lambda: (lambda s: s.get("pending_approval") != st["pending_approval"])(status(c, rid, True)),
                 10, "answer taken")
    assert st["state"] == "completed", st
    assert st["tubercles_added"] == 1  # the second proposal was rejected
    assert c.api("POST", "/api/agent/approve/%d" % rid, {"approve": True}).status == 409
    assert c.api("POST", "/api/agent/approve/%d" % rid, {"approve": "yes"}).status == 422


# ---- issue 16: observable runs, session ids, the worker's environment ----

def test_run_routes_accept_the_session_id():
    c = client()
    image_id, sid = new_set(c)
    script([turn([("get_state", {})]), turn([("finish", {"reason": "done"})])])
    j = start(c, {"image_id": image_id, "set_id": sid, "provider": "openrouter", "plateau_threshold": 10,
                  "auto_connect": False, "cleanup_boundary": False}, edit=True)
    assert j["session_id"] == "edit-%d" % j["run_id"]
    finished(c, j["run_id"], edit=True)
    for path in ("/api/agent/edit/status/%s", "/api/agent/status/%s", "/api/agent/edit/status/%s/log",
                 "/api/agent/transcript/%s", "/api/agent/text/%s"):
        for ident in (j["session_id"], str(j["run_id"])):
            r = c.api("GET", path % ident)
            assert r.status == 200, (path, ident, r.status, r.text)
    assert c.api("GET", "/api/agent/edit/status/%s" % j["session_id"]).json()["run_id"] == j["run_id"]
    for bad in ("edit-0", "edit-x", "7edit", "edit-", "-1"):
        assert c.api("GET", "/api/agent/edit/status/%s" % bad).status == 404
    # stop and reset take it too
    assert c.api("POST", "/api/agent/edit/stop/%s" % j["session_id"]).status in (200, 409)


def test_transcript_records_model_calls_tool_calls_and_tool_errors():
    c = client()
    image_id, sid = new_set(c)
    script([turn([("get_state", {}), ("no_such_tool", {}), ("add_tubercle", {"x": "left"})]),
            turn([("finish", {"reason": "done"})])])
    j = start(c, {"image_id": image_id, "set_id": sid, "provider": "openrouter", "plateau_threshold": 10,
                  "auto_connect": False, "cleanup_boundary": False}, edit=True)
    st = finished(c, j["run_id"], edit=True)
    r = c.api("GET", "/api/agent/transcript/%d" % j["run_id"])
    assert r.status == 200 and "x-ndjson" in r.header("Content-Type")
    assert "attachment" in r.header("Content-Disposition")
    recs = [json.loads(l) for l in r.text.splitlines()]
    types = [x["type"] for x in recs]
    assert types.count("model_call") == 2, types
    errs = [x for x in recs if x["type"] == "tool_error"]
    assert {e["name"] for e in errs} == {"no_such_tool", "add_tubercle"}, errs
    assert any(x["type"] == "tool_call" and x["name"] == "get_state" for x in recs)
    assert "sk-or-test" not in r.text
    log = c.api("GET", "/api/agent/status/%d/log" % j["run_id"]).json()
    text = json.dumps(log)
    assert "Tool error: no_such_tool" in text and "Model call 1" in text, text[:2000]


def test_worker_gets_only_its_own_providers_key():
    c = client()
    rid, image_id, sid = slow_edit(c, n=30, delay_ms=300)
    pid = status(c, rid, True)["pid"]
    env = open("/proc/%d/environ" % pid, "rb").read().split(b"\0")
    names = {e.split(b"=", 1)[0] for e in env if b"=" in e}
    assert b"OPENROUTER_API_KEY" in names
    assert not names & {b"ANTHROPIC_API_KEY", b"OPENAI_API_KEY", b"GEMINI_API_KEY", b"VLLM_API_KEY"}, names
    c.api("POST", "/api/agent/stop/%d" % rid)
    finished(c, rid, edit=True)


def test_editor_streams_its_text():
    c = client()
    image_id, sid = new_set(c)
    script([turn([("get_state", {})], text="Looking at the state first."),
            turn([("finish", {"reason": "done"})], text="All done.")])
    j = start(c, {"image_id": image_id, "set_id": sid, "provider": "openrouter", "plateau_threshold": 10,
                  "auto_connect": False, "cleanup_boundary": False}, edit=True)
    finished(c, j["run_id"], edit=True)
    t = c.api("GET", "/api/agent/text/%d" % j["run_id"]).json()
    assert t["text"] == "Looking at the state first.\n\nAll done.", t
