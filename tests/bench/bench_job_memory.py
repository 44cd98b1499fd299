#!/usr/bin/env python3
"""The memory an extraction job takes, per method (issue 15 item 3's
admission control; printed, not asserted): peak RSS and CPU time of
`fishscale measure --threads 1` (what a job runs: one thread, the default
tiling, the compact image) for auto with the outline rule and with the dome
rule, log, dog and ellipse, on a 25 MP crop and the whole 100 MP synthetic
SEM image, each in 8 and in 16 bits, and the bytes a pixel that makes next
to the estimate admission control uses (app/job_control.c,
fs_job_extract_memory_estimate).

The 100 MP 8-bit image is bench_large's (FS_BENCH_LARGE_TIFF=PATH reuses
an uncompressed 8-bit TIFF of it, e.g. one saved with
FS_BENCH_LARGE_SAVE); the crop and the 16-bit copies (every value v as
v * 257, the same picture) are written here. FS_BENCH_MEMORY_SIZES=25
or =100 measures one size only, FS_BENCH_MEMORY_METHODS=auto,log a subset.
"""
import os
import struct
import subprocess
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
FISHSCALE = os.path.join(ROOT, "build", "fishscale")
CALIBRATION = "0.4"  # um/px of the synthetic SEM image (log, dog, ellipse need one)
METHODS = {
    "auto/outline": ["--rule", "outline"],
    "auto/dome": ["--rule", "dome"],
    "log": ["--rule", "outline", "--param", "method=log"],
    "dog": ["--rule", "outline", "--param", "method=dog"],
    "ellipse": ["--rule", "outline", "--param", "method=ellipse"],
}


def read_tiff8(path):
    """(width, height, offset of the pixels) of an uncompressed 8-bit grey
    TIFF in one run of bytes (bench_write_tiff8's, little-endian)."""
    with open(path, "rb") as f:
        head = f.read(8)
        if head[:4] != b"II*\x00":
            raise SystemExit("%s: not a little-endian TIFF" % path)
        f.seek(struct.unpack("<I", head[4:])[0])
        n = struct.unpack("<H", f.read(2))[0]
        tags = {}
        for _ in range(n):
            t, ty, c, v = struct.unpack("<HHII", f.read(12))
            if ty == 3 and c == 1:
                v &= 0xFFFF
            tags[t] = (c, v)
        if tags.get(259, (1, 1))[1] != 1 or tags.get(258, (1, 8))[1] != 8:
            raise SystemExit("%s: not uncompressed 8-bit" % path)
        c, v = tags[273]
        if c > 1:  # several strips: the first one's offset (they follow each other)
            f.seek(v)
            v = struct.unpack("<I", f.read(4))[0]
        return tags[256][1], tags[257][1], v


def write_tiff(src, path, x0, y0, w, h, bits):
    """A w x h crop of src at (x0, y0) as an uncompressed TIFF of bits (8 or
    16) a sample; a 16-bit sample is v * 257 (v in both bytes)."""
    sw, _, off = read_tiff8(src)
    bps = bits // 8
    tags = [(256, 4, 1, w), (257, 4, 1, h), (258, 3, 1, bits), (259, 3, 1, 1), (262, 3, 1, 1),
            (273, 4, 1, 8 + 2 + 9 * 12 + 4), (277, 3, 1, 1), (278, 4, 1, h), (279, 4, 1, w * h * bps)]
    with open(src, "rb") as f, open(path, "wb") as o:
        o.write(b"II*\x00" + struct.pack("<I", 8) + struct.pack("<H", len(tags)))
        for t in tags:
            o.write(struct.pack("<HHII", *t))
        o.write(struct.pack("<I", 0))
        for y in range(y0, y0 + h):
            f.seek(off + y * sw + x0)
            row = f.read(w)
            if bits == 16:
                b = bytearray(2 * w)
                b[0::2] = row
                b[1::2] = row
                row = bytes(b)
            o.write(row)


def measure(path, args):
    """(CPU s, peak RSS bytes, tubercles) of one `fishscale measure --threads 1`."""
    with tempfile.TemporaryDirectory() as out:
        cmd = ["/usr/bin/time", "-f", "%U %S %M", FISHSCALE, "measure", "--threads", "1", "--calibration",
               CALIBRATION, "-o", out] + args + [path]
        p = subprocess.run(cmd, capture_output=True, text=True)
        last = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""
        if p.returncode != 0:
            return None, None, last
        u, s, m = last.split()
        stem = os.path.splitext(os.path.basename(path))[0]
        with open(os.path.join(out, stem + "_tubercles.csv")) as f:
            n = sum(1 for _ in f) - 1
        return float(u) + float(s), int(m) * 1024, n


def main():
    tmp = tempfile.mkdtemp(prefix="bench_job_memory.")
    src = os.environ.get("FS_BENCH_LARGE_TIFF", "")
    if not src:
        src = os.path.join(tmp, "sem.tif")
        env = dict(os.environ, FS_BENCH_LARGE_SAVE=src)
        subprocess.run([os.path.join(ROOT, "build", "bench", "bench_large")], env=env, check=True,
                       stdout=subprocess.DEVNULL)
    w, h, _ = read_tiff8(src)
    sizes = os.environ.get("FS_BENCH_MEMORY_SIZES", "25,100").split(",")
    only = os.environ.get("FS_BENCH_MEMORY_METHODS", "")
    methods = [m for m in METHODS if not only or m.split("/")[0] in only.split(",") or m in only.split(",")]
    images = []
    if "25" in sizes:
        side = min(w, h) // 2
        for bits in (8, 16):
            p = os.path.join(tmp, "crop25_%d.tif" % bits)
            write_tiff(src, p, (w - side) // 2, (h - side) // 2, side, side, bits)
            images.append(("%dx%d %d-bit" % (side, side, bits), p, side * side))
    if "100" in sizes:
        images.append(("%dx%d 8-bit" % (w, h), src, w * h))
        p = os.path.join(tmp, "full_16.tif")
        write_tiff(src, p, 0, 0, w, h, 16)
        images.append(("%dx%d 16-bit" % (w, h), p, w * h))
    print("peak memory of an extraction job (fishscale measure --threads 1 --calibration %s), "
          "bytes a pixel = peak RSS / pixels:" % CALIBRATION)
    for label, path, px in images:
        for m in methods:
            cpu, rss, n = measure(path, METHODS[m])
            if cpu is None:
                print("  %-22s %-13s failed: %s" % (label, m, n))
                continue
            print("  %-22s %-13s CPU %6.1f s  peak RSS %6.0f MB  %5.2f B/px  %7d tubercles" %
                  (label, m, cpu, rss / 1e6, rss / px, n), flush=True)
    for f in os.listdir(tmp):
        os.unlink(os.path.join(tmp, f))
    os.rmdir(tmp)


if __name__ == "__main__":
    main()
