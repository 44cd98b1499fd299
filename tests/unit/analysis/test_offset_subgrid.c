/*
 * The formation fit's common offset between its grid points
 * (offset_subgrid.h, docs/paper-figures.md h39b).
 *
 * Why: at pitch 16 under a 5-px halftone screen the dome rule's level is
 * the first reading from each centre plus the fitted offset, and one
 * step of the fit's 0.0125-pitch grid (0.2 px) moves a scene's mean D by
 * 2-3.5 points (h38d). A fit that lands only on the grid answers a
 * common move of the centres smaller than a step with a saw-tooth: the
 * move plus the offset wanders by up to half a step.
 *
 * - fs_offset_subgrid on quadratics of known vertex, with the diagonal
 *   cross term a detector at 135 degrees gives the residual; no vertex
 *   where the block has no minimum or a value is not finite; a vertex
 *   beyond half a step held at half a step.
 * - On simulated screened domes (corner scene 11: fill 0.8, pitch 16,
 *   5-px screen, flat-topped), the detector's own fit (fs_det_offset_fit)
 *   of the true centres moved along the detector's axis by 0 to 7
 *   quarter steps (0-0.35 px): the fitted offset follows the move, the
 *   move plus the offset the same within 0.02 px (0.161-0.163 px when
 *   written; on the grid alone 0.10-0.25 px).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/detect_offset.h"
#include "analysis/offset_subgrid.h"
#include "sem_scene.h"

/* a + b i + c j + d i^2 + e j^2 + g i j on the 3 x 3 block */
static void block(double a, double b, double c, double d, double e, double g, double q[9])
{
	for (int j = -1; j <= 1; j++)
		for (int i = -1; i <= 1; i++)
			q[(j + 1) * 3 + (i + 1)] = a + b * i + c * j + d * i * i + e * j * j + g * i * j;
}

static void quadratic_vertex(void **state)
{
	(void)state;
	double q[9], di, dj;
	/* vertex (0.3, -0.2) of a valley along the diagonal: Hessian
	 * [2 1.6; 1.6 2] (d = e = 1, g = 1.6), gradient zero there */
	double i0 = 0.3, j0 = -0.2, d = 1, e = 1, g = 1.6;
	block(5, -(2 * d * i0 + g * j0), -(2 * e * j0 + g * i0), d, e, g, q);
	assert_int_equal(fs_offset_subgrid(q, &di, &dj), 1);
	assert_true(fabs(di - i0) < 1e-12 && fabs(dj - j0) < 1e-12);
	/* the same block read by two one-axis parabolas: each takes the
	 * other axis's slope for its own (what the cross term is kept for) */
	double pi = 0.5 * (q[3] - q[5]) / (q[3] - 2 * q[4] + q[5]);
	assert_true(fabs(pi - i0) > 0.1);
	/* beyond half a step: held there */
	block(5, -2 * 0.9, 0, 1, 1, 0, q);
	assert_int_equal(fs_offset_subgrid(q, &di, &dj), 1);
	assert_true(di == 0.5 && dj == 0);
	/* a saddle, a ridge, a non-finite value: no vertex, (0, 0) */
	block(5, 0.1, 0.1, 1, -1, 0, q);
	assert_int_equal(fs_offset_subgrid(q, &di, &dj), 0);
	assert_true(di == 0 && dj == 0);
	block(5, 0.1, 0.1, 1, 1, 2, q);
	assert_int_equal(fs_offset_subgrid(q, &di, &dj), 0);
	block(5, 0.1, 0.1, 1, 1, 0, q);
	q[8] = INFINITY;
	assert_int_equal(fs_offset_subgrid(q, &di, &dj), 0);
	assert_true(di == 0 && dj == 0);
}

/* The fit's offset from the true centres moved by (mx, my). */
static void fitted(const sem_scene *s, double mx, double my, double *ox, double *oy)
{
	size_t n = s->tr.n;
	double *xs = malloc(n * sizeof *xs), *ys = malloc(n * sizeof *ys), *rs = malloc(n * sizeof *rs);
	assert_true(xs && ys && rs);
	for (size_t i = 0; i < n; i++) {
		xs[i] = s->tr.x[i] + mx;
		ys[i] = s->tr.y[i] + my;
		rs[i] = 0.5 * s->tr.d[i];
	}
	fs_det_offset info;
	assert_int_equal(fs_det_offset_fit(s->img, xs, ys, rs, n, s->tr.pitch, NULL, &info), 0);
	assert_true(info.fitted);
	assert_true(info.fit.halftone > 0);
	*ox = info.dx;
	*oy = info.dy;
	free(xs);
	free(ys);
	free(rs);
}

static void screened_moves_followed(void **state)
{
	(void)state;
	sem_opts o;
	sem_corner_scene(11, &o);
	sem_scene s;
	assert_int_equal(sem_scene_open(&s, &o), 0);
	double st = 0.0125 * s.tr.pitch, ca = cos(o.det_azimuth), sa = sin(o.det_azimuth);
	double lo = INFINITY, hi = -INFINITY;
	for (int k = 0; k < 8; k++) {
		double ox, oy, m = k * st / 4;
		fitted(&s, m * ca, m * sa, &ox, &oy);
		double left = ox * ca + oy * sa + m;
		printf("centres moved %.3f px along the axis: offset %+.4f %+.4f px, move + offset %+.4f px\n", m, ox,
		       oy, left);
		lo = fmin(lo, left);
		hi = fmax(hi, left);
	}
	assert_true(hi - lo < 0.02);
	sem_scene_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(quadratic_vertex),
		cmocka_unit_test(screened_moves_followed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
