/*
 * fuzz_tiled.c - libFuzzer target for the tile-by-tile analysis (issue 15:
 * "keep the fuzzers running over the new tiled paths").
 *
 * The input draws a small scene: a 6-byte header chooses the method (auto,
 * lattice, log, dog, ellipse), the image's size (40-71 px a side), the
 * tile side (16-44 px, so an image has up to 5 x 5 tiles and the tiles
 * are often narrower than their overlaps), one or two threads, the top-hat (radius 3-6 px),
 * the expected diameter, the measurement rule (the outline's, or the dome
 * base's of issue 13: its circle votes, template and dome fits tile by
 * tile too), and whether the image is compact (8-bit samples,
 * read a crop at a time) or floats; every further 4 bytes are a disc (x, y,
 * radius 1-16 px, brightness) on a grey ground. The scene is detected whole
 * (tile 0) and on tiles; under ASan/UBSan both must run clean, fail or
 * succeed alike, and find the same tubercles: the same count, ids, centres
 * and diameters within 0.01 px (what test_detect_tiled.c and
 * test_detect_scale_tiled.c assert on simulated lattices; here on whatever
 * scenes the fuzzer makes). Built and run by tests/fuzz/run.sh.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/measurement.h"
#include "image/image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HEADER 6
#define MAX_DISCS 400

static const fs_method methods[] = {FS_METHOD_AUTO, FS_METHOD_LATTICE, FS_METHOD_LOG, FS_METHOD_DOG,
				    FS_METHOD_ELLIPSE};

/* Grey level 0-255 of the scene at (x, y): ground 40 plus each disc's
 * brightness inside its radius, with a one-pixel soft edge. */
static void draw(float *lv, int w, int h, const uint8_t *d, size_t n)
{
	for (size_t i = 0; i < (size_t)w * h; i++)
		lv[i] = 40.0f;
	for (size_t k = 0; k + 4 <= n && k / 4 < MAX_DISCS; k += 4) {
		double cx = d[k] * (w - 1) / 255.0, cy = d[k + 1] * (h - 1) / 255.0;
		double r = 1.0 + (d[k + 2] & 15), add = 20.0 + d[k + 3] * 0.7;
		int x0 = (int)floor(cx - r - 1), x1 = (int)ceil(cx + r + 1);
		int y0 = (int)floor(cy - r - 1), y1 = (int)ceil(cy + r + 1);
		for (int y = y0 < 0 ? 0 : y0; y <= y1 && y < h; y++)
			for (int x = x0 < 0 ? 0 : x0; x <= x1 && x < w; x++) {
				double t = r + 0.5 - hypot(x - cx, y - cy);
				if (t > 0)
					lv[(size_t)y * w + x] += (float)(add * (t > 1 ? 1 : t));
			}
	}
}

static int detect_at(const fs_image *img, const fs_params *p, fs_measurement_rule rule, int tile, int threads,
		     fs_detect_result *r, char *err, size_t errlen)
{
	fs_detect_set_tiling(tile, threads);
	return fs_detect_rule_all(img, p, 0.5, rule, r, err, errlen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < HEADER)
		return 0;
	int w = 40 + (data[1] & 31), h = 40 + (data[2] & 31);
	int tile = 16 + (data[3] & 7) * 4, threads = 1 + (data[4] & 1);
	int compact = (data[4] >> 1) & 1;
	fs_params p;
	fs_params_default(&p);
	p.method = methods[data[0] % 5];
	if (data[4] & 4)
		p.tophat_radius = 3 + ((data[4] >> 3) & 3);
	/* the expected diameter (log and dog size their scales by it): 2-17 px at 0.5 um/px */
	double d_um = 1.0 + (data[5] & 15) * 0.5;
	p.min_diameter_um = 0.5 * d_um;
	p.max_diameter_um = 1.5 * d_um;
	fs_measurement_rule rule = (data[5] & 16) ? FS_RULE_DOME : FS_RULE_OUTLINE;

	float *lv = malloc((size_t)w * h * sizeof *lv);
	fs_image *img = compact ? fs_image_new_compact(w, h, 8) : fs_image_new(w, h);
	if (!lv || !img) {
		free(lv);
		fs_image_free(img);
		return 0;
	}
	draw(lv, w, h, data + HEADER, size - HEADER);
	for (size_t i = 0; i < (size_t)w * h; i++) {
		int k = (int)lrintf(lv[i] > 255.0f ? 255.0f : lv[i]);
		if (compact)
			((unsigned char *)img->px)[i] = (unsigned char)k;
		else
			img->data[i] = (float)(k / 255.0);
	}
	free(lv);

	fs_detect_result whole, tiled;
	char ew[256] = "", et[256] = "";
	int rw = detect_at(img, &p, rule, 0, 1, &whole, ew, sizeof ew);
	int rt = detect_at(img, &p, rule, tile, threads, &tiled, et, sizeof et);
	fs_detect_set_tiling(FS_DETECT_TILE_DEFAULT, 1);
	if (rw != rt || (rw && (!ew[0] || !et[0])))
		__builtin_trap(); /* both succeed, or both refuse and say why */
	if (!rw) {
		if (whole.tubercles.n != tiled.tubercles.n)
			__builtin_trap();
		for (size_t i = 0; i < whole.tubercles.n; i++) {
			const fs_tubercle *a = &whole.tubercles.items[i], *b = &tiled.tubercles.items[i];
			int same_r = fabs(a->radius_px - b->radius_px) < 0.01 || (isnan(a->radius_px) && isnan(b->radius_px));
			if (a->id != b->id || fabs(a->centroid_x - b->centroid_x) >= 0.01 ||
			    fabs(a->centroid_y - b->centroid_y) >= 0.01 || !same_r)
				__builtin_trap();
		}
		fs_detect_result_free(&whole);
		fs_detect_result_free(&tiled);
	}
	fs_image_free(img);
	return 0;
}
