/*
 * The simulator's continuous beam (sem_opts.beam_continuous, h40s;
 * sem_surface.h's sem_surface_render_beam and sem_beam_box): the signal
 * blurred on the sub-sample grid by a continuous Gaussian and then the
 * pixel's box, where the default blurs the box means with a Gaussian
 * sampled on the pixel lattice (a staircase kernel between the pixels,
 * docs/paper-figures.md h40a). Checked against the analytic case: a
 * straight step edge, whose profile is the erf convolved with the box,
 * sigma [psi((a + 1/2) / sigma) - psi((a - 1/2) / sigma)] with
 * psi(t) = t Phi(t) + phi(t), a the pixel's distance past the step. The
 * default's kernel misses that profile by far more than the tolerance,
 * so the check tells the two apart; sem_make with the option renders
 * through it (and the cache keys it), without it to the bit as before.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "image/image.h"
#include "analysis/preprocess.h"
#include "sem_cache.h"
#include "sem_sim.h"
#include "sem_surface.h"

#define S 4
#define W 24
#define H 24

static double psi(double t)
{
	return t * 0.5 * erfc(-t / M_SQRT2) + exp(-0.5 * t * t) / sqrt(2 * M_PI);
}

/* the step from 0 to 1 at x0 (along x, or along y when vertical), seen
 * by a Gaussian of sigma and the pixel's box, at pixel p */
static double step_profile(double p, double x0, double sigma)
{
	double a = p - x0;
	return sigma * (psi((a + 0.5) / sigma) - psi((a - 0.5) / sigma));
}

/* the render's sub-samples of the step: cell (i, j) of pixel (x, y) at
 * ((i S + j + 1/2) / S^2 - 1/2, (j S + i + 1/2) / S^2 - 1/2) */
static void step_samples(float *sub, double x0, int vertical)
{
	for (int j = 0; j < S; j++)
		for (int i = 0; i < S; i++) {
			double ox = (i * S + j + 0.5) / (S * S) - 0.5, oy = (j * S + i + 0.5) / (S * S) - 0.5;
			for (int y = 0; y < H; y++)
				for (int x = 0; x < W; x++) {
					double u = vertical ? y + oy : x + ox;
					sub[((size_t)j * S + i) * W * H + (size_t)y * W + x] = u >= x0 ? 1.0f : 0.0f;
				}
		}
}

/* The largest miss of the analytic profile, over steps placed where the
 * render places an edge (between two of the 16 sample columns of a
 * pixel), by the continuous beam and by the default's lattice kernel on
 * the same samples. */
static void misses(int vertical, double *cont, double *lattice)
{
	double sigma = sqrt(0.8 * 0.8 - 1.0 / 12);
	int n = vertical ? H : W;
	float *sub = malloc((size_t)S * S * W * H * sizeof *sub);
	fs_image *img = fs_image_new(W, H), *box = fs_image_new(W, H);
	assert_non_null(sub);
	assert_non_null(img);
	assert_non_null(box);
	*cont = *lattice = 0;
	for (int q = 0; q < S * S; q++) {
		double x0 = n / 2 + q / (double)(S * S) - 0.5;
		step_samples(sub, x0, vertical);
		assert_int_equal(sem_beam_box(sub, S, W, H, sigma, img), 0);
		/* the default: each pixel's mean, then the sampled Gaussian */
		for (size_t k = 0; k < (size_t)W * H; k++) {
			double m = 0;
			for (int c = 0; c < S * S; c++)
				m += sub[(size_t)c * W * H + k];
			box->data[k] = (float)(m / (S * S));
		}
		char err[128];
		assert_int_equal(fs_gaussian_blur(box, sigma, err, sizeof err), 0);
		/* away from the frame, where the clamp does not reach */
		for (int p = n / 2 - 3; p <= n / 2 + 3; p++) {
			size_t k = vertical ? (size_t)p * W + W / 2 : (size_t)(H / 2) * W + p;
			double want = step_profile(p, x0, sigma);
			*cont = fmax(*cont, fabs(img->data[k] - want));
			*lattice = fmax(*lattice, fabs(box->data[k] - want));
		}
	}
	free(sub);
	fs_image_free(img);
	fs_image_free(box);
}

/* 16 sub-samples a pixel (4 x 4, at 16 distinct columns and rows): the
 * continuous beam meets the erf-with-box profile to 2e-3 of the step; the
 * lattice kernel misses it by 10x that. */
static void step_edge_is_erf_convolved_with_the_box(void **state)
{
	(void)state;
	for (int v = 0; v < 2; v++) {
		double cont, lattice;
		misses(v, &cont, &lattice);
		print_message("%s step: continuous beam misses the analytic profile by %.5f, the lattice kernel by %.5f\n",
			      v ? "along y" : "along x", cont, lattice);
		assert_true(cont < 2e-3);
		assert_true(lattice > 2e-2);
	}
}

/* A raw, noise-free scene: the option changes the image where the signal
 * varies (at the bases) and nothing where it is flat, keeps the mean, and
 * keys its own cache file. */
static void sem_make_renders_the_continuous_beam(void **state)
{
	(void)state;
	sem_opts o;
	sem_defaults(&o);
	o.radius_jitter = o.pos_jitter = o.missing = 0;
	o.undulation = o.roughness = o.dose = o.drift = 0;
	o.bits = 0;
	o.raw = 1;
	o.pitch = 16;
	o.fill = 0.25;
	sem_truth t0, t1;
	fs_image *a = sem_make(&o, &t0);
	o.beam_continuous = 1;
	fs_image *b = sem_make(&o, &t1);
	assert_non_null(a);
	assert_non_null(b);
	double maxd = 0, sa = 0, sb = 0;
	for (size_t k = 0; k < (size_t)a->width * a->height; k++) {
		maxd = fmax(maxd, fabs(a->data[k] - b->data[k]));
		sa += a->data[k];
		sb += b->data[k];
	}
	print_message("largest change %.4f, means %.5f -> %.5f\n", maxd, sa / (a->width * a->height),
		      sb / (a->width * a->height));
	assert_true(maxd > 1e-2);
	assert_true(fabs(sa - sb) < 1e-3 * fabs(sa));
	/* the ground halfway between two neighbours (flat: no change) */
	int x = (int)lround((t0.x[0] + t0.x[1]) / 2), y = (int)lround((t0.y[0] + t0.y[1]) / 2);
	if (hypot(t0.x[1] - t0.x[0], t0.y[1] - t0.y[0]) < 1.5 * o.pitch && x > 4 && y > 4 && x < a->width - 4 &&
	    y < a->height - 4)
		assert_true(fabs(a->data[(size_t)y * a->width + x] - b->data[(size_t)y * a->width + x]) < 1e-4);
	char p0[512], p1[512];
	o.beam_continuous = 0;
	assert_int_equal(sem_cache_path("/tmp", &o, p0, sizeof p0), 0);
	o.beam_continuous = 1;
	assert_int_equal(sem_cache_path("/tmp", &o, p1, sizeof p1), 0);
	assert_string_not_equal(p0, p1);
	sem_truth_free(&t0);
	sem_truth_free(&t1);
	fs_image_free(a);
	fs_image_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(step_edge_is_erf_convolved_with_the_box),
		cmocka_unit_test(sem_make_renders_the_continuous_beam),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
