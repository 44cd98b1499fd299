/*
 * cli_chart.c - `fishscale chart`: the Compare chart (analysis/compare_chart.h)
 * from the per-image CSVs that `fishscale measure` writes, as SVG, PNG or
 * the table as CSV. See the help text below.
 *
 * Each input is a <stem>_tubercles.csv; the statistics are recomputed from
 * it and its <stem>_edges.csv (the same function as measure, so the numbers
 * agree), and the calibration comes from <stem>_summary.csv or .json.
 */
#include "cli/cli_chart.h"
#include "cli/csv_read.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cJSON.h>

#include "base/base.h"
#include "analysis/analysis.h"
#include "analysis/compare_chart.h"
#include "image/drawing.h"
#include "store/store.h"

static const char help_text[] =
	"usage: fishscale chart [OPTIONS] [--group LABEL=FILE]... [TUBERCLES.csv]... -o OUT\n"
	"\n"
	"Draws the Compare chart of the sets that `fishscale measure` wrote: mean tubercle\n"
	"diameter against mean intertubercular space (mean +/- SD per file, each group's\n"
	"mean, the published genus ranges and species of conf/reference.conf behind\n"
	"them), the fill ratio and hexagonalness of every file (uncalibrated ones only\n"
	"there), and each file's distributions of diameters and spaces.\n"
	"\n"
	"Each input is a <stem>_tubercles.csv. Beside it the chart reads:\n"
	"  <stem>_edges.csv        the connections (spaces, hexagonalness); without it\n"
	"                          the Gabriel graph of the centroids is used (a note says so)\n"
	"  <stem>_summary.csv/.json  the calibration (calibrated or uncalibrated); without\n"
	"                          it the um and px columns decide: equal means uncalibrated\n"
	"The statistics are recomputed from those files with measure's conventions.\n"
	"\n"
	"options:\n"
	"  --group LABEL=FILE      FILE belongs to group LABEL (specimen, species, ...);\n"
	"                          repeatable; FILE need not be listed again\n"
	"  -o FILE, --output FILE  chart.svg or chart.png (by the extension), or a .csv\n"
	"                          for the table (n, D +/- SD, S +/- SD, fill ratio,\n"
	"                          hexagonalness, genus, one row per file and per group mean)\n"
	"  --parts LIST            main, ratio, dist, comma-separated (default: all three)\n"
	"  --scale S               PNG pixels per SVG unit, 0.5..4 (default 2)\n"
	"  --title TEXT            a title above the charts\n"
	"  -h, --help              this text\n"
	"\n"
	"Exit status: 0 written, 1 an input could not be read (nothing written),\n"
	"2 usage error.\n";

struct input {
	char path[4096];
	char stem[512];
	char group[128];
	fs_tubercle_list t;
	fs_edge_list e;
	double um;
	int calibrated;
	fs_stats st;
	double *d, *s;
	size_t nd, ns;
};

static int read_tubercles(struct input *in, double *um_ratio, char *err, size_t errlen)
{
	fs_csv_reader c;
	int n, rc = -1;
	int c_id, c_x, c_y, c_r, c_dpx, c_dum, c_b;
	double ratio_sum = 0;
	size_t ratio_n = 0;
	if (fs_csv_open(&c, in->path, err, errlen))
		goto out;
	c_id = fs_csv_column(&c, "id");
	c_x = fs_csv_column(&c, "centroid_x");
	c_y = fs_csv_column(&c, "centroid_y");
	c_r = fs_csv_column(&c, "radius_px");
	c_dpx = fs_csv_column(&c, "diameter_px");
	c_dum = fs_csv_column(&c, "diameter_um");
	c_b = fs_csv_column(&c, "is_boundary");
	if (c_id < 0 || c_x < 0 || c_y < 0 || (c_r < 0 && c_dpx < 0)) {
		snprintf(err, errlen,
			 "%s: not a tubercles CSV of fishscale measure (needs id, centroid_x, centroid_y and "
			 "radius_px or diameter_px)",
			 in->path);
		goto out;
	}
	char *v[FS_CSV_MAX_COLS];
	while ((n = fs_csv_next(&c, v)) >= 0) {
		if (!n)
			continue;
		fs_tubercle t;
		memset(&t, 0, sizeof t);
		double id, x, y, r;
		if (n <= c_id || n <= c_x || n <= c_y || fs_csv_num(v[c_id], &id) || fs_csv_num(v[c_x], &x) ||
		    fs_csv_num(v[c_y], &y) || id != floor(id) || id < 0 || id > 2147483647) {
			snprintf(err, errlen, "%.300s: line %d: bad id or centroid", in->path, c.ln);
			goto out;
		}
		if (c_r >= 0 && n > c_r && !fs_csv_num(v[c_r], &r))
			;
		else if (c_dpx >= 0 && n > c_dpx && !fs_csv_num(v[c_dpx], &r))
			r /= 2;
		else
			r = NAN; /* a tubercle without a diameter keeps its place */
		double dum;
		if (c_dum >= 0 && n > c_dum && isfinite(r) && r > 0 && !fs_csv_num(v[c_dum], &dum)) {
			ratio_sum += dum / (2 * r);
			ratio_n++;
		}
		t.id = (int)id;
		t.centroid_x = x;
		t.centroid_y = y;
		t.radius_px = r;
		t.circularity = 1;
		t.is_boundary = c_b >= 0 && n > c_b && !strcmp(v[c_b], "1");
		if (fs_tubercle_list_append(&in->t, &t)) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
	}
	*um_ratio = ratio_n ? ratio_sum / ratio_n : 0;
	rc = 0;
out:
	fs_csv_close(&c);
	return rc;
}

/* The edges CSV beside the tubercles: 1 read, 0 absent, -1 error. */
static int read_edges(struct input *in, const char *path, char *err, size_t errlen)
{
	fs_csv_reader c;
	int n, rc = -1;
	if (fs_csv_open(&c, path, err, errlen)) {
		if (c.open_errno == ENOENT)
			rc = 0;
		goto out;
	}
	int c1 = fs_csv_column(&c, "id1"), c2 = fs_csv_column(&c, "id2");
	if (c1 < 0 || c2 < 0) {
		snprintf(err, errlen, "%.300s: not an edges CSV (needs id1 and id2)", path);
		goto out;
	}
	char *v[FS_CSV_MAX_COLS];
	while ((n = fs_csv_next(&c, v)) >= 0) {
		if (!n)
			continue;
		double a, b;
		if (n <= c1 || n <= c2 || fs_csv_num(v[c1], &a) || fs_csv_num(v[c2], &b) || a < 0 || b < 0 ||
		    a > 2147483647 || b > 2147483647) {
			snprintf(err, errlen, "%.300s: line %d: bad id1 or id2", path, c.ln);
			goto out;
		}
		fs_edge e = {(int)a, (int)b};
		if (fs_edge_list_append(&in->e, &e)) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
	}
	rc = 1;
out:
	fs_csv_close(&c);
	return rc;
}

/* The calibration from the summary beside the tubercles: 1 found, 0 absent, -1 error. */
static int read_summary(struct input *in, const char *base, char *err, size_t errlen)
{
	char path[4200];
	snprintf(path, sizeof path, "%s_summary.json", base);
	FILE *f = fopen(path, "r");
	if (f) {
		fs_buf b = FS_BUF_INIT;
		char chunk[4096];
		size_t k;
		while ((k = fread(chunk, 1, sizeof chunk, f)) > 0)
			if (fs_buf_append(&b, chunk, k)) {
				fclose(f);
				fs_buf_free(&b);
				snprintf(err, errlen, "out of memory");
				return -1;
			}
		fclose(f);
		cJSON *j = b.data ? cJSON_Parse(b.data) : NULL;
		fs_buf_free(&b);
		const cJSON *st = cJSON_GetObjectItem(j, "calibration_status");
		const cJSON *um = cJSON_GetObjectItem(j, "calibration_um_per_px");
		int ok = cJSON_IsString(st) && cJSON_IsNumber(um);
		if (ok) {
			in->calibrated = !strcmp(st->valuestring, "calibrated");
			in->um = um->valuedouble;
		}
		cJSON_Delete(j);
		if (!ok) {
			snprintf(err, errlen, "%.300s: no calibration_status / calibration_um_per_px", path);
			return -1;
		}
		return 1;
	}
	snprintf(path, sizeof path, "%s_summary.csv", base);
	fs_csv_reader c;
	char *v[FS_CSV_MAX_COLS];
	int rc = -1;
	if (fs_csv_open(&c, path, err, errlen)) {
		if (c.open_errno)
			rc = 0;
		goto bad;
	}
	int cs = fs_csv_column(&c, "calibration_status"), cu = fs_csv_column(&c, "calibration_um_per_px");
	/* the first line after the header, even an empty one, is the row */
	int n = cs < 0 || cu < 0 ? -1 : fs_csv_next(&c, v);
	if (n <= cs || n <= cu || fs_csv_num(v[cu], &in->um))
		goto bad;
	in->calibrated = !strcmp(v[cs], "calibrated");
	rc = 1;
bad:
	if (rc < 0)
		snprintf(err, errlen, "%.300s: no calibration_status / calibration_um_per_px row", path);
	fs_csv_close(&c);
	return rc;
}

static int load_input(struct input *in, char *err, size_t errlen)
{
	const char *slash = strrchr(in->path, '/');
	const char *name = slash ? slash + 1 : in->path;
	size_t len = strlen(in->path);
	const char *suffix = "_tubercles.csv";
	size_t sl = strlen(suffix);
	if (len <= sl || strcmp(in->path + len - sl, suffix)) {
		snprintf(err, errlen, "%.300s: expected a <stem>_tubercles.csv written by fishscale measure", in->path);
		return -1;
	}
	snprintf(in->stem, sizeof in->stem, "%.*s", (int)(strlen(name) - sl), name);
	char base[4096];
	snprintf(base, sizeof base, "%.*s", (int)(len - sl), in->path);
	double ratio = 0;
	if (read_tubercles(in, &ratio, err, errlen))
		return -1;
	char edges[4200];
	snprintf(edges, sizeof edges, "%s_edges.csv", base);
	int have_edges = read_edges(in, edges, err, errlen);
	if (have_edges < 0)
		return -1;
	int have_summary = read_summary(in, base, err, errlen);
	if (have_summary < 0)
		return -1;
	if (!have_summary) {
		in->um = ratio > 0 ? ratio : 1;
		in->calibrated = ratio > 0 && fabs(ratio - 1) > 1e-9;
		fprintf(stderr, "fishscale chart: %s: no summary beside it: %s (%.6g um/px from its columns)\n",
			in->path, in->calibrated ? "calibrated" : "uncalibrated", in->um);
	}
	if (!(in->um > 0))
		in->um = 1, in->calibrated = 0;
	if (!have_edges) {
		char gerr[256];
		fs_params defaults;
		fs_params_default(&defaults);
		if (fs_graph_build(&in->t, FS_GRAPH_GABRIEL, 1, defaults.cull_factor, &in->e, gerr, sizeof gerr)) {
			snprintf(err, errlen, "%.200s: neighbour graph: %.200s", in->path, gerr);
			return -1;
		}
		fprintf(stderr, "fishscale chart: %s: no %s: using the Gabriel graph of the centroids\n", in->path,
			edges);
	}
	if (fs_stats_compute(&in->t, &in->e, in->um, NULL, 0, 0, &in->st) ||
	    fs_chart_samples(&in->t, &in->e, in->um, &in->d, &in->nd, &in->s, &in->ns)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

static int write_out(const char *path, const void *data, size_t len, char *err, size_t errlen)
{
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
	FILE *f = fopen(tmp, "wb");
	if (!f) {
		snprintf(err, errlen, "cannot write %.300s: %s", path, strerror(errno));
		return -1;
	}
	int ok = fwrite(data, 1, len, f) == len;
	ok = !fclose(f) && ok;
	if (!ok || rename(tmp, path)) {
		snprintf(err, errlen, "cannot write %.300s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

static int parse_parts(const char *s)
{
	int parts = 0;
	char buf[128];
	snprintf(buf, sizeof buf, "%s", s);
	for (char *save = NULL, *p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		if (!strcmp(p, "main"))
			parts |= FS_CHART_MAIN;
		else if (!strcmp(p, "ratio"))
			parts |= FS_CHART_RATIO;
		else if (!strcmp(p, "dist"))
			parts |= FS_CHART_DIST;
		else
			return 0;
	}
	return parts;
}

static int add_input(struct input **ins, size_t *n, const char *path, const char *group)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*ins)[i].path, path)) {
			if (group)
				snprintf((*ins)[i].group, sizeof (*ins)[i].group, "%s", group);
			return 0;
		}
	struct input *p = realloc(*ins, (*n + 1) * sizeof *p);
	if (!p)
		return -1;
	*ins = p;
	memset(&p[*n], 0, sizeof p[*n]);
	snprintf(p[*n].path, sizeof p[*n].path, "%s", path);
	if (group)
		snprintf(p[*n].group, sizeof p[*n].group, "%s", group);
	(*n)++;
	return 0;
}

int fs_cli_chart(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"group", required_argument, NULL, 'g'}, {"output", required_argument, NULL, 'o'},
		{"parts", required_argument, NULL, 'p'}, {"scale", required_argument, NULL, 's'},
		{"title", required_argument, NULL, 't'}, {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct input *ins = NULL;
	size_t n = 0;
	const char *out = NULL, *title = NULL;
	int parts = FS_CHART_ALL, status = 2;
	double scale = 2;
	char err[512];
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'g': {
			const char *eq = strchr(optarg, '=');
			if (!eq || eq == optarg || !eq[1]) {
				fprintf(stderr, "fishscale chart: --group needs LABEL=FILE\n");
				goto done;
			}
			char label[128];
			snprintf(label, sizeof label, "%.*s", (int)(eq - optarg), optarg);
			if (add_input(&ins, &n, eq + 1, label))
				goto oom;
			break;
		}
		case 'o':
			out = optarg;
			break;
		case 'p':
			parts = parse_parts(optarg);
			if (!parts) {
				fprintf(stderr, "fishscale chart: --parts takes main, ratio, dist (comma-separated)\n");
				goto done;
			}
			break;
		case 's': {
			char *end;
			scale = strtod(optarg, &end);
			if (*end || !(scale >= 0.5 && scale <= 4)) {
				fprintf(stderr, "fishscale chart: --scale must be a number from 0.5 to 4\n");
				goto done;
			}
			break;
		}
		case 't':
			title = optarg;
			break;
		case 'h':
			fputs(help_text, stdout);
			status = 0;
			goto done;
		default:
			fputs(help_text, stderr);
			goto done;
		}
	}
	for (int i = optind; i < argc; i++)
		if (add_input(&ins, &n, argv[i], NULL))
			goto oom;
	const char *ext = out ? strrchr(out, '.') : NULL;
	int kind = !ext ? 0 : !strcasecmp(ext, ".svg") ? 1 : !strcasecmp(ext, ".png") ? 2 : !strcasecmp(ext, ".csv") ? 3 : 0;
	if (!out || !kind) {
		fprintf(stderr, "fishscale chart: -o FILE.svg, FILE.png or FILE.csv is required\n");
		goto done;
	}
	if (!n) {
		fprintf(stderr, "fishscale chart: no input (TUBERCLES.csv or --group LABEL=FILE)\n");
		goto done;
	}
	status = 1;
	fs_chart_set *sets = calloc(n, sizeof *sets);
	if (!sets)
		goto oom;
	for (size_t i = 0; i < n; i++) {
		if (load_input(&ins[i], err, sizeof err)) {
			fprintf(stderr, "fishscale chart: %s\n", err);
			free(sets);
			goto done;
		}
		struct input *in = &ins[i];
		fs_chart_set *s = &sets[i];
		s->id = (long long)i + 1;
		s->name = in->stem;
		s->group = in->group;
		fs_chart_set_fill(s, &in->st, in->calibrated, in->d, in->nd, in->s, in->ns);
	}
	fs_buf b = FS_BUF_INIT;
	unsigned char *png = NULL;
	size_t png_len = 0;
	int rc;
	if (kind == 3) {
		rc = fs_csv_compare(&b, sets, n, NULL);
		if (rc)
			snprintf(err, sizeof err, "out of memory");
		else
			rc = write_out(out, b.data, b.len, err, sizeof err);
	} else {
		fs_chart_input ci = {sets, n, NULL, title};
		fs_drawing *d = fs_chart_draw(&ci, parts, err, sizeof err);
		rc = d ? 0 : -1;
		if (!rc && kind == 1) {
			rc = fs_drawing_svg(d, &b);
			if (rc)
				snprintf(err, sizeof err, "out of memory");
			else
				rc = write_out(out, b.data, b.len, err, sizeof err);
		} else if (!rc) {
			rc = fs_drawing_png(d, scale, NULL, &png, &png_len, err, sizeof err);
			if (!rc)
				rc = write_out(out, png, png_len, err, sizeof err);
		}
		fs_drawing_free(d);
	}
	free(png);
	fs_buf_free(&b);
	free(sets);
	if (rc) {
		fprintf(stderr, "fishscale chart: %s\n", err);
		goto done;
	}
	status = 0;
	goto done;
oom:
	fprintf(stderr, "fishscale chart: out of memory\n");
	status = 1;
done:
	for (size_t i = 0; i < n; i++) {
		fs_tubercle_list_free(&ins[i].t);
		fs_edge_list_free(&ins[i].e);
		free(ins[i].d);
		free(ins[i].s);
	}
	free(ins);
	return status;
}
