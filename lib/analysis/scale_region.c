/*
 * scale_region.c - the scale region (see scale_region.h): its automatic
 * detection, point and edge tests, filtering, and the run-length text form.
 */
#include "analysis/scale_region.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/databar.h"

#define WHITE_LEVEL 0.80f   /* a paper margin is at least this bright ... */
#define BLACK_LEVEL 0.10f   /* ... a black surround at most this dark ... */
#define FLAT_STD 0.03       /* ... and either is this flat over 3x3 cells */
#define BIG_BLANK 0.04      /* a blank component off the border counts from this fraction */
#define EDGE_BLANK 0.003    /* one on the border from this one (not a saturated particle cut by the frame) */
#define CLOSE_CELLS 3       /* closing radius of the exclusion, cells */
#define MIN_PIECE 0.02      /* smaller pieces of region are dropped */

int fs_scale_region_cell_for(int width, int height)
{
	int m = width > height ? width : height;
	int c = (m + FS_SCALE_REGION_MAX_GRID - 1) / FS_SCALE_REGION_MAX_GRID;
	return c < 2 ? 2 : c;
}

int fs_scale_region_init_full(fs_scale_region *r, int width, int height, int cell, char *err, size_t errlen)
{
	memset(r, 0, sizeof *r);
	if (width < 1 || height < 1 || width > 1000000 || height > 1000000) {
		snprintf(err, errlen, "scale region: bad frame size %dx%d", width, height);
		return -1;
	}
	if (cell <= 0)
		cell = fs_scale_region_cell_for(width, height);
	r->width = width;
	r->height = height;
	r->cell = cell;
	r->gw = (width + cell - 1) / cell;
	r->gh = (height + cell - 1) / cell;
	r->in = malloc((size_t)r->gw * (size_t)r->gh);
	if (!r->in) {
		snprintf(err, errlen, "scale region: out of memory");
		memset(r, 0, sizeof *r);
		return -1;
	}
	memset(r->in, 1, (size_t)r->gw * (size_t)r->gh);
	return 0;
}

void fs_scale_region_free(fs_scale_region *r)
{
	if (!r)
		return;
	free(r->in);
	memset(r, 0, sizeof *r);
}

/* Connected components (8-connected) of cells where m[i] == val; lab gets
 * 1-based labels, sizes[label] the cell count and touch[label] whether it
 * meets the grid's border. Returns the number of labels or -1. */
static int components(const unsigned char *m, unsigned char val, int gw, int gh, int *lab, int **sizes_out,
		      unsigned char **touch_out)
{
	size_t n = (size_t)gw * (size_t)gh;
	int *stack = malloc(n * sizeof *stack);
	int *sizes = malloc((n + 1) * sizeof *sizes);
	unsigned char *touch = calloc(n + 1, 1);
	if (!stack || !sizes || !touch) {
		free(stack);
		free(sizes);
		free(touch);
		return -1;
	}
	int nl = 0;
	for (size_t i = 0; i < n; i++)
		lab[i] = 0;
	for (size_t i = 0; i < n; i++) {
		if (m[i] != val || lab[i])
			continue;
		nl++;
		sizes[nl] = 0;
		size_t sp = 0;
		stack[sp++] = (int)i;
		lab[i] = nl;
		while (sp) {
			int c = stack[--sp];
			int cx = c % gw, cy = c / gw;
			sizes[nl]++;
			if (cx == 0 || cy == 0 || cx == gw - 1 || cy == gh - 1)
				touch[nl] = 1;
			else {
				/* inside the grid: the eight neighbours without
				 * the bounds tests (most cells; the same order) */
				static const int ox[8] = {-1, 0, 1, -1, 1, -1, 0, 1}, oy[8] = {-1, -1, -1, 0, 0, 1, 1, 1};
				for (int k = 0; k < 8; k++) {
					size_t j = (size_t)((ptrdiff_t)c + (ptrdiff_t)oy[k] * gw + ox[k]);
					if (m[j] == val && !lab[j]) {
						lab[j] = nl;
						stack[sp++] = (int)j;
					}
				}
				continue;
			}
			for (int dy = -1; dy <= 1; dy++)
				for (int dx = -1; dx <= 1; dx++) {
					int x = cx + dx, y = cy + dy;
					if (x < 0 || y < 0 || x >= gw || y >= gh)
						continue;
					size_t j = (size_t)y * (size_t)gw + (size_t)x;
					if (m[j] == val && !lab[j]) {
						lab[j] = nl;
						stack[sp++] = (int)j;
					}
				}
		}
	}
	free(stack);
	*sizes_out = sizes;
	*touch_out = touch;
	return nl;
}

/* One line of morph(): dst[i * stride] for i < len from src's line the
 * same way. The window of each cell is clamped to the line, since a clamped
 * cell repeats the nearest one, which changes neither an OR nor an AND; a
 * count of the set cells slides along it, so a cell costs the same whatever
 * rad (the window scanned cell by cell was 18 % of the instructions of a
 * paper figure's whole detection, callgrind). */
static void morph_line(const unsigned char *src, unsigned char *dst, size_t stride, int len, int rad, int grow)
{
	int count = 0;
	for (int i = 0; i <= rad && i < len; i++)
		count += src[(size_t)i * stride] != 0;
	for (int x = 0; x < len; x++) {
		int lo = x - rad < 0 ? 0 : x - rad, hi = x + rad >= len ? len - 1 : x + rad;
		dst[(size_t)x * stride] = (unsigned char)(grow ? count > 0 : count == hi - lo + 1);
		if (x - rad >= 0)
			count -= src[(size_t)(x - rad) * stride] != 0;
		if (x + rad + 1 < len)
			count += src[(size_t)(x + rad + 1) * stride] != 0;
	}
}

/* Square dilation (grow = 1) or erosion of a 0/1 mask by rad cells; cells
 * beyond the grid count as their nearest cell (so the border neither grows
 * nor eats the mask). */
static void morph(unsigned char *m, unsigned char *tmp, int gw, int gh, int rad, int grow)
{
	/* separable: rows then columns */
	for (int y = 0; y < gh; y++)
		morph_line(m + (size_t)y * gw, tmp + (size_t)y * gw, 1, gw, rad, grow);
	for (int x = 0; x < gw; x++)
		morph_line(tmp + x, m + x, (size_t)gw, gh, rad, grow);
}

/*
 * Adds one image row to its row of cells: sum[g] += v, sq[g] += v * v for
 * each pixel of cell g, left to right (the same additions in the same order
 * as pixel by pixel, so the same sums to the bit), cnt[g] += its width.
 * Each cell's sum is one chain of dependent additions: four cells are
 * summed side by side so the chains overlap (a 100-megapixel image took a
 * second one pixel and one division at a time).
 */
static void cell_sums_row(const float *row, int w, int c, double *sum, double *sq, int *cnt)
{
	int g = 0, x0 = 0;
	for (; x0 + 4 * c <= w; g += 4, x0 += 4 * c) {
		const float *p = row + x0;
		double s0 = sum[g], s1 = sum[g + 1], s2 = sum[g + 2], s3 = sum[g + 3];
		double q0 = sq[g], q1 = sq[g + 1], q2 = sq[g + 2], q3 = sq[g + 3];
		for (int i = 0; i < c; i++) {
			double v0 = p[i], v1 = p[c + i], v2 = p[2 * c + i], v3 = p[3 * c + i];
			s0 += v0;
			q0 += v0 * v0;
			s1 += v1;
			q1 += v1 * v1;
			s2 += v2;
			q2 += v2 * v2;
			s3 += v3;
			q3 += v3 * v3;
		}
		sum[g] = s0, sum[g + 1] = s1, sum[g + 2] = s2, sum[g + 3] = s3;
		sq[g] = q0, sq[g + 1] = q1, sq[g + 2] = q2, sq[g + 3] = q3;
		cnt[g] += c, cnt[g + 1] += c, cnt[g + 2] += c, cnt[g + 3] += c;
	}
	for (; x0 < w; g++, x0 += c) {
		int x1 = x0 + c < w ? x0 + c : w;
		double s = sum[g], q = sq[g];
		for (int x = x0; x < x1; x++) {
			double v = row[x];
			s += v;
			q += v * v;
		}
		sum[g] = s;
		sq[g] = q;
		cnt[g] += x1 - x0;
	}
}

/*
 * cell_sums_row for a row of 8-bit codes: each code's value and square
 * from tables (v the float the code stands for, as a double, and v * v,
 * which is exact in a double: 24 significant bits squared), added in the
 * same order as cell_sums_row adds them, so the same sums to the bit
 * without converting the row to floats first.
 */
static void cell_sums_row8(const unsigned char *row, int w, int c, const double *tv, const double *tq,
			   double *sum, double *sq, int *cnt)
{
	int g = 0, x0 = 0;
	for (; x0 + 4 * c <= w; g += 4, x0 += 4 * c) {
		const unsigned char *p = row + x0;
		double s0 = sum[g], s1 = sum[g + 1], s2 = sum[g + 2], s3 = sum[g + 3];
		double q0 = sq[g], q1 = sq[g + 1], q2 = sq[g + 2], q3 = sq[g + 3];
		for (int i = 0; i < c; i++) {
			unsigned k0 = p[i], k1 = p[c + i], k2 = p[2 * c + i], k3 = p[3 * c + i];
			s0 += tv[k0];
			q0 += tq[k0];
			s1 += tv[k1];
			q1 += tq[k1];
			s2 += tv[k2];
			q2 += tq[k2];
			s3 += tv[k3];
			q3 += tq[k3];
		}
		sum[g] = s0, sum[g + 1] = s1, sum[g + 2] = s2, sum[g + 3] = s3;
		sq[g] = q0, sq[g + 1] = q1, sq[g + 2] = q2, sq[g + 3] = q3;
		cnt[g] += c, cnt[g + 1] += c, cnt[g + 2] += c, cnt[g + 3] += c;
	}
	for (; x0 < w; g++, x0 += c) {
		int x1 = x0 + c < w ? x0 + c : w;
		double s = sum[g], q = sq[g];
		for (int x = x0; x < x1; x++) {
			s += tv[row[x]];
			q += tq[row[x]];
		}
		sum[g] = s;
		sq[g] = q;
		cnt[g] += x1 - x0;
	}
}

/* The cell sums of the whole image: 8-bit codes through tables, other
 * images row by row as floats. 0, or -1 out of memory. */
static int cell_sums(const fs_image *img, int c, int gw, double *sum, double *sq, int *cnt)
{
	if (img->bits == 8) {
		double tv[256], tq[256];
		for (unsigned k = 0; k < 256; k++) {
			double v = fs_image_compact_value(8, k);
			tv[k] = v;
			tq[k] = v * v;
		}
		for (int y = 0; y < img->height; y++) {
			size_t at = (size_t)(y / c) * (size_t)gw;
			cell_sums_row8((const unsigned char *)img->px + (size_t)y * (size_t)img->width, img->width, c, tv,
				       tq, sum + at, sq + at, cnt + at);
		}
		return 0;
	}
	/* a 16-bit image's rows are converted one at a time */
	float *row = img->bits ? malloc((size_t)img->width * sizeof *row) : NULL;
	if (img->bits && !row)
		return -1;
	for (int y = 0; y < img->height; y++) {
		size_t at = (size_t)(y / c) * (size_t)gw;
		cell_sums_row(fs_image_span(img, 0, y, img->width, row), img->width, c, sum + at, sq + at, cnt + at);
	}
	free(row);
	return 0;
}

int fs_scale_region_detect(const fs_image *img, fs_scale_region *out, char *err, size_t errlen)
{
	if (!out) {
		snprintf(err, errlen, "scale region: no result");
		return -1;
	}
	memset(out, 0, sizeof *out);
	if (!img || !(img->data || img->px) || img->width < 1 || img->height < 1) {
		snprintf(err, errlen, "scale region: no image");
		return -1;
	}
	if (fs_scale_region_init_full(out, img->width, img->height, 0, err, errlen))
		return -1;
	int gw = out->gw, gh = out->gh, c = out->cell;
	size_t n = (size_t)gw * (size_t)gh;
	double *sum = calloc(n, sizeof *sum), *sq = calloc(n, sizeof *sq);
	int *cnt = calloc(n, sizeof *cnt), *lab = malloc(n * sizeof *lab);
	unsigned char *blank = calloc(n, 1), *ex = calloc(n, 1), *tmp = malloc(n);
	int *sizes = NULL;
	unsigned char *touch = NULL;
	int rc = -1;
	if (!sum || !sq || !cnt || !lab || !blank || !ex || !tmp || cell_sums(img, c, gw, sum, sq, cnt)) {
		snprintf(err, errlen, "scale region: out of memory");
		goto out;
	}
	for (int gy = 0; gy < gh; gy++)
		for (int gx = 0; gx < gw; gx++) {
			size_t i = (size_t)gy * gw + gx;
			double s = 0, s2 = 0;
			long k = 0;
			if (gx > 0 && gy > 0 && gx < gw - 1 && gy < gh - 1) {
				/* inside the grid: the same additions in the same
				 * order, without the bounds tests */
				for (int dy = -1; dy <= 1; dy++) {
					size_t j = (size_t)(gy + dy) * gw + gx - 1;
					s += sum[j];
					s2 += sq[j];
					k += cnt[j];
					s += sum[j + 1];
					s2 += sq[j + 1];
					k += cnt[j + 1];
					s += sum[j + 2];
					s2 += sq[j + 2];
					k += cnt[j + 2];
				}
			} else
				for (int dy = -1; dy <= 1; dy++)
					for (int dx = -1; dx <= 1; dx++) {
						int x = gx + dx, y = gy + dy;
						if (x < 0 || y < 0 || x >= gw || y >= gh)
							continue;
						size_t j = (size_t)y * gw + x;
						s += sum[j];
						s2 += sq[j];
						k += cnt[j];
					}
			double mean = sum[i] / cnt[i];
			double m3 = s / k, var = s2 / k - m3 * m3;
			double sd = var > 0 ? sqrt(var) : 0;
			blank[i] = sd <= FLAT_STD && (mean >= WHITE_LEVEL || mean <= BLACK_LEVEL);
		}
	int nl = components(blank, 1, gw, gh, lab, &sizes, &touch);
	if (nl < 0) {
		snprintf(err, errlen, "scale region: out of memory");
		goto out;
	}
	int any = 0;
	for (size_t i = 0; i < n; i++)
		if (lab[i] && ((touch[lab[i]] && sizes[lab[i]] >= EDGE_BLANK * (double)n) ||
			       sizes[lab[i]] >= BIG_BLANK * (double)n)) {
			ex[i] = 1;
			any = 1;
		}
	free(sizes);
	free(touch);
	sizes = NULL;
	touch = NULL;
	if (any) {
		/* closing: a line or label printed on the margin joins it */
		morph(ex, tmp, gw, gh, CLOSE_CELLS, 1);
		morph(ex, tmp, gw, gh, CLOSE_CELLS, 0);
	}
	fs_databar bar;
	if (fs_databar_find(img, &bar, err, errlen))
		goto out;
	if (bar.found) {
		out->databar = 1;
		out->databar_rect = bar.rect;
		int x0 = bar.rect.x / c, y0 = bar.rect.y / c;
		int x1 = (bar.rect.x + bar.rect.width - 1) / c, y1 = (bar.rect.y + bar.rect.height - 1) / c;
		for (int y = y0 < 0 ? 0 : y0; y <= y1 && y < gh; y++)
			for (int x = x0 < 0 ? 0 : x0; x <= x1 && x < gw; x++)
				ex[(size_t)y * gw + x] = 1;
		any = 1;
	}
	if (any) {
		for (size_t i = 0; i < n; i++)
			out->in[i] = !ex[i];
		/* drop slivers of region (between a margin and the border) */
		nl = components(out->in, 1, gw, gh, lab, &sizes, &touch);
		if (nl < 0) {
			snprintf(err, errlen, "scale region: out of memory");
			goto out;
		}
		for (size_t i = 0; i < n; i++)
			if (lab[i] && sizes[lab[i]] < MIN_PIECE * (double)n)
				out->in[i] = 0;
	}
	rc = 0;
out:
	free(sum);
	free(sq);
	free(cnt);
	free(lab);
	free(blank);
	free(ex);
	free(tmp);
	free(sizes);
	free(touch);
	if (rc)
		fs_scale_region_free(out);
	return rc;
}

double fs_scale_region_fraction(const fs_scale_region *r)
{
	if (!r || !r->in)
		return 1;
	size_t n = (size_t)r->gw * (size_t)r->gh, k = 0;
	for (size_t i = 0; i < n; i++)
		k += r->in[i] != 0;
	return n ? (double)k / (double)n : 0;
}

int fs_scale_region_is_full(const fs_scale_region *r)
{
	if (!r || !r->in)
		return 1;
	size_t n = (size_t)r->gw * (size_t)r->gh;
	for (size_t i = 0; i < n; i++)
		if (!r->in[i])
			return 0;
	return 1;
}

int fs_scale_region_near_edge(const fs_scale_region *r, double x, double y, double dist)
{
	if (!r || !r->in || !isfinite(x) || !isfinite(y))
		return 0;
	if (dist < 0)
		dist = 0;
	int c = r->cell;
	int gx0 = (int)floor((x - dist + 0.5) / c), gx1 = (int)floor((x + dist + 0.5) / c);
	int gy0 = (int)floor((y - dist + 0.5) / c), gy1 = (int)floor((y + dist + 0.5) / c);
	for (int gy = gy0 < 0 ? 0 : gy0; gy <= gy1 && gy < r->gh; gy++)
		for (int gx = gx0 < 0 ? 0 : gx0; gx <= gx1 && gx < r->gw; gx++) {
			if (r->in[(size_t)gy * r->gw + gx])
				continue;
			/* distance from the point to the cell's pixel square */
			double lx = gx * c - 0.5, hx = (gx + 1) * c - 0.5;
			double ly = gy * c - 0.5, hy = (gy + 1) * c - 0.5;
			double dx = x < lx ? lx - x : x > hx ? x - hx : 0;
			double dy = y < ly ? ly - y : y > hy ? y - hy : 0;
			if (dx * dx + dy * dy <= dist * dist)
				return 1;
		}
	return 0;
}

int fs_scale_region_bbox(const fs_scale_region *r, fs_rect *out)
{
	if (!r || !r->in) {
		if (r)
			*out = (fs_rect){0, 0, r->width, r->height};
		return r ? 0 : 1;
	}
	int x0 = r->gw, y0 = r->gh, x1 = -1, y1 = -1;
	for (int gy = 0; gy < r->gh; gy++)
		for (int gx = 0; gx < r->gw; gx++)
			if (r->in[(size_t)gy * r->gw + gx]) {
				if (gx < x0)
					x0 = gx;
				if (gx > x1)
					x1 = gx;
				if (gy < y0)
					y0 = gy;
				if (gy > y1)
					y1 = gy;
			}
	if (x1 < 0)
		return 1;
	int px0 = x0 * r->cell, py0 = y0 * r->cell;
	int px1 = (x1 + 1) * r->cell, py1 = (y1 + 1) * r->cell;
	if (px1 > r->width)
		px1 = r->width;
	if (py1 > r->height)
		py1 = r->height;
	*out = (fs_rect){px0, py0, px1 - px0, py1 - py0};
	return 0;
}

size_t fs_scale_region_filter(const fs_scale_region *r, fs_tubercle_list *t)
{
	if (!r || !r->in || !t)
		return 0;
	size_t k = 0;
	for (size_t i = 0; i < t->n; i++)
		if (fs_scale_region_contains(r, t->items[i].centroid_x, t->items[i].centroid_y))
			t->items[k++] = t->items[i];
	size_t removed = t->n - k;
	t->n = k;
	if (removed)
		for (size_t i = 0; i < k; i++)
			t->items[i].id = (int)i + 1;
	return removed;
}

size_t fs_scale_region_mark_boundary(const fs_scale_region *r, fs_tubercle_list *t, double margin)
{
	if (!r || !r->in || !t || fs_scale_region_is_full(r))
		return 0;
	size_t k = 0;
	for (size_t i = 0; i < t->n; i++) {
		fs_tubercle *u = &t->items[i];
		double d = (u->radius_px > 0 && isfinite(u->radius_px) ? u->radius_px : 0) + margin;
		if (!u->is_boundary && fs_scale_region_near_edge(r, u->centroid_x, u->centroid_y, d)) {
			u->is_boundary = 1;
			k++;
		}
	}
	return k;
}

size_t fs_scale_region_rows_cap(const fs_scale_region *r)
{
	/* per row "[]," plus at most gw + 1 numbers of up to 7 chars each and commas */
	return (size_t)r->gh * ((size_t)(r->gw + 1) * 8 + 4) + 4;
}

int fs_scale_region_rows_write(const fs_scale_region *r, char *buf, size_t cap)
{
	size_t p = 0;
#define PUT(...)                                                                                                       \
	do {                                                                                                           \
		int w_ = snprintf(buf + p, cap - p, __VA_ARGS__);                                                      \
		if (w_ < 0 || (size_t)w_ >= cap - p)                                                                   \
			return -1;                                                                                     \
		p += (size_t)w_;                                                                                       \
	} while (0)
	if (!r || !r->in || cap < 3)
		return -1;
	PUT("[");
	for (int gy = 0; gy < r->gh; gy++) {
		PUT(gy ? ",[" : "[");
		const unsigned char *row = r->in + (size_t)gy * r->gw;
		int first = 1;
		for (int x = 0; x < r->gw;) {
			if (!row[x]) {
				x++;
				continue;
			}
			int s = x;
			while (x < r->gw && row[x])
				x++;
			PUT(first ? "%d,%d" : ",%d,%d", s, x);
			first = 0;
		}
		PUT("]");
	}
	PUT("]");
#undef PUT
	return 0;
}

static const char *skip_ws(const char *s)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	return s;
}

int fs_scale_region_rows_parse(const char *text, int width, int height, int cell, fs_scale_region *out, char *err,
			       size_t errlen)
{
	memset(out, 0, sizeof *out);
	if (!text) {
		snprintf(err, errlen, "scale region: no rows");
		return -1;
	}
	int want = fs_scale_region_cell_for(width, height);
	if (cell != want) {
		snprintf(err, errlen, "scale region: cell must be %d px for a %dx%d frame", want, width, height);
		return -1;
	}
	if (fs_scale_region_init_full(out, width, height, cell, err, errlen))
		return -1;
	memset(out->in, 0, (size_t)out->gw * (size_t)out->gh);
	const char *s = skip_ws(text);
	long runs = 0;
	int gy = 0;
	if (*s != '[')
		goto bad;
	s = skip_ws(s + 1);
	if (*s == ']') {
		s++;
		goto end;
	}
	for (;;) {
		if (*s != '[')
			goto bad;
		if (gy >= out->gh) {
			snprintf(err, errlen, "scale region: more than %d rows", out->gh);
			goto fail;
		}
		s = skip_ws(s + 1);
		int prev = -1, idx = 0, start = 0;
		while (*s != ']') {
			if (idx > 0) {
				if (*s != ',')
					goto bad;
				s = skip_ws(s + 1);
			}
			if (!isdigit((unsigned char)*s))
				goto bad;
			char *e;
			long v = strtol(s, &e, 10);
			s = skip_ws(e);
			if (v > out->gw || v <= prev || (idx % 2 == 0 && v == prev)) {
				snprintf(err, errlen, "scale region: row %d: runs must be increasing and within 0..%d",
					 gy, out->gw);
				goto fail;
			}
			if (idx % 2 == 0) {
				start = (int)v;
			} else {
				for (int x = start; x < v; x++)
					out->in[(size_t)gy * out->gw + x] = 1;
				if (++runs > FS_SCALE_REGION_MAX_RUNS) {
					snprintf(err, errlen, "scale region: more than %d runs",
						 FS_SCALE_REGION_MAX_RUNS);
					goto fail;
				}
			}
			prev = (int)v;
			idx++;
		}
		if (idx % 2) {
			snprintf(err, errlen, "scale region: row %d has an odd number of run ends", gy);
			goto fail;
		}
		gy++;
		s = skip_ws(s + 1);
		if (*s == ']') {
			s++;
			break;
		}
		if (*s != ',')
			goto bad;
		s = skip_ws(s + 1);
	}
end:
	if (*skip_ws(s))
		goto bad;
	if (gy != out->gh) {
		snprintf(err, errlen, "scale region: %d rows, the grid has %d", gy, out->gh);
		goto fail;
	}
	out->user = 1;
	return 0;
bad:
	snprintf(err, errlen, "scale region: malformed rows (expected [[x0,x1,...],...])");
fail:
	fs_scale_region_free(out);
	return -1;
}
