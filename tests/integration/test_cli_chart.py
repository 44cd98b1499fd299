"""`fishscale chart`: the Compare chart of `fishscale measure`'s CSVs as SVG
(parsed here: points, group means, the uncalibrated file only on the ratio
chart), PNG (decoded here) and the table as CSV (the same numbers as
measure's summaries); usage and input errors."""
import csv
import os
import shutil
import subprocess
import tempfile
import xml.etree.ElementTree as ET

from png_decode import decode_png

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.join(ROOT, "build", "fishscale")
PAPER = os.path.join(ROOT, "tests", "fixtures", "paper")
FIGS = ["P1_Fig2_Polypterus_bichir_2.63um", "P1_Fig4_Atractosteus_simplex_7.07um"]
UNCAL = "P3_Fig4_Obaichthys_laevis_5.0um"
SVG = "{http://www.w3.org/2000/svg}"

tmp = None


def setup_module():
    global tmp
    tmp = tempfile.mkdtemp(prefix="fs-chart-")
    p = subprocess.run([BIN, "measure", "--calibration", "0.118", "-o", tmp] +
                       [os.path.join(PAPER, f + ".tif") for f in FIGS],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    p = subprocess.run([BIN, "measure", "-o", tmp, os.path.join(PAPER, UNCAL + ".tif")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr


def teardown_module():
    if tmp:
        shutil.rmtree(tmp, ignore_errors=True)


def tub(stem):
    return os.path.join(tmp, stem + "_tubercles.csv")


def summary(stem):
    with open(os.path.join(tmp, stem + "_summary.csv"), newline="") as f:
        return next(csv.DictReader(f))


def chart(*args):
    p = subprocess.run([BIN, "chart"] + list(args), capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def groups(root, cls):
    return [g for g in root.iter(SVG + "g") if cls in (g.get("class") or "").split()]


def test_svg_has_the_points_group_mean_and_reference():
    out = os.path.join(tmp, "chart.svg")
    rc, _, err = chart("--group", "Specimen A=" + tub(FIGS[0]), "--group", "Specimen A=" + tub(FIGS[1]),
                       tub(UNCAL), "-o", out, "--title", "Paper figures")
    assert rc == 0, err
    root = ET.parse(out).getroot()  # a well-formed SVG document
    assert root.tag == SVG + "svg"
    main = [g for g in groups(root, "set-point") if g.get("data-chart") == "main"]
    ratio = [g for g in groups(root, "set-point") if g.get("data-chart") == "ratio"]
    assert sorted(g.get("data-set-id") for g in main) == ["1", "2"], "calibrated files on the main chart"
    assert sorted(g.get("data-set-id") for g in ratio) == ["1", "2", "3"], "every file on the ratio chart"
    for g, stem in zip(sorted(main, key=lambda g: g.get("data-set-id")), FIGS):
        s = summary(stem)
        assert abs(float(g.get("data-d")) - float(s["mean_diameter_um"])) < 1e-3 * float(s["mean_diameter_um"])
        assert abs(float(g.get("data-s")) - float(s["mean_space_um"])) < 1e-3 * float(s["mean_space_um"])
        assert g.get("data-group") == "Specimen A"
        assert g.find(SVG + "title").text.startswith(stem + " (Specimen A): D ")
    u = [g for g in ratio if g.get("data-set-id") == "3"][0]
    assert u.get("data-calibrated") == "0"
    means = [g for g in groups(root, "group-mean") if g.get("data-chart") == "main"]
    assert len(means) == 1 and means[0].get("data-group") == "Specimen A"
    want = sum(float(summary(f)["mean_diameter_um"]) for f in FIGS) / 2
    assert abs(float(means[0].get("data-d")) - want) < 1e-3
    assert len(groups(root, "genus-region")) == 6
    assert len(groups(root, "set-dist")) == 3
    assert "Paper figures" in "".join(root.itertext())


def test_png_decodes_with_the_group_colour():
    out = os.path.join(tmp, "chart.png")
    rc, _, err = chart("--group", "A=" + tub(FIGS[0]), tub(FIGS[1]), "--parts", "main", "--scale", "1",
                       "-o", out)
    assert rc == 0, err
    with open(out, "rb") as f:
        w, h, ch, rows = decode_png(f.read())
    assert w == 820 and 500 < h < 800 and ch == 3
    # group A's marker is drawn in (0, 114, 178); the ungrouped one in grey
    blue = sum(1 for r in rows for i in range(0, len(r), 3) if r[i:i + 3] == b"\x00\x72\xb2")
    assert blue >= 10, "the group colour is in the picture (%d pixels)" % blue


def test_csv_table_matches_measure():
    out = os.path.join(tmp, "table.csv")
    rc, _, err = chart("--group", "A=" + tub(FIGS[0]), "--group", "A=" + tub(FIGS[1]), tub(UNCAL), "-o", out)
    assert rc == 0, err
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    sets = [r for r in rows if r["kind"] == "set"]
    assert [r["name"] for r in sets] == FIGS + [UNCAL]
    for r in sets:
        s = summary(r["name"])
        assert r["n_tubercles"] == s["n_tubercles"] and r["n_edges"] == s["n_edges"]
        for mine, theirs in (("mean_diameter", "mean_diameter_um"), ("sd_diameter", "std_diameter_um"),
                             ("mean_space", "mean_space_um"), ("sd_space", "std_space_um"),
                             ("fill_ratio", "size_pitch_ratio"), ("hexagonalness", "hexagonalness_score")):
            assert abs(float(r[mine]) - float(s[theirs])) <= 1e-4 * abs(float(s[theirs])) + 1e-9, (mine, r, s)
        assert r["calibrated"] == ("1" if s["calibration_status"] == "calibrated" else "0")
    assert sets[2]["unit"] == "px" and sets[2]["suggested_genus"] == "Unknown"
    assert sets[0]["suggested_genus"] == summary(FIGS[0])["suggested_genus"]
    g = [r for r in rows if r["kind"] == "group_mean"]
    assert len(g) == 1 and g[0]["name"] == "A"


def test_without_edges_or_summary_beside_it():
    d = os.path.join(tmp, "bare")
    os.makedirs(d, exist_ok=True)
    shutil.copy(tub(FIGS[0]), d)
    rc, _, err = chart(os.path.join(d, FIGS[0] + "_tubercles.csv"), "-o", os.path.join(d, "c.svg"))
    assert rc == 0, err
    assert "Gabriel graph" in err and "no summary beside it: calibrated" in err
    ET.parse(os.path.join(d, "c.svg"))


def test_usage_and_input_errors():
    rc, _, err = chart(tub(FIGS[0]))
    assert rc == 2 and "-o FILE.svg" in err
    rc, _, err = chart(tub(FIGS[0]), "-o", os.path.join(tmp, "x.gif"))
    assert rc == 2
    rc, _, err = chart("--group", "nolabel", "-o", os.path.join(tmp, "x.svg"))
    assert rc == 2 and "LABEL=FILE" in err
    rc, _, err = chart("--parts", "pie", tub(FIGS[0]), "-o", os.path.join(tmp, "x.svg"))
    assert rc == 2
    rc, _, err = chart(os.path.join(tmp, FIGS[0] + "_edges.csv"), "-o", os.path.join(tmp, "x.svg"))
    assert rc == 1 and "_tubercles.csv" in err
    bad = os.path.join(tmp, "junk_tubercles.csv")
    with open(bad, "w") as f:
        f.write("id,centroid_x,centroid_y,radius_px\n1,2,x,3\n")
    rc, _, err = chart(bad, "-o", os.path.join(tmp, "y.svg"))
    assert rc == 1 and "line 2" in err
    assert not os.path.exists(os.path.join(tmp, "y.svg")), "nothing written on failure"
    rc, out, _ = chart("--help")
    assert rc == 0 and "--group LABEL=FILE" in out
