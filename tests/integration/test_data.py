"""Event log, per-user settings, parameter profiles, and the import/export of
annotation sets (JSON, CSV, overlay PNG) through nginx + FastCGI."""
import json
import os
import time

from harness import Server, gray_png, ok

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")

srv = None
admin = None
alice = None
bob = None


def member(login):
    srv.cli("user", "add", login, input="correct horse battery\n")
    c = srv.client()
    r = c.login(login, "correct horse battery")
    assert r.status == 303, r.text
    return c


def setup_module():
    global srv, admin, alice, bob
    srv = Server().start()
    admin = srv.client()
    admin.login()
    alice = member("alice")
    bob = member("bob")


def teardown_module():
    srv.cleanup()


def err(r, status, fragment=""):
    assert r.status == status, (r.status, r.text)
    j = r.json()
    assert j["success"] is False and fragment in j["error"], j
    return j


# ---- event log ----

def test_log_post_then_list_own_event():
    ok(alice.api("POST", "/api/log", {"event_type": "toast_info", "details": {"message": "hello"}}), 201)
    j = ok(alice.get("/api/log?type=toast_info"))
    e = j["entries"][0]
    assert e["event_type"] == "toast_info" and e["details"] == {"message": "hello"}
    assert e["client"] is True
    assert e["user"] == "alice" and e["timestamp"].endswith("Z")


def test_log_server_event_types_are_refused_and_client_events_marked():
    # issue 14 item 11: a member cannot write what looks like the server's event
    img = upload(alice)
    for t in ("image_deleted", "calibration_set", "edit_add_tub", "agent_started", "settings_changed",
              "client_image_deleted", "password_changed"):
        err(alice.api("POST", "/api/log", {"event_type": t, "image_id": img}), 422, "event_type")
    assert ok(admin.get("/api/log?type=image_deleted&user=all"))["entries"] == []
    # agent history events written by the browser on a set stay allowed, marked as the client's
    ok(alice.api("POST", "/api/log", {"event_type": "edit_agent_accepted", "image_id": img}), 201)
    ok(alice.api("POST", "/api/log", {"event_type": "agent_accept_best", "image_id": img}), 201)
    es = ok(admin.get("/api/log?user=all&image_id=%d" % img))["entries"]
    mine = {e["event_type"]: e["client"] for e in es if e["user"] == "alice"}
    assert mine.get("edit_agent_accepted") is True and mine.get("agent_accept_best") is True, es
    # the server's own events are not marked
    ok(alice.api("POST", "/api/images/%d/calibration" % img, {"um_per_px": 0.5}))
    es = ok(alice.get("/api/log?type=calibration_set&image_id=%d" % img))["entries"]
    assert len(es) == 1 and es[0]["client"] is False
    db = srv.sql("SELECT event_type FROM events WHERE image_id = ? AND event_type LIKE 'client%%'", (img,))
    assert sorted(r[0] for r in db) == ["client_agent_accept_best", "client_edit_agent_accepted"]


def test_log_members_see_only_their_own_events():
    ok(bob.api("POST", "/api/log", {"event_type": "bob_secret", "details": {}}), 201)
    assert ok(alice.get("/api/log?type=bob_secret"))["entries"] == []
    assert len(ok(bob.get("/api/log?type=bob_secret"))["entries"]) == 1


def test_log_admin_reads_everyone_with_user_all():
    ok(bob.api("POST", "/api/log", {"event_type": "for_admin"}), 201)
    assert ok(admin.get("/api/log?type=for_admin"))["entries"] == []
    j = ok(admin.get("/api/log?type=for_admin&user=all"))
    assert [e["user"] for e in j["entries"]] == ["bob"]
    j = ok(admin.get("/api/log?type=for_admin&user=bob"))
    assert len(j["entries"]) == 1


def test_log_member_asking_for_all_is_forbidden():
    err(alice.get("/api/log?user=all"), 403, "administrators")


def test_log_paging_with_before_id():
    for i in range(5):
        ok(alice.api("POST", "/api/log", {"event_type": "page_test", "details": {"i": i}}), 201)
    seen = []
    path = "/api/log?type=page_test&limit=2"
    while True:
        j = ok(alice.get(path))
        seen += [e["details"]["i"] for e in j["entries"]]
        if j["next_before_id"] is None:
            break
        path = "/api/log?type=page_test&limit=2&before_id=%d" % j["next_before_id"]
    assert seen == [4, 3, 2, 1, 0]


def test_log_type_prefix_filter():
    ok(alice.api("POST", "/api/log", {"event_type": "pfx_add_tub", "details": {"id": 1}}), 201)
    ok(alice.api("POST", "/api/log", {"event_type": "pfx_delete_tub", "details": {"id": 1}}), 201)
    types = {e["event_type"] for e in ok(alice.get("/api/log?type=pfx_*"))["entries"]}
    assert types == {"pfx_add_tub", "pfx_delete_tub"}


def test_log_time_filter():
    ok(alice.api("POST", "/api/log", {"event_type": "time_test"}), 201)
    future = time.time() + 3600
    assert ok(alice.get("/api/log?type=time_test&since=%f" % future))["entries"] == []
    assert len(ok(alice.get("/api/log?type=time_test&until=%f" % future))["entries"]) == 1
    assert len(ok(alice.get("/api/log?type=time_test&since=2000-01-01T00:00:00Z"))["entries"]) == 1
    assert ok(alice.get("/api/log?type=time_test&until=2000-01-01T00:00:00Z"))["entries"] == []


def test_log_bad_query_values_are_422():
    err(alice.get("/api/log?limit=0"), 422, "limit")
    err(alice.get("/api/log?limit=5000"), 422, "limit")
    err(alice.get("/api/log?since=yesterday"), 422, "since")
    err(alice.get("/api/log?type=Bad-Type"), 422, "type")
    err(alice.get("/api/log?before_id=-3"), 422, "before_id")
    err(alice.get("/api/log?bogus=1"), 422, "bogus")


def test_log_post_validation():
    err(alice.api("POST", "/api/log", {"details": {}}), 422, "event_type")
    err(alice.api("POST", "/api/log", {"event_type": "Has Space"}), 422, "event_type")
    err(alice.api("POST", "/api/log", {"event_type": "x" * 65}), 422, "event_type")
    err(alice.api("POST", "/api/log", {"event_type": "ok", "details": [1]}), 422, "details")
    err(alice.api("POST", "/api/log", {"event_type": "ok", "extra": 1}), 422, "extra")
    err(alice.api("POST", "/api/log", {"event_type": "ok", "details": {"m": "x" * 17000}}), 413, "details")
    r = alice.api("POST", "/api/log", None, body=b"not json", headers={"Content-Type": "application/json"})
    err(r, 400, "JSON")


def test_log_post_needs_csrf_and_login():
    r = alice.request("POST", "/api/log", json_body={"event_type": "no_csrf"})
    assert r.status == 403
    r = srv.client().get("/api/log")
    assert r.status == 401


def test_log_export_jsonl_oldest_first_with_filters():
    for i in range(3):
        ok(alice.api("POST", "/api/log", {"event_type": "export_test", "details": {"i": i}}), 201)
    r = alice.get("/api/log/export.jsonl?type=export_test")
    assert r.status == 200
    assert r.header("Content-Type").startswith("application/x-ndjson")
    assert r.header("Content-Disposition").startswith("attachment;")
    lines = [json.loads(l) for l in r.text.splitlines()]
    assert [l["details"]["i"] for l in lines] == [0, 1, 2]
    assert all(set(("timestamp", "event_type", "details")) <= set(l) for l in lines)


def test_log_settings_change_is_logged():
    ok(alice.api("PUT", "/api/settings", {"settings": {"id_text_size": 14}}))
    e = ok(alice.get("/api/log?type=settings_changed&limit=1"))["entries"][0]
    assert e["details"] == {"keys": ["id_text_size"]}


# ---- settings ----

def test_settings_defaults_for_a_new_user():
    c = member("carol")
    s = ok(c.get("/api/settings"))["settings"]
    assert s["display_name"] == "carol"
    assert s["tubercle_color"] == "#00ffff" and s["connection_color"] == "#ffff00"
    assert s["theme"] == "dark" and s["scale_bar_position"] == "bottom-left"
    assert (s["hex_spacing_weight"], s["hex_degree_weight"], s["hex_edge_ratio_weight"]) == (0.4, 0.45, 0.15)
    assert s["scroll_zoom"] is True and s["editor_region_factor"] == 6


def test_settings_round_trip():
    new = {"theme": "custom", "custom_panel_bg": "#102030", "grid_opacity": 0.5, "scroll_zoom": False,
           "editor_auto_size": True, "tabs_panel_width": 500}
    s = ok(alice.api("PUT", "/api/settings", {"settings": new}))["settings"]
    for k, v in new.items():
        assert s[k] == v, k
    s = ok(alice.get("/api/settings"))["settings"]
    for k, v in new.items():
        assert s[k] == v, k
    # someone else's settings are untouched
    assert ok(bob.get("/api/settings"))["settings"]["theme"] == "dark"


def test_settings_validation_errors_change_nothing():
    ok(alice.api("PUT", "/api/settings", {"settings": {"theme": "light"}}))
    err(alice.api("PUT", "/api/settings", {"settings": {"theme": "dark", "nope": 1}}), 422, "unknown setting 'nope'")
    err(alice.api("PUT", "/api/settings", {"settings": {"grid_color": "pink"}}), 422, "#rrggbb")
    err(alice.api("PUT", "/api/settings", {"settings": {"hex_degree_weight": 2}}), 422, "between 0 and 1")
    err(alice.api("PUT", "/api/settings", {"settings": {"id_text_size": 100}}), 422, "id_text_size")
    err(alice.api("PUT", "/api/settings", {"settings": {"scroll_zoom": "yes"}}), 422, "scroll_zoom")
    err(alice.api("PUT", "/api/settings", {"theme": "dark"}), 422, "settings")
    assert ok(alice.get("/api/settings"))["settings"]["theme"] == "light"


def test_settings_display_name_updates_the_account():
    ok(alice.api("PUT", "/api/settings", {"settings": {"display_name": "Alice Liddell"}}))
    assert alice.get("/api/me").json()["user"]["display_name"] == "Alice Liddell"
    assert ok(alice.get("/api/settings"))["settings"]["display_name"] == "Alice Liddell"


def test_settings_reset_restores_defaults():
    ok(bob.api("PUT", "/api/settings", {"settings": {"theme": "light", "id_text_size": 20}}))
    # the route takes no fields: a key is refused, not ignored, and nothing is reset
    r = bob.api("POST", "/api/settings/reset", {"keys": ["theme"]})
    assert r.status == 422 and r.json()["error"] == "unknown field 'keys'", r.text
    assert ok(bob.get("/api/settings"))["settings"]["theme"] == "light"
    s = ok(bob.api("POST", "/api/settings/reset"))["settings"]
    assert s["theme"] == "dark" and s["id_text_size"] == 12


# ---- profiles ----

def test_profiles_list_builtins_first():
    j = ok(alice.get("/api/profiles"))
    names = [p["name"] for p in j["profiles"] if p["builtin"]]
    assert "default" in names and "paralepidosteus" in names and "scanned-pdf" in names
    p = [p for p in j["profiles"] if p["name"] == "paralepidosteus"][0]
    for k in ("description", "calibration_um_per_px", "clahe_clip", "clahe_kernel", "blur_sigma",
              "threshold", "min_circularity", "min_diameter_um", "max_diameter_um"):
        assert k in p, k
    assert p["calibration_um_per_px"] == 0.33


def test_profiles_create_list_use_delete():
    j = ok(alice.api("POST", "/api/profiles", {"name": "My gar", "parameters": {"threshold": 0.11,
                                                                                 "method": "log"}}), 201)
    pid = j["id"]
    mine = [p for p in ok(alice.get("/api/profiles"))["profiles"] if not p["builtin"]]
    assert [(p["name"], p["id"], p["threshold"]) for p in mine] == [("My gar", pid, 0.11)]
    j = ok(alice.api("POST", "/api/profile", {"name": "my gar"}))
    assert j["profile"] == "My gar" and j["parameters"]["threshold"] == 0.11 and j["builtin"] is False
    # bob sees neither the profile nor may delete it
    assert not [p for p in ok(bob.get("/api/profiles"))["profiles"] if not p["builtin"]]
    err(bob.api("POST", "/api/profile", {"name": "My gar"}), 404)
    err(bob.api("DELETE", "/api/profiles/%d" % pid), 404)
    ok(alice.api("DELETE", "/api/profiles/%d" % pid))
    err(alice.api("DELETE", "/api/profiles/%d" % pid), 404)


def test_profiles_name_conflict_and_overwrite():
    ok(alice.api("POST", "/api/profiles", {"name": "dup", "parameters": {"threshold": 0.1}}), 201)
    err(alice.api("POST", "/api/profiles", {"name": "DUP", "parameters": {"threshold": 0.2}}), 409, "overwrite")
    ok(alice.api("POST", "/api/profiles", {"name": "DUP", "parameters": {"threshold": 0.2}, "overwrite": True}), 201)
    assert ok(alice.api("POST", "/api/profile", {"name": "dup"}))["parameters"]["threshold"] == 0.2


def test_profiles_refuse_builtin_names_and_bad_parameters():
    err(alice.api("POST", "/api/profiles", {"name": "Default", "parameters": {}}), 422, "built-in")
    err(alice.api("POST", "/api/profiles", {"name": "x", "parameters": {"threshold": "high"}}), 422, "threshold")
    err(alice.api("POST", "/api/profiles", {"name": "x", "parameters": {"nonsense": 1}}), 422, "nonsense")
    err(alice.api("POST", "/api/profiles", {"name": "x"}), 422, "parameters")
    err(alice.api("POST", "/api/profiles", {"name": "x", "parameters": [1]}), 422, "parameters")
    err(alice.api("POST", "/api/profiles", {"name": "x", "parameters": {}, "colour": 1}), 422, "colour")
    err(alice.api("POST", "/api/profiles", {"name": "", "parameters": {}}), 422, "name")


def test_profile_builtin_by_name_and_default():
    j = ok(alice.api("POST", "/api/profile", {"name": "polypterus"}))
    assert j["builtin"] is True and j["parameters"]["blur_sigma"] == 0.8
    j = ok(alice.api("POST", "/api/profile", {}))
    assert j["profile"] == "default"
    err(alice.api("POST", "/api/profile", {"name": "no-such"}), 404, "unknown profile")


# ---- images, import and export ----

def png_bytes(w=64, h=48, seed=0):
    """A small 8-bit grey PNG (different seeds give different files)."""
    raw = b"".join(b"\x00" + bytes(((x * 3 + y * 5 + seed) % 256) for x in range(w)) for y in range(h))
    return gray_png(w, h, raw)


def multipart(fields, files):
    boundary = "----fishscale-test-boundary"
    out = b""
    for k, v in fields.items():
        out += ("--%s\r\nContent-Disposition: form-data; name=\"%s\"\r\n\r\n%s\r\n" % (boundary, k, v)).encode()
    for k, (fname, data, ctype) in files.items():
        out += ("--%s\r\nContent-Disposition: form-data; name=\"%s\"; filename=\"%s\"\r\n"
                "Content-Type: %s\r\n\r\n" % (boundary, k, fname, ctype)).encode() + data + b"\r\n"
    out += ("--%s--\r\n" % boundary).encode()
    return out, "multipart/form-data; boundary=" + boundary


_seed = [0]


def upload(c, name="scale.png", visibility="shared"):
    _seed[0] += 1
    body, ctype = multipart({"visibility": visibility}, {"file": (name, png_bytes(seed=_seed[0]), "image/png")})
    r = c.api("POST", "/api/images", None, body=body, headers={"Content-Type": ctype})
    assert r.status in (200, 201), r.text
    return r.json()["image"]["id"]


def fixture(name):
    with open(os.path.join(FIXTURES, name), "rb") as f:
        return f.read()


def import_json(c, image_id, data, status=201):
    r = c.api("POST", "/api/images/%d/import" % image_id, None, body=data,
              headers={"Content-Type": "application/json"})
    assert r.status == status, (r.status, r.text)
    return r.json()


def set_names(image_id):
    return [r[0] for r in srv.sql("SELECT name FROM sets WHERE image_id = ? ORDER BY position", (image_id,))]


def test_import_v1_as_one_set_with_report():
    img = upload(alice)
    j = import_json(alice, img, fixture("annot_v1.json"))
    assert j["success"] is True and j["version"] == 1
    assert [(s["name"], s["n_tubercles"], s["n_edges"]) for s in j["sets"]] == [("Base (2)", 3, 2)]
    assert any("v1" in l or "version 1" in l for l in j["report"]), j["report"]
    assert set_names(img) == ["Base", "Base (2)"]
    hist = srv.sql("SELECT type, data FROM history WHERE set_id = ?", (j["sets"][0]["id"],))
    assert [h[0] for h in hist] == ["import"]
    assert json.loads(hist[0][1])["filename"] == "(request body)"
    ev = ok(alice.get("/api/log?type=annotations_loaded&image_id=%d" % img))["entries"]
    assert ev[0]["details"]["n_tubercles"] == 3
    # an imported set is saved work: not "unsaved", nothing to revert
    st = ok(alice.get("/api/sets/%d" % j["sets"][0]["id"]))["set"]
    assert st["dirty"] is False, st
    rev = ok(alice.get("/api/sets/%d/revision" % j["sets"][0]["id"]))
    assert rev["dirty"] is False


def test_import_v2_sets_and_name_cleaning():
    img = upload(alice)
    j = import_json(alice, img, fixture("annot_v2.json"))
    assert j["version"] == 2
    assert [(s["name"], s["n_tubercles"], s["n_edges"]) for s in j["sets"]] == [("Base (2)", 2, 1), ("Run2", 1, 0)]
    cal = srv.sql("SELECT calibration_um_per_px FROM sets WHERE id = ?", (j["sets"][1]["id"],))[0][0]
    assert cal == 0.25
    assert any("renumbered" in l and "'Run2'" in l for l in j["report"]), j["report"]
    assert any("stored as 'Run2'" in l for l in j["report"]), j["report"]


def test_import_v3_multipart_file_field():
    img = upload(alice)
    body, ctype = multipart({}, {"file": ("scale_v3_annotations.json", fixture("annot_v3.json"), "application/json")})
    r = alice.api("POST", "/api/images/%d/import" % img, None, body=body, headers={"Content-Type": ctype})
    j = ok(r, 201)
    assert j["version"] == 3
    assert [(s["n_tubercles"], s["n_edges"]) for s in j["sets"]] == [(4, 5), (1, 0)]
    hist = srv.sql("SELECT data FROM history WHERE set_id = ? AND type = 'import'", (j["sets"][0]["id"],))
    d = json.loads(hist[0][0])
    assert d["filename"] == "scale_v3_annotations.json" and d["file_history"][0]["type"] == "extraction"


def test_import_slo_legacy_reports_dropped_items():
    img = upload(alice)
    j = import_json(alice, img, fixture("scale_slo.json"))
    assert j["version"] == 1
    assert [(s["n_tubercles"], s["n_edges"]) for s in j["sets"]] == [(2, 1)]
    assert len(j["report"]) >= 3, j["report"]


def test_import_refuses_non_annotation_and_leaves_nothing():
    img = upload(alice)
    before = set_names(img)
    r = alice.api("POST", "/api/images/%d/import" % img, None, body=b"[1, 2]",
                  headers={"Content-Type": "application/json"})
    err(r, 422, "annotation")
    # said once, not "not an annotation file: not an annotation file: ..."
    assert r.json()["error"].count("not an annotation file") == 1, r.json()["error"]
    err(alice.api("POST", "/api/images/%d/import" % img, None, body=b"{nope",
                  headers={"Content-Type": "application/json"}), 422)
    err(alice.api("POST", "/api/images/%d/import" % img, None, body=b"x",
                  headers={"Content-Type": "text/plain"}), 415)
    body, ctype = multipart({"other": "1"}, {})
    err(alice.api("POST", "/api/images/%d/import" % img, None, body=body, headers={"Content-Type": ctype}), 422,
        "file")
    assert set_names(img) == before


def round_trip_rows(set_id):
    t = srv.sql("SELECT tid, x, y, r, circularity, major, minor, orientation, eccentricity, source "
                "FROM tubercles WHERE set_id = ? ORDER BY tid", (set_id,))
    e = srv.sql("SELECT id1, id2 FROM edges WHERE set_id = ? ORDER BY id1, id2", (set_id,))
    p = srv.sql("SELECT params, calibration_um_per_px FROM sets WHERE id = ?", (set_id,))[0]
    return t, e, json.loads(p[0]) if p[0] else None, p[1]


def test_export_then_import_round_trip_is_identical():
    img = upload(alice, name="round trip.png")
    j = import_json(alice, img, fixture("annot_v3.json"))
    src = j["sets"][0]["id"]
    r = alice.get("/api/images/%d/export.json" % img)
    assert r.status == 200
    assert r.header("Content-Disposition") == 'attachment; filename="round_trip_annotations.json"'
    doc = r.json()
    assert doc["format"] == "fish-scale-annotations" and doc["version"] == "3.0"
    assert [s["name"] for s in doc["sets"]] == set_names(img)
    img2 = upload(alice, name="other.png")
    j2 = import_json(alice, img2, r.body)
    by_name = {s["name"]: s["id"] for s in j2["sets"]}
    # the file's "Base (2)" meets the new image's "Base (2)" (its "Base" imported first)
    assert sorted(by_name) == ["Base (2)", "Base (2) (2)", "Second, quoted"]
    assert round_trip_rows(by_name["Base (2) (2)"]) == round_trip_rows(src)
    # a single set's export holds that set only
    r = alice.get("/api/sets/%d/export.json" % src)
    assert r.status == 200 and [s["name"] for s in r.json()["sets"]] == ["Base (2)"]
    assert r.json()["sets"][0]["history"][0]["type"] == "import"


def test_csv_downloads_rows_and_quoting():
    img = upload(alice, name="odd, name.png")
    ok(alice.api("POST", "/api/images/%d/calibration" % img, {"um_per_px": 0.5}))
    j = import_json(alice, img, fixture("annot_v3.json"))
    base, quoted = j["sets"][0]["id"], j["sets"][1]["id"]
    r = alice.get("/api/sets/%d/tubercles.csv" % base)
    assert r.status == 200 and r.header("Content-Type") == "text/csv; charset=utf-8"
    assert r.header("Content-Disposition").startswith("attachment; filename=\"")
    lines = r.text.splitlines()
    assert lines[0].startswith("id,centroid_x,centroid_y") and len(lines) == 5
    r = alice.get("/api/sets/%d/edges.csv" % base)
    assert len(r.text.splitlines()) == 6
    r = alice.get("/api/sets/%d/summary.csv" % quoted)
    assert r.status == 200
    import csv
    import io
    rows = list(csv.reader(io.StringIO(r.text)))
    assert len(rows) == 2 and len(rows[0]) == len(rows[1])
    assert any(v.endswith("Second, quoted") for v in rows[1]), rows[1]


def test_overlay_png():
    img = upload(alice)
    j = import_json(alice, img, fixture("annot_v1.json"))
    r = alice.get("/api/sets/%d/overlay.png?ids=1&max_side=32" % j["sets"][0]["id"])
    assert r.status == 200, r.text
    assert r.header("Content-Type") == "image/png" and r.body[:8] == b"\x89PNG\r\n\x1a\n"
    # a download is named after the image and the set, not "overlay.png"
    cd = r.header("Content-Disposition")
    assert cd.startswith("inline; filename=\"") and cd.endswith("_Base__2__overlay.png\"") and cd.startswith("inline; filename=\"scale"), cd
    err(alice.get("/api/sets/%d/overlay.png?max_side=2" % j["sets"][0]["id"]), 422, "max_side")


def test_private_image_is_404_for_others():
    img = upload(alice, visibility="private")
    j = import_json(alice, img, fixture("annot_v1.json"))
    sid = j["sets"][0]["id"]
    for path in ("/api/images/%d/export.json" % img, "/api/sets/%d/export.json" % sid,
                 "/api/sets/%d/tubercles.csv" % sid, "/api/sets/%d/edges.csv" % sid,
                 "/api/sets/%d/summary.csv" % sid, "/api/sets/%d/overlay.png" % sid):
        err(bob.get(path), 404)
        assert admin.get(path).status == 200, path
    before = set_names(img)
    err(bob.api("POST", "/api/images/%d/import" % img, None, body=fixture("annot_v1.json"),
                headers={"Content-Type": "application/json"}), 404)
    assert set_names(img) == before
    err(alice.get("/api/sets/999999/export.json"), 404)
    err(alice.get("/api/images/999999/export.json"), 404)


def test_shared_image_is_importable_by_others():
    img = upload(alice, visibility="shared")
    j = import_json(bob, img, fixture("annot_v1.json"))
    assert j["sets"][0]["name"] == "Base (2)"


def test_log_post_with_image_id_needs_a_visible_image():
    img = upload(alice, visibility="private")
    ok(alice.api("POST", "/api/log", {"event_type": "probe_on_image", "image_id": img, "details": {"id": 1}}), 201)
    e = ok(alice.get("/api/log?image_id=%d&type=probe_on_image" % img))["entries"]
    assert len(e) == 1 and e[0]["image_id"] == img
    err(bob.api("POST", "/api/log", {"event_type": "probe_on_image", "image_id": img}), 404)


def test_csv_cells_that_look_like_formulas_are_text():
    # issue 14 item 8: a file or set name a spreadsheet would run as a formula
    img = upload(alice, name="=SUM(1+1)*cmd|x!A0.png")
    ok(alice.api("POST", "/api/images/%d/calibration" % img, {"um_per_px": 0.5}))
    sid = ok(alice.api("POST", "/api/images/%d/sets" % img, {"name": "@SUM(1+1)"}), 201)["set"]["id"]
    import csv
    import io
    rows = list(csv.reader(io.StringIO(alice.get("/api/sets/%d/summary.csv" % sid).text)))
    assert rows[1][0] == "'=SUM(1+1)*cmd|x!A0.png / @SUM(1+1)", rows[1]
    rows = list(csv.reader(io.StringIO(alice.get("/api/compare/table.csv?sets=%d" % sid).text)))
    assert rows[1][2].startswith("'"), rows[1]
    for row in rows:
        for cell in row:
            assert not cell or cell[0] not in "=+-@\t\r", row
