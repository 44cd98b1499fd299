/*
 * detect_limits.c - which image sizes each detection method can take (see
 * detect.h).
 *
 * Bytes per pixel measured with `fishscale measure` (peak RSS over the
 * image's own bytes) on the 1280 x 960 SEM fixture at 0.1 um/px: log 59,
 * dog 50, ellipse 27; dog's layer count grows with the diameter range (up
 * to 16 blurred images and 16 differences, 132 bytes a pixel). auto and
 * lattice: 2.5 bytes a pixel on the 100 MP synthetic SEM image (detection
 * on a reduced image, measurement in tiles).
 */
#include "analysis/detect.h"

#include <stdio.h>

static int untiled(fs_method m)
{
	return m == FS_METHOD_LOG || m == FS_METHOD_DOG || m == FS_METHOD_ELLIPSE;
}

long long fs_detect_max_pixels(fs_method m)
{
	return untiled(m) ? FS_DETECT_UNTILED_MAX_PIXELS : 0;
}

int fs_detect_check_size(fs_method m, long long width, long long height, char *err, size_t errlen)
{
	long long px = width * height, max = fs_detect_max_pixels(m);
	if (max > 0 && px > max) {
		snprintf(err, errlen,
			 "method %s keeps several full-size scale layers and is not tiled: it takes images up to "
			 "%.0f megapixels (this one has %.1f); use method auto or lattice, which work tile by tile, "
			 "or crop the image",
			 fs_method_name(m), max / 1e6, px / 1e6);
		return -1;
	}
	return 0;
}
