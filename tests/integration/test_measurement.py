"""Measured diameters through nginx + FastCGI and the CLI: tubercles whose
base could not be measured (null in JSON, empty in CSV, left out of the
means and counted), the measurement version every set records, and
Re-measure (one undoable step that keeps centres, ids and connections)."""
import csv
import io
import json
import os
import shutil
import subprocess
import tempfile

from harness import Server, ok, unique_png, upload_image

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
    assert srv.sql("SELECT count(*) FROM tubercles WHERE set_id = ? AND r IS NULL", (sid,))[0][0] == 1
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


def extracted_set():
    """A paper figure extracted into its Base set: (set id, revision)."""
    img = image_id_of(paper_image())
    sets = ok(c.api("GET", "/api/images/%d/sets" % img))["sets"]
    sid = sets[0]["id"]
    j = ok(c.api("POST", "/api/sets/%d/extract" % sid, {"revision": sets[0]["revision"], "parameters": {}}))
    return img, sid, j["revision"]


def test_extraction_records_the_current_measurement_version():
    img, sid, rev = extracted_set()
    s = ok(c.api("GET", "/api/sets/%d" % sid))
    assert s["set"]["measurement_version"] == s["set"]["current_measurement_version"] >= 1
    assert s["set"]["measurement_outdated"] is False
    assert s["statistics"]["measurement_version"] == s["set"]["measurement_version"]
    # a new set holds nothing measured by an older rule; an import that does
    # not say is "before versioning"
    j = ok(c.api("POST", "/api/images/%d/sets" % img, {"name": "Empty"}), 201)
    assert j["set"]["measurement_version"] >= 1
    sid2, _ = import_doc(img)
    assert ok(c.api("GET", "/api/sets/%d" % sid2))["set"]["measurement_version"] == 0
    # our own export says, and its import keeps it
    doc = c.get("/api/sets/%d/export.json" % sid).json()
    assert doc["sets"][0]["measurement_version"] == s["set"]["measurement_version"]
    sid3, _ = import_doc(img, doc)
    assert ok(c.api("GET", "/api/sets/%d" % sid3))["set"]["measurement_outdated"] is False


def test_remeasure_keeps_centres_and_is_one_undoable_step():
    img, sid, rev = extracted_set()
    before = ok(c.api("GET", "/api/sets/%d" % sid))
    cur = before["set"]["measurement_version"]
    # an edit (a resize) and an older measurement, as a set measured before
    # this version would be
    t0 = before["tubercles"][len(before["tubercles"]) // 2]
    j = ok(c.api("PATCH", "/api/sets/%d/tubercles/%d" % (sid, t0["id"]),
                 {"revision": rev, "radius_px": t0["radius_px"] * 2}))
    rev = j["revision"]
    srv.sql("UPDATE sets SET measurement_version = 0 WHERE id = ?", (sid,))
    old = ok(c.api("GET", "/api/sets/%d" % sid))
    assert old["set"]["measurement_version"] == 0 and old["set"]["measurement_outdated"] is True
    # revision-checked like every edit
    r = c.api("POST", "/api/sets/%d/remeasure" % sid, {"revision": rev - 1})
    assert r.status == 409, r.text
    j = ok(c.api("POST", "/api/sets/%d/remeasure" % sid, {"revision": rev}))
    assert j["remeasure"]["from_version"] == 0 and j["remeasure"]["to_version"] == cur
    assert j["remeasure"]["n_changed"] >= 1
    after = ok(c.api("GET", "/api/sets/%d" % sid))
    assert after["set"]["measurement_version"] == cur and after["set"]["measurement_outdated"] is False
    # centres, ids, sources and connections as they were
    key = lambda t: (t["id"], t["centroid_x"], t["centroid_y"], t["source"])
    assert sorted(map(key, after["tubercles"])) == sorted(map(key, old["tubercles"]))
    pairs = lambda s: sorted((e["id1"], e["id2"]) for e in s["edges"])
    assert pairs(after) == pairs(old) and len(pairs(old)) > 0
    # the resized tubercle got its measured size back
    ta = [t for t in after["tubercles"] if t["id"] == t0["id"]][0]
    assert ta["radius_px"] is None or abs(ta["radius_px"] - t0["radius_px"]) < 0.25 * t0["radius_px"], (ta, t0)
    hist = ok(c.api("GET", "/api/sets/%d/history" % sid))["history"]
    assert hist[0]["type"] == "remeasure" and hist[0]["from_version"] == 0
    journal = ok(c.api("GET", "/api/sets/%d/journal" % sid))["actions"]
    assert journal[0]["kind"] == "remeasure" and journal[0]["can_undo"] is True
    # a second one has nothing to do
    r = c.api("POST", "/api/sets/%d/remeasure" % sid, {"revision": j["revision"]})
    assert r.status == 422 and "nothing to re-measure" in r.json()["error"], r.text
    # undo restores the old diameters and version exactly
    ok(c.api("POST", "/api/sets/%d/undo" % sid, {"revision": j["revision"]}))
    back = ok(c.api("GET", "/api/sets/%d" % sid))
    assert back["set"]["measurement_version"] == 0
    full = lambda t: (t["id"], t["centroid_x"], t["centroid_y"], t["radius_px"], t["circularity"])
    assert sorted(map(full, back["tubercles"])) == sorted(map(full, old["tubercles"]))
    assert back["statistics"]["mean_diameter_um"] == old["statistics"]["mean_diameter_um"]


def test_compare_shows_the_measurement_version():
    img, sid, rev = extracted_set()
    srv.sql("UPDATE sets SET measurement_version = 0 WHERE id = ?", (sid,))
    j = ok(c.api("GET", "/api/compare?sets=%d" % sid))
    s = j["sets"][0]
    assert s["measurement_version"] == 0 and s["measurement_outdated"] is True
    rows = list(csv.DictReader(io.StringIO(c.get("/api/compare/table.csv?sets=%d" % sid).text)))
    assert rows[0]["measurement_version"] == "0"
