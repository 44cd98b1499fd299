"""`fishscale agent optimize|edit|providers` and `fishscale mcp` on a paper
image, standalone (no web server), with the offline provider `local`."""
import csv
import json
import os
import re
import shutil
import subprocess
import tempfile

from harness import FISHSCALE, ROOT, TESTDATA
from mock_provider import MockProvider

PAPER = os.path.join(TESTDATA, "P1_Fig4_Atractosteus_simplex_7.07um.tif")
STEM = "P1_Fig4_Atractosteus_simplex_7.07um"


def env():
    e = {k: v for k, v in os.environ.items() if not k.startswith("FISHSCALE_") and not k.endswith("_API_KEY")}
    e["FISHSCALE_ROOT"] = ROOT
    return e


def run(*args, input=None, timeout=120):
    return subprocess.run([FISHSCALE] + list(args), env=env(), capture_output=True, text=True,
                          input=input, timeout=timeout)


def test_agent_providers_lists_prices_and_key_state():
    out = run("agent", "providers")
    assert out.returncode == 0, out.stderr
    assert "local" in out.stdout and "configured" in out.stdout
    assert "anthropic" in out.stdout and "(no API key)" in out.stdout
    assert "claude-sonnet-4-20250514" in out.stdout


def assert_reasoning_follows_its_iteration(err):
    """Seed 001 prints under each iteration the model's reasoning on THAT
    iteration's result (the step asking for the next extraction). The local
    provider's reasoning names the best hexagonalness so far, so under
    iteration k it must be the best of iterations 1..k."""
    best, seen = None, 0
    for line in err.splitlines():
        m = re.search(r"Hexagonalness: ([0-9.]+), Tubercles", line)
        if m:
            best = max(best or 0.0, float(m.group(1)))
            continue
        m = re.search(r'Agent: ".*best hexagonalness ([0-9.]+)', line)
        if m:
            assert best is not None, "reasoning printed before the first iteration: " + line
            assert abs(float(m.group(1)) - best) <= 0.006, (line, best, err)
            seen += 1
    assert seen >= 1, err


def test_agent_optimize_writes_annotations_and_csvs():
    d = tempfile.mkdtemp(prefix="fs-agent-cli-")
    try:
        out = run("agent", "optimize", PAPER, "--calibration", "0.5", "--provider", "local",
                  "--max-iterations", "3", "-o", d)
        assert out.returncode == 0, out.stderr
        err = out.stderr
        assert "Fish Scale Extraction Optimizer" in err and "Image: %s.tif" % STEM in err
        assert "Iteration 1/3: Running initial extraction..." in err
        assert "Optimization Complete" in err and "Best result: Iteration" in err
        assert_reasoning_follows_its_iteration(err)
        assert "Optimal parameters:" in err and "Usage: 0 input + 0 output tokens" in err
        files = set(os.listdir(d))
        for suffix in ("_annotations.json", "_tubercles.csv", "_edges.csv", "_summary.csv", "_agent.json"):
            assert STEM + suffix in files, files
        annot = json.load(open(os.path.join(d, STEM + "_annotations.json")))
        assert annot["version"] in ("3.0", 3, "3") or annot.get("format_version")
        rows = list(csv.reader(open(os.path.join(d, STEM + "_tubercles.csv"))))
        assert len(rows) > 10
        # the annotations and the summary say which rule measured the set
        # (the configured one: the build's default in this environment)
        v = annot["sets"][0].get("measurement_version")
        summ = next(csv.DictReader(open(os.path.join(d, STEM + "_summary.csv"))))
        assert v in (1, 2) and summ["measurement_version"] == str(v), (v, summ)
        assert summ["measurement_rule"] == {1: "outline", 2: "dome"}[v], summ
        final = json.load(open(os.path.join(d, STEM + "_agent.json")))
        assert final["state"] == "completed" and final["iteration"] == 3
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_agent_edit_runs_standalone_and_reports_progress():
    d = tempfile.mkdtemp(prefix="fs-agent-cli-")
    try:
        out = run("agent", "edit", PAPER, "--provider", "local", "--max-iterations", "4",
                  "--plateau-threshold", "2", "--auto-connect", "gabriel", "-v", "-o", d)
        assert out.returncode == 0, out.stderr
        assert "Initial extraction:" in out.stderr
        assert "Pattern Completion Complete" in out.stderr
        assert "[" in out.stderr and "Started pattern completion" in out.stderr  # -v log lines
        assert STEM + "_edges.csv" in os.listdir(d)
        final = json.load(open(os.path.join(d, STEM + "_agent.json")))
        assert final["state"] == "completed"
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_agent_cli_refuses_bad_options():
    assert run("agent", "optimize", PAPER, "--max-iterations", "zero").returncode == 2
    assert run("agent", "edit", PAPER, "--auto-connect", "zigzag").returncode == 2
    assert run("agent", "optimize", PAPER, "--profile", "nope").returncode == 2
    assert run("agent", "fly").returncode == 2
    out = run("agent", "optimize", "/nonexistent.tif")
    assert out.returncode == 2 and "/nonexistent.tif" in out.stderr


def test_agent_cli_without_a_key_fails_clearly():
    """Issue 16: provider, key and arguments are checked before any work:
    exit 2, no banner, nothing written."""
    d = os.path.join(tempfile.mkdtemp(prefix="fs-agent-cli-"), "out")
    try:
        for kind in ("edit", "optimize"):
            out = run("agent", kind, PAPER, "--provider", "anthropic", "--max-iterations", "1", "-o", d)
            assert out.returncode == 2, out.stderr
            assert "ANTHROPIC_API_KEY" in out.stderr
            assert "Complete" not in out.stderr and "Initial extraction" not in out.stderr
            assert not os.path.exists(d)
        out = run("agent", "optimize", PAPER, "--provider", "skynet", "-o", d)
        assert out.returncode == 2 and "unknown provider" in out.stderr and not os.path.exists(d)
        out = run("agent", "optimize", "/nonexistent.tif", "--provider", "local", "-o", d)
        assert out.returncode == 2 and not os.path.exists(d)
    finally:
        shutil.rmtree(os.path.dirname(d), ignore_errors=True)


def test_agent_providers_lists_every_accepted_provider():
    out = run("agent", "providers")
    assert out.returncode == 0, out.stderr
    names = {line.split()[0] for line in out.stdout.splitlines() if line and not line.startswith(" ")}
    assert {"local", "anthropic", "openai", "openrouter", "gemini", "ollama", "vllm"} <= names, names


def test_agent_cli_writes_the_transcript():
    d = tempfile.mkdtemp(prefix="fs-agent-cli-")
    try:
        out = run("agent", "edit", PAPER, "--provider", "local", "--max-iterations", "3", "-o", d)
        assert out.returncode == 0, out.stderr
        recs = [json.loads(l) for l in open(os.path.join(d, STEM + "_transcript.jsonl"))]
        types = {r["type"] for r in recs}
        assert {"model_call", "tool_call"} <= types, types
        calls = [r for r in recs if r["type"] == "tool_call"]
        assert all("name" in r and "arguments" in r for r in calls)
        assert any(r["name"] == "get_screenshot" for r in calls)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def mcp_session(lines):
    out = run("mcp", PAPER, input="".join(json.dumps(l) + "\n" if not isinstance(l, str) else l + "\n"
                                          for l in lines))
    assert out.returncode == 0, out.stderr
    return [json.loads(x) for x in out.stdout.splitlines()]


def test_mcp_server_answers_a_scripted_client():
    replies = mcp_session([
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "get_state", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
         "params": {"name": "add_tubercle", "arguments": {"x": 120, "y": 140}}},
        {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "get_state", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "get_screenshot", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "add_tubercle", "arguments": {"x": "a"}}},
        {"jsonrpc": "2.0", "id": 8, "method": "no/such/method"},
        {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "launch_missiles"}},
        "{not json",
        {"id": 10, "method": "ping"},
        {"jsonrpc": "2.0", "id": 11, "method": "ping"},
    ])
    by = {r["id"]: r for r in replies if r.get("id") is not None}
    assert len(replies) == 12  # the notification got no answer
    init = by[1]["result"]
    assert init["protocolVersion"] == "2024-11-05" and "tools" in init["capabilities"]
    assert init["serverInfo"]["name"] == "fishscale-mcp"
    tools = {t["name"]: t for t in by[2]["result"]["tools"]}
    for name in ("get_screenshot", "get_state", "add_tubercle", "delete_tubercle", "move_tubercle",
                 "auto_connect", "get_statistics", "run_extraction", "set_params", "get_params"):
        assert name in tools, sorted(tools)
    assert tools["add_tubercle"]["inputSchema"]["required"] == ["x", "y"]
    state0 = json.loads(by[3]["result"]["content"][0]["text"])
    assert state0["success"] and by[3]["result"]["isError"] is False
    added = json.loads(by[4]["result"]["content"][0]["text"])
    assert added["success"] is True
    state1 = json.loads(by[5]["result"]["content"][0]["text"])
    assert state1["data"]["tubercle_count"] == state0["data"]["tubercle_count"] + 1
    shot = by[6]["result"]["content"]
    img = [c for c in shot if c["type"] == "image"][0]
    # the tool picks the encoding; the block must say which one it is
    assert (img["mimeType"], img["data"][:4]) in (("image/png", "iVBO"), ("image/jpeg", "/9j/")), img["mimeType"]
    assert by[7]["result"]["isError"] is True
    assert by[8]["error"]["code"] == -32601
    assert by[9]["error"]["code"] == -32602
    assert [r for r in replies if r.get("id") is None and r["error"]["code"] == -32700]
    assert by[10]["error"]["code"] == -32600
    assert by[11]["result"] == {}


def test_mcp_usage_errors():
    assert run("mcp").returncode == 2
    assert run("mcp", "--image", "1", "--set", "1").returncode == 2  # no --user
    out = run("mcp", "/nonexistent.png", input="")
    assert out.returncode == 1


def run_json(kind, stem, *args):
    d = tempfile.mkdtemp(prefix="fs-agent-cli-")
    try:
        out = run("agent", kind, os.path.join(TESTDATA, stem + ".tif"), "--provider", "local", "-o", d, *args)
        assert out.returncode == 0, out.stderr
        return json.load(open(os.path.join(d, stem + "_agent.json"))), out.stderr
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_agent_edit_never_ends_below_its_start_on_paper_figures():
    """Issue 16: the editor judges on the reconnected graph and ends on its
    best state (hexagonalness, ties within 0.005 by coverage), so P1 Fig1 and
    P2 Fig1c (where it used to end at 0.429 from 0.457) never end below."""
    for stem in ("P1_Fig1_Lepidotes_elvensis_4.78um", "P2_Fig1c_Paralepidosteus_sp_Acre_5.73um"):
        final, err = run_json("edit", stem)
        assert final["state"] == "completed", err
        assert final["hexagonalness"] >= final["initial_hexagonalness"] - 0.005, (stem, final["hexagonalness"],
                                                                                 final["initial_hexagonalness"])


def test_agent_optimize_rejects_implausible_results_on_p1_fig1():
    """Issue 16: on the uncalibrated P1 Fig1 the `log` method's hundreds of
    blobs are rejected before they can become the best: started from a log
    profile, the start is refused, the `local` search switches to a method
    the image allows and ends on a plausible result no worse than the first
    plausible one; it never tries log again."""
    final, err = run_json("optimize", "P1_Fig1_Lepidotes_elvensis_4.78um", "--max-iterations", "8",
                          "--profile", "high-contrast")
    hist = final["history"]
    rejected = [h for h in hist if h.get("rejected")]
    assert rejected and all(not h["is_best"] for h in rejected), hist
    assert "needs a calibration" in hist[0].get("rejected", ""), hist[0]
    assert all(h["params"]["method"] in ("auto", "lattice") for h in hist[1:]), hist
    plausible = [h for h in hist if not h.get("rejected")]
    best = [h for h in hist if h["is_best"]]
    assert len(best) == 1 and not best[0].get("rejected") and best[0]["hexagonalness"] >= plausible[0]["hexagonalness"]


def test_mcp_official_sdk_client_lists_and_calls_every_tool():
    """Issue 16 item 10: the official TypeScript client (@modelcontextprotocol/sdk)
    lists the tools (the original's 19 capabilities, undo/redo, export, the
    selection tools), calls each one and gets errors for invalid arguments."""
    d = tempfile.mkdtemp(prefix="fs-mcp-sdk-")
    try:
        image = os.path.join(d, os.path.basename(PAPER))
        shutil.copy(PAPER, image)  # save_annotations writes beside the image
        out = subprocess.run(["node", os.path.join(ROOT, "tests", "integration", "mcp_sdk_client.mjs"), FISHSCALE,
                              image, d], env=env(), capture_output=True, text=True, timeout=180)
        assert out.returncode == 0, out.stderr
        r = json.loads(out.stdout)
        names = {t["name"] for t in r["tools"]}
        original = {"add_debug_rectangle", "clear_debug_shapes",
                    "get_screenshot", "get_state", "load_image", "set_calibration", "get_params", "set_params",
                    "run_extraction", "add_tubercle", "move_tubercle", "delete_tubercle", "add_connection",
                    "delete_connection", "clear_connections", "auto_connect", "get_statistics",
                    "save_annotations", "get_user", "add_history_event"}
        assert original <= names, original - names
        assert {"get_calibration", "undo", "redo", "export", "select_tubercles", "delete_tubercles", "fill_gaps",
                "get_tubercles", "get_edges", "accept_result"} <= names
        ann = {t["name"]: t["annotations"] for t in r["tools"]}
        assert ann["get_state"]["readOnlyHint"] is True
        assert ann["delete_tubercle"]["readOnlyHint"] is False and ann["delete_tubercle"]["destructiveHint"] is True
        assert ann["add_tubercle"]["destructiveHint"] is False
        for name in names:
            assert name in r["calls"], name
            c = r["calls"][name]
            assert "thrown" not in c and c["isError"] is False, (name, c)
        assert "image" in r["calls"]["get_screenshot"]["types"]
        assert r["calls"]["accept_result"]["data"]["success"] is True
        assert os.path.exists(os.path.join(d, "exported.json"))
        assert os.path.exists(os.path.join(d, STEM + "_annotations.json"))
        saved = json.load(open(os.path.join(d, "exported.json")))
        assert saved
        inv = r["invalid"]
        assert inv["add_tubercle"]["isError"] and "invalid arguments" in inv["add_tubercle"]["text"]
        assert inv["set_calibration"]["isError"]
        assert inv["delete_tubercles"]["isError"]
        assert inv["no_such_tool"].get("code") == -32602
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_mcp_negotiates_the_protocol_version():
    for asked, answered in (("2025-06-18", "2025-06-18"), ("2024-11-05", "2024-11-05"),
                            ("2099-01-01", "2025-06-18")):
        replies = mcp_session([{"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                "params": {"protocolVersion": asked, "capabilities": {},
                                           "clientInfo": {"name": "t", "version": "1"}}}])
        assert replies[0]["result"]["protocolVersion"] == answered, (asked, replies)
def test_agent_cli_redacts_a_key_the_provider_echoes():
    # issue 14 item 5: the CLI's _agent.json, its output files and stderr
    mock = MockProvider()
    d = tempfile.mkdtemp(prefix="fs-agent-cli-")
    try:
        mock.script([{"status": 401, "headers": {"X-Error-Detail": "bad key {{KEY}}"},
                      "message": "Incorrect API key provided: {{KEY}}"}])
        key = "sk-or-cli-test-0123456789abcdef"
        e = env()
        e.update(mock.env(key), FISHSCALE_DATA_DIR=os.path.join(d, "data"))
        out = subprocess.run([FISHSCALE, "agent", "optimize", PAPER, "--provider", "openrouter",
                              "--max-iterations", "2", "-o", os.path.join(d, "out")], env=e,
                             capture_output=True, text=True, timeout=120)
        assert "Incorrect API key provided" in out.stderr + out.stdout, out.stderr
        assert key not in out.stderr and key not in out.stdout and key[:12] not in out.stderr
        for root, _dirs, files in os.walk(d):
            for f in files:
                with open(os.path.join(root, f), "rb") as fh:
                    assert key[:12].encode() not in fh.read(), os.path.join(root, f)
        final = json.load(open(os.path.join(d, "out", STEM + "_agent.json")))
        assert "[REDACTED]" in json.dumps(final), final
    finally:
        mock.stop()
        shutil.rmtree(d, ignore_errors=True)
