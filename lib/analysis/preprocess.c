/*
 * preprocess.c - CLAHE, separable Gaussian and box blurs, white top-hat and
 * normalisation (see preprocess.h).
 *
 * Speed matters more than bit-compatibility with skimage: the blurs are two
 * 1-D passes, the vertical pass runs row by row so the inner loop is over
 * contiguous memory, and the top-hat's erosion and dilation by a disk are
 * disk_filter.c's (chords widened in place, O(radius) passes of O(1) per
 * pixel).
 */
#include "analysis/preprocess.h"
#include "analysis/clahe_region.h"
#include "analysis/disk_filter.h"
#include "analysis/lanes.h"
#include "base/cpu_features.h"
#include "base/tile_pool.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

#if defined(__x86_64__) && defined(__GNUC__)
/*
 * With AVX (eight floats a register, where the CPU and the OS have it:
 * the build targets plain x86-64) the blurs' outputs go 32 at a time
 * through conv_rows8 / conv_shift8: per output the same operations in the
 * same order as conv_rows / conv_shift below (no fused multiply-add: the
 * target is "avx" alone and ISO C keeps floating-point contraction off),
 * so the same bits in half the instructions.
 */
#define BLUR_AVX 1
typedef float v8f __attribute__((vector_size(32)));

__attribute__((target("avx"))) static inline v8f load8(const float *p)
{
	v8f v;
	memcpy(&v, p, sizeof v);
	return v;
}

/* conv_rows' outputs [0, i) for the largest i <= n that is a multiple of
 * 32; returns i. */
__attribute__((target("avx"))) static int conv_rows8(float *restrict o, int n, const float *k, int R,
						     const float *const *r)
{
	int i = 0;
	for (; i + 32 <= n; i += 32) {
		v8f a0 = load8(r[0] + i) * k[0], a1 = load8(r[0] + i + 8) * k[0];
		v8f a2 = load8(r[0] + i + 16) * k[0], a3 = load8(r[0] + i + 24) * k[0];
		for (int j = 1; j <= R; j++) {
			const float *u = r[-j] + i, *d = r[j] + i;
			a0 += (load8(u) + load8(d)) * k[j];
			a1 += (load8(u + 8) + load8(d + 8)) * k[j];
			a2 += (load8(u + 16) + load8(d + 16)) * k[j];
			a3 += (load8(u + 24) + load8(d + 24)) * k[j];
		}
		memcpy(o + i, &a0, sizeof a0);
		memcpy(o + i + 8, &a1, sizeof a1);
		memcpy(o + i + 16, &a2, sizeof a2);
		memcpy(o + i + 24, &a3, sizeof a3);
	}
	return i;
}

/* conv_shift's outputs [0, i) as conv_rows8's. */
__attribute__((target("avx"))) static int conv_shift8(float *restrict o, int n, const float *k, int R,
						      const float *c)
{
	int i = 0;
	for (; i + 32 <= n; i += 32) {
		const float *q = c + i;
		v8f a0 = load8(q) * k[0], a1 = load8(q + 8) * k[0];
		v8f a2 = load8(q + 16) * k[0], a3 = load8(q + 24) * k[0];
		for (int j = 1; j <= R; j++) {
			a0 += (load8(q - j) + load8(q + j)) * k[j];
			a1 += (load8(q + 8 - j) + load8(q + 8 + j)) * k[j];
			a2 += (load8(q + 16 - j) + load8(q + 16 + j)) * k[j];
			a3 += (load8(q + 24 - j) + load8(q + 24 + j)) * k[j];
		}
		memcpy(o + i, &a0, sizeof a0);
		memcpy(o + i + 8, &a1, sizeof a1);
		memcpy(o + i + 16, &a2, sizeof a2);
		memcpy(o + i + 24, &a3, sizeof a3);
	}
	return i;
}
#endif

/*
 * Vertical pass: o[i] = k[0] r[0][i] + sum_{j=1..R} k[j] (r[-j][i] + r[j][i])
 * for i < n, r pointing at the middle of 2R + 1 row pointers. Four outputs
 * are summed in a register over all taps (one store per output).
 */
static inline __attribute__((always_inline)) void conv_rows(float *restrict o, int n, const float *k, int R,
							    const float *const *r)
{
	int i = 0;
#ifdef BLUR_AVX
	if (fs_cpu_has_avx())
		i = conv_rows8(o, n, k, R, r);
#endif
	/* 16 outputs at a time: four independent sums hide the latency of the
	 * additions, which bound the 4-wide loop (same order of additions per
	 * output, so the same results). */
	for (; i + 16 <= n; i += 16) {
		v4f a0 = fs_load4f(r[0] + i) * k[0], a1 = fs_load4f(r[0] + i + 4) * k[0];
		v4f a2 = fs_load4f(r[0] + i + 8) * k[0], a3 = fs_load4f(r[0] + i + 12) * k[0];
		for (int j = 1; j <= R; j++) {
			const float *u = r[-j] + i, *d = r[j] + i;
			a0 += (fs_load4f(u) + fs_load4f(d)) * k[j];
			a1 += (fs_load4f(u + 4) + fs_load4f(d + 4)) * k[j];
			a2 += (fs_load4f(u + 8) + fs_load4f(d + 8)) * k[j];
			a3 += (fs_load4f(u + 12) + fs_load4f(d + 12)) * k[j];
		}
		memcpy(o + i, &a0, sizeof a0);
		memcpy(o + i + 4, &a1, sizeof a1);
		memcpy(o + i + 8, &a2, sizeof a2);
		memcpy(o + i + 12, &a3, sizeof a3);
	}
	for (; i + 4 <= n; i += 4) {
		v4f acc = fs_load4f(r[0] + i) * k[0];
		for (int j = 1; j <= R; j++)
			acc += (fs_load4f(r[-j] + i) + fs_load4f(r[j] + i)) * k[j];
		memcpy(o + i, &acc, sizeof acc);
	}
	for (; i < n; i++) {
		float acc = k[0] * r[0][i];
		for (int j = 1; j <= R; j++)
			acc += k[j] * (r[-j][i] + r[j][i]);
		o[i] = acc;
	}
}

/* Horizontal pass on a padded row: o[i] = sum_j k[|j|] c[i + j]. */
static void conv_shift(float *restrict o, int n, const float *k, int R, const float *c)
{
	int i = 0;
#ifdef BLUR_AVX
	if (fs_cpu_has_avx())
		i = conv_shift8(o, n, k, R, c);
#endif
	for (; i + 16 <= n; i += 16) { /* as in conv_rows */
		const float *q = c + i;
		v4f a0 = fs_load4f(q) * k[0], a1 = fs_load4f(q + 4) * k[0];
		v4f a2 = fs_load4f(q + 8) * k[0], a3 = fs_load4f(q + 12) * k[0];
		for (int j = 1; j <= R; j++) {
			a0 += (fs_load4f(q - j) + fs_load4f(q + j)) * k[j];
			a1 += (fs_load4f(q + 4 - j) + fs_load4f(q + 4 + j)) * k[j];
			a2 += (fs_load4f(q + 8 - j) + fs_load4f(q + 8 + j)) * k[j];
			a3 += (fs_load4f(q + 12 - j) + fs_load4f(q + 12 + j)) * k[j];
		}
		memcpy(o + i, &a0, sizeof a0);
		memcpy(o + i + 4, &a1, sizeof a1);
		memcpy(o + i + 8, &a2, sizeof a2);
		memcpy(o + i + 12, &a3, sizeof a3);
	}
	for (; i + 4 <= n; i += 4) {
		v4f acc = fs_load4f(c + i) * k[0];
		for (int j = 1; j <= R; j++)
			acc += (fs_load4f(c + i - j) + fs_load4f(c + i + j)) * k[j];
		memcpy(o + i, &acc, sizeof acc);
	}
	for (; i < n; i++) {
		float acc = k[0] * c[i];
		for (int j = 1; j <= R; j++)
			acc += k[j] * (c[i - j] + c[i + j]);
		o[i] = acc;
	}
}

/* Horizontal pass of a symmetric kernel k[0..R] over one row of w
 * samples, replicate border. pad: w + 2R floats of scratch; in may be
 * pad + R itself (a compact row converted there: fs_image_span). A row
 * read in place gives its middle outputs straight from it and only the
 * R at each end through the pad (copying every row into the pad was a
 * tenth of the blur): each output the same sum in the same order. */
static inline __attribute__((always_inline)) void conv_row(const float *in, float *out, int w, const float *k, int R,
							   float *pad)
{
	float *c = pad + R;
	if (in != c && w > 2 * R) {
		conv_shift(out + R, w - 2 * R, k, R, in + R);
		for (int i = 0; i < R; i++)
			pad[i] = in[0];
		memcpy(c, in, (size_t)2 * R * sizeof *in);
		conv_shift(out, R, k, R, c);
		memcpy(pad, in + w - 2 * R, (size_t)2 * R * sizeof *in);
		for (int i = 0; i < R; i++)
			pad[2 * R + i] = in[w - 1];
		conv_shift(out + w - R, R, k, R, c);
		return;
	}
	if (in != c)
		memcpy(c, in, (size_t)w * sizeof *in);
	for (int i = 0; i < R; i++) {
		pad[i] = c[clampi(i - R, 0, w - 1)];
		pad[R + w + i] = c[clampi(w + i, 0, w - 1)];
	}
	conv_shift(out, w, k, R, c);
}

int fs_gaussian_radius(double sigma)
{
	int R = (int)(4.0 * sigma + 0.5);
	return R < 1 ? 1 : R;
}

/* The normalised kernel k[0..R] of sigma (R = fs_gaussian_radius),
 * allocated (the caller frees it), or NULL with a message. */
static float *gauss_kernel_new(double sigma, int R, char *err, size_t errlen)
{
	float *k = malloc((size_t)(R + 1) * sizeof *k);
	if (!k) {
		snprintf(err, errlen, "gaussian blur: out of memory");
		return NULL;
	}
	double sum = 0;
	for (int j = 0; j <= R; j++) {
		k[j] = (float)exp(-0.5 * j * j / (sigma * sigma));
		sum += j ? 2.0 * k[j] : k[j];
	}
	for (int j = 0; j <= R; j++)
		k[j] = (float)(k[j] / sum);
	return k;
}

/* Where blur_band reads the source rows outside its band [a, b) from: a
 * band of an image blurred in place in threads finds the rows above and
 * below it overwritten by its neighbours, so they were saved before
 * (above: rows a - R .. a - 1, below: b .. b + R - 1, as far as they are
 * in the image). NULL: the source itself (a whole image, or src != dst). */
struct band_rows {
	const float *above, *below;
};

/* Output rows [a, b) of the region (x0, y0, dst's width and height) of
 * src blurred into dst (dst may be src itself when the region is all of
 * it) with the kernel k[0..R], the region's edges replicated: each row the
 * same sums in the same order whichever band makes it. Only the columns
 * [c0, c1) of those rows are written (0, w: all); an output's sums do not
 * depend on which of its neighbours are made with it. */
static inline __attribute__((always_inline)) int blur_band_cols(const fs_image *src, int x0, int y0, fs_image *dst,
								    const float *k, int R, int a, int b, int c0,
								    int c1, const struct band_rows *br, char *err,
								    size_t errlen)
{
	int rc = -1;
	float *ring = NULL, *pad = NULL;
	const float **rows = NULL;
	int w = dst->width, h = dst->height;
	/* The vertical pass needs only the 2R + 1 horizontally blurred rows
	 * around the output row, kept in a ring: a full-size temporary would
	 * cost a page fault per 4 KiB on every call for large images. Output
	 * row y overwrites img row y only after rows <= y + R were read. */
	int nring = 2 * R + 1 < h ? 2 * R + 1 : h;
	ring = malloc((size_t)w * nring * sizeof *ring);
	pad = malloc((size_t)(w + 2 * R) * sizeof *pad);
	rows = malloc((size_t)(2 * R + 1) * sizeof *rows);
	if (!ring || !pad || !rows) {
		snprintf(err, errlen, "gaussian blur: out of memory");
		goto out;
	}
	int done = a - R > 0 ? a - R : 0; /* rows ..done-1 are in the ring */
	for (int y = a; y < b; y++) {
		int need = y + R < h - 1 ? y + R : h - 1;
		for (; done <= need; done++) {
			/* a compact source is converted a row at a time straight
			 * into the pad (fs_image_span): the same values as its
			 * float copy, without that copy */
			const float *in = br && done < a ? br->above + (size_t)(done - (a - R)) * w
					  : br && done >= b ? br->below + (size_t)(done - b) * w
							    : fs_image_span(src, x0, y0 + done, w, pad + R);
			float *o = ring + (size_t)(done % nring) * w;
			/* columns at least R (>= 1) from both ends read no
			 * border: the middle of conv_row's row alone (c0 > 0
			 * first: false at once for the whole-width callers) */
			if (c0 > 0 && c0 >= R && c1 + R <= w)
				conv_shift(o + c0, c1 - c0, k, R, in + c0);
			else
				conv_row(in, o, w, k, R, pad);
		}
		/* out[y] = sum_j k[j] (row[y-j] + row[y+j]), rows clamped to the image. */
		for (int j = -R; j <= R; j++)
			rows[R + j] = ring + (size_t)(clampi(y + j, 0, h - 1) % nring) * w + c0;
		conv_rows(dst->data + (size_t)y * w + c0, c1 - c0, k, R, rows + R);
	}
	rc = 0;
out:
	free(ring);
	free(pad);
	free(rows);
	return rc;
}

/* blur_band_cols on every column: the column range a constant, so the
 * whole-width blurs (the outline rule's among them) keep their code */
static int blur_band(const fs_image *src, int x0, int y0, fs_image *dst, const float *k, int R, int a, int b,
		     const struct band_rows *br, char *err, size_t errlen)
{
	return blur_band_cols(src, x0, y0, dst, k, R, a, b, 0, dst->width, br, err, errlen);
}

/* Blurs the region (x0, y0, dst's size) of src into dst (which may be src
 * itself when the region is all of it). */
static int blur(const fs_image *src, int x0, int y0, fs_image *dst, double sigma, char *err, size_t errlen)
{
	int R = fs_gaussian_radius(sigma);
	float *k = gauss_kernel_new(sigma, R, err, errlen);
	if (!k)
		return -1;
	int rc = blur_band(src, x0, y0, dst, k, R, 0, dst->height, NULL, err, errlen);
	free(k);
	return rc;
}

/* fs_gaussian_blur_threads' bands: band i is rows [i band, (i + 1) band),
 * save[i] the rows i band - R .. i band + R - 1 (those in the image) as
 * they were before any band was blurred. */
struct blur_job {
	fs_image *img;
	const float *k;
	int R, band;
	float **save;
};

static int blur_job_band(size_t i, void *arg, char *err, size_t errlen)
{
	const struct blur_job *j = arg;
	int h = j->img->height, w = j->img->width;
	int a = (int)i * j->band, b = a + j->band < h ? a + j->band : h;
	size_t nb = (size_t)((h + j->band - 1) / j->band);
	struct band_rows br = {i ? j->save[i] : NULL, i + 1 < nb ? j->save[i + 1] + (size_t)j->R * w : NULL};
	return blur_band(j->img, 0, 0, j->img, j->k, j->R, a, b, &br, err, errlen);
}

int fs_gaussian_blur_threads(fs_image *img, double sigma, int threads, char *err, size_t errlen)
{
	if (!img || !isfinite(sigma) || sigma < 0 || img->bits) {
		snprintf(err, errlen, "gaussian blur: bad image or sigma");
		return -1;
	}
	if (sigma == 0)
		return 0;
	int w = img->width, h = img->height, R = fs_gaussian_radius(sigma);
	/* bands of about 256k pixels, at least 2R rows (each saves 2R rows) */
	int band = (int)((1L << 18) / (w > 0 ? w : 1));
	band = band < 2 * R ? 2 * R : band;
	size_t nb = (size_t)((h + band - 1) / band);
	if (threads <= 1 || nb < 2)
		return blur(img, 0, 0, img, sigma, err, errlen);
	int rc = -1;
	float *k = gauss_kernel_new(sigma, R, err, errlen);
	float **save = calloc(nb, sizeof *save);
	if (!k || !save) {
		snprintf(err, errlen, "gaussian blur: out of memory");
		goto out;
	}
	/* rows a - R .. a + R - 1 around every band's start a > 0 (rows
	 * outside the image are never read: blur_band clamps to it) */
	for (size_t i = 1; i < nb; i++) {
		int a = (int)i * band;
		if (!(save[i] = malloc((size_t)2 * R * w * sizeof **save))) {
			snprintf(err, errlen, "gaussian blur: out of memory");
			goto out;
		}
		for (int y = a - R; y < a + R; y++)
			if (y >= 0 && y < h)
				memcpy(save[i] + (size_t)(y - (a - R)) * w, img->data + (size_t)y * w,
				       (size_t)w * sizeof *img->data);
	}
	struct blur_job j = {img, k, R, band, save};
	rc = fs_tile_pool_run(nb, threads, blur_job_band, NULL, &j, err, errlen);
out:
	for (size_t i = 0; save && i < nb; i++)
		free(save[i]);
	free(save);
	free(k);
	return rc;
}

int fs_gaussian_blur(fs_image *img, double sigma, char *err, size_t errlen)
{
	if (!img || !isfinite(sigma) || sigma < 0) {
		snprintf(err, errlen, "gaussian blur: bad image or sigma");
		return -1;
	}
	if (sigma == 0)
		return 0;
	return blur(img, 0, 0, img, sigma, err, errlen);
}

int fs_gaussian_blur_rect(fs_image *img, double sigma, int x0, int y0, int x1, int y1, char *err, size_t errlen)
{
	if (!img || !isfinite(sigma) || sigma < 0 || x0 < 0 || y0 < 0 || x1 > img->width || y1 > img->height ||
	    x1 <= x0 || y1 <= y0) {
		snprintf(err, errlen, "gaussian blur: bad image, rectangle or sigma");
		return -1;
	}
	if (sigma == 0)
		return 0;
	int R = fs_gaussian_radius(sigma);
	float *k = gauss_kernel_new(sigma, R, err, errlen);
	if (!k)
		return -1;
	int rc = blur_band_cols(img, 0, 0, img, k, R, y0, y1, x0, x1, NULL, err, errlen);
	free(k);
	return rc;
}

fs_image *fs_gaussian_blurred_region(const fs_image *src, int x0, int y0, int w, int h, double sigma, char *err,
				     size_t errlen)
{
	if (!src || !isfinite(sigma) || sigma < 0 || x0 < 0 || y0 < 0 || w < 1 || h < 1 || x0 > src->width - w ||
	    y0 > src->height - h) {
		snprintf(err, errlen, "gaussian blur: bad image, region or sigma");
		return NULL;
	}
	fs_image *out = sigma == 0 ? fs_image_region_float(src, x0, y0, w, h) : fs_image_new_uninit(w, h);
	if (!out) {
		snprintf(err, errlen, "gaussian blur: out of memory");
		return NULL;
	}
	if (sigma > 0 && blur(src, x0, y0, out, sigma, err, errlen)) {
		fs_image_free(out);
		return NULL;
	}
	return out;
}

fs_image *fs_gaussian_blurred(const fs_image *src, double sigma, char *err, size_t errlen)
{
	if (!src) {
		snprintf(err, errlen, "gaussian blur: bad image or sigma");
		return NULL;
	}
	return fs_gaussian_blurred_region(src, 0, 0, src->width, src->height, sigma, err, errlen);
}

int fs_box_blur(fs_image *img, int r, char *err, size_t errlen)
{
	if (!img || r < 0) {
		snprintf(err, errlen, "box blur: bad image or radius");
		return -1;
	}
	if (r == 0)
		return 0;
	int w = img->width, h = img->height;
	double *acc = malloc((size_t)w * sizeof *acc);
	float *tmp = malloc((size_t)w * h * sizeof *tmp);
	if (!acc || !tmp) {
		free(acc);
		free(tmp);
		snprintf(err, errlen, "box blur: out of memory");
		return -1;
	}
	float inv = 1.0f / (float)(2 * r + 1);
	for (int y = 0; y < h; y++) {
		const float *in = img->data + (size_t)y * w;
		float *o = tmp + (size_t)y * w;
		double s = 0;
		for (int i = -r; i <= r; i++)
			s += in[clampi(i, 0, w - 1)];
		/* the window's ends clamped only where they leave the row: x in
		 * [a, b) reads in[x - r] and in[x + r + 1] inside it (the clamps
		 * were over a quarter of the whole blur); the same sums in order */
		int a = r < w ? r : w, b = w - r - 1 > a ? w - r - 1 : a;
		int x = 0;
		for (; x < a; x++) {
			o[x] = (float)s * inv;
			s += in[clampi(x + r + 1, 0, w - 1)] - in[clampi(x - r, 0, w - 1)];
		}
		for (; x < b; x++) {
			o[x] = (float)s * inv;
			s += in[x + r + 1] - in[x - r];
		}
		for (; x < w; x++) {
			o[x] = (float)s * inv;
			s += in[clampi(x + r + 1, 0, w - 1)] - in[clampi(x - r, 0, w - 1)];
		}
	}
	for (int x = 0; x < w; x++)
		acc[x] = 0;
	for (int i = -r; i <= r; i++) {
		const float *row = tmp + (size_t)clampi(i, 0, h - 1) * w;
		for (int x = 0; x < w; x++)
			acc[x] += row[x];
	}
	for (int y = 0; y < h; y++) {
		float *o = img->data + (size_t)y * w;
		const float *add = tmp + (size_t)clampi(y + r + 1, 0, h - 1) * w;
		const float *sub = tmp + (size_t)clampi(y - r, 0, h - 1) * w;
		for (int x = 0; x < w; x++) {
			o[x] = (float)acc[x] * inv;
			acc[x] += add[x] - sub[x];
		}
	}
	free(acc);
	free(tmp);
	return 0;
}

/* The output rows of one band of fs_downsample_threads. */
struct down_job {
	const fs_image *img;
	fs_image *out;
	int f, band; /* output rows per band */
};

/* Output rows [band k) of the block means: each row is the same sums in
 * the same order whichever band or thread makes it. */
static int down_band(size_t k, void *arg, char *err, size_t errlen)
{
	const struct down_job *j = arg;
	const fs_image *img = j->img;
	int f = j->f, W = img->width, w = j->out->width, h = j->out->height;
	int ya = (int)k * j->band, yb = ya + j->band < h ? ya + j->band : h;
	float *acc = malloc((size_t)W * sizeof *acc);
	/* a compact image's rows are converted one at a time (fs_image_span) */
	float *row = img->bits ? malloc((size_t)W * sizeof *row) : NULL;
	if (!acc || (img->bits && !row)) {
		free(acc);
		free(row);
		snprintf(err, errlen, "downsample: out of memory");
		return -1;
	}
	/* Sum the block's rows first (contiguous), then the columns of each block. */
	for (int y = ya; y < yb; y++) {
		int y0 = y * f, y1 = y0 + f < img->height ? y0 + f : img->height;
		/* a compact row is converted straight into acc */
		const float *first = fs_image_span(img, 0, y0, W, acc);
		if (first != acc)
			memcpy(acc, first, (size_t)W * sizeof *acc);
		for (int yy = y0 + 1; yy < y1; yy++) {
			const float *r = fs_image_span(img, 0, yy, W, row);
			int x = 0;
			for (; x + 4 <= W; x += 4) {
				v4f a = fs_load4f(acc + x) + fs_load4f(r + x);
				memcpy(acc + x, &a, sizeof a);
			}
			for (; x < W; x++)
				acc[x] += r[x];
		}
		/* The whole blocks (x0 + f <= W) first, their count of pixels
		 * one product a row, the row's output by a pointer made once
		 * (a float stored through j->out may, to the compiler, move
		 * j->out's own fields: it read them again at every output);
		 * then the last, cut block. The same sums and quotients (h50a). */
		float *od = j->out->data + (size_t)y * w;
		int nfull = W / f < w ? W / f : w, x = 0;
		float dn = (float)((y1 - y0) * f);
		for (; x < nfull; x++) {
			const float *a = acc + (size_t)x * f;
			float s = 0;
			for (int i = 0; i < f; i++)
				s += a[i];
			od[x] = s / dn;
		}
		for (; x < w; x++) {
			int x0 = x * f, x1 = x0 + f < W ? x0 + f : W;
			float s = 0;
			for (int xx = x0; xx < x1; xx++)
				s += acc[xx];
			od[x] = s / (float)((y1 - y0) * (x1 - x0));
		}
	}
	free(acc);
	free(row);
	return 0;
}

fs_image *fs_downsample(const fs_image *img, int f)
{
	return fs_downsample_threads(img, f, 1);
}

fs_image *fs_downsample_threads(const fs_image *img, int f, int threads)
{
	if (!img || f < 1)
		return NULL;
	if (f == 1)
		return fs_image_to_float(img);
	int W = img->width, w = (W + f - 1) / f, h = (img->height + f - 1) / f;
	fs_image *out = fs_image_new_uninit(w, h); /* every block is written */
	if (!out)
		return NULL;
	/* bands of about a million source pixels: enough of them to share
	 * between threads, each a few buffers of one row */
	long rows = (1L << 20) / ((long)W * f);
	struct down_job j = {img, out, f, (int)(rows < 1 ? 1 : rows > h ? h : rows)};
	char err[128];
	if (fs_tile_pool_run((size_t)((h + j.band - 1) / j.band), threads, down_band, NULL, &j, err, sizeof err)) {
		fs_image_free(out);
		return NULL;
	}
	return out;
}

void fs_minmax(const fs_image *img, float *lo_out, float *hi_out)
{
	size_t n = (size_t)img->width * img->height;
	const float *d = img->data;
	/* Four independent running extremes (lane j takes samples 4 i + j):
	 * no loop-carried dependency chain. lo = d < lo ? d : lo is SSE's
	 * minps(d, lo) and hi = d > hi ? d : hi its maxps(d, hi), lane by lane
	 * (the same answer for NAN and signed zeros as that scalar expression). */
	v4f lo4 = {d[0], d[0], d[0], d[0]}, hi4 = lo4;
	size_t i = 0;
#if defined(__SSE2__)
	/* the plain loop below is its twin, run where a test forbids SSE2
	 * (test_avx_same_bits) */
	if (fs_cpu_has_sse2())
		for (; i + 4 <= n; i += 4) {
			v4f v = fs_load4f(d + i);
			lo4 = (v4f)_mm_min_ps((__m128)v, (__m128)lo4);
			hi4 = (v4f)_mm_max_ps((__m128)v, (__m128)hi4);
		}
#endif
	for (; i + 4 <= n; i += 4) {
		v4f v = fs_load4f(d + i);
		for (int j = 0; j < 4; j++) {
			lo4[j] = v[j] < lo4[j] ? v[j] : lo4[j];
			hi4[j] = v[j] > hi4[j] ? v[j] : hi4[j];
		}
	}
	for (; i < n; i++) {
		lo4[0] = d[i] < lo4[0] ? d[i] : lo4[0];
		hi4[0] = d[i] > hi4[0] ? d[i] : hi4[0];
	}
	float lo = lo4[0], hi = hi4[0];
	for (int j = 1; j < 4; j++) {
		lo = lo4[j] < lo ? lo4[j] : lo;
		hi = hi4[j] > hi ? hi4[j] : hi;
	}
	*lo_out = lo;
	*hi_out = hi;
}

/* (d - lo) * s over n samples, four at a time: per sample the scalar
 * expression's two float operations. */
static void stretch(float *d, size_t n, float lo, float s)
{
	size_t i = 0;
	for (; i + 4 <= n; i += 4) {
		v4f v = (fs_load4f(d + i) - lo) * s;
		memcpy(d + i, &v, sizeof v);
	}
	for (; i < n; i++)
		d[i] = (d[i] - lo) * s;
}

void fs_normalize_range(fs_image *img, float lo, float hi)
{
	size_t n = (size_t)img->width * img->height;
	if (hi - lo < 1e-10f) {
		memset(img->data, 0, n * sizeof *img->data);
		return;
	}
	stretch(img->data, n, lo, 1.0f / (hi - lo));
}

void fs_normalize(fs_image *img)
{
	float lo, hi;
	fs_minmax(img, &lo, &hi);
	fs_normalize_range(img, lo, hi);
}

/* fs_normalize_threads' chunks of samples */
struct stretch_job {
	float *d;
	size_t n, chunk;
	float lo, s;
};

static int stretch_chunk(size_t k, void *arg, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	const struct stretch_job *j = arg;
	size_t a = k * j->chunk, b = a + j->chunk < j->n ? a + j->chunk : j->n;
	stretch(j->d + a, b - a, j->lo, j->s);
	return 0;
}

void fs_normalize_threads(fs_image *img, int threads)
{
	float lo, hi;
	size_t n = (size_t)img->width * img->height;
	fs_minmax(img, &lo, &hi);
	if (threads <= 1 || hi - lo < 1e-10f) {
		fs_normalize_range(img, lo, hi);
		return;
	}
	/* chunks of 256k samples, a multiple of 4 */
	struct stretch_job j = {img->data, n, (size_t)1 << 18, lo, 1.0f / (hi - lo)};
	char err[32];
	(void)fs_tile_pool_run((n + j.chunk - 1) / j.chunk, threads, stretch_chunk, NULL, &j, err, sizeof err);
}

/*
 * The clipped, redistributed cumulative LUTs of CLAHE tile row ty (ntx
 * tiles, FS_CLAHE_BINS floats each) from img's rows ty * tile .. (ty + 1) *
 * tile - 1, which must still hold the normalised input.
 */
/* The column terms of every row (clahe_region.h): each column's weight
 * and the LUT offsets of its left and right tiles, the same on every row. */
static void clahe_columns(int w, int tile, int ntx, float *colw, int *coll, int *colr)
{
	for (int x = 0; x < w; x++) {
		int a, b;
		fs_clahe_axis(x, tile, ntx, &colw[x], &a, &b);
		coll[x] = a * FS_CLAHE_BINS;
		colr[x] = b * FS_CLAHE_BINS;
	}
}

static void clahe_lut_row(const fs_image *img, double clip, int tile, int ty, int ntx, float *quot, int *qcount,
			  float *lut)
{
	int w = img->width, h = img->height;
	int y0 = ty * tile, y1 = y0 + tile < h ? y0 + tile : h;
	for (int tx = 0; tx < ntx; tx++) {
		int hist[FS_CLAHE_BINS] = {0};
		int x0 = tx * tile, x1 = x0 + tile < w ? x0 + tile : w;
		int count = (y1 - y0) * (x1 - x0);
		for (int y = y0; y < y1; y++) {
			const float *r = img->data + (size_t)y * w;
			for (int x = x0; x < x1; x++)
				hist[fs_clahe_bin(r[x])]++;
		}
		fs_clahe_tile_lut(hist, count, clip, quot, qcount, lut + (size_t)tx * FS_CLAHE_BINS);
	}
}

/*
 * In place and row by row, so a large image needs no full-size temporary
 * (issue 15): output row y interpolates between the LUTs of CLAHE tile rows
 * ty0 and ty0 + 1 (ty0 = floor((y + 0.5) / tile - 0.5)); a tile row's LUTs
 * are made when first needed, at a row y < its first row, so its input
 * rows are not yet overwritten; two tile rows are kept (a ring of two).
 * The CLAHE grid is that of the whole image whatever the caller's tiling.
 */
int fs_clahe(fs_image *img, double clip, int tile, char *err, size_t errlen)
{
	int rc = -1;
	float *lut = NULL, *colw = NULL, *quot = NULL;
	int *coll = NULL, *colr = NULL, qcount = -1;
	unsigned char *bin = NULL;
	if (!img || !isfinite(clip) || clip < 0 || clip > 1 || tile < 2) {
		snprintf(err, errlen, "clahe: clip must be in [0, 1] and tile >= 2");
		return -1;
	}
	if (clip == 0)
		return 0;
	int w = img->width, h = img->height;
	int ntx = (w + tile - 1) / tile, nty = (h + tile - 1) / tile;
	size_t row_luts = (size_t)ntx * FS_CLAHE_BINS;
	lut = malloc(2 * row_luts * sizeof *lut);
	bin = malloc((size_t)w);
	colw = malloc((size_t)w * sizeof *colw);
	coll = malloc((size_t)w * sizeof *coll);
	colr = malloc((size_t)w * sizeof *colr);
	quot = malloc(((size_t)tile * tile + 1) * sizeof *quot); /* a tile holds at most tile^2 px */
	if (!lut || !bin || !colw || !coll || !colr || !quot) {
		snprintf(err, errlen, "clahe: out of memory");
		goto out;
	}
	fs_normalize(img);
	clahe_columns(w, tile, ntx, colw, coll, colr);
	int made = -1; /* tile rows 0..made have their LUTs (the last two kept) */
	for (int y = 0; y < h; y++) {
		int ta, tb;
		float ay;
		fs_clahe_axis(y, tile, nty, &ay, &ta, &tb);
		for (; made < tb; made++)
			clahe_lut_row(img, clip, tile, made + 1, ntx, quot, &qcount,
				      lut + (size_t)((made + 1) % 2) * row_luts);
		const float *la = lut + (size_t)(ta % 2) * row_luts;
		const float *lb = lut + (size_t)(tb % 2) * row_luts;
		float *o = img->data + (size_t)y * w;
		for (int x = 0; x < w; x++)
			bin[x] = (unsigned char)fs_clahe_bin(o[x]);
		fs_clahe_row(bin, w, colw, coll, colr, la, lb, ay, o);
	}
	fs_normalize(img);
	rc = 0;
out:
	free(quot);
	free(lut);
	free(bin);
	free(colw);
	free(coll);
	free(colr);
	return rc;
}

/* fs_clahe_threads' work: every tile row's LUTs first (ty = k of the
 * first pass), then bands of rows mapped through them (the second). */
struct clahe_job {
	fs_image *img;
	double clip;
	int tile, ntx, nty, band;
	float *lut; /* nty x ntx x FS_CLAHE_BINS */
	const float *colw;
	const int *coll, *colr;
};

static int clahe_luts(size_t k, void *arg, char *err, size_t errlen)
{
	const struct clahe_job *j = arg;
	float *quot = malloc(((size_t)j->tile * j->tile + 1) * sizeof *quot);
	int qcount = -1;
	if (!quot) {
		snprintf(err, errlen, "clahe: out of memory");
		return -1;
	}
	clahe_lut_row(j->img, j->clip, j->tile, (int)k, j->ntx, quot, &qcount,
		      j->lut + k * (size_t)j->ntx * FS_CLAHE_BINS);
	free(quot);
	return 0;
}

static int clahe_rows(size_t k, void *arg, char *err, size_t errlen)
{
	const struct clahe_job *j = arg;
	int w = j->img->width, h = j->img->height;
	int y0 = (int)k * j->band, y1 = y0 + j->band < h ? y0 + j->band : h;
	unsigned char *bin = malloc((size_t)w);
	if (!bin) {
		snprintf(err, errlen, "clahe: out of memory");
		return -1;
	}
	size_t row_luts = (size_t)j->ntx * FS_CLAHE_BINS;
	for (int y = y0; y < y1; y++) {
		int ta, tb;
		float ay;
		fs_clahe_axis(y, j->tile, j->nty, &ay, &ta, &tb);
		float *o = j->img->data + (size_t)y * w;
		for (int x = 0; x < w; x++)
			bin[x] = (unsigned char)fs_clahe_bin(o[x]);
		fs_clahe_row(bin, w, j->colw, j->coll, j->colr, j->lut + (size_t)ta * row_luts,
			     j->lut + (size_t)tb * row_luts, ay, o);
	}
	free(bin);
	return 0;
}

/* The most memory fs_clahe_threads spends on every tile's LUTs at once. */
#define CLAHE_ALL_LUTS_MAX ((size_t)64 << 20)

int fs_clahe_threads(fs_image *img, double clip, int tile, int threads, char *err, size_t errlen)
{
	if (threads <= 1 || !img || !isfinite(clip) || clip <= 0 || clip > 1 || tile < 2)
		return fs_clahe(img, clip, tile, err, errlen);
	int w = img->width, h = img->height;
	int ntx = (w + tile - 1) / tile, nty = (h + tile - 1) / tile;
	size_t bytes = (size_t)ntx * nty * FS_CLAHE_BINS * sizeof(float);
	if (bytes > CLAHE_ALL_LUTS_MAX)
		return fs_clahe(img, clip, tile, err, errlen);
	int rc = -1;
	float *lut = malloc(bytes), *colw = malloc((size_t)w * sizeof *colw);
	int *coll = malloc((size_t)w * sizeof *coll), *colr = malloc((size_t)w * sizeof *colr);
	if (!lut || !colw || !coll || !colr) {
		snprintf(err, errlen, "clahe: out of memory");
		goto out;
	}
	fs_normalize_threads(img, threads);
	clahe_columns(w, tile, ntx, colw, coll, colr);
	/* Every LUT is made from the rows before any is mapped (fs_clahe makes
	 * a tile row's just before its rows are overwritten): the same input
	 * rows, the same LUTs, the same output to the bit. */
	int band = (int)((1L << 18) / w);
	struct clahe_job j = {img, clip, tile, ntx, nty, band < 8 ? 8 : band, lut, colw, coll, colr};
	if (fs_tile_pool_run((size_t)nty, threads, clahe_luts, NULL, &j, err, errlen) ||
	    fs_tile_pool_run((size_t)((h + j.band - 1) / j.band), threads, clahe_rows, NULL, &j, err, errlen))
		goto out;
	fs_normalize_threads(img, threads);
	rc = 0;
out:
	free(lut);
	free(colw);
	free(coll);
	free(colr);
	return rc;
}

int fs_white_tophat(fs_image *img, int radius, char *err, size_t errlen)
{
	if (!img || radius < 0) {
		snprintf(err, errlen, "top-hat: bad image or radius");
		return -1;
	}
	if (radius == 0)
		return 0;
	int w = img->width, h = img->height;
	size_t n = (size_t)w * h;
	float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
	int rc = -1;
	if (!a || !b || fs_disk_filter(img->data, a, w, h, radius, 0) ||
	    fs_disk_filter(a, b, w, h, radius, 1)) {
		snprintf(err, errlen, "top-hat: out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		img->data[i] -= b[i];
	rc = 0;
out:
	free(a);
	free(b);
	return rc;
}
