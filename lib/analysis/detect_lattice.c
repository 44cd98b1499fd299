/*
 * detect_lattice.c - method "lattice": auto's detection, then the lattice
 * is used to recover missed tubercles and reject off-lattice ones.
 *
 * The lattice vectors are the autocorrelation peaks of fs_lattice_estimate
 * (so a sheared lattice keeps its own vectors). Recovery: from every
 * tubercle, each lattice vector predicts a neighbour; where no tubercle lies
 * within 0.3 pitch of the prediction, the strongest response within 0.25
 * pitch is measured and accepted (source "lattice") if it stands out by at
 * least half of auto's prominence limit (under the dome rule also if its
 * patch, whole inside the frame, looks like the first pass's domes: the
 * likeness below). Rejection: a tubercle with no
 * neighbour at 0.7..1.3 pitch (with two or more tubercles found) is dropped.
 * Neighbours are looked up in a grid of pitch-sized cells.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/blob_measure.h"
#include "analysis/detect_cand_domes.h"
#include "analysis/detect_cand_tiled.h"
#include "analysis/detect_methods.h"
#include "base/sorting.h"

/* Tubercles bucketed in square cells of side cell px (a pitch), so the
 * neighbour look-ups cost O(1) each instead of a scan of the whole list. */
typedef struct grid {
	double cell;
	int gw, gh;
	long *head; /* gw * gh, -1 = empty */
	long *next; /* per tubercle */
	size_t cap, n;
} grid;

static int grid_init(grid *g, int w, int h, double cell)
{
	memset(g, 0, sizeof *g);
	g->cell = cell;
	g->gw = (int)(w / cell) + 1;
	g->gh = (int)(h / cell) + 1;
	g->head = malloc((size_t)g->gw * g->gh * sizeof *g->head);
	if (!g->head)
		return -1;
	for (size_t i = 0; i < (size_t)g->gw * g->gh; i++)
		g->head[i] = -1;
	return 0;
}

static void grid_free(grid *g)
{
	free(g->head);
	free(g->next);
	memset(g, 0, sizeof *g);
}

static int cell_of(const grid *g, double v, int n)
{
	int c = (int)floor(v / g->cell);
	return c < 0 ? 0 : c >= n ? n - 1 : c;
}

/* Adds the tubercles of l not yet in the grid (indices g->n .. l->n - 1). */
static int grid_sync(grid *g, const fs_tubercle_list *l)
{
	if (l->n > g->cap) {
		size_t nc = l->n * 2;
		long *p = realloc(g->next, nc * sizeof *p);
		if (!p)
			return -1;
		g->next = p;
		g->cap = nc;
	}
	for (; g->n < l->n; g->n++) {
		int cx = cell_of(g, l->items[g->n].centroid_x, g->gw);
		int cy = cell_of(g, l->items[g->n].centroid_y, g->gh);
		g->next[g->n] = g->head[(size_t)cy * g->gw + cx];
		g->head[(size_t)cy * g->gw + cx] = (long)g->n;
	}
	return 0;
}

/* 1 if a tubercle other than skip lies at a distance in [lo, hi) of (x, y). */
static int any_within(const grid *g, const fs_tubercle_list *l, double x, double y, double lo,
		      double hi, long skip)
{
	int r = (int)ceil(hi / g->cell);
	int cx = cell_of(g, x, g->gw), cy = cell_of(g, y, g->gh);
	for (int yy = cy - r; yy <= cy + r; yy++) {
		if (yy < 0 || yy >= g->gh)
			continue;
		for (int xx = cx - r; xx <= cx + r; xx++) {
			if (xx < 0 || xx >= g->gw)
				continue;
			for (long j = g->head[(size_t)yy * g->gw + xx]; j >= 0; j = g->next[j]) {
				double d = hypot(l->items[j].centroid_x - x, l->items[j].centroid_y - y);
				if (j != skip && d >= lo && d < hi)
					return 1;
			}
		}
	}
	return 0;
}

/* The neighbour of tubercle i that lattice vector k predicts, into (px,
 * py), and whether it lies mg px or more inside the w x h image: the
 * probes' round and the reading of their results must pass over the same
 * sites, or a site would be read that was never searched. */
static int predict_inside(const fs_tubercle_list *T, const fs_lattice *lat, size_t i, int k, double mg, int w, int h,
			  double *px, double *py)
{
	*px = T->items[i].centroid_x + lat->peak_dist[k] * cos(lat->peak_angle[k]);
	*py = T->items[i].centroid_y + lat->peak_dist[k] * sin(lat->peak_angle[k]);
	return !(*px < mg || *py < mg || *px > w - 1 - mg || *py > h - 1 - mg);
}

static int cmp_probe(const void *a, const void *b)
{
	long x = ((const fs_lattice_probe *)a)->key, y = ((const fs_lattice_probe *)b)->key;
	return x < y ? -1 : x > y;
}

/* The search of key among the n sorted ones, or NULL. */
static const fs_lattice_probe *probe_find(const fs_lattice_probe *q, size_t n, long key)
{
	fs_lattice_probe k = {.key = key};
	return n ? bsearch(&k, q, n, sizeof *q, cmp_probe) : NULL;
}

/* The recovered sites' likeness to the first pass's domes (h34j): the
 * normalised correlation of a site's patch (a disc of half a pitch about
 * it, on the measurement's source image, each patch's mean taken out)
 * with the mean of the first pass's domes' patches. Why: a site is
 * measured alone, so the base rule's circle and the flat-ground floor see
 * only its disc, which at a band's edge or a missing site holds the
 * band's straight edge or the neighbours' feet - steps enough to pass
 * both; the image's own dome (bright cap or rim inside its base, ground
 * around it) is what such a disc does not look like (a hole ringed by
 * neighbours correlates negatively, a band's edge weakly). Judged against
 * the first pass's own domes, before the scale region's drop, so the
 * verdict does not depend on which tubercles are sized together. */
typedef struct likeness {
	int n;          /* offsets of the disc; 0: no template (not judged) */
	int r;          /* its radius, src px */
	int *dx, *dy;
	double *tpl;    /* zero-mean mean patch */
	double tt;      /* its squared norm */
	double floor_;  /* below this a site is not a dome */
	const fs_image *src;
	double f;
} likeness;

/* At most this many of the first pass's domes (evenly spread over its
 * list) make the template and its median: the cost stays a few thousand
 * patches on any image. */
#define LIKENESS_DOMES 512
/* A site reading below this share of the first pass's domes' median
 * correlation is not a dome (see docs/paper-figures.md, h34j). */
#define LIKENESS_SHARE 0.5

static void patch_read(const likeness *L, double x, double y, double *v)
{
	double sx = (x + 0.5) / L->f - 0.5, sy = (y + 0.5) / L->f - 0.5, mean = 0;
	for (int k = 0; k < L->n; k++) {
		v[k] = fs_image_sample_clamped_any(L->src, sx + L->dx[k], sy + L->dy[k]);
		mean += v[k];
	}
	mean /= L->n;
	for (int k = 0; k < L->n; k++)
		v[k] -= mean;
}

/* Whether the disc about (x, y) lies whole inside src. Beyond the frame
 * patch_read repeats the edge's pixels, and what the frame cut off is
 * not in the image: a site whose disc runs past it is not judged, and a
 * site that is not judged is not recovered (fs_detect_lattice). */
static int likeness_whole(const likeness *L, double x, double y)
{
	double sx = (x + 0.5) / L->f - 0.5, sy = (y + 0.5) / L->f - 0.5;
	return sx - L->r >= 0 && sy - L->r >= 0 && sx + L->r <= L->src->width - 1 &&
	       sy + L->r <= L->src->height - 1;
}

static double likeness_at(const likeness *L, double x, double y, double *v)
{
	patch_read(L, x, y, v);
	double pt = 0, pp = 0;
	for (int k = 0; k < L->n; k++) {
		pt += v[k] * L->tpl[k];
		pp += v[k] * v[k];
	}
	return pp > 0 && L->tt > 0 ? pt / sqrt(pp * L->tt) : 0;
}

/* The template from the measured tubercles of T (the first pass), on src
 * (the input reduced by f), discs of radius 0.5 a input px. -1 on out of
 * memory; L->n 0 with fewer than 8 domes. */
static int likeness_make(likeness *L, const fs_tubercle_list *T, const fs_image *src, int f, double a)
{
	memset(L, 0, sizeof *L);
	L->src = src;
	L->f = f;
	int R = (int)(0.5 * a / f);
	L->r = R;
	size_t nd = 0;
	for (size_t i = 0; i < T->n; i++)
		nd += fs_tubercle_measured(&T->items[i]);
	if (!src || R < 2 || nd < 8)
		return 0;
	size_t cap = (size_t)(2 * R + 1) * (2 * R + 1);
	L->dx = malloc(cap * sizeof *L->dx);
	L->dy = malloc(cap * sizeof *L->dy);
	L->tpl = calloc(cap, sizeof *L->tpl);
	size_t stride = nd > LIKENESS_DOMES ? (nd + LIKENESS_DOMES - 1) / LIKENESS_DOMES : 1;
	double *v = malloc(cap * sizeof *v), *cs = malloc((nd / stride + 1) * sizeof *cs);
	if (!L->dx || !L->dy || !L->tpl || !v || !cs) {
		free(v);
		free(cs);
		return -1;
	}
	for (int y = -R; y <= R; y++)
		for (int x = -R; x <= R; x++)
			if (x * x + y * y <= R * R) {
				L->dx[L->n] = x;
				L->dy[L->n] = y;
				L->n++;
			}
	size_t used = 0, j = 0;
	for (size_t i = 0; i < T->n; i++) {
		if (!fs_tubercle_measured(&T->items[i]) || j++ % stride)
			continue;
		patch_read(L, T->items[i].centroid_x, T->items[i].centroid_y, v);
		for (int k = 0; k < L->n; k++)
			L->tpl[k] += v[k];
		used++;
	}
	for (int k = 0; k < L->n; k++) {
		L->tpl[k] /= (double)used;
		L->tt += L->tpl[k] * L->tpl[k];
	}
	size_t nc = 0;
	j = 0;
	for (size_t i = 0; i < T->n; i++) {
		if (!fs_tubercle_measured(&T->items[i]) || j++ % stride)
			continue;
		cs[nc++] = likeness_at(L, T->items[i].centroid_x, T->items[i].centroid_y, v);
	}
	double med = fs_median_double(cs, nc);
	L->floor_ = LIKENESS_SHARE * med;
	free(v);
	free(cs);
	if (!(med > 0))
		L->n = 0;
	return 0;
}

static void likeness_free(likeness *L)
{
	free(L->dx);
	free(L->dy);
	free(L->tpl);
	memset(L, 0, sizeof *L);
}

int fs_detect_lattice(fs_image **pre, const fs_det_source *tiled, const fs_meas *m, int f, const fs_params *p,
		      const fs_lattice *lat, fs_detect_result *out, char *err, size_t errlen)
{
	int rc = -1;
	fs_image *resp = NULL;
	fs_cand_list c = {0};
	fs_tubercle_list *T = &out->tubercles;
	double a = lat->pitch_px;
	fs_lattice_probe *q = NULL;
	size_t nq = 0, capq = 0;
	likeness lk = {0};
	double *lkv = NULL;
	grid g;
	if (grid_init(&g, m->width, m->height, a)) {
		fs_image_free(*pre);
		*pre = NULL;
		snprintf(err, errlen, "lattice: out of memory");
		return -1;
	}
	/* the dome rule judges a recovered site, measured alone, against
	 * the flat-ground floor of the first pass's domes (detect_measure.h):
	 * a missing site ringed by its neighbours is flat ground */
	double flat = 0;
	fs_meas mm = *m;
	mm.flat_spread = &flat;
	m = &mm;
	if (fs_detect_auto_candidates(pre, tiled, f, p, a, m->dome, &c, tiled ? NULL : &resp, err, errlen))
		goto out;
	if (fs_det_measure(m, &c, 0.6 * a, 0.4 * a, p, FS_SOURCE_EXTRACTED, T) ||
	    grid_sync(&g, T))
		goto oom;
	/* (the dome rule only: the outline rule's sizing keeps no site
	 * where no dome is on test_detect's lattice, and its results stay
	 * as they were) */
	if ((m->dome && likeness_make(&lk, T, m->src ? m->src : m->img, m->f, a)) ||
	    (lk.n && !(lkv = malloc((size_t)lk.n * sizeof *lkv))))
		goto oom;
	double minprom = 1e30;
	for (size_t i = 0; i < c.n; i++)
		minprom = fmin(minprom, c.items[i].response);
	int w = m->width, h = m->height;
	int sw = tiled ? tiled->width : resp->width, sh = tiled ? tiled->height : resp->height;
	double mg = p->edge_margin_px > a / 2 ? p->edge_margin_px : a / 2;
	/* The search around a prediction: the strongest reduced response
	 * within R px, and its prominence. */
	int R = (int)(0.25 * a / f) + 1;
	long npk = lat->n_peaks;
	/* Recovery, two rounds (a recovered tubercle can predict the next one). */
	for (int round = 0; round < 2 && T->n; round++) {
		size_t n0 = T->n;
		/* The searches the round may make, made first and all at once
		 * (tile by tile when tiled: the response is not kept): those of
		 * every prediction with no tubercle near it yet and none made in
		 * an earlier round. A tubercle recovered during the round only
		 * rules some out, and a search's result does not depend on when
		 * it is made, so the round below is the one that searched as it
		 * went. */
		size_t first = nq;
		for (size_t i = 0; i < n0; i++) {
			for (int k = 0; k < lat->n_peaks; k++) {
				double px, py;
				if (!predict_inside(T, lat, i, k, mg, w, h, &px, &py))
					continue;
				if (any_within(&g, T, px, py, 0, 0.3 * a, -1) ||
				    probe_find(q, first, (long)i * npk + k))
					continue;
				if (nq == capq) {
					size_t nc = capq ? 2 * capq : 256;
					fs_lattice_probe *np = realloc(q, nc * sizeof *np);
					if (!np)
						goto oom;
					q = np;
					capq = nc;
				}
				q[nq++] = (fs_lattice_probe){.key = (long)i * npk + k,
							     .sx = (px + 0.5) / f - 0.5,
							     .sy = (py + 0.5) / f - 0.5};
			}
		}
		if (nq == first) {
			/* no search this round (q may still be NULL: no q + first) */
		} else if (tiled && m->dome) {
			/* the dome rule's correlation (or votes), crop by crop */
			if (fs_dome_probe_tiled(tiled->dome, R, 0.6 * a / f, q + first, nq - first, err, errlen))
				goto out;
		} else if (tiled) {
			if (fs_lattice_probe_tiled(tiled, p->auto_smoothing * a / f, R, 0.6 * a / f, q + first,
						   nq - first, err, errlen))
				goto out;
		} else {
			fs_lattice_probe_crop(resp, 0, 0, sw, sh, R, 0.6 * a / f, q + first, nq - first);
		}
		if (nq > 1) /* (q is NULL before the first search) */
			qsort(q, nq, sizeof *q, cmp_probe);
		for (size_t i = 0; i < n0; i++) {
			for (int k = 0; k < lat->n_peaks; k++) {
				double px, py;
				if (!predict_inside(T, lat, i, k, mg, w, h, &px, &py))
					continue;
				if (any_within(&g, T, px, py, 0, 0.3 * a, -1))
					continue;
				const fs_lattice_probe *s = probe_find(q, nq, (long)i * npk + k);
				if (!s) {
					snprintf(err, errlen, "lattice: a search was not made");
					goto out;
				}
				fs_cand_list one = {0};
				fs_cand cc = {s->bx, s->by, s->prom, 0.3 * a};
				if (fs_cand_append(&one, &cc))
					goto oom;
				int ok = one.items[0].response >= 0.5 * minprom;
				one.items[0].x = (s->bx + 0.5) * f - 0.5;
				one.items[0].y = (s->by + 0.5) * f - 0.5;
				size_t before = T->n;
				if (ok && fs_det_measure(m, &one, 0.6 * a, 0.4 * a, p, FS_SOURCE_LATTICE, T)) {
					fs_cand_free(&one);
					goto oom;
				}
				/* The dome rule's base circle moves its centre to
				 * the circle the rays' steps draw; at an empty site
				 * that is the ring of its neighbours' bases or the
				 * gap between them, not the predicted site: a
				 * recovered tubercle is one found where the lattice
				 * predicts it (the 0.3 pitch that says a site is
				 * taken, above). */
				if (m->dome && T->n > before &&
				    hypot(T->items[before].centroid_x - px, T->items[before].centroid_y - py) >= 0.3 * a)
					T->n = before;
				/* A site found with its disc past the frame is not
				 * judged, so not recovered: the search keeps half a
				 * pitch (mg) from the frame, and the found site, which
				 * the base circle moves, keeps its disc's (about the
				 * same) inside too. On P1 Fig2 the margin's debris at
				 * (667, 201), its disc 2.7 px past the right edge, read
				 * 0.497 or 0.508 of the domes' median by the formation
				 * fit's last bits, and its inside part alone 0.52
				 * (docs/paper-figures.md, h40u, h41h). */
				if (lk.n && T->n > before) {
					double x = T->items[before].centroid_x, y = T->items[before].centroid_y;
					if (!likeness_whole(&lk, x, y) || !(likeness_at(&lk, x, y, lkv) >= lk.floor_))
						T->n = before;
				}
				if (grid_sync(&g, T)) {
					fs_cand_free(&one);
					goto oom;
				}
				fs_cand_free(&one);
			}
		}
	}
	/* Rejection of isolated (off-lattice) tubercles. */
	if (T->n >= 2) {
		size_t k = 0;
		/* Decide for all first: the grid indexes the list as it is. */
		unsigned char *keep = malloc(T->n);
		if (!keep)
			goto oom;
		for (size_t i = 0; i < T->n; i++)
			keep[i] = (unsigned char)any_within(&g, T, T->items[i].centroid_x,
							    T->items[i].centroid_y, 0.7 * a,
							    nextafter(1.3 * a, INFINITY), (long)i);
		for (size_t i = 0; i < T->n; i++)
			if (keep[i])
				T->items[k++] = T->items[i];
		free(keep);
		T->n = k;
		for (size_t i = 0; i < T->n; i++)
			T->items[i].id = (int)i + 1;
	}
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "lattice: out of memory");
out:
	grid_free(&g);
	likeness_free(&lk);
	free(lkv);
	fs_image_free(resp);
	fs_cand_free(&c);
	free(q);
	return rc;
}
