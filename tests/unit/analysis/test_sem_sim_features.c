/*
 * The SEM simulator's remaining features checked in the image it renders
 * (tests/unit/support/sem_sim.h, issue 13 section 1), each against its
 * parameter and against the same scene with the feature off:
 * - radius and position jitter: each dome's base radius and centre read
 *   back from the raw signal (the excess yield over the flat ground, its
 *   integral and centroid) follow the truth, and their spread over the
 *   domes is the spread asked for;
 * - the low-frequency undulation: power at its two waves' frequencies (7
 *   and 9.1 pitches), far above their mirror images and above the same
 *   frequencies without it;
 * - the fine roughness: on bare ground, power peaking where its ~1 px
 *   smoothing and the beam put it, none without it, its RMS growing in
 *   proportion to its SD;
 * - edge brightening: a brighter rim on steep domes, more than on low
 *   ones, nothing on the top or the flat ground;
 * - a leaning top (sem_opts.lean, h37i): the lobes' extremes move as the
 *   flanks' lengths say, the base stays on the true circle;
 * - brightness / contrast drift: the row means' wave and the columns'
 *   contrast trend read back as set;
 * - scan blur and resampling: the halftone screen's fundamental weakened
 *   as a Gaussian of the scan blur's sigma predicts, and a resampled
 *   screen weakened by the resampling's anti-alias blur;
 * - JPEG compression: the brightness steps at the 8-px block boundaries
 *   grow as the quality drops.
 * (Image formation, detector, shadows, halftone, noise, quantisation,
 * margins: test_sem_sim.c; the physics of the base: test_sem_physics.c.)
 * Each check fails with its feature switched off in sem_sim.c while the
 * option is still set (branch h30h's report). Small scenes, shadows off
 * where they do not matter: 1-2 s of CPU plain, 3.5 s under ASan (under
 * load).
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

#include "analysis/fft.h"
#include "sem_sim.h"

/* A clean scene: no jitter, nothing missing, no noise, drift or
 * quantisation, a flat surface. */
static void clean(sem_opts *o)
{
	sem_defaults(o);
	o->radius_jitter = 0;
	o->pos_jitter = 0;
	o->missing = 0;
	o->undulation = 0;
	o->roughness = 0;
	o->dose = 0;
	o->drift = 0;
	o->bits = 0;
}

static fs_image *render(const sem_opts *o, sem_truth *t)
{
	fs_image *img = sem_make(o, t);
	assert_non_null(img);
	return img;
}

/* ---- radius and position jitter ---- */

/* The excess yield over the ground, integrated over a paraboloid of base
 * radius R and height h R under the secant law (n = 1) alone, is c R^2:
 * c = 2 pi integral_0^1 (sqrt(1 + 4 h^2 u^2) - 1) u du. */
static double excess_coef(double h)
{
	return 2 * M_PI * ((pow(1 + 4 * h * h, 1.5) - 1) / (12 * h * h) - 0.5);
}

typedef struct jitter_read {
	double rel_sd;      /* SD of the radii read back / their mean */
	double truth_rel_sd; /* the same of the truth's radii */
	double pos_sd;      /* SD of the centres read back from the lattice sites, px per axis */
	double worst_r;     /* largest |radius read - truth|, px */
	double worst_c;     /* largest |centre read - truth|, px */
	int n;
} jitter_read;

/* Reads each whole dome of a raw, directionless, unblurred scene back from
 * its excess yield: radius from the integral, centre from the centroid. */
static jitter_read read_jitter(double radius_jitter, double pos_jitter)
{
	sem_opts o;
	clean(&o);
	o.raw = 1;
	o.width = 448;
	o.height = 384;
	o.pitch = 24;
	o.fill = 0.5;
	o.profile = 1;
	o.h_over_r = 0.5;
	o.det_strength = 0;
	o.shadow = 0;
	o.edge = 0;
	o.beam_blur = 0;
	o.radius_jitter = radius_jitter;
	o.pos_jitter = pos_jitter;
	sem_truth t;
	fs_image *img = render(&o, &t);
	double c = excess_coef(o.h_over_r);
	double ax = o.pitch, bx = o.pitch * 0.5, by = o.pitch * sqrt(3) / 2; /* angle 0 */
	double cx = o.width / 2.0, cy = o.height / 2.0;
	double sr = 0, sr2 = 0, sp2 = 0, tr = 0, tr2 = 0;
	jitter_read j = {0, 0, 0, 0, 0, 0};
	for (size_t i = 0; i < t.n; i++) {
		double R = t.d[i] / 2, w = R + 2.5;
		if (t.x[i] - w < 0 || t.y[i] - w < 0 || t.x[i] + w > img->width - 1 || t.y[i] + w > img->height - 1)
			continue;
		double m0 = 0, mx = 0, my = 0;
		for (int y = (int)floor(t.y[i] - w); y <= (int)ceil(t.y[i] + w); y++)
			for (int x = (int)floor(t.x[i] - w); x <= (int)ceil(t.x[i] + w); x++) {
				double e = fs_image_value(img, x, y) - 1;
				m0 += e;
				mx += e * x;
				my += e * y;
			}
		double r = sqrt(m0 / c), x = mx / m0, y = my / m0;
		j.worst_r = fmax(j.worst_r, fabs(r - R));
		j.worst_c = fmax(j.worst_c, hypot(x - t.x[i], y - t.y[i]));
		/* the nearest site of the unjittered lattice */
		double fj = (y - cy) / by, fi = (x - cx - fj * bx) / ax;
		double sx = cx + lround(fi) * ax + lround(fj) * bx, sy = cy + lround(fj) * by;
		sp2 += (x - sx) * (x - sx) + (y - sy) * (y - sy);
		sr += r;
		sr2 += r * r;
		tr += R;
		tr2 += R * R;
		j.n++;
	}
	assert_true(j.n > 100);
	double mean = sr / j.n;
	j.rel_sd = sqrt(fmax(0, sr2 / j.n - mean * mean)) / mean;
	j.truth_rel_sd = sqrt(fmax(0, tr2 / j.n - (tr / j.n) * (tr / j.n))) / (tr / j.n);
	j.pos_sd = sqrt(sp2 / (2.0 * j.n));
	sem_truth_free(&t);
	fs_image_free(img);
	return j;
}

static void radius_and_position_jitter_are_in_the_image(void **state)
{
	(void)state;
	const double rj = 0.08, pj = 0.04, pitch = 24;
	jitter_read on = read_jitter(rj, pj), off = read_jitter(0, 0);
	printf("jitter: %d domes read back; radius SD / mean %.4f (truth %.4f, asked %.2f; off %.4f), centre SD "
	       "per axis %.3f px (asked %.3f; off %.3f); worst radius error %.3f px, worst centre error %.3f px\n",
	       on.n, on.rel_sd, on.truth_rel_sd, rj, off.rel_sd, on.pos_sd, pj * pitch, off.pos_sd, on.worst_r,
	       on.worst_c);
	/* the image follows the truth dome by dome */
	assert_true(on.worst_r < 0.1);
	assert_true(on.worst_c < 0.1);
	assert_true(fabs(on.rel_sd / on.truth_rel_sd - 1) < 0.03);
	/* the spreads asked for (their sampling error over 300 domes is
	 * about 4 %; the radius's is clipped at 0.25, three SDs) */
	assert_true(fabs(on.truth_rel_sd / rj - 1) < 0.15);
	assert_true(fabs(on.rel_sd / rj - 1) < 0.15);
	assert_true(fabs(on.pos_sd / (pj * pitch) - 1) < 0.15);
	/* and none without them */
	assert_true(off.rel_sd < 0.005);
	assert_true(off.pos_sd < 0.02);
}

/* ---- spectra ---- */

/* Power of the image's mean-free brightness at the frequency (fx, fy),
 * cycles per pixel, over the w x h window at (x0, y0) (a direct sum: the
 * frequency need not be a DFT bin). */
static double power_at(const fs_image *img, int x0, int y0, int w, int h, double fx, double fy)
{
	double mean = 0;
	for (int y = y0; y < y0 + h; y++)
		for (int x = x0; x < x0 + w; x++)
			mean += fs_image_value(img, x, y);
	mean /= (double)w * h;
	double re = 0, im = 0;
	for (int y = y0; y < y0 + h; y++)
		for (int x = x0; x < x0 + w; x++) {
			double v = fs_image_value(img, x, y) - mean, a = 2 * M_PI * (fx * x + fy * y);
			re += v * cos(a);
			im -= v * sin(a);
		}
	return (re * re + im * im) / ((double)w * h);
}

/* Radial power spectrum of the n x n (power of two) window at the origin
 * of img, mean removed: out[k] = mean power over the bins whose radius is
 * in [k, k + 1) (cycles per n px), k < n / 2. */
static void radial_spectrum(const fs_image *img, int n, double *out)
{
	float *re = calloc((size_t)n * n, sizeof *re), *im = calloc((size_t)n * n, sizeof *im);
	assert_non_null(re);
	assert_non_null(im);
	double mean = 0;
	for (int y = 0; y < n; y++)
		for (int x = 0; x < n; x++)
			mean += fs_image_value(img, x, y);
	mean /= (double)n * n;
	for (int y = 0; y < n; y++)
		for (int x = 0; x < n; x++)
			re[(size_t)y * n + x] = (float)(fs_image_value(img, x, y) - mean);
	assert_int_equal(fs_fft2d(re, im, (size_t)n, (size_t)n, 0), 0);
	int *cnt = calloc((size_t)n, sizeof *cnt);
	assert_non_null(cnt);
	for (int k = 0; k < n / 2; k++)
		out[k] = 0;
	for (int v = 0; v < n; v++)
		for (int u = 0; u < n; u++) {
			int fu = u < n / 2 ? u : u - n, fv = v < n / 2 ? v : v - n;
			int k = (int)hypot(fu, fv);
			if (k >= n / 2)
				continue;
			size_t i = (size_t)v * n + u;
			out[k] += ((double)re[i] * re[i] + (double)im[i] * im[i]) / ((double)n * n);
			cnt[k]++;
		}
	for (int k = 0; k < n / 2; k++)
		out[k] = cnt[k] ? out[k] / cnt[k] : 0;
	free(cnt);
	free(re);
	free(im);
}

/* ---- undulation ---- */

/* The undulation is two waves of 7 and 9.1 pitches (sem_surface_init):
 * along (0.8, 0.6) and (-0.3, 0.95). Seen by the side detector at azimuth
 * 0, their slopes along x brighten and darken the image at their
 * frequencies. */
static void undulation_shows_at_its_two_wavelengths(void **state)
{
	(void)state;
	sem_opts o;
	sem_defaults(&o);
	o.width = 256;
	o.height = 256;
	o.pitch = 10;
	o.drift = 0;
	o.shadow = 0; /* (the shadows' search is most of a render's cost) */
	o.undulation = 3;
	sem_truth t;
	fs_image *on = render(&o, &t);
	sem_truth_free(&t);
	o.undulation = 0;
	fs_image *off = render(&o, &t);
	sem_truth_free(&t);
	double L = 7 * o.pitch;
	const double f[2][2] = {{0.8 / L, 0.6 / L}, {-0.3 / (1.3 * L), 0.95 / (1.3 * L)}};
	for (int q = 0; q < 2; q++) {
		double fx = f[q][0], fy = f[q][1];
		double p = power_at(on, 0, 0, 256, 256, fx, fy);
		double p_off = power_at(off, 0, 0, 256, 256, fx, fy);
		/* the same frequency mirrored, and the same direction at half
		 * and twice the wavelength */
		double mirror = power_at(on, 0, 0, 256, 256, fx, -fy);
		double longer = power_at(on, 0, 0, 256, 256, fx / 2, fy / 2);
		double shorter = power_at(on, 0, 0, 256, 256, fx * 2, fy * 2);
		printf("undulation wave %d (%.1f px): power %.4g; without it %.4g; mirrored %.4g; at twice the "
		       "wavelength %.4g, at half %.4g\n",
		       q + 1, 1 / hypot(fx, fy), p, p_off, mirror, longer, shorter);
		assert_true(p > 10 * p_off);
		assert_true(p > 10 * mirror);
		assert_true(p > 3 * longer);
		assert_true(p > 10 * shorter);
	}
	fs_image_free(on);
	fs_image_free(off);
}

/* ---- roughness ---- */

/* The raw signal of a scene with roughness of SD rough (px of height). */
static fs_image *rough_scene(double rough)
{
	sem_opts o;
	clean(&o);
	o.raw = 1;
	o.missing = 1; /* the ground alone: domes would mix their slopes in */
	/* edge brightening (checked below) would add the curvature's rectified,
	 * broad-band power */
	o.edge = 0;
	o.width = 256;
	o.height = 256;
	o.roughness = rough;
	sem_truth t;
	fs_image *img = render(&o, &t);
	sem_truth_free(&t);
	return img;
}

/* Mean of the radial spectrum over radii [k0, k1). */
static double band(const double *s, int k0, int k1)
{
	double a = 0;
	for (int k = k0; k < k1; k++)
		a += s[k];
	return a / (k1 - k0);
}

/* The roughness is white noise smoothed by a Gaussian of 1 px, its slopes
 * taken by central differences; the side detector's yield follows the
 * slope along x. So on bare ground the brightness's power per frequency
 * bin goes as sin^2(2 pi f) exp(-4 pi^2 (1 + s^2) f^2), s^2 = 0.557 the
 * beam's Gaussian part (sem_sim.c): it peaks at 0.116 cycles per px, with
 * little at the frequencies of the domes' lattice (below 0.03) and beyond
 * 0.35. Bare ground without roughness is flat; the brightness's RMS grows
 * in proportion to the roughness's SD. */
static void roughness_shows_at_the_pixel_scale(void **state)
{
	(void)state;
	enum { N = 256 };
	fs_image *none = rough_scene(0), *a = rough_scene(0.05), *b = rough_scene(0.1);
	double sa[N / 2];
	radial_spectrum(a, N, sa);
	double v0 = 0, va = 0, vb = 0, ma = 0, mb = 0;
	for (size_t i = 0; i < (size_t)N * N; i++) {
		ma += a->data[i];
		mb += b->data[i];
	}
	ma /= (double)N * N;
	mb /= (double)N * N;
	for (size_t i = 0; i < (size_t)N * N; i++) {
		v0 = fmax(v0, fabs(none->data[i] - 1));
		va += (a->data[i] - ma) * (a->data[i] - ma);
		vb += (b->data[i] - mb) * (b->data[i] - mb);
	}
	int peak = 1;
	for (int k = 1; k < N / 2; k++)
		if (sa[k] > sa[peak])
			peak = k;
	/* bands in cycles per N px: 0.08-0.2 cycles per px is 20-51 */
	double low = band(sa, 1, 8), mid = band(sa, 20, 51), high = band(sa, 90, 128);
	double ratio = sqrt(vb / va);
	printf("roughness 0.05 px on bare ground: power peaks at %.3f cycles/px (predicted 0.116); band power "
	       "below 0.03 %.3g, 0.08-0.2 %.3g, beyond 0.35 %.3g; RMS %.4f, at SD 0.1 x %.3f; without it "
	       "the ground is flat to %.2g\n",
	       peak / (double)N, low, mid, high, sqrt(va / ((double)N * N)), ratio, v0);
	assert_true(peak >= 0.09 * N && peak <= 0.15 * N);
	assert_true(mid > 3 * low && mid > 30 * high);
	assert_true(fabs(ratio - 2) < 0.1);
	assert_true(va / ((double)N * N) > 1e-6);
	assert_true(v0 < 1e-5);
	fs_image_free(none);
	fs_image_free(a);
	fs_image_free(b);
}

/* ---- edge brightening ---- */

typedef struct rings {
	double top, rim, ground;
} rings;

/* Mean raw signal over the counted domes: top (r < 0.3 R), rim (0.8 R to
 * R), and the ground 1.5-2.5 px beyond the base. */
static rings ring_means(double h_over_r, double edge)
{
	sem_opts o;
	clean(&o);
	o.raw = 1;
	o.pitch = 32;
	o.fill = 0.5;
	o.profile = 2; /* flat-topped: its curvature gathers at the rim */
	o.h_over_r = h_over_r;
	o.det_strength = 0;
	o.shadow = 0;
	o.edge = edge;
	o.beam_blur = 0;
	sem_truth t;
	fs_image *img = render(&o, &t);
	double s[3] = {0, 0, 0};
	long n[3] = {0, 0, 0};
	for (size_t i = 0; i < t.n; i++) {
		if (!sem_counted(&t, t.x[i], t.y[i]))
			continue;
		double R = t.d[i] / 2;
		for (int y = (int)(t.y[i] - R - 3); y <= (int)(t.y[i] + R + 3); y++)
			for (int x = (int)(t.x[i] - R - 3); x <= (int)(t.x[i] + R + 3); x++) {
				double r = hypot(x - t.x[i], y - t.y[i]);
				int k = r < 0.3 * R ? 0 : r >= 0.8 * R && r < R - 0.7 ? 1 : r > R + 1.5 && r < R + 2.5 ? 2 : -1;
				if (k < 0)
					continue;
				s[k] += fs_image_value(img, x, y);
				n[k]++;
			}
	}
	assert_true(n[0] > 100 && n[1] > 100 && n[2] > 100);
	sem_truth_free(&t);
	fs_image_free(img);
	return (rings){s[0] / n[0], s[1] / n[1], s[2] / n[2]};
}

static void edge_brightening_lights_the_rim_of_steep_domes(void **state)
{
	(void)state;
	rings steep = ring_means(1.0, 0.5), steep0 = ring_means(1.0, 0);
	rings low = ring_means(0.25, 0.5), low0 = ring_means(0.25, 0);
	double gain_steep = steep.rim - steep0.rim, gain_low = low.rim - low0.rim;
	printf("edge brightening 0.5: rim of steep domes +%.3f (%.3f -> %.3f), of low domes +%.3f; top +%.4f; "
	       "ground beyond the base +%.2g\n",
	       gain_steep, steep0.rim, steep.rim, gain_low, steep.top - steep0.top, steep.ground - steep0.ground);
	/* the rim's curvature, 36 h / R at most for this profile, is capped
	 * at 1.5: edge x 1.5 on steep domes, about half that on low ones */
	assert_true(gain_steep > 0.5);
	assert_true(gain_steep > 1.5 * gain_low);
	assert_true(gain_low > 0.05);
	/* the flat top and the flat ground are not convex */
	assert_true(fabs(steep.top - steep0.top) < 0.01);
	assert_true(fabs(steep.ground - steep0.ground) < 1e-4);
}

/* ---- leaning tops (h37i) ---- */

typedef struct lean_read {
	double dark, bright; /* mean positions of the lobes' extremes, in R, along the axis */
	double foot_away, foot_lit; /* mean last pixel off the ground, in R, either side */
	double d0;                  /* the first counted dome's true diameter */
} lean_read;

/* The raw signal along the detector's axis (x, the detector at azimuth 0)
 * through each counted dome's centre, slope lighting alone (no shadow,
 * edge or beam blur): where its dark and bright extremes lie and where it
 * leaves the flat ground (1 there: the secant law and the detector's
 * term are 1 on level ground), either side of the centre. */
static lean_read read_lean(double lean)
{
	sem_opts o;
	clean(&o);
	o.raw = 1;
	o.pitch = 48;
	o.fill = 0.6;
	o.profile = SEM_PROFILE_SMOOTH;
	/* low enough that no flank is steeper than 0.70, where the secant
	 * law starts to brighten a flank facing away faster than the
	 * detector's term darkens it: the darkest point is then the steepest
	 * (the short flank's slope at most 0.25 pi / 2 / 0.75 = 0.52) */
	o.h_over_r = 0.25;
	o.shadow = 0;
	o.edge = 0;
	o.beam_blur = 0;
	o.lean = lean;
	o.lean_azimuth = M_PI; /* away from the detector, as P1 Fig4 reads */
	sem_truth t;
	fs_image *img = render(&o, &t);
	lean_read r = {0, 0, 0, 0, t.n ? t.d[0] : 0};
	int m = 0;
	for (size_t i = 0; i < t.n; i++) {
		if (!sem_counted(&t, t.x[i], t.y[i]))
			continue;
		double R = t.d[i] / 2;
		int y = (int)lround(t.y[i]), x0 = (int)floor(t.x[i] - R - 3), x1 = (int)ceil(t.x[i] + R + 3);
		int xd = x0, xb = x0, fa = -1, fl = -1;
		for (int x = x0; x <= x1; x++) {
			double v = fs_image_value(img, x, y);
			if (v < fs_image_value(img, xd, y))
				xd = x;
			if (v > fs_image_value(img, xb, y))
				xb = x;
			if (fabs(v - 1) > 1e-3) {
				if (fa < 0)
					fa = x;
				fl = x;
			}
		}
		r.dark += (xd - t.x[i]) / R;
		r.bright += (xb - t.x[i]) / R;
		r.foot_away += (fa - t.x[i]) / R;
		r.foot_lit += (fl - t.x[i]) / R;
		m++;
	}
	assert_true(m >= 10);
	r.dark /= m;
	r.bright /= m;
	r.foot_away /= m;
	r.foot_lit /= m;
	sem_truth_free(&t);
	fs_image_free(img);
	return r;
}

/* A top leaning 0.25 R away from the detector makes the flank facing
 * away from it 0.75 R long and the one facing it 1.25 R: their steepest
 * points, the dark and the bright lobes' extremes, move to -0.625 R and
 * +0.375 R from the base's centre (-0.5 R and +0.5 R when centred), while
 * the base, the truth, stays where it was on both sides. */
static void a_leaning_top_moves_the_lobes_not_the_base(void **state)
{
	(void)state;
	lean_read c = read_lean(0), l = read_lean(0.25);
	printf("leaning top: dark lobe at %.3f R -> %.3f R, bright at %.3f R -> %.3f R; the signal leaves the "
	       "ground at %.3f / %.3f R -> %.3f / %.3f R\n",
	       c.dark, l.dark, c.bright, l.bright, c.foot_away, c.foot_lit, l.foot_away, l.foot_lit);
	assert_true(fabs(c.dark + c.bright) < 0.05);
	assert_true(fabs(l.dark + 0.625) < 0.06);
	assert_true(fabs(l.bright - 0.375) < 0.06);
	assert_true(-l.dark - l.bright > 0.2);
	/* the base within a pixel of R either side, leaning or not (R 14.4 px) */
	assert_true(fabs(l.foot_away + 1) < 0.07 && fabs(l.foot_lit - 1) < 0.07);
	assert_true(fabs(l.foot_away - c.foot_away) < 0.035 && fabs(l.foot_lit - c.foot_lit) < 0.035);
	assert_true(l.d0 == c.d0);
}

/* ---- a bright cap (h37r) ---- */

/* A bright cap multiplies a dome's signal by 1 + cap (z / Z)^power at
 * every point, z the dome's height there over its top's, whatever the
 * slope: on the raw signal (no shadow, edge, beam blur or noise) the
 * ratio of the capped scene to the same scene without a cap is
 * 1 + cap (cos^2(pi u / 2))^power at a pixel u R from a smooth dome's
 * centre - the same on the flank facing the detector as on the one facing
 * away, 1 + cap at the top, 1 on the ground - and the truth is the same.
 * Pixels within 2 px of a base are sub-sampled (a mean, not a point):
 * left out. A cap out of range is refused. */
static void a_bright_cap_brightens_the_top_whatever_its_slope(void **state)
{
	(void)state;
	sem_opts o;
	clean(&o);
	o.raw = 1;
	o.pitch = 48;
	o.fill = 0.6;
	o.profile = SEM_PROFILE_SMOOTH;
	o.h_over_r = 0.5;
	o.shadow = 0;
	o.edge = 0;
	o.beam_blur = 0;
	sem_truth t0, t1;
	fs_image *a = render(&o, &t0);
	o.cap = 1.0;
	o.cap_power = 2;
	fs_image *b = render(&o, &t1);
	assert_int_equal(t0.n, t1.n);
	for (size_t i = 0; i < t0.n; i++)
		assert_true(t0.x[i] == t1.x[i] && t0.y[i] == t1.y[i] && t0.d[i] == t1.d[i]);
	double worst = 0, top = 0, lit = 0, away = 0;
	int n = 0, ground = 0;
	for (int y = 0; y < a->height; y++) {
		for (int x = 0; x < a->width; x++) {
			double u = 2, R = 1;
			for (size_t i = 0; i < t0.n; i++) {
				double r = hypot(x - t0.x[i], y - t0.y[i]) / (t0.d[i] / 2);
				if (r < u)
					u = r, R = t0.d[i] / 2;
			}
			double va = fs_image_value(a, x, y), vb = fs_image_value(b, x, y);
			if (u >= 1 + 2 / R) {
				ground += vb == va;
				n++;
				continue;
			}
			if (u > 1 - 2 / R)
				continue;
			double z = 0.5 * (1 + cos(M_PI * u)), want = 1 + o.cap * z * z;
			worst = fmax(worst, fabs(vb / va - want));
			if (u < 0.05)
				top = fmax(top, vb / va);
		}
	}
	/* the flanks along the detector's axis (x) of the first counted dome */
	for (size_t i = 0; i < t0.n && !(lit > 0); i++) {
		if (!sem_counted(&t0, t0.x[i], t0.y[i]))
			continue;
		double R = t0.d[i] / 2, y = t0.y[i];
		/* sampled (bilinear) at exactly u = 0.5: the ratio there is
		 * 1 + cap / 4 up to the curvature between the pixels */
		lit = fs_image_sample(b, t0.x[i] + 0.5 * R, y) / fs_image_sample(a, t0.x[i] + 0.5 * R, y);
		away = fs_image_sample(b, t0.x[i] - 0.5 * R, y) / fs_image_sample(a, t0.x[i] - 0.5 * R, y);
	}
	printf("bright cap 1^2: ratio at the tops %.4f, flanks at half height lit %.4f / away %.4f, largest "
	       "departure from 1 + cap (z / Z)^2 %.2g; ground unchanged at %d of %d pixels\n",
	       top, lit, away, worst, ground, n);
	assert_true(worst < 1e-4);
	assert_true(fabs(top - 2) < 0.01);
	assert_true(fabs(lit - 1.25) < 0.01 && fabs(away - 1.25) < 0.01);
	assert_int_equal(ground, n);
	sem_truth_free(&t0);
	sem_truth_free(&t1);
	fs_image_free(a);
	fs_image_free(b);
	o.cap = SEM_CAP_MAX * 1.01;
	assert_null(sem_make(&o, &t1));
	o.cap = 1;
	o.cap_power = SEM_CAP_POWER_MAX * 2;
	assert_null(sem_make(&o, &t1));
}

/* ---- drift ---- */

typedef struct drift_read {
	double wave;     /* amplitude of the row means' sin(2 pi y / H) */
	double contrast; /* relative change of the columns' contrast over the width */
} drift_read;

/* The detector response drifts (sem_sim.c): the offset by 0.1 drift
 * sin(2 pi y / H) down the rows, the gain by (1 + drift (x / W - 0.5))
 * across the columns. Read back from the image alone. */
static drift_read read_drift(double drift)
{
	sem_opts o;
	sem_defaults(&o);
	o.width = 320;
	o.height = 256;
	o.dose = 0;
	o.shadow = 0;
	o.drift = drift;
	sem_truth t;
	fs_image *img = render(&o, &t);
	int W = img->width, H = img->height;
	double wave = 0;
	for (int y = 0; y < H; y++) {
		double m = 0;
		for (int x = 0; x < W; x++)
			m += fs_image_value(img, x, y);
		wave += m / W * sin(2 * M_PI * y / H);
	}
	wave *= 2.0 / H;
	/* each column's SD against x / W - 0.5: slope / mean */
	double sx = 0, sxx = 0, ss = 0, sxs = 0;
	for (int x = 0; x < W; x++) {
		double a = 0, a2 = 0;
		for (int y = 0; y < H; y++) {
			double v = fs_image_value(img, x, y);
			a += v;
			a2 += v * v;
		}
		double sd = sqrt(fmax(0, a2 / H - (a / H) * (a / H))), u = x / (double)W - 0.5;
		sx += u;
		sxx += u * u;
		ss += sd;
		sxs += u * sd;
	}
	double slope = (sxs - sx * ss / W) / (sxx - sx * sx / W);
	sem_truth_free(&t);
	fs_image_free(img);
	return (drift_read){wave, slope / (ss / W)};
}

static void drift_shows_in_the_row_and_column_trends(void **state)
{
	(void)state;
	const double drift = 0.3;
	drift_read on = read_drift(drift), off = read_drift(0);
	printf("drift %.1f: row means' wave %.4f (set %.4f; off %.4f), columns' contrast over the width %+.3f "
	       "(set %+.3f; off %+.3f)\n",
	       drift, on.wave, 0.1 * drift, off.wave, on.contrast, drift, off.contrast);
	assert_true(fabs(on.wave - 0.1 * drift) < 0.2 * 0.1 * drift);
	assert_true(fabs(on.contrast - drift) < 0.2 * drift);
	assert_true(fabs(off.wave) < 0.2 * 0.1 * drift);
	assert_true(fabs(off.contrast) < 0.2 * drift);
}

/* ---- scan blur and resampling ---- */

/* A printed screen of period P px at 45 degrees, scanned with blur sigma
 * and resampled by s. */
static fs_image *screen(double P, double sigma, double s)
{
	sem_opts o;
	clean(&o);
	o.width = 256;
	o.height = 256;
	o.shadow = 0;
	o.halftone = P;
	o.scan_blur = sigma;
	o.resample = s;
	sem_truth t;
	fs_image *img = render(&o, &t);
	sem_truth_free(&t);
	return img;
}

/* The power of the screen's two fundamentals (period P at +-45 degrees)
 * per pixel of the window (images of two sizes compare). */
static double fundamental(const fs_image *img, double P)
{
	double f = 1 / (P * M_SQRT2);
	int n = img->width < img->height ? img->width : img->height;
	return (power_at(img, 0, 0, n, n, f, f) + power_at(img, 0, 0, n, n, f, -f)) / ((double)n * n);
}

static void scan_blur_and_resampling_weaken_the_screen_as_set(void **state)
{
	(void)state;
	const double P = 5;
	/* a Gaussian of sigma multiplies the power at radial frequency 1 / P
	 * by exp(-4 pi^2 sigma^2 / P^2) */
	fs_image *sharp = screen(P, 0, 1);
	double p0 = fundamental(sharp, P);
	const double sig[] = {0.6, 1.2};
	for (int k = 0; k < 2; k++) {
		fs_image *b = screen(P, sig[k], 1);
		double ratio = fundamental(b, P) / p0, want = exp(-4 * M_PI * M_PI * sig[k] * sig[k] / (P * P));
		printf("scan blur %.1f px: the screen's fundamental x %.3f (a Gaussian: x %.3f)\n", sig[k], ratio, want);
		assert_true(fabs(ratio / want - 1) < 0.1);
		fs_image_free(b);
	}
	/* resampled by 0.5 after no scan blur: the screen's period halves;
	 * the anti-alias blur (sigma 0.5 / s = 1 rendered px) and the
	 * bilinear sampling between two rendered pixels weaken it by
	 * exp(-4 pi^2 / P^2) cos^4(pi / (P sqrt 2)) in power (per area) */
	fs_image *half = screen(P, 0, 0.5);
	assert_int_equal(half->width, 128);
	double ratio = fundamental(half, P / 2) / p0;
	double c = cos(M_PI / (P * M_SQRT2));
	double want = exp(-4 * M_PI * M_PI / (P * P)) * c * c * c * c;
	printf("resampled x 0.5: the screen's fundamental at period %.1f px x %.3f (anti-alias and bilinear: x %.3f)\n",
	       P / 2, ratio, want);
	assert_true(fabs(ratio / want - 1) < 0.15);
	fs_image_free(half);
	fs_image_free(sharp);
}

/* ---- JPEG ---- */

/* Mean |step| between neighbouring columns and rows across the 8-px block
 * boundaries over the mean step elsewhere: 1 without blocks. */
static double blockiness(const fs_image *img)
{
	double at = 0, off = 0;
	long na = 0, no = 0;
	for (int y = 1; y < img->height; y++)
		for (int x = 1; x < img->width; x++) {
			double v = fs_image_value(img, x, y);
			double dx = fabs(v - fs_image_value(img, x - 1, y)), dy = fabs(v - fs_image_value(img, x, y - 1));
			if (x % 8 == 0) {
				at += dx;
				na++;
			} else {
				off += dx;
				no++;
			}
			if (y % 8 == 0) {
				at += dy;
				na++;
			} else {
				off += dy;
				no++;
			}
		}
	return (at / na) / (off / no);
}

static void jpeg_blocks_grow_as_the_quality_drops(void **state)
{
	(void)state;
	const int q[] = {0, 90, 60, 30, 10};
	double prev = 0;
	for (int k = 0; k < 5; k++) {
		sem_opts o;
		sem_defaults(&o);
		o.jpeg_quality = q[k];
		o.scan_blur = 0;
		o.dose = 0;
		o.shadow = 0;
		o.width = 192;
		o.height = 160;
		o.pitch = 23;
		o.angle = 0.3;
		sem_truth t;
		fs_image *img = render(&o, &t);
		double b = blockiness(img);
		printf("jpeg quality %d: steps at block boundaries / elsewhere %.3f\n", q[k], b);
		if (k == 0)
			assert_true(fabs(b - 1) < 0.05);
		else
			assert_true(b > prev + 0.03);
		prev = b;
		sem_truth_free(&t);
		fs_image_free(img);
	}
	assert_true(prev > 1.5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(radius_and_position_jitter_are_in_the_image),
		cmocka_unit_test(undulation_shows_at_its_two_wavelengths),
		cmocka_unit_test(roughness_shows_at_the_pixel_scale),
		cmocka_unit_test(edge_brightening_lights_the_rim_of_steep_domes),
		cmocka_unit_test(a_leaning_top_moves_the_lobes_not_the_base),
		cmocka_unit_test(a_bright_cap_brightens_the_top_whatever_its_slope),
		cmocka_unit_test(drift_shows_in_the_row_and_column_trends),
		cmocka_unit_test(scan_blur_and_resampling_weaken_the_screen_as_set),
		cmocka_unit_test(jpeg_blocks_grow_as_the_quality_drops),
	};
	return cmocka_run_group_tests_name("sem simulator features", tests, NULL, NULL);
}
