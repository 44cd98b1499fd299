"""Per-step overhead of the `local` editor and optimiser on P1 Fig2 (issue 16):
`fishscale agent edit|optimize` with the offline provider, timed from the
run's transcript (seconds between model calls: the tools, the judging of
the reconnected graph, the status; for the optimiser the extraction too).
Prints "name: value unit" lines; reports, does not assert."""
import json
import os
import shutil
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FISHSCALE = os.path.join(ROOT, "build", "fishscale")
FIG = os.path.join(ROOT, "tests", "fixtures", "paper", "P1_Fig2_Polypterus_bichir_2.63um.tif")
STEM = "P1_Fig2_Polypterus_bichir_2.63um"


def run(kind, *args):
    d = tempfile.mkdtemp(prefix="fs-bench-agent-")
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith("FISHSCALE_")}
        env["FISHSCALE_ROOT"] = ROOT
        t0 = time.monotonic()
        out = subprocess.run([FISHSCALE, "agent", kind, FIG, "--provider", "local", "-o", d] + list(args),
                             env=env, capture_output=True, text=True, timeout=600)
        wall = time.monotonic() - t0
        if out.returncode:
            print("agent %s on P1 Fig2: failed (%s)" % (kind, out.stderr.strip()[-200:]))
            return
        recs = [json.loads(l) for l in open(os.path.join(d, STEM + "_transcript.jsonl"))]
        calls = [r for r in recs if r["type"] == "model_call"]
        tools = [r for r in recs if r["type"] in ("tool_call", "tool_error")]
        steps = [b["t"] - a["t"] for a, b in zip(calls, calls[1:])]
        per = 1000 * sum(steps) / len(steps) if steps else 0
        final = json.load(open(os.path.join(d, STEM + "_agent.json")))
        print("agent %s on P1 Fig2 (local): %d model calls, %d tool calls, %.0f ms per step, %.2f s wall "
              "(hexagonalness %s)" % (kind, len(calls), len(tools), per, wall,
                                      final.get("hexagonalness", (final.get("best_metrics") or {})
                                                .get("hexagonalness"))))
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    run("edit")
    run("optimize", "--max-iterations", "10")
