#!/usr/bin/env python3
"""The CPU time of each file of a test run, servers and background workers
included: cpu_sections.py COMMAND... (make test's budget; not part of it).

Runs COMMAND (a test runner printing "ok   FILE.test" / "FAIL FILE.test"
lines, one file after the other: FS_INTEGRATION_WORKERS=1 or
FS_BROWSER_WORKERS=1) and passes its output through. The servers a test
file starts, and the jobs, agents and data-bar readers they start, are
detached (double fork): their CPU time reaches no runner. This process
therefore becomes their "subreaper" (prctl PR_SET_CHILD_SUBREAPER): every
orphan of the run is re-parented to it, reaped by it, and its CPU time
counted. When the output turns to the next file, the CPU time of the whole
tree so far (reaped processes + the live ones, from /proc) is sampled; the
difference from the last sample is the previous file's. At the end a table
of the files by CPU time is printed, most first.

With the runner's files run one at a time the table is exact to the
sampling; the runner's report of a file comes when the file has ended, so
its lines mark its end.
"""
import ctypes
import os
import re
import subprocess
import sys
import threading
import time

PR_SET_CHILD_SUBREAPER = 36
TICK = os.sysconf("SC_CLK_TCK")
LINE = re.compile(r"^(?:ok|FAIL)\s+([A-Za-z0-9_]+)\.")


class Reaped:
    """CPU seconds of the orphans reaped so far (their own and their
    waited-for descendants'), in all and by program name."""

    def __init__(self):
        self.lock = threading.Lock()
        self.cpu = 0.0
        self.by_name = {}

    def add(self, ru, name="?"):
        c = ru.ru_utime + ru.ru_stime
        with self.lock:
            self.cpu += c
            self.by_name[name] = self.by_name.get(name, 0.0) + c

    def get(self):
        with self.lock:
            return self.cpu


def comm(pid):
    """A process's name (also of a zombie), "?" when it is gone."""
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return "?"


def reaper(runner_pid, reaped, done):
    """Reaps every child except the runner (the main thread waits for it)."""
    while not done.is_set():
        try:
            info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOWAIT)
        except ChildProcessError:
            time.sleep(0.05)
            continue
        except InterruptedError:
            continue
        if info is None:
            continue
        if info.si_pid == runner_pid:
            # the runner has ended: the main thread reaps it; the others
            # may still come (servers stopping), reaped in the final drain
            done.wait(0.05)
            continue
        try:
            name = comm(info.si_pid)
            _, _, ru = os.wait4(info.si_pid, 0)
            reaped.add(ru, name)
        except ChildProcessError:
            pass


def live_tree_cpu(root):
    """CPU seconds of the live processes under root (not root itself),
    with their waited-for children (cutime, cstime)."""
    parent, cpu = {}, {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                s = f.read()
        except OSError:
            continue
        f = s[s.rindex(")") + 2:].split()
        pid = int(d)
        parent[pid] = int(f[1])
        cpu[pid] = sum(int(x) for x in f[11:15]) / TICK
    total = 0.0
    for pid, c in cpu.items():
        p, seen = pid, 0
        while p > 1 and seen < 64:
            p = parent.get(p, 0)
            seen += 1
            if p == root:
                total += c
                break
    return total


def main():
    cmd = sys.argv[1:]
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    if not cmd:
        print(__doc__, file=sys.stderr)
        return 2
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        print("cpu_sections: cannot become a subreaper; detached servers are not counted", file=sys.stderr)
    me = os.getpid()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
    reaped, done = Reaped(), threading.Event()
    t = threading.Thread(target=reaper, args=(p.pid, reaped, done), daemon=True)
    t.start()
    t0 = time.monotonic()
    sections, order, current, last = {}, [], None, 0.0

    def close(name, now):
        nonlocal last
        if name is not None:
            sections[name] = sections.get(name, 0.0) + now - last
            if name not in order:
                order.append(name)
        last = now

    for line in p.stdout:
        sys.stdout.write(line)
        sys.stdout.flush()
        m = LINE.match(line)
        if m and m.group(1) != current:
            # the lines of a file come once it has ended: what ran since
            # the last sample is this file's
            close(m.group(1), reaped.get() + live_tree_cpu(me))
            current = m.group(1)
    _, status, ru = os.wait4(p.pid, 0)
    done.set()
    # the servers of the last file may still be stopping: their exit comes soon
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            pid, _, cru = os.wait4(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            time.sleep(0.1)
            continue
        reaped.add(cru)
    total = reaped.get() + ru.ru_utime + ru.ru_stime
    if current is not None:
        # what came after the last file's lines (the runner's end) stays apart
        sections["(runner, after the last file)"] = max(0.0, total - last)
    print("cpu_sections: %.1f s CPU in %.0f s wall; per file (s CPU, most first):" %
          (total, time.monotonic() - t0))
    for name, c in sorted(sections.items(), key=lambda kv: -kv[1]):
        print("  %8.1f  %s" % (c, name))
    # where it went: the runner with its own children (a browser, the CLI
    # calls), and each detached program with the children it reaped (a
    # FastCGI master holds its workers')
    print("cpu_sections: by program (s CPU): runner %.1f, %s" % (ru.ru_utime + ru.ru_stime, ", ".join(
        "%s %.1f" % kv for kv in sorted(reaped.by_name.items(), key=lambda kv: -kv[1]))))
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main())
