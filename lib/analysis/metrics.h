/*
 * metrics.h - statistics of an annotation set: diameters, spacing,
 * hexagonalness (the original's formula with adjustable weights), degree
 * histogram, coverage, genus classification; and calibration helpers.
 *
 * Conventions (one everywhere, unlike the original's mix):
 * - Standard deviations are the sample SD (n - 1) when n >= 2, else 0. This
 *   includes spacing_cv inside hexagonalness (the original used the
 *   population SD there; the difference is a factor sqrt(n / (n - 1))).
 * - Lengths are stored in pixels; every µm figure is pixels x um_per_px at
 *   the time of computing (nothing in µm is ever stored in the model).
 * - Space = the edge distance between NEIGHBOURS, averaged over the edges
 *   given (the graph's, built by graph.c with its long-edge culling; its
 *   default factor, FS_CULL_FACTOR_DEFAULT in params.h, drops the edges
 *   across a missing tubercle, which are no neighbour pairs).
 * - Edge distance = centre distance - r1 - r2. It is never clamped in the
 *   model or in the edges CSV (negative = overlapping circles). In the
 *   spacing statistics (mean/SD/min/max space) a negative edge distance
 *   counts as 0 (touching or overlapping tubercles have no space between
 *   them); spacing uniformity (hexagonalness) uses only edge distances > 0,
 *   as the original does.
 * - Diameter = 2 x radius_px. Unmeasured tubercles (radius NaN, see
 *   tubercle.h) count in n_tubercles, degrees and hexagonalness but not
 *   in the diameter figures, and their edges not in the space figures
 *   (centre distances still count); n_unmeasured counts them. Where
 *   tubercles were found but none has a diameter (or no edge a space),
 *   those figures and size_pitch_ratio are NaN (an empty CSV cell, null
 *   in JSON), not 0; a list without tubercles keeps zeros.
 * - Hexagonalness: interior = not is_boundary (flags from graph.c); with
 *   fewer than 4 tubercles every component is 0, spacing_cv 1, reliability
 *   "none". Degrees count every edge; only interior nodes are scored.
 *   Component definitions: reference-ui.md section 4.2. Weights are not
 *   normalised.
 * - Coverage: see fs_coverage_percent.
 * - Genus: the extraction-time classifier of the original (in-range match =
 *   "high", else the normalised distance score: < 1.5 "medium", < 3 "low",
 *   else "Unknown" / "none"); only computed when there is at least one edge.
 */
#ifndef FS_METRICS_H
#define FS_METRICS_H

#include <stddef.h>

#include "image/tubercle.h"

typedef struct fs_hex_weights {
	double spacing, degree, edge_ratio; /* default 0.40, 0.45, 0.15 */
} fs_hex_weights;

#define FS_DEGREE_HIST_MAX 16

typedef struct fs_stats {
	int n_tubercles, n_edges, n_boundary, n_interior;
	int n_unmeasured; /* tubercles without a diameter (radius NaN) */
	double mean_diameter_um, std_diameter_um, min_diameter_um, max_diameter_um;
	double mean_space_um, std_space_um, min_space_um, max_space_um;
	double mean_center_distance_um;
	double size_pitch_ratio;  /* mean D / (mean D + mean space): calibration-free */
	double um_per_px;         /* the calibration the µm figures were made with */
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

/* Genus from mean diameter and spacing (µm) with the published ranges of
 * conf/reference.conf, in its order of precedence (analysis/reference.h). */
void fs_classify_genus(double diameter_um, double space_um, const char **genus, const char **confidence);

/*
 * Coverage percent in consistent units (all pixels): base = convex-hull
 * area of the centroids / image area x 100; density = min(1, n /
 * max(10, hull / cell)) where cell = pitch_px^2 x sqrt(3) / 2 is the area
 * per tubercle of a hexagonal lattice with pitch = mean centre distance of
 * the edges (the original divided px^2 by µm^2). Without a pitch (no
 * edges) density = 0.7 as in the original. Fewer than 3 tubercles or a
 * collinear set: 0. Clamped to [0, 100]. Returns -1 on out of memory.
 */
double fs_coverage_percent(const fs_tubercle_list *t, double pitch_px, int image_w, int image_h);

/* Area (px^2) of the convex hull of n points; 0 below 3 points or when
 * collinear; -1 on out of memory. */
double fs_convex_hull_area(const double *x, const double *y, size_t n);

/*
 * Calibration helpers. All return µm per pixel, or 0 when the input is
 * invalid (non-finite, non-positive, zero-length bar).
 */
#define FS_CALIBRATION_ESTIMATE_700X 0.13671875 /* original: 140 µm over 1024 px */
/* The physically sensible range of a calibration: 0.1 nm to 100 µm per
 * pixel. Outside it every extraction fails (1e-320 makes the µm parameters
 * infinite pixels), so the server refuses such a value instead of storing it. */
#define FS_UM_PER_PX_MIN 1e-4
#define FS_UM_PER_PX_MAX 100.0
/* A scale bar shorter than this many pixels cannot be placed precisely. */
#define FS_SCALE_BAR_MIN_PX 2.0

/* A directly given value, checked: returns it, or 0 when outside
 * FS_UM_PER_PX_MIN .. FS_UM_PER_PX_MAX (or not finite). */
double fs_calibration_direct(double um_per_px);
/* Known length (µm) of a bar drawn from (x1, y1) to (x2, y2) in image pixels. */
double fs_calibration_from_scale_bar(double x1, double y1, double x2, double y2, double length_um);
/*
 * From the magnification and the size of one image pixel at 1x, in µm
 * (assumption: the image was recorded or reproduced with that pixel size,
 * e.g. 25400 / dpi for a print scanned at dpi, or the detector pixel pitch
 * of a camera): um_per_px = pixel_um / magnification. The original's 700x
 * estimate (0.13671875) corresponds to pixel_um = 95.703125.
 */
double fs_calibration_from_magnification(double magnification, double dpi_or_pixel_um);
/* Pixel pitch in µm of a print scanned at dpi (25400 / dpi); 0 if invalid. */
double fs_pixel_um_from_dpi(double dpi);

/* Derived µm values (nothing in µm is stored): px x um_per_px. */
double fs_px_to_um(double px, double um_per_px);
double fs_tubercle_diameter_um(const fs_tubercle *t, double um_per_px);

#endif
