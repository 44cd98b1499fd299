"""The Compare API against the real server: statistics, samples, groups and
reference data per set; the chart as SVG (parsed) and PNG (decoded); the
table as CSV; the picker's candidates; saved comparisons (create, read,
change, delete, sharing, sets left out for a viewer who may not see them);
"all Base sets of my images"; and who may not add what (404)."""
import csv
import io
import json
import math
import xml.etree.ElementTree as ET

from harness import Server, unique_png, upload_image
from png_decode import decode_png

SVG = "{http://www.w3.org/2000/svg}"
srv = None
ctx = {}


def lattice(r_px, pitch, nx, ny, x0=20.0, y0=20.0):
    """A hexagonal patch of tubercles whose radii vary a little, and the
    connections between neighbours (centre distance = pitch)."""
    tub, edges = [], []
    for j in range(ny):
        for i in range(nx):
            tid = len(tub) + 1
            r = r_px * (1 + 0.06 * (((i * 7 + j * 3) % 5) - 2))
            tub.append({"id": tid, "centroid_x": x0 + i * pitch + (j % 2) * pitch / 2,
                        "centroid_y": y0 + j * pitch * math.sqrt(3) / 2, "radius_px": r, "circularity": 1})
    for a in tub:
        for b in tub:
            if a["id"] < b["id"]:
                d = math.hypot(a["centroid_x"] - b["centroid_x"], a["centroid_y"] - b["centroid_y"])
                if abs(d - pitch) < 0.01 * pitch:
                    edges.append({"id1": a["id"], "id2": b["id"]})
    return tub, edges


def make_set(c, name, r_px, pitch, um=None, shared=True):
    """A new image (calibrated when um is given) with one imported set."""
    image = upload_image(c, data=unique_png(300, 220), filename=name + ".png")["image"]
    if not shared:
        assert c.api("PATCH", "/api/images/%d" % image["id"], {"visibility": "private"}).status == 200
    if um:
        r = c.api("POST", "/api/images/%d/calibration" % image["id"], {"um_per_px": um, "method": "direct"})
        assert r.status == 200, r.text
    tub, edges = lattice(r_px, pitch, 6, 5)
    doc = {"format": "fish-scale-annotations", "version": "3.0", "image_name": name,
           "sets": [{"id": "s", "name": name, "tubercles": tub, "edges": edges}]}
    r = c.api("POST", "/api/images/%d/import" % image["id"], None, body=json.dumps(doc).encode(),
              headers={"Content-Type": "application/json"})
    assert r.status == 201, r.text
    return {"image": image, "set_id": r.json()["sets"][0]["id"], "name": name}


def setup_module():
    global srv
    srv = Server().start()
    srv.add_users("bea")
    a = admin()
    ctx["a1"] = make_set(a, "spec-a-1", 8, 30, um=0.2)
    ctx["a2"] = make_set(a, "spec-a-2", 9, 31, um=0.2)
    ctx["b1"] = make_set(a, "spec-b-1", 12, 30, um=0.25)
    ctx["unc"] = make_set(a, "uncal", 10, 32)
    ctx["priv"] = make_set(a, "private-one", 8, 28, um=0.2, shared=False)


def teardown_module():
    srv.cleanup()


def admin():
    return srv.login_as("admin")


def bea():
    return srv.login_as("bea")


def query(keys, labels=None):
    q = "sets=" + ",".join(str(ctx[k]["set_id"]) for k in keys)
    for k, label in (labels or {}).items():
        q += "&group.%d=%s" % (ctx[k]["set_id"], label)
    return q


def test_statistics_samples_groups_and_reference():
    c = admin()
    r = c.get("/api/compare?" + query(["a1", "a2", "b1", "unc"], {"a1": "A", "a2": "A", "b1": "B", "unc": "B"}))
    assert r.status == 200, r.text
    j = r.json()
    assert [s["id"] for s in j["sets"]] == [ctx[k]["set_id"] for k in ("a1", "a2", "b1", "unc")]
    assert j["left_out"] == 0 and j["comparison"] is None
    for s, k in zip(j["sets"], ("a1", "a2", "b1", "unc")):
        st = c.get("/api/sets/%d/statistics" % s["id"]).json()["statistics"]
        assert s["statistics"]["n_tubercles"] == st["n_tubercles"] == 30
        assert s["workspace_url"] == "/workspace/%d?set=%d" % (ctx[k]["image"]["id"], s["id"])
        assert s["label"] == "%s.png / %s" % (ctx[k]["name"], ctx[k]["name"])
        if s["calibrated"]:
            assert s["unit"] == "um"
            assert abs(s["mean_diameter"] - st["mean_diameter_um"]) < 1e-9
            assert abs(s["sd_space"] - st["std_space_um"]) < 1e-9
            assert s["suggested_genus"] == st["suggested_genus"]
        else:
            assert s["unit"] == "px" and st["mean_diameter_um"] is None
            assert s["suggested_genus"] == "Unknown"
        assert abs(s["hexagonalness"] - st["hexagonalness_score"]) < 1e-9
        d = s["diameters"]
        assert d["n"] == 30 and len(d["values"]) == 30 and d["unit"] == s["unit"]
        assert abs(sum(d["values"]) / 30 - s["mean_diameter"]) < 1e-3 * s["mean_diameter"]
        assert s["spaces"]["n"] == s["statistics"]["n_edges"]
    a1 = j["sets"][0]
    assert abs(a1["mean_diameter"] - 16 * 0.2) < 0.01  # radius 8 px at 0.2 µm/px
    groups = {g["label"]: g for g in j["groups"]}
    assert groups["A"]["n_sets"] == 2 and groups["B"]["n_calibrated"] == 1
    want = (j["sets"][0]["mean_diameter"] + j["sets"][1]["mean_diameter"]) / 2
    assert abs(groups["A"]["mean_diameter_um"] - want) < 1e-9
    assert groups["B"]["mean_diameter_um"] == j["sets"][2]["mean_diameter"]
    ref = j["reference"]
    assert [g["name"] for g in ref["genera"]][:3] == ["Lepisosteus", "Atractosteus", "Polypterus"]
    assert len(ref["species"]) == 9 and "first of" in ref["precedence"]
    assert "svg" not in j


def test_svg_in_the_answer_and_as_a_download():
    c = admin()
    q = query(["a1", "b1", "unc"], {"a1": "A", "b1": "B"})
    j = c.get("/api/compare?" + q + "&svg=1").json()
    main = ET.fromstring(j["svg"]["main"])
    pts = [g for g in main.iter(SVG + "g") if g.get("class") == "set-point"]
    assert sorted(g.get("data-set-id") for g in pts) == sorted(str(ctx[k]["set_id"]) for k in ("a1", "b1"))
    ratio = ET.fromstring(j["svg"]["ratio"])
    rpts = [g for g in ratio.iter(SVG + "g") if g.get("class") == "set-point"]
    assert str(ctx["unc"]["set_id"]) in [g.get("data-set-id") for g in rpts]
    r = c.get("/api/compare/chart.svg?" + q + "&download=1")
    assert r.status == 200 and r.header("Content-Type").startswith("image/svg+xml")
    assert r.header("Content-Disposition") == 'attachment; filename="fishscale-compare.svg"'
    doc = ET.fromstring(r.body)
    parts = [g.get("class") for g in doc.iter(SVG + "g") if (g.get("class") or "").startswith("part ")]
    assert parts == ["part part-main", "part part-ratio", "part part-dist"]
    r = c.get("/api/compare/chart.svg?" + q + "&parts=ratio")
    assert r.status == 200 and b"plot-main" not in r.body and b"plot-ratio" in r.body


def test_png_decodes():
    c = admin()
    r = c.get("/api/compare/chart.png?" + query(["a1", "b1"], {"a1": "A"}) + "&parts=main&scale=1")
    assert r.status == 200 and r.header("Content-Type") == "image/png", r.text[:200]
    assert r.header("Content-Disposition") is None  # shown inline unless download=1
    w, h, ch, rows = decode_png(r.body)
    assert w == 820 and 500 < h < 800 and ch == 3
    blue = sum(1 for row in rows for i in range(0, len(row), 3) if row[i:i + 3] == b"\x00\x72\xb2")
    assert blue > 10, "group A's marker colour"


def test_csv_is_the_table():
    c = admin()
    q = query(["a1", "a2", "unc"], {"a1": "A", "a2": "A"})
    j = c.get("/api/compare?" + q).json()
    r = c.get("/api/compare/table.csv?" + q)
    assert r.status == 200 and r.header("Content-Type") == "text/csv; charset=utf-8"
    rows = list(csv.DictReader(io.StringIO(r.text)))
    sets = [x for x in rows if x["kind"] == "set"]
    assert [int(x["set_id"]) for x in sets] == [s["id"] for s in j["sets"]]
    for x, s in zip(sets, j["sets"]):
        assert x["name"] == s["label"] and x["group"] == s["group"] and x["unit"] == s["unit"]
        for col, key in (("mean_diameter", "mean_diameter"), ("sd_diameter", "sd_diameter"),
                         ("mean_space", "mean_space"), ("sd_space", "sd_space"),
                         ("fill_ratio", "fill_ratio"), ("hexagonalness", "hexagonalness")):
            assert abs(float(x[col]) - s[key]) <= 1e-5 * abs(s[key]) + 1e-9, (col, x[col], s[key])
        assert int(x["n_tubercles"]) == s["statistics"]["n_tubercles"]
    g = [x for x in rows if x["kind"] == "group_mean"]
    assert len(g) == 1 and g[0]["group"] == "A"
    assert abs(float(g[0]["mean_diameter"]) - j["groups"][0]["mean_diameter_um"]) < 1e-5


def test_another_users_private_set_is_404():
    b = bea()
    priv = ctx["priv"]["set_id"]
    r = b.get("/api/compare?sets=%d,%d" % (ctx["a1"]["set_id"], priv))
    assert r.status == 404 and r.json()["error"] == "no such set: %d" % priv
    assert b.get("/api/compare/chart.svg?sets=%d" % priv).status == 404
    assert b.get("/api/compare/table.csv?sets=%d" % priv).status == 404
    r = b.api("POST", "/api/comparisons", {"name": "x", "sets": [{"set_id": priv, "label": ""}]})
    assert r.status == 404
    cands = b.get("/api/compare/candidates").json()["sets"]
    assert priv not in [s["set_id"] for s in cands]
    assert ctx["a1"]["set_id"] in [s["set_id"] for s in cands]
    # the owner (and an admin) may
    assert admin().get("/api/compare?sets=%d" % priv).status == 200


def test_saved_comparison_shared_leaves_out_what_a_viewer_cannot_see():
    a = admin()
    items = [{"set_id": ctx["a1"]["set_id"], "label": "A"}, {"set_id": ctx["priv"]["set_id"], "label": "A"},
             {"set_id": ctx["b1"]["set_id"], "label": "B"}]
    r = a.api("POST", "/api/comparisons", {"name": "Specimens A and B", "visibility": "shared", "sets": items})
    assert r.status == 201, r.text
    cm = r.json()["comparison"]
    assert cm["n_sets"] == 3 and cm["can_manage"] and cm["visibility"] == "shared"
    assert [s["label"] for s in cm["sets"]] == ["A", "A", "B"]
    b = bea()
    lst = b.get("/api/comparisons").json()["comparisons"]
    assert [x["id"] for x in lst] == [cm["id"]] and not lst[0]["can_manage"]
    j = b.get("/api/compare?comparison=%d" % cm["id"]).json()
    assert j["left_out"] == 1
    assert [s["id"] for s in j["sets"]] == [ctx["a1"]["set_id"], ctx["b1"]["set_id"]]
    assert [s["group"] for s in j["sets"]] == ["A", "B"]
    assert j["comparison"]["name"] == "Specimens A and B"
    r = b.get("/api/compare/chart.svg?comparison=%d&download=1" % cm["id"])
    assert r.header("Content-Disposition") == 'attachment; filename="fishscale-Specimens_A_and_B.svg"'
    assert b"Specimens A and B" in r.body  # the title
    # bea may not change or delete it; a private one she does not see at all
    assert b.api("PATCH", "/api/comparisons/%d" % cm["id"], {"name": "mine"}).status == 403
    assert b.api("DELETE", "/api/comparisons/%d" % cm["id"]).status == 403
    r = a.api("PATCH", "/api/comparisons/%d" % cm["id"], {"visibility": "private", "name": "Renamed"})
    assert r.status == 200 and r.json()["comparison"]["name"] == "Renamed"
    assert b.get("/api/compare?comparison=%d" % cm["id"]).status == 404
    assert b.get("/api/comparisons/%d" % cm["id"]).status == 404
    assert b.api("DELETE", "/api/comparisons/%d" % cm["id"]).status == 404
    assert b.get("/api/comparisons").json()["comparisons"] == []
    # the owner replaces the sets, then deletes it
    r = a.api("PATCH", "/api/comparisons/%d" % cm["id"], {"sets": [{"set_id": ctx["unc"]["set_id"]}]})
    assert r.status == 200 and r.json()["comparison"]["n_sets"] == 1
    assert a.api("DELETE", "/api/comparisons/%d" % cm["id"]).status == 200
    assert a.get("/api/comparisons/%d" % cm["id"]).status == 404


def test_my_base_sets():
    b = bea()
    mine = [make_set(b, "bea-%d" % i, 8 + i, 30, um=0.2) for i in range(3)]
    j = b.get("/api/compare?my_base_sets=1&svg=1").json()
    # each image's first set is its Base (empty), not the imported one
    imgs = [m["image"]["id"] for m in mine]
    assert [s["image_id"] for s in j["sets"]] == imgs
    assert all(s["name"] == "Base" for s in j["sets"])
    assert all(s["statistics"]["n_tubercles"] == 0 for s in j["sets"])
    assert j["svg"]["main"].startswith("<svg")


def test_bad_requests():
    c = admin()
    a1 = ctx["a1"]["set_id"]
    for q, status in (("", 400), ("sets=", 400), ("sets=abc", 400), ("sets=1,1", 400),
                      ("sets=%d,%d" % (a1, a1), 400), ("sets=%d," % a1, 400), ("sets=-3", 400),
                      ("sets=%d&comparison=1" % a1, 400), ("comparison=999999", 404),
                      ("comparison=x", 400), ("my_base_sets=2", 400), ("sets=999999", 404),
                      ("sets=%d&group.%d=a%%09b" % (a1, a1), 422)):
        r = c.get("/api/compare?" + q)
        assert r.status == status, (q, r.status, r.text)
        assert r.json()["success"] is False
    assert c.get("/api/compare/chart.svg?sets=%d&parts=pie" % a1).status == 422
    assert c.get("/api/compare/chart.png?sets=%d&scale=9" % a1).status == 422
    assert c.get("/api/compare/candidates?limit=0").status == 422
    r = c.api("POST", "/api/comparisons", {"name": "", "sets": [{"set_id": a1}]})
    assert r.status == 422
    r = c.api("POST", "/api/comparisons", {"name": "x", "sets": []})
    assert r.status == 422
    r = c.api("POST", "/api/comparisons", {"name": "x", "sets": [{"set_id": a1}], "colour": "red"})
    assert r.status == 422 and "colour" in r.json()["error"]
    r = c.api("POST", "/api/comparisons", {"name": "x", "sets": [{"set_id": "7"}]})
    assert r.status == 422
    # unsafe methods need the CSRF token
    r = c.request("POST", "/api/comparisons", json_body={"name": "x", "sets": [{"set_id": a1}]})
    assert r.status == 403


def test_the_page_and_its_links():
    c = admin()
    r = c.get("/compare")
    assert r.status == 200 and b'id="cmp-pick"' in r.body and b"static/js/compare.js" in r.body
    assert b'href="/compare"' in c.get("/").body
    ws = c.get("/workspace/%d" % ctx["a1"]["image"]["id"]).text
    assert 'href="/compare?image=%d"' % ctx["a1"]["image"]["id"] in ws
    # ?set= opens that set of the image first
    img = ctx["a1"]["image"]["id"]
    assert 'data-first-set="%d"' % ctx["a1"]["set_id"] in c.get("/workspace/%d?set=%d" % (img, ctx["a1"]["set_id"])).text
    base = c.get("/api/images/%d/sets" % img).json()["sets"][0]["id"]
    assert 'data-first-set="%d"' % base in c.get("/workspace/%d?set=%d" % (img, ctx["b1"]["set_id"])).text
    assert srv.client().get("/compare").status in (302, 303)
