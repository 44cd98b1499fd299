"""The agent routes the browser's agent tabs need beyond the runs API:
POST /api/agent/chat/start (a chat instruction, seed 002) and
GET /api/agent/chat/text/{id} (its streamed reply from a byte offset), with
the offline provider `local` and the mock LLM provider standing in for
OpenRouter (streamed answers)."""
import json
import os
import time

from harness import TESTDATA, agent_set, wait_for
from mock_provider import start_site, stop_site

PAPER = os.path.join(TESTDATA, "P1_Fig4_Atractosteus_simplex_7.07um.tif")

srv = None
mock = None


def setup_module():
    global srv, mock
    srv, mock = start_site(users=("cleo",))


def teardown_module():
    stop_site(srv, mock)


def client(login="admin"):
    return srv.login_as(login)


def script(responses):
    mock.script(responses)


def new_set(c, paper=False):
    """A set of its own; the paper figure's extracted."""
    return agent_set(c, PAPER if paper else None, extract=paper, label="chat")


def status(c, rid):
    r = c.api("GET", "/api/agent/status/%d" % rid)
    assert r.status == 200, r.text
    return r.json()


def finished(c, rid, timeout=60):
    return wait_for(lambda: (lambda s: s if s["state"] not in ("starting", "running") else None)(
        status(c, rid)), timeout, "run %d to end" % rid)


def read_text(c, rid, timeout=30):
    """Polls the text route as the browser does; returns (text, polls)."""
    text, offset, polls = "", 0, 0
    deadline = time.time() + timeout
    while time.time() < deadline:
        r = c.api("GET", "/api/agent/chat/text/%d?since=%d" % (rid, offset))
        assert r.status == 200, r.text
        j = r.json()
        assert j["offset"] >= offset
        text += j["text"]
        offset = j["offset"]
        polls += 1
        if j["complete"]:
            return text, polls
        time.sleep(0.05)
    raise AssertionError("text of run %d never complete" % rid)


def test_chat_start_without_body_is_400():
    c = client()
    r = c.api("POST", "/api/agent/chat/start", headers={"Content-Type": "application/json"}, body=b"")
    assert r.status == 400, r.text


def test_chat_start_refuses_empty_instruction_with_422():
    c = client()
    image_id, sid = new_set(c)
    for body in ({"image_id": image_id, "set_id": sid},
                 {"image_id": image_id, "set_id": sid, "instruction": "   "},
                 {"image_id": image_id, "set_id": sid, "instruction": "fill gaps", "max_tool_calls": 0},
                 {"image_id": image_id, "set_id": sid, "instruction": "fill gaps", "approve_timeout_s": 1},
                 {"image_id": image_id, "set_id": sid, "instruction": "x" * 4001}):
        r = c.api("POST", "/api/agent/chat/start", body)
        assert r.status == 422, (body, r.status, r.text)
        assert "instruction" in r.json()["error"] or "max_tool_calls" in r.json()["error"] \
            or "approve_timeout_s" in r.json()["error"]


def test_agent_start_refuses_model_names_that_are_not_names():
    # issue 14 item 6: a model name goes into a provider's URL path
    c = client()
    image_id, sid = new_set(c)
    for route, extra in (("/api/agent/chat/start", {"instruction": "fill gaps"}),
                         ("/api/agent/edit/start", {}), ("/api/agent/start", {})):
        for model in ("x?key=1", "../../v1/files", "a b", "m\nHost: x"):
            body = dict(extra, image_id=image_id, set_id=sid, provider="openrouter", model=model)
            r = c.api("POST", route, body)
            assert r.status == 422 and "model" in r.json()["error"], (route, model, r.status, r.text)
        # issue 14 item 9: a calibration every extraction would fail with
        for cal in (1e-320, 0.5e-4, 101):
            body = dict(extra, image_id=image_id, set_id=sid, provider="openrouter", calibration=cal)
            r = c.api("POST", route, body)
            assert r.status == 422 and "calibration" in r.json()["error"], (route, cal, r.status, r.text)


KEY = "sk-or-test-not-a-real-key"


def key_places(c, rid, sid):
    """Every API answer about a run and its set that could carry a provider's words."""
    pages = ["/api/agent/status/%d" % rid, "/api/agent/status/%d/log" % rid, "/api/agent/list",
             "/api/agent/chat/text/%d?since=0" % rid, "/api/sets/%d/history" % sid, "/api/log?user=all",
             "/api/sets/%d" % sid]
    return {p: c.api("GET", p).text for p in pages}


def data_files_with(needle):
    hits = []
    for root, _dirs, files in os.walk(srv.data):
        for f in files:
            path = os.path.join(root, f)
            try:
                with open(path, "rb") as fh:
                    if needle.encode() in fh.read():
                        hits.append(path)
            except OSError:
                pass
    return hits


def test_api_key_echoed_by_the_provider_is_redacted_everywhere():
    # issue 14 item 5: a provider that echoes the key in a 401 body and an
    # error header, in a streamed reply and in a tool argument
    c = client()
    image_id, sid = new_set(c)
    script([{"status": 401, "headers": {"X-Error-Detail": "rejected key {{KEY}}"},
             "message": "Incorrect API key provided: {{KEY}}. You can find your API key at ..."}])
    r = c.api("POST", "/api/agent/chat/start", {"image_id": image_id, "set_id": sid, "provider": "openrouter",
                                                "instruction": "How does it look?"})
    assert r.status == 200, r.text
    failed = r.json()["run_id"]
    st = finished(c, failed)
    assert st["state"] == "failed" and "Incorrect API key provided" in json.dumps(st), st
    assert "[REDACTED]" in json.dumps(st)
    script([{"text": "I used the key " + "{{KEY}}" + " to look; adding one.",
             "tool_calls": [{"name": "add_tubercle", "arguments": {"x": 40, "y": 40, "note": "{{KEY}}"}}],
             "usage": {"input": 50, "output": 10}},
            {"text": "Done. Your key is {{KEY}}", "usage": {"input": 60, "output": 10}}])
    r = c.api("POST", "/api/agent/chat/start", {"image_id": image_id, "set_id": sid, "provider": "openrouter",
                                                "instruction": "add one"})
    assert r.status == 200, r.text
    rid = r.json()["run_id"]
    st = finished(c, rid)
    text, _ = read_text(c, rid)
    assert "I used the key [REDACTED] to look" in text, text
    for run in (failed, rid):
        for page, body in key_places(c, run, sid).items():
            assert KEY not in body and KEY[:12] not in body, (page, body[:2000])
    assert data_files_with(KEY) == []
    assert data_files_with(KEY[:12]) == []


def test_chat_start_on_another_users_image_is_404():
    c = client()
    image_id, sid = new_set(c)
    assert c.api("PATCH", "/api/images/%d" % image_id, {"visibility": "private"}).status == 200
    other = client("cleo")
    r = other.api("POST", "/api/agent/chat/start", {"image_id": image_id, "set_id": sid, "instruction": "fill gaps"})
    assert r.status == 404, r.text


def test_chat_with_local_provider_replies_and_keeps_the_exchange_in_history():
    c = client()
    image_id, sid = new_set(c, paper=True)
    before = c.api("GET", "/api/sets/%d" % sid).json()["set"]["n_tubercles"]
    r = c.api("POST", "/api/agent/chat/start", {"image_id": image_id, "set_id": sid, "provider": "local",
                                                "instruction": "Please fill gaps in the lattice",
                                                "max_tool_calls": 5})
    assert r.status == 200, r.text
    rid = r.json()["run_id"]
    assert r.json()["options"]["max_tool_calls"] == 5
    st = finished(c, rid)
    assert st["state"] == "completed", st
    assert st["kind"] == "chat"
    text, _ = read_text(c, rid)
    assert "Added" in text and st["reply"] in text
    after = c.api("GET", "/api/sets/%d" % sid).json()["set"]["n_tubercles"]
    assert 0 < after - before <= 5
    hist = c.api("GET", "/api/sets/%d/history" % sid).json()["history"]
    chat = [h for h in hist if h["type"] == "agent_chat"]
    assert chat and chat[0]["instruction"] == "Please fill gaps in the lattice"
    journal = c.api("GET", "/api/sets/%d/journal" % sid).json()["actions"]
    assert any(a.get("agent_run_id") == rid for a in journal)


def test_chat_text_streams_in_pieces_and_is_whole_at_the_end():
    c = client()
    image_id, sid = new_set(c)
    reply = "I looked at the set. Nothing needs to change here: ünïcödé stays whole."
    script([{"text": reply, "usage": {"input": 50, "output": 10}, "delay_ms": 300}])
    r = c.api("POST", "/api/agent/chat/start", {"image_id": image_id, "set_id": sid, "provider": "openrouter",
                                                "instruction": "How does it look?"})
    assert r.status == 200, r.text
    rid = r.json()["run_id"]
    text, polls = read_text(c, rid)
    assert text == reply, text
    assert polls >= 2  # the text was still empty while the model "thought"
    assert finished(c, rid)["reply"] == reply


def test_chat_text_of_someone_elses_run_is_404_and_bad_offset_422():
    c = client()
    image_id, sid = new_set(c)
    r = c.api("POST", "/api/agent/chat/start", {"image_id": image_id, "set_id": sid, "provider": "local",
                                                "instruction": "what can you do?"})
    rid = r.json()["run_id"]
    finished(c, rid)
    assert client("cleo").api("GET", "/api/agent/chat/text/%d" % rid).status == 404
    assert c.api("GET", "/api/agent/chat/text/%d?since=-1" % rid).status == 422
    j = c.api("GET", "/api/agent/chat/text/%d?since=100000" % rid).json()
    assert j["text"] == "" and j["complete"] is True


def test_chat_with_approval_waits_and_rejection_changes_nothing():
    c = client()
    image_id, sid = new_set(c)
    script([{"text": "Adding one.", "tool_calls": [{"name": "add_tubercle", "arguments": {"x": 40, "y": 40}}],
             "usage": {"input": 50, "output": 10}},
            {"text": "Understood, leaving it.", "usage": {"input": 60, "output": 10}}])
    r = c.api("POST", "/api/agent/chat/start", {"image_id": image_id, "set_id": sid, "provider": "openrouter",
                                                "instruction": "add one at the top left",
                                                "approve_each_step": True, "approve_timeout_s": 60})
    rid = r.json()["run_id"]
    st = wait_for(lambda: (lambda s: s if s.get("pending_approval") else None)(status(c, rid)), 20, "proposal")
    p = st["pending_approval"]
    assert p["tool"] == "add_tubercle" and "position" in p["preview"]
    r = c.api("POST", "/api/agent/approve/%d" % rid, {"approve": False, "reason": "not there"})
    assert r.status == 200, r.text
    st = finished(c, rid)
    assert st["state"] == "completed", st
    assert c.api("GET", "/api/sets/%d" % sid).json()["set"]["n_tubercles"] == 0


def test_chat_approval_timeout_stops_the_run_with_its_reason():
    c = client()
    image_id, sid = new_set(c)
    script([{"text": "Adding one.", "tool_calls": [{"name": "add_tubercle", "arguments": {"x": 40, "y": 40}}],
             "usage": {"input": 50, "output": 10}}])
    r = c.api("POST", "/api/agent/chat/start", {"image_id": image_id, "set_id": sid, "provider": "openrouter",
                                                "instruction": "add one", "approve_each_step": True,
                                                "approve_timeout_s": 5})
    rid = r.json()["run_id"]
    st = finished(c, rid, timeout=30)
    assert st["state"] == "stopped" and st["finish_reason"] == "approval_timeout", st
