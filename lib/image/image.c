/* image.c - allocation of the float working image (see image.h). */
#include "image/image.h"

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
