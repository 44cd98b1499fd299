"""Measured diameters through nginx + FastCGI and the CLI: tubercles whose
base could not be measured (null in JSON, empty in CSV, left out of the
means and counted), the measurement version every set records, and
Re-measure (one undoable step that keeps centres, ids and connections)."""
import csv
import io
import json
import os
import shutil
import sqlite3
import subprocess
import tempfile

from harness import Server, unique_png, upload_image

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.join(ROOT, "build", "fishscale")
PAPER = os.path.join(ROOT, "tests", "fixtures", "paper")

srv = None
c = None


def setup_module():
    global srv, c
    srv = Server().start()
    c = srv.client()
    c.login()


def teardown_module():
    srv.cleanup()


def ok(r, status=200):
    assert r.status == status, (r.status, r.text)
    j = r.json()
    assert j["success"] is True, j
    return j


def db_rows(sql, *args):
    con = sqlite3.connect(srv.db_path(), timeout=5)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def paper_image(name="P1_Fig2_Polypterus_bichir_2.63um.tif"):
    with open(os.path.join(PAPER, name), "rb") as f:
        return upload_image(c, data=f.read(), filename=name)


# Three tubercles in a row 10 px apart, the middle one unmeasured.
DOC = {
    "version": 3,
    "sets": [{
        "name": "Unmeasured",
        "tubercles": [
            {"id": 1, "centroid_x": 20, "centroid_y": 20, "radius_px": 2, "source": "extracted"},
            {"id": 2, "centroid_x": 30, "centroid_y": 20, "radius_px": None, "diameter_px": None,
             "fit_quality": 0.1, "source": "extracted"},
            {"id": 3, "centroid_x": 40, "centroid_y": 20, "radius_px": 3, "source": "extracted"},
            {"id": 4, "centroid_x": 30, "centroid_y": 30, "radius_px": 3, "source": "extracted"},
        ],
        "edges": [{"id1": 1, "id2": 2}, {"id1": 2, "id2": 3}, {"id1": 1, "id2": 4}, {"id1": 3, "id2": 4}],
    }],
}


def import_doc(image_id, doc=DOC):
    r = c.api("POST", "/api/images/%d/import" % image_id, None, body=json.dumps(doc).encode(),
              headers={"Content-Type": "application/json"})
    j = ok(r, 201)
    return j["sets"][0]["id"], j


def image_id_of(up):
    return up["image"]["id"]


def test_unmeasured_tubercles_through_the_api():
    img = image_id_of(upload_image(c, data=unique_png(300, 200), filename="unmeasured.png"))
    ok(c.api("POST", "/api/images/%d/calibration" % img, {"um_per_px": 0.5}))
    sid, j = import_doc(img)
    assert any("without a measured diameter" in l for l in j["report"]), j["report"]
    assert db_rows("SELECT count(*) FROM tubercles WHERE set_id = ? AND r IS NULL", sid)[0][0] == 1
    s = ok(c.api("GET", "/api/sets/%d" % sid))
    t2 = [t for t in s["tubercles"] if t["centroid_x"] == 30 and t["centroid_y"] == 20][0]
    assert t2["radius_px"] is None and t2["diameter_px"] is None and t2["diameter_um"] is None
    assert t2["fit_quality"] == 0.1
    st = s["statistics"]
    assert st["n_tubercles"] == 4 and st["n_unmeasured"] == 1
    # diameters 4, 6, 6 px -> mean 16/3 px = 8/3 um; spaces only where both are measured
    assert abs(st["mean_diameter_um"] - 8 / 3) < 1e-6, st
    sp = [(((30 - 20) ** 2 + 10 ** 2) ** 0.5 - 5), (((40 - 30) ** 2 + 10 ** 2) ** 0.5 - 6)]
    assert abs(st["mean_space_um"] - sum(sp) / 2 * 0.5) < 1e-6, st
    st2 = ok(c.api("GET", "/api/sets/%d/statistics" % sid))
    assert st2["statistics"]["n_unmeasured"] == 1 if "statistics" in st2 else st2["n_unmeasured"] == 1
    # CSV: empty cells; summary: the count
    rows = list(csv.DictReader(io.StringIO(c.get("/api/sets/%d/tubercles.csv" % sid).text)))
    r2 = [r for r in rows if r["centroid_x"] == "30" and r["centroid_y"] == "20"][0]
    assert r2["diameter_px"] == "" and r2["radius_px"] == "" and r2["diameter_um"] == ""
    assert r2["fit_quality"] == "0.1"
    summ = list(csv.DictReader(io.StringIO(c.get("/api/sets/%d/summary.csv" % sid).text)))[0]
    assert summ["n_unmeasured"] == "1"
    # the export writes null and reads back the same
    doc = c.get("/api/sets/%d/export.json" % sid).json()
    tubs = doc["sets"][0]["tubercles"]
    assert sum(1 for t in tubs if t["radius_px"] is None) == 1
    sid2, _ = import_doc(img, doc)
    assert ok(c.api("GET", "/api/sets/%d" % sid2))["statistics"]["n_unmeasured"] == 1
    # the overlay draws it (as a cross) without failing
    r = c.get("/api/sets/%d/overlay.png" % sid)
    assert r.status == 200 and r.body[:4] == b"\x89PNG"
    # resizing it gives it a diameter; undo makes it unmeasured again
    tid = t2["id"]
    rev = s["set"]["revision"]
    j = ok(c.api("PATCH", "/api/sets/%d/tubercles/%d" % (sid, tid), {"revision": rev, "radius_px": 2.5}))
    rev = j["revision"]
    assert ok(c.api("GET", "/api/sets/%d" % sid))["statistics"]["n_unmeasured"] == 0
    ok(c.api("POST", "/api/sets/%d/undo" % sid, {"revision": rev}))
    s = ok(c.api("GET", "/api/sets/%d" % sid))
    assert s["statistics"]["n_unmeasured"] == 1
    assert [t for t in s["tubercles"] if t["id"] == tid][0]["radius_px"] is None


def test_unmeasured_tubercles_through_the_cli_chart():
    tmp = tempfile.mkdtemp(prefix="fs-unmeasured-")
    try:
        stem = os.path.join(tmp, "scale")
        with open(stem + "_tubercles.csv", "w") as f:
            f.write("id,centroid_x,centroid_y,diameter_px,diameter_um,radius_px,circularity,major_axis_px,"
                    "minor_axis_px,orientation,eccentricity,is_boundary,source,fit_quality\n")
            f.write("1,20,20,4,2,2,1,,,,,0,extracted,\n")
            f.write("2,30,20,,,,1,,,,,0,extracted,0.1\n")
            f.write("3,40,20,6,3,3,1,,,,,0,extracted,\n")
            f.write("4,30,30,6,3,3,1,,,,,0,extracted,\n")
        with open(stem + "_edges.csv", "w") as f:
            f.write("id1,id2,center_distance_px,center_distance_um,edge_distance_px,edge_distance_um\n")
            for a, b in ((1, 2), (2, 3), (1, 4), (3, 4)):
                f.write("%d,%d,,,,\n" % (a, b))
        out = os.path.join(tmp, "table.csv")
        p = subprocess.run([BIN, "chart", stem + "_tubercles.csv", "-o", out], capture_output=True, text=True,
                           timeout=60)
        assert p.returncode == 0, p.stderr
        with open(out, newline="") as f:
            row = next(csv.DictReader(f))
        assert row["n_tubercles"] == "4" and row["calibrated"] == "1", row
        assert abs(float(row["mean_diameter"]) - 8 / 3) < 1e-3, row
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
