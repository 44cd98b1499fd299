/* image.c - allocation of the float working image (see image.h). */
#include "image/image.h"
#include "base/heap_policy.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

fs_image *fs_image_new_uninit(int width, int height)
{
	if (width <= 0 || height <= 0)
		return NULL;
	if ((size_t)width > SIZE_MAX / sizeof(float) / (size_t)height)
		return NULL;
	fs_image *img = malloc(sizeof *img);
	if (!img)
		return NULL;
	img->width = width;
	img->height = height;
	img->data = malloc((size_t)width * (size_t)height * sizeof(float));
	if (!img->data) {
		free(img);
		return NULL;
	}
	/* every pixel is written next: its pages mapped in one call */
	fs_heap_prefault(img->data, (size_t)width * (size_t)height * sizeof(float));
	return img;
}

fs_image *fs_image_new(int width, int height)
{
	fs_image *img = fs_image_new_uninit(width, height);
	if (img)
		memset(img->data, 0, (size_t)width * (size_t)height * sizeof(float));
	return img;
}

fs_image *fs_image_clone(const fs_image *src)
{
	if (!src)
		return NULL;
	fs_image *img = fs_image_new_uninit(src->width, src->height);
	if (!img)
		return NULL;
	memcpy(img->data, src->data,
	       (size_t)src->width * (size_t)src->height * sizeof(float));
	return img;
}

void fs_image_free(fs_image *img)
{
	if (!img)
		return;
	free(img->data);
	free(img);
}

double fs_image_sample(const fs_image *img, double x, double y)
{
	int w = img->width, h = img->height;
	if (x < 0)
		x = 0;
	if (y < 0)
		y = 0;
	if (x > w - 1)
		x = w - 1;
	if (y > h - 1)
		y = h - 1;
	int x0 = (int)x, y0 = (int)y;
	int x1 = x0 + 1 < w ? x0 + 1 : x0, y1 = y0 + 1 < h ? y0 + 1 : y0;
	double fx = x - x0, fy = y - y0;
	const float *d = img->data;
	double a = d[(size_t)y0 * w + x0] * (1 - fx) + d[(size_t)y0 * w + x1] * fx;
	double b = d[(size_t)y1 * w + x0] * (1 - fx) + d[(size_t)y1 * w + x1] * fx;
	return a * (1 - fy) + b * fy;
}
