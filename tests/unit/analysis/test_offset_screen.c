/*
 * The formation fit's screen told without fitting (detect_offset.h,
 * fs_det_offset_screen_fits): detection's last step keeps its first
 * pass's sizes under a halftone screen, and no longer makes the fit
 * there when this says the fit would find one. It must say so exactly
 * when fs_det_offset_correct would fit and find a screen, or detection's
 * sizes change (the last step's sizes would be used where they were
 * not, or dropped where they were).
 *
 * On simulated SEM domes with a 5-px screen and without one, each with
 * the domes' centres taken in sets of k innermost domes plus the ten
 * nearest the image's border (whose neighbourhoods the fit cannot read
 * whole), k from 0 to 12: the prediction and the fit agree on every set,
 * and over the sets both answers occur on the screened scene (too few
 * whole neighbourhoods, then enough), never 1 without the screen.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect_offset.h"
#include "sem_scene.h"

static const sem_truth *g_tr;
static double border_dist(size_t i)
{
	double x = g_tr->x[i], y = g_tr->y[i];
	return fmin(fmin(x, g_tr->width - 1 - x), fmin(y, g_tr->height - 1 - y));
}

static int by_border(const void *a, const void *b)
{
	double da = border_dist(*(const size_t *)a), db = border_dist(*(const size_t *)b);
	return da > db ? -1 : da < db;
}

/* Over the sets of one scene: how many the prediction said 1 for. */
static size_t sweep(double halftone)
{
	sem_scene s;
	sem_opts o;
	sem_defaults(&o);
	o.width = 288;
	o.height = 256;
	o.pitch = 32;
	o.halftone = halftone;
	o.seed = 5;
	assert_int_equal(sem_scene_open(&s, &o), 0);
	size_t n = s.tr.n;
	assert_true(n > 40);
	size_t *order = malloc(n * sizeof *order);
	assert_non_null(order);
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	g_tr = &s.tr;
	qsort(order, n, sizeof *order, by_border); /* innermost first */
	fs_meas m = {.img = s.img, .f = 1, .width = s.img->width, .height = s.img->height, .dome = 1, .given = 2};
	size_t said = 0;
	for (size_t k = 0; k <= 12; k++) {
		size_t nc = k + 10;
		fs_cand_list c = {0};
		fs_measured *meas = calloc(nc, sizeof *meas);
		c.items = calloc(nc, sizeof *c.items);
		assert_true(meas && c.items);
		c.n = c.cap = nc;
		for (size_t q = 0; q < nc; q++) {
			size_t i = q < k ? order[q] : order[n - 1 - (q - k)];
			c.items[q] = (fs_cand){s.tr.x[i], s.tr.y[i], 0, 0.3 * s.tr.pitch};
			fs_tubercle_init(&meas[q].t);
			meas[q].ok = 1;
			meas[q].t.centroid_x = s.tr.x[i];
			meas[q].t.centroid_y = s.tr.y[i];
			meas[q].t.radius_px = 0.5 * s.tr.d[i];
			meas[q].t.fit_quality = 0.9;
		}
		double period;
		int pred = fs_det_offset_screen_fits(&m, &c, meas, &period);
		assert_true(pred == 0 || pred == 1);
		fs_det_offset off;
		assert_int_equal(fs_det_offset_correct(&m, &c, 0.6 * s.tr.pitch, 0, meas, &off), 0);
		assert_int_equal(pred, off.fitted && off.fit.halftone > 0);
		/* the period handed on is the one the fit finds itself */
		if (off.fitted && period >= 0)
			assert_true(period == off.fit.halftone);
		said += (size_t)pred;
		free(meas);
		free(c.items);
	}
	free(order);
	sem_scene_close(&s);
	return said;
}

static void prediction_is_the_fits_outcome(void **state)
{
	(void)state;
	size_t screened = sweep(5), clean = sweep(0);
	/* both answers on the screened scene: the count of whole
	 * neighbourhoods decided, not the screen alone */
	assert_true(screened > 0 && screened < 13);
	assert_int_equal(clean, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(prediction_is_the_fits_outcome),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
