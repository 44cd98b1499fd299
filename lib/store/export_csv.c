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

/* an integer as "%d" */
static int put_int(fs_buf *b, long long v)
{
	char s[24];
	int n = fs_fmt_int(s, v);
	return fs_buf_append(b, s, (size_t)n);
}

int fs_csv_tubercles(fs_buf *b, const fs_tubercle_list *t, double um_per_px)
{
	if (fs_buf_puts(b, "id,centroid_x,centroid_y,diameter_px,diameter_um,radius_px,circularity,"
			   "major_axis_px,minor_axis_px,orientation,eccentricity,is_boundary,source,fit_quality\n"))
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		const fs_tubercle *p = &t->items[i];
		double d = 2 * p->radius_px;
		if (put_int(b, p->id) || put_num(b, p->centroid_x) ||
		    put_num(b, p->centroid_y) || put_num(b, d) || put_num(b, d * um_per_px) ||
		    put_num(b, p->radius_px) || put_num(b, p->circularity))
			return -1;
		if (p->has_ellipse) {
			if (put_num(b, p->major_axis_px) || put_num(b, p->minor_axis_px) ||
			    put_num(b, p->orientation) || put_num(b, p->eccentricity))
				return -1;
		} else if (fs_buf_puts(b, ",,,,")) {
			return -1;
		}
		if (fs_buf_puts(b, p->is_boundary ? ",1," : ",0,") ||
		    fs_csv_field(b, fs_source_name(p->source)) || put_num(b, p->fit_quality) ||
		    fs_buf_putc(b, '\n'))
			return -1;
	}
	return 0;
}

int fs_csv_edges(fs_buf *b, const fs_tubercle_list *t, const fs_edge_list *e, double um_per_px)
{
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
		if (put_int(b, ed->id1) || fs_buf_putc(b, ',') || put_int(b, ed->id2))
			goto out;
		if (!a || !c) {
			if (fs_buf_puts(b, ",,,,\n"))
				goto out;
			continue;
		}
		double cd = hypot(a->centroid_x - c->centroid_x, a->centroid_y - c->centroid_y);
		double gd = cd - a->radius_px - c->radius_px;
		if (put_num(b, cd) || put_num(b, cd * um_per_px) || put_num(b, gd) ||
		    put_num(b, gd * um_per_px) || fs_buf_putc(b, '\n'))
			goto out;
	}
	rc = 0;
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
	return fs_buf_printf(b, ",degree_%d_plus\n", FS_DEGREE_HIST_MAX);
}

int fs_csv_summary_row(fs_buf *b, const char *image, const fs_stats *s, int calibrated)
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

cJSON *fs_json_summary(const char *image, const fs_stats *s, int calibrated)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	if (!cJSON_AddStringToObject(o, "image", image ? image : "") ||
	    !cJSON_AddStringToObject(o, "calibration_status", calibrated ? "calibrated" : "uncalibrated") ||
	    add_num(o, "calibration_um_per_px", s->um_per_px))
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
