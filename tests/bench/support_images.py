"""Images the Python benchmarks upload (bench_sets.py, bench_large_api.py);
not a benchmark itself (run.sh runs bench_*.py)."""
import math
import struct
import zlib


def lattice_png(w, h, pitch=40.0, radius=12.0, level=6):
    """An 8-bit grey PNG of bright disks (220) of the given radius on a
    hexagonal lattice of the given pitch over a dark surface (40), written
    row by row so a 10000 x 10000 image takes seconds; level is zlib's."""
    dy = pitch * math.sqrt(3) / 2
    raw = bytearray()
    for y in range(h):
        row = bytearray(b"\x28" * w)
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
                    row[a:b + 1] = b"\xdc" * (b + 1 - a)
                i += 1
        raw += b"\x00" + row

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(bytes(raw), level)) + chunk(b"IEND", b""))
