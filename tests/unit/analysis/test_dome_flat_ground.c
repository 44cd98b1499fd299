/*
 * The dome rule puts no tubercle on flat ground (issue 13, h24f;
 * detect_base_fit.h "Flat ground", dome_signal.h).
 *
 * P1 Fig2 (Polypterus bichir): before the rule, fs_detect_domes reported a
 * dome at (343.1, 201.7) and at (685.7, 94.4), with fit qualities 0.74
 * and 0.76 and bases of 56 and 66 px (the figure's domes: about 23 px),
 * in two gaps of the lattice. Those areas were judged flat by eye (the
 * overlay and a 3x crop: grey ground and the halftone's dots, no cap, no
 * rim, no shadow) and by the image's local variance, which the test
 * checks again before it asserts: the standard deviation of the image
 * averaged over 5 x 5 px (the screen's period is about 4 px) within 10 px
 * of the point is below half the median of the same at the figure's
 * detected domes (0.042 and 0.032 against a median of 0.105 and a lowest
 * of 0.036 at the 64 domes). No detected centre may lie within 20 px of
 * them (the nearest real domes are 60-70 px away).
 *
 * The simulator (sem_sim.h): scenes at fill 0.25 with 15 % of the
 * lattice's sites left empty (flat gaps a pitch and more wide), a side
 * detector, pitch 40 px, with and without a printed screen: every
 * detection inside the scale region is within 0.25 pitch of a true dome
 * (precision 1), and recall stays at least 0.97.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/detect.h"
#include "base/sorting.h"
#include "fixture_image.h"
#include "sem_scene.h"
#include "sem_sim.h"

#define FIG2 "tests/fixtures/paper/P1_Fig2_Polypterus_bichir_2.63um.tif"

static double box5(const fs_image *img, int x, int y)
{
	double s = 0;
	int n = 0;
	for (int yy = y - 2; yy <= y + 2; yy++)
		for (int xx = x - 2; xx <= x + 2; xx++)
			if (xx >= 0 && yy >= 0 && xx < img->width && yy < img->height) {
				s += fs_image_at(img, xx, yy);
				n++;
			}
	return n ? s / n : 0;
}

/* SD of the 5 x 5 means within r px of (cx, cy). */
static double local_sd(const fs_image *img, double cx, double cy, double r)
{
	double s = 0, s2 = 0;
	int n = 0;
	for (int y = (int)floor(cy - r); y <= (int)ceil(cy + r); y++)
		for (int x = (int)floor(cx - r); x <= (int)ceil(cx + r); x++) {
			if ((x - cx) * (x - cx) + (y - cy) * (y - cy) > r * r || x < 0 || y < 0 || x >= img->width ||
			    y >= img->height)
				continue;
			double v = box5(img, x, y);
			s += v;
			s2 += v * v;
			n++;
		}
	double m = s / n, var = s2 / n - m * m;
	return var > 0 ? sqrt(var) : 0;
}

static void fig2_flat_gaps_hold_no_dome(void **state)
{
	(void)state;
	static const double flat[][2] = {{343, 202}, {686, 94}};
	fs_image *img = fixture_image(FIG2);
	assert_non_null(img);
	fs_params p;
	fs_params_default(&p);
	fs_detect_result res;
	char err[256];
	assert_int_equal(fs_detect_domes(img, &p, 0, &res, err, sizeof err), 0);
	size_t n = res.tubercles.n;
	assert_true(n >= 40);
	/* the areas are flat: the image's own variance says so */
	double *sd = malloc(n * sizeof *sd);
	assert_non_null(sd);
	for (size_t i = 0; i < n; i++)
		sd[i] = local_sd(img, res.tubercles.items[i].centroid_x, res.tubercles.items[i].centroid_y, 10);
	double med = fs_median_upper(sd, n);
	for (size_t k = 0; k < sizeof flat / sizeof flat[0]; k++) {
		double f = local_sd(img, flat[k][0], flat[k][1], 10);
		printf("flat area (%.0f, %.0f): local SD %.4f, domes' median %.4f\n", flat[k][0], flat[k][1], f, med);
		assert_true(f < 0.5 * med);
	}
	/* ... and no dome is reported there */
	for (size_t i = 0; i < n; i++) {
		const fs_tubercle *t = &res.tubercles.items[i];
		for (size_t k = 0; k < sizeof flat / sizeof flat[0]; k++) {
			double d = hypot(t->centroid_x - flat[k][0], t->centroid_y - flat[k][1]);
			if (d < 20)
				printf("dome %d at (%.1f, %.1f), D %.1f px, fit quality %.3f, on flat ground\n", t->id,
				       t->centroid_x, t->centroid_y, 2 * t->radius_px, t->fit_quality);
			assert_true(d >= 20);
		}
	}
	free(sd);
	fs_detect_result_free(&res);
	fs_image_free(img);
}

/* A scene at fill 0.25 with empty sites: the true domes counted (*nt),
 * those found (*ntm) and the detections on flat ground (*nfalse). */
static void missing_sites(double halftone, unsigned seed, size_t *nt_out, size_t *ntm_out, size_t *nfalse_out)
{
	sem_opts o;
	sem_defaults(&o);
	o.width = 480;
	o.height = 400;
	o.pitch = 40;
	o.fill = 0.25;
	o.missing = 0.15;
	o.h_over_r = 0.5;
	o.det_azimuth = 135 * M_PI / 180;
	o.halftone = halftone;
	o.angle = 0.3;
	o.seed = seed;
	sem_scene s;
	fs_detect_result res;
	assert_int_equal(sem_scene_detect(&s, &o, fs_detect_domes, &res), 0);
	const sem_truth *t = &s.tr;
	size_t n = res.tubercles.n;
	const fs_tubercle *det = res.tubercles.items;
	int *mdet = malloc((n + 1) * sizeof *mdet), *mtru = malloc((t->n + 1) * sizeof *mtru);
	assert_true(mdet && mtru);
	assert_int_equal(sem_match_tubercles(t, &res.tubercles, mdet, mtru), 0);
	size_t nt = 0, ntm = 0, nd = 0, nfalse = 0;
	for (size_t j = 0; j < t->n; j++)
		if (sem_counted(t, t->x[j], t->y[j])) {
			nt++;
			ntm += mtru[j] >= 0;
		}
	for (size_t i = 0; i < n; i++)
		if (sem_counted(t, det[i].centroid_x, det[i].centroid_y)) {
			nd++;
			if (mdet[i] < 0) {
				nfalse++;
				printf("  false dome at (%.1f, %.1f), D %.1f px, fit quality %.3f\n", det[i].centroid_x,
				       det[i].centroid_y, 2 * det[i].radius_px, det[i].fit_quality);
			}
		}
	printf("missing sites, halftone %.0f, seed %u: %zu true, %zu found, %zu detections, %zu on flat ground\n",
	       halftone, seed, nt, ntm, nd, nfalse);
	*nt_out = nt;
	*ntm_out = ntm;
	*nfalse_out = nfalse;
	free(mdet);
	free(mtru);
	fs_detect_result_free(&res);
	sem_scene_close(&s);
}

static void missing_sites_hold_no_dome(void **state)
{
	(void)state;
	/* two of the 16 scenes of docs/paper-figures.md section h24f (seeds
	 * 101-108, with and without the screen): 9 false domes in 8 of them
	 * before the rule, 0 after; these two had 1 and 2 */
	static const struct {
		double halftone;
		unsigned seed;
	} sc[] = {{0, 104}, {5, 108}};
	for (size_t k = 0; k < sizeof sc / sizeof sc[0]; k++) {
		size_t nt, ntm, nf;
		missing_sites(sc[k].halftone, sc[k].seed, &nt, &ntm, &nf);
		assert_true(nt >= 40);
		assert_int_equal(nf, 0);
		assert_true(ntm >= 0.97 * nt);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fig2_flat_gaps_hold_no_dome),
		cmocka_unit_test(missing_sites_hold_no_dome),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
