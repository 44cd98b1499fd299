/*
 * bench_support.c - clocks, median, the argument lists and the 8-bit TIFF
 * writer shared by the benchmarks (see bench_support.h).
 */
#include "bench_support.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tiffio.h>

static double clock_ms(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

double bench_now_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

double bench_cpu_ms(void)
{
	return clock_ms(CLOCK_PROCESS_CPUTIME_ID);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double bench_median(const double *v, int n)
{
	if (n < 1)
		return 0;
	/* a copy, so the caller's runs stay in the order they were taken */
	double *s = malloc((size_t)n * sizeof *s);
	if (!s)
		return v[n / 2];
	memcpy(s, v, (size_t)n * sizeof *s);
	qsort(s, (size_t)n, sizeof *s, cmp_d);
	double m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	free(s);
	return m;
}

int bench_runs(int dflt)
{
	const char *e = getenv("FS_BENCH_RUNS");
	int n = e ? atoi(e) : 0;
	return n >= 1 && n <= 9 ? n : dflt;
}

/* One item of a list at *s: its value into *x, *s past it and its comma.
 * 0, or -1 when it is not a number or runs on into anything else. */
static int list_item(const char **s, double *x)
{
	char *end;
	*x = strtod(*s, &end);
	if (end == *s || (*end && *end != ','))
		return -1;
	*s = *end == ',' ? end + 1 : end;
	return 0;
}

int bench_parse_list(const char *s, double *v, int max)
{
	int n = 0;
	while (*s) {
		if (n == max || list_item(&s, &v[n]))
			return -1;
		n++;
	}
	return n;
}

/* An item that must be whole and within [lo, hi]. */
static int whole_item(const char **s, double lo, double hi, double *x)
{
	return list_item(s, x) || !(*x >= lo && *x <= hi) || *x != floor(*x) ? -1 : 0;
}

int bench_parse_ints(const char *s, int lo, int hi, int *v, int max)
{
	int n = 0;
	while (*s) {
		double x;
		if (n == max || whole_item(&s, lo, hi, &x))
			return -1;
		v[n++] = (int)x;
	}
	return n;
}

int bench_parse_seeds(const char *s, unsigned *v, int max)
{
	int n = 0;
	while (*s) {
		double x;
		if (n == max || whole_item(&s, 0, UINT_MAX, &x))
			return -1;
		v[n++] = (unsigned)x;
	}
	return n;
}

int bench_write_tiff8(const char *path, const fs_image *img, int deflate)
{
	TIFF *t = TIFFOpen(path, "w");
	if (!t)
		return -1;
	int w = img->width, h = img->height, rc = 0;
	TIFFSetField(t, TIFFTAG_IMAGEWIDTH, (uint32_t)w);
	TIFFSetField(t, TIFFTAG_IMAGELENGTH, (uint32_t)h);
	TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 8);
	TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 1);
	TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
	TIFFSetField(t, TIFFTAG_COMPRESSION, deflate ? COMPRESSION_ADOBE_DEFLATE : COMPRESSION_NONE);
	TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, 16);
	unsigned char *row = malloc((size_t)w);
	for (int y = 0; y < h && row && !rc; y++) {
		for (int x = 0; x < w; x++) {
			float v = img->data[(size_t)y * w + x];
			row[x] = (unsigned char)(v <= 0 ? 0 : v >= 1 ? 255 : (int)(v * 255.0f + 0.5f));
		}
		rc = TIFFWriteScanline(t, row, (uint32_t)y, 0) < 0 ? -1 : 0;
	}
	free(row);
	TIFFClose(t);
	return row ? rc : -1;
}

void bench_large_scene(synth_opts *o)
{
	synth_defaults(o);
	o->width = 10000;
	o->height = 10000;
	o->pitch = 40;
	o->angle = 0.2;
	o->jitter = 1.5;
	o->gradient = 0.3;
	o->bits = 8;
}

void bench_detect_lattice(synth_opts *o)
{
	synth_defaults(o);
	o->width = 2048;
	o->height = 1536;
	o->pitch = 36;
	o->angle = 0.2;
	o->jitter = 1.5;
	o->gradient = 0.3;
}

void bench_large_fine_scene(synth_opts *o)
{
	bench_large_scene(o);
	o->pitch = 14; /* below 20 px: detected at full resolution (detect.c) */
	o->jitter = 0.5;
}
