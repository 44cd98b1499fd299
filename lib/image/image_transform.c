/* image_transform.c - rotations, crops and autocrop (see image_transform.h). */
#include "image/image_transform.h"
#include "image/image_io.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of one sample of img's storage (image.h): 4 float, 2 or 1 compact. */
static size_t sample_bytes(const fs_image *img)
{
	return img->bits ? (size_t)img->bits / 8 : sizeof(float);
}

static const unsigned char *pixels_of(const fs_image *img)
{
	return img->bits ? (const unsigned char *)img->px : (const unsigned char *)img->data;
}

/* An image of img's storage (float, or compact of the same bits). */
static fs_image *new_like(const fs_image *img, int w, int h)
{
	return img->bits ? fs_image_new_compact(w, h, img->bits) : fs_image_new_uninit(w, h);
}

/* Rotates whole samples of sz bytes (the storage is copied, never
 * converted: a compact image stays compact, the same values). Block by
 * block, so both the rows read and the rows written stay in the cache. */
static inline __attribute__((always_inline)) void rotate_samples(const unsigned char *src, unsigned char *dst, int w, int h, size_t sz,
			   fs_transform_kind dir)
{
	enum { B = 64 };
	for (int by = 0; by < h; by += B)
		for (int bx = 0; bx < w; bx += B) {
			int ey = by + B < h ? by + B : h, ex = bx + B < w ? bx + B : w;
			for (int y = by; y < ey; y++)
				for (int x = bx; x < ex; x++) {
					size_t nx, ny;
					if (dir == FS_TRANSFORM_ROTATE_LEFT) {
						nx = (size_t)y;
						ny = (size_t)(w - 1 - x);
					} else {
						nx = (size_t)(h - 1 - y);
						ny = (size_t)x;
					}
					memcpy(dst + (ny * (size_t)h + nx) * sz, src + ((size_t)y * w + x) * sz, sz);
				}
		}
}

fs_image *fs_image_rotate(const fs_image *img, fs_transform_kind dir, fs_transform *applied, char *err,
			  size_t errlen)
{
	if (!img || !(img->data || img->px) || (dir != FS_TRANSFORM_ROTATE_LEFT && dir != FS_TRANSFORM_ROTATE_RIGHT)) {
		fs_load_errf(err, errlen, "rotate: no image or not a rotation");
		return NULL;
	}
	int w = img->width, h = img->height;
	fs_image *out = new_like(img, h, w);
	if (!out) {
		fs_load_errf(err, errlen, "rotate: out of memory");
		return NULL;
	}
	size_t sz = sample_bytes(img);
	unsigned char *dst = img->bits ? (unsigned char *)out->px : (unsigned char *)out->data;
	switch (sz) {
	/* a constant size per call lets the compiler copy a sample in one move */
	case 1:
		rotate_samples(pixels_of(img), dst, w, h, 1, dir);
		break;
	case 2:
		rotate_samples(pixels_of(img), dst, w, h, 2, dir);
		break;
	default:
		rotate_samples(pixels_of(img), dst, w, h, sizeof(float), dir);
	}
	if (applied) {
		applied->kind = dir;
		applied->src_width = w;
		applied->src_height = h;
		applied->rect = (fs_rect){0, 0, h, w};
	}
	return out;
}

fs_image *fs_image_crop(const fs_image *img, fs_rect want, fs_transform *applied, char *err, size_t errlen)
{
	if (!img || !(img->data || img->px)) {
		fs_load_errf(err, errlen, "crop: no image");
		return NULL;
	}
	/* Clamp in 64 bits: a hostile rectangle must not overflow int. */
	long long x0 = want.x, y0 = want.y;
	long long x1 = x0 + want.width, y1 = y0 + want.height;
	x0 = x0 < 0 ? 0 : x0;
	y0 = y0 < 0 ? 0 : y0;
	x1 = x1 > img->width ? img->width : x1;
	y1 = y1 > img->height ? img->height : y1;
	if (x1 <= x0 || y1 <= y0) {
		fs_load_errf(err, errlen, "crop: rectangle %d,%d %dx%d lies outside the %dx%d image", want.x, want.y,
			     want.width, want.height, img->width, img->height);
		return NULL;
	}
	fs_rect r = {(int)x0, (int)y0, (int)(x1 - x0), (int)(y1 - y0)};
	/* in img's storage: a compact image's crop stays compact */
	fs_image *out = new_like(img, r.width, r.height);
	if (!out) {
		fs_load_errf(err, errlen, "crop: out of memory");
		return NULL;
	}
	size_t sz = sample_bytes(img);
	unsigned char *dst = img->bits ? (unsigned char *)out->px : (unsigned char *)out->data;
	for (int y = 0; y < r.height; y++)
		memcpy(dst + (size_t)y * r.width * sz, pixels_of(img) + ((size_t)(y + r.y) * img->width + r.x) * sz,
		       (size_t)r.width * sz);
	if (applied) {
		applied->kind = FS_TRANSFORM_CROP;
		applied->src_width = img->width;
		applied->src_height = img->height;
		applied->rect = r;
	}
	return out;
}

static int to8(float v)
{
	if (!(v > 0.0f))
		return 0;
	if (v >= 1.0f)
		return 255;
	return (int)lrintf(v * 255.0f);
}

/* Population variance of n 8-bit values given their sum and sum of squares. */
static double variance(double sum, double sum2, int n)
{
	double mean = sum / n;
	return sum2 / n - mean * mean;
}

int fs_image_autocrop_detect(const fs_image *img, fs_rect *rect, char *err, size_t errlen)
{
	double *cs = NULL, *cs2 = NULL;
	float *buf = NULL;
	int rc = -1;

	if (!img || !(img->data || img->px) || !rect) {
		fs_load_errf(err, errlen, "autocrop: no image");
		return -1;
	}
	int w = img->width, h = img->height;
	cs = calloc((size_t)w, sizeof *cs);
	cs2 = calloc((size_t)w, sizeof *cs2);
	/* a compact image's rows as floats one at a time (fs_image_span) */
	buf = img->bits ? malloc((size_t)w * sizeof *buf) : NULL;
	if (!cs || !cs2 || (img->bits && !buf)) {
		fs_load_errf(err, errlen, "autocrop: out of memory");
		goto out;
	}
	int top = -1, bottom = -1, left = -1, right = -1;
	for (int y = 0; y < h; y++) {
		double s = 0, s2 = 0;
		const float *row = fs_image_span(img, 0, y, w, buf);
		for (int x = 0; x < w; x++) {
			double v = to8(row[x]);
			s += v;
			s2 += v * v;
			cs[x] += v;
			cs2[x] += v * v;
		}
		if (variance(s, s2, w) > FS_AUTOCROP_MIN_VARIANCE) {
			if (top < 0)
				top = y;
			bottom = y;
		}
	}
	for (int x = 0; x < w; x++) {
		if (variance(cs[x], cs2[x], h) > FS_AUTOCROP_MIN_VARIANCE) {
			if (left < 0)
				left = x;
			right = x;
		}
	}
	if (top < 0 || left < 0) {
		fs_load_errf(err, errlen, "nothing to crop: no row or column has content");
		rc = 1;
		goto out;
	}
	top = top - FS_AUTOCROP_PAD < 0 ? 0 : top - FS_AUTOCROP_PAD;
	left = left - FS_AUTOCROP_PAD < 0 ? 0 : left - FS_AUTOCROP_PAD;
	bottom = bottom + FS_AUTOCROP_PAD >= h ? h - 1 : bottom + FS_AUTOCROP_PAD;
	right = right + FS_AUTOCROP_PAD >= w ? w - 1 : right + FS_AUTOCROP_PAD;
	if (top == 0 && left == 0 && bottom == h - 1 && right == w - 1) {
		fs_load_errf(err, errlen, "nothing to crop: content reaches every edge");
		rc = 1;
		goto out;
	}
	*rect = (fs_rect){left, top, right - left + 1, bottom - top + 1};
	rc = 0;
out:
	free(cs);
	free(cs2);
	free(buf);
	return rc;
}

void fs_transform_point(const fs_transform *t, double x, double y, double *out_x, double *out_y)
{
	double nx = x, ny = y;
	switch (t->kind) {
	case FS_TRANSFORM_ROTATE_LEFT:
		nx = y;
		ny = t->src_width - 1 - x;
		break;
	case FS_TRANSFORM_ROTATE_RIGHT:
		nx = t->src_height - 1 - y;
		ny = x;
		break;
	case FS_TRANSFORM_CROP:
		nx = x - t->rect.x;
		ny = y - t->rect.y;
		break;
	}
	*out_x = nx;
	*out_y = ny;
}

void fs_transform_point_inverse(const fs_transform *t, double x, double y, double *out_x, double *out_y)
{
	double nx = x, ny = y;
	switch (t->kind) {
	case FS_TRANSFORM_ROTATE_LEFT:
		nx = t->src_width - 1 - y;
		ny = x;
		break;
	case FS_TRANSFORM_ROTATE_RIGHT:
		nx = y;
		ny = t->src_height - 1 - x;
		break;
	case FS_TRANSFORM_CROP:
		nx = x + t->rect.x;
		ny = y + t->rect.y;
		break;
	}
	*out_x = nx;
	*out_y = ny;
}

void fs_affine_identity(fs_affine *a)
{
	*a = (fs_affine){1, 0, 0, 0, 1, 0, 0};
}

void fs_affine_of(const fs_transform *t, fs_affine *a)
{
	switch (t->kind) {
	case FS_TRANSFORM_ROTATE_LEFT: /* (x, y) -> (y, W-1-x) */
		*a = (fs_affine){0, 1, 0, -1, 0, t->src_width - 1, 1};
		break;
	case FS_TRANSFORM_ROTATE_RIGHT: /* (x, y) -> (H-1-y, x) */
		*a = (fs_affine){0, -1, t->src_height - 1, 1, 0, 0, 3};
		break;
	default: /* crop: (x, y) -> (x - rx, y - ry) */
		*a = (fs_affine){1, 0, -t->rect.x, 0, 1, -t->rect.y, 0};
		break;
	}
}

/* The coefficients are small whole numbers: these products and sums are exact. */
void fs_affine_then(fs_affine *a, const fs_affine *n)
{
	fs_affine r;
	r.ax = n->ax * a->ax + n->bx * a->ay;
	r.bx = n->ax * a->bx + n->bx * a->by;
	r.cx = n->ax * a->cx + n->bx * a->cy + n->cx;
	r.ay = n->ay * a->ax + n->by * a->ay;
	r.by = n->ay * a->bx + n->by * a->by;
	r.cy = n->ay * a->cx + n->by * a->cy + n->cy;
	r.quarter_turns_left = (a->quarter_turns_left + n->quarter_turns_left) % 4;
	*a = r;
}

void fs_affine_of_steps(const fs_transform *steps, size_t from, size_t to, fs_affine *a)
{
	fs_affine_identity(a);
	for (size_t i = from; i < to; i++) {
		fs_affine s;
		fs_affine_of(&steps[i], &s);
		fs_affine_then(a, &s);
	}
}

void fs_affine_invert(const fs_affine *a, fs_affine *inv)
{
	/* the linear part is a rotation by quarter turns: its inverse is its transpose */
	inv->ax = a->ax;
	inv->bx = a->ay;
	inv->ay = a->bx;
	inv->by = a->by;
	inv->cx = -(inv->ax * a->cx + inv->bx * a->cy);
	inv->cy = -(inv->ay * a->cx + inv->by * a->cy);
	inv->quarter_turns_left = (4 - a->quarter_turns_left) % 4;
	/* no negative zeros: they would print as -0 */
	inv->cx += 0.0;
	inv->cy += 0.0;
}

void fs_affine_apply(const fs_affine *a, double x, double y, double *out_x, double *out_y)
{
	/* keep in step with the SQL of sets_store.c: (ax*x + bx*y) + cx */
	*out_x = (a->ax * x + a->bx * y) + a->cx;
	*out_y = (a->ay * x + a->by * y) + a->cy;
}

double fs_affine_angle(const fs_affine *a, double o)
{
	/* y points down: a left turn adds a quarter turn to every angle; an
	 * orientation is an angle modulo pi, so only odd turns change it */
	if (a->quarter_turns_left % 2 == 0)
		return o;
	o += a->quarter_turns_left == 1 ? M_PI / 2 : -M_PI / 2;
	while (o > M_PI / 2)
		o -= M_PI;
	while (o <= -M_PI / 2)
		o += M_PI;
	return o;
}

int fs_affine_is_identity(const fs_affine *a)
{
	return a->ax == 1 && a->bx == 0 && a->cx == 0 && a->ay == 0 && a->by == 1 && a->cy == 0;
}
