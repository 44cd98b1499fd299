/*
 * loader.c - the helpers every format loader shares (see loader.h).
 */
#include "image/loader.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

void fs_load_errf(char *err, size_t errlen, const char *fmt, ...)
{
	if (!err || !errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

int fs_load_hand_over(int decoded, const char *format, const char *why, const char *msg, fs_image **img,
		      fs_loaded *out, char *err, size_t errlen)
{
	if (decoded != 0) {
		if (why[0])
			fs_load_errf(err, errlen, "%s", why);
		else
			fs_load_errf(err, errlen, "%s: %s", format, msg[0] ? msg : "cannot decode");
		return -1;
	}
	out->image = *img;
	*img = NULL;
	out->n_pages = 1;
	return 0;
}

int fs_load_check_size(long long width, long long height, long max_pixels, char *err, size_t errlen)
{
	if (width <= 0 || height <= 0) {
		fs_load_errf(err, errlen, "image has no pixels (%lld x %lld)", width, height);
		return -1;
	}
	if (width > INT_MAX || height > INT_MAX || width > LLONG_MAX / height ||
	    width * height > (long long)max_pixels) {
		/* said before anything is allocated: what decoding would have taken */
		double gb = (double)width * (double)height * sizeof(float) / 1e9;
		fs_load_errf(err, errlen,
			     "image is too large: %lld x %lld pixels (limit %ld), %.1f GB decoded; refused before "
			     "decoding",
			     width, height, max_pixels, gb);
		return -1;
	}
	return 0;
}

void fs_image_normalise(fs_image *img)
{
	size_t n = (size_t)img->width * (size_t)img->height;
	float lo = INFINITY, hi = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		float v = img->data[i];
		if (!isfinite(v))
			continue;
		if (v < lo)
			lo = v;
		if (v > hi)
			hi = v;
	}
	/* A flat (or all non-finite) image has no range: map it to 0. */
	double range = (lo < hi) ? (double)hi - (double)lo : 0.0;
	for (size_t i = 0; i < n; i++) {
		float v = img->data[i];
		if (!isfinite(v) || range <= 0.0 || !isfinite(range))
			img->data[i] = 0.0f;
		else
			img->data[i] = (float)(((double)v - lo) / range);
	}
}

void fs_loaded_free(fs_loaded *l)
{
	if (!l)
		return;
	fs_image_free(l->image);
	l->image = NULL;
}
