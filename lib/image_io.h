/*
 * image_io.h - loading TIFF, PNG and JPEG files into the float working image,
 * and writing 8-bit PNGs (display copies, thumbnails).
 *
 * Untrusted input: dimensions and sample layout are checked before any pixel
 * buffer is allocated; libtiff/libpng/libjpeg errors are caught by our own
 * handlers (nothing printed, nothing exits) and returned as a message.
 *
 * Luminance: grey = 0.299 R + 0.587 G + 0.114 B (ITU-R BT.601), computed in
 * float from samples scaled to [0, 1]; alpha is ignored; palette entries are
 * looked up first; min-is-white is inverted. 16-bit samples are scaled by
 * 1/65535 (full precision, never clipped), 32-bit integers by 1/4294967295,
 * 32-bit floats are min-max normalised to [0, 1].
 *
 * Calibration: suggested_um_per_px comes, in this order, from vendor SEM
 * metadata in TIFF tags (Zeiss 34118 "Image Pixel Size = 12.3 nm", FEI/Thermo
 * 34682 "[Scan] PixelWidth=1.2e-08" in metres), then from resolution tags
 * (TIFF XResolution + ResolutionUnit, PNG pHYs, JPEG JFIF density). A
 * resolution only counts when it gives less than 10 µm per pixel: 72, 96 or
 * 300 dpi (353, 265, 85 µm) are screen/print settings, never an SEM pixel
 * (see sem_metadata.h). It is a suggestion; the caller decides.
 *
 * Limits: max_pixels is checked before any pixel buffer is allocated;
 * fs_load_file also refuses files larger than 32 bytes per allowed pixel
 * (+ 2 MB of headers), and libtiff's single allocations are capped.
 * libtiff's process-wide error/warning handlers are switched off on first
 * use (every handle gets its own through TIFFOpenOptions).
 */
#ifndef FS_IMAGE_IO_H
#define FS_IMAGE_IO_H

#include <stddef.h>
#include <stdint.h>

#include "image.h"

typedef enum fs_format {
	FS_FORMAT_UNKNOWN = 0,
	FS_FORMAT_TIFF,
	FS_FORMAT_PNG,
	FS_FORMAT_JPEG
} fs_format;

typedef struct fs_load_opts {
	long max_pixels; /* refuse width*height above this (checked before allocation); 0 = 100 M */
	int page;        /* TIFF page (directory), 0 = first */
} fs_load_opts;

typedef struct fs_loaded {
	fs_image *image;        /* owned: free with fs_loaded_free */
	fs_format format;
	int bit_depth;          /* bits per sample of the source: 1, 2, 4, 8, 16, 32, 64 */
	int channels;           /* samples per pixel of the source (1 grey, 3 RGB, 4 RGBA; palette = 1) */
	int is_float;           /* source samples were IEEE floats */
	int n_pages;            /* TIFF directories; 1 for PNG and JPEG */
	double suggested_um_per_px; /* from resolution tags or SEM metadata; 0 = none */
	char calibration_source[64]; /* "sem-metadata-zeiss", "sem-metadata-fei", "tiff-resolution",
				      * "png-phys", "jpeg-density"; "" = none */
} fs_loaded;

/* Guesses the format from the first bytes (magic numbers). */
fs_format fs_format_sniff(const unsigned char *buf, size_t len);
const char *fs_format_name(fs_format f); /* "tiff", "png", "jpeg", "unknown" */

/*
 * Loads an image file or an in-memory buffer. Returns 0 and fills *out, or -1
 * with a human-readable message in err (truncated, corrupt, unsupported
 * layout, too many pixels, ...). On failure *out holds nothing to free.
 */
int fs_load_file(const char *path, const fs_load_opts *opts, fs_loaded *out, char *err, size_t errlen);
int fs_load_memory(const unsigned char *buf, size_t len, const fs_load_opts *opts, fs_loaded *out,
		   char *err, size_t errlen);
void fs_loaded_free(fs_loaded *l); /* tolerates NULL and a zeroed struct */

/*
 * Writes an 8-bit greyscale PNG of img (values clamped to [0, 1], rounded) to
 * path, or RGB when rgb is non-NULL (3 bytes per pixel, width*height*3).
 * Returns 0 or -1 with a message.
 */
int fs_png_write_gray(const char *path, const fs_image *img, char *err, size_t errlen);
int fs_png_write_rgb(const char *path, const unsigned char *rgb, int width, int height, char *err,
		     size_t errlen);
/* Same, into a malloc'ed buffer (*out, *out_len; caller frees *out). */
int fs_png_encode_rgb(const unsigned char *rgb, int width, int height, unsigned char **out,
		      size_t *out_len, char *err, size_t errlen);

/* Area-averaging downscale so that neither side exceeds max_side (returns a
 * new image; a copy when already small enough). NULL on out of memory. */
fs_image *fs_image_downscale(const fs_image *img, int max_side);

/* Same as fs_png_write_gray, into a malloc'ed buffer (caller frees *out). */
int fs_png_encode_gray(const fs_image *img, unsigned char **out, size_t *out_len, char *err,
		       size_t errlen);

/*
 * Below: the plumbing shared by image_io.c and lib/load_*.c. Other modules
 * call fs_load_file / fs_load_memory instead.
 *
 * Each format loader reads buf (borrowed, never kept), checks the size against
 * max_pixels (> 0) before allocating, and on success fills out->image (owned
 * by out), format, bit_depth, channels, is_float, n_pages and, when the file
 * carries a plausible one, suggested_um_per_px + calibration_source.
 */
int fs_tiff_load(const unsigned char *buf, size_t len, long max_pixels, int page, fs_loaded *out,
		 char *err, size_t errlen);
int fs_png_load(const unsigned char *buf, size_t len, long max_pixels, fs_loaded *out, char *err,
		size_t errlen);
int fs_jpeg_load(const unsigned char *buf, size_t len, long max_pixels, fs_loaded *out, char *err,
		 size_t errlen);

/* snprintf into err (when err and errlen are usable); never prints. */
void fs_load_errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* 0 when width x height is a valid, allowed image size; -1 with a message. */
int fs_load_check_size(long long width, long long height, long max_pixels, char *err, size_t errlen);
/* The BT.601 weights above, clamped to [0, 1] so white stays exactly 1. */
/* Inline: the loaders call it once per pixel. */
static inline float fs_luma(float r, float g, float b)
{
	float v = 0.299f * r + 0.587f * g + 0.114f * b;
	if (v < 0.0f)
		return 0.0f;
	if (v > 1.0f)
		return 1.0f;
	return v;
}
/* Min-max normalises img to [0, 1] in place; non-finite samples become 0. */
void fs_image_normalise(fs_image *img);

#endif
