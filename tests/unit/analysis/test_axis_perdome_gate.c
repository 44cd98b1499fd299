/*
 * fs_det_base_axis_perdome's gate on the common shift (detect_base_fit.h,
 * h47k): the per-dome axis step reads no profile where the common step
 * read a shift of 0 or one 0.01-px step of its scan (no side told), and
 * reads them as before where it read more. On the 2048 x 1536 lattice,
 * which has no side detector, the common step read 0.01 px on the
 * reversed side or 0 on the other as the candidates' last bits went, and
 * the per-dome step's 522 M instructions ran on the second (h47i).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "analysis/centre_axis.h"
#include "analysis/detect_base_fit.h"
#include "analysis/detect_offset.h"

#define SIDE 6 /* domes a row and a column */
#define PITCH 40.0

/* Counts the reader's calls; the profiles it hands back are flat. */
static int flat_reader(void *ctx, const fs_centre_axis_geom *g, const size_t *sel, size_t ns, const double *xs,
		       const double *ys, double *profs)
{
	(void)sel;
	(void)xs;
	(void)ys;
	(*(int *)ctx)++;
	size_t len = ns * fs_centre_axis_len(g);
	for (size_t i = 0; i < len; i++)
		profs[i] = 0.5;
	return 0;
}

/* How many times the per-dome step read profiles after a common step
 * that read shift (px, not reversed) on SIDE x SIDE domes of radius 10
 * at a 40-px pitch, formation blur 1 px, no screen. */
static int reads_after(double shift)
{
	enum { N = SIDE * SIDE };
	size_t idx[N];
	double xs[N], ys[N], fr[N], fx[N], fy[N];
	unsigned char at_end[N] = {0};
	for (size_t k = 0; k < N; k++) {
		idx[k] = k;
		xs[k] = fx[k] = 60 + PITCH * (double)(k % SIDE);
		ys[k] = fy[k] = 60 + PITCH * (double)(k / SIDE);
		fr[k] = 10;
	}
	fs_det_base_plan p;
	memset(&p, 0, sizeof p);
	p.n = N;
	p.idx = idx;
	p.xs = xs;
	p.ys = ys;
	p.at_end = at_end;
	fs_det_offset off;
	memset(&off, 0, sizeof off);
	off.fitted = 1;
	off.fit.pitch = PITCH;
	off.fit.blur_px = 1;
	off.fit.azimuth = 0;
	fs_centre_axis ax;
	memset(&ax, 0, sizeof ax);
	ax.ok = 1;
	ax.shift = shift;
	ax.dx = shift;
	int calls = 0;
	size_t moved = 99;
	assert_int_equal(
		fs_det_base_axis_perdome(&p, &off, &ax, NULL, NULL, fr, fx, fy, 400, 400, flat_reader, &calls, &moved), 0);
	if (!calls)
		assert_int_equal(moved, 0);
	return calls;
}

static void no_reading_at_one_scan_step(void **state)
{
	(void)state;
	assert_int_equal(reads_after(0), 0);
	assert_int_equal(reads_after(0.01), 0);
	assert_int_equal(reads_after(-0.01), 0);
}

static void read_beyond_one_scan_step(void **state)
{
	(void)state;
	assert_int_equal(reads_after(0.02), 1);
	assert_int_equal(reads_after(-0.02), 1);
	assert_int_equal(reads_after(0.3), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_reading_at_one_scan_step),
		cmocka_unit_test(read_beyond_one_scan_step),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
