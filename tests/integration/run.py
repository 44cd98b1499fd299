#!/usr/bin/env python3
"""Runs every test_* function of every tests/integration/test_*.py module.

Each test is a plain function using assert. Modules may define setup_module()
and teardown_module() (e.g. to start one shared server). Ends with one line
"N passed, N failed". Usage: run.py [substring-filter]
"""
import importlib.util
import os
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def main():
    flt = sys.argv[1] if len(sys.argv) > 1 else ""
    passed = failed = 0
    for fn in sorted(os.listdir(HERE)):
        if not (fn.startswith("test_") and fn.endswith(".py")):
            continue
        name = fn[:-3]
        spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, fn))
        mod = importlib.util.module_from_spec(spec)
        tests = []
        try:
            spec.loader.exec_module(mod)
            tests = [(n, getattr(mod, n)) for n in sorted(dir(mod))
                     if n.startswith("test_") and callable(getattr(mod, n))]
            tests = [t for t in tests if flt in name + "." + t[0]]
            if not tests:
                continue
            if hasattr(mod, "setup_module"):
                mod.setup_module()
        except Exception:
            traceback.print_exc()
            print("FAIL %s (module setup)" % name, flush=True)
            failed += 1
            continue
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
    print("integration: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
