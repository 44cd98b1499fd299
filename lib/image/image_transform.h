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
 *
 * A transform is recorded (fs_transform) with the size of the image it was
 * applied to, so a chain of them can be replayed or mapped back later.
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

/*
 * A chain of transforms as one map.
 *
 * An image's transforms are a list of steps, oldest first (the image
 * store keeps them in images.transforms; see images_store.h for which of
 * them can still be undone). Every step turns by a quarter or moves the
 * origin, so any run of steps is one map
 *     x' = ax * x + bx * y + cx,   y' = ay * x + by * y + cy
 * with ax, bx, ay, by in {-1, 0, 1} and whole-number cx, cy, plus the
 * number of left quarter turns (for angles). Data that must survive undo
 * (tubercles, a scale-bar region) is stored in the frame before the first
 * step and shown through the map of the steps after it; storing it never
 * goes through the inverse, so undoing a step gives it back bit for bit.
 *
 * Points are mapped by fs_affine_apply only: it evaluates the same
 * expression, in the same order, as the SQL in sets_store.c, so a
 * visibility test in C and in SQL agree to the last bit.
 */
typedef struct fs_affine {
	double ax, bx, cx;
	double ay, by, cy;
	int quarter_turns_left; /* 0..3 */
} fs_affine;

void fs_affine_identity(fs_affine *a);
/* The map of one step. */
void fs_affine_of(const fs_transform *t, fs_affine *a);
/* a becomes "a, then next". */
void fs_affine_then(fs_affine *a, const fs_affine *next);
/* The map of steps[from .. to) (identity when from >= to). */
void fs_affine_of_steps(const fs_transform *steps, size_t from, size_t to, fs_affine *a);
void fs_affine_invert(const fs_affine *a, fs_affine *inv);
void fs_affine_apply(const fs_affine *a, double x, double y, double *out_x, double *out_y);
/* An ellipse's orientation (radians, y down, in (-pi/2, pi/2]) through a. */
double fs_affine_angle(const fs_affine *a, double orientation);
int fs_affine_is_identity(const fs_affine *a);

#endif
