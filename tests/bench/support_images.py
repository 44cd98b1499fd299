"""Images the Python benchmarks upload (bench_sets.py, bench_large_api.py,
bench_paths_memory.py); not a benchmark itself (run.sh runs bench_*.py)."""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from harness import gray_png  # noqa: E402


def lattice_spans(y, w, pitch=40.0, radius=12.0):
    """The runs of columns [a, b] that row y of a w-wide image crosses of
    disks of the given radius on a hexagonal lattice of the given pitch
    (rows of centres pitch * sqrt(3) / 2 apart, every other one shifted by
    half a pitch), left to right within each row of centres."""
    dy = pitch * math.sqrt(3) / 2
    j = round(y / dy)
    for jj in (j - 1, j, j + 1):
        cy = jj * dy
        if abs(y - cy) > radius:
            continue
        off = (pitch / 2) if jj % 2 else 0
        half = math.sqrt(max(0.0, radius * radius - (y - cy) ** 2))
        i = -1  # the disk left of x = 0 may reach into the image
        while True:
            cx = i * pitch + off
            if cx - half > w:
                break
            a, b = int(max(0, cx - half)), int(min(w - 1, cx + half))
            if b >= a:
                yield a, b
            i += 1


def lattice_png(w, h, pitch=40.0, radius=12.0, level=6):
    """An 8-bit grey PNG of bright disks (220) of the given radius on a
    hexagonal lattice of the given pitch over a dark surface (40), written
    row by row so a 10000 x 10000 image takes seconds; level is zlib's."""
    raw = bytearray()
    for y in range(h):
        row = bytearray(b"\x28" * w)
        for a, b in lattice_spans(y, w, pitch, radius):
            row[a:b + 1] = b"\xdc" * (b + 1 - a)
        raw += b"\x00" + row
    return gray_png(w, h, bytes(raw), level)
