/*
 * fixture_image.c - a fixture file's pixels (see fixture_image.h).
 */
#include "fixture_image.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image/image_io.h"

static fs_image *load(const char *path, int compact)
{
	fs_loaded L;
	char err[256];
	fs_load_opts o = {.compact = compact};
	if (fs_load_file(path, &o, &L, err, sizeof err)) {
		fprintf(stderr, "%s: %s\n", path, err);
		return NULL;
	}
	fs_image *img = L.image; /* taken from L, which frees the rest */
	L.image = NULL;
	fs_loaded_free(&L);
	return img;
}

fs_image *fixture_image(const char *path)
{
	return load(path, 0);
}

fs_image *fixture_image_compact(const char *path)
{
	return load(path, 1);
}

fs_image *fixture_image_8bit(const char *path)
{
	fs_image *img = load(path, 1);
	if (!img || img->bits == 8)
		return img;
	fs_image *c = fs_image_new_compact(img->width, img->height, 8);
	float *buf = malloc((size_t)img->width * sizeof *buf);
	for (int y = 0; c && buf && y < img->height; y++) {
		const float *row = fs_image_span(img, 0, y, img->width, buf);
		for (int x = 0; x < img->width; x++)
			((unsigned char *)c->px)[(size_t)y * img->width + x] = (unsigned char)(row[x] * 255.0f + 0.5f);
	}
	if (!buf) {
		fs_image_free(c);
		c = NULL;
	}
	free(buf);
	fs_image_free(img);
	return c;
}

int fixture_paper_each(void (*fn)(const char *name, const fs_image *img, void *ctx), void *ctx)
{
	static const char dir[] = "tests/fixtures/paper/";
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int n = 0;
	for (struct dirent *e; (e = readdir(d));) {
		size_t len = strlen(e->d_name);
		if (len < 5 || strcmp(e->d_name + len - 4, ".tif"))
			continue;
		char path[512];
		snprintf(path, sizeof path, "%s%s", dir, e->d_name);
		fs_image *img = fixture_image(path);
		if (!img) {
			n = -1;
			break;
		}
		fn(e->d_name, img, ctx);
		fs_image_free(img);
		n++;
	}
	closedir(d);
	return n;
}
