"""Accounts, sessions, login throttling and CSRF through nginx + FastCGI."""
import re
import sqlite3
import time

from harness import Server

srv = None


def setup_module():
    global srv
    srv = Server(env={"FISHSCALE_LOGIN_MAX_FAILURES": "3"}).start()


def teardown_module():
    srv.cleanup()


def test_health_needs_no_login():
    r = srv.client().get("/api/health")
    assert r.status == 200
    j = r.json()
    assert j["status"] == "ok" and j["db"] == "ok"
    assert isinstance(j["uptime_s"], (int, float)) and j["version"]


def test_pages_redirect_to_login_and_api_says_401():
    c = srv.client()
    r = c.get("/")
    assert r.status == 303 and r.header("Location").endswith("/login")
    r = c.get("/api/me")
    assert r.status == 401
    assert r.json() == {"success": False, "error": "login required"}


def test_login_right_shows_empty_library():
    c = srv.client()
    r = c.login()
    assert r.status == 303
    cookie = [v for v in r.headers_named("Set-Cookie") if v.startswith("fs_session=")][0]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Path=/" in cookie
    assert "Secure" not in cookie  # plain http from a client
    page = c.get("/")
    assert page.status == 200
    assert "library-empty" in page.text and "Administrator" in page.text


def test_login_wrong_password_refused():
    c = srv.client()
    r = c.login("admin", "not-the-password")
    assert r.status == 401
    assert "Wrong login or password" in r.text
    assert "fs_session" not in c.cookies


def test_throttling_after_repeated_failures():
    srv.cli("user", "add", "victim", input="correct horse battery\n")
    c = srv.client()
    for _ in range(3):
        assert c.login("victim", "wrong-password").status == 401
    r = c.login("victim", "correct horse battery")
    assert r.status == 429
    assert int(r.header("Retry-After")) > 0
    # another account is not affected by the victim's failures
    assert srv.client().login().status == 303


def test_csrf_missing_token_refused():
    c = srv.client()
    c.login()
    r = c.request("POST", "/logout", form={})
    assert r.status == 403 and "CSRF" in r.text
    assert c.get("/api/me").status == 200  # still logged in


def test_csrf_wrong_token_refused():
    c = srv.client()
    c.login()
    r = c.request("POST", "/logout", form={"csrf_token": "0" * 64})
    assert r.status == 403
    r = c.request("POST", "/logout", headers={"X-CSRF-Token": c.csrf[:-1] + ("1" if c.csrf[-1] == "0" else "0")})
    assert r.status == 403
    assert c.get("/api/me").status == 200


def test_csrf_cross_site_refused_even_with_token():
    c = srv.client()
    c.login()
    r = c.request("POST", "/logout", form={"csrf_token": c.csrf},
                  headers={"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"})
    assert r.status == 403 and "cross-site" in r.text
    r = c.request("POST", "/logout", form={"csrf_token": c.csrf}, origin=False,
                  headers={"Origin": "http://evil.example"})
    assert r.status == 403


def test_login_form_needs_its_csrf_cookie():
    c = srv.client()
    r = c.post("/login", form={"login": "admin", "password": srv.admin_password,
                               "csrf_token": "a" * 64})
    assert r.status == 403


def test_logout_ends_session():
    c = srv.client()
    c.login()
    old = dict(c.cookies)
    r = c.request("POST", "/logout", form={"csrf_token": c.csrf})
    assert r.status == 303
    assert c.get("/api/me").status == 401
    c.cookies = old  # replaying the old cookie must not work either
    assert c.get("/api/me").status == 401


def test_session_expiry_idle_and_absolute():
    c = srv.client()
    c.login()
    assert c.get("/api/me").status == 200
    db = sqlite3.connect(srv.db_path(), timeout=10)
    now = int(time.time())
    db.execute("UPDATE sessions SET last_seen_at = ?", (now - 121 * 60,))
    db.commit()
    assert c.get("/api/me").status == 401
    c2 = srv.client()
    c2.login()
    db.execute("UPDATE sessions SET expires_at = ?", (now - 1,))
    db.commit()
    db.close()
    assert c2.get("/api/me").status == 401


def test_a_login_deletes_sessions_that_expired():
    """Sessions that ended without a logout do not pile up: the next login
    deletes them (a live one of another client stays)."""
    live = srv.client()
    live.login()
    old = srv.client()
    old.login()
    db = sqlite3.connect(srv.db_path(), timeout=10)
    now = int(time.time())
    n0 = db.execute("SELECT count(*) FROM sessions").fetchone()[0]
    # the old client's session (the newest row): expired an hour ago
    rows = [r[0] for r in db.execute("SELECT rowid FROM sessions ORDER BY rowid DESC LIMIT 1")]
    db.execute("UPDATE sessions SET expires_at = ? WHERE rowid = ?", (now - 3600, rows[0]))
    db.commit()
    srv.client().login()
    n1 = db.execute("SELECT count(*) FROM sessions").fetchone()[0]
    expired = db.execute("SELECT count(*) FROM sessions WHERE expires_at <= ?", (now,)).fetchone()[0]
    db.close()
    assert expired == 0
    assert n1 <= n0  # one added, at least the expired one gone
    assert live.get("/api/me").status == 200


def test_session_token_stored_hashed():
    c = srv.client()
    c.login()
    token = c.cookies["fs_session"]
    db = sqlite3.connect(srv.db_path(), timeout=10)
    hashes = [r[0] for r in db.execute("SELECT token_hash FROM sessions")]
    db.close()
    assert token not in hashes and len(hashes) >= 1


def test_admin_page_adds_disables_and_resets_users():
    c = srv.client()
    c.login()
    r = c.post("/admin/users", form={"csrf_token": c.csrf, "login": "alice",
                                     "display_name": "Alice <b>", "role": "member"})
    assert r.status == 200
    pw = re.search(r'<code id="new-password">([^<]+)</code>', r.text).group(1)
    assert "Alice &lt;b&gt;" in r.text
    a = srv.client()
    assert a.login("alice", pw).status == 303
    assert a.get("/admin").status == 403  # members are not admins
    uid = re.search(r'admin/users/(\d+)/disable"[^>]*>\s*<input type="hidden" name="csrf_token" value="[0-9a-f]+"><button type="submit">Disable</button>\s*</form>\s*<form method="post" action="/admin/users/\d+/password', r.text)
    db = sqlite3.connect(srv.db_path(), timeout=10)
    alice_id = db.execute("SELECT id FROM users WHERE login = 'alice'").fetchone()[0]
    db.close()
    r = c.post("/admin/users/%d/disable" % alice_id, form={"csrf_token": c.csrf})
    assert r.status == 200
    assert a.get("/api/me").status == 401  # disabling ends sessions
    assert srv.client().login("alice", pw).status == 401
    c.post("/admin/users/%d/enable" % alice_id, form={"csrf_token": c.csrf})
    r = c.post("/admin/users/%d/password" % alice_id, form={"csrf_token": c.csrf})
    pw2 = re.search(r'<code id="new-password">([^<]+)</code>', r.text).group(1)
    assert pw2 != pw
    assert srv.client().login("alice", pw2).status == 303
    assert c.post("/admin/users/999999/disable", form={"csrf_token": c.csrf}).status == 404
    dup = c.post("/admin/users", form={"csrf_token": c.csrf, "login": "alice"})
    assert dup.status == 409
    del uid


def test_cli_user_commands():
    r = srv.cli("user", "add", "bob", "--name", "Bob B", input="bob-password-1\n")
    assert r.returncode == 0, r.stderr
    assert srv.client().login("bob", "bob-password-1").status == 303
    r = srv.cli("user", "list")
    assert r.returncode == 0 and "bob" in r.stdout and "Bob B" in r.stdout
    r = srv.cli("user", "passwd", "bob", input="bob-password-2\n")
    assert r.returncode == 0
    assert srv.client().login("bob", "bob-password-1").status == 401
    assert srv.client().login("bob", "bob-password-2").status == 303
    r = srv.cli("user", "disable", "bob")
    assert r.returncode == 0
    assert srv.client().login("bob", "bob-password-2").status == 401
    assert srv.cli("user", "add", "bad login!", input="whatever-123\n").returncode != 0
    assert srv.cli("user", "add", "short", input="abc\n").returncode != 0
    assert srv.cli("user", "passwd", "nobody-here", input="whatever-123\n").returncode != 0


def test_first_admin_password_file_is_private():
    import os
    import stat
    st = os.stat(os.path.join(srv.data, "admin-password.txt"))
    assert stat.S_IMODE(st.st_mode) == 0o600


def test_about_lists_library_versions():
    c = srv.client()
    c.login()
    r = c.get("/about")
    assert r.status == 200
    for lib in ("libtiff", "libpng", "libjpeg", "SQLite", "libcurl", "cJSON", "libfcgi", "Git commit"):
        assert lib in r.text, lib
    assert re.search(r"<th>SQLite</th><td>3\.\d+", r.text)
