/*
 * The published figures (tests/fixtures/paper): method auto with the
 * default parameters and no per-image tuning. The calibration-free check is
 * the ratio diameter / (diameter + space) against the published one.
 * Diameter, spacing and ratio are what `fishscale measure` reports: the
 * default neighbour graph (fs_graph_build with the default parameters) and
 * fs_stats_compute's mean_diameter, mean_space (edge to edge, negative = 0)
 * and size_pitch_ratio.
 *
 * The target (within 0.08 for at least 7 of the 9 images, genera in
 * the order Polypterus < Lepisosteus-like < Atractosteus) is NOT met: the
 * published outlines sit at different brightness levels for different
 * genera on these halftone crops, so no brightness rule reaches them.
 * docs/paper-figures.md has the table, the evidence and the rules tried in
 * two investigations. This test guards the level reached (6 of 9 at the
 * time of writing; it asserts 5, since which borderline figure passes
 * depends on the detected set) and Polypterus bichir within 0.08, and
 * prints the table with every `make test`, with the ratio the experimental
 * dome-base rule (FS_RULE_DOME) reads beside it.
 *
 * Issue 13 section 4: the pitch consistency per paper (pixel size implied
 * by each figure's pitch and the published d + s), one pixel size per paper
 * and the absolute D, S and genus of every figure, for the outline rule's
 * detections and (printed only) the dome rule's; see pixel_sizes() and
 * paper1_absolute_values() for what is asserted and what is only printed.
 * Both rules measure inside the automatic scale region, as `fishscale
 * measure` and the server do (fs_detect_rule_in_region).
 *
 * What the figures themselves say about the diameters' order (h31e,
 * docs/paper-figures.md): each figure's lattice pitch from its
 * autocorrelation (no detection) and the pixel size it implies, and the
 * mean brightness profile about each rule's centres with the diameter at
 * which it has fallen to 50, 25, 10 and 5 % of the cap's contrast over
 * the ground, and the level at which the rule's own mean diameter lies.
 * paper1_profile_order asserts that at every one of those levels the
 * figures order their tubercles as published (Fig2 < Fig1 < Fig4) about
 * either rule's centres: the order the dome rule misses is in the images.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/graph.h"
#include "analysis/lattice_estimate.h"
#include "analysis/preprocess.h"
#include "analysis/scale_region.h"
#include "base/sorting.h"
#include "image/image_io.h"
#include "image/image_transform.h"
#include "analysis/metrics.h"
#include "paper_figs.h"

#define DIR PAPER_FIGS_DIR
#define MAXIMG PAPER_FIGS_MAX

typedef struct row {
	char file[160], genus[64], paper[8];
	double exp_ratio, exp_d, exp_s, ratio, d, s, pitch;
	size_t n, unmeasured, nobase;
	/* with the dome rule (FS_RULE_DOME, not the default) */
	double dome_ratio, dome_d, dome_s, dome_pitch;
	size_t dome_n;
	/* of them without a diameter, and those whose fit quality is a
	 * dome's: the image shows no base (measurement.h, h38b) */
	size_t dome_unmeasured, dome_nobase;
	double px_um;       /* µm per px implied by the pitch and the published d + s */
	int consistent;     /* within 10 % of the paper's median implied pixel size */
	double paper_px_um; /* the paper's pixel size (0: none) */
	const char *abs_genus;
	/* the same from the dome rule's detections (printed, never asserted) */
	double dome_px_um, dome_paper_px_um;
	int dome_consistent;
	const char *dome_abs_genus;
	/* the lattice pitch from the autocorrelation (px, 0 = none) and the
	 * diameters (px) at which the mean profile about each rule's centres
	 * falls to LEVELS[k] of its contrast; lev_at: the share of the
	 * contrast at the rule's own mean radius; used: centres whose profile
	 * lies inside the frame and the scale region's rows */
	double acorr_pitch;
	double lev_d[2][4], lev_at[2];
	int lev_used[2];
} row;

#define NLEV 4
static const double LEVELS[NLEV] = {0.5, 0.25, 0.1, 0.05};
/* Screen and noise: the profiles are read on the figure blurred by this
 * (the P1 screens have a period of about 2.8 px, halftone.h). */
#define PROFILE_BLUR 1.5

/* The figures and their published values (paper_figs.h). */
static int read_expected(row *rows)
{
	paper_fig pub[MAXIMG];
	int n = paper_figs_read(pub, MAXIMG);
	for (int i = 0; i < n; i++) {
		memcpy(rows[i].file, pub[i].file, sizeof rows[i].file);
		memcpy(rows[i].genus, pub[i].genus, sizeof rows[i].genus);
		memcpy(rows[i].paper, pub[i].paper, sizeof rows[i].paper);
		rows[i].exp_ratio = pub[i].ratio;
		rows[i].exp_d = pub[i].d_um;
		rows[i].exp_s = pub[i].s_um;
	}
	return n;
}

typedef int (*detect_fn)(const fs_image *, const fs_params *, double, fs_detect_result *, char *,
			 size_t);

/* The mean azimuthal brightness profile about the centres whose disc of
 * 0.6 pitch lies inside the frame and, at 16 points of its rim, inside the
 * scale region (no profile reads the P1 figures' white band), 72
 * directions, a px a step; the ground is its mean at 0.45-0.55 pitch. Fills lev_d (the
 * diameter at which it falls to LEVELS[k] of the cap's contrast, linear
 * between steps) and *at (the share at mean_r). Returns the centres used. */
static int profile_levels(const fs_image *b, const fs_tubercle_list *tl, double pitch, const fs_scale_region *reg,
			  double mean_r, double *lev_d, double *at)
{
	int nr = (int)(0.6 * pitch) + 2, used = 0;
	double *prof = calloc((size_t)nr, sizeof *prof);
	assert_non_null(prof);
	for (size_t i = 0; i < tl->n; i++) {
		double x = tl->items[i].centroid_x, y = tl->items[i].centroid_y, m = 0.6 * pitch + 2;
		if (x < m || y < m || x > b->width - 1 - m || y > b->height - 1 - m)
			continue;
		int inside = 1;
		for (int a = 0; a < 16 && inside; a++)
			inside = fs_scale_region_contains(reg, x + m * cos(a * M_PI / 8), y + m * sin(a * M_PI / 8));
		if (!inside)
			continue;
		used++;
		for (int r = 0; r < nr; r++) {
			double sum = 0;
			for (int a = 0; a < 72; a++)
				sum += fs_image_sample_inside(b->data, b->width, x + r * cos(a * M_PI / 36),
							      y + r * sin(a * M_PI / 36));
			prof[r] += sum / 72;
		}
	}
	for (int k = 0; k < NLEV; k++)
		lev_d[k] = NAN;
	*at = NAN;
	if (used) {
		double g = 0;
		int ng = 0;
		for (int r = (int)ceil(0.45 * pitch); r <= (int)(0.55 * pitch); r++, ng++)
			g += prof[r] / used;
		g /= ng;
		double c = prof[0] / used - g;
		for (int k = 0; k < NLEV && c > 0; k++)
			for (int r = 0; r + 1 < nr; r++) {
				double f0 = prof[r] / used - g, f1 = prof[r + 1] / used - g, l = LEVELS[k] * c;
				if (f0 > l && f1 <= l) {
					lev_d[k] = 2 * (r + (f0 - l) / (f0 - f1));
					break;
				}
			}
		/* (no mean diameter - every dome unmeasured - has no level) */
		int r0 = isfinite(mean_r) && mean_r >= 0 ? (int)mean_r : nr;
		if (c > 0 && r0 + 1 < nr)
			*at = ((prof[r0] + (mean_r - r0) * (prof[r0 + 1] - prof[r0])) / used - g) / c;
	}
	free(prof);
	return used;
}

/* One figure with one rule: n, mean D, mean S (px), ratio, pitch (mean
 * centre distance, px) and the profile levels about its centres. */
static void measure_rule(const fs_image *img, const fs_image *blurred, const fs_scale_region *reg, double acorr,
			 fs_measurement_rule rule,
			 size_t *n, double *d, double *s, double *ratio, double *pitch, double *lev_d, double *lev_at,
			 int *lev_used, size_t *unmeasured, size_t *nobase)
{
	char err[256];
	fs_params p;
	fs_params_default(&p);
	fs_detect_result res;
	assert_int_equal(fs_detect_rule_in_region(img, &p, 0, rule, NULL, &res, err, sizeof err), 0);
	fs_edge_list e = {0};
	assert_int_equal(fs_graph_build(&res.tubercles, p.neighbor_graph, p.cull_long_edges,
					p.cull_factor, &e, err, sizeof err), 0);
	fs_stats st;
	assert_int_equal(fs_stats_compute(&res.tubercles, &e, 1.0, NULL, img->width,
					  img->height, &st), 0);
	*n = res.tubercles.n;
	*unmeasured = *nobase = 0;
	for (size_t i = 0; i < res.tubercles.n; i++) {
		const fs_tubercle *q = &res.tubercles.items[i];
		*unmeasured += !fs_tubercle_measured(q);
		*nobase += !fs_tubercle_measured(q) && q->fit_quality >= FS_DOME_NO_DOME_QUALITY;
	}
	*d = st.mean_diameter_um;
	*s = st.mean_space_um;
	*ratio = st.size_pitch_ratio;
	*pitch = st.mean_center_distance_um;
	*lev_used = acorr > 0 ? profile_levels(blurred, &res.tubercles, acorr, reg, 0.5 * st.mean_diameter_um, lev_d,
					       lev_at)
			      : 0;
	fs_edge_list_free(&e);
	fs_detect_result_free(&res);
}

/* Both rules on one figure, and its autocorrelation pitch. */
static void measure(row *r)
{
	char path[1024], err[256];
	snprintf(path, sizeof path, DIR "%.150s", r->file);
	fs_loaded L;
	assert_int_equal(fs_load_file(path, NULL, &L, err, sizeof err), 0);
	fs_lattice lat;
	assert_int_equal(fs_lattice_estimate(L.image, &lat, err, sizeof err), 0);
	r->acorr_pitch = lat.pitch_px;
	fs_image *b = fs_gaussian_blurred(L.image, PROFILE_BLUR, err, sizeof err);
	assert_non_null(b);
	fs_scale_region reg;
	assert_int_equal(fs_scale_region_detect(L.image, &reg, err, sizeof err), 0);
	measure_rule(L.image, b, &reg, lat.pitch_px, FS_RULE_OUTLINE, &r->n, &r->d, &r->s, &r->ratio, &r->pitch,
		     r->lev_d[0], &r->lev_at[0], &r->lev_used[0], &r->unmeasured, &r->nobase);
	measure_rule(L.image, b, &reg, lat.pitch_px, FS_RULE_DOME, &r->dome_n, &r->dome_d, &r->dome_s, &r->dome_ratio,
		     &r->dome_pitch, r->lev_d[1], &r->lev_at[1], &r->lev_used[1], &r->dome_unmeasured, &r->dome_nobase);
	fs_scale_region_free(&reg);
	fs_image_free(b);
	fs_loaded_free(&L);
}

static row rows[MAXIMG];
static int nrows, nok;

/*
 * Pitch consistency per paper: each figure's pitch (mean centre distance of
 * the detections) and its published d + s imply a pixel size; a figure is
 * consistent when that is within 10 % of the median of its paper's
 * figures. A paper with three figures or more gets one pixel size, the
 * median over its consistent figures (at least two; never one per figure), which turns
 * every figure's D and S into µm and a genus.
 */
/* One rule's view of every figure: its pitch, D and S (px) in, its
 * implied and per-paper pixel sizes, consistency and genus out. */
typedef struct abs_view {
	double pitch, d, s;
	double px_um, paper_px_um;
	int consistent;
	const char *abs_genus;
} abs_view;

static void pixel_sizes_of(abs_view *v)
{
	for (int i = 0; i < nrows; i++)
		v[i].px_um = v[i].pitch > 0 ? (rows[i].exp_d + rows[i].exp_s) / v[i].pitch : 0;
	for (int i = 0; i < nrows; i++) {
		double a[MAXIMG], c[MAXIMG];
		int na = 0, nc = 0;
		for (int j = 0; j < nrows; j++)
			if (!strcmp(rows[j].paper, rows[i].paper) && v[j].px_um > 0)
				a[na++] = v[j].px_um;
		v[i].consistent = 0;
		v[i].paper_px_um = 0;
		v[i].abs_genus = "-";
		if (na < 3)
			continue;
		double m = fs_median_double(a, (size_t)na);
		for (int j = 0; j < nrows; j++)
			if (!strcmp(rows[j].paper, rows[i].paper) && v[j].px_um > 0 &&
			    fabs(v[j].px_um / m - 1) <= 0.10)
				c[nc++] = v[j].px_um;
		v[i].consistent = fabs(v[i].px_um / m - 1) <= 0.10;
		/* one consistent figure is only itself: no pixel size */
		if (nc < 2)
			continue;
		v[i].paper_px_um = fs_median_double(c, (size_t)nc);
		const char *conf;
		fs_classify_genus(v[i].d * v[i].paper_px_um, v[i].s * v[i].paper_px_um, &v[i].abs_genus, &conf);
	}
}

/* Both rules' views: the outline rule's (asserted) and the dome rule's
 * (issue 13 section 4 asks it of the new detection; printed). */
static void pixel_sizes(void)
{
	abs_view o[MAXIMG], d[MAXIMG];
	for (int i = 0; i < nrows; i++) {
		o[i] = (abs_view){.pitch = rows[i].pitch, .d = rows[i].d, .s = rows[i].s};
		d[i] = (abs_view){.pitch = rows[i].dome_pitch, .d = rows[i].dome_d, .s = rows[i].dome_s};
	}
	pixel_sizes_of(o);
	pixel_sizes_of(d);
	for (int i = 0; i < nrows; i++) {
		rows[i].px_um = o[i].px_um;
		rows[i].consistent = o[i].consistent;
		rows[i].paper_px_um = o[i].paper_px_um;
		rows[i].abs_genus = o[i].abs_genus;
		rows[i].dome_px_um = d[i].px_um;
		rows[i].dome_consistent = d[i].consistent;
		rows[i].dome_paper_px_um = d[i].paper_px_um;
		rows[i].dome_abs_genus = d[i].abs_genus;
	}
}

static void print_abs(const char *title, int dome)
{
	printf("\npitch consistency and absolute values (one pixel size per paper), %s:\n", title);
	printf("%-50s %7s %8s %4s %8s %7s %7s %-16s %s\n", "file", "pitch", "um/px", "cons", "paper",
	       "D um", "S um", "genus (D,S)", "published genus");
	for (int i = 0; i < nrows; i++) {
		const row *r = &rows[i];
		double pitch = dome ? r->dome_pitch : r->pitch, px = dome ? r->dome_px_um : r->px_um;
		double ppx = dome ? r->dome_paper_px_um : r->paper_px_um;
		double d = dome ? r->dome_d : r->d, sp = dome ? r->dome_s : r->s;
		int cons = dome ? r->dome_consistent : r->consistent;
		printf("%-50s %7.2f %8.4f %-4s ", r->file, pitch, px, cons ? "yes" : "NO");
		if (ppx > 0 && isfinite(d))
			printf("%8.4f %7.2f %7.2f %-16s %s\n", ppx, d * ppx, sp * ppx,
			       dome ? r->dome_abs_genus : r->abs_genus, r->genus);
		else if (ppx > 0) /* no tubercle with a diameter: no D, no S */
			printf("%8.4f %7s %7s %-16s %s\n", ppx, "none", "none",
			       dome ? r->dome_abs_genus : r->abs_genus, r->genus);
		else
			printf("%8s %7s %7s %-16s %s\n", "-", "-", "-", "-", r->genus);
	}
}

/* The figures' own evidence: autocorrelation pitch and the pixel size it
 * implies (the median over the paper's figures within 10 % of it), and
 * the profile levels about each rule's centres. */
static void print_profiles(void)
{
	printf("\nthe figures' own lattice and profiles (pitch from the autocorrelation; D px where the mean "
	       "profile about each rule's centres falls to 50/25/10/5 %% of its contrast; 'at': the level of the "
	       "rule's own mean D):\n");
	printf("%-50s %6s %8s %4s | %-7s %4s %6s %6s %6s %6s %6s\n", "file", "acorr", "um/px", "cons", "rule",
	       "used", "50%", "25%", "10%", "5%", "at");
	for (int i = 0; i < nrows; i++) {
		const row *r = &rows[i];
		double px = r->acorr_pitch > 0 ? (r->exp_d + r->exp_s) / r->acorr_pitch : 0, a[MAXIMG];
		int na = 0;
		for (int j = 0; j < nrows; j++)
			if (!strcmp(rows[j].paper, r->paper) && rows[j].acorr_pitch > 0)
				a[na++] = (rows[j].exp_d + rows[j].exp_s) / rows[j].acorr_pitch;
		const char *cons = "-";
		if (na >= 3 && px > 0)
			cons = fabs(px / fs_median_double(a, (size_t)na) - 1) <= 0.10 ? "yes" : "NO";
		for (int k = 0; k < 2; k++) {
			if (k == 0)
				printf("%-50s %6.2f %8.4f %-4s | ", r->file, r->acorr_pitch, px, cons);
			else
				printf("%-50s %6s %8s %-4s | ", "", "", "", "");
			printf("%-7s %4d", k ? "dome" : "outline", r->lev_used[k]);
			for (int l = 0; l < NLEV; l++)
				printf(" %6.1f", r->lev_d[k][l]);
			if (isfinite(r->lev_at[k]))
				printf(" %5.1f%%\n", 100 * r->lev_at[k]);
			else
				printf(" %6s\n", "none");
		}
	}
}

/* Measures every image once and prints the tables (group setup). */
static int measure_all(void **state)
{
	(void)state;
	nrows = read_expected(rows);
	if (nrows < 9)
		return -1;
	nok = 0;
	for (int i = 0; i < nrows; i++) {
		measure(&rows[i]);
		nok += fabs(rows[i].ratio - rows[i].exp_ratio) <= 0.08;
	}
	pixel_sizes();
	printf("%-50s %5s %7s %7s %6s %6s %s | %5s %6s %-3s %s\n", "file", "n", "D px", "S px", "ratio",
	       "expect", "ok", "domes", "ratio", "ok", "unmeasured (no base)");
	for (int i = 0; i < nrows; i++) {
		int good = fabs(rows[i].ratio - rows[i].exp_ratio) <= 0.08;
		int dgood = fabs(rows[i].dome_ratio - rows[i].exp_ratio) <= 0.08;
		/* a figure the dome rule leaves without any diameter: "none" */
		char dr[16];
		snprintf(dr, sizeof dr, rows[i].dome_unmeasured < rows[i].dome_n ? "%6.3f" : "  none",
			 rows[i].dome_ratio);
		printf("%-50s %5zu %7.2f %7.2f %6.3f %6.3f %-3s | %5zu %s %-3s %zu (%zu)\n", rows[i].file,
		       rows[i].n, rows[i].d, rows[i].s, rows[i].ratio, rows[i].exp_ratio,
		       good ? "yes" : "NO", rows[i].dome_n, dr, dgood ? "yes" : "NO",
		       rows[i].dome_unmeasured, rows[i].dome_nobase);
	}
	printf("within 0.08: %d of %d (issue target 7)\n", nok, nrows);
	print_abs("outline rule", 0);
	print_abs("dome rule", 1);
	print_profiles();
	return 0;
}

static const row *find(const char *genus_or_file)
{
	for (int i = 0; i < nrows; i++)
		if (strstr(rows[i].file, genus_or_file))
			return &rows[i];
	return NULL;
}

static void paper_ratios_do_not_regress(void **state)
{
	(void)state;
	assert_true(nok >= 5);
	const row *bichir = find("Polypterus_bichir");
	assert_non_null(bichir);
	assert_true(fabs(bichir->ratio - bichir->exp_ratio) <= 0.08);
	for (int i = 0; i < nrows; i++)
		assert_true(rows[i].n >= 10); /* every figure shows a lattice */
}

/*
 * Issue 13 section 4 with today's rule: Fig2 (Polypterus bichir) within
 * 0.05 of the published fill ratio, its genus from absolute values with
 * paper 1's pixel size, and the absolute diameters ordered Fig2 < Fig1 <
 * Fig4 as published hold and are asserted. Fig4 (Atractosteus simplex,
 * 0.730 within 0.08, genus Atractosteus) does not hold: printed, not
 * asserted (docs/paper-figures.md).
 */
static void paper1_absolute_values(void **state)
{
	(void)state;
	const row *f1 = find("P1_Fig1_"), *f2 = find("P1_Fig2_"), *f4 = find("P1_Fig4_");
	assert_true(f1 && f2 && f4);
	/* paper 1: Fig1, Fig2 and Fig4 agree on the pixel size */
	assert_true(f1->consistent && f2->consistent && f4->consistent);
	assert_true(f2->paper_px_um > 0.11 && f2->paper_px_um < 0.125);
	assert_true(fabs(f2->ratio - f2->exp_ratio) <= 0.05);
	assert_string_equal(f2->abs_genus, "Polypterus");
	double d1 = f1->d * f1->paper_px_um, d2 = f2->d * f2->paper_px_um, d4 = f4->d * f4->paper_px_um;
	assert_true(d2 < d1 && d1 < d4);
	int fig4_ratio = fabs(f4->ratio - f4->exp_ratio) <= 0.08;
	int fig4_genus = !strcmp(f4->abs_genus, "Atractosteus");
	printf("section 4: Fig2 ratio %.3f (0.298 +- 0.05) ok, genus %s ok, D Fig2 %.2f < Fig1 %.2f < "
	       "Fig4 %.2f um ok; Fig4 ratio %.3f (0.730 +- 0.08) %s, genus %s %s\n",
	       f2->ratio, f2->abs_genus, d2, d1, d4, f4->ratio, fig4_ratio ? "ok" : "NOT MET",
	       f4->abs_genus, fig4_genus ? "ok" : "NOT MET (Atractosteus)");
	/* the same targets read by the dome rule: printed, not asserted (it
	 * is not the default; docs/paper-figures.md), but for what it reads
	 * now and must keep: Fig2 within its target, and Fig1 (Lepidotes, low
	 * smooth-footed domes) without a dome-rule diameter, saying so: most
	 * of its base readings lie on no step (h36g) and the templates' mean
	 * patch names no fill (detect_base_fit.h, h38b; its 0.530 of h36g was
	 * the template window's, h37p), so every dome keeps its centre with
	 * no diameter and a dome's fit quality. The outline rule still sizes
	 * it (0.447) */
	assert_true(fabs(f2->dome_ratio - f2->exp_ratio) <= 0.05);
	assert_true(f1->dome_n >= 10 && f1->dome_unmeasured == f1->dome_n);
	/* (the others: flat ground, fit quality 0; 2 of 36 at h38b) */
	assert_true(f1->dome_nobase >= 0.9 * (double)f1->dome_n);
	assert_int_equal(f1->unmeasured, 0);
	double p = f2->dome_paper_px_um;
	double e1 = f1->dome_d * p, e2 = f2->dome_d * p, e4 = f4->dome_d * p;
	/* an unmeasured figure has no D to print or to order (not 0 um) */
	int f1_sized = f1->dome_unmeasured < f1->dome_n;
	char f1d[32];
	if (f1_sized)
		snprintf(f1d, sizeof f1d, "%.2f", e1);
	else
		snprintf(f1d, sizeof f1d, "none");
	printf("section 4, dome rule: Fig1/2/4 consistent %s/%s/%s, paper 1 %.4f um/px; Fig2 ratio %.3f (0.298 +- "
	       "0.05) %s, genus %s; D Fig2 %.2f, Fig1 %s, Fig4 %.2f um, ordered %s; Fig4 ratio %.3f (0.730 +- "
	       "0.08) %s, genus %s\n",
	       f1->dome_consistent ? "yes" : "NO", f2->dome_consistent ? "yes" : "NO",
	       f4->dome_consistent ? "yes" : "NO", p, f2->dome_ratio,
	       fabs(f2->dome_ratio - f2->exp_ratio) <= 0.05 ? "ok" : "NOT MET", f2->dome_abs_genus, e2, f1d, e4,
	       !f1_sized ? "not judged (Fig1 unmeasured)" : p > 0 && e2 < e1 && e1 < e4 ? "ok" : "NOT MET",
	       f4->dome_ratio,
	       fabs(f4->dome_ratio - f4->exp_ratio) <= 0.08 ? "ok" : "NOT MET", f4->dome_abs_genus);
}

/*
 * The order of paper 1's diameters in the images themselves (h31e): about
 * either rule's centres the mean profile of Fig2 (Polypterus) falls to
 * each level of its contrast at a smaller diameter than Fig1's
 * (Lepidotes), and Fig1's at a smaller one than Fig4's (Atractosteus), at
 * 50, 25, 10 and 5 % alike - the published order, whatever level a
 * diameter is read at (one pixel size for the paper, so pixels order as
 * µm do). Were the rule's centres off the tubercles (debris, flat ground)
 * the profiles would lose the caps and this order with them.
 */
static void paper1_profile_order(void **state)
{
	(void)state;
	const row *f1 = find("P1_Fig1_"), *f2 = find("P1_Fig2_"), *f4 = find("P1_Fig4_");
	assert_true(f1 && f2 && f4);
	for (int k = 0; k < 2; k++) {
		assert_true(f1->lev_used[k] >= 10 && f2->lev_used[k] >= 10 && f4->lev_used[k] >= 10);
		for (int l = 0; l < NLEV; l++) {
			assert_true(isfinite(f2->lev_d[k][l]) && isfinite(f1->lev_d[k][l]) && isfinite(f4->lev_d[k][l]));
			assert_true(f2->lev_d[k][l] < f1->lev_d[k][l]);
			assert_true(f1->lev_d[k][l] < f4->lev_d[k][l]);
		}
	}
}

/* The dome rule's fill D / (D + S) of P1 Fig2 cropped by (dx, dy) px at
 * the left and top, measured as measure_rule does. */
static double fig2_dome_fill(const fs_image *img, int dx, int dy)
{
	char err[256];
	fs_rect r = {dx, dy, img->width - dx, img->height - dy};
	fs_image *c = fs_image_crop(img, r, NULL, err, sizeof err);
	assert_non_null(c);
	fs_params p;
	fs_params_default(&p);
	fs_detect_result res;
	assert_int_equal(fs_detect_rule_in_region(c, &p, 0, FS_RULE_DOME, NULL, &res, err, sizeof err), 0);
	fs_edge_list e = {0};
	assert_int_equal(fs_graph_build(&res.tubercles, p.neighbor_graph, p.cull_long_edges, p.cull_factor, &e, err,
					sizeof err),
			 0);
	fs_stats st;
	assert_int_equal(fs_stats_compute(&res.tubercles, &e, 1.0, NULL, c->width, c->height, &st), 0);
	fs_edge_list_free(&e);
	fs_detect_result_free(&res);
	fs_image_free(c);
	return st.size_pitch_ratio;
}

/*
 * P1 Fig2's dome fill on the figure and its three one-pixel crops (h42j):
 * the same tubercles, so the same fill within 0.035. Before h42j they
 * read 0.253, 0.276, 0.274, 0.301 (spread 0.048): the last step's
 * formation took whichever profile fitted its mean patch best by
 * 0.25-3.7 %, a pick the crops flip, and every size followed it; with
 * the cap taken where the patch does not decide (FS_DET_OFFSET_CAP_TIE)
 * they read 0.261, 0.282, 0.276, 0.279 (0.021).
 */
static void paper1_fig2_dome_crops_agree(void **state)
{
	(void)state;
	char path[1024], err[256];
	const row *f2 = find("P1_Fig2_");
	assert_non_null(f2);
	snprintf(path, sizeof path, DIR "%.150s", f2->file);
	fs_loaded L;
	assert_int_equal(fs_load_file(path, NULL, &L, err, sizeof err), 0);
	static const int CROP[4][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};
	double lo = INFINITY, hi = -INFINITY;
	for (int k = 0; k < 4; k++) {
		double f = fig2_dome_fill(L.image, CROP[k][0], CROP[k][1]);
		assert_true(isfinite(f));
		printf("P1 Fig2 dome fill, crop +%d+%d: %.3f\n", CROP[k][0], CROP[k][1], f);
		lo = fmin(lo, f);
		hi = fmax(hi, f);
	}
	fs_loaded_free(&L);
	assert_true(hi - lo <= 0.035);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(paper_ratios_do_not_regress),
		cmocka_unit_test(paper1_absolute_values),
		cmocka_unit_test(paper1_profile_order),
		cmocka_unit_test(paper1_fig2_dome_crops_agree),
	};
	return cmocka_run_group_tests(tests, measure_all, NULL);
}
