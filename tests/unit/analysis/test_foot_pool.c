/*
 * The domes' foot told once for the whole image from their pooled radial
 * profile (foot_pool.h, h48h in docs/paper-figures.md) and the option
 * that reads the support from it (fs_foot_pool_set_support, off by
 * default).
 *
 * Drawn lattices first (no simulator): a sharp foot's signal brightest
 * just inside the base the rule reads, a smooth one's falling from the
 * centre through that base to a support 1.6 times as far, a uniform disc
 * whose contrast falls within its blurred edge; the same smooth
 * domes drawn 2.5 px in radius, where the beam's blur would round any
 * foot into a blob, are not told smooth. Then the simulator: a
 * smooth-footed scene (sem_smooth_scene 4: cos² domes, fill 0.55, pitch
 * 48, read -49 % by the rule as shipped) within 3 % with the option, and
 * a sharp-footed corner scene (33: pitch 64, fill 0.8) sized to the bit
 * as without it.
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
#include "analysis/foot_pool.h"
#include "sem_cache.h"
#include "sem_score.h"
#include "sem_sim.h"

#define PITCH 40.0
#define NX 12
#define NY 10

/* A square lattice of NX x NY domes of base radius r (the rule's reading)
 * drawn on a ground of 1: sharp (0), 1 + 0.5 (d / r)^2 inside r; smooth
 * (1), the cos² bump 1 + cos²(pi d / 2 s) inside the support s = 1.6 r;
 * a uniform disc (2) whose edge ramps over 3 px as a blur would make it.
 * Centres and radii into xs, ys, rs. */
static fs_image *lattice(int smooth, double r, double *xs, double *ys, double *rs)
{
	int w = (int)(PITCH * (NX + 1)), h = (int)(PITCH * (NY + 1));
	fs_image *img = fs_image_new(w, h);
	assert_non_null(img);
	double s = 1.6 * r;
	for (int j = 0; j < NY; j++)
		for (int i = 0; i < NX; i++) {
			int k = j * NX + i;
			xs[k] = PITCH * (i + 1) + 0.3;
			ys[k] = PITCH * (j + 1) - 0.2;
			rs[k] = r;
		}
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			double v = 1;
			for (int k = 0; k < NX * NY; k++) {
				double d = hypot(x - xs[k], y - ys[k]);
				if (smooth == 0 && d < r)
					v += 0.5 * (d / r) * (d / r);
				else if (smooth == 2)
					v += fmin(1, fmax(0, (r - d) / 3 + 0.5));
				else if (smooth == 1 && d < s) {
					double c = cos(M_PI * d / (2 * s));
					v += c * c;
				}
			}
			img->data[(size_t)y * w + x] = (float)v;
		}
	return img;
}

static void drawn_feet_told_apart(void **state)
{
	(void)state;
	double xs[NX * NY], ys[NX * NY], rs[NX * NY];
	char err[128];
	fs_foot_pool fp;

	fs_image *img = lattice(0, 10, xs, ys, rs);
	assert_int_equal(fs_foot_pool_read(img, xs, ys, rs, NX * NY, PITCH, &fp, err, sizeof err), 0);
	printf("sharp: %zu domes, R %.2f, centre %.2f edge %.2f\n", fp.domes, fp.r_px, fp.centre, fp.edge);
	assert_true(fp.domes >= 80);
	assert_true(fp.centre - fp.edge < -0.5);
	assert_false(fs_foot_pool_smooth(&fp));
	fs_image_free(img);

	img = lattice(1, 10, xs, ys, rs);
	assert_int_equal(fs_foot_pool_read(img, xs, ys, rs, NX * NY, PITCH, &fp, err, sizeof err), 0);
	double k = fs_foot_pool_support(&fp);
	printf("smooth: centre %.2f edge %.2f support %.3f (drawn 1.6)\n", fp.centre, fp.edge, k);
	assert_true(fs_foot_pool_smooth(&fp));
	/* the cos² bump is at 5 % of its height at 0.857 of its support */
	assert_true(fabs(k / 1.6 - 1) < 0.05);
	fs_image_free(img);

	/* a uniform disc's centre is brighter than its blurred edge's bins
	 * too, but its contrast falls within the blur */
	img = lattice(2, 10, xs, ys, rs);
	assert_int_equal(fs_foot_pool_read(img, xs, ys, rs, NX * NY, PITCH, &fp, err, sizeof err), 0);
	printf("disc: centre %.2f edge %.2f fall %.2f\n", fp.centre, fp.edge, fp.fall);
	assert_true(fp.fall < FS_FOOT_POOL_FALL);
	assert_false(fs_foot_pool_smooth(&fp));
	fs_image_free(img);

	img = lattice(1, 2.5, xs, ys, rs);
	assert_int_equal(fs_foot_pool_read(img, xs, ys, rs, NX * NY, PITCH, &fp, err, sizeof err), 0);
	assert_true(fp.centre - fp.edge > FS_FOOT_POOL_BAR); /* the profile alone would say smooth */
	assert_false(fs_foot_pool_smooth(&fp));
	fs_image_free(img);

	assert_int_equal(fs_foot_pool_read(img = lattice(1, 10, xs, ys, rs), xs, ys, rs, 7, PITCH, &fp, err,
					   sizeof err),
			 -1);
	fs_image_free(img);
}

/* The fall's shape (h48l): a cos² bump's brightness has its fade at 0.2
 * 1.41 times its fade at 0.5 whatever its size; domes of two sizes pooled
 * at the median radius fall over a wider range of u (a heavier tail), and
 * pooled each in its own radius they read the single bump's shape again. */
static void tail_of_the_fall(void **state)
{
	(void)state;
	double xs[NX * NY], ys[NX * NY], rs[NX * NY];
	char err[128];
	fs_foot_pool fp, own;

	fs_image *img = lattice(1, 10, xs, ys, rs);
	assert_int_equal(fs_foot_pool_read(img, xs, ys, rs, NX * NY, PITCH, &fp, err, sizeof err), 0);
	double f50 = fs_foot_pool_fade(&fp, 0.5), f05 = fs_foot_pool_fade(&fp, FS_FOOT_POOL_FADE);
	printf("cos²: fade 0.5 at %.3f (drawn 0.8), 0.05 at %.3f (1.371), tail %.3f\n", f50, f05,
	       fs_foot_pool_tail(&fp));
	assert_true(fabs(f50 - 0.8) < 0.04);
	assert_true(fabs(fs_foot_pool_tail(&fp) - 1.41) < 0.06);
	assert_true(fs_foot_pool_support(&fp) == FS_FOOT_POOL_SUPPORT_K * f05);
	assert_true(isnan(fs_foot_pool_fade(&fp, -0.5)));
	fs_image_free(img);

	/* every other column of domes drawn at 0.75 and 1.25 of r: the same
	 * lattice, two bump sizes */
	int w = (int)(PITCH * (NX + 1)), h = (int)(PITCH * (NY + 1));
	img = fs_image_new(w, h);
	assert_non_null(img);
	for (int k = 0; k < NX * NY; k++)
		rs[k] = (k % 2 ? 1.25 : 0.75) * 10;
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			double v = 1;
			for (int k = 0; k < NX * NY; k++) {
				double d = hypot(x - xs[k], y - ys[k]), sup = 1.6 * rs[k];
				if (d < sup) {
					double c = cos(M_PI * d / (2 * sup));
					v += c * c;
				}
			}
			img->data[(size_t)y * w + x] = (float)v;
		}
	assert_int_equal(fs_foot_pool_read(img, xs, ys, rs, NX * NY, PITCH, &fp, err, sizeof err), 0);
	assert_int_equal(fs_foot_pool_read_own(img, xs, ys, rs, NX * NY, PITCH, &own, err, sizeof err), 0);
	printf("two sizes: tail at the median radius %.3f, in each own radius %.3f\n", fs_foot_pool_tail(&fp),
	       fs_foot_pool_tail(&own));
	assert_true(fs_foot_pool_tail(&fp) > 1.48);
	assert_true(fabs(fs_foot_pool_tail(&own) - 1.41) < 0.06);
	fs_image_free(img);
}

/* The dome rule's detection of o's scene, the option on or off. */
static void detect(const sem_opts *o, int support, fs_detect_result *res, sem_score *sc)
{
	sem_truth t;
	fs_image *img = sem_make_shared(o, &t);
	assert_non_null(img);
	fs_params p;
	fs_params_default(&p);
	char err[256];
	int old = fs_foot_pool_set_support(support);
	int rc = fs_detect_domes(img, &p, 0, res, err, sizeof err);
	fs_foot_pool_set_support(old);
	assert_int_equal(rc, 0);
	assert_int_equal(sem_score_detection(&t, &res->tubercles, o->halftone, sc), 0);
	sem_truth_free(&t);
	fs_image_free(img);
}

static void smooth_scene_read_at_its_support(void **state)
{
	(void)state;
	sem_opts o;
	sem_smooth_scene(4, &o);
	fs_detect_result off, on;
	sem_score so, sn;
	detect(&o, 0, &off, &so);
	detect(&o, 1, &on, &sn);
	printf("smooth scene 4: D %+.1f %% -> %+.1f %%, S %+.1f %% -> %+.1f %%\n", so.d_err, sn.d_err, so.s_err,
	       sn.s_err);
	assert_true(so.d_err < -30);
	assert_true(fabs(sn.d_err) < 3 && fabs(sn.s_err) < 3);
	fs_detect_result_free(&off);
	fs_detect_result_free(&on);
}

static void sharp_scene_the_same_bits(void **state)
{
	(void)state;
	sem_opts o;
	sem_corner_scene(33, &o);
	fs_detect_result off, on;
	sem_score so, sn;
	detect(&o, 0, &off, &so);
	detect(&o, 1, &on, &sn);
	assert_int_equal(off.tubercles.n, on.tubercles.n);
	assert_true(off.tubercles.n > 50);
	for (size_t i = 0; i < off.tubercles.n; i++) {
		const fs_tubercle *a = &off.tubercles.items[i], *b = &on.tubercles.items[i];
		assert_memory_equal(&a->radius_px, &b->radius_px, sizeof a->radius_px);
		assert_memory_equal(&a->centroid_x, &b->centroid_x, sizeof a->centroid_x);
	}
	fs_detect_result_free(&off);
	fs_detect_result_free(&on);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(drawn_feet_told_apart),
		cmocka_unit_test(tail_of_the_fall),
		cmocka_unit_test(smooth_scene_read_at_its_support),
		cmocka_unit_test(sharp_scene_the_same_bits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
