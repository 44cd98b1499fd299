"""`fishscale measure`: per-image CSV/JSON outputs, combined summary, overlay,
per-image failures and usage errors, run on the paper test images."""
import csv
import json
import os
import shutil
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.join(ROOT, "build", "fishscale")
PAPER = os.path.join(ROOT, "tests", "fixtures", "paper")
POLY = os.path.join(PAPER, "P1_Fig2_Polypterus_bichir_2.63um.tif")
ACRE = os.path.join(PAPER, "P2_Fig1c_Paralepidosteus_sp_Acre_5.73um.tif")
SEM = os.path.join(ROOT, "tests", "fixtures", "sem", "M_kelleri_HLMD-Me_15576_ventral_detail.tif")

tmp = None


def setup_module():
    global tmp
    assert os.access(BIN, os.X_OK), "build the CLI first: %s" % BIN
    assert os.path.exists(POLY) and os.path.exists(ACRE), "paper test images missing"
    tmp = tempfile.mkdtemp(prefix="fs-measure-")


def teardown_module():
    if tmp:
        shutil.rmtree(tmp, ignore_errors=True)


def run(*args):
    p = subprocess.run([BIN, "measure"] + list(args), capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def outdir(name):
    d = os.path.join(tmp, name)
    os.makedirs(d, exist_ok=True)
    return d


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_help_documents_every_option():
    rc, out, _ = run("--help")
    assert rc == 0
    for opt in ("--profile", "--calibration", "--param", "--format", "--overlay", "-o DIR",
                "uncalibrated", "threshold", "neighbor_graph", "paralepidosteus", "--tile", "--threads"):
        assert opt in out, opt


def method_table(help_text):
    """The help's "parameters each method uses" block: method -> set of names."""
    block = help_text.split("parameters each method uses", 1)[1].split("(neighbor_graph", 1)[0]
    table, cur = {}, None
    for line in block.splitlines()[1:]:
        words = line.split()
        if not words:
            continue
        if not line.startswith("          "):  # a method's first line
            cur = words[0]
            words = words[1:]
        table.setdefault(cur, set()).update(words)
    return table


def unused_reasons(help_text):
    """The help's "not used" block: parameter -> the reason it changes nothing."""
    unused = help_text.split("  not used:", 1)[1].split("profiles (", 1)[0]
    return dict(line.split(None, 1) for line in unused.splitlines() if line.strip())


def diameters(name, rule, *params):
    """(x, diameter) of every tubercle of P1 Fig2 measured under rule with
    these --param values, written under outdir(name + the values)."""
    d = outdir(name + "-" + "-".join(p.replace("=", "_") for p in params))
    args = ["--rule", rule]
    for p in params:
        args += ["--param", p]
    rc, _, err = run("-o", d, "--calibration", "0.118", *(args + [POLY]))
    assert rc == 0, err
    stem = os.path.basename(POLY)[:-4]
    return [(r["centroid_x"], r["diameter_px"]) for r in read_csv(os.path.join(d, stem + "_tubercles.csv"))]


def test_help_says_which_parameters_each_method_uses_and_they_do():
    # issue 13 section 5: the help names each method's parameters and why
    # the others change nothing; what it says is checked against what they do.
    # The outline rule's table, named (auto_smoothing is auto's knob there,
    # not under the dome rule: the next test), so that the test means the
    # same whichever rule the build or FISHSCALE_MEASUREMENT_RULE makes the
    # default
    rc, out, _ = run("--rule", "outline", "--help")
    assert rc == 0
    assert "uses under the outline rule" in out
    t = method_table(out)
    assert set(t) == {"auto", "log", "dog", "ellipse", "lattice"}, t
    assert {"auto_prominence", "auto_smoothing"} <= t["auto"] and "threshold" not in t["auto"]
    assert "threshold" in t["log"] and "auto_prominence" not in t["log"]
    reasons = unused_reasons(out)
    assert {"threshold", "min_diameter_um", "auto_prominence"} <= set(reasons), reasons
    assert all(len(why.split()) >= 3 for why in reasons.values()), reasons  # each with its reason

    # a parameter auto does not use changes nothing under auto, one it uses does
    base = diameters("help", "outline", "method=auto")
    assert diameters("help", "outline", "method=auto", "threshold=0.3") == base
    assert diameters("help", "outline", "method=auto", "auto_prominence=0.9") != base


def test_help_under_the_dome_rule_says_what_auto_uses_there_and_it_does():
    # issue 13 section 5 under the dome rule: auto's candidates are circle
    # votes and the image's dome template, which auto_smoothing does not
    # reach; the help (for the rule given before --help) says so, and it is so
    rc, out, _ = run("--rule", "dome", "--help")
    assert rc == 0
    assert "uses under the dome rule" in out
    t = method_table(out)
    assert "auto_prominence" in t["auto"] and "auto_smoothing" not in t["auto"], t["auto"]
    assert "auto_smoothing" not in t["lattice"] and "threshold" in t["log"], t
    reasons = unused_reasons(out)
    assert "dome rule" in reasons["auto_smoothing"], reasons
    rc, out, _ = run("--rule", "outline", "--help")
    assert "uses under the outline rule" in out and "auto_smoothing" in method_table(out)["auto"]

    base = diameters("dome-help", "dome", "method=auto")
    assert diameters("dome-help", "dome", "method=auto", "auto_smoothing=0.3") == base
    assert diameters("dome-help", "dome", "method=auto", "auto_smoothing=0.05") == base
    assert diameters("dome-help", "dome", "method=auto", "auto_prominence=0.66") != base


def test_tiff_gives_tubercles_edges_and_summary_csv():
    d = outdir("csv")
    rc, out, err = run("-o", d, POLY)
    assert rc == 0, err
    assert err == "", "no progress bar when stderr is not a terminal: %r" % err
    stem = "P1_Fig2_Polypterus_bichir_2.63um"
    tub = read_csv(os.path.join(d, stem + "_tubercles.csv"))
    edges = read_csv(os.path.join(d, stem + "_edges.csv"))
    summ = read_csv(os.path.join(d, stem + "_summary.csv"))
    assert len(tub) >= 5
    assert {"id", "centroid_x", "diameter_px", "diameter_um", "source"} <= set(tub[0])
    assert len(edges) >= len(tub) - 1
    assert {"id1", "id2", "center_distance_px", "edge_distance_um"} <= set(edges[0])
    ids = {int(r["id"]) for r in tub}
    assert all(int(e["id1"]) in ids and int(e["id2"]) in ids for e in edges)
    assert len(summ) == 1
    s = summ[0]
    assert s["calibration_status"] == "uncalibrated"
    assert int(s["n_tubercles"]) == len(tub) and int(s["n_edges"]) == len(edges)
    assert s["suggested_genus"] == "Unknown"
    # uncalibrated: um columns are computed with 1.0 (equal to pixels)
    assert abs(float(s["mean_diameter_um"]) - float(s["mean_diameter_px"])) < 1e-9
    ratio = float(s["size_pitch_ratio"])
    assert 0.0 < ratio < 1.0
    assert not os.path.exists(os.path.join(d, "summary.csv")), "single image: no combined file"


def test_json_summary_with_calibration():
    d = outdir("json")
    rc, _, err = run("--format", "json", "--calibration", "0.5", "-o", d, POLY)
    assert rc == 0, err
    with open(os.path.join(d, "P1_Fig2_Polypterus_bichir_2.63um_summary.json")) as f:
        s = json.load(f)
    assert s["calibration_status"] == "calibrated"
    assert s["calibration_um_per_px"] == 0.5
    assert abs(s["mean_diameter_um"] - 0.5 * s["mean_diameter_px"]) < 1e-9
    assert len(s["degree_histogram"]) == 17
    assert 0.0 <= s["hexagonalness_score"] <= 1.0


OBAI = os.path.join(PAPER, "P3_Fig4_Obaichthys_laevis_5.0um.tif")


def test_image_without_a_measured_base_has_no_mean_diameter_not_zero():
    # issue 13: under the dome rule P3 Fig4 shows no base (every tubercle
    # kept with its centre, no diameter). Its summary must say "no value"
    # (an empty CSV cell, null in JSON), not a measured 0 um; the per-image
    # and the combined summary alike, beside an image that is measured.
    d = outdir("nobase")
    rc, _, err = run("--rule", "dome", "-o", d, OBAI, POLY)
    assert rc == 0, err
    rows = {r["image"].split("/")[-1]: r for r in read_csv(os.path.join(d, "summary.csv"))}
    s = rows[os.path.basename(OBAI)]
    assert int(s["n_tubercles"]) > 0 and s["n_unmeasured"] == s["n_tubercles"], s
    for k in ("mean_diameter_um", "std_diameter_um", "mean_diameter_px", "mean_space_um",
              "size_pitch_ratio"):
        assert s[k] == "", (k, s[k])
    assert float(s["mean_center_distance_px"]) > 0
    assert s["suggested_genus"] == "Unknown"
    per = read_csv(os.path.join(d, "P3_Fig4_Obaichthys_laevis_5.0um_summary.csv"))[0]
    assert per["mean_diameter_um"] == "" and per["size_pitch_ratio"] == ""
    m = rows[os.path.basename(POLY)]
    assert int(m["n_unmeasured"]) < int(m["n_tubercles"]) and float(m["mean_diameter_px"]) > 0
    dj = outdir("nobase-json")
    rc, _, err = run("--rule", "dome", "--format", "json", "-o", dj, OBAI)
    assert rc == 0, err
    with open(os.path.join(dj, "P3_Fig4_Obaichthys_laevis_5.0um_summary.json")) as f:
        j = json.load(f)
    assert j["mean_diameter_um"] is None and j["size_pitch_ratio"] is None
    assert j["n_unmeasured"] == j["n_tubercles"] > 0


def test_corrupt_file_fails_alone_and_others_are_processed():
    d = outdir("mixed")
    bad = os.path.join(tmp, "broken.tif")
    with open(bad, "wb") as f:
        f.write(b"II*\x00" + b"\xff" * 64)
    rc, _, err = run("-o", d, bad, POLY)
    assert rc == 1
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "broken.tif" in lines[0], err
    assert os.path.exists(os.path.join(d, "P1_Fig2_Polypterus_bichir_2.63um_summary.csv"))
    assert not os.path.exists(os.path.join(d, "broken_summary.csv"))
    rows = read_csv(os.path.join(d, "summary.csv"))
    assert len(rows) == 1 and rows[0]["image"].endswith("P1_Fig2_Polypterus_bichir_2.63um.tif")


def test_several_images_give_combined_json_summary():
    d = outdir("combined")
    rc, _, err = run("--format", "json", "-o", d, POLY, ACRE)
    assert rc == 0, err
    with open(os.path.join(d, "summary.json")) as f:
        s = json.load(f)
    assert [os.path.basename(i["image"]) for i in s["images"]] == [os.path.basename(POLY),
                                                                  os.path.basename(ACRE)]


def test_same_stem_twice_gets_distinct_files():
    d = outdir("twice")
    rc, _, err = run("-o", d, POLY, POLY)
    assert rc == 0, err
    assert os.path.exists(os.path.join(d, "P1_Fig2_Polypterus_bichir_2.63um_edges.csv"))
    assert os.path.exists(os.path.join(d, "P1_Fig2_Polypterus_bichir_2.63um_2_edges.csv"))


def test_overlay_is_a_png():
    d = outdir("overlay")
    rc, _, err = run("--overlay", "--calibration", "0.33", "-o", d, ACRE)
    assert rc == 0, err
    with open(os.path.join(d, "P2_Fig1c_Paralepidosteus_sp_Acre_5.73um_overlay.png"), "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_param_and_profile_are_applied():
    d = outdir("param")
    rc, _, err = run("--profile", "paralepidosteus", "--param", "neighbor_graph=rng",
                     "-o", d, ACRE)
    assert rc == 0, err
    s = read_csv(os.path.join(d, "P2_Fig1c_Paralepidosteus_sp_Acre_5.73um_summary.csv"))[0]
    # the profile carries 0.33 um/px
    assert s["calibration_status"] == "calibrated"
    assert abs(float(s["calibration_um_per_px"]) - 0.33) < 1e-12
    # RNG has fewer than 1.5 edges per tubercle on any point set of this size
    assert int(s["n_edges"]) < 1.5 * int(s["n_tubercles"])


def test_usage_errors_exit_2():
    for args in (["--format", "xml", POLY], ["--param", "bogus=1", POLY],
                 ["--param", "threshold", POLY], ["--calibration", "-1", POLY],
                 ["--profile", "nosuch", POLY], ["--no-such-option", POLY], []):
        rc, out, err = run(*args)
        assert rc == 2, (args, rc, err)
        assert err.strip(), args


def test_missing_file_is_reported():
    d = outdir("missing")
    rc, _, err = run("-o", d, os.path.join(tmp, "does-not-exist.png"))
    assert rc == 1
    assert "does-not-exist.png" in err


def test_tiled_measurement_equals_whole_image():
    """--tile 128 (10 x 8 tiles on the 1280 x 960 SEM image and several on a
    paper figure), in one and two threads, gives what --tile 0 (the whole
    image at once) gives: the same tubercles (centres within 0.01 px, plus
    the CSV's rounding), the same ones left unmeasured (an empty diameter:
    the dome rule leaves 23 of the SEM image's 342 so, h33f) and the same
    edges."""
    for img in (SEM, POLY):
        stem = os.path.splitext(os.path.basename(img))[0]
        whole = outdir("whole-" + stem)
        rc, _, err = run("--tile", "0", "-o", whole, img)
        assert rc == 0, err
        t0 = read_csv(os.path.join(whole, stem + "_tubercles.csv"))
        e0 = read_csv(os.path.join(whole, stem + "_edges.csv"))
        assert len(t0) > 20
        for threads in ("1", "2"):
            d = outdir("tiled-%s-%s" % (threads, stem))
            rc, _, err = run("--tile", "128", "--threads", threads, "-o", d, img)
            assert rc == 0, err
            t1 = read_csv(os.path.join(d, stem + "_tubercles.csv"))
            e1 = read_csv(os.path.join(d, stem + "_edges.csv"))
            assert len(t1) == len(t0)
            for a, b in zip(t0, t1):
                assert a["id"] == b["id"]
                for k in ("centroid_x", "centroid_y", "diameter_px"):
                    # an unmeasured base (the dome rule's empty cell) must
                    # be unmeasured in both
                    assert (a[k] == "") == (b[k] == ""), (k, a, b)
                    if a[k] == "":
                        continue
                    # 6 significant digits in the CSV: 0.01 px at 1000 px
                    assert abs(float(a[k]) - float(b[k])) <= 0.0101, (k, a, b)
            assert [(e["id1"], e["id2"]) for e in e1] == [(e["id1"], e["id2"]) for e in e0]


def test_tile_and_threads_usage_errors():
    for args in (("--tile", "5"), ("--tile", "x"), ("--threads", "0"), ("--threads", "9")):
        rc, _, err = run(*args, "-o", outdir("bad"), POLY)
        assert rc == 2, args
        assert "--tile" in err or "--threads" in err


def most_threads_seen(*args):
    """Runs `fishscale measure` and counts its threads (/proc/PID/task) as
    often as it can until it exits: (exit code, the most seen at once)."""
    p = subprocess.Popen([BIN, "measure"] + list(args), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    most = 0
    task = "/proc/%d/task" % p.pid
    while p.poll() is None:
        try:
            most = max(most, len(os.listdir(task)))
        except OSError:  # exited between poll() and listdir()
            break
    err = p.stderr.read().decode()
    p.stderr.close()
    assert p.wait() == 0, err
    return most


def test_cli_uses_two_threads_and_one_when_told():
    """Issue 15: the CLI may use both cores (tiles in two threads, the scale
    region in a second thread meanwhile); --threads 1, which is how a
    background job detects, never runs a second thread. 10 x 8 tiles of
    128 px on the SEM image keep the second thread busy long enough to be
    seen; the one-thread bound holds however often the threads are looked at."""
    assert most_threads_seen("--tile", "128", "--threads", "1", "-o", outdir("threads-1"), SEM) == 1
    two = 0
    for _ in range(5):  # a run is seen at most a few hundred times: look again if it slipped by
        two = max(two, most_threads_seen("--tile", "128", "-o", outdir("threads-2"), SEM))
        if two >= 2:
            break
    assert two >= 2, two
