"""Decompression bombs: a PNG or TIFF that claims 100000 x 100000 pixels
(40 GB as floats) in a few kilobytes is refused from its header with 413
and a JSON message, and nothing is stored (no original, no derived files,
no rows); a multi-page TIFF is judged on the page asked for."""
import os
import shutil
import struct
import subprocess
import tempfile
import zlib

from harness import Server, gray_png
from test_images import state, upload

srv = None


def setup_module():
    global srv
    srv = Server().start()


def teardown_module():
    if srv:
        srv.cleanup()


def png_bomb(w, h):
    # the first rows of zeros: a real start of a stream that would inflate to 10 GB
    return gray_png(w, h, b"\x00" * ((w + 1) * 20), level=9)


def tiff(pages, tile=0):
    """Little-endian TIFF, 8-bit grey, deflate; pages = [(w, h), ...];
    tile > 0 writes one tile of tile x tile per page instead of one strip."""
    def raw_len(w, h):
        return tile * tile if tile else (w * h if w * h < 10 ** 6 else w * 8)
    out = bytearray(b"II*\x00" + b"\x00" * 4)
    ifd_offsets = []
    blobs = []
    for w, h in pages:
        data = zlib.compress(b"\x00" * raw_len(w, h), 9)
        blobs.append(len(out))
        out += data
        if len(out) % 2:
            out += b"\x00"
    for i, (w, h) in enumerate(pages):
        data_len = len(zlib.compress(b"\x00" * raw_len(w, h), 9))
        entries = [(256, 4, 1, w), (257, 4, 1, h), (258, 3, 1, 8), (259, 3, 1, 8), (262, 3, 1, 1),
                   (277, 3, 1, 1)]
        if tile:
            entries += [(322, 4, 1, tile), (323, 4, 1, tile), (324, 4, 1, blobs[i]), (325, 4, 1, data_len)]
        else:
            entries += [(273, 4, 1, blobs[i]), (278, 4, 1, h), (279, 4, 1, data_len)]
        entries.sort()
        ifd_offsets.append(len(out))
        out += struct.pack("<H", len(entries))
        for tag, typ, cnt, val in entries:
            out += struct.pack("<HHI", tag, typ, cnt) + (struct.pack("<HH", val, 0) if typ == 3 else
                                                         struct.pack("<I", val))
        out += b"\x00\x00\x00\x00"  # next IFD, patched below
    struct.pack_into("<I", out, 4, ifd_offsets[0])
    for i in range(len(ifd_offsets) - 1):
        n = struct.unpack_from("<H", out, ifd_offsets[i])[0]
        struct.pack_into("<I", out, ifd_offsets[i] + 2 + 12 * n, ifd_offsets[i + 1])
    return bytes(out)


def login():
    c = srv.client()
    assert c.login().status == 303
    return c


def refused(data, name, extra=()):
    c = login()
    before = state(srv)
    r = upload(c, data, name, extra)
    assert r.status == 413, (r.status, r.text)
    assert "json" in r.header("Content-Type")
    msg = r.json()["error"]
    assert "100000 x 100000" in msg and "refused before decoding" in msg, msg
    assert state(srv) == before
    return msg


def test_png_bomb_is_refused_with_nothing_stored():
    data = png_bomb(100000, 100000)
    assert len(data) < 100000
    refused(data, "bomb.png")


def test_tiff_bombs_strip_and_tiled_are_refused_with_nothing_stored():
    refused(tiff([(100000, 100000)]), "bomb.tif")
    refused(tiff([(100000, 100000)], tile=256), "bomb-tiled.tif")


def test_multi_page_tiff_is_judged_on_the_page_asked_for():
    data = tiff([(64, 48), (100000, 100000)])
    refused(data, "pages.tif", [("page", None, b"1")])
    # the small first page of the same file is an ordinary image
    r = upload(login(), data, "pages.tif")
    assert r.status == 201, r.text
    assert r.json()["image"]["width"] == 64


CLI = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                   "build", "fishscale")


def cli_measure(data, name):
    """Runs `fishscale measure` on data saved as name; returns (exit code,
    stderr, the process's peak RSS in MB, the files it wrote)."""
    d = tempfile.mkdtemp(prefix="fs-bomb-cli-")
    try:
        path = os.path.join(d, name)
        with open(path, "wb") as f:
            f.write(data)
        out = os.path.join(d, "out")
        p = subprocess.Popen([CLI, "measure", "-o", out, path], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
        err = p.stderr.read().decode()
        p.stderr.close()
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        written = sorted(os.listdir(out)) if os.path.isdir(out) else []
        return p.returncode, err, usage.ru_maxrss / 1024.0, written
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_cli_refuses_bombs_before_allocating():
    """The CLI loads with the same header check: each 100000 x 100000 bomb
    (PNG, TIFF in one strip, tiled TIFF) fails alone with the refusal, writes
    no result, and the process never holds more than a small fraction of
    the 40 GB the pixels would take as floats (or 10 GB as bytes)."""
    for data, name in ((png_bomb(100000, 100000), "bomb.png"), (tiff([(100000, 100000)]), "bomb.tif"),
                       (tiff([(100000, 100000)], tile=256), "bomb-tiled.tif")):
        rc, err, rss_mb, written = cli_measure(data, name)
        assert rc == 1, (name, rc, err)
        assert "100000 x 100000" in err and "refused before decoding" in err, (name, err)
        assert not [f for f in written if f.startswith("bomb")], (name, written)
        assert rss_mb < 200, (name, rss_mb)


def test_cli_measures_the_first_page_of_a_multi_page_tiff_with_a_bomb_behind_it():
    """The CLI reads page 0: a 64 x 48 first page is measured although the
    file's second page claims 100000 x 100000 (the size checked is the
    page's, not a sum over pages and not the largest page)."""
    rc, err, rss_mb, written = cli_measure(tiff([(64, 48), (100000, 100000)]), "pages.tif")
    assert rc == 0, (rc, err)
    assert "pages_summary.csv" in written, written
    assert rss_mb < 200, rss_mb
