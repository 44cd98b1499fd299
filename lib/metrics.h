/*
 * metrics.h - statistics of an annotation set: diameters, spacing,
 * hexagonalness (the original's formula with adjustable weights), degree
 * histogram, coverage, genus classification; and calibration helpers.
 *
 * Convention (one everywhere): standard deviations are the sample SD (n - 1)
 * when n >= 2 and 0 otherwise; spacing = edge_distance (centre distance
 * minus both radii) over the set's edges; see metrics.c for the details of
 * each figure.
 */
#ifndef FS_METRICS_H
#define FS_METRICS_H

#include <stddef.h>

#include "tubercle.h"

typedef struct fs_hex_weights {
	double spacing, degree, edge_ratio; /* default 0.40, 0.45, 0.15 */
} fs_hex_weights;

#define FS_DEGREE_HIST_MAX 16

typedef struct fs_stats {
	int n_tubercles, n_edges, n_boundary, n_interior;
	double mean_diameter_um, std_diameter_um, min_diameter_um, max_diameter_um;
	double mean_space_um, std_space_um, min_space_um, max_space_um;
	double mean_center_distance_um;
	double hexagonalness_score, spacing_uniformity, degree_score, edge_ratio_score;
	double spacing_cv, mean_degree;
	int degree_histogram[FS_DEGREE_HIST_MAX + 1]; /* interior nodes; last bin = >= MAX */
	const char *reliability;  /* "none", "low", "high" (static string) */
	double coverage_percent;  /* needs image size; 0 when unknown */
	const char *suggested_genus; /* static string, "Unknown" when none */
	const char *classification_confidence; /* "high", "medium", "low", "none" */
} fs_stats;

void fs_hex_weights_default(fs_hex_weights *w);

/* Edge lengths of one edge in pixels (centre distance, edge-to-edge distance). */
int fs_edge_lengths(const fs_tubercle_list *t, const fs_edge *e, double *center_px, double *edge_px);

/*
 * Computes every statistic. w may be NULL (defaults); image_w/h may be 0
 * (coverage 0). Returns 0 or -1 (out of memory).
 */
int fs_stats_compute(const fs_tubercle_list *t, const fs_edge_list *e, double um_per_px,
		     const fs_hex_weights *w, int image_w, int image_h, fs_stats *out);

/* Genus from mean diameter and spacing (µm) with the published ranges. */
void fs_classify_genus(double diameter_um, double space_um, const char **genus, const char **confidence);

/* Calibration helpers: µm per pixel from a scale bar or a magnification. */
double fs_calibration_from_scale_bar(double x1, double y1, double x2, double y2, double length_um);
double fs_calibration_from_magnification(double magnification, double dpi_or_pixel_um);

#endif
