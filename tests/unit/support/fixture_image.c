/*
 * fixture_image.c - a fixture file's pixels (see fixture_image.h).
 */
#include "fixture_image.h"

#include <stdio.h>

#include "image/image_io.h"

fs_image *fixture_image(const char *path)
{
	fs_loaded L;
	char err[256];
	if (fs_load_file(path, NULL, &L, err, sizeof err)) {
		fprintf(stderr, "%s: %s\n", path, err);
		return NULL;
	}
	fs_image *img = L.image; /* taken from L, which frees the rest */
	L.image = NULL;
	fs_loaded_free(&L);
	return img;
}
