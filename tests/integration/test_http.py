"""HTTP behaviour through nginx: errors, limits, headers, concurrency,
worker failure and recovery."""
import os
import signal
import subprocess
import threading

from harness import ROOT, Server, kill_process, wait_for

srv = None


def setup_module():
    global srv
    srv = Server(env={"FISHSCALE_UPLOAD_MAX_MB": "1"}).start()


def teardown_module():
    srv.cleanup()


def test_unknown_path_is_404_json_for_api():
    c = srv.client()
    r = c.get("/api/nothing-here")
    assert r.status == 404 and r.json() == {"success": False, "error": "not found"}
    c.login()
    r = c.get("/no-such-page")
    assert r.status == 404 and "text/html" in r.header("Content-Type")


def test_wrong_method_is_405_with_allow():
    r = srv.client().request("DELETE", "/api/health")
    assert r.status == 405
    assert r.header("Allow") == "GET"
    assert r.json()["success"] is False


def test_non_numeric_id_is_404():
    c = srv.client()
    c.login()
    r = c.post("/admin/users/abc/disable", form={"csrf_token": c.csrf})
    assert r.status == 404


def test_body_over_nginx_limit_is_413():
    c = srv.client()
    c.login()
    r = c.api("POST", "/logout", json_body={"pad": "x" * (2 << 20)})
    assert r.status == 413
    # issue 14 item 10: JSON as docs/API.md promises, not nginx's HTML page
    assert r.header("Content-Type").startswith("application/json"), r.header("Content-Type")
    assert r.json()["success"] is False and "too large" in r.json()["error"], r.text


def test_unsupported_content_type_is_415():
    c = srv.client()
    c.login()
    r = c.request("POST", "/logout", body=b"<x/>", headers={"Content-Type": "application/xml",
                                                            "X-CSRF-Token": c.csrf})
    assert r.status == 415
    assert "unsupported content type" in r.text


def test_malformed_json_is_400():
    c = srv.client()
    c.login()
    r = c.request("POST", "/logout", body=b"{not json", headers={"Content-Type": "application/json",
                                                                "X-CSRF-Token": c.csrf})
    assert r.status == 400
    r = c.request("POST", "/logout", body=b"[1,2]", headers={"Content-Type": "application/json",
                                                            "X-CSRF-Token": c.csrf})
    assert r.status == 400


def test_path_traversal_refused():
    c = srv.client()
    r = c.get("/static/../conf/fishscale.conf", raw_path=True)
    assert r.status in (400, 404)
    r = c.get("/static/%2e%2e/conf/fishscale.conf", raw_path=True)
    assert r.status in (400, 404)


def test_security_headers_on_every_kind_of_response():
    c = srv.client()
    for path in ("/api/health", "/login", "/static/css/fishscale.css", "/api/none"):
        r = c.get(path)
        assert r.header("X-Content-Type-Options") == "nosniff", path
        assert r.header("X-Frame-Options") == "DENY", path
        assert "default-src 'self'" in r.header("Content-Security-Policy"), path
        assert "frame-ancestors 'none'" in r.header("Content-Security-Policy"), path
        assert r.header("Referrer-Policy") == "same-origin", path
    r = c.get("/static/css/fishscale.css")
    assert "max-age=3600" in r.header("Cache-Control")


def test_200_concurrent_requests_all_answered():
    c = srv.client()
    c.login()
    results = []
    lock = threading.Lock()

    def one(i):
        if i % 2:
            r = srv.client().get("/api/health")
            ok = r.status == 200 and r.json()["status"] == "ok"
        else:
            r = c.get("/api/me")
            ok = r.status == 200 and r.json()["user"]["login"] == "admin"
        with lock:
            results.append(ok)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(200)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 200 and all(results)


def test_killed_worker_is_replaced():
    """A SIGKILLed worker is replaced, and the request that comes right
    after the kill is answered: a worker killed while it waits in accept()
    can still take one more connection off the shared socket before it
    dies, and nginx must pass that GET to a live worker rather than answer
    502 (conf/nginx.conf.in). The race is lost in about one kill of three on
    a loaded machine (README "A worker that dies"), hence five rounds."""
    def two_workers():
        pids = srv.worker_pids()
        return pids if len(pids) == 2 else None

    for _ in range(5):
        # polled, not read once: /proc/PID/task/TID/children is a snapshot
        # the kernel documents as unreliable while children come and go
        # (a clean-clone run of make test once read one worker here)
        before = wait_for(two_workers, what="two workers")
        kill_process(before[0], "fishscale.fcgi")
        r = srv.client().get("/api/health")
        assert r.status == 200, (r.status, r.text)
        wait_for(lambda: len(srv.worker_pids()) == 2 and before[0] not in srv.worker_pids(),
                 what="a replacement worker")
    for _ in range(20):
        assert srv.client().get("/api/health").status == 200


def test_no_workers_gives_502_then_recovers():
    master = srv.pid("fcgi.pid")
    os.kill(master, signal.SIGTERM)
    wait_for(lambda: subprocess.run(["kill", "-0", str(master)], capture_output=True).returncode != 0,
             what="the FastCGI supervisor to stop")
    r = srv.client().get("/api/health")
    assert r.status == 502
    sock = os.path.join(srv.data, "run", "fcgi.sock")
    os.unlink(sock)
    subprocess.run(["spawn-fcgi", "-s", sock, "-M", "0600", "-P", os.path.join(srv.data, "run", "fcgi.pid"),
                    "--", os.path.join(ROOT, "build", "fishscale.fcgi"), "--root", ROOT],
                   env=srv.env, check=True, capture_output=True)
    wait_for(lambda: srv.client().get("/api/health").status == 200, what="recovery")


def test_foreground_run_stops_everything_on_sigterm():
    """`make run` mode: tools/run.sh in the foreground prints the URL and the
    first login, and SIGTERM stops nginx and every FastCGI process."""
    s = Server()
    env = dict(s.env)
    p = subprocess.Popen(["sh", os.path.join(ROOT, "tools", "run.sh")], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        lines = []
        wait_for(lambda: lines.append(p.stdout.readline()) or "Ctrl-C stops it" in "".join(lines),
                 timeout=60, what="the URL banner")
        text = "".join(lines)
        assert "fishscale is running at http://127.0.0.1:%d/" % s.port in text
        assert "first login: admin / " in text
        assert s.client().get("/api/health").status == 200
        nginx_pid = s.pid("nginx.pid")
        master = s.pid("fcgi.pid")
        workers = s.worker_pids()
        assert workers
        os.kill(p.pid, signal.SIGTERM)
        assert p.wait(60) == 0

        def gone(pid):
            return subprocess.run(["kill", "-0", str(pid)], capture_output=True).returncode != 0
        wait_for(lambda: all(gone(x) for x in [nginx_pid, master] + workers), what="every process to stop")
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
        s.cleanup()
