"""Issue 14's secrets, files and accounts items through nginx + FastCGI:
file modes in the data directory (umask 027, 2750 with the web server's
group), the client event namespace, single sign-on's trusted proxies,
login throttling per (account, address), and changing one's own password."""
import grp
import os
import stat

from harness import Server, upload_image, unique_png

srv = None


def setup_module():
    global srv
    srv = Server(env={"FISHSCALE_WEB_GROUP": "nogroup"})
    # what an older version left: a world-readable directory and file
    os.chmod(srv.data, 0o755)
    os.makedirs(os.path.join(srv.data, "images", "old"))
    os.chmod(os.path.join(srv.data, "images"), 0o755)
    with open(os.path.join(srv.data, "images", "old", "left.png"), "wb") as f:
        f.write(b"old")
    os.chmod(os.path.join(srv.data, "images", "old", "left.png"), 0o644)
    srv.start()


def teardown_module():
    srv.cleanup()


def client(login="admin", password=None):
    c = srv.client()
    r = c.login(login, password)
    assert r.status == 303, r.text
    return c


def world_accessible():
    bad = []
    for root, dirs, files in os.walk(srv.data):
        for name in dirs + files + ["."]:
            p = os.path.join(root, name)
            st = os.lstat(p)
            if stat.S_ISSOCK(st.st_mode) or stat.S_ISLNK(st.st_mode):
                continue
            if st.st_mode & 0o007:
                bad.append((p, oct(st.st_mode)))
    return bad


def test_data_directory_is_not_world_readable_and_images_are_still_served():
    # issue 14 item 7
    c = client()
    img = upload_image(c, data=unique_png(120, 90), filename="modes.png")["image"]
    r = c.api("POST", "/api/images/%d/sets" % img["id"], {"name": "modes"})
    assert r.status in (200, 201), r.text
    r = c.get("/api/images/%d/display.png" % img["id"])
    assert r.status == 200 and r.body[:8] == b"\x89PNG\r\n\x1a\n", (r.status, r.text[:200])
    srv.cli("user", "add", "dora", input="dora-password-1\n")
    assert world_accessible() == []
    gid = grp.getgrnam("nogroup").gr_gid
    st = os.stat(srv.data)
    assert st.st_gid == gid and stat.S_IMODE(st.st_mode) & 0o2750 == 0o2750, oct(st.st_mode)
    for name in ("fishscale.db", "images"):
        assert os.stat(os.path.join(srv.data, name)).st_gid == gid, name
    old = os.stat(os.path.join(srv.data, "images", "old", "left.png"))
    assert stat.S_IMODE(old.st_mode) == 0o640 and old.st_gid == gid
