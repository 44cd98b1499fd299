"""The SEM data bar as a suggested calibration, through nginx + FastCGI: the
upload starts fishscale-databar off the request; GET
/api/images/{id}/calibration lists the suggestions (the real JEOL image:
20 µm = 139 px, X700), one request applies it, a crop that removes the bar
keeps it, the user's setting applies it to new uploads, a paper figure
reports no data bar; and `fishscale measure --calibration auto`."""
import json
import os
import shutil
import tempfile

from harness import ROOT, Server, TESTDATA, upload_image, wait_for

SEM = os.path.join(ROOT, "tests", "fixtures", "sem", "M_kelleri_HLMD-Me_15576_ventral_detail.tif")
PAPER = os.path.join(TESTDATA, "P1_Fig2_Polypterus_bichir_2.63um.tif")
srv = None


def setup_module():
    global srv
    srv = Server().start().add_users("bob", "dora")


def teardown_module():
    if srv:
        srv.cleanup()


def login(who):
    return srv.login_as(who)


def read_done(c, iid):
    """The calibration answer once the data bar has been read."""
    def done():
        r = c.get("/api/images/%d/calibration" % iid)
        assert r.status == 200
        j = r.json()
        return j if j["data_bar"]["state"] in ("done", "failed") else None
    return wait_for(done, timeout=120, what="the data bar reading")


def test_real_image_suggested_applied_and_kept_through_a_crop():
    c = login("bob")
    img = upload_image(c, SEM)["image"]
    iid = img["id"]
    j = read_done(c, iid)
    bar = j["data_bar"]
    assert bar["state"] == "done" and bar["found"] and bar["has_scale"], bar
    assert abs(bar["line"]["length_px"] - 139) <= 1
    assert bar["label"] == {"value": 20, "unit": "µm", "um": 20}
    assert bar["magnification"] == 700 and bar["kv"] == 20
    assert bar["on_current_image"] is True
    assert 840 <= bar["rect"]["y"] and bar["rect"]["y"] + bar["rect"]["height"] <= 960
    assert not bar["mag_disagrees"]
    sug = [s for s in j["suggested"] if s["method"] == "data_bar"]
    assert len(sug) == 1
    s = sug[0]
    assert abs(s["um_per_px"] - 0.1439) <= 0.001
    assert s["source"] == "scale bar 20 µm = 139.0 px"
    assert s["confidence"] >= 0.8 and s["auto_ok"] is True
    assert j["calibration"] is None  # suggested, never imposed
    # one click: the stored suggestion
    r = c.api("POST", "/api/images/%d/calibration" % iid, json_body={"use_data_bar": True})
    assert r.status == 200, r.text
    assert r.json()["calibration"]["method"] == "data_bar"
    assert abs(r.json()["calibration"]["um_per_px"] - s["um_per_px"]) < 1e-12
    # a crop that removes the bar keeps the suggestion made from the original
    r = c.api("POST", "/api/images/%d/crop" % iid, json_body={"x": 0, "y": 0, "width": 1280, "height": 800})
    assert r.status == 200, r.text
    j = c.get("/api/images/%d/calibration" % iid).json()
    assert j["data_bar"]["on_current_image"] is False
    assert [x["um_per_px"] for x in j["suggested"] if x["method"] == "data_bar"] == [s["um_per_px"]]


def test_paper_figure_reports_no_data_bar():
    c = login("bob")
    iid = upload_image(c, PAPER)["image"]["id"]
    j = read_done(c, iid)
    assert j["data_bar"]["state"] == "done"
    assert j["data_bar"]["found"] is False and j["data_bar"]["has_scale"] is False
    assert [x for x in j["suggested"] if x["method"].startswith("data_bar")] == []
    r = c.api("POST", "/api/images/%d/calibration" % iid, json_body={"use_data_bar": True})
    assert r.status == 422 and "no calibration from a data bar" in r.json()["error"]


def test_read_again_on_request():
    c = login("bob")
    iid = upload_image(c, SEM)["image"]["id"]  # new, or bob's copy from another test
    read_done(c, iid)
    # an image uploaded before data bars were read has none: simulate it
    srv.sql("DELETE FROM image_databar WHERE image_id = ?", (iid,))
    assert c.get("/api/images/%d/calibration" % iid).json()["data_bar"]["state"] == "none"
    # the route takes no fields: a key is refused and no reading starts
    r = c.api("POST", "/api/images/%d/data-bar" % iid, json_body={"region": "bottom"})
    assert r.status == 422 and r.json()["error"] == "unknown field 'region'", r.text
    assert c.get("/api/images/%d/calibration" % iid).json()["data_bar"]["state"] == "none"
    r = c.api("POST", "/api/images/%d/data-bar" % iid, json_body={})
    assert r.status == 202, r.text
    assert r.json()["data_bar"]["state"] == "pending"
    j = read_done(c, iid)
    assert j["data_bar"]["has_scale"] and j["data_bar"]["label"]["um"] == 20
    # only who manages the image may ask
    d = login("dora")
    assert d.api("POST", "/api/images/%d/data-bar" % iid, json_body={}).status in (403, 404)


def test_setting_applies_it_to_new_uploads():
    c = login("dora")
    r = c.api("PUT", "/api/settings", {"settings": {"auto_calibrate_data_bar": True}})
    assert r.status == 200 and r.json()["settings"]["auto_calibrate_data_bar"] is True
    iid = upload_image(c, SEM)["image"]["id"]

    early = []

    def calibrated():
        j = c.get("/api/images/%d/calibration" % iid).json()
        if not j["calibration"] and j["data_bar"]["state"] != "pending":
            early.append(j["data_bar"]["state"])
        return j["calibration"]
    cal = wait_for(calibrated, timeout=120, what="the automatic calibration")
    # the reading and its calibration are stored together: the page stops
    # looking once the reading is done, and would miss one stored later
    assert not early, "the reading was seen %s before its calibration" % early
    assert cal["method"] == "data_bar" and abs(cal["um_per_px"] - 0.1439) <= 0.001
    ev = c.get("/api/log?type=calibration_set&limit=5").json()["entries"]
    assert any(e.get("image_id") == iid for e in ev), ev


def test_setting_off_by_default():
    c = login("bob")
    s = c.get("/api/settings").json()
    assert s["settings"]["auto_calibrate_data_bar"] is False
    assert s["defaults"]["auto_calibrate_data_bar"] is False


def test_cli_measure_calibration_auto():
    out = tempfile.mkdtemp(prefix="fishscale-databar-")
    try:
        r = srv.cli("measure", "--calibration", "auto", "--format", "json", "-o", out, SEM, PAPER)
        assert r.returncode == 0, r.stderr
        assert "calibration 0.1438" in r.stderr and "from the data bar (scale bar 20 µm = 139.0 px" in r.stderr, \
            r.stderr
        assert "P1_Fig2_Polypterus_bichir_2.63um.tif: no automatic calibration: no data bar" in r.stderr, r.stderr
        stem = os.path.splitext(os.path.basename(SEM))[0]
        with open(os.path.join(out, stem + "_summary.json")) as f:
            j = json.load(f)
        assert j["calibration_status"] == "calibrated"
        assert abs(j["calibration_um_per_px"] - 0.1439) <= 0.001
        with open(os.path.join(out, "P1_Fig2_Polypterus_bichir_2.63um_summary.json")) as f:
            assert json.load(f)["calibration_status"] == "uncalibrated"
    finally:
        shutil.rmtree(out, ignore_errors=True)
