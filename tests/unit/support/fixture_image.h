/*
 * fixture_image.h - an image file of tests/fixtures as one fs_image, for
 * the tests that read the paper figures or the SEM image and need only
 * the pixels (test_databar.c, test_databar_read.c, test_scale_region.c).
 *
 * Ownership: the image returned is the caller's (fs_image_free); the
 * path is only read. fixture_paper_each keeps each image only for fn's
 * call.
 */
#ifndef FIXTURE_IMAGE_H
#define FIXTURE_IMAGE_H

#include "image/image.h"

/* The image, or NULL after printing the loader's message on stderr. */
fs_image *fixture_image(const char *path);
/* The same, compact (image.h) when the file is 8- or 16-bit grey. */
fs_image *fixture_image_compact(const char *path);
/* The fixture as the 8-bit grey image an SEM writes, compact: as loaded
 * when the file is 8-bit grey, else its luminance rounded to 8 bits (the
 * paper figures are scans stored as colour). */
fs_image *fixture_image_8bit(const char *path);
/* Every .tif figure in tests/fixtures/paper/ loaded (fixture_image) and
 * handed to fn with its file name, then freed: the data-bar tests' "no
 * paper figure has one" loops (test_databar.c, test_databar_read.c).
 * Returns how many were handed over; -1 when the folder does not open or
 * a figure does not load. */
int fixture_paper_each(void (*fn)(const char *name, const fs_image *img, void *ctx), void *ctx);

#endif
