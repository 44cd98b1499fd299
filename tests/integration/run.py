#!/usr/bin/env python3
"""Runs every test_* function of every tests/integration/test_*.py module.

Each test is a plain function using assert. Modules may define setup_module()
and teardown_module() (e.g. to start one shared server). Ends with one line
"N passed, N failed". Usage: run.py [substring-filter]

Modules run in their own processes, FS_INTEGRATION_WORKERS (default 2) at a
time: each module starts its own servers (free port, temporary data
directory), so modules never share state, and most of a test's time is
spent waiting for its server, so two at once keep both cores busier and
the phase shorter. A module's tests run in order in its process, as before;
the output is printed module by module in name order.
"""
import concurrent.futures
import importlib.util
import os
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
COUNTS = "@@module-counts"


def run_module(name, flt):
    """Runs the tests of module name matching flt; prints one line per test
    and then COUNTS passed failed."""
    passed = failed = 0
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    tests = []
    try:
        spec.loader.exec_module(mod)
        tests = [(n, getattr(mod, n)) for n in sorted(dir(mod))
                 if n.startswith("test_") and callable(getattr(mod, n))]
        tests = [t for t in tests if flt in name + "." + t[0]]
        if tests and hasattr(mod, "setup_module"):
            mod.setup_module()
    except Exception:
        traceback.print_exc()
        print("FAIL %s (module setup)" % name, flush=True)
        print("%s 0 1" % COUNTS, flush=True)
        return
    if tests:
        try:
            for tname, fn_ in tests:
                t0 = time.monotonic()
                try:
                    fn_()
                    passed += 1
                    print("ok   %s.%s (%.2fs)" % (name, tname, time.monotonic() - t0), flush=True)
                except Exception:
                    failed += 1
                    traceback.print_exc()
                    print("FAIL %s.%s" % (name, tname), flush=True)
        finally:
            if hasattr(mod, "teardown_module"):
                try:
                    mod.teardown_module()
                except Exception:
                    traceback.print_exc()
    print("%s %d %d" % (COUNTS, passed, failed), flush=True)


def run_child(name, flt):
    """Runs module name in its own process; returns (output, passed, failed).
    A process that ends without its counts is one failure."""
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--module", name, flt],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out, counts = [], None
    for line in p.stdout.splitlines():
        if line.startswith(COUNTS + " "):
            counts = line.split()[1:3]
        else:
            out.append(line)
    if counts is None:
        out.append("FAIL %s (its process ended without its counts, exit %d)" % (name, p.returncode))
        return out, 0, 1
    return out, int(counts[0]), int(counts[1])


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--module":
        run_module(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "")
        return 0
    flt = sys.argv[1] if len(sys.argv) > 1 else ""
    # FS_TEST_MEASUREMENT_RULE (make test-dome) reaches the test sites
    # through harness.Server, and the fishscale commands the modules run
    # themselves through the site's variable, which the CLI reads: what a
    # change of the build's default does to them too (a test that sets its
    # own environment still wins)
    if os.environ.get("FS_TEST_MEASUREMENT_RULE"):
        os.environ["FISHSCALE_MEASUREMENT_RULE"] = os.environ["FS_TEST_MEASUREMENT_RULE"]
    names = [fn[:-3] for fn in sorted(os.listdir(HERE)) if fn.startswith("test_") and fn.endswith(".py")]
    workers = max(1, int(os.environ.get("FS_INTEGRATION_WORKERS", "2") or 2))
    passed = failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(run_child, n, flt) for n in names]
        for f in futures:
            out, p, fl = f.result()
            for line in out:
                print(line, flush=True)
            passed += p
            failed += fl
    print("integration: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
