/*
 * What the paper figures themselves support for their fill ratio D / pitch
 * (issue 13 section 4, "the paper figures, honestly"), judged by the SEM
 * simulator's image formation rather than by a brightness rule.
 *
 * For each figure of paper 1 (the five whose pixel size the papers share):
 *  - the figure's mean radial brightness profile around the default
 *    detector's centres, r = 0 .. 0.6 pitch, as % of its contrast (0 = the
 *    mean at 0.45-0.55 pitch, 100 = the centre) - a shape that does not
 *    depend on the print's brightness and contrast;
 *  - where the published diameter falls on it (% of contrast at r = D/2),
 *    and the fills at which the profile crosses 50, 25, 10 and 5 %;
 *  - the same profile of simulated SEM images (tests/unit/support/sem_sim.h,
 *    the true centres, no noise; rendered once at a pitch of 40 px, the
 *    profile being in units of the pitch) at each fill of a grid, the dome
 *    and its formation searched: h/R 0.25, 0.6, 1.0; profile spherical,
 *    paraboloid, flat-topped; edge brightening 0.5 and 2; a Gaussian blur
 *    of 0.015-0.19 pitch after the beam (the print's screen, the scan and
 *    the detected centres' scatter smear the mean profile as a blur does;
 *    the formation fit of dome_fit.h reads Fig4's as 0.13 pitch). Per fill
 *    the RMS difference (% of contrast) of the best rendering is printed:
 *    a fill whose best rendering is far from the figure is a fill the
 *    figure does not show. Renderings whose dome centres are darker than
 *    their surroundings are left out (every figure's are brighter; the
 *    normalised shape alone would not tell the sign).
 * The figure's own noise: half the RMS difference of the profiles of its
 * even- and odd-numbered centres.
 *
 * What this establishes (asserted at the levels measured, 2026-11-28):
 *  - P1 Fig4 (Atractosteus simplex, published 0.730): its profile is that
 *    of domes of fill 0.25-0.30 (RMS 0.8 % of contrast; supported
 *    0.20-0.35), and no dome lattice of fill 0.73 renders it (best 18 %
 *    off, 23 x the best); its published base lies at the foot of the
 *    brightness (4.5 % of contrast), where Fig2's lies on the slope (37 %);
 *  - P1 Fig2 (Polypterus bichir, published 0.298): best at 0.20-0.25,
 *    and its published fill renders it about 3 x the best's difference
 *    (4.5 % against 1.5 % around the outline rule's centres, 7.5 % against
 *    2.2 % around the dome rule's), where Fig4's is 13-24 x its best.
 *    Whether 0.298 falls inside the "supported" band depends on the
 *    centres, not on the figure: the band reaches 3 x the figure's own
 *    noise (the even and odd centres' profiles) above the best, 4.5 %
 *    around the outline rule's centres (noise 1.5 %: debris taken for
 *    tubercles, tubercles missed; docs/paper-figures.md, h23e) and 1.5 %
 *    around the dome rule's (noise 0.5 %), so the better centres narrow
 *    it below the bank's own model error (the best is 1.5-2.2 % off):
 *    0.15-0.30 against 0.15-0.25. So what is
 *    asserted for Fig2 is the published fill's difference in units of the
 *    best's, which both sets of centres measure alike.
 * The blur and the fill trade against each other (a smaller dome blurred
 * more looks the same), so the profile bounds the fill from above more
 * firmly than from below. Every figure of paper 1 reads best at
 * 0.15-0.40: the profiles do not separate the genera either, and the
 * published fills of Fig1 and Fig3 lie outside what theirs support too;
 * docs/paper-figures.md has the tables.
 * Under the sanitizers only Fig2 and Fig4 and four fills are run.
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
#include "analysis/dome_fit.h"
#include "analysis/preprocess.h"
#include "image/image_io.h"
#include "paper_figs.h"
#include "sem_sim.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

#define NPROF 25          /* profile samples, every 0.025 pitch to 0.6 */
#define PSTEP 0.025
#define NFILL_MAX 16

static const double HR[] = {0.25, 0.6, 1.0};
static const double SHAPE[] = {0, 1, 2};
static const double EDGE[] = {0.5, 2.0};
/* Gaussian sigma after the beam, pitches (Fig4's formation fit: 0.13) */
static const double BLUR[] = {0.015, 0.04, 0.08, 0.13, 0.19};

typedef struct figure {
	paper_fig pub;
	double pitch;
	size_t n, used;
	double prof[NPROF], noise;
	double at_published;      /* % of contrast at r = published D / 2 */
	double level_fill[4];     /* fills where the profile crosses 50, 25, 10, 5 % */
	int nfill;
	double fill[NFILL_MAX], rms[NFILL_MAX];
	char best_shape[NFILL_MAX][96];
	double best_fill, best_rms, rms_published, lo, hi;
} figure;

static figure figs[8];
static int nfigs;

/* Mean radial profile of img around the centres whose disc of 0.62 pitch
 * lies inside (every k-th from first), as % of contrast at NPROF radii;
 * returns the number of centres used. */
static size_t radial(const fs_image *img, const double *xs, const double *ys, size_t n, size_t first, size_t k,
		     double pitch, double *pc, double *top_out)
{
	double raw[61] = {0};
	size_t used = 0;
	double R = 0.62 * pitch;
	for (size_t i = first; i < n; i += k) {
		if (xs[i] < R || ys[i] < R || xs[i] > img->width - 1 - R || ys[i] > img->height - 1 - R)
			continue;
		used++;
		for (int j = 0; j <= 60; j++)
			for (int a = 0; a < 72; a++) {
				double r = j * 0.01 * pitch, th = a * M_PI / 36;
				raw[j] += fs_image_sample(img, xs[i] + r * cos(th), ys[i] + r * sin(th)) / 72;
			}
	}
	if (!used)
		return 0;
	double ground = 0;
	for (int j = 45; j <= 55; j++)
		ground += raw[j] / used / 11;
	double top = raw[0] / used - ground;
	if (top_out)
		*top_out = top;
	for (int q = 0; q < NPROF; q++) {
		double r = q * PSTEP * 100;
		int j = (int)floor(r);
		double f = r - j, v = (j < 60 ? raw[j] * (1 - f) + raw[j + 1] * f : raw[60]) / used;
		pc[q] = 100 * (v - ground) / top;
	}
	return used;
}

static double rms_diff(const double *a, const double *b)
{
	double s = 0;
	for (int q = 0; q < NPROF; q++)
		s += (a[q] - b[q]) * (a[q] - b[q]);
	return sqrt(s / NPROF);
}

/* % of contrast at r (pitches) by linear interpolation of the profile. */
static double prof_at(const double *pc, double r)
{
	double x = r / PSTEP;
	int j = (int)floor(x);
	if (j >= NPROF - 1)
		return pc[NPROF - 1];
	return pc[j] + (x - j) * (pc[j + 1] - pc[j]);
}

/* The simulator's profiles, rendered once for every figure: in units of
 * the pitch a scene's profile does not depend on the pitch in px beyond the
 * beam's fraction of a pixel, so one bank at SIM_PITCH serves them all. */
#define SIM_PITCH 40.0
#define NSHAPE (int)(sizeof HR / sizeof HR[0] * sizeof SHAPE / sizeof SHAPE[0] * sizeof EDGE / sizeof EDGE[0])
#define NBLUR (int)(sizeof BLUR / sizeof BLUR[0])

typedef struct bank {
	int nfill;
	double fill[NFILL_MAX];
	/* profile per fill, shape and blur; valid = 0 where the dome's centre
	 * renders darker than its surroundings (the figures' are brighter) */
	double prof[NFILL_MAX][NSHAPE][NBLUR][NPROF];
	unsigned char valid[NFILL_MAX][NSHAPE][NBLUR];
} bank;

static bank *sims;

static void shape_name(int k, char *out, size_t len)
{
	int ne = (int)(sizeof EDGE / sizeof EDGE[0]), ns = (int)(sizeof SHAPE / sizeof SHAPE[0]);
	int e = k % ne, q = (k / ne) % ns, h = k / ne / ns;
	snprintf(out, len, "h/R %.2f %s edge %.1f", HR[h], q == 0 ? "spherical " : q == 1 ? "paraboloid" : "flat-top  ",
		 EDGE[e]);
}

/* Each dome and formation rendered once at every edge brightening
 * (sem_make_edges: the same images as a render per strength). */
static void bank_render(bank *b, const double *fills, int nfill)
{
	int ne = (int)(sizeof EDGE / sizeof EDGE[0]), ns = (int)(sizeof SHAPE / sizeof SHAPE[0]);
	b->nfill = nfill;
	for (int f = 0; f < nfill; f++) {
		b->fill[f] = fills[f];
		for (int k0 = 0; k0 < NSHAPE; k0 += ne) {
			sem_opts o;
			sem_defaults(&o);
			o.pitch = SIM_PITCH;
			o.width = (int)(5 * SIM_PITCH);
			o.height = (int)(4.5 * SIM_PITCH);
			o.fill = fills[f];
			o.profile = SHAPE[(k0 / ne) % ns];
			o.h_over_r = HR[k0 / ne / ns];
			o.dose = 0; /* the mean of many domes: noise averages out */
			o.bits = 0;
			o.drift = 0;
			o.seed = 11;
			sem_truth t;
			fs_image *img[sizeof EDGE / sizeof EDGE[0]];
			assert_int_equal(sem_make_edges(&o, EDGE, ne, img, &t), 0);
			for (int e = 0; e < ne; e++) {
				int k = k0 + e;
				for (int j = 0; j < NBLUR; j++) {
					char err[128];
					fs_image *bl = fs_gaussian_blurred(img[e], BLUR[j] * SIM_PITCH, err, sizeof err);
					assert_non_null(bl);
					double top = 0;
					assert_true(radial(bl, t.x, t.y, t.n, 0, 1, SIM_PITCH, b->prof[f][k][j], &top) >= 3);
					b->valid[f][k][j] = top > 0;
					fs_image_free(bl);
				}
				fs_image_free(img[e]);
			}
			sem_truth_free(&t);
		}
	}
}

/* The best simulated match at fill index f: the smallest RMS difference
 * over the dome shapes, edge brightenings and blurs. */
static double sim_best(const figure *g, int f, char *shape, size_t len)
{
	double best = INFINITY;
	for (int k = 0; k < NSHAPE; k++)
		for (int j = 0; j < NBLUR; j++) {
			if (!sims->valid[f][k][j])
				continue;
			double d = rms_diff(sims->prof[f][k][j], g->prof);
			if (d < best) {
				best = d;
				char nm[48];
				shape_name(k, nm, sizeof nm);
				snprintf(shape, len, "%s blur %.3f pitch (%.1f px)", nm, BLUR[j], BLUR[j] * g->pitch);
			}
		}
	return best;
}

static void measure(figure *g)
{
	char path[400], err[256];
	snprintf(path, sizeof path, PAPER_FIGS_DIR "%.150s", g->pub.file);
	fs_loaded L;
	assert_int_equal(fs_load_file(path, NULL, &L, err, sizeof err), 0);
	fs_image *img = fs_image_to_float(L.image);
	assert_non_null(img);
	fs_params p;
	fs_params_default(&p);
	fs_detect_result res;
	assert_int_equal(fs_detect(img, &p, 0, &res, err, sizeof err), 0);
	g->n = res.tubercles.n;
	double *xs = malloc((g->n + 1) * sizeof *xs), *ys = malloc((g->n + 1) * sizeof *ys);
	assert_true(xs && ys);
	for (size_t i = 0; i < g->n; i++) {
		xs[i] = res.tubercles.items[i].centroid_x;
		ys[i] = res.tubercles.items[i].centroid_y;
	}
	g->pitch = fs_dome_fit_pitch(xs, ys, g->n);
	assert_true(g->pitch > 10);
	g->used = radial(img, xs, ys, g->n, 0, 1, g->pitch, g->prof, NULL);
	assert_true(g->used >= 8);
	double even[NPROF], odd[NPROF];
	assert_true(radial(img, xs, ys, g->n, 0, 2, g->pitch, even, NULL) > 0);
	assert_true(radial(img, xs, ys, g->n, 1, 2, g->pitch, odd, NULL) > 0);
	g->noise = rms_diff(even, odd) / 2;
	g->at_published = prof_at(g->prof, g->pub.ratio / 2);
	static const double LV[4] = {50, 25, 10, 5};
	for (int l = 0; l < 4; l++) {
		g->level_fill[l] = NAN;
		for (int q = 1; q < NPROF; q++)
			if (g->prof[q] <= LV[l]) {
				double a = g->prof[q - 1] - LV[l], b = g->prof[q] - LV[l];
				g->level_fill[l] = 2 * PSTEP * (q - 1 + a / (a - b));
				break;
			}
	}
	free(xs);
	free(ys);
	fs_detect_result_free(&res);
	fs_image_free(img);
	fs_loaded_free(&L);
}

/* The fills of the bank: a grid, and every figure's published fill. */
static int bank_fills(double *fills)
{
	static const double FULL[] = {0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8};
	static const double SAN[] = {0.2, 0.3, 0.45, 0.6};
	const double *grid = SANITIZED ? SAN : FULL;
	int n = SANITIZED ? 4 : (int)(sizeof FULL / sizeof FULL[0]);
	memcpy(fills, grid, n * sizeof *fills);
	for (int i = 0; i < nfigs; i++) {
		int have = 0;
		for (int j = 0; j < n; j++)
			have |= fabs(fills[j] - figs[i].pub.ratio) < 0.005;
		if (have || n == NFILL_MAX)
			continue;
		int j = n++;
		while (j > 0 && fills[j - 1] > figs[i].pub.ratio) {
			fills[j] = fills[j - 1];
			j--;
		}
		fills[j] = figs[i].pub.ratio;
	}
	return n;
}

static void sweep(figure *g)
{
	g->nfill = sims->nfill;
	g->best_rms = INFINITY;
	g->rms_published = NAN;
	for (int i = 0; i < g->nfill; i++) {
		g->fill[i] = sims->fill[i];
		g->rms[i] = sim_best(g, i, g->best_shape[i], sizeof g->best_shape[i]);
		if (g->rms[i] < g->best_rms) {
			g->best_rms = g->rms[i];
			g->best_fill = g->fill[i];
		}
		if (fabs(g->fill[i] - g->pub.ratio) < 0.005)
			g->rms_published = g->rms[i];
	}
	/* supported: within the figure's noise (3 sigma) or a third of the
	 * best's own difference above the best - the grid is coarse and the
	 * shapes few, so the best itself is no exact fit */
	double tol = fmax(3 * g->noise, g->best_rms / 3);
	g->lo = INFINITY;
	g->hi = -INFINITY;
	for (int i = 0; i < g->nfill; i++)
		if (g->rms[i] <= g->best_rms + tol) {
			g->lo = fmin(g->lo, g->fill[i]);
			g->hi = fmax(g->hi, g->fill[i]);
		}
}

static int setup(void **state)
{
	(void)state;
	paper_fig all[PAPER_FIGS_MAX];
	int n = paper_figs_read(all, PAPER_FIGS_MAX);
	nfigs = 0;
	for (int i = 0; i < n; i++) {
		if (strcmp(all[i].paper, "P1"))
			continue;
		if (SANITIZED && strncmp(all[i].file, "P1_Fig2_", 8) && strncmp(all[i].file, "P1_Fig4_", 8))
			continue;
		figs[nfigs++].pub = all[i];
	}
	if (nfigs < (SANITIZED ? 2 : 5))
		return -1;
	printf("# paper 1: where the published diameter falls on each figure's mean radial brightness profile\n");
	printf("# %-38s %4s %6s %6s | %9s %9s | fill at 50 %%  25 %%  10 %%   5 %%\n", "figure", "n", "pitch",
	       "noise", "published", "sits at");
	for (int i = 0; i < nfigs; i++) {
		figure *g = &figs[i];
		measure(g);
		printf("# %-38.38s %4zu %6.1f %5.1f%% | %9.3f %7.1f %% |      %5.3f %5.3f %5.3f %5.3f\n", g->pub.file,
		       g->used, g->pitch, g->noise, g->pub.ratio, g->at_published, g->level_fill[0],
		       g->level_fill[1], g->level_fill[2], g->level_fill[3]);
		printf("#   profile (%% of contrast, every 0.05 pitch):");
		for (int q = 0; q < NPROF; q += 2)
			printf(" %.0f", g->prof[q]);
		printf("\n");
		fflush(stdout);
	}
	double fills[NFILL_MAX];
	sims = calloc(1, sizeof *sims);
	if (!sims)
		return -1;
	bank_render(sims, fills, bank_fills(fills));
	printf("# the simulator's domes at each fill, best shape and blur: RMS difference from the figure's profile "
	       "(%% of contrast)\n");
	for (int i = 0; i < nfigs; i++) {
		figure *g = &figs[i];
		sweep(g);
		printf("# %s (published %.3f)\n", g->pub.file, g->pub.ratio);
		for (int k = 0; k < g->nfill; k++)
			printf("#   fill %.3f  rms %5.1f  %s%s\n", g->fill[k], g->rms[k], g->best_shape[k],
			       fabs(g->fill[k] - g->pub.ratio) < 0.005 ? "  <- published" : "");
		printf("#   best fill %.3f (rms %.1f); supported %.2f-%.2f; published %.3f: rms %.1f (%.1f x the best)\n",
		       g->best_fill, g->best_rms, g->lo, g->hi, g->pub.ratio, g->rms_published,
		       g->rms_published / g->best_rms);
		fflush(stdout);
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(sims);
	return 0;
}

static const figure *find(const char *prefix)
{
	for (int i = 0; i < nfigs; i++)
		if (!strncmp(figs[i].pub.file, prefix, strlen(prefix)))
			return &figs[i];
	return NULL;
}

/* Fig4's published fill is not what its image shows; Fig2's is. */
static void fig4_profile_excludes_its_published_fill(void **state)
{
	(void)state;
	const figure *g = find("P1_Fig4_");
	assert_non_null(g);
	/* measured: 0.73 about 40 % of contrast off, the best about 1 % */
	assert_true(g->rms_published >= 15);
	assert_true(g->rms_published >= 5 * g->best_rms);
	assert_true(g->best_fill <= 0.45);
	assert_true(g->hi < g->pub.ratio);
}

static void fig2_profile_supports_its_published_fill(void **state)
{
	(void)state;
	const figure *g = find("P1_Fig2_");
	const figure *f4 = find("P1_Fig4_");
	assert_non_null(g);
	assert_non_null(f4);
	/* measured 3.1 (outline rule's centres) and 3.5 (dome rule's) */
	assert_true(g->rms_published <= 4 * g->best_rms);
	assert_true(fabs(g->best_fill - g->pub.ratio) <= 0.1);
	/* and nowhere near Fig4's misfit (23.5 and 12.7 x its best) */
	assert_true(f4->rms_published / f4->best_rms >= 3 * g->rms_published / g->best_rms);
}

/* Where the published bases fall: Fig2's half way down the slope of its
 * tubercles' brightness, Fig4's at its foot. */
static void published_bases_sit_at_different_levels(void **state)
{
	(void)state;
	const figure *f2 = find("P1_Fig2_"), *f4 = find("P1_Fig4_");
	assert_non_null(f2);
	assert_non_null(f4);
	assert_true(f2->at_published >= 25);
	assert_true(f4->at_published <= 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fig4_profile_excludes_its_published_fill),
		cmocka_unit_test(fig2_profile_supports_its_published_fill),
		cmocka_unit_test(published_bases_sit_at_different_levels),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
