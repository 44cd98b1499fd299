"""The chat's "fill gaps" acts only where the person asked (issue 13 section
3 with the agents, under either measurement rule): on P1 Fig4 (Atractosteus,
the figure whose lattice prediction differs most between the rules), "Fill
gaps" everywhere and "Fill gaps on the left edge 45%" on two copies of the
same extraction. The restricted run adds exactly the unrestricted run's
additions that lie in the area asked for (the same lattice plan, filtered),
at least one, not all of them, and every addition of both runs lies inside
the image's scale region. So that the figure has gaps on both sides whatever
a rule's extraction finds, both copies first lose the same two interior
tubercles (the most connected one left of the limit and one right of it):
the restricted run must put a tubercle back near the left one's centre. Each rule has its own site, so `make test` checks
the dome rule too."""
import os

from harness import Server, TESTDATA, upload_image, wait_for

FIG4 = os.path.join(TESTDATA, "P1_Fig4_Atractosteus_simplex_7.07um.tif")
RULES = ("outline", "dome")
sites = {}


def setup_module():
    for rule in RULES:
        srv = Server(env={"FISHSCALE_MEASUREMENT_RULE": rule}).start()
        sites[rule] = srv
        srv.add_users("ann")


def teardown_module():
    for srv in sites.values():
        srv.cleanup()


def client(srv):
    return srv.login_as("ann")


def extracted_copy(c, image_id, n):
    """A new set of the image with the site's extraction (method auto)."""
    r = c.api("POST", "/api/images/%d/sets" % image_id, {"name": "copy %d" % n})
    assert r.status in (200, 201), r.text
    s = r.json()["set"]
    r = c.api("POST", "/api/sets/%d/extract" % s["id"], {"revision": s["revision"], "parameters": {"method": "auto"}})
    assert r.status == 200, r.text
    return s["id"]


def interior_pair(c, sid, limit):
    """The centres of the most connected tubercle left of 0.8 x limit and
    right of 1.2 x limit (ties by position), and the median centre distance.
    Connected in the Gabriel graph culled at 1.8 x the median centre
    distance (the default before h32d), regenerated here, so that the
    tubercles this test punches stay the ones it was written for: the
    default's 1.4 drops some edges across gaps of Fig4's pattern, which
    changes the degrees, and the lattice plan (which reads no edges) does
    not restore the site the new degrees pick, (221.6, 177.7)."""
    s = c.api("GET", "/api/sets/%d" % sid).json()
    r = c.api("POST", "/api/sets/%d/connections" % sid, {"revision": s["set"]["revision"], "graph_type": "gabriel",
                                                          "cull_long_edges": True, "cull_factor": 1.8})
    assert r.status == 200, r.text
    s = c.api("GET", "/api/sets/%d" % sid).json()
    degree = {}
    for e in s["edges"]:
        for k in ("id1", "id2"):
            degree[e[k]] = degree.get(e[k], 0) + 1
    dists = sorted(e["center_distance_px"] for e in s["edges"])
    assert dists, s["set"]
    pts = [(-degree.get(t["id"], 0), t["centroid_x"], t["centroid_y"]) for t in s["tubercles"]]
    left = min(p for p in pts if p[1] <= 0.8 * limit)
    right = min(p for p in pts if p[1] >= 1.2 * limit)
    assert left[0] <= -5 and right[0] <= -5, (left, right)
    return [(left[1], left[2]), (right[1], right[2])], dists[len(dists) // 2]


def punch(c, sid, centres):
    """Deletes the tubercles at these centres (one undoable step)."""
    s = c.api("GET", "/api/sets/%d" % sid).json()
    ids = [t["id"] for t in s["tubercles"]
           if any(abs(t["centroid_x"] - x) < 0.01 and abs(t["centroid_y"] - y) < 0.01 for x, y in centres)]
    assert len(ids) == len(centres), (ids, centres)
    r = c.api("POST", "/api/sets/%d/delete" % sid, {"revision": s["set"]["revision"], "tubercles": ids})
    assert r.status == 200, r.text


def chat(c, image_id, sid, instruction):
    """Runs the local chat; the ids and centres of the tubercles it added."""
    before = {t["id"] for t in c.api("GET", "/api/sets/%d" % sid).json()["tubercles"]}
    r = c.api("POST", "/api/agent/chat/start", {"image_id": image_id, "set_id": sid, "provider": "local",
                                                "instruction": instruction})
    assert r.status == 200, (r.status, r.text)
    rid = r.json()["run_id"]
    st = wait_for(lambda: (lambda s: s if s["state"] not in ("starting", "running") else None)(
        c.api("GET", "/api/agent/status/%d" % rid).json()), 120, "chat to end")
    assert st["state"] == "completed", st
    after = c.api("GET", "/api/sets/%d" % sid).json()["tubercles"]
    return st, [(t["centroid_x"], t["centroid_y"]) for t in after if t["id"] not in before]


def inside(region, x, y):
    """The region's rows are [x0, x1) runs of cells (docs/API.md)."""
    cell = region["cell"]
    row = region["rows"][min(int(y // cell), region["grid_height"] - 1)]
    gx = int(x // cell)
    return any(row[i] <= gx < row[i + 1] for i in range(0, len(row), 2))


def fill_only_where_asked(rule):
    c = client(sites[rule])
    image = upload_image(c, path=FIG4)["image"]
    ok = c.api("POST", "/api/images/%d/calibration" % image["id"], {"um_per_px": 0.1184})
    assert ok.status == 200, ok.text
    region = c.api("GET", "/api/images/%d/scale_region" % image["id"]).json()
    limit = 0.45 * image["width"]
    one, two = extracted_copy(c, image["id"], 1), extracted_copy(c, image["id"], 2)
    holes, pitch = interior_pair(c, one, limit)
    punch(c, one, holes)
    punch(c, two, holes)
    _, everywhere = chat(c, image["id"], one, "Fill gaps in the lattice")
    st, left = chat(c, image["id"], two, "Fill gaps on the left edge 45%")
    print("%s rule: fill gaps added %d, %d of them left of x = %.0f; on the left edge: %d" % (
        rule, len(everywhere), sum(1 for x, _ in everywhere if x <= limit), limit, len(left)))
    assert everywhere and all(inside(region, x, y) for x, y in everywhere + left), (everywhere, left)
    assert all(x <= limit for x, _ in left), (limit, left, st.get("reply"))
    want = sorted(p for p in everywhere if p[0] <= limit)
    assert len(want) == len(left) and all(abs(a[0] - b[0]) < 0.5 and abs(a[1] - b[1]) < 0.5
                                          for a, b in zip(want, sorted(left))), (want, sorted(left))
    assert 1 <= len(left) < len(everywhere), (left, everywhere)
    hx, hy = holes[0]
    assert any(abs(x - hx) ** 2 + abs(y - hy) ** 2 < (0.3 * pitch) ** 2 for x, y in left), (holes[0], pitch, left)


def test_fill_gaps_only_where_asked_under_the_outline_rule():
    fill_only_where_asked("outline")


def test_fill_gaps_only_where_asked_under_the_dome_rule():
    fill_only_where_asked("dome")
