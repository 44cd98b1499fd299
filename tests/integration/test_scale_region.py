"""The scale region through nginx + FastCGI (issue 13 section 3, issue 16's
"nothing is ever added outside it", issue 19's data bar): GET/PUT
/api/images/{id}/scale_region with its refusals; on P1 Fig2 (white paper band
in rows 0-60) no detection in the band on any method, no addition there by
AgenticEdit or the chat's "fill gaps" with the `local` provider, autocrop
removing the band; on the SEM image no detection on the data bar; a
person's correction is an image-level event and a `scale_region_changed`
entry in every set's history, and extraction follows it."""
import json
import os
import time

from harness import Server, TESTDATA, upload_image, wait_for

srv = None
PAPER = os.path.join(TESTDATA, "P1_Fig2_Polypterus_bichir_2.63um.tif")
SEM = os.path.join(os.path.dirname(TESTDATA), "sem", "M_kelleri_HLMD-Me_15576_ventral_detail.tif")
BAND = 60  # rows 0..60 of P1 Fig2 are paper


def setup_module():
    global srv
    srv = Server(env={"FISHSCALE_AGENT_MAX_ITERATIONS": "40"}).start()
    for login in ("ann", "ben"):
        out = srv.cli("user", "add", login, input=login + "-password-1\n")
        assert out.returncode == 0, out.stderr


def teardown_module():
    srv.cleanup()


def client(login="ann"):
    c = srv.client()
    assert c.login(login, login + "-password-1").status == 303
    return c


_seq = [0]


def new_set(c, path=PAPER):
    """A new image entry each time: the same file uploaded again by the same
    user is the same image, so a few trailing bytes (ignored by the TIFF
    reader) make each upload its own."""
    _seq[0] += 1
    with open(path, "rb") as f:
        data = f.read() + b"\0" * _seq[0]
    image = upload_image(c, data=data, filename=os.path.basename(path))["image"]
    r = c.api("POST", "/api/images/%d/sets" % image["id"], {"name": "region %f" % time.time()})
    assert r.status in (200, 201), r.text
    sid = r.json()["set"]["id"] if "set" in r.json() else r.json()["id"]
    return image, sid


def extract(c, sid, params):
    rev = c.api("GET", "/api/sets/%d/revision" % sid).json()["revision"]
    r = c.api("POST", "/api/sets/%d/extract" % sid, {"revision": rev, "parameters": params})
    assert r.status == 200, r.text
    return c.api("GET", "/api/sets/%d" % sid).json()["tubercles"]


def xy(t):
    return t.get("x", t.get("centroid_x")), t.get("y", t.get("centroid_y"))


def test_get_gives_the_automatic_region_of_p1_fig2():
    c = client()
    image, _ = new_set(c)
    r = c.api("GET", "/api/images/%d/scale_region" % image["id"])
    assert r.status == 200, r.text
    j = r.json()
    assert j["source"] == "auto"
    assert (j["width"], j["height"]) == (image["width"], image["height"])
    assert j["cell"] == 3 and len(j["rows"]) == j["grid_height"]
    # the band's cell rows are empty, the surface below is full width
    assert all(row == [] for row in j["rows"][:BAND // 3 + 1])
    assert j["rows"][100] == [0, j["grid_width"]]
    assert 60 < j["bbox"]["y"] <= 80 and 0.8 < j["area_fraction"] < 0.95
    # another user may read a shared image's region, not change it
    other = client("ben")
    assert other.api("GET", "/api/images/%d/scale_region" % image["id"]).status == 200
    r = other.api("PUT", "/api/images/%d/scale_region" % image["id"], {"reset": True})
    assert r.status in (403, 404), r.text


def test_no_detection_in_the_band_on_any_method():
    c = client()
    image, sid = new_set(c)
    r = c.api("POST", "/api/images/%d/calibration" % image["id"], {"um_per_px": 0.118})
    assert r.status == 200, r.text
    for method in ("auto", "log", "dog", "ellipse", "lattice"):
        for params in ({"method": method},
                       {"method": method, "threshold": 0.01, "min_circularity": 0, "min_diameter_um": 0.5}):
            ts = extract(c, sid, params)
            ys = [xy(t)[1] for t in ts]
            assert not [y for y in ys if y <= BAND + 0.5], (params, sorted(ys)[:5])


def test_no_detection_on_the_sem_data_bar():
    c = client()
    image, sid = new_set(c, SEM)
    r = c.api("POST", "/api/images/%d/calibration" % image["id"], {"um_per_px": 0.1439})
    assert r.status == 200, r.text
    region = c.api("GET", "/api/images/%d/scale_region" % image["id"]).json()
    assert region["area_fraction"] < 0.99
    for method in ("auto", "log", "lattice"):
        ts = extract(c, sid, {"method": method})
        on_bar = [xy(t) for t in ts if 122 <= xy(t)[0] <= 665 and 877 <= xy(t)[1] <= 944]
        assert not on_bar, (method, on_bar)


def test_put_validation_refuses_malformed_regions():
    c = client()
    image, _ = new_set(c)
    url = "/api/images/%d/scale_region" % image["id"]
    g = c.api("GET", url).json()
    gh, gw = g["grid_height"], g["grid_width"]
    bad = [
        {},                                              # nothing
        {"cell": 4, "rows": [[]] * gh},                  # not the frame's cell
        {"cell": 3, "rows": [[]] * (gh - 1)},            # a row short
        {"cell": 3, "rows": [[0, gw + 1]] + [[]] * (gh - 1)},  # beyond the grid
        {"cell": 3, "rows": [[5, 2]] + [[]] * (gh - 1)},       # runs out of order
        {"cell": 3, "rows": [[1]] + [[]] * (gh - 1)},          # odd run ends
        {"cell": 3, "rows": [["a", "b"]] + [[]] * (gh - 1)},   # not numbers
        {"cell": 3, "rows": "all"},
        {"cell": 3.5, "rows": [[]] * gh},
        {"reset": False},
        {"reset": True, "cell": 3},
        {"cell": 3, "rows": [[]] * gh, "colour": "red"},       # unknown field
        {"cell": 3, "rows": [[]] * gh, "summary": "x" * 200},
    ]
    for body in bad:
        r = c.api("PUT", url, body)
        assert r.status == 422, (body if len(json.dumps(body)) < 200 else list(body), r.status, r.text)
        assert r.json()["error"]
    # far too many runs: refused (by the body limit or the parser)
    many = [[i for i in range(0, gw - gw % 2)] for _ in range(gh)]
    r = c.api("PUT", url, {"cell": 3, "rows": many * 2})
    assert r.status in (413, 422), r.status
    r = c.api("PUT", url, body=b"{not json", headers={"Content-Type": "application/json"})
    assert 400 <= r.status < 500
    # nothing was stored: still automatic, no event
    assert c.api("GET", url).json()["source"] == "auto"
    assert not srv.sql("SELECT 1 FROM events WHERE image_id = ? AND event_type = 'scale_region_changed'",
                   (image["id"],))


def test_a_persons_region_is_logged_followed_and_reset():
    c = client()
    image, sid = new_set(c)
    iid = image["id"]
    url = "/api/images/%d/scale_region" % iid
    g = c.api("GET", url).json()
    gw = g["grid_width"]
    # keep the automatic band out, and erase the left half as well
    rows = [[] if row == [] else [gw // 2, gw] for row in g["rows"]]
    r = c.api("PUT", url, {"cell": g["cell"], "rows": rows, "summary": "erased the left half"})
    assert r.status == 200, r.text
    j = r.json()
    assert j["source"] == "user" and j["rows"] == rows
    assert abs(j["area_fraction"] - g["area_fraction"] / 2) < 0.02
    ev = srv.sql("SELECT details FROM events WHERE image_id = ? AND event_type = 'scale_region_changed'", (iid,))
    assert len(ev) == 1 and json.loads(ev[0][0])["action"] == "edited"
    hist = c.api("GET", "/api/sets/%d/history" % sid).json()["history"]
    assert hist[0]["type"] == "scale_region_changed", hist[0]
    # extraction follows the person's region
    ts = extract(c, sid, {"method": "auto"})
    assert ts and not [t for t in ts if xy(t)[0] < (gw // 2) * g["cell"] - 0.5 or xy(t)[1] <= BAND]
    # and so does statistics' boundary: tubercles along the erased edge are boundary ones
    edge = [t for t in ts if xy(t)[0] < (gw // 2) * g["cell"] + 10]
    assert edge and all(t["is_boundary"] for t in edge), edge
    # back to automatic
    r = c.api("PUT", url, {"reset": True})
    assert r.status == 200 and r.json()["source"] == "auto"
    assert r.json()["rows"] == g["rows"]
    assert len(srv.sql("SELECT 1 FROM events WHERE image_id = ? AND event_type = 'scale_region_changed'", (iid,))) == 2
    hist = c.api("GET", "/api/sets/%d/history" % sid).json()["history"]
    assert hist[0]["type"] == "scale_region_changed"


def test_autocrop_removes_the_paper_band():
    autocrop_removes_the_band(PAPER)


def test_autocrop_removes_the_paper_band_of_p1_fig1():
    # the issue names both figures: P1 Fig1 has the same printed band
    autocrop_removes_the_band(os.path.join(TESTDATA, "P1_Fig1_Lepidotes_elvensis_4.78um.tif"))


def autocrop_removes_the_band(path):
    c = client()
    image, _ = new_set(c, path)
    r = c.api("POST", "/api/images/%d/autocrop" % image["id"])
    assert r.status == 200, r.text
    j = r.json()["image"]
    assert j["width"] == image["width"] and image["height"] - 80 <= j["height"] <= image["height"] - 61
    ev = srv.sql("SELECT details FROM events WHERE image_id = ? AND event_type = 'image_autocropped'", (image["id"],))
    d = json.loads(ev[0][0])
    assert 61 <= d["removed_top"] <= 80
    # the cropped image is all scale: its region is the whole frame
    g = c.api("GET", "/api/images/%d/scale_region" % image["id"]).json()
    assert g["area_fraction"] > 0.99


def agent_run(c, path, body):
    r = c.api("POST", path, body)
    assert r.status == 200, (r.status, r.text)
    rid = r.json()["run_id"]
    edit = "/edit/" in path
    st = wait_for(lambda: (lambda s: s if s["state"] not in ("starting", "running") else None)(
        c.api("GET", "/api/agent/%sstatus/%d" % ("edit/" if edit else "", rid)).json()), 120, "run to end")
    return st


def test_agentic_edit_and_fill_gaps_add_nothing_in_the_band():
    c = client()
    image, sid = new_set(c)
    before = extract(c, sid, {"method": "auto"})
    st = agent_run(c, "/api/agent/edit/start", {"image_id": image["id"], "set_id": sid, "provider": "local",
                                                "max_iterations": 10})
    assert st["state"] == "completed", st
    after = c.api("GET", "/api/sets/%d" % sid).json()["tubercles"]
    assert not [xy(t) for t in after if xy(t)[1] <= BAND + 0.5], st.get("log_lines")
    st = agent_run(c, "/api/agent/chat/start", {"image_id": image["id"], "set_id": sid, "provider": "local",
                                                "instruction": "Fill gaps in the lattice"})
    assert st["state"] == "completed", st
    after = c.api("GET", "/api/sets/%d" % sid).json()["tubercles"]
    assert not [xy(t) for t in after if xy(t)[1] <= BAND + 0.5]
    assert before  # the extraction found the surface's tubercles


def test_overlay_png_shades_the_outside_on_request():
    from png_decode import decode_png
    c = client()
    _, sid = new_set(c)
    plain = c.api("GET", "/api/sets/%d/overlay.png?scale_bar=0" % sid)
    shaded = c.api("GET", "/api/sets/%d/overlay.png?scale_bar=0&region=1" % sid)
    assert plain.status == 200 and shaded.status == 200
    w, h, ch, p_rows = decode_png(plain.body)
    _, _, _, s_rows = decode_png(shaded.body)
    px = lambda rows, x, y: tuple(rows[y][ch * x:ch * x + 3])
    band, surface = px(s_rows, 350, 35), px(s_rows, 350, 300)
    assert abs(px(p_rows, 350, 35)[0] - px(p_rows, 350, 35)[2]) < 10, "the band is grey paper"
    assert band[0] - band[2] > 60, band
    assert surface == px(p_rows, 350, 300), "the scale surface is not shaded"
    assert c.api("GET", "/api/sets/%d/overlay.png?region=maybe" % sid).status == 422


def test_a_reduced_overlay_keeps_the_persons_region_and_shades_it_in_place():
    """overlay.png?max_side=... (and every overlay of an image above 16 MP)
    is drawn from the working image read already reduced. Its shading must
    be the region in force for the full frame - here a person's, who erased
    the left half - placed at full-frame coordinates, and drawing it must not
    replace that stored correction by an automatic region of the reduced
    copy (which deleted the person's region before)."""
    from png_decode import decode_png
    c = client()
    image, sid = new_set(c)
    url = "/api/images/%d/scale_region" % image["id"]
    g = c.api("GET", url).json()
    gw = g["grid_width"]
    rows = [[] if row == [] else [gw // 2, gw] for row in g["rows"]]
    assert c.api("PUT", url, {"cell": g["cell"], "rows": rows, "summary": "erased the left half"}).status == 200
    W, H = image["width"], image["height"]
    r = c.api("GET", "/api/sets/%d/overlay.png?scale_bar=0&region=1&max_side=%d" % (sid, W // 2))
    assert r.status == 200, r.text
    w, h, ch, px_rows = decode_png(r.body)
    assert w <= W // 2 and h < H, (w, h)
    after = c.api("GET", url).json()
    assert after["source"] == "user" and after["rows"] == rows, after["source"]

    def shaded(fx, fy):
        x, y = int(fx * w), int(fy * h)
        p = px_rows[y][ch * x:ch * x + 3]
        return p[0] - p[2] > 60

    # below the paper band: the erased left half shaded, the right half not
    for fy in (0.3, 0.6, 0.9):
        assert shaded(0.1, fy) and shaded(0.4, fy), fy
        assert not shaded(0.6, fy) and not shaded(0.9, fy), fy


def test_a_reduced_overlay_of_an_image_without_a_stored_region_shades_the_band_in_place():
    """No region stored yet (a fresh upload): the reduced copy's automatic
    region is shaded with its cells scaled back to the frame - P1 Fig2's
    paper band at the top, not a shrunk band - and nothing is stored from
    the copy (the frame's own region is computed later at full size)."""
    from png_decode import decode_png
    c = client()
    image, sid = new_set(c)
    iid = image["id"]
    assert not srv.sql("SELECT 1 FROM scale_regions WHERE image_id = ?", (iid,))
    W, H = image["width"], image["height"]
    r = c.api("GET", "/api/sets/%d/overlay.png?scale_bar=0&region=1&max_side=%d" % (sid, W // 2))
    assert r.status == 200, r.text
    w, h, ch, px_rows = decode_png(r.body)
    assert w <= W // 2, (w, h)
    assert not srv.sql("SELECT 1 FROM scale_regions WHERE image_id = ?", (iid,))

    def shaded(x, y):
        p = px_rows[y][ch * x:ch * x + 3]
        return p[0] - p[2] > 60

    band = BAND * h // H  # the band's last row on the copy
    assert shaded(w // 2, band // 2) and shaded(w // 4, band // 2)
    for fy in (0.3, 0.6, 0.9):
        assert not shaded(w // 2, int(fy * h)), fy
    g = c.api("GET", "/api/images/%d/scale_region" % iid).json()
    assert g["source"] == "auto" and g["width"] == W and g["height"] == H, (g["width"], g["height"])
