"""The large downloads are streamed (issue 15, cgi/app/http.h): a set's
annotation JSON, its CSVs, GET /api/sets/{id} and the event log's JSONL
are written to nginx a chunk at a time instead of being held whole. Here:
each download of an 8,000-tubercle (packed) set parses to exactly the set
that was imported, a HEAD has no body, a client that leaves mid-download
(through nginx, and on the FastCGI socket itself, where the worker's
writes then fail) neither kills nor stalls the worker, an answer the
worker cannot finish reaches the client as incomplete (not as a shorter
whole), and the log's export pages through every event oldest first. That the streamed text is
cJSON's text of the whole tree byte for byte is
tests/unit/store/test_annotation_write.c; the figures are make bench
(tests/bench/bench_exports.py)."""
import json
import os
import random
import socket
import sqlite3
import struct
import time
import zlib

from harness import Server, ok

N_TUB = 8000  # packed (fs_packed_min 5000); the JSON export is 3 MB

srv = None
admin = None
big = {}


def png_bytes(w, h):
    raw = b"".join(b"\x00" + bytes(((x * 7 + y * 3) % 251) for x in range(w)) for y in range(h))

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def upload(c, w=1200, h=1000):
    boundary = "----fs-downloads"
    body = ("--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.png\"\r\n"
            "Content-Type: image/png\r\n\r\n" % boundary).encode() + png_bytes(w, h) + \
        ("\r\n--%s--\r\n" % boundary).encode()
    r = c.api("POST", "/api/images", None, body=body,
              headers={"Content-Type": "multipart/form-data; boundary=" + boundary})
    assert r.status in (200, 201), r.text
    return r.json()["image"]["id"]


def annotation(n, seed):
    """A v3 file of n tubercles (a few unmeasured, some with ellipses) and
    about 3n connections."""
    rnd = random.Random(seed)
    tubs, edges = [], []
    for i in range(1, n + 1):
        t = {"id": i, "centroid_x": round(rnd.uniform(0, 1199), 3), "centroid_y": round(rnd.uniform(0, 999), 3),
             "circularity": round(rnd.uniform(0.5, 1), 4), "is_boundary": i % 17 == 0,
             "source": ["extracted", "manual", "lattice", "agent"][i % 4]}
        if i % 50 == 7:
            t["radius_px"] = None
            t["diameter_px"] = None
        else:
            t["radius_px"] = round(rnd.uniform(2, 9), 4)
        if i % 3 == 0:
            t["major_axis_px"] = round(rnd.uniform(8, 12), 3)
            t["minor_axis_px"] = round(rnd.uniform(5, 8), 3)
        tubs.append(t)
    pairs = set()
    while len(pairs) < 3 * n:
        a, b = rnd.randint(1, n), rnd.randint(1, n)
        if a != b:
            pairs.add((min(a, b), max(a, b)))
    edges = [{"id1": a, "id2": b} for a, b in sorted(pairs)]
    return {"format": "fish-scale-annotations", "version": "3.0", "activeSetId": "big",
            "sets": [{"id": "big", "name": "big \u00e9 one", "calibration_um_per_pixel": None,
                      "tubercles": tubs, "edges": edges}]}, tubs, edges


def setup_module():
    global srv, admin
    srv = Server().start()
    admin = srv.client()
    admin.login()
    img = upload(admin)
    doc, tubs, edges = annotation(N_TUB, 1)
    r = admin.api("POST", "/api/images/%d/import" % img, None, body=json.dumps(doc).encode(),
                  headers={"Content-Type": "application/json"})
    assert r.status == 201, (r.status, r.text[:300])
    sid = r.json()["sets"][0]["id"]
    big.update(image=img, set=sid, tubs=tubs, edges=edges)


def teardown_module():
    srv.cleanup()


def header(r, name):
    return [v for k, v in r.headers if k.lower() == name.lower()]


def same_tubercles(got):
    want = {t["id"]: t for t in big["tubs"]}
    assert len(got) == len(want)
    for t in got:
        w = want[t["id"]]
        assert (t["centroid_x"], t["centroid_y"]) == (w["centroid_x"], w["centroid_y"]), (t, w)
        assert t["radius_px"] == w["radius_px"], (t, w)
        assert t["source"] == w["source"]


def same_edges(got):
    assert sorted((e["id1"], e["id2"]) for e in got) == [(e["id1"], e["id2"]) for e in big["edges"]]


def test_set_export_json_of_a_large_set_is_the_set():
    r = admin.get("/api/sets/%d/export.json" % big["set"])
    assert r.status == 200, r.text[:300]
    assert not header(r, "Content-Length"), "a streamed answer has no length"
    assert header(r, "Content-Disposition")[0].startswith("attachment;")
    assert r.body.endswith(b"}\n")
    j = json.loads(r.body)
    assert j["format"] == "fish-scale-annotations" and len(j["sets"]) == 1
    s = j["sets"][0]
    same_tubercles(s["tubercles"])
    same_edges(s["edges"])
    # derived end points are the tubercles' centres
    pos = {t["id"]: (t["centroid_x"], t["centroid_y"]) for t in big["tubs"]}
    for e in s["edges"][:500]:
        assert (e["x1"], e["y1"]) == pos[e["id1"]] and (e["x2"], e["y2"]) == pos[e["id2"]]
    # cJSON's layout: tab-indented members, items joined by ", "
    assert b'\n\t"sets":\t[{\n\t\t\t"id":\t"set_' in r.body
    # and the export is logged once it is complete
    log = ok(admin.api("GET", "/api/log?type=annotations_exported&limit=1"))
    assert log["entries"][0]["details"]["set"] == 'big \u00e9 one'


def test_image_export_holds_every_set_one_after_another():
    r = admin.api("POST", "/api/sets/%d/duplicate" % big["set"], {"name": "copy"})
    assert r.status in (200, 201), r.text
    r = admin.get("/api/images/%d/export.json" % big["image"])
    assert r.status == 200
    j = json.loads(r.body)
    named = {s["name"]: s for s in j["sets"]}
    assert {'big \u00e9 one', "copy"} <= set(named)
    for name in ('big \u00e9 one', "copy"):
        same_tubercles(named[name]["tubercles"])
        same_edges(named[name]["edges"])


def test_set_json_and_csvs_of_a_large_set_are_the_set():
    r = admin.get("/api/sets/%d" % big["set"])
    assert r.status == 200 and not header(r, "Content-Length")
    j = r.json()
    assert j["success"] is True and j["set"]["id"] == big["set"]
    same_tubercles(j["tubercles"])
    same_edges(j["edges"])
    assert j["statistics"]["n_tubercles"] == N_TUB
    cols = admin.get("/api/sets/%d?layout=columns" % big["set"]).json()
    assert cols["tubercles"]["n"] == N_TUB and cols["edges"]["n"] == len(big["edges"])
    assert cols["tubercles"]["id"] == [t["id"] for t in j["tubercles"]]
    assert cols["statistics"] == j["statistics"]
    tub = admin.get("/api/sets/%d/tubercles.csv" % big["set"])
    assert tub.status == 200 and header(tub, "Content-Type")[0].startswith("text/csv")
    lines = tub.text.split("\n")
    assert lines[0].startswith("id,centroid_x") and lines[-1] == ""
    assert len(lines) == N_TUB + 2
    assert sorted(int(l.split(",")[0]) for l in lines[1:-1]) == list(range(1, N_TUB + 1))
    ed = admin.get("/api/sets/%d/edges.csv" % big["set"]).text.split("\n")
    assert len(ed) == len(big["edges"]) + 2
    assert [tuple(map(int, l.split(",")[:2])) for l in ed[1:-1]] == \
        [(e["id1"], e["id2"]) for e in big["edges"]]


def test_head_of_a_streamed_download_has_no_body():
    r = admin.request("HEAD", "/api/sets/%d/export.json" % big["set"])
    assert r.status == 200 and r.body == b""
    assert header(r, "Content-Disposition")


def test_errors_come_before_the_stream():
    assert admin.get("/api/sets/999999/export.json").status == 404
    assert admin.get("/api/sets/999999/edges.csv").status == 404
    assert admin.get("/api/sets/999999").status == 404
    r = admin.get("/api/log/export.jsonl?limit=0")
    assert r.status == 422 and r.json()["success"] is False


def cookie_header():
    return "; ".join("%s=%s" % kv for kv in admin.cookies.items())


def read_then_close(s, keep):
    """Reads up to keep bytes of the answer on socket s (fewer if it ends), then closes it."""
    got = b""
    while len(got) < keep:
        d = s.recv(16384)
        if not d:
            break
        got += d
    s.close()
    return got


def leave_through_nginx(path, keep=65536):
    """GET path through nginx, read keep bytes of the answer, and close."""
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=30)
    s.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nCookie: %s\r\n\r\n" %
               (path, srv.port, cookie_header())).encode())
    return read_then_close(s, keep)


def fcgi_record(kind, body, req_id=1):
    return struct.pack(">BBHHBB", 1, kind, req_id, len(body), 0, 0) + body


def fcgi_params(pairs):
    out = b""
    for k, v in pairs.items():
        k, v = k.encode(), v.encode()
        for x in (k, v):
            out += struct.pack(">B", len(x)) if len(x) < 128 else struct.pack(">I", len(x) | 0x80000000)
        out += k + v
    return out


def leave_on_the_fastcgi_socket(path, keep=65536):
    """The request on the workers' own socket, the connection closed after
    keep bytes: the worker's next writes fail (no nginx between)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(30)
    s.connect(os.path.join(srv.data, "run", "fcgi.sock"))
    params = {"REQUEST_METHOD": "GET", "DOCUMENT_URI": path, "REQUEST_URI": path, "QUERY_STRING": "",
              "HTTP_COOKIE": cookie_header(), "HTTP_HOST": "127.0.0.1:%d" % srv.port,
              "REMOTE_ADDR": "127.0.0.1", "SERVER_NAME": "127.0.0.1", "SERVER_PORT": str(srv.port),
              "SERVER_PROTOCOL": "HTTP/1.1", "CONTENT_LENGTH": ""}
    s.sendall(fcgi_record(1, struct.pack(">HB5x", 1, 0)) + fcgi_record(4, fcgi_params(params)) +
              fcgi_record(4, b"") + fcgi_record(5, b""))
    return read_then_close(s, keep)


def test_a_client_that_leaves_mid_download_neither_kills_nor_stalls_the_worker():
    before = sorted(srv.worker_pids())
    sid = big["set"]
    for leave in (leave_through_nginx, leave_on_the_fastcgi_socket):
        for path in ("/api/sets/%d/export.json" % sid, "/api/sets/%d/edges.csv" % sid, "/api/sets/%d" % sid):
            got = leave(path)
            assert b"200" in got[:200] or b"Status: 200" in got[:400], got[:200]
    # every worker is the one that was there, and serves: the whole
    # download right after, as many times as there are workers
    full = [admin.get("/api/sets/%d/export.json" % sid) for _ in before]
    for r in full:
        assert r.status == 200
        assert len(json.loads(r.body)["sets"][0]["tubercles"]) == N_TUB
    assert admin.api("GET", "/api/health").status == 200
    assert sorted(srv.worker_pids()) == before


def test_log_export_pages_through_every_event_oldest_first():
    con = sqlite3.connect(srv.db_path(), timeout=10)
    try:
        uid = con.execute("SELECT id FROM users WHERE login = 'admin'").fetchone()[0]
        now = time.time()
        con.executemany("INSERT INTO events (at, user_id, image_id, event_type, details) VALUES (?, ?, NULL, ?, ?)",
                        [(now + i * 1e-3, uid, "client_bulk_%d" % (i % 3), json.dumps({"i": i, "s": "\u00e9\"x"}))
                         for i in range(2600)])
        con.commit()
    finally:
        con.close()
    r = admin.get("/api/log/export.jsonl")
    assert r.status == 200 and not header(r, "Content-Length")
    lines = [json.loads(l) for l in r.text.split("\n") if l]
    ids = [e["id"] for e in lines]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    # the list API's pages, newest first, are the same events backwards
    listed, before_id = [], None
    while True:
        q = "/api/log?limit=1000" + ("&before_id=%d" % before_id if before_id else "")
        page = ok(admin.api("GET", q))["entries"]
        listed += page
        if len(page) < 1000:
            break
        before_id = page[-1]["id"]
    assert lines == list(reversed(listed))
    bulk = [e for e in lines if e["event_type"].startswith("bulk_")]
    assert len(bulk) == 2600 and bulk[-1]["details"] == {"i": 2599, "s": "\u00e9\"x"}
    # a limit is the newest that many; a type filter, every page of it
    five = [json.loads(l) for l in admin.get("/api/log/export.jsonl?limit=5").text.split("\n") if l]
    assert five == lines[-5:]
    one = [json.loads(l) for l in admin.get("/api/log/export.jsonl?type=bulk_1").text.split("\n") if l]
    assert [e["details"]["i"] for e in one] == list(range(1, 2600, 3))


def raw_get(server, c, path):
    """GET path as HTTP/1.1 with Connection: close: (head, body as sent)."""
    s = socket.create_connection(("127.0.0.1", server.port), timeout=30)
    s.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nCookie: %s\r\nConnection: close\r\n\r\n" %
               (path, server.port, "; ".join("%s=%s" % kv for kv in c.cookies.items()))).encode())
    got = b""
    while True:
        d = s.recv(65536)
        if not d:
            break
        got += d
    s.close()
    head, _, body = got.partition(b"\r\n\r\n")
    return head, body


def test_an_answer_cut_short_reaches_the_client_as_incomplete():
    # every streamed body fails after 70,000 bytes (main_fcgi.c's test
    # hook), as a writer that ran out of memory would: its first 64 KiB
    # chunk goes out, the second fails
    cut = Server(env={"FISHSCALE_TEST_STREAM_CUT_AFTER": "70000"}).start()
    try:
        c = cut.client()
        c.login()
        img = upload(c, 300, 200)
        doc, tubs, _ = annotation(2000, 2)  # stored as rows (not packed)
        r = c.api("POST", "/api/images/%d/import" % img, None, body=json.dumps(doc).encode(),
                  headers={"Content-Type": "application/json"})
        assert r.status == 201, r.text
        sid = r.json()["sets"][0]["id"]
        workers = sorted(cut.worker_pids())
        for path in ("/api/sets/%d/export.json" % sid, "/api/sets/%d/tubercles.csv" % sid,
                     "/api/sets/%d/edges.csv" % sid, "/api/sets/%d" % sid):
            head, body = raw_get(cut, c, path)
            assert head.startswith(b"HTTP/1.1 200") and b"chunked" in head.lower(), head
            # the chunks that came, and no last chunk: the client knows
            assert 0 < len(body) < 140000, (path, len(body))  # what nginx had passed on
            assert not body.endswith(b"0\r\n\r\n"), path
            try:
                r = c.get(path)
                raise AssertionError("a cut answer read as whole: %d bytes" % len(r.body))
            except harness_incomplete():
                pass
        # answers that are not streamed are whole, and the workers serve on
        r = c.get("/api/sets/%d/summary.csv" % sid)
        assert r.status == 200 and r.text.count("\n") == 2
        assert sorted(cut.worker_pids()) == workers
        with open(os.path.join(cut.data, "run", "nginx-error.log")) as f:
            assert "unsupported FastCGI protocol version: 0" in f.read()
    finally:
        cut.cleanup()


def harness_incomplete():
    import http.client
    return (http.client.IncompleteRead, http.client.RemoteDisconnected, ConnectionError)
