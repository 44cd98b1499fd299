/*
 * compare_chart.h - the Compare chart: sets of tubercle measurements drawn
 * the way the papers draw them, as one vector drawing (image/drawing.h)
 * that the web page shows as SVG and the downloads and the CLI render as
 * SVG or PNG.
 *
 * Parts (each its own drawing, or all stacked in one):
 * - main: mean tubercle diameter D (y, µm) against mean intertubercular
 *   space S (x, µm) for each calibrated set, with ± SD error bars in both
 *   directions, each group's mean (the mean of its sets' means), and behind
 *   them the reference data (analysis/reference.h): the genus ranges as
 *   translucent rectangles drawn so that the classifier's first choice lies
 *   on top, numbered by precedence, and the papers' species as crosses;
 *   the precedence and the citations are written under the plot.
 * - ratio: every set (uncalibrated ones only here) by the calibration-free
 *   fill ratio D / (D + S) (x) and hexagonalness (y), group means, and the
 *   papers' species as ticks at their fill ratio.
 * - dist: per set, histograms of its tubercle diameters and of its spaces
 *   on axes shared by every calibrated set (and by every uncalibrated one,
 *   in pixels), each with its mean marked, so an outlier set stands out.
 *
 * Groups get a marker shape and a colour each (shapes and lightness differ,
 * so they stay apart in greyscale); sets without a group share a neutral
 * style. Every set's marker is an SVG group with class "set-point",
 * data-set-id, data-group, data-d / data-s (main) or data-fill / data-hex
 * (ratio) and a title naming it (hover); group means have class
 * "group-mean"; each plot area carries its axis mapping (data-x-min,
 * data-x-max, data-y-min, data-y-max in data units; data-left, data-right,
 * data-top, data-bottom in drawing units), so a reader can check any
 * position.
 *
 * Ownership: inputs are borrowed for the call; fs_chart_draw returns a
 * drawing the caller frees (fs_drawing_free); arrays from fs_chart_groups
 * and fs_chart_samples are malloc'ed (free()); a set made by
 * fs_chart_set_fill points at the samples it was given (borrowed: they
 * must outlive it).
 */
#ifndef FS_COMPARE_CHART_H
#define FS_COMPARE_CHART_H

#include <stddef.h>

#include "analysis/metrics.h"
#include "analysis/reference.h"
#include "image/drawing.h"
#include "image/tubercle.h"

typedef struct fs_chart_set {
	long long id;      /* data-set-id (the CLI numbers its files 1..n) */
	const char *name;  /* label: "image / set" or a file's stem */
	const char *group; /* NULL or "": no group */
	int calibrated;    /* D and S in µm; else pixels (ratio chart only) */
	int n_tubercles, n_edges;
	double d_mean, d_sd, s_mean, s_sd; /* µm when calibrated, else px; NaN when unknown */
	double fill_ratio, hexagonalness;  /* NaN when unknown */
	const char *genus, *confidence;    /* classifier's suggestion (table and CSV) */
	const double *d_values;            /* tubercle diameters (same unit) or NULL */
	size_t n_d;
	const double *s_values;            /* edge-to-edge spaces, negatives as 0, or NULL */
	size_t n_s;
} fs_chart_set;

typedef struct fs_chart_group {
	char label[128];
	int style;                 /* marker style index */
	size_t n_sets, n_calibrated;
	double d_mean, s_mean;     /* mean of the calibrated sets' means (µm); NaN when none */
	double d_sd, s_sd;         /* sample SD of those means; 0 for one set; NaN when none */
	double fill_ratio, hexagonalness; /* mean over all its sets with a value; NaN when none */
} fs_chart_group;

enum fs_chart_part { FS_CHART_MAIN = 1, FS_CHART_RATIO = 2, FS_CHART_DIST = 4, FS_CHART_ALL = 7 };

typedef struct fs_chart_input {
	const fs_chart_set *sets;
	size_t n;
	const fs_reference *ref; /* NULL: the builtin table */
	const char *title;       /* shown above the charts; NULL: none */
} fs_chart_input;

/*
 * A set's figures from its statistics (analysis/metrics.h) and its samples
 * (fs_chart_samples: nd diameters, ns spaces): the counts; the means and
 * SDs over the measured tubercles only (NaN when no tubercle has a
 * diameter, or no edge a space; the fill ratio NaN unless both); the
 * hexagonalness; the classifier's genus and confidence when calibrated,
 * else "Unknown" and "none". The id, name and group are left to the
 * caller.
 */
void fs_chart_set_fill(fs_chart_set *s, const fs_stats *st, int calibrated, const double *d, size_t nd,
		       const double *sp, size_t ns);

/* Groups in the order their labels first appear among the sets. Returns 0
 * or -1 (out of memory); *out NULL when there is none. */
int fs_chart_groups(const fs_chart_set *sets, size_t n, fs_chart_group **out, size_t *n_out);

/* The style index of a set: its group's, or FS_CHART_STYLE_NONE. */
#define FS_CHART_STYLE_NONE -1

/* Draws the parts asked for (stacked in the order main, ratio, dist).
 * NULL with a message on out of memory or no part. */
fs_drawing *fs_chart_draw(const fs_chart_input *in, int parts, char *err, size_t errlen);

/*
 * The samples a set's distributions are drawn from: each tubercle's
 * diameter 2 r x scale and each edge's edge-to-edge distance x scale
 * (negative = 0, as in the statistics), skipping non-finite values and
 * edges naming unknown tubercles. scale = µm per px, or 1 for pixels.
 * Returns 0 or -1 (out of memory).
 */
int fs_chart_samples(const fs_tubercle_list *t, const fs_edge_list *e, double scale, double **d, size_t *nd,
		     double **s, size_t *ns);

/*
 * A histogram of values over [lo, lo + nbins x width): nbins <= max_bins
 * equal bins from the minimum to the maximum (one bin when all are equal);
 * counts has room for max_bins. Returns the number of bins (0 for no
 * finite value).
 */
int fs_chart_bin(const double *values, size_t n, int max_bins, double *lo, double *width, int *counts);

#endif
