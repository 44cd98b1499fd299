/*
 * pyramid.h - the display pyramid of a large working image: 256-pixel JPEG
 * tiles at powers of two, so the browser opens a 100-megapixel image by
 * fetching the few tiles it shows instead of one full-size PNG.
 *
 * Layout: pyramid/<key>/<z>-<x>-<y>.jpg in the data directory, level z = 0
 * at full size, each next level half as wide and high (2 x 2 averages),
 * down to the first level that fits in one tile; tile (x, y) covers pixels
 * [256x, 256x + 256) x [256y, 256y + 256) of its level (edge tiles are
 * smaller). nginx serves the files (X-Accel-Redirect) after the
 * application's access check, like the display PNG.
 *
 * Only images whose larger side exceeds the minimum side (configuration
 * "tile_min_side", set once per process) get one; smaller images keep
 * their single display PNG. The whole directory appears at once: it is
 * written under a temporary name, synced and renamed.
 *
 * Memory: the image is the caller's (borrowed; float or compact, image.h:
 * a compact image's tiles are those of its float copy, byte for byte); the
 * writer holds one 256-row band at full size and the half-size level below
 * it. Errors: 0 or
 * -1 with a message in err.
 */
#ifndef FS_PYRAMID_H
#define FS_PYRAMID_H

#include <stddef.h>

#include "image/image.h"

#define FS_TILE_SIDE 256
#define FS_TILE_QUALITY 85
#define FS_TILE_MIN_SIDE_DEFAULT 4096

/* Process-wide setting from the configuration; side <= 0 = never. */
void fs_pyramid_set_min_side(int side);
int fs_pyramid_min_side(void);
/* 1 when a width x height image gets a pyramid. */
int fs_pyramid_wanted(int width, int height);
/* Number of levels of a width x height image's pyramid (>= 1). */
int fs_pyramid_levels(int width, int height);

int fs_pyramid_write(const char *data_dir, const char *key, const fs_image *img, char *err, size_t errlen);
/* 1 when the pyramid directory of key exists. */
int fs_pyramid_exists(const char *data_dir, const char *key);
/* Bytes of its tiles (0 when there is none). */
long long fs_pyramid_bytes(const char *data_dir, const char *key);
/* Bytes a width x height pyramid may take, at most (for a disk quota). */
long long fs_pyramid_estimate(int width, int height);
void fs_pyramid_remove(const char *data_dir, const char *key);
/* "pyramid/<key>" relative to the data directory, for X-Accel-Redirect. */
int fs_pyramid_reldir(const char *key, char *out, size_t outlen);

#endif
