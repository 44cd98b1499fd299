"""Per-user disk quota: usage counts originals and derived files once, for
the first uploader; an upload that would go over is refused (413, JSON)
with nothing stored; the library and the Users page show the usage."""
import os
import random
import re
import threading

from harness import Server
from test_images import multipart, png_gray, state, upload

srv = None


def setup_module():
    global srv
    # a display pyramid from 512 px a side, and uploads above 1.5 MP
    # imported by a job: a refusal must leave neither behind
    srv = Server(env={"FISHSCALE_USER_QUOTA_MB": "2", "FISHSCALE_TILE_MIN_SIDE": "512",
                      "FISHSCALE_IMPORT_SYNC_MAX_PIXELS": "1500000"}).start()
    for who in ("bob", "carol", "dave", "erin", "gus", "hal", "ivy"):
        srv.cli("user", "add", who, input=who + "-password-123\n")
    # bob's image, for the pages that show usage
    # noise: it does not compress, so it shows as at least 0.1 MB
    noise = random.Random(7)
    assert upload(login("bob"), png_gray(400, 300, lambda x, y: noise.randrange(256)), "bob.png").status == 201


def teardown_module():
    if srv:
        srv.cleanup()


def login(who):
    c = srv.client()
    assert c.login(who, who + "-password-123").status == 303
    return c


def disk(c):
    r = c.api("GET", "/api/me/disk")
    assert r.status == 200, r.text
    return r.json()


def test_usage_counts_the_first_uploader_only():
    dave, erin = login("dave"), login("erin")
    assert disk(dave)["used_bytes"] == 0
    assert disk(dave)["quota_bytes"] == 2 << 20
    data = png_gray(300, 300, lambda x, y: (x + 2 * y) & 255)
    assert upload(dave, data, "shared-one.png").status == 201
    used = disk(dave)["used_bytes"]
    # the original and the derived files, with a compact (8-bit, deflated)
    # working image: far less than the 4 bytes a pixel of floats
    assert len(data) < used < 4 * 300 * 300, used
    # the same file from another user is stored once: it costs erin nothing
    assert upload(erin, data, "shared-one.png").status == 201
    assert disk(erin)["used_bytes"] == 0
    assert disk(dave)["used_bytes"] == used


def test_upload_over_the_quota_is_refused_and_nothing_is_stored():
    c = login("carol")
    before = state(srv)
    # 1200 x 1200: the working image and the display copy may take 1.4 MB
    # each (and a pyramid), over what is left
    r = upload(c, png_gray(1200, 1200, lambda x, y: (x * 5 + y) & 255), "too-big.png")
    assert r.status == 413, (r.status, r.text)
    assert "json" in r.header("Content-Type")
    body = r.json()
    assert not body["success"] and "quota" in body["error"], body
    assert state(srv) == before
    # something small still fits
    assert upload(c, png_gray(64, 64, lambda x, y: (x * 3 + y) & 255), "small.png").status == 201


def test_large_upload_over_the_quota_is_refused_before_its_import_job():
    """An upload large enough to be imported by a background job (and to get
    a display pyramid) is judged from its header: refused with 413 before
    the original is stored, so no file (original, working image, display
    copy, pyramid tile), no row and no job is left; the user's usage is
    unchanged."""
    c = login("carol")
    before, used = state(srv), disk(c)["used_bytes"]
    r = upload(c, png_gray(1300, 1300, lambda x, y: (x * 3 + y * 7) & 255), "too-big-job.png")
    assert r.status == 413, (r.status, r.text)
    assert "quota" in r.json()["error"], r.text
    assert state(srv) == before
    assert disk(c)["used_bytes"] == used
    assert c.api("GET", "/api/jobs").json()["jobs"] == []


def test_body_larger_than_the_quota_is_refused_before_it_is_read():
    c = login("carol")
    before = state(srv)
    # a 2.5 MB body (an image with trailing bytes) is over the 2 MB quota
    # whatever it holds: refused from its Content-Length alone
    body, ctype = multipart([("file", "huge.png", png_gray(8, 8) + os.urandom(2_500_000))])
    r = c.api("POST", "/api/images", body=body, headers={"Content-Type": ctype})
    assert r.status == 413, (r.status, r.text)
    assert "quota" in r.json()["error"]
    assert state(srv) == before


def test_library_and_users_page_show_usage():
    bob = login("bob")
    page = bob.request("GET", "/").text
    m = re.search(r'id="disk-usage">Your images take ([0-9.]+) MB of your 2 MB', page)
    assert m, page[:2000]
    assert float(m.group(1)) > 0
    admin = srv.client()
    assert admin.login().status == 303
    users = admin.request("GET", "/admin").text
    row = re.search(r'<tr data-login="bob">.*?<td class="disk">([0-9.]+) MB</td>', users, re.S)
    assert row and float(row.group(1)) > 0, users[:3000]


def test_usage_counts_the_files_kept_for_undoing_a_transform():
    """A rotation keeps the upload's working image (undo goes back to it):
    both count; undoing the rotation frees the rotated one again."""
    c = login("gus")
    iid = upload(c, png_gray(120, 80, lambda x, y: (x * 7 + y * 13) & 255), "turn.png").json()["image"]["id"]
    before = disk(c)["used_bytes"]
    assert c.api("POST", "/api/images/%d/rotate" % iid, {"direction": "left"}).status == 200
    turned = disk(c)["used_bytes"]
    assert turned > before, (before, turned)
    assert c.api("POST", "/api/images/%d/transforms/undo" % iid).status == 200
    assert disk(c)["used_bytes"] == before


def test_a_transform_that_would_go_over_the_quota_is_refused_and_changes_nothing():
    """A rotation or crop writes a new working image and display copies and
    keeps the earlier ones for undo, so it is checked against the quota as
    an upload is: over it, 507 with the usage in the message, nothing
    written, the image as it was; a crop small enough still fits."""
    c = login("hal")
    noise = random.Random(11)
    # noise does not compress: two 480 x 480 images take about 1.5 of the 2 MB
    for name in ("fill.png", "turn-me.png"):
        r = upload(c, png_gray(480, 480, lambda x, y: noise.randrange(256)), name)
        assert r.status == 201, (name, r.status, r.text)
    img = r.json()["image"]
    used = disk(c)["used_bytes"]
    assert used > 1_300_000, used
    before = state(srv)
    r = c.api("POST", "/api/images/%d/rotate" % img["id"], {"direction": "left"})
    assert r.status == 507, (r.status, r.text)
    body = r.json()
    assert not body["success"] and "quota" in body["error"] and "rotation" in body["error"], body
    assert state(srv) == before
    assert disk(c)["used_bytes"] == used
    now = c.api("GET", "/api/images/%d" % img["id"]).json()["image"]
    assert (now["width"], now["height"], now["revision"]) == (480, 480, img["revision"]), now
    # a 64 x 64 crop needs far less: it is made
    r = c.api("POST", "/api/images/%d/crop" % img["id"], {"x": 10, "y": 10, "width": 64, "height": 64})
    assert r.status == 200, (r.status, r.text)
    assert (r.json()["image"]["width"], r.json()["image"]["height"]) == (64, 64)


def test_two_uploads_at_once_cannot_share_the_same_room():
    """Each of two 620 x 620 noise images fits the 2 MB quota alone, not
    both. Sent at once, both passed the check against the usage before
    either (2.4 MB stored, 5 of 5 tries); the check is made again under the
    write lock, so one is stored and the other refused with nothing left."""
    before = state(srv)
    rnd = random.Random(5)
    images = [png_gray(620, 620, lambda x, y: rnd.randrange(256)) for _ in range(2)]
    clients = [login("ivy"), login("ivy")]
    res = [None, None]

    def send(i):
        res[i] = upload(clients[i], images[i], "both-%d.png" % i)

    threads = [threading.Thread(target=send, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.status for r in res) == [201, 413], [(r.status, r.text[:200]) for r in res]
    refused = [r for r in res if r.status == 413][0]
    assert "quota" in refused.json()["error"], refused.text
    assert disk(clients[0])["used_bytes"] <= 2 << 20
    after = state(srv)
    grown = {k: after[k] - before[k] for k in after}
    assert grown["images"] == grown["image_files"] == grown["sets"] == 1, grown
    for d in ("originals", "work", "display", "thumbs", "pyramid"):
        assert grown[d] <= 1, grown
    assert grown["tmp"] == 0, grown
