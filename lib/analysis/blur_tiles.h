/*
 * blur_tiles.h - a Gaussian-blurred image read around points, made one
 * tile at a time when the image is large (issue 15: an agent session must
 * not hold a full-size float copy of a 100 MP montage to measure a few
 * thousand points).
 *
 * An image of at most whole_max pixels is blurred whole, once (the same
 * image fs_gaussian_blurred makes, origin 0, 0). A larger one is cut into
 * a grid of square cores; a point's tile is its core widened by the halo
 * on every side, blurred from a crop of the source that is wider still by
 * one pixel and the kernel's radius, so every pixel of the tile within the halo of its
 * core has exactly the value of the whole image's blur (the blur is
 * separable with a clamped border and sums the taps in one order whatever
 * the crop). A row of tiles and one more are kept, at least 4 and at most
 * FS_BLUR_TILES_KEEP_MAX (least recently used goes first): points visited
 * in raster order (a set's tubercles) blur each tile about once, and
 * memory follows the tiles, not the image (a 10000 px wide image: 21
 * tiles of about 2 MB at a pitch of 37 px).
 *
 * The source may be float or compact (image.h); it is borrowed and must
 * outlive the fs_blur_tiles. The image fs_blur_tiles_at returns belongs to
 * the fs_blur_tiles and stays valid until the next call to it or free.
 * Errors: NULL with a message in err.
 */
#ifndef FS_BLUR_TILES_H
#define FS_BLUR_TILES_H

#include <stddef.h>

#include "image/image.h"

#define FS_BLUR_TILES_KEEP_MAX 32
/* Up to this many pixels the image is blurred whole (32 MB of floats):
 * the paper figures and ordinary frames keep the whole-image blur. */
#define FS_BLUR_TILES_WHOLE_MAX (8LL * 1000 * 1000)
/* A core's side at least (a larger halo makes it 4 x the halo): the halo
 * then adds at most 2.25 x its pixels to the blur's work. */
#define FS_BLUR_TILES_CORE 512

typedef struct fs_blur_tiles fs_blur_tiles;

/* sigma >= 0 as fs_gaussian_blur; halo >= 0: how far from a point its
 * reader may read; whole_max <= 0 takes FS_BLUR_TILES_WHOLE_MAX. */
fs_blur_tiles *fs_blur_tiles_new(const fs_image *src, double sigma, int halo, long long whole_max, char *err,
				 size_t errlen);

/*
 * The blurred image around (x, y) (inside src): a float image whose pixel
 * (i, j) is the blurred source's pixel (*ox + i, *oy + j) and that holds
 * every pixel within the halo of (x, y) and the next one (a bilinear
 * sample's), clipped to src. NULL when the
 * point lies outside src or on out of memory.
 */
const fs_image *fs_blur_tiles_at(fs_blur_tiles *bt, double x, double y, int *ox, int *oy, char *err,
				 size_t errlen);

/* The index of (x, y)'s tile (row by row; 0 when blurred whole): callers
 * with many points visit them in this order. */
long fs_blur_tiles_index(const fs_blur_tiles *bt, double x, double y);
/* 1 when the image is blurred whole (one tile at origin 0, 0). */
int fs_blur_tiles_whole(const fs_blur_tiles *bt);
/* Bytes of blurred pixels held now, tiles blurred so far and tiles kept at
 * most (tests, logs). */
size_t fs_blur_tiles_bytes(const fs_blur_tiles *bt);
int fs_blur_tiles_keep(const fs_blur_tiles *bt);
size_t fs_blur_tiles_made(const fs_blur_tiles *bt);

void fs_blur_tiles_free(fs_blur_tiles *bt);

#endif
