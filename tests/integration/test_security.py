"""Issue 14's secrets, files and accounts items through nginx + FastCGI:
file modes in the data directory (umask 027, 2750 with the web server's
group), the client event namespace, single sign-on's trusted proxies,
login throttling per (account, address), and changing one's own password."""
import grp
import http.client
import os
import stat

from harness import Server, upload_image, unique_png

srv = None


def setup_module():
    global srv
    srv = Server(env={"FISHSCALE_WEB_GROUP": "nogroup"})
    # what an older version left: a world-readable directory and file
    os.chmod(srv.data, 0o755)
    os.makedirs(os.path.join(srv.data, "images", "old"))
    os.chmod(os.path.join(srv.data, "images"), 0o755)
    with open(os.path.join(srv.data, "images", "old", "left.png"), "wb") as f:
        f.write(b"old")
    os.chmod(os.path.join(srv.data, "images", "old", "left.png"), 0o644)
    srv.start()


def teardown_module():
    srv.cleanup()


def client(login="admin", password=None):
    c = srv.client()
    r = c.login(login, password)
    assert r.status == 303, r.text
    return c


def world_accessible():
    bad = []
    for root, dirs, files in os.walk(srv.data):
        for name in dirs + files + ["."]:
            p = os.path.join(root, name)
            st = os.lstat(p)
            if stat.S_ISSOCK(st.st_mode) or stat.S_ISLNK(st.st_mode):
                continue
            if st.st_mode & 0o007:
                bad.append((p, oct(st.st_mode)))
    return bad


def test_data_directory_is_not_world_readable_and_images_are_still_served():
    # issue 14 item 7
    c = client()
    img = upload_image(c, data=unique_png(120, 90), filename="modes.png")["image"]
    r = c.api("POST", "/api/images/%d/sets" % img["id"], {"name": "modes"})
    assert r.status in (200, 201), r.text
    r = c.get("/api/images/%d/display.png" % img["id"])
    assert r.status == 200 and r.body[:8] == b"\x89PNG\r\n\x1a\n", (r.status, r.text[:200])
    srv.cli("user", "add", "dora", input="dora-password-1\n")
    assert world_accessible() == []
    gid = grp.getgrnam("nogroup").gr_gid
    st = os.stat(srv.data)
    assert st.st_gid == gid and stat.S_IMODE(st.st_mode) & 0o2750 == 0o2750, oct(st.st_mode)
    for name in ("fishscale.db", "images"):
        assert os.stat(os.path.join(srv.data, name)).st_gid == gid, name
    old = os.stat(os.path.join(srv.data, "images", "old", "left.png"))
    assert stat.S_IMODE(old.st_mode) == 0o640 and old.st_gid == gid


def test_sso_refuses_to_start_without_an_explicit_proxy_list():
    # issue 14 item 12: the loopback default would let any local process log in as anyone
    s = Server(env={"FISHSCALE_SSO_HEADER": "X-Remote-User"})
    try:
        why = s.start_refused()
        assert "trusted_proxies" in why, why
        out = s.cli("user", "list")
        assert out.returncode != 0 and "trusted_proxies" in out.stderr
    finally:
        s.cleanup()


def test_sso_header_is_cleared_by_nginx_for_clients_that_are_not_proxies():
    s = Server(env={"FISHSCALE_SSO_HEADER": "X-Remote-User", "FISHSCALE_TRUSTED_PROXIES": "127.0.0.1"})
    try:
        s.start()
        # loopback as a proxy works but is warned about
        out = s.cli("init")
        assert out.returncode == 0 and "loopback" in out.stderr, out.stderr
        r = s.client().get("/api/me", headers={"X-Remote-User": "admin"})
        assert r.status == 200 and r.json()["user"]["login"] == "admin"
        with open(os.path.join(s.data, "run", "nginx.conf")) as f:
            conf = f.read()
        assert "fastcgi_param HTTP_X_REMOTE_USER $fs_sso_user;" in conf
        assert "127.0.0.1 1;" in conf
        # another local address is not the proxy: nginx passes an empty header
        conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=30, source_address=("127.0.0.2", 0))
        conn.request("GET", "/api/me", headers={"X-Remote-User": "admin", "Host": "127.0.0.1:%d" % s.port})
        resp = conn.getresponse()
        resp.read()
        conn.close()
        assert resp.status == 401, resp.status
    finally:
        s.cleanup()


def login_from(addr, login, password, s=None):
    """A login form post from client address addr (told by the trusted
    loopback proxy in X-Forwarded-For)."""
    s = s or srv
    c = s.client()
    h = {"X-Forwarded-For": addr}
    page = c.get("/login", headers=h)
    tok = page.text.split('name="csrf_token" value="')[1].split('"')[0]
    return c.post("/login", headers=h, form={"csrf_token": tok, "login": login, "password": password,
                                              "next": "/"})


def test_wrong_passwords_from_one_address_do_not_lock_the_owner_out():
    # issue 14 item 13: throttle per (account, address), growing Retry-After
    s = Server(env={"FISHSCALE_LOGIN_MAX_FAILURES": "3"}).start()
    try:
        s.cli("user", "add", "erin", input="erin-password-1\n")
        for _ in range(3):
            assert login_from("192.0.2.1", "erin", "wrong-password", s).status == 401
        r = login_from("192.0.2.1", "erin", "erin-password-1", s)
        assert r.status == 429
        first = int(r.header("Retry-After"))
        assert 0 < first <= 30, first
        # the owner, from an address with no failures, is not locked out
        assert login_from("192.0.2.2", "erin", "erin-password-1", s).status == 303
        # once the wait is over, the next failure of that pair waits twice as long
        s.sql("UPDATE login_failures SET at = at - 31 WHERE client_addr = '192.0.2.1'")
        assert login_from("192.0.2.1", "erin", "wrong-password", s).status == 401
        r = login_from("192.0.2.1", "erin", "wrong-password", s)
        assert r.status == 429 and int(r.header("Retry-After")) > first, r.header("Retry-After")
        # the account's ceiling over all addresses is much higher: 20 x 3
        for i in range(55):
            s.sql("INSERT INTO login_failures (login, client_addr, at) VALUES ('erin', ?, strftime('%s','now'))",
                  ("198.51.100.%d" % i,))
        assert login_from("192.0.2.3", "erin", "erin-password-1", s).status == 303
        for i in range(5):
            s.sql("INSERT INTO login_failures (login, client_addr, at) VALUES ('erin', ?, strftime('%s','now'))",
                  ("203.0.113.%d" % i,))
        assert login_from("192.0.2.4", "erin", "erin-password-1", s).status == 429
    finally:
        s.cleanup()


def test_members_change_their_own_password_and_other_sessions_end():
    # issue 14 item 14: the API
    srv.cli("user", "add", "finn", "--name", "<b>Finn</b>", input="finn-password-1\n")
    a, b = client("finn", "finn-password-1"), client("finn", "finn-password-1")
    r = a.api("POST", "/api/me/password", {"current_password": "wrong-one", "new_password": "finn-password-2"})
    assert r.status == 403 and r.json()["success"] is False, r.text
    r = a.api("POST", "/api/me/password", {"current_password": "finn-password-1", "new_password": "x"})
    assert r.status == 422, r.text
    r = a.request("POST", "/api/me/password", json_body={"current_password": "finn-password-1",
                                                         "new_password": "finn-password-2"})
    assert r.status == 403, "no CSRF token"
    r = a.api("POST", "/api/me/password", {"current_password": "finn-password-1", "new_password": "finn-password-2"})
    assert r.status == 200 and r.json() == {"success": True, "sessions_ended": 1}, r.text
    assert a.get("/api/me").status == 200   # this session stays
    assert b.get("/api/me").status == 401   # the other one ended
    assert srv.client().login("finn", "finn-password-1").status == 401
    assert srv.client().login("finn", "finn-password-2").status == 303
    es = [e for e in client().get("/api/log?type=password_changed&user=all").json()["entries"] if e["user"] == "finn"]
    assert len(es) >= 1 and es[0]["client"] is False


def test_account_page_changes_the_password_through_its_form():
    # issue 14 item 14: the UI (a server-rendered page, escaped)
    srv.cli("user", "add", "gail", "--name", "<script>x</script>", input="gail-password-1\n")
    c, other = client("gail", "gail-password-1"), client("gail", "gail-password-1")
    page = c.get("/account")
    assert page.status == 200 and 'action="/account/password"' in page.text
    assert "<script>x</script>" not in page.text and "&lt;script&gt;" in page.text
    assert 'href="/account"' in c.get("/").text  # the account menu links to it
    form = {"csrf_token": c.csrf, "current_password": "gail-password-1",
            "new_password": "gail-password-2", "confirm_password": "gail-password-3"}
    r = c.post("/account/password", form=form)
    assert r.status == 422 and "differ" in r.text
    form["confirm_password"] = "gail-password-2"
    r = c.post("/account/password", form=form)
    assert r.status == 200 and "Password changed." in r.text, r.text[:500]
    assert other.get("/api/me").status == 401
    assert srv.client().login("gail", "gail-password-2").status == 303
