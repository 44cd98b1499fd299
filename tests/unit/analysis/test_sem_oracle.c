/*
 * What the images of issue 13's corner scenes allow at best: an ORACLE
 * that knows everything but the base radii - the true centres and the
 * true formation (the simulator itself: profile, h/R, detector azimuth,
 * beam blur, response, undulation, halftone screen; the shot noise and
 * the fine roughness left out: they are what it cannot know) - and
 * fits each tubercle's base radius by least squares of the rendered patch
 * to the observed one.
 *
 * How: the scene is rendered noise-free with every base radius scaled by
 * s (sem_opts.radius_scale) for a few s around 1; per counted tubercle the
 * sum of squared differences to the observed image over the pixels within
 * half a pitch of its centre (its own cell: the neighbours' bases lie
 * further out) is a function of s, whose minimum (a parabola through the
 * best scale and its two neighbours) gives the tubercle's radius. Two
 * oracles: "known" compares the patches as they are (the response known),
 * "affine" after the best gain and offset per patch (brightness and
 * contrast unknown, as they are to any method). Over the whole image the
 * known sums added give one common scale. Per scene: the mean D and mean
 * S error of the per-tubercle fits, the SD of their D errors, and the
 * common scale's D error; the tally of scenes meeting the issue's
 * targets.
 *
 * Where even the oracle misses the issue's 3 %, the image does not hold
 * the information (docs/paper-figures.md): no method can meet the target
 * there; where the oracle meets it and the detector (test_sem_accuracy)
 * does not, the method is to blame.
 *
 * The scenes are the 64 corners (sem_corner_scene) cut to 6 x 5 pitches
 * and without the paper margin and black surround (which hold no
 * tubercle), to keep the renders affordable.
 *
 * Also (h32f): on a 4-px flat-topped dome scene, the same affine fit with
 * the dome model's profile swapped for tapered ones - the image decides
 * the profile, and a tapered reading is 10-19 % large
 * (small_flat_dome_profile_decided; FS_ORACLE_PROFILE_ONLY=1 runs it
 * alone).
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

#include "scale_grid.h"
#include "sem_sim.h"

#define NSCENES 64
/* levels measured when this was written (a guard) */
#define ORACLE_LEVEL_KNOWN 54
#define ORACLE_LEVEL_AFFINE 59
#define NSCALES 6
static const double scales[NSCALES] = {0.85, 0.93, 0.98, 1.02, 1.07, 1.15};

/* errors of one way of fitting: mean D %, mean S %, SD of D % */
typedef struct fit_err {
	double d, s, sd;
	int clipped;
} fit_err;

typedef struct oracle_result {
	fit_err known; /* the response (brightness, contrast) known too */
	fit_err affine; /* gain and offset fitted per tubercle as well */
	double common_err;
	int sd_applies, n;
} oracle_result;

static oracle_result res[NSCENES];
static int n_run; /* scenes run (SEM_SCENE_STEP) */

static void oracle_opts(int k, sem_opts *o)
{
	sem_corner_scene(k, o);
	o->width = (int)(6 * o->pitch);
	o->height = (int)(5 * o->pitch);
	o->margin_top = 0;
	o->black_left = 0;
}

/* Best scale over the grid for sums sse[0..NSCALES-1] (scale_grid.h). */
static double best_scale(const double *sse, int *clip)
{
	return scale_grid_best(scales, sse, NSCALES, clip);
}

/* Per-tubercle radii from the sums sse (NSCALES per truth) and the errors
 * of their mean D, mean S and the SD of D, over the counted truths. */
static void errors_of(const sem_truth *t, const int *counted, const double *sse, fit_err *f)
{
	double *sc = calloc(t->n + 1, sizeof *sc);
	assert_non_null(sc);
	double sum_t = 0, sum_e = 0, se = 0, se2 = 0;
	int n = 0;
	memset(f, 0, sizeof *f);
	for (size_t j = 0; j < t->n; j++) {
		if (!counted[j])
			continue;
		int clip;
		sc[j] = best_scale(&sse[j * NSCALES], &clip);
		f->clipped += clip;
		double e = sc[j] - 1; /* D error, relative */
		sum_t += t->d[j];
		sum_e += sc[j] * t->d[j];
		se += e;
		se2 += e * e;
		n++;
	}
	f->d = 100 * (sum_e - sum_t) / sum_t;
	f->sd = 100 * sqrt(fmax(0, (se2 - se * se / n) / (n - 1)));
	double st = 0, sv = 0;
	for (size_t q = 0; q < t->n_pairs; q++) {
		int a = t->pi[q], b = t->pj[q];
		if (!counted[a] || !counted[b])
			continue;
		double dist = hypot(t->x[a] - t->x[b], t->y[a] - t->y[b]);
		st += t->space[q];
		sv += dist - 0.5 * (sc[a] * t->d[a] + sc[b] * t->d[b]);
	}
	f->s = st > 0 ? 100 * (sv - st) / st : NAN;
	free(sc);
}

static void run_scene(int k, oracle_result *r)
{
	sem_opts o;
	oracle_opts(k, &o);
	sem_truth t;
	fs_image *obs = sem_make(&o, &t);
	assert_non_null(obs);
	int W = obs->width, H = obs->height;
	double half = 0.5 * t.pitch;
	size_t nt = t.n;
	double *sse = calloc(nt * NSCALES + 1, sizeof *sse);
	double *ssa = calloc(nt * NSCALES + 1, sizeof *ssa);
	int *counted = calloc(nt + 1, sizeof *counted);
	assert_true(sse && ssa && counted);
	for (size_t j = 0; j < nt; j++)
		counted[j] = sem_counted(&t, t.x[j], t.y[j]);
	for (int q = 0; q < NSCALES; q++) {
		sem_opts m = o;
		/* the expected image: the formation without its noise, and
		 * without the fine roughness, whose one realisation no method
		 * could know (its curvature shows through the edge term) */
		m.dose = 0;
		m.roughness = 0;
		m.radius_scale = scales[q];
		sem_truth tm;
		fs_image *model = sem_make(&m, &tm);
		assert_non_null(model);
		for (size_t j = 0; j < nt; j++) {
			if (!counted[j])
				continue;
			int x0 = (int)floor(t.x[j] - half), x1 = (int)ceil(t.x[j] + half);
			int y0 = (int)floor(t.y[j] - half), y1 = (int)ceil(t.y[j] + half);
			double acc = 0, n = 0, so = 0, sm = 0, soo = 0, smm = 0, som = 0;
			for (int y = y0 < 0 ? 0 : y0; y <= y1 && y < H; y++) {
				for (int x = x0 < 0 ? 0 : x0; x <= x1 && x < W; x++) {
					if (hypot(x - t.x[j], y - t.y[j]) > half)
						continue;
					double ov = obs->data[(size_t)y * W + x], mv = model->data[(size_t)y * W + x];
					acc += (ov - mv) * (ov - mv);
					n++;
					so += ov;
					sm += mv;
					soo += ov * ov;
					smm += mv * mv;
					som += ov * mv;
				}
			}
			sse[j * NSCALES + q] = acc;
			/* the residual after the best gain and offset */
			double vm = smm - sm * sm / n, vo = soo - so * so / n, cv = som - so * sm / n;
			ssa[j * NSCALES + q] = vm > 1e-12 ? vo - cv * cv / vm : vo;
		}
		sem_truth_free(&tm);
		fs_image_free(model);
	}
	memset(r, 0, sizeof *r);
	for (size_t j = 0; j < nt; j++)
		r->n += counted[j];
	assert_true(r->n > 5);
	double dmean = 0;
	for (size_t j = 0; j < nt; j++)
		dmean += counted[j] ? t.d[j] : 0;
	dmean /= r->n;
	r->sd_applies = dmean >= 8 && o.halftone <= dmean / 3;
	errors_of(&t, counted, sse, &r->known);
	errors_of(&t, counted, ssa, &r->affine);
	double tot[NSCALES] = {0};
	for (size_t j = 0; j < nt; j++)
		for (int q = 0; q < NSCALES && counted[j]; q++)
			tot[q] += sse[j * NSCALES + q];
	int clip;
	r->common_err = 100 * (best_scale(tot, &clip) - 1);
	free(sse);
	free(ssa);
	free(counted);
	sem_truth_free(&t);
	fs_image_free(obs);
}

typedef struct tally {
	int d, s, sd, all;
} tally;

static tally met_known, met_affine;
static int n_sd, big_clean_ok;

static int meets(const fit_err *f, int sd_applies, tally *m)
{
	int ok_d = fabs(f->d) < 3, ok_s = fabs(f->s) < 3, ok_sd = !sd_applies || f->sd < 8;
	m->d += ok_d;
	m->s += ok_s;
	m->sd += sd_applies && f->sd < 8;
	m->all += ok_d && ok_s && ok_sd;
	return ok_d && ok_s && ok_sd;
}

static int run_all(void **state)
{
	(void)state;
	printf("sem oracle (true centres and formation, base radius fitted per tubercle by least squares; "
	       "scenes cut to 6 x 5 pitches). known: the response known; affine: gain and offset fitted "
	       "per tubercle too; common: one radius scale for the image:\n");
	printf("%-5s %-4s %-5s %-4s %-3s %-4s %-3s %4s | %6s %6s %6s | %6s %6s %6s | %7s\n", "scene", "fill",
	       "prof", "h/R", "ht", "az", "pit", "n", "D%", "S%", "sdD%", "affD%", "affS%", "affsd%", "commD%");
	big_clean_ok = 1;
	int clipped = 0;
	for (int k = 0; k < NSCENES; k += SEM_SCENE_STEP) {
		oracle_result *r = &res[k];
		n_run++;
		run_scene(k, r);
		n_sd += r->sd_applies;
		int ok_k = meets(&r->known, r->sd_applies, &met_known);
		int ok_a = meets(&r->affine, r->sd_applies, &met_affine);
		clipped += r->known.clipped + r->affine.clipped;
		printf("%-5d %-4.2f %-5s %-4.2f %-3d %-4d %-3d %4d | %6.2f %6.2f %6.2f%s| %6.2f %6.2f %6.2f | %7.2f%s%s\n",
		       k, k & 1 ? 0.80 : 0.25, k & 2 ? "flat" : "sph", k & 4 ? 1.0 : 0.25, k & 8 ? 5 : 0,
		       k & 16 ? 135 : 0, k & 32 ? 64 : 16, r->n, r->known.d, r->known.s, r->known.sd,
		       r->sd_applies ? "*" : " ", r->affine.d, r->affine.s, r->affine.sd, r->common_err,
		       ok_k ? "" : " (known misses)", ok_a ? "" : " (affine misses)");
		/* pitch 64 without halftone: D 16-51 px, the formation known
		 * up to brightness and contrast */
		if ((k & 32) && !(k & 8) && (fabs(r->affine.d) >= 1 || r->affine.sd >= 2))
			big_clean_ok = 0;
	}
	printf("oracle targets met (|mean D|, |mean S| < 3 %%, D SD < 8 %% where * applies): known: D %d/%d, "
	       "S %d/%d, SD %d/%d, all three %d/%d; affine: D %d/%d, S %d/%d, SD %d/%d, all three %d/%d; "
	       "fits at the end of the scale grid %d\n",
	       met_known.d, NSCENES, met_known.s, NSCENES, met_known.sd, n_sd, met_known.all, NSCENES,
	       met_affine.d, NSCENES, met_affine.s, NSCENES, met_affine.sd, n_sd, met_affine.all, NSCENES,
	       clipped);
	return 0;
}

/* The physics: knowing the formation up to brightness and contrast, the
 * base of a large dome is in the image (within 1 % on average, 2 % per
 * tubercle, at pitch 64 without a halftone screen), and the oracles meet
 * all three targets in at least the scenes measured when this was written
 * (known 54, affine 59 of 64). */
static void oracle_levels(void **state)
{
	(void)state;
	assert_true(big_clean_ok);
	assert_int_equal(n_run, NSCENES / SEM_SCENE_STEP);
	if (SEM_SCENE_STEP > 1)
		return;
	assert_true(met_known.all >= ORACLE_LEVEL_KNOWN);
	assert_true(met_affine.all >= ORACLE_LEVEL_AFFINE);
}


/* What a 4-px flat-topped dome's image decides (h32f, issue 13; corner
 * scene 2: fill 0.25 at pitch 16, flat-topped, h/R 0.25, no screen): the
 * oracle's affine fit with the profile of the dome model swapped for a
 * tapered one. The true (flat-topped) profile fits the patches clearly
 * best, and reads D within 2 %; a tapered profile (spherical cap or
 * paraboloid, the shapes a blurred 4-px dome is otherwise read as) fits
 * worse by more than a fifth of the residual and reads D at least 5 %
 * large: its brightness lies further in than a flat top's rim, so only a
 * larger tapered dome puts it where the rim is. So the image holds the
 * profile, and the dome rule's +14 to +20 % on such scenes
 * (test_sem_accuracy) is the method reading them as tapered, not a
 * limit of the image (docs/paper-figures.md, section h32f). Every
 * tubercle of one formation shares one scale here (the sums of all
 * counted patches). About 0.5 s of CPU plain (41 renders of 96 x 80 px). */
#define NPROF_SCALES 9
static void small_flat_dome_profile_decided(void **state)
{
	(void)state;
	static const double sc[NPROF_SCALES] = {0.90, 0.95, 1.00, 1.05, 1.10, 1.15, 1.20, 1.25, 1.30};
	/* profile, h/R: the truth first */
	static const double forms[][2] = {{2, 0.25}, {0, 0.25}, {0, 0.5}, {1, 0.25}, {1, 0.5}};
	const int nforms = (int)(sizeof forms / sizeof forms[0]);
	sem_opts o;
	oracle_opts(2, &o);
	assert_true(o.profile == forms[0][0] && o.h_over_r == forms[0][1] && o.halftone == 0);
	sem_truth t;
	fs_image *obs = sem_make(&o, &t);
	assert_non_null(obs);
	int W = obs->width, H = obs->height, nc = 0;
	double half = 0.5 * t.pitch, best_s[8], least[8];
	for (size_t j = 0; j < t.n; j++)
		nc += sem_counted(&t, t.x[j], t.y[j]);
	assert_true(nc >= 10);
	for (int f = 0; f < nforms; f++) {
		double tot[NPROF_SCALES];
		for (int q = 0; q < NPROF_SCALES; q++) {
			sem_opts m = o;
			m.dose = 0;
			m.roughness = 0;
			m.profile = forms[f][0];
			m.h_over_r = forms[f][1];
			m.radius_scale = sc[q];
			sem_truth tm;
			fs_image *model = sem_make(&m, &tm);
			assert_non_null(model);
			tot[q] = 0;
			for (size_t j = 0; j < t.n; j++) {
				if (!sem_counted(&t, t.x[j], t.y[j]))
					continue;
				double n = 0, so = 0, sm = 0, soo = 0, smm = 0, som = 0;
				for (int y = (int)floor(t.y[j] - half); y <= (int)ceil(t.y[j] + half); y++)
					for (int x = (int)floor(t.x[j] - half); x <= (int)ceil(t.x[j] + half); x++) {
						if (x < 0 || y < 0 || x >= W || y >= H ||
						    hypot(x - t.x[j], y - t.y[j]) > half)
							continue;
						double ov = obs->data[(size_t)y * W + x];
						double mv = model->data[(size_t)y * W + x];
						n++;
						so += ov;
						sm += mv;
						soo += ov * ov;
						smm += mv * mv;
						som += ov * mv;
					}
				double vm = smm - sm * sm / n, vo = soo - so * so / n, cv = som - so * sm / n;
				tot[q] += vm > 1e-12 ? vo - cv * cv / vm : vo;
			}
			sem_truth_free(&tm);
			fs_image_free(model);
		}
		int clip;
		best_s[f] = scale_grid_best(sc, tot, NPROF_SCALES, &clip);
		least[f] = tot[0];
		for (int q = 1; q < NPROF_SCALES; q++)
			least[f] = fmin(least[f], tot[q]);
		printf("scene 2, dome model profile %.0f h/R %.2f: D %+.1f %%, least residual %.4f (%.2f x the "
		       "true profile's)%s\n",
		       forms[f][0], forms[f][1], 100 * (best_s[f] - 1), least[f], least[f] / least[0],
		       clip ? " (at the grid's end)" : "");
	}
	assert_true(fabs(best_s[0] - 1) < 0.02);
	for (int f = 1; f < nforms; f++) {
		assert_true(least[f] > 1.2 * least[0]);
		assert_true(best_s[f] > 1.05);
	}
	sem_truth_free(&t);
	fs_image_free(obs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(oracle_levels),
	};
	const struct CMUnitTest profile[] = {
		cmocka_unit_test(small_flat_dome_profile_decided),
	};
	int rc = cmocka_run_group_tests_name("sem oracle, a small dome's profile", profile, NULL, NULL);
	if (getenv("FS_ORACLE_PROFILE_ONLY"))
		return rc;
	return rc | cmocka_run_group_tests_name("sem oracle", tests, run_all, NULL);
}
