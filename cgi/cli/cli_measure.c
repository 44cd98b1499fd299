/*
 * cli_measure.c - `fishscale measure` (see cli_measure.h and the help text
 * below). Each output file is written to a temporary file in the output
 * directory and renamed into place, so a reader never sees half a CSV.
 */
#include "cli/cli_measure.h"

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cJSON.h>

#include "base/base.h"
#include "analysis/analysis.h"
#include "store/store.h"
#include "image/image_io.h"
#include "image/render.h"

static const char help_text[] =
	"usage: fishscale measure [OPTIONS] IMAGE...\n"
	"\n"
	"Detects the tubercles of each image (TIFF, PNG or JPEG), connects them with the\n"
	"neighbour graph, and writes per image, into DIR:\n"
	"  <stem>_tubercles.csv  id, centroid, diameter (px and um), radius, circularity,\n"
	"                        ellipse axes, orientation, eccentricity, boundary, source\n"
	"  <stem>_edges.csv      id1, id2, centre and edge-to-edge distance (px and um);\n"
	"                        negative edge distances (overlapping circles) are kept\n"
	"  <stem>_summary.csv    every statistic (or <stem>_summary.json with --format json)\n"
	"  <stem>_overlay.png    with --overlay: circles, edges and a scale bar\n"
	"With several images also summary.csv (or summary.json) with one row per image.\n"
	"\n"
	"options:\n"
	"  --profile NAME          start from a built-in parameter profile (default: default)\n"
	"  --calibration UM_PER_PX micrometres per pixel. Without it: the profile's\n"
	"                          calibration, else SEM metadata in the file, else the\n"
	"                          image is uncalibrated: um columns are computed with 1.0\n"
	"                          (so they equal pixels), the summary says \"uncalibrated\",\n"
	"                          only ratio figures (size_pitch_ratio, hexagonalness)\n"
	"                          are meaningful and no genus is suggested; methods\n"
	"                          log/dog/ellipse need a calibration\n"
	"  --calibration auto      the file's SEM metadata pixel size when it has one,\n"
	"                          else the scale bar read from the SEM data bar burnt\n"
	"                          into the image (Tesseract) when the reading is\n"
	"                          confident and the lattice pitch it implies lies in\n"
	"                          the published 4-15 um; else uncalibrated. Says on\n"
	"                          stderr which it used and why\n"
	"  --param KEY=VALUE       set one extraction parameter (repeatable), e.g.\n"
	"                          --param method=log --param threshold=0.08\n"
	"  --format csv|json       summary format (default csv)\n"
	"  --overlay               also write <stem>_overlay.png\n"
	"  -o DIR, --output DIR    output directory (default: the current directory;\n"
	"                          created when missing)\n"
	"  --rule outline|dome     the rule that measures the diameters: outline\n"
	"                          (version 1, the half-level outline) or dome (version\n"
	"                          2, the base of the SEM dome). Default: the\n"
	"                          environment's FISHSCALE_MEASUREMENT_RULE (the\n"
	"                          server's measurement_rule), else the build's (%s).\n"
	"                          The summary's measurement_version and\n"
	"                          measurement_rule say which rule measured it\n"
	"  --threads N             measure tiles of the image in N threads (1-8,\n"
	"                          default 2)\n"
	"  --tile PX               tile side of the measurement in pixels (default\n"
	"                          1024; 0 = the whole image at once, which needs a\n"
	"                          second full-size float copy of the image, and for\n"
	"                          methods log, dog and ellipse full-size scale layers:\n"
	"                          they then refuse images above 26 megapixels). The\n"
	"                          results do not depend on it\n"
	"  -h, --help              this text\n"
	"\n"
	"Statistics conventions: sample standard deviations; spacing = edge-to-edge\n"
	"distance over the graph's edges with negative values counted as 0; long edges\n"
	"culled at cull_factor x the median centre distance; hexagonalness =\n"
	"0.40 spacing uniformity + 0.45 degree score + 0.15 edge-ratio score over\n"
	"interior (non-hull) tubercles.\n"
	"\n"
	"Exit status: 0 all images measured, 1 some image failed (one message each on\n"
	"stderr; the others are still processed), 2 usage error.\n";

static void print_params(FILE *f)
{
	size_t n;
	const fs_param_range *r = fs_param_ranges(&n);
	fprintf(f, "\nparameters (--param KEY=VALUE):\n"
		   "  method                  auto, log, dog, ellipse, lattice\n"
		   "  neighbor_graph          delaunay, gabriel, rng\n"
		   "  cull_long_edges         true or false\n");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "  %-23s %g..%g (default %g) %s\n", r[i].name, r[i].min, r[i].max,
			r[i].default_value, r[i].help ? r[i].help : "");
	/* which belong to which method (params.c's table): the others are
	 * accepted but change nothing under that method */
	fprintf(f, "\nparameters each method uses under the %s rule (the others change nothing):\n",
		fs_measurement_rule_name(fs_measurement_get_rule()));
	for (int m = FS_METHOD_AUTO; m <= FS_METHOD_LATTICE; m++) {
		fprintf(f, "  %-8s", fs_method_name((fs_method)m));
		int col = 10;
		for (size_t i = 0; i < n; i++) {
			if (fs_param_used_by((fs_method)m, r[i].name, NULL) != 1)
				continue;
			int len = (int)strlen(r[i].name) + 1;
			if (col + len > 79) {
				fprintf(f, "\n          ");
				col = 10;
			}
			fprintf(f, " %s", r[i].name);
			col += len;
		}
		fprintf(f, "\n");
	}
	fprintf(f, "  (neighbor_graph and cull_long_edges: every method)\n  not used:\n");
	for (size_t i = 0; i < n; i++) {
		const char *why = NULL;
		for (int m = FS_METHOD_AUTO; m <= FS_METHOD_LATTICE && !why; m++)
			if (fs_param_used_by((fs_method)m, r[i].name, &why) == 0 && why && !*why)
				why = NULL;
		if (why)
			fprintf(f, "    %-21s %s\n", r[i].name, why);
	}
	size_t np;
	const fs_profile *p = fs_profiles(&np);
	fprintf(f, "\nprofiles (--profile NAME):\n");
	for (size_t i = 0; i < np; i++)
		fprintf(f, "  %-23s %s\n", p[i].name, p[i].description ? p[i].description : "");
	fprintf(f, "\nEvery profile but default keeps the original tool's method (log) and its\n"
		   "values. With auto (the default) lepisosteus, atractosteus, polypterus and\n"
		   "scanned-pdf are unnecessary (they only move the um size window, which auto\n"
		   "does not use), and so is high-contrast (auto smooths at its pitch-derived\n"
		   "scale). paralepidosteus still brings its calibration and low-contrast its\n"
		   "top-hat (--param tophat_radius=12 with auto).\n");
}

struct options {
	fs_params params;
	double calibration;      /* 0 = not given */
	int calibration_auto;    /* --calibration auto */
	double profile_calibration;
	int json;
	int overlay;
	const char *outdir;
	int tile, threads;
	fs_measurement_rule rule;
};

/* Writes data to dir/name through a temporary file and rename(). */
static int write_file(const char *dir, const char *name, const void *data, size_t len, char *err,
		      size_t errlen)
{
	char path[4096], tmp[4096];
	int fd = -1, rc = -1;

	if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path ||
	    (size_t)snprintf(tmp, sizeof tmp, "%s/.%s.XXXXXX", dir, name) >= sizeof tmp) {
		snprintf(err, errlen, "output path too long");
		return -1;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create %.300s: %s", path, strerror(errno));
		return -1;
	}
	const char *p = data;
	size_t left = len;
	while (left) {
		ssize_t w = write(fd, p, left);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			snprintf(err, errlen, "cannot write %.300s: %s", path, strerror(errno));
			goto out;
		}
		p += w;
		left -= (size_t)w;
	}
	if (fchmod(fd, 0644) || close(fd)) {
		fd = -1;
		snprintf(err, errlen, "cannot write %.300s: %s", path, strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp, path)) {
		snprintf(err, errlen, "cannot rename into %.300s: %s", path, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (rc)
		unlink(tmp);
	return rc;
}

/* File name without directory and last extension, made unique in this run. */
static void make_stem(const char *path, char *stem, size_t n, char **used, size_t n_used)
{
	char copy[4096];
	snprintf(copy, sizeof copy, "%s", path);
	char base[1024];
	snprintf(base, sizeof base, "%s", basename(copy));
	char *dot = strrchr(base, '.');
	if (dot && dot != base)
		*dot = 0;
	snprintf(stem, n, "%s", base);
	for (int k = 2;; k++) {
		int clash = 0;
		for (size_t i = 0; i < n_used; i++)
			if (!strcmp(used[i], stem))
				clash = 1;
		if (!clash)
			return;
		snprintf(stem, n, "%s_%d", base, k);
	}
}

struct measured {
	fs_stats stats;
	int calibrated;
};

struct region_job {
	const fs_image *img;
	fs_scale_region *region;
	int rc;
	char err[256];
	int threaded; /* found in thread th, not yet joined */
	pthread_t th;
};

static void *region_thread(void *arg)
{
	struct region_job *j = arg;
	j->rc = fs_scale_region_detect(j->img, j->region, j->err, sizeof j->err);
	return NULL;
}

/* The detection's scale region (fs_region_src): the thread's, once it is
 * done, or the one found before detection. */
static int region_get(void *ctx, const fs_scale_region **region, char *err, size_t errlen)
{
	struct region_job *j = ctx;
	if (j->threaded) {
		pthread_join(j->th, NULL);
		j->threaded = 0;
	}
	if (j->rc) {
		snprintf(err, errlen, "%s", j->err);
		return -1;
	}
	*region = j->region;
	return 0;
}

/* The scale region and the detection (as fs_detect_in_region: the
 * detection asks for the region once its centres are final, drops what
 * lies outside it, then sizes the rest under the dome rule); with more
 * than one thread the region is found in a second thread meanwhile. */
static int find_region_and_detect(const struct options *o, const fs_image *img, double um_per_px,
				  fs_scale_region *region, fs_detect_result *det, char *err, size_t errlen)
{
	struct region_job j = {.img = img, .region = region, .rc = -1};
	j.threaded = o->threads > 1 && pthread_create(&j.th, NULL, region_thread, &j) == 0;
	/* in one thread the region first, as before detection's buffers */
	if (!j.threaded)
		region_thread(&j);
	fs_region_src src = {region_get, &j};
	int rc = fs_detect_rule_region(img, &o->params, um_per_px, o->rule, &src, det, err, errlen);
	if (j.threaded) /* detection failed before it asked */
		pthread_join(j.th, NULL);
	return rc;
}

/* <stem>_tubercles.csv from t through the caller's buffer b (left reset). */
static int tubercles_file(const char *outdir, const char *stem, const fs_tubercle_list *t, double um, fs_buf *b,
			  char *err, size_t errlen)
{
	char name[1200];
	fs_buf_reset(b);
	if (fs_csv_tubercles(b, t, um)) {
		snprintf(err, errlen, "out of memory writing the results");
		return -1;
	}
	snprintf(name, sizeof name, "%s_tubercles.csv", stem);
	int rc = write_file(outdir, name, b->data, b->len, err, errlen);
	fs_buf_reset(b);
	return rc;
}

/* <stem>_edges.csv, made and written apart from the rest (edges_thread). */
struct edges_job {
	const fs_tubercle_list *t;
	const fs_edge_list *e;
	double um;
	const char *outdir, *stem;
	int rc;
	char err[512];
};

static void *edges_thread(void *arg)
{
	struct edges_job *j = arg;
	fs_buf b = FS_BUF_INIT;
	char name[1200];
	if (fs_csv_edges(&b, j->t, j->e, j->um)) {
		snprintf(j->err, sizeof j->err, "out of memory writing the results");
	} else {
		snprintf(name, sizeof name, "%s_edges.csv", j->stem);
		j->rc = write_file(j->outdir, name, b.data, b.len, j->err, sizeof j->err);
	}
	fs_buf_free(&b);
	return NULL;
}

/* <stem>_tubercles.csv made and written in a third thread (tub_thread). */
struct tub_job {
	const fs_tubercle_list *t;
	double um;
	const char *outdir, *stem;
	int rc;
	char err[512];
};

static void *tub_thread(void *arg)
{
	struct tub_job *j = arg;
	fs_buf b = FS_BUF_INIT;
	j->rc = tubercles_file(j->outdir, j->stem, j->t, j->um, &b, j->err, sizeof j->err);
	fs_buf_free(&b);
	return NULL;
}

static int measure_one(const struct options *o, const char *path, const char *stem,
		       struct measured *m, char *err, size_t errlen)
{
	fs_loaded ld;
	fs_detect_result det;
	fs_scale_region region = {0};
	fs_edge_list edges = {0};
	fs_buf b = FS_BUF_INIT;
	char name[1200];
	int rc = -1;

	memset(&ld, 0, sizeof ld);
	memset(&det, 0, sizeof det);
	/* compact (image.h): the scale region, the detection and the
	 * statistics read a compact image by row bands and tiles, the data-bar
	 * reader (--calibration auto) sample by sample, all with the float
	 * image's results */
	fs_load_opts lo = {.compact = 1};
	if (fs_load_file(path, &lo, &ld, err, errlen))
		return -1;
	double cal = o->calibration > 0 ? o->calibration : o->profile_calibration;
	if (!(cal > 0) && ld.suggested_um_per_px > 0 &&
	    !strncmp(ld.calibration_source, "sem-metadata", 12))
		cal = ld.suggested_um_per_px;
	if (o->calibration_auto && !(o->calibration > 0) && cal == ld.suggested_um_per_px && cal > 0) {
		fprintf(stderr, "%s: calibration %.6g um/px from the file's metadata (%s)\n", path, cal,
			ld.calibration_source);
	} else if (o->calibration_auto) {
		fs_databar_suggestion sg;
		if (fs_databar_suggest(ld.image, &sg, err, errlen))
			goto out;
		if (sg.auto_ok) {
			cal = sg.reading.um_per_px;
			fprintf(stderr, "%s: calibration %.6g um/px from the data bar (%s, confidence %.2f)\n", path,
				cal, sg.reading.source, sg.reading.confidence);
		} else {
			fprintf(stderr, "%s: no automatic calibration: %s\n", path,
				!sg.reading.found ? "no data bar and no metadata"
				: !sg.reading.has_scale ? sg.reading.reason
				: sg.pitch_out_of_range ? "the data bar's scale gives a lattice pitch outside 4-15 um"
							: "the data bar's reading is not confident enough");
			if (sg.reading.has_scale)
				fprintf(stderr, "%s: the data bar suggests %.6g um/px (%s, confidence %.2f)\n", path,
					sg.reading.um_per_px, sg.reading.source, sg.reading.confidence);
		}
	}
	m->calibrated = cal > 0;
	if (find_region_and_detect(o, ld.image, m->calibrated ? cal : 0, &region, &det, err, errlen))
		goto out;
	/* Only the overlay reads the pixels after the detection: without it
	 * the image goes now, before the graph and the files (100 MB of a
	 * 100 MP 8-bit image, which the edges' CSV made beside the rest
	 * otherwise adds to the peak). */
	int width = ld.image->width, height = ld.image->height;
	if (!o->overlay)
		fs_loaded_free(&ld);
	if (fs_graph_build(&det.tubercles, o->params.neighbor_graph, o->params.cull_long_edges,
			   o->params.cull_factor, &edges, err, errlen))
		goto out;
	/* tubercles at the scale region's inner edge are boundary ones too */
	fs_scale_region_mark_boundary(&region, &det.tubercles, region.cell);
	double um = m->calibrated ? cal : 1.0;
	/* the edges' CSV (the largest file) and the tubercles' are made and
	 * written in a second and a third thread meanwhile (the three take
	 * about the same time on 100 MP: on two cores the tail is then about
	 * half of their sum, not the statistics and the tubercles' CSV one
	 * after the other): the statistics and both CSVs read the same lists,
	 * none of the three writes to them */
	struct edges_job ej = {&det.tubercles, &edges, um, o->outdir, stem, -1, ""};
	struct tub_job tj = {&det.tubercles, um, o->outdir, stem, -1, ""};
	pthread_t eth, tth;
	int ethreaded = o->threads > 1 && pthread_create(&eth, NULL, edges_thread, &ej) == 0;
	int tthreaded = o->threads > 1 && pthread_create(&tth, NULL, tub_thread, &tj) == 0;
	int src = fs_stats_compute(&det.tubercles, &edges, um, NULL, width, height, &m->stats);
	if (tthreaded)
		pthread_join(tth, NULL);
	else if (!src)
		tub_thread(&tj);
	if (ethreaded)
		pthread_join(eth, NULL);
	else if (!src && !tj.rc)
		edges_thread(&ej);
	if (src) {
		snprintf(err, errlen, "out of memory computing statistics");
		goto out;
	}
	if (tj.rc) {
		snprintf(err, errlen, "%s", tj.err);
		goto out;
	}
	if (ej.rc) {
		snprintf(err, errlen, "%s", ej.err);
		goto out;
	}
	if (!m->calibrated) {
		/* the published ranges are in µm: pixels would give a bogus genus */
		m->stats.suggested_genus = "Unknown";
		m->stats.classification_confidence = "none";
	}
	fs_buf_reset(&b);
	if (o->json) {
		cJSON *j = fs_json_summary(path, &m->stats, m->calibrated, (int)o->rule);
		char *s = j ? cJSON_Print(j) : NULL;
		cJSON_Delete(j);
		if (!s || fs_buf_puts(&b, s) || fs_buf_putc(&b, '\n')) {
			cJSON_free(s);
			goto oom;
		}
		cJSON_free(s);
		snprintf(name, sizeof name, "%s_summary.json", stem);
	} else {
		if (fs_csv_summary_header(&b) || fs_csv_summary_row(&b, path, &m->stats, m->calibrated, (int)o->rule))
			goto oom;
		snprintf(name, sizeof name, "%s_summary.csv", stem);
	}
	if (write_file(o->outdir, name, b.data, b.len, err, errlen))
		goto out;
	if (o->overlay) {
		fs_render_opts ro;
		unsigned char *png = NULL;
		size_t len = 0;
		fs_render_opts_default(&ro);
		ro.um_per_px = m->calibrated ? cal : 0;
		if (fs_render_png(ld.image, &det.tubercles, &edges, &ro, &png, &len, NULL, err, errlen))
			goto out;
		snprintf(name, sizeof name, "%s_overlay.png", stem);
		int w = write_file(o->outdir, name, png, len, err, errlen);
		free(png);
		if (w)
			goto out;
	}
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "out of memory writing the results");
out:
	fs_buf_free(&b);
	fs_edge_list_free(&edges);
	fs_detect_result_free(&det);
	fs_scale_region_free(&region);
	fs_loaded_free(&ld);
	return rc;
}

static void progress(int done, int total, const char *name)
{
	int width = 30, fill = total ? done * width / total : width;
	fprintf(stderr, "\r[");
	for (int i = 0; i < width; i++)
		fputc(i < fill ? '#' : ' ', stderr);
	fprintf(stderr, "] %d/%d %-40.40s", done, total, name ? name : "");
	fflush(stderr);
}

static int parse_args(int argc, char **argv, struct options *o, int *first)
{
	static const struct option longopts[] = {
		{"profile", required_argument, NULL, 'p'},
		{"calibration", required_argument, NULL, 'c'},
		{"param", required_argument, NULL, 'P'},
		{"format", required_argument, NULL, 'f'},
		{"overlay", no_argument, NULL, 'O'},
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{"tile", required_argument, NULL, 'T'},
		{"threads", required_argument, NULL, 'N'},
		{"rule", required_argument, NULL, 'R'},
		{NULL, 0, NULL, 0},
	};
	const char *profile = NULL;
	char err[256];
	char *params[256];
	int n_params = 0, c;

	memset(o, 0, sizeof *o);
	o->outdir = ".";
	o->tile = FS_DETECT_TILE_DEFAULT;
	o->threads = 2; /* the CLI may use both cores (issue 15) */
	/* the server's configuration key by its environment override, so a
	 * site measuring with one rule measures its batches alike */
	const char *rule = getenv("FISHSCALE_MEASUREMENT_RULE");
	if (fs_measurement_rule_parse(rule ? rule : "", &o->rule)) {
		fprintf(stderr, "fishscale measure: FISHSCALE_MEASUREMENT_RULE must be outline or dome, got '%s'\n",
			rule);
		return 2;
	}
	optind = 0; /* GNU: full re-initialisation, argv[0] is "measure" */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			profile = optarg;
			break;
		case 'c': {
			if (!strcmp(optarg, "auto")) {
				o->calibration_auto = 1;
				break;
			}
			char *end;
			errno = 0;
			double v = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(fs_calibration_direct(v) > 0)) {
				fprintf(stderr, "fishscale measure: --calibration needs a positive number "
						"of um per pixel, got '%s'\n", optarg);
				return 2;
			}
			o->calibration = v;
			break;
		}
		case 'P':
			if (n_params == (int)(sizeof params / sizeof params[0])) {
				fprintf(stderr, "fishscale measure: too many --param options\n");
				return 2;
			}
			params[n_params++] = optarg;
			break;
		case 'f':
			if (!strcmp(optarg, "json"))
				o->json = 1;
			else if (strcmp(optarg, "csv")) {
				fprintf(stderr, "fishscale measure: --format must be csv or json\n");
				return 2;
			}
			break;
		case 'O':
			o->overlay = 1;
			break;
		case 'R':
			if (!*optarg || fs_measurement_rule_parse(optarg, &o->rule)) {
				fprintf(stderr, "fishscale measure: --rule must be outline or dome, got '%s'\n", optarg);
				return 2;
			}
			break;
		case 'o':
			o->outdir = optarg;
			break;
		case 'T':
		case 'N': {
			char *end;
			errno = 0;
			long v = strtol(optarg, &end, 10);
			int bad = errno || end == optarg || *end ||
				  (c == 'T' ? v < 0 || v > 1000000 || (v > 0 && v < 16) : v < 1 || v > 8);
			if (bad) {
				fprintf(stderr, "fishscale measure: --%s needs %s, got '%s'\n",
					c == 'T' ? "tile" : "threads",
					c == 'T' ? "0 or a side of 16 pixels or more" : "a number from 1 to 8", optarg);
				return 2;
			}
			if (c == 'T')
				o->tile = (int)v;
			else
				o->threads = (int)v;
			break;
		}
		case 'h':
			/* which parameters a method uses depends on the rule
			 * (params.h): the one chosen so far (--rule before
			 * --help, else the environment's or the build's) */
			fs_measurement_set_rule(o->rule);
			/* the build's default named from the one constant that
			 * chooses it (measurement.h), so the text follows a
			 * change of the default */
			printf(help_text, fs_measurement_rule_name(FS_MEASUREMENT_RULE_DEFAULT));
			print_params(stdout);
			return -1;
		default:
			fprintf(stderr, "fishscale measure: unknown or incomplete option '%s' "
					"(see --help)\n", argv[optind - 1]);
			return 2;
		}
	}
	if (profile) {
		const fs_profile *p = fs_profile_find(profile);
		if (!p) {
			fprintf(stderr, "fishscale measure: unknown profile '%s' (see --help)\n", profile);
			return 2;
		}
		o->params = p->params;
		o->profile_calibration = p->calibration_um_per_px;
	} else {
		fs_params_default(&o->params);
	}
	for (int i = 0; i < n_params; i++) {
		char key[128];
		char *eq = strchr(params[i], '=');
		if (!eq || eq == params[i] || (size_t)(eq - params[i]) >= sizeof key) {
			fprintf(stderr, "fishscale measure: --param needs KEY=VALUE, got '%s'\n",
				params[i]);
			return 2;
		}
		memcpy(key, params[i], (size_t)(eq - params[i]));
		key[eq - params[i]] = 0;
		if (fs_params_set(&o->params, key, eq + 1, err, sizeof err)) {
			fprintf(stderr, "fishscale measure: --param %s: %s\n", params[i], err);
			return 2;
		}
	}
	if (fs_params_validate(&o->params, err, sizeof err)) {
		fprintf(stderr, "fishscale measure: %s\n", err);
		return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "fishscale measure: no image given (see --help)\n");
		return 2;
	}
	*first = optind;
	return 0;
}

static int write_combined(const struct options *o, char **paths, struct measured *res,
			  const int *ok, int n, char *err, size_t errlen)
{
	fs_buf b = FS_BUF_INIT;
	int rc = -1;

	if (o->json) {
		cJSON *root = cJSON_CreateObject();
		cJSON *arr = root ? cJSON_AddArrayToObject(root, "images") : NULL;
		for (int i = 0; arr && i < n; i++) {
			if (!ok[i])
				continue;
			cJSON *j = fs_json_summary(paths[i], &res[i].stats, res[i].calibrated, (int)o->rule);
			if (!j) {
				arr = NULL;
				break;
			}
			cJSON_AddItemToArray(arr, j);
		}
		char *s = arr ? cJSON_Print(root) : NULL;
		cJSON_Delete(root);
		if (!s || fs_buf_puts(&b, s) || fs_buf_putc(&b, '\n')) {
			cJSON_free(s);
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		cJSON_free(s);
	} else {
		if (fs_csv_summary_header(&b))
			goto oom;
		for (int i = 0; i < n; i++)
			if (ok[i] && fs_csv_summary_row(&b, paths[i], &res[i].stats, res[i].calibrated, (int)o->rule))
				goto oom;
	}
	rc = write_file(o->outdir, o->json ? "summary.json" : "summary.csv", b.data, b.len, err,
			errlen);
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
out:
	fs_buf_free(&b);
	return rc;
}

int fs_cli_measure(int argc, char **argv)
{
	struct options o;
	int first = 0, failed = 0;
	char err[512];

	int rc = parse_args(argc, argv, &o, &first);
	if (rc)
		return rc < 0 ? 0 : rc;
	fs_detect_set_tiling(o.tile, o.threads);
	fs_measurement_set_rule(o.rule);
	if (mkdir(o.outdir, 0755) && errno != EEXIST) {
		fprintf(stderr, "fishscale measure: cannot create %s: %s\n", o.outdir, strerror(errno));
		return 1;
	}
	int n = argc - first;
	char **paths = argv + first;
	struct measured *res = calloc((size_t)n, sizeof *res);
	int *ok = calloc((size_t)n, sizeof *ok);
	char **stems = calloc((size_t)n, sizeof *stems);
	if (!res || !ok || !stems) {
		fprintf(stderr, "fishscale measure: out of memory\n");
		free(res);
		free(ok);
		free(stems);
		return 1;
	}
	int tty = isatty(STDERR_FILENO);
	for (int i = 0; i < n; i++) {
		char stem[1100];
		if (tty)
			progress(i, n, paths[i]);
		make_stem(paths[i], stem, sizeof stem, stems, (size_t)i);
		stems[i] = strdup(stem);
		if (!stems[i] || measure_one(&o, paths[i], stem, &res[i], err, sizeof err)) {
			if (tty)
				fputc('\n', stderr);
			fprintf(stderr, "fishscale measure: %s: %s\n", paths[i],
				stems[i] ? err : "out of memory");
			failed++;
			continue;
		}
		ok[i] = 1;
	}
	if (tty) {
		progress(n, n, "done");
		fputc('\n', stderr);
	}
	if (n > 1 && write_combined(&o, paths, res, ok, n, err, sizeof err)) {
		fprintf(stderr, "fishscale measure: summary: %s\n", err);
		failed++;
	}
	for (int i = 0; i < n; i++)
		free(stems[i]);
	free(stems);
	free(res);
	free(ok);
	fs_databar_ocr_shutdown();
	return failed ? 1 : 0;
}
