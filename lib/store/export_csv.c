/*
 * export_csv.c - CSV / JSON writers (see export_csv.h). The summary's
 * columns are one table shared by the CSV and JSON writers so the two
 * formats can never disagree on names or units.
 */
#include "store/export_csv.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/num_format.h"
#include "analysis/measurement.h"

int fs_csv_field(fs_buf *b, const char *s)
{
	if (!s)
		return 0;
	size_t n = strlen(s);
	/* A spreadsheet runs a cell that starts with one of these as a formula
	 * (OWASP "CSV injection"): a leading ' makes it text. Numbers never come
	 * here (they are printed by the writers), so a negative value stays one. */
	int formula = n && strchr("=+-@\t\r", s[0]);
	int quote = n && (s[0] == ' ' || s[n - 1] == ' ');
	for (size_t i = 0; i < n && !quote; i++)
		quote = s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
	if (!quote)
		return (formula && fs_buf_putc(b, '\'')) || fs_buf_append(b, s, n);
	if (fs_buf_putc(b, '"') || (formula && fs_buf_putc(b, '\'')))
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"' && fs_buf_putc(b, '"'))
			return -1;
		if (fs_buf_putc(b, s[i]))
			return -1;
	}
	return fs_buf_putc(b, '"');
}

/* ",value" with "%.6g", or "," alone for a non-finite value (fs_fmt_g6:
 * printf's text without printf's cost, a million numbers in a large set). */
static int put_num(fs_buf *b, double v)
{
	if (!isfinite(v))
		return fs_buf_putc(b, ',');
	char s[FS_FMT_G6_MAX + 1];
	s[0] = ',';
	int n = fs_fmt_g6(s + 1, v);
	return fs_buf_append(b, s, (size_t)n + 1);
}

/* A row's numbers are laid out in a line on the stack and appended once
 * (issue 15: 72,000 tubercles and 215,000 edges, one fs_buf_append per
 * field was a fifth of the writers' cost). */
#define LINE_FIELDS 16
typedef struct {
	char s[LINE_FIELDS * (FS_FMT_G6_MAX + 1) + 64];
	size_t n;
} line;

/* ",v" as put_num writes it, into the line */
static void line_num(line *l, double v)
{
	l->s[l->n++] = ',';
	if (isfinite(v))
		l->n += (size_t)fs_fmt_g6(l->s + l->n, v);
}

/* ",v,v*um": a pixel length and the same in µm. With um 1 (an uncalibrated
 * image: the µm columns equal the pixels, cli_measure.c) v * 1 is v to the
 * bit, so its text is copied instead of formatted again. */
static void line_px_um(line *l, double v, double um)
{
	size_t at = l->n;
	line_num(l, v);
	if (um == 1.0) {
		size_t len = l->n - at;
		memcpy(l->s + l->n, l->s + at, len);
		l->n += len;
	} else {
		line_num(l, v * um);
	}
}

static void line_int(line *l, long long v)
{
	l->n += (size_t)fs_fmt_int(l->s + l->n, v);
}

static void line_str(line *l, const char *s)
{
	size_t len = strlen(s);
	memcpy(l->s + l->n, s, len);
	l->n += len;
}

int fs_csv_tubercles(fs_buf *b, const fs_tubercle_list *t, double um_per_px)
{
	fs_sink s = fs_sink_buffer(b);
	return fs_csv_tubercles_to(&s, t, um_per_px);
}

int fs_csv_tubercles_to(fs_sink *s, const fs_tubercle_list *t, double um_per_px)
{
	fs_buf *b = s->buf;
	if (fs_buf_puts(b, "id,centroid_x,centroid_y,diameter_px,diameter_um,radius_px,circularity,"
			   "major_axis_px,minor_axis_px,orientation,eccentricity,is_boundary,source,fit_quality\n"))
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		const fs_tubercle *p = &t->items[i];
		line l = {.n = 0};
		line_int(&l, p->id);
		line_num(&l, p->centroid_x);
		line_num(&l, p->centroid_y);
		line_px_um(&l, 2 * p->radius_px, um_per_px);
		line_num(&l, p->radius_px);
		line_num(&l, fs_tubercle_circularity(p)); /* empty: unmeasured */
		if (p->has_ellipse) {
			line_num(&l, p->major_axis_px);
			line_num(&l, p->minor_axis_px);
			line_num(&l, p->orientation);
			line_num(&l, p->eccentricity);
		} else {
			line_str(&l, ",,,,");
		}
		line_str(&l, p->is_boundary ? ",1," : ",0,");
		if (fs_buf_append(b, l.s, l.n) || fs_csv_field(b, fs_source_name(p->source)))
			return -1;
		l.n = 0;
		line_num(&l, p->fit_quality);
		l.s[l.n++] = '\n';
		if (fs_buf_append(b, l.s, l.n) || fs_sink_tick(s))
			return -1;
	}
	return fs_sink_end(s);
}

int fs_csv_edges(fs_buf *b, const fs_tubercle_list *t, const fs_edge_list *e, double um_per_px)
{
	fs_sink s = fs_sink_buffer(b);
	return fs_csv_edges_to(&s, t, e, um_per_px);
}

int fs_csv_edges_to(fs_sink *s, const fs_tubercle_list *t, const fs_edge_list *e, double um_per_px)
{
	fs_buf *b = s->buf;
	if (fs_buf_puts(b, "id1,id2,center_distance_px,center_distance_um,edge_distance_px,"
			   "edge_distance_um\n"))
		return -1;
	fs_tubercle_index *ix = fs_tubercle_index_new(t);
	if (!ix)
		return -1;
	int rc = -1;
	for (size_t i = 0; i < e->n; i++) {
		const fs_edge *ed = &e->items[i];
		int pa = fs_tubercle_index_find(ix, ed->id1), pc = fs_tubercle_index_find(ix, ed->id2);
		const fs_tubercle *a = pa < 0 ? NULL : &t->items[pa], *c = pc < 0 ? NULL : &t->items[pc];
		line l = {.n = 0};
		line_int(&l, ed->id1);
		l.s[l.n++] = ',';
		line_int(&l, ed->id2);
		if (!a || !c) {
			line_str(&l, ",,,,");
		} else {
			double cd = hypot(a->centroid_x - c->centroid_x, a->centroid_y - c->centroid_y);
			line_px_um(&l, cd, um_per_px);
			line_px_um(&l, cd - a->radius_px - c->radius_px, um_per_px);
		}
		l.s[l.n++] = '\n';
		if (fs_buf_append(b, l.s, l.n) || fs_sink_tick(s))
			goto out;
	}
	rc = fs_sink_end(s);
out:
	fs_tubercle_index_free(ix);
	return rc;
}

enum kind { K_INT, K_UM, K_PX, K_NUM, K_STR };

struct column {
	const char *name;
	enum kind kind;
	size_t off; /* into fs_stats; K_PX reads the µm field and divides */
};

#define C(n, k, f) {n, k, offsetof(fs_stats, f)}
static const struct column columns[] = {
	C("n_tubercles", K_INT, n_tubercles),
	C("n_edges", K_INT, n_edges),
	C("n_boundary", K_INT, n_boundary),
	C("n_interior", K_INT, n_interior),
	C("n_unmeasured", K_INT, n_unmeasured),
	C("mean_diameter_um", K_UM, mean_diameter_um),
	C("std_diameter_um", K_UM, std_diameter_um),
	C("min_diameter_um", K_UM, min_diameter_um),
	C("max_diameter_um", K_UM, max_diameter_um),
	C("mean_space_um", K_UM, mean_space_um),
	C("std_space_um", K_UM, std_space_um),
	C("min_space_um", K_UM, min_space_um),
	C("max_space_um", K_UM, max_space_um),
	C("mean_center_distance_um", K_UM, mean_center_distance_um),
	C("mean_diameter_px", K_PX, mean_diameter_um),
	C("std_diameter_px", K_PX, std_diameter_um),
	C("min_diameter_px", K_PX, min_diameter_um),
	C("max_diameter_px", K_PX, max_diameter_um),
	C("mean_space_px", K_PX, mean_space_um),
	C("std_space_px", K_PX, std_space_um),
	C("min_space_px", K_PX, min_space_um),
	C("max_space_px", K_PX, max_space_um),
	C("mean_center_distance_px", K_PX, mean_center_distance_um),
	C("size_pitch_ratio", K_NUM, size_pitch_ratio),
	C("hexagonalness_score", K_NUM, hexagonalness_score),
	C("spacing_uniformity", K_NUM, spacing_uniformity),
	C("degree_score", K_NUM, degree_score),
	C("edge_ratio_score", K_NUM, edge_ratio_score),
	C("spacing_cv", K_NUM, spacing_cv),
	C("mean_degree", K_NUM, mean_degree),
	C("reliability", K_STR, reliability),
	C("coverage_percent", K_NUM, coverage_percent),
	C("suggested_genus", K_STR, suggested_genus),
	C("classification_confidence", K_STR, classification_confidence),
};
#undef C
#define N_COLUMNS (sizeof columns / sizeof columns[0])

static double col_num(const struct column *c, const fs_stats *s)
{
	const char *base = (const char *)s;
	if (c->kind == K_INT)
		return *(const int *)(base + c->off);
	double v = *(const double *)(base + c->off);
	if (c->kind == K_PX)
		return s->um_per_px > 0 ? v / s->um_per_px : NAN;
	return v;
}

static const char *col_str(const struct column *c, const fs_stats *s)
{
	return *(const char *const *)((const char *)s + c->off);
}

/* NULL for version 0 and a version this build does not know */
static const char *rule_of(int measurement_version)
{
	return fs_measurement_rule_name(fs_measurement_rule_of_version(measurement_version));
}

int fs_csv_summary_header(fs_buf *b)
{
	if (fs_buf_puts(b, "image,calibration_status,calibration_um_per_px"))
		return -1;
	for (size_t i = 0; i < N_COLUMNS; i++)
		if (fs_buf_printf(b, ",%s", columns[i].name))
			return -1;
	for (int d = 0; d < FS_DEGREE_HIST_MAX; d++)
		if (fs_buf_printf(b, ",degree_%d", d))
			return -1;
	/* last, so the columns scripts read by position keep their places */
	return fs_buf_printf(b, ",degree_%d_plus,measurement_version,measurement_rule\n", FS_DEGREE_HIST_MAX);
}

int fs_csv_summary_row(fs_buf *b, const char *image, const fs_stats *s, int calibrated, int measurement_version)
{
	if (fs_csv_field(b, image) ||
	    fs_buf_puts(b, calibrated ? ",calibrated" : ",uncalibrated") ||
	    put_num(b, s->um_per_px))
		return -1;
	for (size_t i = 0; i < N_COLUMNS; i++) {
		const struct column *c = &columns[i];
		if (c->kind == K_STR) {
			if (fs_buf_putc(b, ',') || fs_csv_field(b, col_str(c, s)))
				return -1;
		} else if (c->kind == K_INT) {
			if (fs_buf_printf(b, ",%d", (int)col_num(c, s)))
				return -1;
		} else if (put_num(b, col_num(c, s))) {
			return -1;
		}
	}
	for (int d = 0; d <= FS_DEGREE_HIST_MAX; d++)
		if (fs_buf_printf(b, ",%d", s->degree_histogram[d]))
			return -1;
	if (fs_buf_printf(b, ",%d,", measurement_version) || fs_csv_field(b, rule_of(measurement_version)))
		return -1;
	return fs_buf_putc(b, '\n');
}

static int add_num(cJSON *o, const char *name, double v)
{
	cJSON *n = isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
	if (!n)
		return -1;
	cJSON_AddItemToObject(o, name, n);
	return 0;
}

cJSON *fs_json_summary(const char *image, const fs_stats *s, int calibrated, int measurement_version)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	const char *rule = rule_of(measurement_version);
	if (!cJSON_AddStringToObject(o, "image", image ? image : "") ||
	    !cJSON_AddStringToObject(o, "calibration_status", calibrated ? "calibrated" : "uncalibrated") ||
	    add_num(o, "calibration_um_per_px", s->um_per_px) ||
	    !cJSON_AddNumberToObject(o, "measurement_version", measurement_version) ||
	    !(rule ? cJSON_AddStringToObject(o, "measurement_rule", rule) : cJSON_AddNullToObject(o, "measurement_rule")))
		goto fail;
	for (size_t i = 0; i < N_COLUMNS; i++) {
		const struct column *c = &columns[i];
		if (c->kind == K_STR) {
			const char *v = col_str(c, s);
			if (!cJSON_AddStringToObject(o, c->name, v ? v : ""))
				goto fail;
		} else if (add_num(o, c->name, col_num(c, s))) {
			goto fail;
		}
	}
	cJSON *h = cJSON_AddArrayToObject(o, "degree_histogram");
	if (!h)
		goto fail;
	for (int d = 0; d <= FS_DEGREE_HIST_MAX; d++) {
		cJSON *n = cJSON_CreateNumber(s->degree_histogram[d]);
		if (!n)
			goto fail;
		cJSON_AddItemToArray(h, n);
	}
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}
