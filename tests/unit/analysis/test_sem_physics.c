/*
 * The SEM simulator (tests/unit/support/sem_sim.c, sem_surface.c) against
 * the physics it claims, on its raw signal (before the detector response,
 * noise and reproduction):
 * - flat ground seen by the side detector gives the flat yield, 1, in
 *   every pixel (sec 0 = 1, no directional term, no convexity, no shadow);
 * - the SE edge of a large cap lies at the true base: without beam blur a
 *   pixel cut by the base holds the inside yield over the part of it that
 *   lies inside, so the fraction read back from its value places the base
 *   within 0.1 px (point samples at pixel centres could not: they place
 *   it anywhere in the pixel);
 * - a pixel's mean converges as the sub-samples per pixel grow: printed
 *   per step, and the default (SEM_SUPERSAMPLE) changes the image by less
 *   than a small part of its range against twice as many;
 * - a point is shadowed exactly when the height field rises above the
 *   straight path from it towards the detector: the simulator's shadow test
 *   (golden-section search on the sharp-footed profiles, branch and bound
 *   on the smooth-footed cos^2 one, whose chord is not concave) against a
 *   brute-force march of the path over a height field written here from
 *   the profiles' formulas; a smooth-footed dome whose steepest slope
 *   stays under the detector's elevation casts no shadow at all.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sanitized.h"
#include "sem_sim.h"

/* A clean scene: no undulation, roughness, jitter, noise or blur. */
static void clean_opts(sem_opts *o)
{
	sem_defaults(o);
	o->raw = 1;
	o->undulation = 0;
	o->roughness = 0;
	o->radius_jitter = 0;
	o->pos_jitter = 0;
	o->beam_blur = 0;
}

static void flat_ground_gives_flat_yield(void **state)
{
	(void)state;
	sem_opts o;
	clean_opts(&o);
	o.missing = 1; /* no domes */
	o.beam_blur = 0.8;
	o.det_azimuth = 135 * M_PI / 180;
	sem_truth t;
	fs_image *img = sem_make(&o, &t);
	assert_non_null(img);
	assert_int_equal(t.n, 0);
	for (size_t i = 0; i < (size_t)img->width * img->height; i++)
		assert_true(fabs(img->data[i] - 1) < 1e-5);
	sem_truth_free(&t);
	fs_image_free(img);
}

/* Base position read from the pixel the base cuts on row y0, going out
 * from the centre in direction dir (+1 right, -1 left): its value is the
 * ground's (1) over the outside part and the inside yield, extrapolated
 * linearly from the two pixels further in, over the rest. */
static double base_from_row(const fs_image *img, int y0, double xe, int dir)
{
	int i = (int)lround(xe);
	const float *row = img->data + (size_t)y0 * img->width;
	double in = 2 * row[i - dir] - row[i - 2 * dir], out = row[i + 2 * dir];
	double frac = (row[i] - out) / (in - out); /* inside part of pixel i */
	return dir > 0 ? i - 0.5 + frac : i + 0.5 - frac;
}

static double worst_base_error(int supersample)
{
	double worst = 0;
	for (unsigned seed = 1; seed <= 6; seed++) {
		sem_opts o;
		clean_opts(&o);
		o.width = o.height = 90;
		o.pitch = 80;
		o.fill = 0.6; /* R = 24 px */
		o.profile = 0;
		o.h_over_r = 0.25; /* the slope at the base is 0.53: yield 1.13 inside */
		o.det_strength = 0;
		o.shadow = 0;
		o.edge = 0;
		o.pos_jitter = 0.01; /* the base anywhere within a pixel */
		o.seed = seed;
		o.supersample = supersample;
		sem_truth t;
		fs_image *img = sem_make(&o, &t);
		assert_non_null(img);
		size_t c = 0;
		for (size_t k = 1; k < t.n; k++)
			if (hypot(t.x[k] - 45, t.y[k] - 45) < hypot(t.x[c] - 45, t.y[c] - 45))
				c = k;
		double R = t.d[c] / 2;
		int y0 = (int)lround(t.y[c]);
		double half = sqrt(R * R - (y0 - t.y[c]) * (y0 - t.y[c]));
		for (int dir = -1; dir <= 1; dir += 2) {
			double xe = t.x[c] + dir * half;
			double e = fabs(base_from_row(img, y0, xe, dir) - xe);
			worst = fmax(worst, e);
		}
		sem_truth_free(&t);
		fs_image_free(img);
	}
	return worst;
}

static void se_edge_of_a_large_cap_is_at_its_base(void **state)
{
	(void)state;
	double e1 = worst_base_error(1), ed = worst_base_error(0), e16 = worst_base_error(16);
	printf("sem physics: base of a cap (R 24 px) from its SE edge, worst of 12: "
	       "centre samples %.3f px, %d x %d sub-samples %.3f px, 16 x 16 %.3f px\n",
	       e1, SEM_SUPERSAMPLE, SEM_SUPERSAMPLE, ed, e16);
	assert_true(ed < 0.1);
	assert_true(e16 < 0.1);
	/* the test can tell: centre samples put the base where the pixel is */
	assert_true(e1 > 0.1);
}

/* Largest and mean absolute change of the raw image of corner scene k
 * between a and b sub-samples per pixel side, relative to its range. */
static void change(int k, int a, int b, double *maxd, double *meand)
{
	sem_opts o;
	sem_corner_scene(k, &o);
	o.raw = 1;
	/* a part of the scene: about 5 x 4 pitches */
	o.width = (int)(5 * o.pitch);
	o.height = (int)(4 * o.pitch);
	sem_truth ta, tb;
	o.supersample = a;
	fs_image *ia = sem_make(&o, &ta);
	o.supersample = b;
	fs_image *ib = sem_make(&o, &tb);
	assert_non_null(ia);
	assert_non_null(ib);
	size_t n = (size_t)ia->width * ia->height;
	double lo = INFINITY, hi = -INFINITY, mx = 0, sum = 0;
	for (size_t i = 0; i < n; i++) {
		lo = fmin(lo, ib->data[i]);
		hi = fmax(hi, ib->data[i]);
		double d = fabs(ia->data[i] - ib->data[i]);
		mx = fmax(mx, d);
		sum += d;
	}
	*maxd = mx / (hi - lo);
	*meand = sum / n / (hi - lo);
	sem_truth_free(&ta);
	sem_truth_free(&tb);
	fs_image_free(ia);
	fs_image_free(ib);
}

static void supersampled_pixels_converge(void **state)
{
	(void)state;
	/* steep flat-topped domes packed at fill 0.8, lit from 135 degrees
	 * (shadows), at pitch 16: the hardest case for sampling */
	const int scenes[] = {23, 55};
	for (size_t q = 0; q < sizeof scenes / sizeof *scenes; q++) {
		int k = scenes[q];
		double m12, a12, m24, a24, m48, a48, m816, a816;
		change(k, 1, 2, &m12, &a12);
		change(k, 2, 4, &m24, &a24);
		change(k, 4, 8, &m48, &a48);
		change(k, 8, 16, &m816, &a816);
		printf("sem physics: scene %d, change of the raw image per doubling of the sub-samples "
		       "(max / mean, of its range): 1->2 %.4f/%.5f, 2->4 %.4f/%.5f, 4->8 %.4f/%.5f, "
		       "8->16 %.4f/%.5f (default %d)\n",
		       k, m12, a12, m24, a24, m48, a48, m816, a816, SEM_SUPERSAMPLE);
		/* converging: each doubling changes less on average */
		assert_true(a24 < a12);
		assert_true(a48 < a24);
		assert_true(a816 < a48);
		/* the default (4) is converged to a small part of the range */
		assert_true(a48 < 0.01);
	}
}

/* The profiles' heights written again here from their formulas (not
 * through the simulator's code), base radius 1, top H. */
static double profile_height(double u, double H, double profile)
{
	if (u >= 1)
		return 0;
	if (profile == SEM_PROFILE_SMOOTH) {
		double c = cos(M_PI * u / 2);
		return H * c * c;
	}
	if (profile == 2)
		return H * (1 - pow(u, 6));
	/* the spherical cap of base radius 1 and height H */
	double Rs = (1 + H * H) / (2 * H);
	return sqrt(Rs * Rs - u * u) - (Rs - H);
}

/* A leaning smooth dome's height over its base radius at (ex, ey) / R from
 * its centre, its top at (lx, ly) / R (sem_surface_lean): the distance L
 * from the top to the base circle along the ray through the point, the
 * positive root of |top + L w|^2 = 1 (w the ray's direction), and the
 * cos^2 profile in |point - top| / L. */
static double lean_height(double ex, double ey, double H, double lx, double ly)
{
	if (ex * ex + ey * ey >= 1)
		return 0;
	double vx = ex - lx, vy = ey - ly, v = hypot(vx, vy);
	if (v < 1e-12)
		return H;
	double p = 2 * (lx * vx + ly * vy) / v, q = lx * lx + ly * ly - 1;
	double L = 0.5 * (-p + sqrt(p * p - 4 * q));
	double c = cos(M_PI * v / L / 2);
	return v >= L ? 0 : H * c * c;
}

/* The undulation of s at (x, y): its analytic waves (the simulator's
 * shadow test reads them interpolated from a grid, within 1e-3 px). */
static double und_height(const sem_surface *s, double x, double y)
{
	return 0.5 * s->und_amp * (sin(s->k1x * x + s->k1y * y + s->p1) + sin(s->k2x * x + s->k2y * y + s->p2));
}

/* The surface height at (x, y), the domes (which do not overlap) and the
 * undulation. */
static double surface_height(const sem_surface *s, const sem_dome *dm, size_t n, double profile,
			     double x, double y)
{
	double z = und_height(s, x, y);
	for (size_t k = 0; k < n; k++)
		z += dm[k].R * (s->lean != 0 ? lean_height((x - dm[k].x) / dm[k].R, (y - dm[k].y) / dm[k].R,
							   s->h_over_r, s->lean_x, s->lean_y)
					     : profile_height(hypot(x - dm[k].x, y - dm[k].y) / dm[k].R,
							      s->h_over_r, profile));
	return z;
}

typedef struct march_counts {
	int points, shadowed, lit, unsure, wrong;
} march_counts;

/*
 * Domes of radius 16 px on a hexagonal lattice at fill 0.85 in a 176 x 160
 * frame, detector at elevation 35 degrees; every point of a 3.1 px grid
 * (6.2 px under the sanitizers, which look for memory errors: a quarter of
 * the cost) is
 * given to sem_surface_shadowed and to a march along its path towards the
 * detector in steps of 0.02 px (and at each dome's chord ends), from 0.25
 * px out (the rise of a point's own flank starts at the point) to where the
 * path is above every dome. The march's largest gap above the path > 0.02
 * px must be shadowed, < -0.02 px lit; between, the point is unsure (the
 * march's step and the grid's interpolation decide it).
 */
static march_counts shadow_against_march(double profile, double h_over_r, double azimuth_deg, double und,
					 double lean)
{
	const double R = 16, pitch = 2 * R / 0.85, tol = 0.02, step = 0.02, grid = fs_test_subset() ? 6.2 : 3.1;
	const int W = 176, H = 160;
	sem_dome dm[64];
	size_t n = 0;
	for (int j = -1; j <= 6 && n < 64; j++) {
		for (int i = -1; i <= 6 && n < 64; i++) {
			double x = 20 + i * pitch + (j & 1) * 0.5 * pitch, y = 20 + j * pitch * sqrt(3) / 2;
			if (x > -R && y > -R && x < W + R && y < H + R)
				dm[n++] = (sem_dome){x + 0.3 * j, y + 0.2 * i, R};
		}
	}
	sem_surface s;
	assert_int_equal(sem_surface_init(&s, W, H, h_over_r, profile, und, 7 * pitch, 0.7, 2.1, NULL, dm, n,
					  pitch),
			 0);
	double az = azimuth_deg * M_PI / 180, el = 35 * M_PI / 180;
	sem_surface_detector(&s, az, el, 1.0, 0.5, 0.5, 0.5);
	/* a leaning top faces away from the detector (P1 Fig4, h37i): its
	 * short flank, the steepest, is the one that casts */
	assert_int_equal(sem_surface_lean(&s, lean, az + M_PI), 0);
	double ca = cos(az), sa = sin(az), te = tan(el);
	/* beyond this the path is above everything: the domes' tops R H, the
	 * undulation within +-und of the start */
	double tend = (R * h_over_r + 2 * und) / te + 1;
	march_counts c = {0, 0, 0, 0, 0};
	for (double y = 0.4; y < H; y += grid) {
		for (double x = 0.7; x < W; x += grid) {
			double z0 = surface_height(&s, dm, n, profile, x, y), best = -INFINITY;
			/* the ground between domes only falls under the rising path:
			 * march the chords through the domes and their ends */
			for (size_t k = 0; k < n; k++) {
				double dx = x - dm[k].x, dy = y - dm[k].y;
				double b = dx * ca + dy * sa, disc = b * b - (dx * dx + dy * dy - R * R);
				if (disc <= 0)
					continue;
				double t0 = fmax(0.25, -b - sqrt(disc)), t1 = fmin(tend, -b + sqrt(disc));
				for (double t = t0; t <= t1 + step; t += step) {
					double tt = fmin(t, t1);
					double qx = x + tt * ca, qy = y + tt * sa;
					/* on dome k's chord no other dome stands */
					double hk = lean != 0 ? lean_height((qx - dm[k].x) / R, (qy - dm[k].y) / R,
									    h_over_r, s.lean_x, s.lean_y)
							      : profile_height(hypot(qx - dm[k].x, qy - dm[k].y) / R,
									       h_over_r, profile);
					double g = und_height(&s, qx, qy) + R * hk - z0 - tt * te;
					best = fmax(best, g);
				}
			}
			/* and the ground itself (a lower bound where a chord is) */
			for (double t = 0.25; t <= tend; t += 0.5)
				best = fmax(best, und_height(&s, x + t * ca, y + t * sa) - z0 - t * te);
			int sh = sem_surface_shadowed(&s, x, y);
			c.points++;
			c.shadowed += sh;
			if (best > tol)
				c.wrong += !sh;
			else if (best < -tol)
				c.wrong += sh, c.lit += !sh;
			else
				c.unsure++;
		}
	}
	sem_surface_free(&s);
	return c;
}

static void shadow_is_where_the_surface_rises_above_the_path(void **state)
{
	(void)state;
	static const struct {
		double profile, h_over_r, azimuth, und, lean;
		int casts; /* 1: the dome is steeper than the elevation somewhere */
	} cases[] = {
		{0, 1.0, 0, 2, 0, 1},			/* hemispheres (golden section) */
		{2, 1.0, 135, 2, 0, 1},			/* flat-topped (golden section) */
		{SEM_PROFILE_SMOOTH, 0.5, 0, 0, 0, 1},	/* slope up to 0.79 > tan 35 = 0.70 */
		{SEM_PROFILE_SMOOTH, 1.0, 135, 2, 0, 1}, /* slope up to 1.57 */
		{SEM_PROFILE_SMOOTH, 0.25, 0, 0, 0, 0},	/* slope up to 0.39: no shadow */
		/* leaning tops (h37i): the short flank steeper than the
		 * centred dome's, the branch and bound on its own bound */
		{SEM_PROFILE_SMOOTH, 0.5, -65, 2, 0.25, 1},
		{SEM_PROFILE_SMOOTH, 0.4, 0, 0, 0.3, 1},
	};
	clock_t c0 = clock();
	for (size_t q = 0; q < sizeof cases / sizeof *cases; q++) {
		march_counts c = shadow_against_march(cases[q].profile, cases[q].h_over_r, cases[q].azimuth,
						      cases[q].und, cases[q].lean);
		printf("sem physics: shadow test against a march, profile %g h/R %.2f azimuth %g undulation %g "
		       "lean %g: %d points, %d shadowed, %d lit, %d unsure, %d wrong\n",
		       cases[q].profile, cases[q].h_over_r, cases[q].azimuth, cases[q].und, cases[q].lean, c.points,
		       c.shadowed, c.lit, c.unsure, c.wrong);
		assert_int_equal(c.wrong, 0);
		/* unsure: the terminator of a self-shadowed flank, where the
		 * path grazes the dome */
		assert_true(c.unsure <= c.points / 16);
		if (cases[q].casts) {
			/* shadows enough for the comparison to mean something */
			assert_true(c.shadowed >= c.points / 50);
			assert_true(c.lit >= c.points / 2);
		} else {
			assert_int_equal(c.shadowed, 0);
		}
	}
	printf("sem physics: shadow test against a march, %.2f s of CPU\n", (double)(clock() - c0) / CLOCKS_PER_SEC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(flat_ground_gives_flat_yield),
		cmocka_unit_test(se_edge_of_a_large_cap_is_at_its_base),
		cmocka_unit_test(supersampled_pixels_converge),
		cmocka_unit_test(shadow_is_where_the_surface_rises_above_the_path),
	};
	return cmocka_run_group_tests_name("sem physics", tests, NULL, NULL);
}
