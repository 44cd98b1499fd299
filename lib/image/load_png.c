/*
 * load_png.c - PNG into the float working image through libpng.
 *
 * libpng reports errors by calling our error function, which records the
 * message and longjmps back to decode(); the image and row buffer live in
 * the job struct so they survive the jump and are freed once, by the caller.
 * Every colour type and bit depth is reduced to 8- or 16-bit grey or RGB
 * (palette looked up, tRNS and alpha dropped). Interlaced images are read
 * pass by pass and each pass's pixels put where they belong, so no second
 * full-size buffer is needed.
 */
#include "image/loader.h"
#include "image/png_errors.h"
#include "image/sem_metadata.h"

#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Ancillary chunks (text, ICC profiles) may not inflate beyond this. */
#define PNG_CHUNK_MAX (8u * 1024 * 1024)

typedef struct png_job {
	const unsigned char *buf;
	size_t len;
	size_t pos;
	long max_pixels;
	int header_only;
	int compact;         /* FS_LOAD_COMPACT asked for */
	png_structp png;
	png_infop info;
	fs_image *img;       /* owned until handed to the caller */
	unsigned char *row;  /* owned */
	char msg[FS_PNG_MSG]; /* libpng's error, "" when none */
	char why[200];       /* our own reason, takes precedence */
} png_job;

static void read_mem(png_structp png, png_bytep dst, size_t n)
{
	png_job *j = png_get_io_ptr(png);
	if (n > j->len - j->pos)
		png_error(png, "file is truncated");
	memcpy(dst, j->buf + j->pos, n);
	j->pos += n;
}

static float sample(const unsigned char *row, size_t i, int bd)
{
	if (bd == 16)
		return (float)(((unsigned)row[2 * i] << 8 | row[2 * i + 1]) / 65535.0);
	return row[i] / 255.0f;
}

/* The pHYs chunk's pixel size as the suggested calibration (image_io.h). */
static void read_phys(png_job *j, fs_loaded *out)
{
	png_uint_32 xres, yres;
	int unit;
	double um;
	if (png_get_pHYs(j->png, j->info, &xres, &yres, &unit) && unit == PNG_RESOLUTION_METER &&
	    fs_resolution_um_per_px(xres, 1e6, &um) == 0) {
		out->suggested_um_per_px = um;
		snprintf(out->calibration_source, sizeof out->calibration_source, "png-phys");
	}
}

static int decode(png_job *j, fs_loaded *out)
{
	if (setjmp(png_jmpbuf(j->png)))
		return -1;
	png_set_read_fn(j->png, j, read_mem);
	png_set_chunk_malloc_max(j->png, PNG_CHUNK_MAX);
	png_read_info(j->png, j->info);

	png_uint_32 w = png_get_image_width(j->png, j->info);
	png_uint_32 h = png_get_image_height(j->png, j->info);
	int bd = png_get_bit_depth(j->png, j->info);
	int ct = png_get_color_type(j->png, j->info);
	int interlaced = png_get_interlace_type(j->png, j->info) == PNG_INTERLACE_ADAM7;
	out->bit_depth = bd;
	out->channels = png_get_channels(j->png, j->info);
	if (fs_load_check_size(w, h, j->max_pixels, j->why, sizeof j->why) != 0)
		return -1;
	out->width = (int)w;
	out->height = (int)h;
	/* what the compact path below gives: grey (an alpha stripped, 1-4
	 * bits expanded to 8), not interlaced */
	out->compact_bits = (ct == PNG_COLOR_TYPE_GRAY || ct == PNG_COLOR_TYPE_GRAY_ALPHA) && !interlaced
				    ? (bd == 16 ? 16 : 8)
				    : 0;
	if (j->header_only)
		return 0;

	if (ct == PNG_COLOR_TYPE_PALETTE)
		png_set_palette_to_rgb(j->png);
	if (ct == PNG_COLOR_TYPE_GRAY && bd < 8)
		png_set_expand_gray_1_2_4_to_8(j->png);
	png_set_strip_alpha(j->png);
	png_read_update_info(j->png, j->info);
	int ch = png_get_channels(j->png, j->info);
	int obd = png_get_bit_depth(j->png, j->info);
	if ((ch != 1 && ch != 3) || (obd != 8 && obd != 16)) {
		snprintf(j->why, sizeof j->why, "PNG: unexpected layout after conversion (%d channels, %d bits)", ch,
			 obd);
		return -1;
	}

	/* a grey, non-interlaced source kept in its precision (image.h):
	 * its samples as read, which the float path below would convert */
	int compact = j->compact && ch == 1 && !interlaced;
	/* every pixel is written below: by the rows, or by the seven passes */
	j->img = compact ? fs_image_new_compact((int)w, (int)h, obd) : fs_image_new_uninit((int)w, (int)h);
	j->row = malloc(png_get_rowbytes(j->png, j->info));
	if (!j->img || !j->row) {
		snprintf(j->why, sizeof j->why, "PNG: out of memory for %u x %u pixels", (unsigned)w, (unsigned)h);
		return -1;
	}
	if (compact) {
		for (png_uint_32 y = 0; y < h; y++) {
			png_read_row(j->png, j->row, NULL);
			if (obd == 8) {
				memcpy((unsigned char *)j->img->px + (size_t)y * w, j->row, w);
			} else {
				uint16_t *dst = (uint16_t *)j->img->px + (size_t)y * w;
				for (png_uint_32 x = 0; x < w; x++) /* PNG samples are big-endian */
					dst[x] = (uint16_t)(j->row[2 * x] << 8 | j->row[2 * x + 1]);
			}
		}
		/* the pixel size too: returning here lost it for every compact
		 * load (an upload's suggested calibration, fishscale measure) */
		read_phys(j, out);
		return 0;
	}
	/* The common case (8-bit, not interlaced) goes through lookup tables:
	 * the general loop below costs several calls per pixel. */
	if (!interlaced && obd == 8) {
		/* the same values as sample() and fs_luma() below, by table */
		float lut[256];
		for (int v = 0; v < 256; v++)
			lut[v] = (float)v / 255.0f;
		for (png_uint_32 y = 0; y < h; y++) {
			png_read_row(j->png, j->row, NULL);
			const unsigned char *src = j->row;
			float *dst = j->img->data + (size_t)y * w;
			if (ch == 1)
				for (png_uint_32 x = 0; x < w; x++)
					dst[x] = lut[src[x]];
			else
				for (png_uint_32 x = 0; x < w; x++)
					dst[x] = fs_luma(lut[src[3 * x]], lut[src[3 * x + 1]], lut[src[3 * x + 2]]);
		}
		interlaced = -1; /* done: skip the general loop */
	}
	for (int pass = 0; interlaced >= 0 && pass < (interlaced ? 7 : 1); pass++) {
		png_uint_32 rows = interlaced ? PNG_PASS_ROWS(h, pass) : h;
		png_uint_32 cols = interlaced ? PNG_PASS_COLS(w, pass) : w;
		if (rows == 0 || cols == 0)
			continue; /* libpng skips empty passes too */
		for (png_uint_32 r = 0; r < rows; r++) {
			png_read_row(j->png, j->row, NULL);
			png_uint_32 y = interlaced ? PNG_ROW_FROM_PASS_ROW(r, pass) : r;
			float *dst = j->img->data + (size_t)y * w;
			for (png_uint_32 c = 0; c < cols; c++) {
				png_uint_32 x = interlaced ? PNG_COL_FROM_PASS_COL(c, pass) : c;
				if (ch == 1)
					dst[x] = sample(j->row, c, obd);
				else
					dst[x] = fs_luma(sample(j->row, 3 * (size_t)c, obd),
							 sample(j->row, 3 * (size_t)c + 1, obd),
							 sample(j->row, 3 * (size_t)c + 2, obd));
			}
		}
	}

	read_phys(j, out);
	return 0;
}

int fs_png_load(const unsigned char *buf, size_t len, long max_pixels, int flags, fs_loaded *out,
		char *err, size_t errlen)
{
	png_job *j = calloc(1, sizeof *j);
	int rc = -1;

	if (!j) {
		fs_load_errf(err, errlen, "PNG: out of memory");
		return -1;
	}
	j->buf = buf;
	j->len = len;
	j->max_pixels = max_pixels;
	j->header_only = flags & FS_LOAD_HEADER_ONLY;
	j->compact = (flags & FS_LOAD_COMPACT) != 0;
	j->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, j->msg, fs_png_on_error, fs_png_on_warning);
	if (j->png)
		j->info = png_create_info_struct(j->png);
	if (!j->png || !j->info) {
		fs_load_errf(err, errlen, "PNG: out of memory");
		goto out;
	}
	rc = fs_load_hand_over(decode(j, out), "PNG", j->why, j->msg, &j->img, out, err, errlen);
out:
	if (j->png)
		png_destroy_read_struct(&j->png, j->info ? &j->info : NULL, NULL);
	fs_image_free(j->img);
	free(j->row);
	free(j);
	return rc;
}
