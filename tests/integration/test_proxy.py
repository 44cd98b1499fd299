"""Deployment under a base path behind a trusted reverse proxy, and single
sign-on by a proxy header."""
from harness import Server


def test_base_path_and_trusted_proxy():
    with Server(base_path="/fishscale/") as s:
        c = s.client()
        r = c.get("/fishscale/api/health", raw_path=True)
        assert r.status == 200
        assert c.get("/api/health", raw_path=True).status == 404  # outside the base path
        r = c.get("/fishscale", raw_path=True)
        assert r.status == 301 and r.header("Location").endswith("/fishscale/")
        r = c.get("/fishscale/", raw_path=True)
        assert r.status == 303 and r.header("Location") == "/fishscale/login"
        page = c.get("/fishscale/login", raw_path=True)
        assert 'action="/fishscale/login"' in page.text
        assert 'href="/fishscale/static/css/fishscale.css"' in page.text
        assert c.get("/fishscale/static/css/fishscale.css", raw_path=True).status == 200
        # the proxy terminates HTTPS and says so: cookies become Secure
        proxied = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "10.1.2.3",
                   "X-Forwarded-Host": "intranet.example"}
        c2 = s.client()
        r = c2.request("GET", "/fishscale/login", raw_path=True, headers=proxied)
        cookie = r.header("Set-Cookie")
        assert "Path=/fishscale/" in cookie and "Secure" in cookie
        tok = r.text.split('name="csrf_token" value="')[1].split('"')[0]
        h = dict(proxied, Origin="https://intranet.example")
        r = c2.request("POST", "/fishscale/login", raw_path=True, headers=h,
                       form={"csrf_token": tok, "login": "admin", "password": s.admin_password,
                             "next": "/"})
        assert r.status == 303 and r.header("Location") == "/fishscale/"
        sc = [v for v in r.headers_named("Set-Cookie") if v.startswith("fs_session=")][0]
        assert "Secure" in sc and "Path=/fishscale/" in sc
        me = c2.request("GET", "/fishscale/api/me", raw_path=True, headers=proxied)
        assert me.status == 200


def test_forwarded_headers_ignored_from_untrusted_addresses():
    with Server(env={"FISHSCALE_TRUSTED_PROXIES": "10.9.9.9",
                     "FISHSCALE_LOGIN_MAX_FAILURES": "1"}) as s:
        c = s.client()
        r = c.get("/login", headers={"X-Forwarded-Proto": "https"})
        assert "Secure" not in r.header("Set-Cookie")
        # a forged X-Forwarded-For does not give a fresh address for the
        # per-address throttle (4 x 1 failures from 127.0.0.1)
        for i in range(4):
            assert s.client().login("nobody%d" % i, "wrong-password").status == 401
        forged = s.client()
        page = forged.get("/login")
        tok = page.text.split('name="csrf_token" value="')[1].split('"')[0]
        r = forged.post("/login", headers={"X-Forwarded-For": "192.0.2.%d" % 7},
                        form={"csrf_token": tok, "login": "admin", "password": s.admin_password})
        assert r.status == 429


def test_single_sign_on_header_from_trusted_proxy():
    # the proxy's address is given explicitly (issue 14 item 12): here the
    # test itself, on loopback, plays the proxy
    env = {"FISHSCALE_SSO_HEADER": "X-Remote-User", "FISHSCALE_SSO_CREATE_USERS": "true",
           "FISHSCALE_TRUSTED_PROXIES": "127.0.0.1"}
    with Server(env=env) as s:
        c = s.client()
        r = c.get("/api/me", headers={"X-Remote-User": "dora"})
        assert r.status == 200 and r.json()["user"]["login"] == "dora"
        assert r.json()["user"]["role"] == "member"
        assert "fs_session" in c.cookies
        listed = s.cli("user", "list").stdout
        assert "dora" in listed
    with Server(env={"FISHSCALE_SSO_HEADER": "X-Remote-User",
                     "FISHSCALE_TRUSTED_PROXIES": "10.9.9.9"}) as s:
        r = s.client().get("/api/me", headers={"X-Remote-User": "admin"})
        assert r.status == 401  # not from a trusted proxy: the header means nothing
