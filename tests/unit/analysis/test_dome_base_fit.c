/*
 * The per-tubercle template fit through the image's formation
 * (dome_base_fit.h) against the SEM simulator's truth, apart from the
 * detector: from the true centres, with the formation fitted to the image
 * at a fill held 10 % below the truth (as the dome rule holds it at its
 * own, biased reading) and not searched again, each tubercle fitted with
 * its own gain and offset. What the dome rule takes from it
 * (detect_base_fit.h) is each tubercle's size relative to the image's
 * others: the scatter of the per-tubercle D error about its mean is
 * asserted (the target: SD below 8 % of D), the level only
 * loosely (the formation is the held fit's).
 *
 * Scenes: corners of test_sem_accuracy at pitch 64 (low spherical caps,
 * one under a 5 px halftone screen; steep and flat-topped domes), cut to
 * 6 x 5 pitches like the oracle's. Also: a centre given 0.03 pitch off
 * comes back, two starts a fraction of the search's step apart end at
 * the same centre, and a flat patch has no base. And at pitch 16, where
 * the points lie on the pixel grid, the templates as the patch's read
 * at the centre's phase sees them tell a 4-px flat-topped dome from a
 * paraboloid (small_flat_domes_profile, h32f). And where the scene
 * shows domes of one fill, the wide read names it well clear of its own
 * noise (wide_read_names_a_true_fill, h38o).
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
#include "analysis/detect_base_fit.h"
#include "analysis/halftone.h"
#include "analysis/preprocess.h"
#include "sem_cache.h"
#include "formation_calib.h"

typedef struct tpl_scene {
	sem_truth t;
	fs_image *img; /* what the bases are read on (screen removed) */
	fs_dome_tpl tpl;
	fs_dome_fit f; /* the formation tpl was built from */
	double *xs, *ys;
	size_t n;
} tpl_scene;

static void scene_open(int k, tpl_scene *s)
{
	sem_opts o;
	sem_corner_scene(k, &o);
	o.width = (int)(6 * o.pitch);
	o.height = (int)(5 * o.pitch);
	o.margin_top = 0;
	o.black_left = 0;
	/* scenes 33 and 36 are opened by several tests: rendered once a run
	 * (sem_cache.h; the same bits as sem_make) */
	fs_image *raw = sem_make_shared(&o, &s->t);
	assert_non_null(raw);
	char err[256];
	/* the dome rule's measurement image: 1 px of smoothing at this pitch */
	fs_image *m = fs_gaussian_blurred(raw, 1.0, err, sizeof err);
	assert_non_null(m);
	fs_image_free(raw);
	s->xs = malloc(s->t.n * sizeof *s->xs);
	s->ys = malloc(s->t.n * sizeof *s->ys);
	assert_true(s->xs && s->ys);
	double md = 0;
	s->n = 0;
	for (size_t j = 0; j < s->t.n; j++) {
		s->xs[s->n] = s->t.x[j];
		s->ys[s->n++] = s->t.y[j];
		md += s->t.d[j];
	}
	md /= s->n;
	double pitch = fs_dome_fit_pitch(s->xs, s->ys, s->n);
	fs_dome_fit_opts fo;
	fs_dome_fit_opts_default(&fo);
	fo.no_sigma = 1;
	fo.keep_formation = 1;
	fo.fill_min = fo.fill_max = 0.9 * md / pitch;
	fs_dome_fit f;
	assert_int_equal(fs_dome_fit_image(m, s->xs, s->ys, s->n, pitch, &fo, &f, err, sizeof err), 0);
	s->img = m;
	if (f.halftone > 0) {
		s->img = fs_gaussian_blurred(m, FS_HALFTONE_LOWPASS * f.halftone, err, sizeof err);
		assert_non_null(s->img);
		fs_image_free(m);
	}
	assert_int_equal(fs_dome_tpl_build(s->img, &f, 0.9 * md / pitch, s->xs, s->ys, s->n, &s->tpl, err, sizeof err), 0);
	s->f = f;
}

static void scene_close(tpl_scene *s)
{
	fs_dome_tpl_free(&s->tpl);
	fs_image_free(s->img);
	free(s->xs);
	free(s->ys);
	sem_truth_free(&s->t);
}

/* Mean D error % and SD % of the per-tubercle D error over the domes
 * whose patch lies inside the image, from the true centres moved by
 * (dx, dy) px; *moved the mean distance of the fitted centres from the
 * true ones. */
static void read_scene(tpl_scene *s, double dx, double dy, double *derr, double *sd, double *moved, int *nfit)
{
	double st = 0, sf = 0, se = 0, se2 = 0, mv = 0;
	int n = 0;
	for (size_t j = 0; j < s->t.n; j++) {
		fs_dome_tfit r;
		if (fs_dome_tpl_fit(&s->tpl, s->img, s->t.x[j] + dx, s->t.y[j] + dy, &r))
			continue;
		assert_true(r.quality >= 0 && r.quality <= 1);
		if (!isfinite(r.radius))
			continue;
		double e = 2 * r.radius / s->t.d[j] - 1;
		st += s->t.d[j];
		sf += 2 * r.radius;
		se += e;
		se2 += e * e;
		mv += hypot(r.x - s->t.x[j], r.y - s->t.y[j]);
		n++;
	}
	assert_true(n >= 8);
	*derr = 100 * (sf / st - 1);
	*sd = 100 * sqrt(fmax(0, (se2 - se * se / n) / (n - 1)));
	*moved = mv / n;
	*nfit = n;
}

/* Large domes, clean and under a screen: each tubercle's fitted size
 * follows its true size to a few per cent (SD of the per-tubercle D error
 * below 4 %; the base rule's own readings from the detector's centres
 * scatter 10-17 % under the screen, test_sem_accuracy), and the level,
 * read through a formation fitted at a fill 10 % off, within 10 % (-8.6 to
 * +5.2 % measured). */
static void sizes_from_true_centres(void **state)
{
	(void)state;
	static const int scenes[] = {33, 36, 39, 40, 53};
	for (size_t q = 0; q < sizeof scenes / sizeof scenes[0]; q++) {
		tpl_scene s;
		scene_open(scenes[q], &s);
		double derr, sd, mv;
		int n;
		read_scene(&s, 0, 0, &derr, &sd, &mv, &n);
		printf("dome base fit, scene %d: %d bases, mean D %+.2f %%, SD %.2f %%, centres moved %.2f px "
		       "(shadow term %s)\n",
		       scenes[q], n, derr, sd, mv, s.tpl.shadowed ? "yes" : "no");
		assert_true(sd < 4);
		assert_true(fabs(derr) < 10);
		scene_close(&s);
	}
}

/* A centre given 0.03 pitch (about 2 px) off along x and y, 2.7 px in
 * all: the search (steps of 0.04 and 0.02 pitch) brings it back to within
 * its last step and the sizes scatter as from the true centres (from
 * 2.7 px off without the search the fit reads 10 % small). */
static void centres_come_back(void **state)
{
	(void)state;
	tpl_scene s;
	scene_open(36, &s);
	double off = 0.03 * s.tpl.pitch, derr, sd, mv;
	int n;
	read_scene(&s, off, -off, &derr, &sd, &mv, &n);
	printf("dome base fit, scene 36 from centres %.2f px off: mean D %+.2f %%, SD %.2f %%, fitted centres "
	       "%.2f px from the truth\n",
	       hypot(off, off), derr, sd, mv);
	assert_true(mv < 0.02 * s.tpl.pitch);
	assert_true(sd < 4);
	scene_close(&s);
}

/* The centre between the search's grid points (dome_centre_fit.h): the
 * pattern search's grid is anchored at the start, so two starts a
 * fraction of a step apart end on different grid points (up to a step,
 * 1.3 px at this pitch, apart); the vertex of the residual's bowl is
 * where the patch fits best whatever the start. Starts 0.6 px apart along
 * both axes (0.85 px, two thirds of the last step) end within 0.5 px of
 * each other on average (measured 0.28 px; without the vertex 0.87 px). */
static void centre_between_grid_points(void **state)
{
	(void)state;
	tpl_scene s;
	scene_open(36, &s);
	double a = 0.3, spread = 0;
	int n = 0;
	for (size_t j = 0; j < s.t.n; j++) {
		fs_dome_tfit r1, r2;
		if (fs_dome_tpl_fit(&s.tpl, s.img, s.t.x[j] - a, s.t.y[j] - a, &r1) ||
		    fs_dome_tpl_fit(&s.tpl, s.img, s.t.x[j] + a, s.t.y[j] + a, &r2))
			continue;
		if (!isfinite(r1.radius) || !isfinite(r2.radius))
			continue;
		spread += hypot(r1.x - r2.x, r1.y - r2.y);
		n++;
	}
	assert_true(n >= 8);
	spread /= n;
	printf("dome base fit, scene 36 from starts %.2f px apart: fitted centres %.2f px apart (step %.2f px)\n",
	       2 * M_SQRT2 * a, spread, 0.02 * s.tpl.pitch);
	assert_true(spread < 0.5);
	scene_close(&s);
}

/* Mean patches a tubercle of the fits from the true centres. */
static double patches_per_fit(tpl_scene *s)
{
	int n = 0, sum = 0;
	for (size_t j = 0; j < s->t.n; j++) {
		fs_dome_tfit r;
		if (fs_dome_tpl_fit(&s->tpl, s->img, s->t.x[j], s->t.y[j], &r))
			continue;
		sum += r.patches;
		n++;
	}
	assert_true(n >= 8);
	return (double)sum / n;
}

/* The fit's cost is its patches (h47e): the start, the eight neighbours
 * and the end, 10 a tubercle where the search does not move (fewer where
 * a trial patch leaves the cut scene). With the cross search
 * (fs_dome_tpl_set_cross_search) on scene 36 (no screen, pitch 64: off
 * the pixel grid) the start, the four along the axes, one corner for the
 * vertex and the end: 7; under the 5 px screen (scene 40) the eight and
 * the 3 x 3's least squares stay. */
static void patches_read_per_tubercle(void **state)
{
	(void)state;
	/* (on by default since h48e; the process's setting given back) */
	int was = fs_dome_tpl_cross_search();
	tpl_scene s;
	scene_open(36, &s);
	assert_int_equal(s.tpl.screened, 0);
	fs_dome_tpl_set_cross_search(0);
	double off = patches_per_fit(&s);
	fs_dome_tpl_set_cross_search(1);
	double on = patches_per_fit(&s);
	scene_close(&s);
	scene_open(40, &s);
	assert_int_equal(s.tpl.screened, 1);
	double screened = patches_per_fit(&s);
	fs_dome_tpl_set_cross_search(was);
	scene_close(&s);
	printf("dome base fit, patches a tubercle: scene 36 %.2f, with the cross search %.2f; scene 40 (screen) "
	       "with it %.2f\n",
	       off, on, screened);
	assert_true(off >= 9 && off <= 10.5);
	assert_true(on >= 6 && on <= 7.5);
	assert_true(screened >= 9 && screened <= 10.5);
}

/* No dome: a flat, noisy patch has no base at any size (or not one that
 * fits: R^2 near 0). */
static void flat_patch_has_no_base(void **state)
{
	(void)state;
	tpl_scene s;
	scene_open(33, &s);
	fs_image *flat = fs_image_new(s.img->width, s.img->height);
	assert_non_null(flat);
	unsigned v = 12345;
	for (size_t i = 0; i < (size_t)flat->width * flat->height; i++) {
		v = v * 1103515245u + 12345u;
		flat->data[i] = 0.5f + 0.01f * (float)((v >> 16) & 1023) / 1023.0f;
	}
	fs_dome_tfit r;
	assert_int_equal(fs_dome_tpl_fit(&s.tpl, flat, flat->width / 2.0, flat->height / 2.0, &r), 0);
	assert_true(!isfinite(r.radius) || r.quality < 0.1);
	/* outside the image: not fitted */
	assert_int_equal(fs_dome_tpl_fit(&s.tpl, flat, 2, 2, &r), 1);
	fs_image_free(flat);
	scene_close(&s);
}

/* The template's table of rows (fs_dome_tpl.rows, h49f), which the AVX
 * patch read walks instead of the points' own row ends, columns and dy:
 * the rows cover every point once, in order, each row's points at its
 * dy (the float widened) in consecutive columns from its c0, and the row
 * ends say the same. Checked to fail: a row table built one row short
 * (nrows - 1) fails at the count of points covered. */
static void rows_cover_the_points(void **state)
{
	(void)state;
	tpl_scene s;
	scene_open(33, &s);
	const fs_dome_tpl *t = &s.tpl;
	assert_non_null(t->rows);
	assert_true(t->nrows > 2 && t->nrows <= t->ncol);
	size_t next = 0;
	for (int r = 0; r < t->nrows; r++) {
		const fs_dome_tpl_row *w = &t->rows[r];
		assert_int_equal((size_t)w->first, next);
		assert_true(w->n >= 1);
		for (int j = 0; j < w->n; j++) {
			size_t i = (size_t)w->first + (size_t)j;
			assert_true(w->dy == (double)t->dy[i]);
			assert_int_equal(t->col[i], w->c0 + j);
			assert_int_equal(t->row_end[i], w->first + w->n);
		}
		/* one dy a row: the next row's lies elsewhere */
		if (r > 0)
			assert_true(w->dy > t->rows[r - 1].dy);
		next += (size_t)w->n;
	}
	assert_int_equal(next, t->npts);
	scene_close(&s);
}

/* The no-base verdict's other side (detect_base_fit.h, h38o): where the
 * image does show domes of one fill, the wide read of the mean patch
 * (fills 0.13-0.85) names it - its best inside the window, near the
 * truth, and its rise standing more than FS_DET_BASE_WIDE_Z of its own
 * jackknife standard errors clear of zero, so that judging the rise by
 * its noise does not take a size from an image that gives one. */
static void wide_read_names_a_true_fill(void **state)
{
	(void)state;
	static const int scenes[] = {33, 36};
	for (size_t q = 0; q < sizeof scenes / sizeof scenes[0]; q++) {
		tpl_scene s;
		scene_open(scenes[q], &s);
		assert_int_equal(fs_dome_tpl_read_wide(&s.tpl, &s.f), 0);
		double md = 0;
		for (size_t j = 0; j < s.t.n; j++)
			md += s.t.d[j];
		md /= s.t.n;
		print_message("scene %d: true fill %.3f, wide best %.3f, rise %.3f, its SE %.3f over %zu patches\n",
			      scenes[q], md / s.f.pitch, s.tpl.wide_best, s.tpl.wide_rise, s.tpl.wide_rise_se,
			      s.tpl.nobs);
		assert_true(s.tpl.nobs >= 8);
		/* the wide window's step is 0.06 of the pitch */
		assert_true(fabs(s.tpl.wide_best - md / s.f.pitch) <= 0.06);
		assert_true(isfinite(s.tpl.wide_rise_se) && s.tpl.wide_rise_se >= 0);
		assert_true(s.tpl.wide_rise > FS_DET_BASE_WIDE_Z * s.tpl.wide_rise_se);
		scene_close(&s);
	}
}

/* The read's phase (h32f): 4-px flat-topped domes (corner scene 2: fill
 * 0.25 at pitch 16, h/R 0.25, no screen) from the true centres, with
 * templates of the simulator's geometry (beam blur 0.8 px, its detector)
 * but for the profile. The points lie a pixel apart, where the patch is
 * read bilinearly at the centre's sub-pixel phase: with templates made
 * as that read sees them, the flat-topped ones (h/R 0.2-1.0) fit the
 * patches best, 0.0333-0.0340 of each patch's variance against the
 * paraboloids' 0.0364-0.0382, and read D +2.0 to +2.6 %; the paraboloids
 * read +13 %. Point-sampled templates (before) fitted the paraboloid of
 * h/R 0.7 best (0.03348 against the flat-topped h/R 0.4's 0.03356): the
 * image's read blurs a 2-px base by up to 0.5 px SD and takes the rim's
 * ring for a taper. About 1.5 s of CPU plain (docs/paper-figures.md,
 * h32f). */
static void small_flat_domes_profile(void **state)
{
	(void)state;
	sem_opts o;
	sem_corner_scene(2, &o);
	o.margin_top = 0;
	o.black_left = 0;
	sem_truth t;
	fs_image *img = sem_make(&o, &t);
	assert_non_null(img);
	double *xs = malloc(t.n * sizeof *xs), *ys = malloc(t.n * sizeof *ys), dsum = 0;
	assert_true(xs && ys);
	size_t n = 0;
	for (size_t j = 0; j < t.n; j++)
		if (sem_counted(&t, t.x[j], t.y[j])) {
			xs[n] = t.x[j];
			ys[n] = t.y[j];
			dsum += t.d[j];
			n++;
		}
	assert_true(n > 100);
	/* profile, h/R: flat-topped, then paraboloids */
	static const double forms[][2] = {{2, 0.2}, {2, 0.4}, {2, 0.7}, {2, 1.0}, {1, 0.4}, {1, 0.7}, {1, 1.0}};
	double best_flat = INFINITY, best_par = INFINITY;
	for (size_t q = 0; q < sizeof forms / sizeof forms[0]; q++) {
		fs_dome_fit f;
		formation_sim(&o, t.pitch, 0.25, o.beam_blur, &f);
		f.profile = forms[q][0];
		f.h_over_r = forms[q][1];
		fs_dome_tpl u;
		char err[128];
		assert_int_equal(fs_dome_tpl_build(img, &f, 0.25, xs, ys, n, &u, err, sizeof err), 0);
		double miss = 0, r = 0;
		size_t nr = 0;
		for (size_t j = 0; j < n; j++) {
			fs_dome_tfit ft;
			assert_int_equal(fs_dome_tpl_fit(&u, img, xs[j], ys[j], &ft), 0);
			miss += 1 - ft.quality;
			if (isfinite(ft.radius)) {
				r += ft.radius;
				nr++;
			}
		}
		fs_dome_tpl_free(&u);
		miss /= n;
		double derr = 100 * (2 * r / nr / (dsum / n) - 1);
		printf("scene 2 from the true centres, templates of profile %.0f h/R %.1f: misfit %.5f, D %+.1f %% (%zu "
		       "sized of %zu)\n",
		       forms[q][0], forms[q][1], miss, derr, nr, n);
		if (forms[q][0] == 2) {
			best_flat = fmin(best_flat, miss);
			assert_true(fabs(derr) < 4);
		} else {
			best_par = fmin(best_par, miss);
		}
	}
	assert_true(best_flat < 0.95 * best_par);
	free(xs);
	free(ys);
	sem_truth_free(&t);
	fs_image_free(img);
}

/* fs_dome_tpl_render draws the templates' own dome (h42a): on scene 2's
 * 4-px flat tops (pitch 16, the points a pixel apart), the render of a
 * fill of the grid, its site on a pixel, holds at every point of the disc
 * that fill's template plus the mix's constant; another fill's template
 * does not fit it. What bench_level_small --calibrate reads the base
 * rule's bias on. */
static void render_is_the_templates(void **state)
{
	(void)state;
	sem_opts o;
	sem_corner_scene(2, &o);
	o.margin_top = 0;
	o.black_left = 0;
	sem_truth t;
	fs_image *img = sem_make_shared(&o, &t);
	assert_non_null(img);
	fs_dome_fit f;
	fs_dome_tpl u;
	assert_int_equal(formation_sim_templates(&o, img, &t, &f, &u), 0);
	assert_true(u.nmix >= 4 && u.nk >= 5);
	int k = u.nk / 2, size = 2 * (int)ceil(0.6 * f.pitch), c = size / 2;
	fs_image *r = NULL;
	assert_int_equal(fs_dome_tpl_render(&u, &f, u.fill[k], size, c, c, &r), 0);
	assert_non_null(r);
	assert_int_equal(r->width, size);
	double lo = INFINITY, hi = -INFINITY, worst = 0, other = 0;
	for (size_t i = 0; i < u.npts; i++) {
		double v = u.t[(size_t)k * u.npts + i] + u.mixw[u.nmix];
		lo = fmin(lo, v);
		hi = fmax(hi, v);
	}
	assert_true(hi > lo);
	for (size_t i = 0; i < u.npts; i++) {
		int x = c + (int)lround(u.dx[i]), y = c + (int)lround(u.dy[i]);
		assert_true(fabs(u.dx[i] - lround(u.dx[i])) < 1e-6 && fabs(u.dy[i] - lround(u.dy[i])) < 1e-6);
		double got = r->data[(size_t)y * size + x];
		worst = fmax(worst, fabs(got - (u.t[(size_t)k * u.npts + i] + u.mixw[u.nmix])));
		other = fmax(other, fabs(got - (u.t[(size_t)(k + 2) * u.npts + i] + u.mixw[u.nmix])));
	}
	printf("render against its template: worst %.2e, against the fill two steps up %.2e (range %.3f)\n", worst,
	       other, hi - lo);
	assert_true(worst < 1e-4 * (hi - lo));
	assert_true(other > 0.02 * (hi - lo));
	/* fs_dome_tpl_render_grid: grid 0 and the templates' own 24 are
	 * fs_dome_tpl_render to the bit */
	for (int g = 0; g <= 24; g += 24) {
		fs_image *q = NULL;
		assert_int_equal(fs_dome_tpl_render_grid(&u, &f, u.fill[k], g, size, c, c, &q), 0);
		assert_memory_equal(q->data, r->data, (size_t)size * size * sizeof *r->data);
		fs_image_free(q);
	}
	float *r2 = malloc((size_t)size * size * sizeof *r2);
	assert_non_null(r2);
	memcpy(r2, r->data, (size_t)size * size * sizeof *r2);
	fs_image_free(r);
	/* and a finer grid draws the same dome, its edge part clipped and
	 * weighed as the templates' (0.095 of the range at the worst pixel,
	 * the 4-px rim drawn on 6 px a sample instead of 1.5; with the edge
	 * part as rendered per grid unit 0.50) */
	fs_image *q = NULL;
	assert_int_equal(fs_dome_tpl_render_grid(&u, &f, u.fill[k], 96, size, c, c, &q), 0);
	double fine = 0;
	for (int i = 0; i < size * size; i++)
		fine = fmax(fine, fabs(q->data[i] - r2[i]));
	printf("grid 96 against 24: worst %.3f of the range\n", fine / (hi - lo));
	assert_true(fine < 0.15 * (hi - lo));
	fs_image_free(q);
	free(r2);
	/* no templates, or a fill outside the grid's range: nothing drawn */
	assert_int_equal(fs_dome_tpl_render(&u, &f, 0.99, size, c, c, &r), 1);
	assert_null(r);
	fs_dome_tpl_free(&u);
	memset(&u, 0, sizeof u);
	assert_int_equal(fs_dome_tpl_render(&u, &f, o.fill, size, c, c, &r), 1);
	sem_truth_free(&t);
	fs_image_free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sizes_from_true_centres),
		cmocka_unit_test(centres_come_back),
		cmocka_unit_test(centre_between_grid_points),
		cmocka_unit_test(patches_read_per_tubercle),
		cmocka_unit_test(flat_patch_has_no_base),
		cmocka_unit_test(rows_cover_the_points),
		cmocka_unit_test(wide_read_names_a_true_fill),
		cmocka_unit_test(small_flat_domes_profile),
		cmocka_unit_test(render_is_the_templates),
	};
	return cmocka_run_group_tests_name("dome base fit", tests, NULL, NULL);
}
