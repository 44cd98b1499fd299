/*
 * load_tiff.c - TIFF into the float working image through libtiff.
 *
 * The input buffer is served to libtiff by a read-only memory client, so file
 * and memory loading share this one path; a file can also be served from its
 * descriptor (fs_tiff_load_fd: pread at the client's offset), so a large
 * TIFF is not first read whole into memory - its strips go from the page
 * cache into the image. Errors and warnings go to per-handle
 * handlers (TIFFOpenOptions) that keep the first message; the process-wide
 * handlers are switched off so libtiff never prints.
 *
 * Supported: 1/2/4/8/16/32-bit unsigned or signed integers, 32/64-bit floats;
 * min-is-black, min-is-white, RGB (extra samples such as alpha ignored),
 * palette, YCbCr only inside JPEG compression (libtiff converts it to RGB);
 * contiguous or separate planes; strips or tiles; any codec libtiff has.
 */
#include "image/loader.h"
#include "image/sem_metadata.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>
#include <unistd.h>

/* libtiff's own buffers (strips, tiles, directory arrays) never exceed this. */
#define TIFF_MAX_SINGLE_ALLOC ((tmsize_t)512 * 1024 * 1024)

typedef struct mem_src {
	const unsigned char *buf; /* the bytes, or NULL: read from fd */
	size_t len;
	size_t pos;
	int fd;
} mem_src;

typedef struct tiff_ctx {
	char msg[256]; /* first libtiff error, "" when none */
} tiff_ctx;

typedef struct layout {
	uint32_t w, h;
	uint16_t bps, spp, fmt, photo, planar;
	int tiled;
	uint32_t tw, th, rps;
	int n_color;        /* samples that make the colour: 1 (grey, palette) or 3 (RGB) */
	int palette;
	int miniswhite;
	uint16_t *cmap[3];  /* owned by libtiff */
	double cmap_scale;  /* 1/65535, or 1/255 for old 8-bit colour maps */
} layout;

static tmsize_t mem_read(thandle_t h, void *dst, tmsize_t n)
{
	mem_src *m = h;
	if (n <= 0 || m->pos >= m->len)
		return 0;
	size_t avail = m->len - m->pos;
	size_t k = (size_t)n < avail ? (size_t)n : avail;
	if (m->buf) {
		memcpy(dst, m->buf + m->pos, k);
	} else {
		/* a file: all k bytes, or fewer when it shrank meanwhile
		 * (libtiff then reports a short read, an error) */
		size_t got = 0;
		while (got < k) {
			ssize_t r = pread(m->fd, (unsigned char *)dst + got, k - got, (off_t)(m->pos + got));
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			got += (size_t)r;
		}
		k = got;
	}
	m->pos += k;
	return (tmsize_t)k;
}

static tmsize_t mem_write(thandle_t h, void *src, tmsize_t n)
{
	(void)h;
	(void)src;
	(void)n;
	return -1;
}

static toff_t mem_seek(thandle_t h, toff_t off, int whence)
{
	mem_src *m = h;
	uint64_t base;
	switch (whence) {
	case SEEK_SET:
		base = 0;
		break;
	case SEEK_CUR:
		base = m->pos;
		break;
	case SEEK_END:
		base = m->len;
		break;
	default:
		return (toff_t)-1;
	}
	/* Offsets past the end are allowed (reads there return nothing). */
	if (off > UINT64_MAX - base || base + off > SIZE_MAX)
		return (toff_t)-1;
	m->pos = (size_t)(base + off);
	return m->pos;
}

static int mem_close(thandle_t h)
{
	(void)h;
	return 0;
}

static toff_t mem_size(thandle_t h)
{
	return ((mem_src *)h)->len;
}

static int mem_map(thandle_t h, void **base, toff_t *size)
{
	(void)h;
	(void)base;
	(void)size;
	return 0; /* not mapped: libtiff must copy, our buffer is read-only */
}

static void mem_unmap(thandle_t h, void *base, toff_t size)
{
	(void)h;
	(void)base;
	(void)size;
}

static int on_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
	(void)tif;
	(void)module;
	tiff_ctx *c = user;
	if (c && !c->msg[0])
		vsnprintf(c->msg, sizeof c->msg, fmt, ap);
	return 1; /* handled: do not fall through to the global handlers */
}

static int on_warning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
	(void)tif;
	(void)user;
	(void)module;
	(void)fmt;
	(void)ap;
	return 1;
}

static void silence_global_handlers(void)
{
	TIFFSetErrorHandler(NULL);
	TIFFSetErrorHandlerExt(NULL);
	TIFFSetWarningHandler(NULL);
	TIFFSetWarningHandlerExt(NULL);
}

static void fail(const tiff_ctx *c, char *err, size_t errlen, const char *what)
{
	if (c->msg[0])
		fs_load_errf(err, errlen, "TIFF: %s: %s", what, c->msg);
	else
		fs_load_errf(err, errlen, "TIFF: %s", what);
}

static int read_layout(TIFF *tif, layout *L, const tiff_ctx *c, char *err, size_t errlen)
{
	uint16_t compression = COMPRESSION_NONE;
	memset(L, 0, sizeof *L);
	if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &L->w) || !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &L->h)) {
		fail(c, err, errlen, "no image size");
		return -1;
	}
	TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &L->bps);
	TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &L->spp);
	TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &L->fmt);
	TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &L->planar);
	TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
	if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &L->photo)) {
		/* Missing in some old writers: guess like libtiff's RGBA reader does. */
		L->photo = L->spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
	}
	if (!TIFFIsCODECConfigured(compression)) {
		fs_load_errf(err, errlen, "TIFF: compression scheme %u is not supported", compression);
		return -1;
	}
	if (L->spp < 1) {
		fs_load_errf(err, errlen, "TIFF: no samples per pixel");
		return -1;
	}
	if (L->planar != PLANARCONFIG_CONTIG && L->planar != PLANARCONFIG_SEPARATE) {
		fs_load_errf(err, errlen, "TIFF: unknown planar configuration %u", L->planar);
		return -1;
	}
	switch (L->fmt) {
	case SAMPLEFORMAT_UINT:
	case SAMPLEFORMAT_INT:
		if (L->bps != 1 && L->bps != 2 && L->bps != 4 && L->bps != 8 && L->bps != 16 && L->bps != 32) {
			fs_load_errf(err, errlen, "TIFF: %u bits per integer sample is not supported", L->bps);
			return -1;
		}
		if (L->fmt == SAMPLEFORMAT_INT && L->bps < 8) {
			fs_load_errf(err, errlen, "TIFF: signed %u-bit samples are not supported", L->bps);
			return -1;
		}
		break;
	case SAMPLEFORMAT_IEEEFP:
		if (L->bps != 32 && L->bps != 64) {
			fs_load_errf(err, errlen, "TIFF: %u-bit floating point samples are not supported", L->bps);
			return -1;
		}
		break;
	default:
		fs_load_errf(err, errlen, "TIFF: sample format %u is not supported", L->fmt);
		return -1;
	}
	switch (L->photo) {
	case PHOTOMETRIC_MINISWHITE:
		L->miniswhite = 1;
		/* fall through */
	case PHOTOMETRIC_MINISBLACK:
		L->n_color = 1;
		break;
	case PHOTOMETRIC_YCBCR:
		if (compression != COMPRESSION_JPEG || L->planar != PLANARCONFIG_CONTIG || L->spp != 3) {
			fs_load_errf(err, errlen, "TIFF: YCbCr is only supported inside JPEG compression");
			return -1;
		}
		/* libtiff's JPEG codec hands out RGB; sizes below then use 3 full samples. */
		if (!TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB)) {
			fail(c, err, errlen, "cannot convert YCbCr");
			return -1;
		}
		L->photo = PHOTOMETRIC_RGB;
		/* fall through */
	case PHOTOMETRIC_RGB:
		if (L->spp < 3) {
			fs_load_errf(err, errlen, "TIFF: RGB with %u samples per pixel", L->spp);
			return -1;
		}
		L->n_color = 3;
		break;
	case PHOTOMETRIC_PALETTE:
		if (L->fmt != SAMPLEFORMAT_UINT || L->bps > 16) {
			fs_load_errf(err, errlen, "TIFF: palette with %u-bit samples is not supported", L->bps);
			return -1;
		}
		if (!TIFFGetField(tif, TIFFTAG_COLORMAP, &L->cmap[0], &L->cmap[1], &L->cmap[2])) {
			fs_load_errf(err, errlen, "TIFF: palette image without a colour map");
			return -1;
		}
		L->palette = 1;
		L->n_color = 1;
		break;
	default:
		fs_load_errf(err, errlen, "TIFF: photometric interpretation %u (e.g. CMYK, Lab) is not supported",
			     L->photo);
		return -1;
	}
	if (L->planar == PLANARCONFIG_SEPARATE && L->palette) {
		fs_load_errf(err, errlen, "TIFF: palette with separate planes is not supported");
		return -1;
	}
	L->tiled = TIFFIsTiled(tif);
	if (L->tiled) {
		if (!TIFFGetField(tif, TIFFTAG_TILEWIDTH, &L->tw) || !TIFFGetField(tif, TIFFTAG_TILELENGTH, &L->th) ||
		    L->tw == 0 || L->th == 0) {
			fs_load_errf(err, errlen, "TIFF: tiled image without a tile size");
			return -1;
		}
	} else {
		TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &L->rps);
		if (L->rps == 0 || L->rps > L->h)
			L->rps = L->h;
	}
	if (L->palette) {
		/* Old writers store 8-bit colour maps; every entry < 256 gives them away. */
		size_t n = (size_t)1 << L->bps;
		int wide = 0;
		for (size_t i = 0; i < n && !wide; i++)
			wide = L->cmap[0][i] > 255 || L->cmap[1][i] > 255 || L->cmap[2][i] > 255;
		L->cmap_scale = wide ? 1.0 / 65535.0 : 1.0 / 255.0;
	}
	return 0;
}

/* Sample number idx of a row: integers scaled to [0, 1], floats as they are. */
static double sample_at(const unsigned char *row, size_t idx, const layout *L)
{
	switch (L->bps) {
	case 1:
	case 2:
	case 4: {
		size_t bit = idx * L->bps;
		unsigned v = (row[bit >> 3] >> (8 - L->bps - (bit & 7))) & ((1u << L->bps) - 1);
		return L->palette ? v : v / (double)((1u << L->bps) - 1);
	}
	case 8:
		if (L->fmt == SAMPLEFORMAT_INT)
			return (((const int8_t *)row)[idx] + 128.0) / 255.0;
		return L->palette ? row[idx] : row[idx] / 255.0;
	case 16: {
		uint16_t v;
		memcpy(&v, row + idx * 2, 2);
		if (L->fmt == SAMPLEFORMAT_INT)
			return ((int16_t)v + 32768.0) / 65535.0;
		return L->palette ? v : v / 65535.0;
	}
	case 32: {
		if (L->fmt == SAMPLEFORMAT_IEEEFP) {
			float f;
			memcpy(&f, row + idx * 4, 4);
			return f;
		}
		uint32_t v;
		memcpy(&v, row + idx * 4, 4);
		if (L->fmt == SAMPLEFORMAT_INT)
			return ((int32_t)v + 2147483648.0) / 4294967295.0;
		return v / 4294967295.0;
	}
	default: { /* 64-bit float, the only other layout read_layout lets through */
		double d;
		memcpy(&d, row + idx * 8, 8);
		return d;
	}
	}
}

static float luma_d(double r, double g, double b, int is_float)
{
	double v = 0.299 * r + 0.587 * g + 0.114 * b;
	if (is_float)
		return (float)v; /* normalised later */
	return fs_luma((float)r, (float)g, (float)b);
}

/*
 * Adds one decoded block (strip or tile) of plane `plane` to the image:
 * rows y0.., columns x0.., bw x bh pixels, `stride` bytes per block row.
 */
static void put_block(fs_image *img, const layout *L, const unsigned char *blk, size_t stride, uint32_t x0,
		      uint32_t y0, uint32_t bw, uint32_t bh, int plane)
{
	int is_float = L->fmt == SAMPLEFORMAT_IEEEFP;
	int contig = L->planar == PLANARCONFIG_CONTIG;
	if (img->bits) {
		/* compact (one grey plane, unsigned, 8 or 16 bits: fs_tiff_load):
		 * the samples themselves, native-endian after libtiff */
		for (uint32_t dy = 0; dy < bh && y0 + dy < L->h; dy++) {
			const unsigned char *row = blk + (size_t)dy * stride;
			uint32_t n = bw < L->w - x0 ? bw : L->w - x0;
			size_t at = (size_t)(y0 + dy) * L->w + x0, step = contig ? L->spp : 1;
			if (step == 1) {
				/* one sample a pixel (grey, or planar): the row as it is */
				memcpy((unsigned char *)img->px + at * (size_t)(img->bits / 8), row,
				       (size_t)n * (size_t)(img->bits / 8));
			} else if (img->bits == 8) {
				uint8_t *dst = (uint8_t *)img->px + at;
				for (uint32_t dx = 0; dx < n; dx++)
					dst[dx] = row[(size_t)dx * step];
			} else {
				uint16_t *dst = (uint16_t *)img->px + at;
				for (uint32_t dx = 0; dx < n; dx++)
					memcpy(&dst[dx], row + 2 * (size_t)dx * step, 2);
			}
		}
		return;
	}
	static const double weight[3] = {0.299, 0.587, 0.114};
	/* The common SEM layouts (8-bit unsigned grey or RGB, interleaved) by
	 * table: the same values as sample_at's, without its calls per sample. */
	if (contig && L->bps == 8 && !L->palette && L->fmt != SAMPLEFORMAT_INT && !is_float) {
		float lut[256];
		for (int v = 0; v < 256; v++)
			lut[v] = (float)(v / 255.0);
		for (uint32_t dy = 0; dy < bh && y0 + dy < L->h; dy++) {
			const unsigned char *row = blk + (size_t)dy * stride;
			float *dst = img->data + (size_t)(y0 + dy) * L->w + x0;
			uint32_t n = bw < L->w - x0 ? bw : L->w - x0;
			if (L->n_color == 3)
				for (uint32_t dx = 0; dx < n; dx++) {
					const unsigned char *px = row + (size_t)dx * L->spp;
					dst[dx] = fs_luma(lut[px[0]], lut[px[1]], lut[px[2]]);
				}
			else
				for (uint32_t dx = 0; dx < n; dx++)
					dst[dx] = lut[row[(size_t)dx * L->spp]];
		}
		return;
	}
	for (uint32_t dy = 0; dy < bh && y0 + dy < L->h; dy++) {
		const unsigned char *row = blk + (size_t)dy * stride;
		float *dst = img->data + (size_t)(y0 + dy) * L->w + x0;
		for (uint32_t dx = 0; dx < bw && x0 + dx < L->w; dx++) {
			if (!contig) {
				double s = sample_at(row, dx, L);
				if (L->n_color == 1)
					dst[dx] = (float)s;
				else
					dst[dx] += (float)(weight[plane] * s);
				continue;
			}
			size_t i = (size_t)dx * L->spp;
			if (L->palette) {
				size_t k = (size_t)sample_at(row, i, L);
				dst[dx] = fs_luma((float)(L->cmap[0][k] * L->cmap_scale),
						  (float)(L->cmap[1][k] * L->cmap_scale),
						  (float)(L->cmap[2][k] * L->cmap_scale));
			} else if (L->n_color == 3) {
				dst[dx] = luma_d(sample_at(row, i, L), sample_at(row, i + 1, L), sample_at(row, i + 2, L),
						 is_float);
			} else {
				dst[dx] = (float)sample_at(row, i, L);
			}
		}
	}
}

/*
 * Decodes the pixels block by block. A block (a tile, a strip, or a row when
 * a strip is too large) is decoded into one buffer of at most
 * FS_LOAD_BLOCK_MAX_BYTES: the caps are in bytes, because the bytes per pixel
 * come from the header (samples x bits) and a faked one multiplies them
 * (a tile of a million pixels with 1000 64-bit samples is 8 GB).
 */
static int read_pixels(TIFF *tif, const layout *L, long max_pixels, fs_image *img, const tiff_ctx *c, char *err,
		       size_t errlen)
{
	unsigned char *blk = NULL;
	int rc = -1, by_row = 0;
	int planes = L->planar == PLANARCONFIG_SEPARATE ? L->n_color : 1;
	uint64_t bsize, stride;

	if (L->tiled) {
		/* Tiles may overhang the image, but not absurdly (a tile header is cheap to fake). */
		long long mp = max_pixels < (1L << 30) ? max_pixels : (1L << 30);
		long long cap = mp * 4 > (1LL << 20) ? mp * 4 : (1LL << 20);
		if ((long long)L->tw * L->th > cap) {
			fs_load_errf(err, errlen, "TIFF: tile of %u x %u pixels is too large", L->tw, L->th);
			goto out;
		}
		bsize = TIFFTileSize64(tif);
		stride = TIFFTileRowSize64(tif);
		if (bsize > FS_LOAD_BLOCK_MAX_BYTES) {
			fs_load_errf(err, errlen, "TIFF: a tile of %u x %u pixels takes %llu bytes decoded (limit %llu)",
				     L->tw, L->th, (unsigned long long)bsize,
				     (unsigned long long)FS_LOAD_BLOCK_MAX_BYTES);
			goto out;
		}
	} else {
		bsize = TIFFStripSize64(tif);
		stride = TIFFScanlineSize64(tif);
		if (stride > FS_LOAD_BLOCK_MAX_BYTES) {
			fs_load_errf(err, errlen, "TIFF: a row of %u pixels takes %llu bytes decoded (limit %llu)", L->w,
				     (unsigned long long)stride, (unsigned long long)FS_LOAD_BLOCK_MAX_BYTES);
			goto out;
		}
		/* One big compressed strip (a whole image is common): row by row. */
		if (bsize > FS_LOAD_BLOCK_MAX_BYTES) {
			by_row = 1;
			bsize = stride;
		}
	}
	if (bsize == 0 || stride == 0) {
		fail(c, err, errlen, "cannot size the pixel blocks");
		goto out;
	}
	blk = malloc((size_t)bsize);
	if (!blk) {
		fs_load_errf(err, errlen, "TIFF: out of memory for a %llu-byte block", (unsigned long long)bsize);
		goto out;
	}
	for (int p = 0; p < planes; p++) {
		if (L->tiled) {
			for (uint32_t y = 0; y < L->h; y += L->th) {
				for (uint32_t x = 0; x < L->w; x += L->tw) {
					uint32_t t = TIFFComputeTile(tif, x, y, 0, (uint16_t)p);
					if (TIFFReadEncodedTile(tif, t, blk, (tmsize_t)bsize) != (tmsize_t)bsize) {
						fail(c, err, errlen, "cannot read a tile");
						goto out;
					}
					put_block(img, L, blk, (size_t)stride, x, y, L->tw, L->th, p);
				}
			}
		} else if (by_row) {
			for (uint32_t y = 0; y < L->h; y++) {
				if (TIFFReadScanline(tif, blk, y, (uint16_t)p) != 1) {
					fail(c, err, errlen, "cannot read a row");
					goto out;
				}
				put_block(img, L, blk, (size_t)stride, 0, y, L->w, 1, p);
			}
		} else {
			/* a compact image of one sample a pixel holds the strip's
			 * rows as decoded: libtiff writes them in place (100 MB
			 * fewer copied for a 100 MP 8-bit image) */
			int direct = img->bits && L->spp == 1 && stride == (uint64_t)L->w * (img->bits / 8);
			for (uint32_t y = 0; y < L->h; y += L->rps) {
				uint32_t rows = L->h - y < L->rps ? L->h - y : L->rps;
				uint64_t want = (uint64_t)rows * stride;
				uint32_t s = TIFFComputeStrip(tif, y, (uint16_t)p);
				unsigned char *dst = direct ? (unsigned char *)img->px + (size_t)y * (size_t)stride : blk;
				if (want > bsize || TIFFReadEncodedStrip(tif, s, dst, (tmsize_t)want) != (tmsize_t)want) {
					fail(c, err, errlen, "cannot read a strip");
					goto out;
				}
				if (!direct)
					put_block(img, L, blk, (size_t)stride, 0, y, L->w, rows, p);
			}
		}
	}
	rc = 0;
out:
	free(blk);
	return rc;
}

/* Anonymous (unregistered) ASCII tag as text; NULL when absent or not text. */
static const char *ascii_tag(TIFF *tif, uint32_t tag, uint32_t *len)
{
	const TIFFField *f = TIFFFindField(tif, tag, TIFF_ANY);
	if (!f || TIFFFieldDataType(f) != TIFF_ASCII)
		return NULL;
	const char *text = NULL;
	uint32_t n = 0;
	if (TIFFFieldPassCount(f)) {
		if (TIFFFieldReadCount(f) == TIFF_VARIABLE2) {
			if (!TIFFGetField(tif, tag, &n, &text))
				return NULL;
		} else {
			uint16_t n16 = 0;
			if (!TIFFGetField(tif, tag, &n16, &text))
				return NULL;
			n = n16;
		}
	} else {
		if (!TIFFGetField(tif, tag, &text) || !text)
			return NULL;
		n = (uint32_t)strnlen(text, 1 << 20);
	}
	if (!text)
		return NULL;
	*len = n;
	return text;
}

static void read_calibration(TIFF *tif, fs_loaded *out)
{
	double um;
	uint32_t n;
	const char *t = ascii_tag(tif, FS_SEM_TAG_ZEISS, &n);
	if (t && fs_sem_zeiss_pixel_size(t, n, &um) == 0) {
		out->suggested_um_per_px = um;
		snprintf(out->calibration_source, sizeof out->calibration_source, "sem-metadata-zeiss");
		return;
	}
	t = ascii_tag(tif, FS_SEM_TAG_FEI, &n);
	if (t && fs_sem_fei_pixel_size(t, n, &um) == 0) {
		out->suggested_um_per_px = um;
		snprintf(out->calibration_source, sizeof out->calibration_source, "sem-metadata-fei");
		return;
	}
	float xres = 0;
	uint16_t unit = RESUNIT_INCH;
	if (!TIFFGetField(tif, TIFFTAG_XRESOLUTION, &xres))
		return;
	TIFFGetFieldDefaulted(tif, TIFFTAG_RESOLUTIONUNIT, &unit);
	double unit_um = unit == RESUNIT_INCH ? 25400.0 : unit == RESUNIT_CENTIMETER ? 10000.0 : 0.0;
	if (fs_resolution_um_per_px(xres, unit_um, &um) == 0) {
		out->suggested_um_per_px = um;
		snprintf(out->calibration_source, sizeof out->calibration_source, "tiff-resolution");
	}
}

static int load(mem_src src, long max_pixels, int page, int flags, fs_loaded *out, char *err, size_t errlen);

int fs_tiff_load(const unsigned char *buf, size_t len, long max_pixels, int page, int flags,
		 fs_loaded *out, char *err, size_t errlen)
{
	return load((mem_src){buf, len, 0, -1}, max_pixels, page, flags, out, err, errlen);
}

int fs_tiff_load_fd(int fd, size_t len, long max_pixels, int page, int flags, fs_loaded *out, char *err,
		    size_t errlen)
{
	return load((mem_src){NULL, len, 0, fd}, max_pixels, page, flags, out, err, errlen);
}

static int load(mem_src src, long max_pixels, int page, int flags, fs_loaded *out, char *err, size_t errlen)
{
	int header_only = flags & FS_LOAD_HEADER_ONLY;
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	tiff_ctx ctx = {{0}};
	TIFFOpenOptions *o = NULL;
	TIFF *tif = NULL;
	fs_image *img = NULL;
	layout L;
	int rc = -1;

	pthread_once(&once, silence_global_handlers);
	o = TIFFOpenOptionsAlloc();
	if (!o) {
		fs_load_errf(err, errlen, "TIFF: out of memory");
		goto out;
	}
	TIFFOpenOptionsSetErrorHandlerExtR(o, on_error, &ctx);
	TIFFOpenOptionsSetWarningHandlerExtR(o, on_warning, &ctx);
	TIFFOpenOptionsSetMaxSingleMemAlloc(o, TIFF_MAX_SINGLE_ALLOC);
	/* 'm': never memory-map (the buffer is the caller's and read-only). */
	tif = TIFFClientOpenExt("memory", "rm", (thandle_t)&src, mem_read, mem_write, mem_seek, mem_close, mem_size,
				mem_map, mem_unmap, o);
	if (!tif) {
		fail(&ctx, err, errlen, "not a readable TIFF file");
		goto out;
	}
	tdir_t pages = TIFFNumberOfDirectories(tif);
	if (pages == 0) {
		fail(&ctx, err, errlen, "no image directory");
		goto out;
	}
	if ((tdir_t)page >= pages) {
		fs_load_errf(err, errlen, "TIFF: page %d requested but the file has %u page(s)", page, (unsigned)pages);
		goto out;
	}
	if (page > 0 && !TIFFSetDirectory(tif, (tdir_t)page)) {
		fail(&ctx, err, errlen, "cannot read the requested page");
		goto out;
	}
	if (read_layout(tif, &L, &ctx, err, errlen) != 0)
		goto out;
	if (fs_load_check_size(L.w, L.h, max_pixels, err, errlen) != 0)
		goto out;
	out->width = (int)L.w;
	out->height = (int)L.h;
	out->bit_depth = L.bps;
	out->channels = L.spp;
	out->is_float = L.fmt == SAMPLEFORMAT_IEEEFP;
	out->n_pages = (int)pages;
	/* unsigned 8- or 16-bit grey, min-is-black, kept in its precision
	 * (image.h): put_block stores the samples sample_at would convert */
	int compactable = L.n_color == 1 && !L.palette && L.fmt == SAMPLEFORMAT_UINT && (L.bps == 8 || L.bps == 16) &&
			  !L.miniswhite;
	out->compact_bits = compactable ? L.bps : 0;
	if (header_only) {
		read_calibration(tif, out);
		rc = 0;
		goto out;
	}
	int compact = (flags & FS_LOAD_COMPACT) && compactable;
	img = compact ? fs_image_new_compact((int)L.w, (int)L.h, L.bps) : fs_image_new((int)L.w, (int)L.h);
	if (!img) {
		fs_load_errf(err, errlen, "TIFF: out of memory for %u x %u pixels", L.w, L.h);
		goto out;
	}
	if (read_pixels(tif, &L, max_pixels, img, &ctx, err, errlen) != 0)
		goto out;
	if (compact) {
		/* samples as stored: nothing to normalise or invert */
	} else if (L.fmt == SAMPLEFORMAT_IEEEFP) {
		fs_image_normalise(img);
	} else if (L.planar == PLANARCONFIG_SEPARATE && L.n_color == 3) {
		/* Summed plane by plane: rounding may step just past 1. */
		size_t n = (size_t)L.w * L.h;
		for (size_t i = 0; i < n; i++)
			img->data[i] = img->data[i] > 1.0f ? 1.0f : img->data[i];
	}
	if (L.miniswhite) {
		size_t n = (size_t)L.w * L.h;
		for (size_t i = 0; i < n; i++)
			img->data[i] = 1.0f - img->data[i];
	}
	read_calibration(tif, out);
	out->image = img;
	img = NULL;
	rc = 0;
out:
	fs_image_free(img);
	if (tif)
		TIFFClose(tif);
	if (o)
		TIFFOpenOptionsFree(o);
	return rc;
}
