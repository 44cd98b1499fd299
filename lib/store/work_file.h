/*
 * work_file.h - the working image on disk, kept compact: in the precision
 * of its source (8 or 16 bits a sample when the float values are exactly
 * k/255 or k/65535, 32-bit floats otherwise) and deflated in bands of rows.
 *
 * A 78 KB deflate TIFF of 10000 x 10000 8-bit pixels used to become a
 * 400 MB float file; it is now an 8-bit file of about the original's size.
 * The precision is chosen by looking at the values, so reading gives back
 * exactly the floats that were written (bit for bit): analysis results do
 * not depend on the file format.
 *
 * Layout (native byte order, like the older format):
 *   "FSW2", u32 width, u32 height, u32 bytes per sample (1, 2 or 4),
 *   u32 rows per band, then per band: u32 deflated length, deflated bytes
 *   (the band's samples row-major).
 * The older "FSW1" (u32 width, u32 height, raw floats) is still read.
 *
 * Memory: the reader holds the float image plus one band; the writer the
 * deflated file plus one band. Errors: 0/-1 or NULL with a message in err.
 * fs_work_file_read returns an image the caller frees with fs_image_free.
 */
#ifndef FS_WORK_FILE_H
#define FS_WORK_FILE_H

#include <stddef.h>

#include "image/image.h"

/* 1, 2 or 4: the bytes a sample of img takes without losing a bit. */
int fs_work_precision(const fs_image *img);

/* Writes img to path atomically (temporary name, fsync, rename). */
int fs_work_file_write(const char *path, const fs_image *img, char *err, size_t errlen);
fs_image *fs_work_file_read(const char *path, char *err, size_t errlen);
/* The same, but an 8- or 16-bit file gives a compact image (image.h: a
 * quarter or half of the float image's memory, the same values); a float
 * file a float image. For callers whose consumers accept compact images
 * (the extraction job). img given to fs_work_file_write may be compact too. */
fs_image *fs_work_file_read_compact(const char *path, char *err, size_t errlen);
/*
 * A reduced copy for showing a large image (overlay downloads): area
 * averages of f x f blocks, f the smallest integer that brings the larger
 * side to max_side or less (f = 1: the image itself); *scale (may be NULL)
 * = 1 / f, its pixels per working-image pixel. Memory: the reduced image,
 * one band and one row of sums, never the full image.
 */
fs_image *fs_work_file_read_reduced(const char *path, int max_side, double *scale, char *err, size_t errlen);
/* Width, height and bytes per sample from the header alone (4 for FSW1). */
int fs_work_file_info(const char *path, int *width, int *height, int *bytes_per_sample, char *err,
		      size_t errlen);

#endif
