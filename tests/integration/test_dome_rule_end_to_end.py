"""The dome rule end to end (issue 13: "the statistics, the CLI, the API,
the agents and the workspace all use it"), what a site configured for it
(measurement_rule = dome) says about a set: the set, its statistics, its
summary CSV and the CLI's summary name the rule that measured the
diameters (version 2, "dome"). A centre where the dome rule sees no dome -
flat ground beside a lattice of discs of known diameter - keeps its centre
after Re-measure but gets no diameter: null in the API and the export,
empty cells in the tubercles' and the edges' CSVs, left out of the means
and counted as unmeasured in the statistics and the summary, while the
discs stay measured at their drawn size. The other rule's side is
test_measurement_rule.py."""
import csv
import io
import json
import os
import shutil
import subprocess
import tempfile

from harness import FISHSCALE, TESTDATA, Server, gray_png, ok, upload_image, wait_job

FIG4 = "P1_Fig4_Atractosteus_simplex_7.07um.tif"
FIG2 = "P1_Fig2_Polypterus_bichir_2.63um.tif"
UM = 0.118  # paper 1's pixel size (README, section 4), for the um columns

site = c = None


def setup_module():
    global site, c
    site = Server(env={"FISHSCALE_MEASUREMENT_RULE": "dome"}).start()
    c = site.client()
    c.login()


def teardown_module():
    if site:
        site.cleanup()


# A lattice of flat discs (a flat disc is a dome whose base is its edge:
# README, "Testing under either rule") of diameter DISC_D px at pitch
# PITCH on the left of the frame, flat ground with the same noise on the
# right (x >= FLAT_X); the edges ramp over 2 px.
W, H, PITCH, DISC_D, FLAT_X = 480, 320, 40.0, 24.0, 300


def discs_and_flat_ground():
    centres = []
    j = 0
    while 20 + j * PITCH * 0.866 < H - 16:
        y = 20 + j * PITCH * 0.866
        i = 0
        while 20 + i * PITCH + (j % 2) * PITCH / 2 < FLAT_X - 36:
            centres.append((20 + i * PITCH + (j % 2) * PITCH / 2, y))
            i += 1
        j += 1
    level = [90.0] * (W * H)
    reach = int(DISC_D / 2) + 2
    for cx, cy in centres:
        for y in range(max(0, int(cy) - reach), min(H, int(cy) + reach + 2)):
            for x in range(max(0, int(cx) - reach), min(W, int(cx) + reach + 2)):
                d = ((x - cx) ** 2 + (y - cy) ** 2) ** 0.5
                level[y * W + x] = max(level[y * W + x], 90.0 + 115.0 * min(1.0, max(0.0, (DISC_D / 2 + 1 - d) / 2)))
    seed = 12345
    rows = []
    for y in range(H):
        row = bytearray(W + 1)
        for x in range(W):
            seed = (seed * 1103515245 + 12345) & 0x7fffffff
            row[x + 1] = int(level[y * W + x] + (seed >> 16) % 13 - 6)
        rows.append(bytes(row))
    return gray_png(W, H, b"".join(rows))


def extracted(name):
    """The figure (or the disc scene) uploaded, calibrated and extracted
    into its Base set; returns (image id, GET /api/sets/{id})."""
    if name.endswith(".png"):
        data = discs_and_flat_ground()
    else:
        with open(os.path.join(TESTDATA, name), "rb") as f:
            data = f.read()
    img = upload_image(c, data=data, filename=name)["image"]["id"]
    ok(c.api("POST", "/api/images/%d/calibration" % img, {"um_per_px": UM}))
    s = [x for x in ok(c.api("GET", "/api/images/%d/sets" % img))["sets"] if x["name"] == "Base"][0]
    r = c.api("POST", "/api/sets/%d/extract" % s["id"], {"revision": s["revision"], "parameters": {}})
    if r.status == 202:
        assert wait_job(c, r.json()["job"]["id"], timeout=300)["state"] == "done"
    else:
        ok(r)
    return img, ok(c.api("GET", "/api/sets/%d" % s["id"]))


def csv_rows(path):
    return list(csv.DictReader(io.StringIO(c.get(path).text)))


def mean_measured_diameter(tubercles):
    d = [2 * t["radius_px"] for t in tubercles if t["radius_px"] is not None]
    return sum(d) / len(d)


def test_an_extraction_and_its_exports_name_the_dome_rule():
    _, s = extracted(FIG4)
    n = len(s["tubercles"])
    assert n > 20
    assert s["set"]["measurement_version"] == 2 and s["set"]["measurement_rule"] == "dome"
    assert s["set"]["measurement"] == "the dome rule (version 2)"
    st = s["statistics"]
    assert st["measurement_version"] == 2 and st["measurement_rule"] == "dome", st
    nulls = sum(1 for t in s["tubercles"] if t["radius_px"] is None)
    assert st["n_unmeasured"] == nulls
    summ = csv_rows("/api/sets/%d/summary.csv" % s["set"]["id"])
    assert len(summ) == 1
    row = summ[0]
    assert row["measurement_version"] == "2" and row["measurement_rule"] == "dome", row
    assert row["n_tubercles"] == str(n) and row["n_unmeasured"] == str(nulls), row
    # the summary is this set's: its mean diameter is the measured tubercles'
    assert abs(float(row["mean_diameter_px"]) - mean_measured_diameter(s["tubercles"])) < 1e-3, row
    doc = c.get("/api/sets/%d/export.json" % s["set"]["id"]).json()
    assert doc["sets"][0]["measurement_version"] == 2


def test_a_centre_without_a_dome_keeps_its_centre_and_no_diameter():
    img, s = extracted("discs_and_flat_ground.png")
    domes = s["tubercles"]
    assert len(domes) > 30
    # the discs, measured by the dome rule at their drawn size (flat discs:
    # the unit test test_detect holds 4 %)
    assert abs(mean_measured_diameter(domes) / DISC_D - 1) < 0.05, mean_measured_diameter(domes)
    assert all(t["centroid_x"] < FLAT_X for t in domes), "a dome found on the flat ground"
    # the extraction's set with one more centre on the flat ground,
    # connected to its nearest dome, imported as a set of its own
    doc = c.get("/api/sets/%d/export.json" % s["set"]["id"]).json()
    one = doc["sets"][0]
    new_id = max(t["id"] for t in one["tubercles"]) + 1
    x, y = 400.0, 160.0
    near = min(one["tubercles"], key=lambda t: (t["centroid_x"] - x) ** 2 + (t["centroid_y"] - y) ** 2)
    one["tubercles"].append({"id": new_id, "centroid_x": x, "centroid_y": y, "radius_px": 12.0,
                             "circularity": 0.8, "source": "manual"})
    one["edges"].append({"id1": near["id"], "id2": new_id})
    one["name"] = "With a centre on flat ground"
    r = c.api("POST", "/api/images/%d/import" % img, None, body=json.dumps(doc).encode(),
              headers={"Content-Type": "application/json"})
    sid = ok(r, 201)["sets"][0]["id"]
    before = ok(c.api("GET", "/api/sets/%d" % sid))
    assert before["statistics"]["n_unmeasured"] == 0
    m = ok(c.api("POST", "/api/sets/%d/remeasure" % sid, {"revision": before["set"]["revision"]}))["remeasure"]
    assert m["rule"] == "dome" and m["to_version"] == 2, m
    s = ok(c.api("GET", "/api/sets/%d" % sid))
    tubs = {t["id"]: t for t in s["tubercles"]}
    assert len(tubs) == len(domes) + 1
    # the centre on flat ground: kept, no diameter
    flat = tubs[new_id]
    assert (flat["centroid_x"], flat["centroid_y"]) == (x, y)
    assert flat["radius_px"] is None and flat["diameter_px"] is None and flat["diameter_um"] is None, flat
    # and no circularity: it belongs to the measured outline (h33f; before,
    # the imported 0.8 stayed on a tubercle without one), as in the
    # columns the workspace reads, while every measured one keeps its own
    assert flat["circularity"] is None, flat
    assert all(t["circularity"] is not None for t in s["tubercles"] if t["radius_px"] is not None)
    cols = ok(c.api("GET", "/api/sets/%d?layout=compact" % sid))["tubercles"]
    assert cols["circularity"][cols["id"].index(new_id)] is None, cols["circularity"]
    nulls = [i for i, t in tubs.items() if t["radius_px"] is None]
    # the discs stay measured (an all-null Re-measure would say nothing)
    assert len(nulls) <= 1 + len(domes) // 10, (len(nulls), len(domes))
    st = s["statistics"]
    assert st["n_unmeasured"] == len(nulls) == m["n_unmeasured"], (st, m)
    assert st["measurement_rule"] == "dome"
    mean = mean_measured_diameter(s["tubercles"])
    assert abs(st["mean_diameter_px"] - mean) < 1e-6 and abs(st["mean_diameter_um"] - mean * UM) < 1e-6, st
    # the CSVs: empty cells, and the summary's count
    rows = {int(r["id"]): r for r in csv_rows("/api/sets/%d/tubercles.csv" % sid)}
    assert rows[new_id]["diameter_px"] == rows[new_id]["diameter_um"] == rows[new_id]["radius_px"] == ""
    assert rows[new_id]["circularity"] == "", rows[new_id]
    assert sum(1 for r in rows.values() if r["diameter_px"] == "") == len(nulls)
    edges = [e for e in csv_rows("/api/sets/%d/edges.csv" % sid) if new_id in (int(e["id1"]), int(e["id2"]))]
    assert len(edges) == 1, edges
    assert edges[0]["edge_distance_px"] == "" and edges[0]["edge_distance_um"] == "", edges
    assert float(edges[0]["center_distance_px"]) > 0
    summ = csv_rows("/api/sets/%d/summary.csv" % sid)[0]
    assert summ["n_unmeasured"] == str(len(nulls)) and summ["measurement_rule"] == "dome", summ
    assert abs(float(summ["mean_diameter_px"]) - mean) < 1e-3, summ
    # the export: null, and the version
    exp = c.get("/api/sets/%d/export.json" % sid).json()["sets"][0]
    assert exp["measurement_version"] == 2
    assert [t for t in exp["tubercles"] if t["id"] == new_id][0]["radius_px"] is None
    assert [t for t in exp["tubercles"] if t["id"] == new_id][0]["circularity"] is None


def test_a_centre_on_fig2s_white_band_gets_no_size():
    """Issue 13 sections 2 and 3 (h32b): a centre a person puts on P1 Fig2's
    white band (rows 14-64, between the printed rule and the scale) is no
    tubercle's. Auto-size reads none there (outside the scale region), and
    Re-measure leaves it unmeasured, fit quality null, counted in the
    history's n_outside_region, while every dome keeps its diameter (the
    rule sizes the region's centres as if the band's were not there).
    Before, h31f found Re-measure sizing (350, 20) as a dome of 25.5 px."""
    _, s = extracted(FIG2)
    sid = s["set"]["id"]
    domes = {t["id"]: t["radius_px"] for t in s["tubercles"]}
    assert len(domes) > 40
    r = ok(c.api("POST", "/api/sets/%d/tubercles" % sid,
                 {"revision": s["set"]["revision"], "x": 350.0, "y": 20.0, "auto_size": True}))
    assert r["analysis"]["found"] is False and r["analysis"]["reason"] == "outside_scale_region", r["analysis"]
    new_id = r["id"]
    m = ok(c.api("POST", "/api/sets/%d/remeasure" % sid, {"revision": r["revision"]}))["remeasure"]
    assert m["n_outside_region"] == 1, m
    after = {t["id"]: t for t in ok(c.api("GET", "/api/sets/%d" % sid))["tubercles"]}
    band = after[new_id]
    assert (band["centroid_x"], band["centroid_y"]) == (350.0, 20.0)
    assert band["radius_px"] is None and band["fit_quality"] is None, band
    for i, r0 in domes.items():
        r1 = after[i]["radius_px"]
        assert (r0 is None) == (r1 is None), (i, r0, r1)
        assert r0 is None or abs(r1 - r0) <= 1e-6 * r0, (i, r0, r1)


def cli_env(**extra):
    e = {k: v for k, v in os.environ.items() if not k.startswith("FISHSCALE_")}
    e.update(extra)
    return e


def test_the_cli_summary_names_its_rule_and_its_help_the_builds():
    tmp = tempfile.mkdtemp(prefix="fs-dome-cli-")
    try:
        path = os.path.join(TESTDATA, FIG4)
        stem = FIG4[:-4]
        for rule, version in (("dome", 2), ("outline", 1)):
            out = os.path.join(tmp, rule)
            for fmt in ("csv", "json"):
                p = subprocess.run([FISHSCALE, "measure", "--rule", rule, "--format", fmt, "-o", out, path],
                                   capture_output=True, text=True, timeout=300, env=cli_env())
                assert p.returncode == 0, p.stderr
            with open(os.path.join(out, stem + "_summary.csv"), newline="") as f:
                row = next(csv.DictReader(f))
            with open(os.path.join(out, stem + "_summary.json")) as f:
                j = json.load(f)
            with open(os.path.join(out, stem + "_tubercles.csv"), newline="") as f:
                tubs = list(csv.DictReader(f))
            assert row["measurement_version"] == str(version) and row["measurement_rule"] == rule, row
            assert j["measurement_version"] == version and j["measurement_rule"] == rule, j
            empty = sum(1 for t in tubs if t["diameter_px"] == "")
            # an unmeasured tubercle's circularity is as empty as its
            # diameter (h33f: under the dome rule 5 of Fig4's 57 are)
            odd = [t["id"] for t in tubs if (t["circularity"] == "") != (t["diameter_px"] == "")]
            assert not odd, (rule, odd)
            assert row["n_tubercles"] == str(len(tubs)) and row["n_unmeasured"] == str(empty), row
        # --help names the build's default rule, the one measure uses
        # without --rule and without the site's variable
        p = subprocess.run([FISHSCALE, "measure", "--help"], capture_output=True, text=True, timeout=60,
                           env=cli_env())
        assert p.returncode == 0
        used = [l for l in p.stdout.splitlines() if l.startswith("parameters each method uses under the ")]
        assert len(used) == 1, p.stdout
        default = used[0].split("under the ")[1].split(" rule")[0]
        assert default in ("outline", "dome")
        assert "else the build's (%s)." % default in p.stdout, p.stdout
        out = os.path.join(tmp, "default")
        p = subprocess.run([FISHSCALE, "measure", "-o", out, path], capture_output=True, text=True, timeout=300,
                           env=cli_env())
        assert p.returncode == 0, p.stderr
        with open(os.path.join(out, stem + "_summary.csv"), newline="") as f:
            assert next(csv.DictReader(f))["measurement_rule"] == default
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
