/* work_file.c - the compact working image file (see work_file.h). */
#include "store/work_file.h"
#include "store/image_files.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <libdeflate.h>
#include <zlib.h>

#include "base/buf.h"

#define BAND_ROWS 64

static const char magic1[4] = {'F', 'S', 'W', '1'};
static const char magic2[4] = {'F', 'S', 'W', '2'};

/* The loaders' own conversions (k / 255.0 and k / 65535.0 in double, then
 * to float), so a value read back is the very float that was written. */
static float lut8[256];
static float *lut16; /* 65536 entries, made on first use, never freed */

static int make_luts(void)
{
	if (lut16)
		return 0;
	float *t = malloc(65536 * sizeof *t);
	if (!t)
		return -1;
	for (int k = 0; k < 65536; k++)
		t[k] = (float)(k / 65535.0);
	for (int k = 0; k < 256; k++)
		lut8[k] = (float)(k / 255.0);
	lut16 = t;
	return 0;
}

/*
 * lrintf(t) and lrint(t) (round to nearest, ties to even, the default
 * mode) without the library call per sample: adding and taking away 1.5
 * times 2^23 (float) or 2^52 (double) leaves t rounded to an integer,
 * exactly, for 0 <= t <= 65535. IEEE arithmetic: the compiler keeps both
 * operations (no -ffast-math here).
 */
static inline long round_f(float t)
{
	return (long)((t + 12582912.0f) - 12582912.0f);
}

static inline long round_d(double t)
{
	return (long)((t + 6755399441055744.0) - 6755399441055744.0);
}

int fs_work_precision(const fs_image *img)
{
	if (img->bits)
		return img->bits / 8; /* compact: its samples are those bytes already */
	if (make_luts())
		return 4;
	size_t n = (size_t)img->width * (size_t)img->height;
	int ok8 = 1;
	for (size_t i = 0; i < n; i++) {
		float v = img->data[i];
		if (!(v >= 0.0f && v <= 1.0f))
			return 4;
		if (ok8) {
			long k = round_f(v * 255.0f);
			ok8 = lut8[k] == v;
		}
		if (!ok8) {
			long k = round_d(v * 65535.0);
			if (k < 0 || k > 65535 || lut16[k] != v)
				return 4;
		}
	}
	return ok8 ? 1 : 2;
}

static void pack_band(const fs_image *img, int y0, int rows, int bps, unsigned char *out)
{
	size_t n = (size_t)rows * (size_t)img->width;
	if (img->bits) {
		/* compact: the stored samples (bps = bits / 8, fs_work_precision) */
		memcpy(out, (const unsigned char *)img->px + (size_t)y0 * (size_t)img->width * (size_t)bps,
		       n * (size_t)bps);
		return;
	}
	const float *src = img->data + (size_t)y0 * (size_t)img->width;
	/* the samples are in [0, 1] (fs_work_precision said 1 or 2 bytes) */
	if (bps == 1) {
		for (size_t i = 0; i < n; i++)
			out[i] = (unsigned char)round_f(src[i] * 255.0f);
	} else if (bps == 2) {
		uint16_t *o = (uint16_t *)(void *)out;
		for (size_t i = 0; i < n; i++)
			o[i] = (uint16_t)round_d(src[i] * 65535.0);
	} else {
		memcpy(out, src, n * sizeof(float));
	}
}

int fs_work_file_write(const char *path, const fs_image *img, char *err, size_t errlen)
{
	if (!img || img->width <= 0 || img->height <= 0) {
		snprintf(err, errlen, "no image to write");
		return -1;
	}
	int bps = fs_work_precision(img);
	size_t band_bytes = (size_t)BAND_ROWS * (size_t)img->width * (size_t)bps;
	/* libdeflate's level 1: a zlib stream as zlib's level 1 writes one (any
	 * zlib reader reads it), four times as fast on a noisy SEM image */
	struct libdeflate_compressor *cmp = libdeflate_alloc_compressor(1);
	size_t bound = cmp ? libdeflate_zlib_compress_bound(cmp, band_bytes) : 0;
	unsigned char *raw = malloc(band_bytes), *z = cmp ? malloc(bound) : NULL;
	fs_buf out = FS_BUF_INIT;
	int rc = -1;
	if (!raw || !z) {
		snprintf(err, errlen, "out of memory for the working image");
		goto out;
	}
	uint32_t hdr[4] = {(uint32_t)img->width, (uint32_t)img->height, (uint32_t)bps, BAND_ROWS};
	if (fs_buf_append(&out, magic2, 4) || fs_buf_append(&out, hdr, sizeof hdr))
		goto oom;
	for (int y = 0; y < img->height; y += BAND_ROWS) {
		int rows = img->height - y < BAND_ROWS ? img->height - y : BAND_ROWS;
		size_t len = (size_t)rows * (size_t)img->width * (size_t)bps;
		pack_band(img, y, rows, bps, raw);
		/* level 1: most of the gain at a fraction of the time */
		size_t zl = libdeflate_zlib_compress(cmp, raw, len, z, bound);
		/* the reader takes a band up to zlib's bound (stored blocks keep
		 * libdeflate's output well within it) */
		if (!zl || zl > compressBound((uLong)band_bytes)) {
			snprintf(err, errlen, "cannot compress the working image");
			goto out;
		}
		uint32_t l32 = (uint32_t)zl;
		if (fs_buf_append(&out, &l32, 4) || fs_buf_append(&out, z, zl))
			goto oom;
	}
	rc = fs_file_write_atomic(path, out.data, out.len, err, errlen);
	goto out;
oom:
	snprintf(err, errlen, "out of memory for the working image");
out:
	if (cmp)
		libdeflate_free_compressor(cmp);
	free(raw);
	free(z);
	fs_buf_free(&out);
	return rc;
}

static int read_header(FILE *fp, uint32_t hdr[4], int *version)
{
	char m[4];
	if (fread(m, 1, 4, fp) != 4)
		return -1;
	if (!memcmp(m, magic1, 4)) {
		*version = 1;
		if (fread(hdr, sizeof(uint32_t), 2, fp) != 2)
			return -1;
		hdr[2] = 4;
		hdr[3] = 0;
	} else if (!memcmp(m, magic2, 4)) {
		*version = 2;
		if (fread(hdr, sizeof(uint32_t), 4, fp) != 4)
			return -1;
		if ((hdr[2] != 1 && hdr[2] != 2 && hdr[2] != 4) || hdr[3] == 0 || hdr[3] > 4096)
			return -1;
	} else {
		return -1;
	}
	if (!hdr[0] || !hdr[1] || hdr[0] > 1000000 || hdr[1] > 1000000)
		return -1;
	return 0;
}

/* The working file at path opened with its header read (the caller
 * fcloses it), or NULL with the reason: missing, or damaged. */
static FILE *open_work(const char *path, uint32_t hdr[4], int *version, char *err, size_t errlen)
{
	FILE *fp = fopen(path, "rbe");
	if (!fp) {
		snprintf(err, errlen, "the working image is missing: %s", strerror(errno));
		return NULL;
	}
	if (read_header(fp, hdr, version)) {
		snprintf(err, errlen, "the working image file is damaged");
		fclose(fp);
		return NULL;
	}
	return fp;
}

int fs_work_file_info(const char *path, int *width, int *height, int *bytes_per_sample, char *err,
		      size_t errlen)
{
	uint32_t hdr[4];
	int version;
	FILE *fp = open_work(path, hdr, &version, err, errlen);
	if (!fp)
		return -1;
	fclose(fp);
	*width = (int)hdr[0];
	*height = (int)hdr[1];
	*bytes_per_sample = (int)hdr[2];
	return 0;
}

/* A row of n stored samples of bps bytes as floats in o (8 and 16 bits
 * through the tables, floats copied) */
static void samples_to_floats(const unsigned char *src, uint32_t n, int bps, float *o)
{
	if (bps == 1)
		for (uint32_t i = 0; i < n; i++)
			o[i] = lut8[src[i]];
	else if (bps == 2)
		for (uint32_t i = 0; i < n; i++)
			o[i] = lut16[((const uint16_t *)(const void *)src)[i]];
	else
		memcpy(o, src, (size_t)n * sizeof(float));
}

/* Calls row(ctx, y, samples) for every row in order, the samples as floats
 * in buf (hdr[0] of them); version 1 or 2 bodies. With dst (an image of the
 * file's size) the rows are converted straight into it instead and row is
 * not called: reading a working image is then one pass over its pixels. */
typedef void (*row_fn)(void *ctx, uint32_t y, const float *samples);

static int visit_rows(FILE *fp, const uint32_t hdr[4], int version, row_fn row, void *ctx, fs_image *dst)
{
	int bps = (int)hdr[2], band = version == 1 ? 1 : (int)hdr[3];
	size_t band_bytes = (size_t)band * hdr[0] * (size_t)bps;
	unsigned char *raw = malloc(band_bytes), *z = NULL;
	float *f = malloc((size_t)hdr[0] * sizeof *f);
	size_t zcap = 0;
	int rc = -1;
	/* libdeflate: the same zlib streams, inflated in a third of zlib's time */
	struct libdeflate_decompressor *dec = version == 1 ? NULL : libdeflate_alloc_decompressor();
	if (!raw || !f || make_luts() || (version != 1 && !dec))
		goto out;
	for (uint32_t y = 0; y < hdr[1]; y += (uint32_t)band) {
		uint32_t rows = hdr[1] - y < (uint32_t)band ? hdr[1] - y : (uint32_t)band;
		size_t want = (size_t)rows * hdr[0] * (size_t)bps;
		if (version == 1) {
			if (fread(raw, 1, want, fp) != want)
				goto out;
		} else {
			uint32_t zl;
			if (fread(&zl, 4, 1, fp) != 1 || zl > compressBound((uLong)band_bytes))
				goto out;
			if (zl > zcap) {
				unsigned char *t = realloc(z, zl);
				if (!t)
					goto out;
				z = t;
				zcap = zl;
			}
			if (fread(z, 1, zl, fp) != zl ||
			    libdeflate_zlib_decompress(dec, z, zl, raw, want, NULL) != LIBDEFLATE_SUCCESS)
				goto out;
		}
		for (uint32_t r = 0; r < rows; r++) {
			const unsigned char *src = raw + (size_t)r * hdr[0] * (size_t)bps;
			if (dst && dst->bits) {
				/* compact: the samples themselves (dst->bits = 8 * bps) */
				memcpy((unsigned char *)dst->px + (size_t)(y + r) * hdr[0] * (size_t)bps, src,
				       (size_t)hdr[0] * (size_t)bps);
				continue;
			}
			if (dst) {
				samples_to_floats(src, hdr[0], bps, dst->data + (size_t)(y + r) * hdr[0]);
				continue;
			}
			samples_to_floats(src, hdr[0], bps, f);
			row(ctx, y + r, f);
		}
	}
	rc = fgetc(fp) == EOF ? 0 : -1; /* nothing may follow the last band */
out:
	if (dec)
		libdeflate_free_decompressor(dec);
	free(raw);
	free(z);
	free(f);
	return rc;
}

/* Area averages of factor x factor blocks, accumulated row by row. */
typedef struct reducer {
	fs_image *out;
	double *acc; /* one output row of sums */
	int factor, in_w, in_h;
} reducer;

static void reduce_row(void *ctx, uint32_t y, const float *samples)
{
	reducer *rd = ctx;
	int f = rd->factor, ow = rd->out->width;
	for (int x = 0; x < rd->in_w; x++)
		rd->acc[x / f] += samples[x];
	int oy = (int)y / f;
	if ((int)y % f == f - 1 || (int)y == rd->in_h - 1) {
		int rows = (int)y - oy * f + 1;
		for (int ox = 0; ox < ow; ox++) {
			int cols = ox == ow - 1 ? rd->in_w - ox * f : f;
			rd->out->data[(size_t)oy * ow + ox] = (float)(rd->acc[ox] / ((double)rows * cols));
			rd->acc[ox] = 0;
		}
	}
}

static fs_image *read_work(const char *path, int compact, char *err, size_t errlen)
{
	fs_image *img = NULL;
	uint32_t hdr[4];
	int version;
	FILE *fp = open_work(path, hdr, &version, err, errlen);
	if (!fp)
		return NULL;
	struct stat st;
	if (fstat(fileno(fp), &st) != 0) {
		snprintf(err, errlen, "the working image file is damaged");
		goto out;
	}
	if (version == 1 &&
	    (unsigned long long)st.st_size != 12ULL + (unsigned long long)hdr[0] * hdr[1] * sizeof(float)) {
		snprintf(err, errlen, "the working image file is damaged");
		goto out;
	}
	/* an 8- or 16-bit file read compact stays in its bytes (image.h) */
	img = compact && version == 2 && hdr[2] < 4 ? fs_image_new_compact((int)hdr[0], (int)hdr[1], 8 * (int)hdr[2])
						     : fs_image_new_uninit((int)hdr[0], (int)hdr[1]);
	if (!img) {
		snprintf(err, errlen, "out of memory for the working image");
		goto out;
	}
	size_t n = (size_t)hdr[0] * hdr[1];
	int bad = version == 1 ? fread(img->data, sizeof(float), n, fp) != n : visit_rows(fp, hdr, 2, NULL, NULL, img) != 0;
	if (bad) {
		snprintf(err, errlen, "the working image file is damaged");
		fs_image_free(img);
		img = NULL;
	}
out:
	fclose(fp);
	return img;
}

fs_image *fs_work_file_read(const char *path, char *err, size_t errlen)
{
	return read_work(path, 0, err, errlen);
}

fs_image *fs_work_file_read_compact(const char *path, char *err, size_t errlen)
{
	return read_work(path, 1, err, errlen);
}

fs_image *fs_work_file_read_reduced(const char *path, int max_side, double *scale, char *err, size_t errlen)
{
	fs_image *img = NULL;
	reducer rd = {0};
	uint32_t hdr[4];
	int version;
	FILE *fp = open_work(path, hdr, &version, err, errlen);
	if (!fp)
		return NULL;
	if (max_side < 1) {
		snprintf(err, errlen, "the working image file is damaged");
		goto out;
	}
	uint32_t big = hdr[0] > hdr[1] ? hdr[0] : hdr[1];
	rd.factor = (int)((big + (uint32_t)max_side - 1) / (uint32_t)max_side);
	rd.in_w = (int)hdr[0];
	rd.in_h = (int)hdr[1];
	rd.out = fs_image_new((rd.in_w + rd.factor - 1) / rd.factor, (rd.in_h + rd.factor - 1) / rd.factor);
	rd.acc = rd.out ? calloc((size_t)rd.out->width, sizeof *rd.acc) : NULL;
	if (!rd.out || !rd.acc) {
		snprintf(err, errlen, "out of memory for a reduced working image");
		goto out;
	}
	if (visit_rows(fp, hdr, version, reduce_row, &rd, NULL)) {
		snprintf(err, errlen, "the working image file is damaged");
		goto out;
	}
	img = rd.out;
	rd.out = NULL;
	if (scale)
		*scale = 1.0 / rd.factor;
out:
	fs_image_free(rd.out);
	free(rd.acc);
	fclose(fp);
	return img;
}
