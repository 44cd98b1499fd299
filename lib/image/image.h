/*
 * image.h - the float working image shared by loaders, analysis and rendering.
 *
 * A fs_image is a single-channel luminance image, row-major, values in [0, 1]
 * (16-bit sources keep their full precision: v / 65535, never clipped to 8 bits).
 * Ownership: fs_image_new() allocates; the caller frees with fs_image_free(),
 * which tolerates NULL. Functions that take a const fs_image * never keep it.
 *
 * Compact images (issue 15): an 8- or 16-bit source may be kept in its own
 * precision (1 or 2 bytes a pixel instead of 4: a 100 MP SEM montage takes
 * 100 MB, not 400 MB). Then data is NULL and px holds the samples k; their
 * value is exactly the float the loaders make, (float)(k / 255.0) or
 * (float)(k / 65535.0), so a consumer that converts a row band or a tile
 * with fs_image_span / fs_image_region_float gets the same floats as from a float
 * image of the same file. Only callers that ask for a compact image get one
 * (fs_load_opts.compact, fs_work_file_read_compact); the functions that
 * accept one say so in their header (the detection entry points, the scale
 * region, the lattice estimate, fs_downsample); anything else reads data
 * and needs fs_image_to_float first.
 */
#ifndef FS_IMAGE_H
#define FS_IMAGE_H

#include <stddef.h>

typedef struct fs_image {
	int width;
	int height;
	float *data; /* width * height samples, row-major, owned by the image; NULL when compact */
	int bits;    /* 0 = float samples in data; 8 or 16 = compact samples in px */
	void *px;    /* compact: width * height uint8_t or uint16_t, row-major, owned; else NULL */
} fs_image;

/* Allocates a zero-filled image; NULL on bad size or out of memory. */
fs_image *fs_image_new(int width, int height);
/* The same with undefined pixels, for callers that write every pixel (a
 * reused heap block would otherwise be cleared for nothing). */
fs_image *fs_image_new_uninit(int width, int height);
/* A compact image of bits 8 or 16 with undefined samples; NULL on bad size,
 * bad bits or out of memory. */
fs_image *fs_image_new_compact(int width, int height, int bits);
static inline int fs_image_is_compact(const fs_image *img)
{
	return img->bits != 0;
}
/* The float value of compact sample k (the loaders' conversion). */
float fs_image_compact_value(int bits, unsigned k);
/* n samples of row y from column x0 as floats (0 <= x0, x0 + n <= width,
 * 0 <= y < height): a pointer into img->data for a float image, else
 * converted into buf (n floats, caller's), which is returned. */
const float *fs_image_span(const fs_image *img, int x0, int y, int n, float *buf);
/* The w x h rectangle at (x0, y0) (inside img) as a new float image (caller
 * frees); NULL on out of memory or a rectangle outside img. */
fs_image *fs_image_region_float(const fs_image *img, int x0, int y0, int w, int h);

/* The standard deviation of a float image's pixels whose centres lie within
 * r of (x, y) (clipped to the image; 0 under three pixels): a dome shows
 * its slopes whichever side the detector lights it from, flat ground
 * (paper, a dark band, a gap) only its noise. */
double fs_image_disc_spread(const fs_image *img, double x, double y, double r);
/* A float copy of any image (the whole of a compact one converted); for
 * consumers that need all of data and for small images. NULL on out of memory. */
fs_image *fs_image_to_float(const fs_image *img);
/* Bytes of pixel storage (4, 2 or 1 per pixel): the memory estimates. */
size_t fs_image_bytes(const fs_image *img);
/* Deep copy (keeps the storage: a compact image stays compact); NULL on out of memory. */
fs_image *fs_image_clone(const fs_image *src);
void fs_image_free(fs_image *img);

/* The value at (x, y), pixel-centre coordinates, interpolated bilinearly
 * between the four nearest pixels; points outside are clamped to the edge.
 * Float images only (as fs_image_at). */
double fs_image_sample(const fs_image *img, double x, double y);

/* fs_image_sample's interpolation, written once: the pixels p00 (top
 * left), p01 (its right), p10 (below it) and p11, weighted by the point's
 * offsets fx, fy from p00. */
static inline double fs_image_bilinear(float p00, float p01, float p10, float p11, double fx, double fy)
{
	double a = p00 * (1 - fx) + p01 * fx;
	double b = p10 * (1 - fx) + p11 * fx;
	return a * (1 - fy) + b * fy;
}

/* The four pixels around (x, y) clamped to the image as fs_image_sample
 * clamps it: top-left (x0, y0), the right and lower neighbours (x1, y1;
 * the same column or row at the edge) and the offsets fx, fy from x0, y0. */
typedef struct fs_image_cell {
	int x0, y0, x1, y1;
	double fx, fy;
} fs_image_cell;

static inline fs_image_cell fs_image_clamped_cell(int w, int h, double x, double y)
{
	if (x < 0)
		x = 0;
	if (y < 0)
		y = 0;
	if (x > w - 1)
		x = w - 1;
	if (y > h - 1)
		y = h - 1;
	fs_image_cell c;
	c.x0 = (int)x, c.y0 = (int)y;
	c.x1 = c.x0 + 1 < w ? c.x0 + 1 : c.x0, c.y1 = c.y0 + 1 < h ? c.y0 + 1 : c.y0;
	c.fx = x - c.x0, c.fy = y - c.y0;
	return c;
}

/* fs_image_sample itself, for loops that read thousands of samples a
 * point (the call was most of their cost): the same values. */
static inline double fs_image_sample_clamped(const fs_image *img, double x, double y)
{
	int w = img->width;
	fs_image_cell c = fs_image_clamped_cell(w, img->height, x, y);
	const float *d = img->data;
	return fs_image_bilinear(d[(size_t)c.y0 * w + c.x0], d[(size_t)c.y0 * w + c.x1], d[(size_t)c.y1 * w + c.x0],
				 d[(size_t)c.y1 * w + c.x1], c.fx, c.fy);
}

/* fs_image_sample without the clamping, for points known to lie inside
 * (0 <= x < width - 1, 0 <= y < height - 1) of the float samples d of an
 * image w wide: the same values there. */
static inline double fs_image_sample_inside(const float *d, int w, double x, double y)
{
	int x0 = (int)x, y0 = (int)y;
	double fx = x - x0, fy = y - y0;
	const float *p = d + (size_t)y0 * w + x0;
	return fs_image_bilinear(p[0], p[1], p[w], p[w + 1], fx, fy);
}

static inline float fs_image_at(const fs_image *img, int x, int y)
{
	return img->data[(size_t)y * (size_t)img->width + (size_t)x];
}

/* fs_image_at for an image of either storage (a branch per sample: for
 * sparse reads, not for the hot loops). */
static inline float fs_image_value(const fs_image *img, int x, int y)
{
	size_t at = (size_t)y * (size_t)img->width + (size_t)x;
	if (!img->bits)
		return img->data[at];
	return fs_image_compact_value(img->bits,
				      img->bits == 8 ? ((const unsigned char *)img->px)[at]
						     : ((const unsigned short *)img->px)[at]);
}

/* fs_image_sample_clamped for an image of either storage: the same
 * clamping and the same interpolation of the same float values, so a
 * compact image reads exactly as its float copy (a branch per sample: for
 * sparse reads such as rendering a word, not for the hot loops). */
static inline double fs_image_sample_clamped_any(const fs_image *img, double x, double y)
{
	if (!img->bits)
		return fs_image_sample_clamped(img, x, y);
	fs_image_cell c = fs_image_clamped_cell(img->width, img->height, x, y);
	return fs_image_bilinear(fs_image_value(img, c.x0, c.y0), fs_image_value(img, c.x1, c.y0),
				 fs_image_value(img, c.x0, c.y1), fs_image_value(img, c.x1, c.y1), c.fx, c.fy);
}

#endif
