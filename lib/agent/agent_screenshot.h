/*
 * agent_screenshot.h - what the agents show the model: the overlay of a
 * set on the working image, downscaled so no side exceeds max_side,
 * JPEG- (or PNG-) encoded and base64'd, with the scale needed to map the model's
 * screenshot coordinates back to image pixels (image = shot / scale).
 *
 * The downscaled base image is cached in an fs_agent_shot_cache so that
 * repeated screenshots of a large image only pay for drawing and encoding.
 *
 * Ownership: fs_agent_shot owns b64 (fs_agent_shot_free); the cache owns
 * its small image (fs_agent_shot_cache_free); inputs are borrowed.
 * fs_agent_b64_encode returns a malloc'd string the caller frees.
 */
#ifndef FS_AGENT_SCREENSHOT_H
#define FS_AGENT_SCREENSHOT_H

#include <stddef.h>

#include "image/image.h"
#include "image/tubercle.h"

typedef struct fs_agent_shot {
	char *b64;        /* the encoded image, base64 without data: prefix */
	size_t png_bytes; /* encoded size (PNG or JPEG) */
	char media_type[16]; /* image/jpeg or image/png */
	int width, height;
	double scale;     /* screenshot px per image px (<= 1) */
} fs_agent_shot;

typedef struct fs_agent_shot_cache {
	const fs_image *src; /* the image the small copy was made from */
	int max_side;
	fs_image *small;
} fs_agent_shot_cache;

/* A debug rectangle (MCP add_debug_rectangle) in image pixels, drawn with a
 * 3 px outline, corner ticks and its label. */
typedef struct fs_agent_debug_rect {
	double x, y, w, h;
	unsigned char rgb[3];
	char label[64];
} fs_agent_debug_rect;

typedef struct fs_agent_shot_opts {
	int overlay;      /* circles and connections */
	int numbers;      /* tubercle ids */
	int max_side;     /* 0 = full size */
	double um_per_px; /* scale bar when > 0 */
	int png;          /* PNG instead of JPEG (lossless, slower, larger) */
	const fs_agent_debug_rect *rects; /* drawn over the overlay; borrowed */
	size_t n_rects;
} fs_agent_shot_opts;

int fs_agent_screenshot(const fs_image *img, const fs_tubercle_list *t, const fs_edge_list *e,
			const fs_agent_shot_opts *o, fs_agent_shot_cache *cache, fs_agent_shot *out, char *err,
			size_t errlen);
void fs_agent_shot_free(fs_agent_shot *s);
void fs_agent_shot_cache_free(fs_agent_shot_cache *c);

char *fs_agent_b64_encode(const unsigned char *data, size_t n);

#endif
