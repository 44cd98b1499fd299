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
 * Limits (decompression bombs): max_pixels is checked from the header before
 * any pixel buffer is allocated, for the page asked for; a decoder's block
 * buffer (TIFF tile, strip, row) is capped in bytes (FS_LOAD_BLOCK_MAX_BYTES:
 * huge single strips are read row by row, huge tiles refused);
 * fs_load_file also refuses files larger than 32 bytes per allowed pixel
 * (+ 2 MB of headers), and libtiff's single allocations are capped.
 * libtiff's process-wide error/warning handlers are switched off on first
 * use (every handle gets its own through TIFFOpenOptions).
 */
#ifndef FS_IMAGE_IO_H
#define FS_IMAGE_IO_H

#include <stddef.h>
#include <stdint.h>

#include "image/image.h"
#include "image/loader.h"

typedef struct fs_load_opts {
	long max_pixels; /* refuse width*height above this (checked before allocation); 0 = 100 M */
	int page;        /* TIFF page (directory), 0 = first */
	int compact;     /* 1: an 8- or 16-bit grey source gives a compact image (image.h, loader.h);
			  * only for callers whose consumers all accept one */
} fs_load_opts;

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
/*
 * The same checks without decoding: reads the headers only and fills *out
 * (width, height, bit depth, channels, pages, format) with out->image NULL.
 * A file the probe accepts may still fail to decode; one it refuses (too many
 * pixels, a decompression bomb) is refused without a pixel buffer.
 * fs_probe_file maps the file instead of reading it, so only the pages its
 * headers lie on are read (a few kB, not the whole file): for files nothing
 * truncates while it runs (the server's own uploads).
 */
int fs_probe_file(const char *path, const fs_load_opts *opts, fs_loaded *out, char *err, size_t errlen);
int fs_probe_memory(const unsigned char *buf, size_t len, const fs_load_opts *opts, fs_loaded *out,
		    char *err, size_t errlen);

/*
 * Writes an 8-bit greyscale PNG of img (values clamped to [0, 1], rounded) to
 * path, or RGB when rgb is non-NULL (3 bytes per pixel, width*height*3).
 * img may be compact (image.h): its rows are converted one at a time, the
 * same bytes as from its float copy. Returns 0 or -1 with a message.
 */
int fs_png_write_gray(const char *path, const fs_image *img, char *err, size_t errlen);
int fs_png_write_rgb(const char *path, const unsigned char *rgb, int width, int height, char *err,
		     size_t errlen);
/* Same, into a malloc'ed buffer (*out, *out_len; caller frees *out). */
int fs_png_encode_rgb(const unsigned char *rgb, int width, int height, unsigned char **out,
		      size_t *out_len, char *err, size_t errlen);

/* Area-averaging downscale so that neither side exceeds max_side (returns a
 * new float image; a float copy when already small enough). img may be
 * compact (image.h): read a row at a time, the same values as from its
 * float copy; memory is the result and a few rows. NULL on out of memory. */
fs_image *fs_image_downscale(const fs_image *img, int max_side);

/* 8-bit grey samples (height rows of width bytes, stride bytes apart) as a
 * baseline JPEG of the given quality, into a malloc'ed buffer (caller frees
 * *out). Returns 0 or -1 with a message; nothing is printed. */
int fs_jpeg_encode_gray8(const unsigned char *px, int width, int height, size_t stride, int quality,
			 unsigned char **out, size_t *out_len, char *err, size_t errlen);

/* Same as fs_png_write_gray, into a malloc'ed buffer (caller frees *out). */
int fs_png_encode_gray(const fs_image *img, unsigned char **out, size_t *out_len, char *err,
		       size_t errlen);

#endif
