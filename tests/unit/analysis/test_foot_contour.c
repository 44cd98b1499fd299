/*
 * The mean dome's contour (foot_contour.h, h52f in docs/paper-figures.md):
 * on a drawn hexagonal lattice of smooth-footed domes lit from the side
 * (no simulator: the signal is the ground, a side detector's term linear
 * in the slope, brighter towards +x and darker away, and a secant-like
 * term in the slope's square, every term ending with the slope at the
 * support), the contour's long semi-axis reads the support within 3 %
 * (its circle short, across the axis only the square is left) and the
 * circle is centred on the domes, whether the centres given are theirs
 * or all sit 3 px towards the detector, as the dome rule's do on such
 * domes; the
 * lattice's direction comes back modulo 60 degrees; too few centres read
 * nothing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis/foot_contour.h"

#define PITCH 30.0
#define SUPPORT 9.0 /* fill 0.6 */
#define ANGLE 0.2
#define NX 12
#define NY 10
#define NS 400 /* room for the sites */

static int nsites;

/* The lattice's sites inside the frame less a pitch (nsites of them) into
 * xs, ys, and its image. */
static fs_image *lattice(double *xs, double *ys)
{
	int w = (int)(PITCH * (NX + 2)), h = (int)(PITCH * (NY + 2));
	double ax = PITCH * cos(ANGLE), ay = PITCH * sin(ANGLE);
	double bx = PITCH * cos(ANGLE + M_PI / 3), by = PITCH * sin(ANGLE + M_PI / 3);
	nsites = 0;
	for (int j = -2 * NY; j <= 2 * NY; j++)
		for (int i = -2 * NX; i <= 2 * NX; i++) {
			double x = 0.31 + i * ax + j * bx, y = -0.17 + i * ay + j * by;
			if (x >= PITCH && x <= w - PITCH && y >= PITCH && y <= h - PITCH && nsites < NS) {
				xs[nsites] = x;
				ys[nsites] = y;
				nsites++;
			}
		}
	fs_image *img = fs_image_new(w, h);
	assert_non_null(img);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			double v = 0.4;
			for (int k = 0; k < nsites; k++) {
				double dx = x - xs[k], dy = y - ys[k], d = hypot(dx, dy);
				if (d >= SUPPORT || d == 0)
					continue;
				double s = sin(M_PI * d / SUPPORT); /* the cos^2 dome's slope, over its steepest */
				v += 0.15 * s * dx / d + 0.1 * s * s;
			}
			img->data[(size_t)y * w + x] = (float)v;
		}
	return img;
}

static void contour_reads_support_and_centre(void **state)
{
	(void)state;
	double xs[NS], ys[NS], mx[NS];
	fs_image *img = lattice(xs, ys);
	fs_foot_contour fc;
	char err[128];
	assert_int_equal(fs_foot_contour_read(img, xs, ys, (size_t)nsites, PITCH, 0, FS_FOOT_CONTOUR_LEVEL, &fc, err, sizeof err),
			 0);
	printf("about the sites: radius %.3f px, long semi-axis %.3f (support %.1f), centre %+.3f %+.3f, ground %.3f, "
	       "peak %.3f, rays %d\n",
	       fc.radius, fc.major, SUPPORT, fc.cx, fc.cy, fc.ground, fc.peak, fc.rays);
	/* across the detector's axis only the slope's square is left,
	 * fading at 0.885 of the support (0.1 s^2 = 5 % of 0.25): the circle
	 * reads short, its long semi-axis the support */
	assert_true(fc.radius > 0.9 * SUPPORT && fc.radius < SUPPORT);
	assert_true(fabs(fc.major / SUPPORT - 1) < 0.03);
	assert_true(hypot(fc.cx, fc.cy) < 0.3);
	assert_true(fc.rays >= FS_FOOT_CONTOUR_RAYS / 2);
	/* the centres on the lit flank: the circle finds the domes again */
	for (int k = 0; k < nsites; k++)
		mx[k] = xs[k] + 3;
	assert_int_equal(fs_foot_contour_read(img, mx, ys, (size_t)nsites, PITCH, 0, FS_FOOT_CONTOUR_LEVEL, &fc, err, sizeof err),
			 0);
	assert_true(fabs(fc.major / SUPPORT - 1) < 0.03);
	assert_true(fabs(fc.cx + 3) < 0.3 && fabs(fc.cy) < 0.3);
	/* smoothed, as under a screen: still about the support, a little wider */
	assert_int_equal(fs_foot_contour_read(img, mx, ys, (size_t)nsites, PITCH, 1.5, FS_FOOT_CONTOUR_LEVEL, &fc, err, sizeof err),
			 0);
	assert_true(fc.major > 0.97 * SUPPORT && fc.major < 1.2 * SUPPORT);
	fs_image_free(img);
}

static void lattice_angle_and_too_few(void **state)
{
	(void)state;
	double xs[NS], ys[NS];
	fs_image *img = lattice(xs, ys);
	double a = fs_foot_contour_lattice_angle(xs, ys, (size_t)nsites);
	double d = fmod(a - ANGLE + 2 * M_PI, M_PI / 3);
	assert_true(fmin(d, M_PI / 3 - d) < 0.01);
	assert_true(isnan(fs_foot_contour_lattice_angle(xs, ys, 1)));
	fs_foot_contour fc;
	char err[128];
	assert_int_equal(fs_foot_contour_read(img, xs, ys, 5, PITCH, 0, FS_FOOT_CONTOUR_LEVEL, &fc, err, sizeof err), 0);
	assert_true(isnan(fc.radius));
	fs_image_free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(contour_reads_support_and_centre),
		cmocka_unit_test(lattice_angle_and_too_few),
	};
	return cmocka_run_group_tests_name("foot contour", tests, NULL, NULL);
}
