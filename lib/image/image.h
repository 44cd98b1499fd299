/*
 * image.h - the float working image shared by loaders, analysis and rendering.
 *
 * A fs_image is a single-channel luminance image, row-major, values in [0, 1]
 * (16-bit sources keep their full precision: v / 65535, never clipped to 8 bits).
 * Ownership: fs_image_new() allocates; the caller frees with fs_image_free(),
 * which tolerates NULL. Functions that take a const fs_image * never keep it.
 */
#ifndef FS_IMAGE_H
#define FS_IMAGE_H

#include <stddef.h>

typedef struct fs_image {
	int width;
	int height;
	float *data; /* width * height samples, row-major, owned by the image */
} fs_image;

/* Allocates a zero-filled image; NULL on bad size or out of memory. */
fs_image *fs_image_new(int width, int height);
/* The same with undefined pixels, for callers that write every pixel (a
 * reused heap block would otherwise be cleared for nothing). */
fs_image *fs_image_new_uninit(int width, int height);
/* Deep copy; NULL on out of memory. */
fs_image *fs_image_clone(const fs_image *src);
void fs_image_free(fs_image *img);

/* The value at (x, y), pixel-centre coordinates, interpolated bilinearly
 * between the four nearest pixels; points outside are clamped to the edge. */
double fs_image_sample(const fs_image *img, double x, double y);

static inline float fs_image_at(const fs_image *img, int x, int y)
{
	return img->data[(size_t)y * (size_t)img->width + (size_t)x];
}

#endif
