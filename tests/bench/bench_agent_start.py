#!/usr/bin/env python3
"""Agent start latency: time from POST /api/agent/start (and /edit/start)
to the first GET /api/agent/status/{id} that reports state "running", i.e.
row insert + double fork + exec of fishscale-agent + its first atomic
status write, seen through nginx. Prints figures; asserts nothing."""
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from harness import Server, unique_png, upload_image, wait_for  # noqa: E402

RUNS = 15


def main():
    srv = Server().start()
    try:
        c = srv.client()
        c.login()
        img = upload_image(c, data=unique_png(256, 192), filename="bench.png")["image"]
        sid = c.api("GET", "/api/images/%d/sets" % img["id"]).json()["sets"][0]["id"]
        for kind, path in (("optimize", "/api/agent/start"), ("edit", "/api/agent/edit/start")):
            lat = []
            for _ in range(RUNS):
                t0 = time.perf_counter()
                r = c.api("POST", path, {"image_id": img["id"], "set_id": sid, "provider": "local",
                                         "max_iterations": 1})
                assert r.status == 200, r.text
                t_resp = time.perf_counter() - t0
                rid = r.json()["run_id"]
                while True:
                    st = c.api("GET", "/api/agent/status/%d" % rid).json()
                    if st["state"] != "starting":
                        break
                lat.append((time.perf_counter() - t0, t_resp))
                wait_for(lambda: c.api("GET", "/api/agent/status/%d" % rid).json()["state"]
                         not in ("starting", "running"), 60, "run end")
            first = sorted(x[0] * 1000 for x in lat)
            resp = sorted(x[1] * 1000 for x in lat)
            print("agent_start_to_running_%s_median: %.1f ms (target < 200 ms)" % (kind, statistics.median(first)))
            print("agent_start_to_running_%s_max: %.1f ms (%d runs)" % (kind, first[-1], RUNS))
            print("agent_start_request_%s_median: %.1f ms" % (kind, statistics.median(resp)))
    finally:
        srv.cleanup()


if __name__ == "__main__":
    main()
