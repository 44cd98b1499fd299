"""The display pyramid of a large image: JPEG tiles at powers of two made
when the image is stored (here above tile_min_side = 512), served by nginx
after the access check, counted in the user's disk use, made again for a
rotation and removed with the image; the display PNG becomes an overview;
small images have no tiles."""
import os
import random

from harness import Server, gray_png
from png_decode import decode_png
from test_images import png_gray, upload

srv = None
W, H = 1200, 900


def setup_module():
    global srv
    srv = Server(env={"FISHSCALE_TILE_MIN_SIDE": "512", "FISHSCALE_IMPORT_SYNC_MAX_PIXELS": "100000000"}).start()
    srv.cli("user", "add", "carol", input="carol-password-123\n")


def teardown_module():
    if srv:
        srv.cleanup()


def login(who="admin"):
    c = srv.client()
    assert (c.login() if who == "admin" else c.login(who, who + "-password-123")).status == 303
    return c


def pyramid_dirs():
    p = os.path.join(srv.data, "pyramid")
    return sorted(d for d in os.listdir(p) if ".tmp-" not in d) if os.path.isdir(p) else []


def big_image(c, name="big.png", shared=True, seed=3):
    rnd = random.Random(seed)
    data = png_gray(W, H, lambda x, y: (x // 7 + y // 5 + rnd.randrange(8)) & 255)
    extra = [] if shared else [("visibility", None, b"private")]
    r = upload(c, data, name, extra)
    assert r.status == 201, r.text
    return r.json()["image"]


def test_large_image_gets_tiles_and_an_overview():
    c = login()
    img = big_image(c)
    t = img["tiles"]
    assert t["size"] == 256 and t["levels"] == 4, t  # 1200 -> 600 -> 300 -> 150
    base = t["url"]
    assert "{z}-{x}-{y}.jpg" in base
    for z, x, y in ((0, 0, 0), (0, 4, 3), (1, 2, 1), (3, 0, 0)):
        r = c.get(base.replace("{z}", str(z)).replace("{x}", str(x)).replace("{y}", str(y)))
        assert r.status == 200, (z, x, y, r.status)
        assert r.header("Content-Type") == "image/jpeg"
        assert r.body[:3] == b"\xff\xd8\xff"
        assert "X-Accel-Redirect" not in r.headers
    # past the edge of a level, or a malformed name: 404
    for name in ("0-5-0.jpg", "3-1-0.jpg", "0-00-0.jpg", "0-0-0.png", "-1-0-0.jpg", "0-0-0.jpg.x"):
        r = c.get("/api/images/%d/tiles/%s" % (img["id"], name))
        assert r.status == 404, (name, r.status)
    # the display PNG is an overview of at most tile_min_side a side
    w, h, _, _ = decode_png(c.get(img["urls"]["display"].split("?")[0]).body)
    assert max(w, h) == 512 and (w, h) == (512, 384), (w, h)


def fast_png(w, h):
    """A w x h grey PNG made of identical rows (quick to build at 20 MP)."""
    row = b"\x00" + bytes((x * 37 // 10) & 255 for x in range(w))
    return gray_png(w, h, row * h, level=1)


def test_overlay_of_a_large_image_is_bounded():
    """A 20 MP image's overlay is drawn at most 16 MP (a whole-factor reduction), from a
    working image read already reduced; a smaller max_side is kept."""
    c = login()
    r = upload(c, fast_png(5000, 4000), "large-overlay.png")
    assert r.status == 201, r.text
    sid = r.json()["image"]["sets"][0]["id"]
    r = c.get("/api/sets/%d/overlay.png" % sid)
    assert r.status == 200, r.text
    w, h, _, _ = decode_png(r.body)
    # reduced by a whole factor (2 here) to at most 16 MP
    assert w * h <= 4096 * 4096 and (w, h) == (2500, 2000), (w, h)
    r = c.get("/api/sets/%d/overlay.png?max_side=1000" % sid)
    w, h, _, _ = decode_png(r.body)
    assert max(w, h) <= 1000 and w >= 800, (w, h)


def test_small_image_has_no_tiles():
    c = login()
    r = upload(c, png_gray(300, 200), "small.png")
    img = r.json()["image"]
    assert img["tiles"] is None
    assert c.get("/api/images/%d/tiles/0-0-0.jpg" % img["id"]).status == 404


def test_tiles_of_a_private_image_are_not_served_to_others():
    admin = login()
    img = big_image(admin, "private.png", shared=False, seed=4)
    carol = login("carol")
    assert carol.get("/api/images/%d/tiles/0-0-0.jpg" % img["id"]).status == 404
    assert admin.get("/api/images/%d/tiles/0-0-0.jpg" % img["id"]).status == 200


def test_pyramid_counts_on_disk_follows_rotation_and_goes_with_the_image():
    c = login("carol")
    before_dirs = pyramid_dirs()
    used0 = c.api("GET", "/api/me/disk").json()["used_bytes"]
    img = big_image(c, "carol-big.png", seed=5)
    new_dirs = [d for d in pyramid_dirs() if d not in before_dirs]
    assert len(new_dirs) == 1
    tiles = os.listdir(os.path.join(srv.data, "pyramid", new_dirs[0]))
    # 5x4 + 3x2 + 2x1 + 1 tiles
    assert len(tiles) == 20 + 6 + 2 + 1, sorted(tiles)
    tile_bytes = sum(os.path.getsize(os.path.join(srv.data, "pyramid", new_dirs[0], f)) for f in tiles)
    used1 = c.api("GET", "/api/me/disk").json()["used_bytes"]
    assert used1 - used0 > tile_bytes, (used0, used1, tile_bytes)
    # a rotation makes the rotated image's pyramid (900 x 1200 now)
    r = c.api("POST", "/api/images/%d/rotate" % img["id"], {"direction": "left"})
    assert r.status == 200, r.text
    assert len(pyramid_dirs()) == len(before_dirs) + 2
    r = c.get("/api/images/%d/tiles/0-3-4.jpg" % img["id"])
    assert r.status == 200
    assert c.api("DELETE", "/api/images/%d" % img["id"]).status in (200, 204)
    assert pyramid_dirs() == before_dirs
