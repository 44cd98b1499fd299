/*
 * detect_limits.c - which image sizes each detection method can take (see
 * detect.h).
 *
 * Tile by tile every method's memory depends on the tile, not the image
 * (auto and lattice: 2.5 bytes a pixel on the 100 MP synthetic SEM image;
 * log, dog and ellipse: the compact image, an eighth of a byte a pixel of
 * ellipse's mask, and the tiles'
 * layers). The whole-image path of log, dog and ellipse (tiling off) keeps
 * several full-size float scale layers: bytes per pixel measured with
 * `fishscale measure --tile 0` (peak RSS over the image's own bytes) on the
 * 1280 x 960 SEM fixture at 0.1 um/px: log 59, dog 50, ellipse 27; dog's
 * layer count grows with the diameter range (up to 16 blurred images and
 * 16 differences, 132 bytes a pixel). Only that path has a limit.
 */
#include "analysis/detect.h"

#include <stdio.h>

static int layered(fs_method m)
{
	return m == FS_METHOD_LOG || m == FS_METHOD_DOG || m == FS_METHOD_ELLIPSE;
}

long long fs_detect_max_pixels(fs_method m)
{
	int tile;
	fs_detect_get_tiling(&tile, NULL);
	return layered(m) && tile == 0 ? FS_DETECT_UNTILED_MAX_PIXELS : 0;
}

int fs_detect_check_size(fs_method m, long long width, long long height, char *err, size_t errlen)
{
	long long px = width * height, max = fs_detect_max_pixels(m);
	if (max > 0 && px > max) {
		snprintf(err, errlen,
			 "method %s on the whole image at once (tiling off) keeps several full-size scale layers: it "
			 "takes images up to %.0f megapixels (this one has %.1f); detect tile by tile (the default) "
			 "or crop the image",
			 fs_method_name(m), max / 1e6, px / 1e6);
		return -1;
	}
	return 0;
}
