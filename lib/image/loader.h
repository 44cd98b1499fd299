/*
 * loader.h - what the format loaders (load_tiff.c, load_png.c, load_jpeg.c)
 * share: the loaded-image record they fill, size checks made before any
 * pixel buffer is allocated, error messages, luminance. image_io.c
 * dispatches to them; other modules call fs_load_file / fs_load_memory
 * (image_io.h) instead.
 */
#ifndef FS_LOADER_H
#define FS_LOADER_H

#include <stddef.h>
#include <stdint.h>

#include "image/image.h"

typedef enum fs_format {
	FS_FORMAT_UNKNOWN = 0,
	FS_FORMAT_TIFF,
	FS_FORMAT_PNG,
	FS_FORMAT_JPEG
} fs_format;

typedef struct fs_loaded {
	fs_image *image;        /* owned: free with fs_loaded_free; NULL after a header-only probe;
				 * compact (image.h) only when FS_LOAD_COMPACT was asked for */
	int width, height;      /* of the loaded page (also filled by a probe) */
	fs_format format;
	int bit_depth;          /* bits per sample of the source: 1, 2, 4, 8, 16, 32, 64 */
	int channels;           /* samples per pixel of the source (1 grey, 3 RGB, 4 RGBA; palette = 1) */
	int is_float;           /* source samples were IEEE floats */
	int n_pages;            /* TIFF directories; 1 for PNG and JPEG */
	int compact_bits;       /* 8 or 16: the compact image FS_LOAD_COMPACT gives (image.h); 0 = it
				 * gives floats. Filled by a probe too: memory estimates before decoding */
	double suggested_um_per_px; /* from resolution tags or SEM metadata; 0 = none */
	char calibration_source[64]; /* "sem-metadata-zeiss", "sem-metadata-fei", "tiff-resolution",
				      * "png-phys", "jpeg-density"; "" = none */
} fs_loaded;

void fs_loaded_free(fs_loaded *l); /* tolerates NULL and a zeroed struct */

/* The loaders' flags. HEADER_ONLY: the loader stops after the size checks,
 * out gets everything but the image (the probe behind fs_probe_file).
 * COMPACT: an unsigned 8- or 16-bit grey source (min-is-black, no palette)
 * is loaded into a compact image (image.h) of its own precision; any other
 * layout still gives a float image. */
#define FS_LOAD_HEADER_ONLY 1
#define FS_LOAD_COMPACT 2

/*
 * Each format loader reads buf (borrowed, never kept), checks the size against
 * max_pixels (> 0) before allocating, and on success fills out->image (owned
 * by out), format, bit_depth, channels, is_float, n_pages and, when the file
 * carries a plausible one, suggested_um_per_px + calibration_source.
 * flags: FS_LOAD_* above.
 */
int fs_tiff_load(const unsigned char *buf, size_t len, long max_pixels, int page, int flags,
		 fs_loaded *out, char *err, size_t errlen);
/* The same from an open file of len bytes read by pread (fd borrowed, its
 * offset unused): only what libtiff asks for is read. */
int fs_tiff_load_fd(int fd, size_t len, long max_pixels, int page, int flags, fs_loaded *out, char *err,
		    size_t errlen);
int fs_png_load(const unsigned char *buf, size_t len, long max_pixels, int flags, fs_loaded *out,
		char *err, size_t errlen);
int fs_jpeg_load(const unsigned char *buf, size_t len, long max_pixels, int flags, fs_loaded *out,
		 char *err, size_t errlen);

/*
 * Decompression bombs: a decoder's working buffer (a TIFF tile or strip, a
 * row) never exceeds this many bytes, whatever the header claims; larger
 * blocks are read row by row or refused. The decoded image itself is
 * checked by fs_load_check_size (pixels, and so its float bytes) before it
 * is allocated.
 */
#define FS_LOAD_BLOCK_MAX_BYTES ((uint64_t)64 * 1024 * 1024)

/* snprintf into err (when err and errlen are usable); never prints. */
void fs_load_errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A one-page loader's last step (PNG, JPEG), decoded = 0 when its decode
 * succeeded: the decoded image moves from *img to out (*img NULL after;
 * NULL after a header-only probe) with one page, and 0 is returned; else
 * -1 with err saying why: the loader's own words when why is set, else
 * the library's message (or "cannot decode") after the format's name. */
int fs_load_hand_over(int decoded, const char *format, const char *why, const char *msg, fs_image **img,
		      fs_loaded *out, char *err, size_t errlen);

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
