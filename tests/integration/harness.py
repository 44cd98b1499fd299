"""Integration-test harness: starts the real nginx + FastCGI processes of
fishscale in a temporary data directory on a free loopback port (through
tools/run.sh --detach, exactly as `make run` does) and talks HTTP to them.

Standard library only. Waiting is always for a condition with a deadline,
never a fixed sleep.
"""
import http.client
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import struct
import subprocess
import tempfile
import time
import urllib.parse
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(ROOT, "build")
FISHSCALE = os.path.join(BUILD, "fishscale")
TESTDATA = os.path.join(ROOT, "tests", "fixtures", "paper")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_for(cond, timeout=10.0, what="condition"):
    """Polls cond() until it returns a true value or the deadline passes."""
    deadline = time.monotonic() + timeout
    delay = 0.01
    while True:
        v = cond()
        if v:
            return v
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for " + what)
        time.sleep(delay)
        delay = min(delay * 2, 0.2)


def proc_name_state(pid):
    """(comm, state letter) of a process, ("", "") when it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
    except OSError:
        return "", ""
    # comm is in parentheses and may itself hold ") ", so split at the last
    return stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2:][:1]


def kill_process(pid, name, sig=signal.SIGKILL):
    """Sends sig to pid only if that process is named name (its comm, at
    most 15 characters): a pid read from the database or from pgrep may
    belong to a process that has ended, and on a machine that runs two test
    modules at once the number may already be another module's FastCGI
    worker. The signal goes through a pidfd opened after the check, so it
    reaches the process that was checked or none."""
    fd = os.pidfd_open(pid)
    try:
        got = proc_name_state(pid)
        assert got[0] == name[:15] and got[1] != "Z", (pid, got, name)
        signal.pidfd_send_signal(fd, sig)
    finally:
        os.close(fd)


def user_password(login):
    """The password the tests give a member they add (long enough for the
    password policy, different per user)."""
    return login + "-password-123"


class Server:
    """One fishscale site (nginx + FastCGI) in its own data directory."""

    def __init__(self, env=None, base_path="/"):
        self.port = free_port()
        self.data = tempfile.mkdtemp(prefix="fishscale-it-")
        self.base = base_path
        self.env = dict(os.environ)
        for k in list(self.env):
            if k.startswith("FISHSCALE_") or k == "FISH_SCALE_AGENT_TABS":
                del self.env[k]
        self.env.update({
            "FISHSCALE_ROOT": ROOT,
            "FISHSCALE_DATA_DIR": self.data,
            "FISHSCALE_PORT": str(self.port),
            "FISHSCALE_BASE_PATH": base_path,
            "FISHSCALE_FCGI_WORKERS": "2",
        })
        # FS_TEST_MEASUREMENT_RULE=dome runs the whole suite with the dome
        # rule configured (README "Measurement rule"); a test's own env wins
        if os.environ.get("FS_TEST_MEASUREMENT_RULE"):
            self.env["FISHSCALE_MEASUREMENT_RULE"] = os.environ["FS_TEST_MEASUREMENT_RULE"]
        if env:
            self.env.update(env)
        self.admin_password = None

    def start(self):
        out = subprocess.run(["sh", os.path.join(ROOT, "tools", "run.sh"), "--detach"],
                             env=self.env, capture_output=True, text=True, timeout=60)
        if out.returncode != 0:
            raise AssertionError("run.sh failed: " + out.stdout + out.stderr)
        m = re.search(r"First login: admin / (\S+)", out.stdout)
        if m:
            self.admin_password = m.group(1)
        else:
            with open(os.path.join(self.data, "admin-password.txt")) as f:
                self.admin_password = re.search(r"password: (\S+)", f.read()).group(1)
        return self

    def start_refused(self):
        """Starts a site whose configuration run.sh must refuse: its message
        (a site that starts fails the test)."""
        try:
            self.start()
        except AssertionError as e:
            return str(e)
        raise AssertionError("the site started")

    def stop(self):
        subprocess.run(["sh", os.path.join(ROOT, "tools", "stop.sh"), "--data", self.data],
                       env=self.env, capture_output=True, timeout=60)

    def cleanup(self):
        self.release_jobs()
        self.stop()
        shutil.rmtree(self.data, ignore_errors=True)

    def hold_file(self):
        return os.path.join(self.data, "jobs", "hold")

    def hold_jobs(self):
        """Holds the site's jobs at the start of their "detecting" stage
        (still cancellable) until release_jobs: while <data>/jobs/hold
        exists they wait (cgi/main_job.c), so a test sees a job running
        whatever the speed of the machine."""
        os.makedirs(os.path.dirname(self.hold_file()), exist_ok=True)
        open(self.hold_file(), "w").close()

    def release_jobs(self):
        """Lets the held jobs go on (nothing held: nothing to do)."""
        try:
            os.unlink(self.hold_file())
        except FileNotFoundError:
            pass

    def add_users(self, *logins):
        """Adds each login as a member with the password user_password(login)."""
        for who in logins:
            r = self.cli("user", "add", who, input=user_password(who) + "\n")
            assert r.returncode == 0, r.stderr
        return self

    def login_as(self, who):
        """A client logged in as a user made by add_users (or "admin")."""
        c = self.client()
        r = c.login() if who == "admin" else c.login(who, user_password(who))
        assert r.status == 303, (who, r.status)
        return c

    def cli(self, *args, input=None):
        return subprocess.run([FISHSCALE] + list(args), env=self.env, capture_output=True,
                              text=True, input=input, timeout=60)

    def pid(self, name):
        with open(os.path.join(self.data, "run", name)) as f:
            return int(f.read().strip())

    def children(self):
        """The supervisor's live children as (pid, name). A child that has
        died and is not reaped yet (a zombie) is still listed, and must
        count neither as a worker nor as a target to kill."""
        master = self.pid("fcgi.pid")
        try:  # read directly: a pgrep process per poll made waiting slow
            with open("/proc/%d/task/%d/children" % (master, master)) as f:
                listed = f.read().split()
        except OSError:
            listed = subprocess.run(["pgrep", "-P", str(master)], capture_output=True, text=True).stdout.split()
        kids = []
        for p in listed:
            name, state = proc_name_state(int(p))
            if name and state != "Z":
                kids.append((int(p), name))
        return kids

    def worker_pids(self):
        return [p for p, name in self.children() if name != "fs-checkpointer"]

    @staticmethod
    def proc_name(pid):
        """A process's name (comm), "" when it is gone: the supervisor's
        children are the workers and one checkpointer (main_fcgi.c)."""
        return proc_name_state(pid)[0]

    def checkpointer_pids(self):
        return [p for p, name in self.children() if name == "fs-checkpointer"]

    def db_path(self):
        return os.path.join(self.data, "fishscale.db")

    def sql(self, query, args=()):
        """One statement on the site's database, in a connection of its own
        (committed and closed): its rows. For what a test reads or sets
        behind the API's back."""
        con = sqlite3.connect(self.db_path(), timeout=10)
        try:
            rows = con.execute(query, args).fetchall()
            con.commit()
            return rows
        finally:
            con.close()

    def client(self):
        return Client(self)

    def __enter__(self):
        return self.start()

    def __exit__(self, *a):
        self.cleanup()


class Response:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers  # list of (name, value)
        self.body = body

    def header(self, name):
        for k, v in self.headers:
            if k.lower() == name.lower():
                return v
        return None

    def headers_named(self, name):
        return [v for k, v in self.headers if k.lower() == name.lower()]

    def json(self):
        return json.loads(self.body)

    @property
    def text(self):
        return self.body.decode("utf-8", "replace")


class Client:
    """A browser-like client: keeps cookies, sends same-origin headers."""

    def __init__(self, server):
        self.server = server
        self.cookies = {}
        self.csrf = None

    def url(self, path):
        return self.server.base.rstrip("/") + path

    def request(self, method, path, body=None, headers=None, json_body=None, form=None,
                raw_path=False, origin=True):
        h = {"Host": "127.0.0.1:%d" % self.server.port}
        if origin and method not in ("GET", "HEAD"):
            h["Origin"] = "http://127.0.0.1:%d" % self.server.port
            h["Sec-Fetch-Site"] = "same-origin"
        if self.cookies:
            h["Cookie"] = "; ".join("%s=%s" % kv for kv in self.cookies.items())
        if json_body is not None:
            body = json.dumps(json_body).encode()
            h["Content-Type"] = "application/json"
        if form is not None:
            body = urllib.parse.urlencode(form).encode()
            h["Content-Type"] = "application/x-www-form-urlencoded"
        if headers:
            h.update(headers)
        h = {k: v for k, v in h.items() if v is not None}
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=60)
        try:
            conn.request(method, path if raw_path else self.url(path), body=body, headers=h)
            r = conn.getresponse()
            data = r.read()
            resp = Response(r.status, r.getheaders(), data)
        finally:
            conn.close()
        for sc in resp.headers_named("Set-Cookie"):
            name, _, rest = sc.partition("=")
            value = rest.split(";")[0]
            if "Max-Age=0" in sc:
                self.cookies.pop(name, None)
            else:
                self.cookies[name] = value
        return resp

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, **kw):
        return self.request("POST", path, **kw)

    def login(self, login="admin", password=None):
        if password is None:
            password = self.server.admin_password
        page = self.get("/login")
        tok = re.search(r'name="csrf_token" value="([0-9a-f]+)"', page.text).group(1)
        r = self.post("/login", form={"csrf_token": tok, "login": login, "password": password,
                                      "next": "/"})
        if r.status == 303:
            me = self.get("/api/me")
            assert me.status == 200, me.text
            self.csrf = me.json()["csrf_token"]
        return r

    def api(self, method, path, json_body=None, **kw):
        headers = kw.pop("headers", {})
        if self.csrf and method not in ("GET", "HEAD"):
            headers.setdefault("X-CSRF-Token", self.csrf)
        return self.request(method, path, json_body=json_body, headers=headers, **kw)


def ok(r, status=200):
    """The JSON of an answer that must have this status and say success."""
    assert r.status == status, (r.status, r.text)
    j = r.json()
    assert j["success"] is True, j
    return j


def wait_job(c, jid, states=("done", "failed", "cancelled"), timeout=120):
    """Polls GET /api/jobs/{jid} through client c until the job's state is
    one of states; returns the job."""
    def look():
        j = ok(c.api("GET", "/api/jobs/%d" % jid))["job"]
        return j if j["state"] in states else None
    return wait_for(look, timeout=timeout, what="job %d to reach %s" % (jid, "/".join(states)))


def multipart_body(fields, boundary="fsHarnessBoundary42"):
    """fields: list of (name, filename or None, bytes)."""
    body = b""
    for name, filename, data in fields:
        disp = 'form-data; name="%s"' % name
        if filename is not None:
            disp += '; filename="%s"' % filename
        body += b"--" + boundary.encode() + b"\r\nContent-Disposition: " + disp.encode() + b"\r\n"
        if filename is not None:
            body += b"Content-Type: application/octet-stream\r\n"
        body += b"\r\n" + data + b"\r\n"
    body += b"--" + boundary.encode() + b"--\r\n"
    return body, "multipart/form-data; boundary=" + boundary


def upload_image(client, path=None, data=None, filename=None):
    """Uploads an image file through POST /api/images; returns the JSON."""
    if data is None:
        with open(path, "rb") as f:
            data = f.read()
        filename = filename or os.path.basename(path)
    body, ctype = multipart_body([("file", filename or "image.tif", data)])
    r = client.request("POST", "/api/images", body=body,
                       headers={"Content-Type": ctype, "X-CSRF-Token": client.csrf})
    assert r.status in (200, 201), (r.status, r.text)
    return r.json()


PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def png_chunk(kind, data):
    """One PNG chunk: its length, kind, data and CRC."""
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)


def gray_png(w, h, raw, level=-1, extra=b"", compressed=False):
    """An 8-bit grey PNG of w x h from its filtered rows raw (each row a
    filter byte, then w samples), deflated at zlib level (-1: zlib's
    default), or raw as the image data itself when compressed; extra:
    chunks between the header and the data (pHYs)."""
    data = raw if compressed else zlib.compress(raw, level)
    return (PNG_MAGIC + png_chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)) + extra +
            png_chunk(b"IDAT", data) + png_chunk(b"IEND", b""))


def png_gray(w, h, seed=0):
    """An 8-bit grey PNG with a pattern that depends on seed (so each call
    can make a distinct file: uploads are deduplicated by content)."""
    raw = b"".join(b"\x00" + bytes(((x * 7 + y * 3 + seed * 13) & 255) for x in range(w)) for y in range(h))
    return gray_png(w, h, raw)


def whole_image_scale_region(client, image_id):
    """Makes the whole working image scale surface (PUT scale_region).
    unique_png's pattern depends on a counter shared by every module of the
    run, and the automatic region of some of those patterns leaves out a
    band the detector takes for paper margin or surroundings: a test that
    places tubercles at fixed points on such an image must not depend on
    how many images earlier tests made."""
    r = client.api("GET", "/api/images/%d/scale_region" % image_id)
    assert r.status == 200, r.text
    g = r.json()
    r = client.api("PUT", "/api/images/%d/scale_region" % image_id,
                   {"cell": g["cell"], "rows": [[0, g["grid_width"]] for _ in range(g["grid_height"])],
                    "summary": "test: the whole image"})
    assert r.status == 200, r.text
    assert r.json()["area_fraction"] == 1, r.json()


_seed = [1000]


def unique_png(w=300, h=200):
    _seed[0] += 1
    return png_gray(w, h, _seed[0])


def agent_set(c, paper=None, extract=False, label="agent"):
    """A set of its own for an agent run (only one agent may work on a set
    at a time), on a new image: the figure at path paper, else a
    unique_png whose whole frame is scale surface (the scripted tools place
    tubercles at fixed points: see whole_image_scale_region); extracted
    with `auto` when extract. Returns (image id, set id)."""
    if paper:
        image = upload_image(c, paper)["image"]
    else:
        image = upload_image(c, data=unique_png(200, 160), filename="t.png")["image"]
        whole_image_scale_region(c, image["id"])
    r = c.api("POST", "/api/images/%d/sets" % image["id"], {"name": "%s %f" % (label, time.time())})
    assert r.status in (200, 201), r.text
    sid = r.json()["set"]["id"] if "set" in r.json() else r.json()["id"]
    if extract:
        rev = c.api("GET", "/api/sets/%d/revision" % sid).json()["revision"]
        r = c.api("POST", "/api/sets/%d/extract" % sid, {"revision": rev, "parameters": {"method": "auto"}})
        assert r.status == 200, r.text
    return image["id"], sid
