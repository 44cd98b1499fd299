/*
 * metrics.c - statistics of an annotation set (conventions in metrics.h).
 *
 * Edges name tubercles by id; ids are mapped to list positions through a
 * sorted index so that a set of thousands of tubercles stays O(n log n).
 * Edges naming an unknown id are counted in n_edges but contribute no length
 * and no degree (the model layer is responsible for keeping them out).
 */
#include "analysis/metrics.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void fs_hex_weights_default(fs_hex_weights *w)
{
	w->spacing = 0.40;
	w->degree = 0.45;
	w->edge_ratio = 0.15;
}

static void pair_lengths(const fs_tubercle *a, const fs_tubercle *b, double *center, double *edge)
{
	*center = hypot(a->centroid_x - b->centroid_x, a->centroid_y - b->centroid_y);
	*edge = *center - a->radius_px - b->radius_px;
}

int fs_edge_lengths(const fs_tubercle_list *t, const fs_edge *e, double *center_px, double *edge_px)
{
	const fs_tubercle *a = NULL, *b = NULL;

	/* one edge: a scan is cheaper than building an index */
	for (size_t i = 0; i < t->n; i++) {
		if (t->items[i].id == e->id1)
			a = &t->items[i];
		if (t->items[i].id == e->id2)
			b = &t->items[i];
	}
	if (!a || !b)
		return -1;
	pair_lengths(a, b, center_px, edge_px);
	return 0;
}

/* Running mean / sample SD / min / max (Welford, stable for large sets). */
struct summary {
	size_t n;
	double mean, m2, min, max;
};

static void summary_add(struct summary *s, double v)
{
	s->n++;
	if (s->n == 1) {
		s->min = s->max = v;
	} else {
		s->min = fmin(s->min, v);
		s->max = fmax(s->max, v);
	}
	double d = v - s->mean;
	s->mean += d / (double)s->n;
	s->m2 += d * (v - s->mean);
}

static double summary_sd(const struct summary *s)
{
	return s->n >= 2 ? sqrt(s->m2 / (double)(s->n - 1)) : 0.0;
}

static double degree_weight(int d)
{
	if (d >= 5 && d <= 7)
		return 1.0;
	if (d == 4 || d == 8)
		return 0.7;
	if (d == 3 || d == 9)
		return 0.3;
	return 0.0;
}

int fs_stats_compute(const fs_tubercle_list *t, const fs_edge_list *e, double um_per_px,
		     const fs_hex_weights *w, int image_w, int image_h, fs_stats *out)
{
	fs_hex_weights dw;
	fs_tubercle_index *ix = NULL;
	int *deg = NULL;
	int rc = -1;

	memset(out, 0, sizeof *out);
	out->reliability = "none";
	out->suggested_genus = "Unknown";
	out->classification_confidence = "none";
	out->spacing_cv = 1.0;
	out->um_per_px = um_per_px;
	if (!w) {
		fs_hex_weights_default(&dw);
		w = &dw;
	}
	ix = fs_tubercle_index_new(t);
	deg = calloc(t->n ? t->n : 1, sizeof *deg);
	if (!ix || !deg)
		goto out;

	out->n_tubercles = (int)t->n;
	out->n_edges = (int)e->n;
	struct summary dia = {0}, space = {0}, center = {0}, gaps = {0}, center_px = {0};
	for (size_t i = 0; i < t->n; i++) {
		out->n_boundary += t->items[i].is_boundary != 0;
		if (fs_tubercle_measured(&t->items[i]))
			summary_add(&dia, 2.0 * t->items[i].radius_px * um_per_px);
		else
			out->n_unmeasured++;
	}
	out->n_interior = out->n_tubercles - out->n_boundary;
	for (size_t i = 0; i < e->n; i++) {
		int a = fs_tubercle_index_find(ix, e->items[i].id1), b = fs_tubercle_index_find(ix, e->items[i].id2);
		if (a < 0 || b < 0)
			continue;
		deg[a]++;
		deg[b]++;
		double c, g;
		pair_lengths(&t->items[a], &t->items[b], &c, &g);
		summary_add(&center, c * um_per_px);
		summary_add(&center_px, c);
		/* a space needs both diameters: an edge to an unmeasured
		 * tubercle has a length but no space */
		if (!isfinite(g))
			continue;
		summary_add(&space, fmax(0.0, g) * um_per_px);
		if (g > 0)
			summary_add(&gaps, g);
	}
	out->mean_diameter_um = dia.mean;
	out->std_diameter_um = summary_sd(&dia);
	out->min_diameter_um = dia.min;
	out->max_diameter_um = dia.max;
	out->mean_space_um = space.mean;
	out->std_space_um = summary_sd(&space);
	out->min_space_um = space.min;
	out->max_space_um = space.max;
	out->mean_center_distance_um = center.mean;
	if (dia.mean + space.mean > 0 && space.n > 0)
		out->size_pitch_ratio = dia.mean / (dia.mean + space.mean);
	/* Tubercles found but none with a diameter (the dome rule's no-base
	 * verdict): 0 would read as a measured 0 µm in the summary CSV and the
	 * JSON; NaN is the empty cell and null the issue asks for. An empty
	 * set keeps its zeros. */
	if (out->n_unmeasured > 0 && dia.n == 0) {
		out->mean_diameter_um = out->std_diameter_um = NAN;
		out->min_diameter_um = out->max_diameter_um = NAN;
		out->size_pitch_ratio = NAN;
	}
	if (out->n_unmeasured > 0 && space.n == 0) {
		out->mean_space_um = out->std_space_um = NAN;
		out->min_space_um = out->max_space_um = NAN;
		out->size_pitch_ratio = NAN;
	}

	if (t->n >= 4) {
		if (gaps.n > 0 && gaps.mean > 0) {
			out->spacing_cv = summary_sd(&gaps) / gaps.mean;
			out->spacing_uniformity = fmax(0.0, 1.0 - 2.0 * out->spacing_cv);
		}
		double wsum = 0, dsum = 0;
		for (size_t i = 0; i < t->n; i++) {
			if (t->items[i].is_boundary)
				continue;
			int d = deg[i];
			wsum += degree_weight(d);
			dsum += d;
			out->degree_histogram[d < FS_DEGREE_HIST_MAX ? d : FS_DEGREE_HIST_MAX]++;
		}
		int ni = out->n_interior;
		if (ni > 0) {
			out->degree_score = wsum / ni;
			out->mean_degree = dsum / ni;
			out->edge_ratio_score =
				fmax(0.0, 1.0 - fabs((double)e->n / ni - 3.0) / 2.0);
		}
		out->reliability = ni >= 15 ? "high" : ni >= 4 ? "low" : "none";
		out->hexagonalness_score = w->spacing * out->spacing_uniformity +
					   w->degree * out->degree_score +
					   w->edge_ratio * out->edge_ratio_score;
	}
	if (space.n > 0)
		fs_classify_genus(out->mean_diameter_um, out->mean_space_um, &out->suggested_genus,
				  &out->classification_confidence);
	if (image_w > 0 && image_h > 0) {
		double cov = fs_coverage_percent(t, center_px.mean, image_w, image_h);
		if (cov < 0)
			goto out;
		out->coverage_percent = cov;
	}
	rc = 0;
out:
	fs_tubercle_index_free(ix);
	free(deg);
	return rc;
}
