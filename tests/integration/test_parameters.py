"""Parameters that do something: every method declares the parameters it
uses (GET /api/parameters), an extraction says which of the given ones its
method does not use (and they change nothing), and the optimiser step never
varies one its method does not use."""
import os

from harness import Server, ok, upload_image

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIG = os.path.join(ROOT, "tests", "fixtures", "paper", "P1_Fig2_Polypterus_bichir_2.63um.tif")

srv = None
c = None


def setup_module():
    global srv, c
    srv = Server().start()
    c = srv.client()
    c.login()


def teardown_module():
    srv.cleanup()


def base_set():
    with open(FIG, "rb") as f:
        img = upload_image(c, data=f.read(), filename="fig2.tif")["image"]["id"]
    s = ok(c.api("GET", "/api/images/%d/sets" % img))["sets"][0]
    return s["id"], s["revision"]


def test_parameters_say_which_method_uses_them():
    j = ok(c.api("GET", "/api/parameters"))
    by = {p["name"]: p for p in j["parameters"]}
    assert "auto" not in by["threshold"]["used_by_method"]
    assert set(by["threshold"]["used_by_method"]) == {"log", "dog"}
    assert "prominence" in by["threshold"]["not_used_because"]["auto"]
    assert set(by["auto_prominence"]["used_by_method"]) == {"auto", "lattice"}
    assert by["auto_smoothing"]["default"] == 0.15 and by["auto_prominence"]["default"] == 0.3
    assert "neighbor_graph" in j["methods"]["auto"] and "threshold" not in j["methods"]["auto"]
    assert "threshold" in j["methods"]["log"] and "auto_prominence" not in j["methods"]["log"]


def test_a_parameter_auto_does_not_use_is_reported_and_changes_nothing():
    sid, rev = base_set()
    j = ok(c.api("POST", "/api/sets/%d/extract" % sid, {"revision": rev, "parameters": {"method": "auto"}}))
    a = ok(c.api("GET", "/api/sets/%d" % sid))
    assert j["not_used"] == []
    j = ok(c.api("POST", "/api/sets/%d/extract" % sid,
                 {"revision": j["revision"], "parameters": {"method": "auto", "threshold": 0.3, "clahe_kernel": 30}}))
    names = {u["name"]: u["reason"] for u in j["not_used"]}
    assert set(names) == {"threshold", "clahe_kernel"}, j["not_used"]
    b = ok(c.api("GET", "/api/sets/%d" % sid))
    key = lambda s: sorted((t["centroid_x"], t["centroid_y"], t["radius_px"]) for t in s["tubercles"])
    assert key(a) == key(b) and len(key(a)) > 0
    # a declared one changes the result
    j = ok(c.api("POST", "/api/sets/%d/extract" % sid,
                 {"revision": j["revision"], "parameters": {"method": "auto", "auto_prominence": 0.7}}))
    assert j["not_used"] == []
    assert key(ok(c.api("GET", "/api/sets/%d" % sid))) != key(a)


def test_the_optimiser_step_never_varies_an_undeclared_parameter():
    sid, rev = base_set()
    params = {"method": "auto", "threshold": 0.05, "min_diameter_um": 2, "max_diameter_um": 10,
              "auto_prominence": 0.3}
    j = ok(c.api("POST", "/api/sets/%d/optimize-step" % sid,
                 {"revision": rev, "params": params, "apply": False,
                  "enabled_params": ["threshold", "min_diameter_um", "auto_prominence"]}))
    assert {u["name"] for u in j["not_used"]} == {"threshold", "min_diameter_um"}
    assert set(j["gradient"]) == {"auto_prominence"}, j["gradient"]
    np = j["new_params"]
    assert np["threshold"] == 0.05 and np["min_diameter_um"] == 2
    # without a list: every parameter the method uses, and only those
    j = ok(c.api("POST", "/api/sets/%d/optimize-step" % sid,
                 {"revision": j["revision"], "params": params, "apply": False}))
    assert "threshold" not in j["gradient"] and "clahe_kernel" not in j["gradient"]
    assert {"auto_prominence", "min_circularity"} <= set(j["gradient"]), j["gradient"]
    # auto_smoothing is auto's under the outline rule; the dome rule's
    # candidates (circle votes, the dome template) do not read it (params.h)
    rule = ok(c.api("GET", "/api/sets/%d" % sid))["set"]["current_measurement_rule"]
    assert ("auto_smoothing" in j["gradient"]) == (rule == "outline"), (rule, j["gradient"])
    # only undeclared ones: refused
    r = c.api("POST", "/api/sets/%d/optimize-step" % sid,
              {"revision": j["revision"], "params": params, "enabled_params": ["threshold"]})
    assert r.status == 422 and "none of the enabled parameters" in r.json()["error"], r.text
