/*
 * The templates' fine step taking the coarse step's renders of the same
 * fills (dome_base_fit.c's kept_renders, h46f): a build must give every
 * template, sum and weight to the bit whether the fine step renders each
 * fill afresh (fs_dome_tpl_forbid_reuse) or takes the coarse one. Three
 * formations over two scenes: corner scene 33 (pitch 64, points off the
 * pixel grid) with a formation fitted from the true centres (shadowed)
 * and the same without its shadow; corner scene 2 (pitch 16, the points
 * on the pixel grid: the phase templates too) with the simulator's
 * formation without its shadow. Each build is also asked to take fills
 * from the coarse step (counted with set_fills' expressions), so the kept
 * renders are used.
 *
 * Why: the bench fingerprints reach the kept renders only where their
 * builds happen to pick the coarse step's middle fill; a wrong copy (a
 * component off by one, the shadow's kept from another window) shows in
 * the templates here wherever a fill is taken. Checked to fail: the kept
 * render of the next (or the one before) kept fill taken fails both tests
 * in t; the shadow's component kept as a copy of the yield fails the
 * shadowed build. Cost: about 0.2 s of CPU (six builds).
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

#include "analysis/dome_fit.h"
#include "analysis/dome_base_fit.h"
#include "analysis/preprocess.h"
#include "sem_cache.h"
#include "formation_calib.h"

/* set_fills' coarse and fine steps (dome_base_fit.c): fills fc (0.70 +
 * step k), k while the factor stays <= 1.30, fc at most 0.85 */
static int fills_of(double fc, double step, double *out)
{
	fc = fmin(fc, 0.85);
	int n = 0;
	for (int k = 0; 0.70 + step * k <= 2 - 0.70 + 1e-9 && k < FS_DOME_TPL_NFILL; k++) {
		double fl = fc * (0.70 + step * k);
		if (fl >= 0.05 && fl <= 0.96)
			out[n++] = fl;
	}
	return n;
}

/* How many of t's (fine) fills the fine step takes from the coarse one:
 * a coarse fill of fill0 to the bit, rendered in the same window (none
 * where the mix dropped the coarse step's shadow: the fine step renders
 * without its reach). */
static int shared_fills(const fs_dome_tpl *t, const fs_dome_fit *f, double fill0)
{
	if (t->shadowed != (f->elevation > 0 && f->h_over_r > 0))
		return 0;
	double coarse[FS_DOME_TPL_NFILL];
	int nc = fills_of(fill0, 3 * 0.05, coarse), n = 0;
	for (int k = 0; k < t->nk; k++)
		for (int i = 0; i < nc; i++)
			if (!memcmp(&t->fill[k], &coarse[i], sizeof coarse[i])) {
				n++;
				break;
			}
	return n;
}

static void same_array(const void *a, const void *b, size_t bytes, const char *what)
{
	assert_true((a == NULL) == (b == NULL));
	if (a && memcmp(a, b, bytes)) {
		fprintf(stderr, "templates differ in %s\n", what);
		fail();
	}
}

/* Builds t on img with and without the kept renders and compares them. */
static void both_ways(const fs_image *img, const fs_dome_fit *f, double fill0, const double *xs, const double *ys,
		      size_t n, const char *label)
{
	fs_dome_tpl a, b;
	char err[128];
	fs_dome_tpl_forbid_reuse(1);
	int ra = fs_dome_tpl_build(img, f, fill0, xs, ys, n, &a, err, sizeof err);
	fs_dome_tpl_forbid_reuse(0);
	int rb = fs_dome_tpl_build(img, f, fill0, xs, ys, n, &b, err, sizeof err);
	assert_int_equal(ra, 0);
	assert_int_equal(rb, 0);
	int shared = shared_fills(&b, f, fill0);
	printf("%s: %d fills, %d of them taken from the coarse step, shadowed %d, %d phase(s)\n", label, b.nk,
	       shared, b.shadowed, b.nph);
	assert_true(shared > 0);
	assert_int_equal(a.nk, b.nk);
	assert_int_equal(a.npts, b.npts);
	assert_int_equal(a.shadowed, b.shadowed);
	assert_int_equal(a.nph, b.nph);
	assert_int_equal(a.nmix, b.nmix);
	assert_int_equal(a.pick_edge, b.pick_edge);
	same_array(a.fill, b.fill, sizeof a.fill, "fill");
	same_array(a.t, b.t, (size_t)a.nk * a.npts * sizeof *a.t, "t");
	same_array(a.tp, b.tp, (size_t)a.nk * a.npts * sizeof *a.tp, "tp");
	same_array(a.st, b.st, (size_t)a.nk * sizeof *a.st, "st");
	same_array(a.stt, b.stt, (size_t)a.nk * sizeof *a.stt, "stt");
	same_array(a.mixw, b.mixw, (size_t)(a.nmix + 1) * sizeof *a.mixw, "mixw");
	if (a.tpp) {
		size_t nph2 = (size_t)a.nph * a.nph;
		same_array(a.tpp, b.tpp, nph2 * a.npts * a.nk * sizeof *a.tpp, "tpp");
		same_array(a.stp, b.stp, nph2 * FS_DOME_TPL_NFILL * sizeof *a.stp, "stp");
		same_array(a.sttp, b.sttp, nph2 * FS_DOME_TPL_NFILL * sizeof *a.sttp, "sttp");
	}
	fs_dome_tpl_free(&a);
	fs_dome_tpl_free(&b);
}

/* A corner scene's image and true centres (counted ones), pitch in *pitch. */
static fs_image *scene(int k, double cut, sem_truth *t, double **xs, double **ys, size_t *n, double *md)
{
	sem_opts o;
	sem_corner_scene(k, &o);
	if (cut > 0) {
		o.width = (int)(cut * o.pitch);
		o.height = (int)(cut * o.pitch);
	}
	o.margin_top = 0;
	o.black_left = 0;
	fs_image *img = sem_make_shared(&o, t);
	assert_non_null(img);
	*xs = malloc(t->n * sizeof **xs);
	*ys = malloc(t->n * sizeof **ys);
	assert_true(*xs && *ys);
	*n = 0;
	*md = 0;
	for (size_t j = 0; j < t->n; j++) {
		(*xs)[*n] = t->x[j];
		(*ys)[*n] = t->y[j];
		*md += t->d[j];
		(*n)++;
	}
	*md /= *n;
	return img;
}

static void pitch64_fitted_and_shadowed(void **state)
{
	(void)state;
	sem_truth t;
	double *xs, *ys, md;
	size_t n;
	fs_image *raw = scene(33, 6, &t, &xs, &ys, &n, &md);
	char err[256];
	fs_image *img = fs_gaussian_blurred(raw, 1.0, err, sizeof err);
	assert_non_null(img);
	double pitch = fs_dome_fit_pitch(xs, ys, n);
	fs_dome_fit_opts fo;
	fs_dome_fit_opts_default(&fo);
	fo.no_sigma = 1;
	fo.keep_formation = 1;
	fo.fill_min = fo.fill_max = md / pitch;
	fs_dome_fit f;
	assert_int_equal(fs_dome_fit_image(img, xs, ys, n, pitch, &fo, &f, err, sizeof err), 0);
	assert_true(f.elevation > 0);
	both_ways(img, &f, md / pitch, xs, ys, n, "corner 33, fitted formation");
	/* the same without a shadow (no detector elevation) */
	f.elevation = 0;
	both_ways(img, &f, md / pitch, xs, ys, n, "corner 33, no shadow");
	fs_image_free(img);
	fs_image_free(raw);
	free(xs);
	free(ys);
	sem_truth_free(&t);
}

static void pitch16_on_the_pixel_grid(void **state)
{
	(void)state;
	sem_truth t;
	double *xs, *ys, md;
	size_t n;
	fs_image *img = scene(2, 0, &t, &xs, &ys, &n, &md);
	sem_opts o;
	sem_corner_scene(2, &o);
	fs_dome_fit f;
	formation_sim(&o, t.pitch, 0.25, o.beam_blur, &f);
	/* (the simulator's detector casts a shadow the mix drops there, and
	 * the fine step then renders every fill: without one) */
	f.elevation = 0;
	both_ways(img, &f, 0.25, xs, ys, n, "corner 2, the simulator's formation");
	fs_image_free(img);
	free(xs);
	free(ys);
	sem_truth_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pitch64_fitted_and_shadowed),
		cmocka_unit_test(pitch16_on_the_pixel_grid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
