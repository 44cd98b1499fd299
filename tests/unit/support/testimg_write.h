/*
 * testimg_write.h - test helpers that WRITE image files (TIFF through libtiff,
 * PNG through libpng, JPEG through libjpeg) with a known pixel pattern, so
 * loader tests can compare against exact expected values.
 *
 * Every function returns 0, or -1 on failure (nothing printed beyond what the
 * libraries print themselves). Paths are the caller's; nothing is kept.
 *
 * Pattern: fs_testimg_sample() gives the raw value stored for sample c of
 * pixel (x, y) on a page: an integer in [0, 2^bits - 1] (as a double) for
 * integer layouts, or a float that can be negative for float layouts. With
 * smooth = 1 it is a gentle diagonal ramp instead (for lossy JPEG).
 * Page p of a multi-page TIFF is (width + p) pixels wide, so a test can tell
 * pages apart by size alone.
 */
#ifndef FS_TESTIMG_WRITE_H
#define FS_TESTIMG_WRITE_H

#include <stddef.h>

typedef struct fs_testimg_tiff {
	int width, height;
	int bps;             /* 1, 2, 4, 8, 16, 32, 64 */
	int spp;             /* samples per pixel; 0 = 1 */
	int sample_format;   /* SAMPLEFORMAT_*; 0 = unsigned integer */
	int photometric;     /* PHOTOMETRIC_* (0 is min-is-white, so say it explicitly) */
	int compression;     /* COMPRESSION_*; 0 = none */
	int planar_separate; /* 1 = one plane per sample */
	int tile;            /* tile side (multiple of 16); 0 = strips */
	int rows_per_strip;  /* 0 = 16 */
	int pages;           /* 0 = 1 */
	int smooth;          /* 1 = ramp pattern */
	int jpeg_quality;    /* 0 = 95 */
	double xres;         /* 0 = no resolution tags */
	int resunit;         /* RESUNIT_*, with xres */
	const char *zeiss_text; /* tag 34118, NULL = absent */
	const char *fei_text;   /* tag 34682, NULL = absent */
	int cmap8;           /* 1 = old-style colour map with 8-bit values (entry >> 8) */
	int big_endian;      /* 1 = "MM" byte order */
	int zip_level;       /* deflate's level 1-9 (TIFFTAG_ZIPQUALITY); 0 = libtiff's default (6) */
} fs_testimg_tiff;

typedef struct fs_testimg_png {
	int width, height;
	int bit_depth;  /* 1, 2, 4, 8, 16 */
	int color_type; /* PNG_COLOR_TYPE_* */
	int interlace;  /* 1 = Adam7 */
	int trns;       /* 1 = add a tRNS chunk (palette, grey or RGB) */
	unsigned phys_ppm; /* pixels per metre in pHYs; 0 = no chunk */
	int smooth;
} fs_testimg_png;

typedef struct fs_testimg_jpeg {
	int width, height;
	int components;  /* 1 grey, 3 RGB (stored YCbCr), 4 CMYK */
	int quality;     /* 0 = 95 */
	int progressive;
	int density_dpi; /* 0 = JFIF default (1:1 aspect, no unit) */
} fs_testimg_jpeg;

double fs_testimg_sample(int bits, int is_float, int smooth, int x, int y, int c, int page);
/* Palette entry i, channel c (0 R, 1 G, 2 B), 16-bit scale. */
unsigned fs_testimg_palette(unsigned i, int c);

int fs_testimg_write_tiff(const char *path, const fs_testimg_tiff *spec);
int fs_testimg_write_png(const char *path, const fs_testimg_png *spec);
int fs_testimg_write_jpeg(const char *path, const fs_testimg_jpeg *spec);

/* Reads a whole file into a malloc'ed buffer (caller frees). */
int fs_testimg_read(const char *path, unsigned char **buf, size_t *len);
int fs_testimg_write_bytes(const char *path, const unsigned char *buf, size_t len);
/* A fresh directory under $TMPDIR or /tmp (dir needs 64 bytes), and its removal
 * with all it holds (test_rm_tree). */
int fs_testimg_tmpdir(char *dir, size_t dirlen);
void fs_testimg_rmdir(const char *dir);
/* A test group's temporary directory (cmocka group setup/teardown: made
 * and removed with its files), and the path of a file in it (a static
 * buffer, valid until the next call). */
int fs_testimg_dir_setup(void **state);
int fs_testimg_dir_teardown(void **state);
const char *fs_testimg_dir(void);
const char *fs_testimg_path(const char *name);

#endif
