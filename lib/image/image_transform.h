/*
 * image_transform.h - rotate by 90 degrees, crop and autocrop the working
 * image, and map point coordinates through those transforms.
 *
 * Each transform returns a new image (caller frees with fs_image_free) and
 * never keeps or changes its input. Coordinates are pixel indices with the
 * origin at the top-left pixel centre, x to the right, y down, so a point
 * maps exactly like the pixel under it (sub-pixel values are fine).
 *
 * Rotate left = 90 degrees counter-clockwise: (x, y) -> (y, W-1-x);
 * rotate right = clockwise: (x, y) -> (H-1-y, x), W x H the source size.
 * Crop by rectangle r: (x, y) -> (x - r.x, y - r.y).
 */
#ifndef FS_IMAGE_TRANSFORM_H
#define FS_IMAGE_TRANSFORM_H

#include <stddef.h>

#include "image/image.h"

typedef struct fs_rect {
	int x, y;          /* top-left, pixels */
	int width, height;
} fs_rect;

typedef enum fs_transform_kind {
	FS_TRANSFORM_ROTATE_LEFT = 0,
	FS_TRANSFORM_ROTATE_RIGHT,
	FS_TRANSFORM_CROP
} fs_transform_kind;

/* A transform as applied: enough to move coordinates forwards or back. */
typedef struct fs_transform {
	fs_transform_kind kind;
	int src_width, src_height; /* size of the image it was applied to */
	fs_rect rect;              /* crop: the applied rectangle; rotations: 0,0,new w,new h */
} fs_transform;

/* New rotated image; *applied (may be NULL) describes it. NULL with a message. */
fs_image *fs_image_rotate(const fs_image *img, fs_transform_kind dir, fs_transform *applied, char *err,
			  size_t errlen);

/*
 * Crops to want clamped to the image. NULL with a message when the clamped
 * rectangle is empty. *applied (may be NULL) gets the clamped rectangle.
 */
fs_image *fs_image_crop(const fs_image *img, fs_rect want, fs_transform *applied, char *err, size_t errlen);

/*
 * Autocrop detection, as the original tool: on 8-bit values (round(v*255)), a
 * row or column is content when the population variance of its values is
 * > FS_AUTOCROP_MIN_VARIANCE. The crop keeps the first to last content row
 * and column, padded by FS_AUTOCROP_PAD pixels and clamped to the image.
 * Returns 0 and *rect when that changes the image, 1 ("nothing to crop",
 * message in err) when it would not or no row has content, -1 on bad input.
 */
#define FS_AUTOCROP_MIN_VARIANCE 10.0
#define FS_AUTOCROP_PAD 5
int fs_image_autocrop_detect(const fs_image *img, fs_rect *rect, char *err, size_t errlen);

/* Moves a point forwards through t (into the transformed image) or back. */
void fs_transform_point(const fs_transform *t, double x, double y, double *out_x, double *out_y);
void fs_transform_point_inverse(const fs_transform *t, double x, double y, double *out_x, double *out_y);

#endif
