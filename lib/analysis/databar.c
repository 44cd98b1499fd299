/*
 * databar.c - finding the SEM data bar (band or overlay) and measuring its
 * scale-bar line. The rules are summed up in databar.h.
 *
 * Connected components are found on run-length encoded masks (runs of one
 * row joined to the touching runs of the row above, 8-connected, by
 * union-find), so memory follows the few extreme pixels, not the image size.
 */
#include "analysis/databar.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sorting.h"

#define MAX_RUNS 4000000     /* more runs than this: the mask is texture, not text */
#define MAX_GLYPHS 4000      /* more glyph-like components: noise, not a data bar */
#define OVERLAY_STRIP 0.30   /* an overlay is searched in this fraction of rows at each edge */
#define BAND_INK 0.30        /* glyphs in a band differ from its level by more than this */

enum { K_OTHER = 0, K_GLYPH, K_LINE };

typedef struct run {
	int y, x0, x1, parent;
	int strong; /* holds a pixel of the strong mask */
} run;

typedef struct comp {
	int x0, y0, x1, y1;
	long area;
	int full_y0, full_y1, n_full; /* rows whose run spans >= 90 % of the width */
	long off_end;  /* pixels outside the full rows and away from both ends (not end ticks) */
	int strong;    /* holds a pixel of the strong mask: weak-only components are texture */
	int kind;
	int word; /* index into the word list, -1 = none */
} comp;

typedef struct comps {
	comp *v;
	int n, cap;
} comps;

typedef struct word {
	int x0, y0, x1, y1;
	int n_glyphs;
	double h; /* median glyph height */
	int cluster;
} word;

typedef struct words {
	word *v;
	int n, cap;
} words;

/* A mask: v in [lo, hi], or outside it when outside is set. */
typedef struct maskdef {
	float lo, hi;
	int outside;
} maskdef;

static int imax(int a, int b)
{
	return a > b ? a : b;
}

static int imin(int a, int b)
{
	return a < b ? a : b;
}

static int in_mask(const maskdef *m, float v)
{
	int in = v >= m->lo && v <= m->hi;
	return m->outside ? !in : in;
}

static int uf_find(run *r, int i)
{
	while (r[i].parent != i) {
		r[i].parent = r[r[i].parent].parent;
		i = r[i].parent;
	}
	return i;
}

static void uf_union(run *r, int a, int b)
{
	a = uf_find(r, a);
	b = uf_find(r, b);
	if (a == b)
		return;
	if (a < b)
		r[b].parent = a;
	else
		r[a].parent = b;
}

static int comps_push(comps *c, const comp *x)
{
	if (c->n == c->cap) {
		int cap = c->cap ? c->cap * 2 : 64;
		comp *v = realloc(c->v, (size_t)cap * sizeof *v);
		if (!v)
			return -1;
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = *x;
	return 0;
}

static int words_push(words *w, const word *x)
{
	if (w->n == w->cap) {
		int cap = w->cap ? w->cap * 2 : 32;
		word *v = realloc(w->v, (size_t)cap * sizeof *v);
		if (!v)
			return -1;
		w->v = v;
		w->cap = cap;
	}
	w->v[w->n++] = *x;
	return 0;
}

/*
 * Row classes for label: per pixel of [x0, x1), 0 outside mask m, else 1,
 * plus 2 when in strong too (or strong is NULL). A compact image's pixels
 * are classified by a table of its codes (each code's float through
 * in_mask: the same classes as the float image), so its rows need no
 * conversion: the overlay search reads 60 % of the image twice, and
 * converting and testing every sample was a tenth of a 100 MP extraction.
 */
typedef struct row_classes {
	const fs_image *img;
	const maskdef *m, *strong;
	unsigned char *table; /* compact: 256 or 65536 entries; else NULL */
	unsigned char *cls;   /* a row's classes, width bytes */
	/* 8-bit codes whose table is two code ranges (a mask is a range of
	 * levels, and the codes' levels grow with them): class = in [lo1,
	 * lo1 + span1] + 2 * in [lo2, lo2 + span2], compared 16 at a time */
	int ranges;
	unsigned char lo1, span1, lo2, span2;
} row_classes;

/* The table of codes 0..255 as two ranges (see row_classes), when it is one. */
static void find_ranges(row_classes *rc)
{
	int a[2] = {-1, -1}, b[2] = {-2, -2};
	for (int k = 0; k < 256; k++)
		for (int bit = 0; bit < 2; bit++)
			if (rc->table[k] >> bit & 1) {
				if (a[bit] < 0)
					a[bit] = k;
				b[bit] = k;
			}
	rc->lo1 = (unsigned char)(a[0] < 0 ? 0 : a[0]);
	rc->span1 = (unsigned char)(a[0] < 0 ? 0 : b[0] - a[0]);
	rc->lo2 = (unsigned char)(a[1] < 0 ? 0 : a[1]);
	rc->span2 = (unsigned char)(a[1] < 0 ? 0 : b[1] - a[1]);
	for (int k = 0; k < 256; k++) {
		unsigned char c = (unsigned char)(((unsigned char)(k - rc->lo1) <= rc->span1) |
						  (((unsigned char)(k - rc->lo2) <= rc->span2) << 1));
		if (c != rc->table[k])
			return; /* not two ranges (an empty one fails at code 0): the table */
	}
	rc->ranges = 1;
}

static unsigned char class_of(const maskdef *m, const maskdef *strong, float v)
{
	if (!in_mask(m, v))
		return 0;
	return (unsigned char)(1 | ((!strong || in_mask(strong, v)) << 1));
}

static int row_classes_init(row_classes *rc, const fs_image *img, const maskdef *m, const maskdef *strong)
{
	memset(rc, 0, sizeof *rc);
	rc->img = img;
	rc->m = m;
	rc->strong = strong;
	rc->cls = calloc((size_t)img->width, 1);
	if (!rc->cls)
		return -1;
	if (img->bits) {
		unsigned ncodes = img->bits == 8 ? 256u : 65536u;
		rc->table = malloc(ncodes);
		if (!rc->table)
			return -1;
		for (unsigned k = 0; k < ncodes; k++)
			rc->table[k] = class_of(m, strong, fs_image_compact_value(img->bits, k));
		if (img->bits == 8)
			find_ranges(rc);
	}
	return 0;
}

static void row_classes_free(row_classes *rc)
{
	free(rc->table);
	free(rc->cls);
}

/* n codes' classes by the two ranges, without table lookups: GCC makes
 * the blocks of 16 vector compares. */
static void fill_ranges(const row_classes *rc, const unsigned char *restrict p, unsigned char *restrict c, int n)
{
	unsigned char lo1 = rc->lo1, s1 = rc->span1, lo2 = rc->lo2, s2 = rc->span2;
	int x = 0;
	for (; x + 16 <= n; x += 16)
		for (int j = 0; j < 16; j++)
			c[x + j] = (unsigned char)(((unsigned char)(p[x + j] - lo1) <= s1) |
						   (((unsigned char)(p[x + j] - lo2) <= s2) << 1));
	for (; x < n; x++)
		c[x] = rc->table[p[x]];
}

/* The classes of row y's pixels x0..x1-1 into rc->cls[x0..x1-1]. */
static void row_classes_fill(row_classes *rc, int y, int x0, int x1)
{
	const fs_image *img = rc->img;
	size_t at = (size_t)y * (size_t)img->width;
	unsigned char *c = rc->cls;
	if (img->bits == 8 && rc->ranges) {
		fill_ranges(rc, (const unsigned char *)img->px + at + x0, c + x0, x1 - x0);
	} else if (img->bits == 8) {
		const unsigned char *p = (const unsigned char *)img->px + at;
		for (int x = x0; x < x1; x++)
			c[x] = rc->table[p[x]];
	} else if (img->bits == 16) {
		const unsigned short *p = (const unsigned short *)img->px + at;
		for (int x = x0; x < x1; x++)
			c[x] = rc->table[p[x]];
	} else {
		const float *row = img->data + at;
		for (int x = x0; x < x1; x++)
			c[x] = class_of(rc->m, rc->strong, row[x]);
	}
}

/* The first x in [x, x1) whose class is not 0 (x1 when none): eight
 * pixels at a time over the long stretches outside the mask. */
static int next_in(const unsigned char *c, int x, int x1)
{
	while (x + 8 <= x1) {
		uint64_t w;
		memcpy(&w, c + x, 8);
		if (w)
			break;
		x += 8;
	}
	while (x < x1 && !c[x])
		x++;
	return x;
}

/*
 * Components of mask m in rows [y0, y1) and columns [x0, x1), appended to
 * out, each marked when it holds a pixel of mask strong (NULL: m itself;
 * hysteresis keeps the anti-aliased edges of thin strokes without letting
 * texture in). 0 done, 1 too many runs (out unchanged), -1 out of memory.
 */
static int label(const fs_image *img, int y0, int y1, int x0, int x1, const maskdef *m,
		 const maskdef *strong, comps *out)
{
	run *r = NULL;
	size_t n = 0, cap = 0;
	int *comp_of = NULL;
	int rc = -1;
	size_t prev_start = 0, prev_end = 0; /* runs of the row above: [prev_start, prev_end) */
	row_classes rcl;
	if (row_classes_init(&rcl, img, m, strong))
		goto out;

	for (int y = y0; y < y1; y++) {
		row_classes_fill(&rcl, y, x0, x1);
		const unsigned char *cls = rcl.cls;
		size_t cur_start = n;
		int x = x0;
		while ((x = next_in(cls, x, x1)) < x1) {
			int xs = x, st = 0;
			while (x < x1 && cls[x]) {
				st |= cls[x] >> 1;
				x++;
			}
			if (n == cap) {
				if (cap >= MAX_RUNS) {
					rc = 1;
					goto out;
				}
				size_t nc = cap ? cap * 2 : 1024;
				run *nr = realloc(r, nc * sizeof *nr);
				if (!nr)
					goto out;
				r = nr;
				cap = nc;
			}
			r[n] = (run){y, xs, x - 1, (int)n, st};
			n++;
		}
		/* join with the touching runs of the row above (8-connected) */
		if (y > y0) {
			size_t p = prev_start;
			for (size_t j = cur_start; j < n; j++) {
				while (p < prev_end && r[p].x1 < r[j].x0 - 1)
					p++;
				for (size_t k = p; k < prev_end && r[k].x0 <= r[j].x1 + 1; k++)
					uf_union(r, (int)j, (int)k);
			}
		}
		prev_start = cur_start;
		prev_end = n;
	}
	if (n) {
		comp_of = malloc(n * sizeof *comp_of);
		if (!comp_of)
			goto out;
	}
	for (size_t i = 0; i < n; i++) {
		int root = uf_find(r, (int)i);
		if ((size_t)root == i) {
			comp c = {r[i].x0, r[i].y, r[i].x1, r[i].y, 0, -1, -1, 0, 0, 0, K_OTHER, -1};
			if (comps_push(out, &c))
				goto out;
			comp_of[i] = out->n - 1;
		} else {
			comp_of[i] = comp_of[root]; /* roots come first: the lowest index */
		}
		comp *c = &out->v[comp_of[i]];
		if (r[i].x0 < c->x0)
			c->x0 = r[i].x0;
		if (r[i].x1 > c->x1)
			c->x1 = r[i].x1;
		if (r[i].y > c->y1)
			c->y1 = r[i].y;
		c->area += r[i].x1 - r[i].x0 + 1;
		c->strong |= r[i].strong;
	}
	for (size_t i = 0; i < n; i++) {
		comp *c = &out->v[comp_of[i]];
		int w = c->x1 - c->x0 + 1, len = r[i].x1 - r[i].x0 + 1;
		if (len * 10 >= w * 9) {
			if (c->n_full == 0 || r[i].y < c->full_y0)
				c->full_y0 = r[i].y;
			if (r[i].y > c->full_y1)
				c->full_y1 = r[i].y;
			c->n_full++;
		}
	}
	for (size_t i = 0; i < n; i++) {
		comp *c = &out->v[comp_of[i]];
		if (c->n_full && r[i].y >= c->full_y0 && r[i].y <= c->full_y1)
			continue;
		int w = c->x1 - c->x0 + 1, ez = imax(3, w * 15 / 100);
		if (r[i].x1 > c->x0 + ez && r[i].x0 < c->x1 - ez)
			c->off_end += r[i].x1 - r[i].x0 + 1;
	}
	rc = 0;
out:
	free(r);
	free(comp_of);
	row_classes_free(&rcl);
	return rc;
}

static void classify(comp *c, int W, int H)
{
	int w = c->x1 - c->x0 + 1, h = c->y1 - c->y0 + 1;
	double fill = (double)c->area / ((double)w * h);
	c->kind = K_OTHER;
	/* end ticks may make a bar's box tall; beside its full-length rows it has
	 * nothing but them (a glyph like "m" has) */
	if (w >= 24 && c->n_full > 0 && w >= 5 * c->n_full && h <= w && w * 10 <= W * 7 &&
	    c->n_full == c->full_y1 - c->full_y0 + 1 && c->off_end * 20 <= c->area)
		c->kind = K_LINE;
	else if (h >= 6 && h * 5 <= H && w <= 3 * h && c->area >= 8 && fill >= 0.08)
		c->kind = K_GLYPH;
}

static int cmp_comp_x(const void *a, const void *b)
{
	const comp *p = a, *q = b;
	if (p->x0 != q->x0)
		return (p->x0 > q->x0) - (p->x0 < q->x0);
	return (p->y0 > q->y0) - (p->y0 < q->y0);
}

static int height(int y0, int y1)
{
	return y1 - y0 + 1;
}

/* Vertical overlap of [a0, a1] and [b0, b1] in rows (<= 0: none). */
static int voverlap(int a0, int a1, int b0, int b1)
{
	return imin(a1, b1) - imax(a0, b0) + 1;
}

static int gap_x(int a0, int a1, int b0, int b1)
{
	if (a1 < b0)
		return b0 - a1 - 1;
	if (b1 < a0)
		return a0 - b1 - 1;
	return 0;
}

/*
 * Groups the glyphs of cs (sorted by x here) into words with a common
 * baseline; sets comp.word. 0, or -1 out of memory.
 */
static int group_words(comps *cs, words *ws)
{
	int n = cs->n;
	if (n > 1)
		qsort(cs->v, (size_t)n, sizeof *cs->v, cmp_comp_x);
	int *parent = malloc((size_t)(n ? n : 1) * sizeof *parent);
	double *hs = malloc((size_t)(n ? n : 1) * sizeof *hs);
	double *bs = malloc((size_t)(n ? n : 1) * sizeof *bs);
	double *ts = malloc((size_t)(n ? n : 1) * sizeof *ts);
	int rc = -1;
	if (!parent || !hs || !bs || !ts)
		goto out;
	for (int i = 0; i < n; i++)
		parent[i] = i;
	for (int i = 0; i < n; i++) {
		const comp *a = &cs->v[i];
		if (a->kind != K_GLYPH)
			continue;
		int ha = height(a->y0, a->y1);
		for (int j = i + 1; j < n; j++) {
			const comp *b = &cs->v[j];
			int hb = height(b->y0, b->y1);
			if (b->x0 - a->x1 - 1 > 3 * imax(ha, 2 * hb))
				break; /* sorted by x0: nothing further can be near */
			if (b->kind != K_GLYPH)
				continue;
			int hmin = imin(ha, hb), hmaxv = imax(ha, hb);
			if (gap_x(a->x0, a->x1, b->x0, b->x1) * 10 > 16 * hmaxv)
				continue;
			if (voverlap(a->y0, a->y1, b->y0, b->y1) * 10 < 4 * hmin)
				continue;
			if (hmaxv * 10 > 22 * hmin)
				continue;
			int ri = i, rj = j;
			while (parent[ri] != ri)
				ri = parent[ri];
			while (parent[rj] != rj)
				rj = parent[rj];
			if (ri != rj)
				parent[imax(ri, rj)] = imin(ri, rj);
		}
	}
	for (int i = 0; i < n; i++) {
		int r = i;
		while (parent[r] != r)
			r = parent[r];
		parent[i] = r;
	}
	for (int root = 0; root < n; root++) {
		if (parent[root] != root || cs->v[root].kind != K_GLYPH)
			continue;
		int k = 0;
		for (int i = root; i < n; i++)
			if (parent[i] == root) {
				hs[k] = height(cs->v[i].y0, cs->v[i].y1);
				bs[k] = cs->v[i].y1;
				ts[k] = cs->v[i].y0;
				k++;
			}
		if (k < 2)
			continue;
		/* a glyph is on the line when its foot sits on the common baseline or
		 * its head under the common top ("µ" descends, "m" does not, both
		 * reach the x-height) */
		double bmed, tmed, hmed;
		double *cp = malloc((size_t)k * sizeof *cp);
		if (!cp)
			goto out;
		memcpy(cp, hs, (size_t)k * sizeof *cp);
		hmed = fs_median_upper(cp, (size_t)k);
		memcpy(cp, bs, (size_t)k * sizeof *cp);
		bmed = fs_median_upper(cp, (size_t)k);
		memcpy(cp, ts, (size_t)k * sizeof *cp);
		tmed = fs_median_upper(cp, (size_t)k);
		free(cp);
		double tol = fmax(2.0, 0.15 * hmed);
		int aligned = 0;
		for (int i = 0; i < k; i++)
			if (fabs(bs[i] - bmed) <= tol || fabs(ts[i] - tmed) <= tol)
				aligned++;
		if (aligned < 2 || aligned * 10 < k * 6)
			continue;
		word wd = {cs->v[root].x0, cs->v[root].y0, cs->v[root].x1, cs->v[root].y1, k, hmed, -1};
		for (int i = root; i < n; i++)
			if (parent[i] == root) {
				const comp *c = &cs->v[i];
				wd.x0 = imin(wd.x0, c->x0);
				wd.y0 = imin(wd.y0, c->y0);
				wd.x1 = imax(wd.x1, c->x1);
				wd.y1 = imax(wd.y1, c->y1);
				cs->v[i].word = ws->n;
			}
		if (words_push(ws, &wd))
			goto out;
	}
	rc = 0;
out:
	free(parent);
	free(hs);
	free(bs);
	free(ts);
	return rc;
}

/*
 * Words on one text row join one cluster: similar heights, overlapping rows,
 * at most max_gap apart (a data bar anchored by its scale bar takes its whole
 * row: the fields of a microscope sit in fixed slots, however long the bar).
 */
static int aligned_words(const word *a, const word *b, double max_gap)
{
	double hmin = fmin(a->h, b->h), hmaxv = fmax(a->h, b->h);
	if (hmaxv > 1.8 * hmin)
		return 0;
	if (voverlap(a->y0, a->y1, b->y0, b->y1) < 0.5 * hmin)
		return 0;
	return gap_x(a->x0, a->x1, b->x0, b->x1) <= max_gap;
}

/* A word on the scale bar's row (a label beside the bar, the fields before it). */
static int aligned_line(const word *a, const comp *line)
{
	if (!line)
		return 0;
	int h = (int)a->h;
	return voverlap(a->y0, a->y1, line->y0 - h / 2, line->y1 + h / 2) > 0;
}

/*
 * Grows cluster id from the words already in it: along their rows (and the
 * line's, when not NULL) without a gap limit when a line anchors it, else
 * up to 12 text heights apart.
 */
static void grow_cluster(words *ws, int id, const comp *line)
{
	int changed = 1;
	while (changed) {
		changed = 0;
		for (int i = 0; i < ws->n; i++) {
			if (ws->v[i].cluster != -1)
				continue;
			if (aligned_line(&ws->v[i], line)) {
				ws->v[i].cluster = id;
				changed = 1;
				continue;
			}
			for (int j = 0; j < ws->n; j++)
				if (ws->v[j].cluster == id &&
				    aligned_words(&ws->v[i], &ws->v[j],
						  line ? 1e9 : 12 * fmax(ws->v[i].h, ws->v[j].h))) {
					ws->v[i].cluster = id;
					changed = 1;
					break;
				}
		}
	}
}

/* The word that labels line c (above, below or beside it), or -1. */
static int label_of_line(const comp *c, const words *ws)
{
	int best = -1;
	double best_d = 1e30;
	for (int i = 0; i < ws->n; i++) {
		const word *w = &ws->v[i];
		double h = w->h;
		double d = 1e30;
		int vgap = imax(w->y0 - c->y1, c->y0 - w->y1) - 1;
		int hov = imin(w->x1, c->x1 + (int)h) - imax(w->x0, c->x0 - (int)h);
		if (vgap >= 0 && vgap <= 2.5 * h && hov > 0)
			d = vgap;
		int vov = voverlap(w->y0, w->y1, c->y0 - (int)(h / 2), c->y1 + (int)(h / 2));
		int hg = gap_x(w->x0, w->x1, c->x0, c->x1);
		if (vov > 0 && hg <= 3 * h && hg < d)
			d = hg;
		if (d < best_d) {
			best_d = d;
			best = i;
		}
	}
	return best;
}

typedef struct candidate {
	int ok, has_line, glyphs;
	fs_databar bar;
} candidate;

static int cmp_rect_reading(const void *a, const void *b)
{
	const fs_rect *p = a, *q = b;
	/* same text row when their vertical centres are within half the smaller height */
	double cp = p->y + p->height / 2.0, cq = q->y + q->height / 2.0;
	if (fabs(cp - cq) > 0.5 * imin(p->height, q->height))
		return (cp > cq) - (cp < cq);
	return (p->x > q->x) - (p->x < q->x);
}

static float median_level(const fs_image *img, int x0, int y0, int x1, int y1, const maskdef *skip)
{
	int hist[256] = {0};
	long n = 0;
	x0 = imax(x0, 0);
	y0 = imax(y0, 0);
	x1 = imin(x1, img->width - 1);
	y1 = imin(y1, img->height - 1);
	for (int y = y0; y <= y1; y++)
		for (int x = x0; x <= x1; x++) {
			float v = fs_image_value(img, x, y);
			if (skip && in_mask(skip, v))
				continue;
			int b = (int)lrintf(v * 255.0f);
			hist[b < 0 ? 0 : b > 255 ? 255 : b]++;
			n++;
		}
	if (!n)
		return 0.5f;
	long acc = 0;
	for (int b = 0; b < 256; b++) {
		acc += hist[b];
		if (acc * 2 >= n)
			return b / 255.0f;
	}
	return 1.0f;
}

/*
 * The line's outer ends to sub-pixel precision: on each full-length row the
 * run's end pixels and their outer neighbours count by their coverage
 * between the local background and the bar's level. Rows more than 0.75 px
 * shorter than the longest are left out (bar ends are often rounded); the
 * others are averaged.
 */
#define LINE_ROWS 64
static void measure_line(const fs_image *img, const maskdef *m, const comp *c, fs_databar *b)
{
	double ls[LINE_ROWS], rs[LINE_ROWS];
	int rows = 0;
	int W = img->width;
	/* a compact image's rows are converted one at a time; out of memory
	 * for that buffer measures no row: the line's box is taken below */
	float *buf = img->bits ? malloc((size_t)W * sizeof *buf) : NULL;
	for (int y = c->full_y0; y <= c->full_y1 && rows < LINE_ROWS && (buf || !img->bits); y++) {
		const float *row = fs_image_span(img, 0, y, W, buf);
		/* the longest run of the mask inside the line's box on this row */
		int best_a = -1, best_b = -2;
		int x = c->x0;
		while (x <= c->x1) {
			if (!in_mask(m, row[x])) {
				x++;
				continue;
			}
			int a = x;
			while (x <= c->x1 && in_mask(m, row[x]))
				x++;
			if (x - 1 - a > best_b - best_a) {
				best_a = a;
				best_b = x - 1;
			}
		}
		if (best_a < 0 || best_b - best_a < 4)
			continue;
		/* the bar's level: median of its interior on this row */
		int hist[256] = {0}, n = 0, acc = 0, k;
		for (int xx = best_a + 2; xx <= best_b - 2; xx++) {
			int v = (int)lrintf(row[xx] * 255.0f);
			hist[v < 0 ? 0 : v > 255 ? 255 : v]++;
			n++;
		}
		for (k = 0; k < 255; k++) {
			acc += hist[k];
			if (acc * 2 >= n)
				break;
		}
		double fg = k / 255.0;
		double bgl = 0, bgr = 0;
		int nl = 0, nr = 0;
		for (int d = 2; d <= 4; d++) {
			if (best_a - d >= 0) {
				bgl += row[best_a - d];
				nl++;
			}
			if (best_b + d < W) {
				bgr += row[best_b + d];
				nr++;
			}
		}
		bgl = nl ? bgl / nl : 1.0 - fg;
		bgr = nr ? bgr / nr : 1.0 - fg;
		double cl = 0, cr = 0;
		for (int d = 0; d <= 1; d++) {
			if (best_a - d >= 0 && fabs(fg - bgl) > 1e-6)
				cl += fmin(1.0, fmax(0.0, (row[best_a - d] - bgl) / (fg - bgl)));
			if (best_b + d < W && fabs(fg - bgr) > 1e-6)
				cr += fmin(1.0, fmax(0.0, (row[best_b + d] - bgr) / (fg - bgr)));
		}
		/* outer edges in pixel-centre coordinates: pixel a spans [a - 0.5, a + 0.5] */
		ls[rows] = best_a + 0.5 - cl;
		rs[rows] = best_b - 0.5 + cr;
		rows++;
	}
	free(buf);
	double longest = 0;
	for (int i = 0; i < rows; i++)
		longest = fmax(longest, rs[i] - ls[i]);
	double sum_l = 0, sum_r = 0;
	int used = 0;
	for (int i = 0; i < rows; i++)
		if (rs[i] - ls[i] >= longest - 0.75) {
			sum_l += ls[i];
			sum_r += rs[i];
			used++;
		}
	if (!used) {
		b->line_x0 = c->x0 - 0.5;
		b->line_x1 = c->x1 + 0.5;
	} else {
		b->line_x0 = sum_l / used;
		b->line_x1 = sum_r / used;
	}
	b->line_length_px = b->line_x1 - b->line_x0;
}

/* Fills cand from the words of cluster id and (optionally) line li. */
static void make_candidate(const fs_image *img, const comps *cs, const words *ws, int id, int li,
			   const maskdef *m, int light, candidate *cand)
{
	fs_databar *b = &cand->bar;
	memset(cand, 0, sizeof *cand);
	int x0 = img->width, y0 = img->height, x1 = -1, y1 = -1;
	double hs[FS_DATABAR_MAX_TEXT];
	int nh = 0;
	for (int i = 0; i < ws->n; i++) {
		const word *w = &ws->v[i];
		if (w->cluster != id)
			continue;
		x0 = imin(x0, w->x0);
		y0 = imin(y0, w->y0);
		x1 = imax(x1, w->x1);
		y1 = imax(y1, w->y1);
		cand->glyphs += w->n_glyphs;
		if (b->n_text < FS_DATABAR_MAX_TEXT) {
			b->text[b->n_text++] = (fs_rect){w->x0, w->y0, w->x1 - w->x0 + 1, w->y1 - w->y0 + 1};
			hs[nh++] = w->h;
		}
	}
	qsort(b->text, (size_t)b->n_text, sizeof b->text[0], cmp_rect_reading);
	b->text_height = nh ? fs_median_upper(hs, (size_t)nh) : 0;
	if (li >= 0) {
		const comp *c = &cs->v[li];
		x0 = imin(x0, c->x0);
		y0 = imin(y0, c->y0);
		x1 = imax(x1, c->x1);
		y1 = imax(y1, c->y1);
		b->has_line = 1;
		b->line = (fs_rect){c->x0, c->y0, c->x1 - c->x0 + 1, c->y1 - c->y0 + 1};
		b->line_y = 0.5 * (c->full_y0 + c->full_y1);
		measure_line(img, m, c, b);
		cand->has_line = 1;
	}
	int margin = imax(3, (int)ceil(0.5 * b->text_height));
	x0 = imax(0, x0 - margin);
	y0 = imax(0, y0 - margin);
	x1 = imin(img->width - 1, x1 + margin);
	y1 = imin(img->height - 1, y1 + margin);
	b->found = 1;
	b->rect = (fs_rect){x0, y0, x1 - x0 + 1, y1 - y0 + 1};
	b->light_on_dark = light;
	b->at_top = (y0 + y1) < img->height;
	cand->ok = 1;
}

/* The levels of the ink (glyphs and line) and the background around them. */
static void set_levels(const fs_image *img, const maskdef *m, fs_databar *b)
{
	const fs_rect *r = &b->rect;
	int hist_in[256] = {0};
	long n_in = 0;
	for (int y = r->y; y < r->y + r->height; y++)
		for (int x = r->x; x < r->x + r->width; x++) {
			float v = fs_image_value(img, x, y);
			if (in_mask(m, v)) {
				int k = (int)lrintf(v * 255.0f);
				hist_in[k < 0 ? 0 : k > 255 ? 255 : k]++;
				n_in++;
			}
		}
	long acc = 0;
	for (int k = 0; k < 256 && n_in; k++) {
		acc += hist_in[k];
		if (acc * 2 >= n_in) {
			b->ink_level = k / 255.0f;
			break;
		}
	}
	if (!b->is_band)
		b->background_level =
			median_level(img, r->x, r->y, r->x + r->width - 1, r->y + r->height - 1, m);
}

/*
 * Overlay search for one polarity: components of the mask in the outer
 * strips, words, a line with its label. cand->ok 0 when nothing fits.
 */
static int find_overlay(const fs_image *img, const maskdef *m, const maskdef *strong, int light,
			candidate *cand, char *err, size_t errlen)
{
	comps cs = {0};
	words ws = {0};
	int rc = -1;
	int W = img->width, H = img->height;
	int strip = (int)ceil(H * OVERLAY_STRIP);
	memset(cand, 0, sizeof *cand);

	int r1 = label(img, 0, imin(strip, H), 0, W, m, strong, &cs);
	int r2 = r1 == 0 ? label(img, imax(H - strip, imin(strip, H)), H, 0, W, m, strong, &cs) : r1;
	if (r1 < 0 || r2 < 0) {
		snprintf(err, errlen, "data bar: out of memory");
		goto out;
	}
	if (r1 > 0 || r2 > 0) {
		rc = 0; /* a mask this busy is texture */
		goto out;
	}
	int n_glyph = 0;
	for (int i = 0; i < cs.n; i++) {
		classify(&cs.v[i], W, H);
		n_glyph += cs.v[i].kind == K_GLYPH;
	}
	if (n_glyph > MAX_GLYPHS) {
		rc = 0;
		goto out;
	}
	if (group_words(&cs, &ws)) {
		snprintf(err, errlen, "data bar: out of memory");
		goto out;
	}
	/* the best line with a label: most glyphs in its cluster */
	int best_line = -1, best_id = -1, best_glyphs = 0;
	for (int i = 0; i < cs.n; i++) {
		if (cs.v[i].kind != K_LINE)
			continue;
		int lw = label_of_line(&cs.v[i], &ws);
		if (lw < 0)
			continue;
		for (int k = 0; k < ws.n; k++)
			ws.v[k].cluster = -1;
		ws.v[lw].cluster = 0;
		grow_cluster(&ws, 0, &cs.v[i]);
		int g = 0;
		for (int k = 0; k < ws.n; k++)
			if (ws.v[k].cluster == 0)
				g += ws.v[k].n_glyphs;
		if (g > best_glyphs) {
			best_glyphs = g;
			best_line = i;
			best_id = lw;
		}
	}
	for (int k = 0; k < ws.n; k++)
		ws.v[k].cluster = -1;
	if (best_line >= 0) {
		ws.v[best_id].cluster = 0;
		grow_cluster(&ws, 0, &cs.v[best_line]);
		make_candidate(img, &cs, &ws, 0, best_line, m, light, cand);
	} else {
		/* text alone: three aligned words, eight glyphs or more */
		int id = 0, best = -1, best_g = 0;
		for (int i = 0; i < ws.n; i++) {
			if (ws.v[i].cluster != -1)
				continue;
			ws.v[i].cluster = id;
			grow_cluster(&ws, id, NULL);
			int g = 0, nw = 0;
			for (int k = 0; k < ws.n; k++)
				if (ws.v[k].cluster == id) {
					g += ws.v[k].n_glyphs;
					nw++;
				}
			if (nw >= 3 && g >= 8 && g > best_g) {
				best_g = g;
				best = id;
			}
			id++;
		}
		if (best >= 0)
			make_candidate(img, &cs, &ws, best, -1, m, light, cand);
	}
	if (cand->ok)
		set_levels(img, m, &cand->bar);
	/* drawn text and bars are at full white or black (the file's extreme
	 * value, whatever its bit depth), not at the level of the brightest
	 * tubercles; without a bar to anchor it, text must be at it exactly */
	float tol = cand->has_line ? 0.1f : 0.06f;
	if (cand->ok && (light ? cand->bar.ink_level < 1.0f - tol : cand->bar.ink_level > tol))
		memset(cand, 0, sizeof *cand);
	rc = 0;
out:
	free(cs.v);
	free(ws.v);
	return rc;
}

static int bin64(double v)
{
	int b = (int)(v * 64.0);
	return b < 0 ? 0 : b > 63 ? 63 : b;
}

static int bin256(double v)
{
	double t = v * 255.0;
	/* lrint's rounding (to nearest, ties to even, in the default mode)
	 * without its library call: adding and taking away 1.5 * 2^52 leaves
	 * t rounded to an integer, exactly, for |t| < 2^51. Outside [-1, 256]
	 * (and NaN) lrint itself, for the same answer in every case. */
	if (t >= -1.0 && t <= 256.0) {
		const double magic = 6755399441055744.0;
		int b = (int)((t + magic) - magic); /* IEEE: not simplified without -ffast-math */
		return b < 0 ? 0 : b > 255 ? 255 : b;
	}
	int b = (int)lrint(t);
	return b < 0 ? 0 : b > 255 ? 255 : b;
}

/*
 * Per-row dominant level: the commonest 8-bit value +- 3. A band is drawn,
 * not imaged: its background is exact (JPEG moves it by a level or two),
 * where even a smooth, quiet image spreads wider.
 */
static void row_level(const fs_image *img, int y, double *level, double *frac)
{
	int hist[256] = {0};
	int W = img->width;
	if (img->bits) {
		/* compact: its samples are levels already (a 16-bit one's
		 * converted one at a time) */
		for (int x = 0; x < W; x++)
			hist[bin256(fs_image_value(img, x, y))]++;
	} else {
		const float *row = img->data + (size_t)y * (size_t)W;
		for (int x = 0; x < W; x++)
			hist[bin256(row[x])]++;
	}
	int best = 0, best_n = -1;
	for (int b = 0; b < 256; b++) {
		int n = 0;
		for (int k = imax(0, b - 3); k <= imin(255, b + 3); k++)
			n += hist[k];
		if (n > best_n) {
			best_n = n;
			best = b;
		}
	}
	double s = 0;
	int n = 0;
	for (int k = imax(0, best - 3); k <= imin(255, best + 3); k++) {
		s += (double)k * hist[k];
		n += hist[k];
	}
	*level = n ? s / n / 255.0 : 0;
	*frac = (double)best_n / W;
}

/* Levels of the rows *known..i counted from the top or bottom edge into
 * lev and fr (row_level), when not there yet. */
static void edge_rows(const fs_image *img, int top, int i, double *lev, double *fr, int *known)
{
	for (; *known <= i; ++*known)
		row_level(img, top ? *known : img->height - 1 - *known, &lev[*known], &fr[*known]);
}

/*
 * Band search at one edge (top when top is set): uniform rows from the edge,
 * then glyphs in them. cand->ok 0 when there is no band with text.
 */
static int find_band(const fs_image *img, int top, candidate *cand, char *err, size_t errlen)
{
	int W = img->width, H = img->height;
	int max_h = H / 3, min_h = imax(8, H / 50);
	double *lev = malloc((size_t)(max_h + 2) * sizeof *lev);
	double *fr = malloc((size_t)(max_h + 2) * sizeof *fr);
	comps cs = {0};
	words ws = {0};
	int rc = -1;
	memset(cand, 0, sizeof *cand);
	if (!lev || !fr) {
		snprintf(err, errlen, "data bar: out of memory");
		goto out;
	}
	/* rows counted from the edge, each row's level found when first
	 * needed (edge_rows): the loops below stop at the first rows that are not
	 * band, so an image without a band reads a few rows, not a third */
	int n = max_h + 1 < H ? max_h + 1 : H, known = 0;
	/* the band's level: the commonest level among the edge rows that are mostly one level */
	int votes[64] = {0};
	for (int i = 0; i < n && (edge_rows(img, top, i, lev, fr, &known), fr[i] >= 0.4); i++)
		votes[bin64(lev[i])]++;
	int vb = 0;
	for (int b = 1; b < 64; b++)
		if (votes[b] > votes[vb])
			vb = b;
	if (!votes[vb]) {
		rc = 0;
		goto out;
	}
	double band_level = 0;
	int nb = 0;
	for (int i = 0; i < n && fr[i] >= 0.4; i++)
		if (bin64(lev[i]) == vb) {
			band_level += lev[i];
			nb++;
		}
	band_level /= nb;
	/* band rows: mostly the band's level, or uniform (a separator line); a
	 * few rows dense with glyph strokes ("=", "E", a thick bar) may lie between */
	int bh = 0, miss = 0;
	for (int i = 0; i < n; i++) {
		edge_rows(img, top, i, lev, fr, &known);
		if ((fr[i] >= 0.3 && fabs(lev[i] - band_level) <= 0.05) || fr[i] >= 0.9) {
			bh = i + 1;
			miss = 0;
		} else if (++miss > 4) {
			break;
		}
	}
	if (bh < min_h || bh > max_h) {
		rc = 0; /* too thin, or uniform beyond a third of the image: not a band */
		goto out;
	}
	int y0 = top ? 0 : H - bh, y1 = top ? bh - 1 : H - 1;
	/* a band stands apart from the image beside it: another level, or a separator line */
	int sep = 0;
	for (int i = imax(0, bh - 4); i < bh; i++)
		if (fr[i] >= 0.9 && fabs(lev[i] - band_level) >= BAND_INK)
			sep = 1;
	int iy0 = top ? bh : imax(0, H - bh - 16), iy1 = top ? imin(H - 1, bh + 15) : H - bh - 1;
	if (!sep && fabs(median_level(img, 0, iy0, W - 1, iy1, NULL) - band_level) < 0.1) {
		rc = 0;
		goto out;
	}
	maskdef m = {(float)(band_level - BAND_INK), (float)(band_level + BAND_INK), 1};
	int lr = label(img, y0, y1 + 1, 0, W, &m, NULL, &cs);
	if (lr < 0) {
		snprintf(err, errlen, "data bar: out of memory");
		goto out;
	}
	if (lr > 0) {
		rc = 0;
		goto out;
	}
	int n_glyph = 0;
	for (int i = 0; i < cs.n; i++) {
		classify(&cs.v[i], W, H);
		n_glyph += cs.v[i].kind == K_GLYPH;
	}
	if (n_glyph > MAX_GLYPHS || group_words(&cs, &ws)) {
		if (n_glyph <= MAX_GLYPHS) {
			snprintf(err, errlen, "data bar: out of memory");
			goto out;
		}
		rc = 0;
		goto out;
	}
	int glyphs = 0;
	for (int i = 0; i < ws.n; i++) {
		glyphs += ws.v[i].n_glyphs;
		ws.v[i].cluster = 0;
	}
	if (glyphs < 3) {
		rc = 0;
		goto out;
	}
	/* the longest line, the bar */
	int li = -1;
	for (int i = 0; i < cs.n; i++)
		if (cs.v[i].kind == K_LINE && (li < 0 || cs.v[i].x1 - cs.v[i].x0 > cs.v[li].x1 - cs.v[li].x0))
			li = i;
	make_candidate(img, &cs, &ws, 0, li, &m, band_level < 0.5, cand);
	fs_databar *b = &cand->bar;
	b->is_band = 1;
	b->at_top = top;
	/* three rows more on the image side: a separator line blurred by JPEG */
	int grow = imin(3, H - bh);
	b->rect = (fs_rect){0, top ? 0 : y0 - grow, W, bh + grow};
	b->background_level = (float)band_level;
	set_levels(img, &m, b);
	rc = 0;
out:
	free(lev);
	free(fr);
	free(cs.v);
	free(ws.v);
	return rc;
}

static inline int bin1024(float v)
{
	int b = (int)(v * 1023 + 0.5f);
	return b < 0 ? 0 : b >= 1024 ? 1023 : b;
}

/* Histogram quantiles of the whole image (1024 bins). */
static void levels(const fs_image *img, double *vmin, double *vmed, double *vmax)
{
	enum { NB = 1024 };
	/* four histograms filled in turn, added up after: a flat image puts
	 * every pixel in one bin, and one counter would then be a chain of
	 * dependent increments through memory */
	long *hist = calloc(4 * (size_t)NB, sizeof *hist);
	size_t n = (size_t)img->width * (size_t)img->height;
	*vmin = 0;
	*vmed = 0.5;
	*vmax = 1;
	if (!hist)
		return;
	size_t i = 0;
	if (img->bits) {
		/* compact: one histogram of the 256 or 65536 codes, then each
		 * code binned as the float it stands for (the same counts) */
		size_t ncodes = img->bits == 8 ? 256 : 65536;
		long *codes = calloc(ncodes, sizeof *codes);
		if (!codes) {
			free(hist);
			return;
		}
		if (img->bits == 8) {
			/* four histograms in turn, as for floats below: an 8-bit
			 * image is mostly runs of one code, and one counter per
			 * code was a chain of dependent increments (a sixth of a
			 * second for 100 MP) */
			const unsigned char *px = img->px;
			long sub[3][256] = {{0}};
			for (; i + 4 <= n; i += 4) {
				codes[px[i]]++;
				sub[0][px[i + 1]]++;
				sub[1][px[i + 2]]++;
				sub[2][px[i + 3]]++;
			}
			for (; i < n; i++)
				codes[px[i]]++;
			for (int k = 0; k < 256; k++)
				codes[k] += sub[0][k] + sub[1][k] + sub[2][k];
		} else
			for (i = 0; i < n; i++)
				codes[((const unsigned short *)img->px)[i]]++;
		for (size_t k = 0; k < ncodes; k++)
			hist[bin1024(fs_image_compact_value(img->bits, (unsigned)k))] += codes[k];
		free(codes);
		n = 0; /* counted: the float loops below have nothing to do */
	}
	for (; i + 4 <= n; i += 4)
		for (int k = 0; k < 4; k++)
			hist[k * NB + bin1024(img->data[i + k])]++;
	for (; i < n; i++)
		hist[bin1024(img->data[i])]++;
	for (int b = 0; b < NB; b++)
		hist[b] += hist[NB + b] + hist[2 * NB + b] + hist[3 * NB + b];
	int lo = 0, hi = NB - 1;
	while (lo < NB - 1 && !hist[lo])
		lo++;
	while (hi > 0 && !hist[hi])
		hi--;
	long acc = 0;
	int med = 0;
	for (med = 0; med < NB; med++) {
		acc += hist[med];
		if ((size_t)acc * 2 >= n)
			break;
	}
	*vmin = (double)lo / (NB - 1);
	*vmax = (double)hi / (NB - 1);
	*vmed = (double)med / (NB - 1);
	free(hist);
}

static int better(const candidate *a, const candidate *b)
{
	if (!b->ok)
		return a->ok;
	if (!a->ok)
		return 0;
	if (a->has_line != b->has_line)
		return a->has_line > b->has_line;
	return a->glyphs > b->glyphs;
}

int fs_databar_find(const fs_image *img, fs_databar *out, char *err, size_t errlen)
{
	if (out)
		memset(out, 0, sizeof *out);
	if (!img || !(img->data || img->px) || img->width < 1 || img->height < 1 || !out) {
		snprintf(err, errlen, "data bar: no image");
		return -1;
	}
	candidate best = {0}, c;
	for (int top = 0; top <= 1; top++) {
		if (find_band(img, top, &c, err, errlen))
			return -1;
		if (better(&c, &best))
			best = c;
	}
	if (!best.ok) {
		double vmin, vmed, vmax;
		levels(img, &vmin, &vmed, &vmax);
		/* the overlay's glyphs sit at the image's extreme level, well clear of
		 * the median: their cores within 0.1 of it, their edges within 0.2 */
		double weak_hi = fmax(vmax - 0.2, 0.5 * (vmed + vmax));
		double weak_lo = fmin(vmin + 0.2, 0.5 * (vmed + vmin));
		maskdef bright = {(float)weak_hi, 2.0f, 0}, bright_core = {(float)(vmax - 0.1), 2.0f, 0};
		maskdef dark = {-1.0f, (float)weak_lo, 0}, dark_core = {-1.0f, (float)(vmin + 0.1), 0};
		if (vmax - vmed > 0.2) {
			if (find_overlay(img, &bright, &bright_core, 1, &c, err, errlen))
				return -1;
			if (better(&c, &best))
				best = c;
		}
		if (vmed - vmin > 0.2) {
			if (find_overlay(img, &dark, &dark_core, 0, &c, err, errlen))
				return -1;
			if (better(&c, &best))
				best = c;
		}
	}
	if (best.ok)
		*out = best.bar;
	return 0;
}
