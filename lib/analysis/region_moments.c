/*
 * region_moments.c - streaming labelling of a mask's 8-connected regions
 * (see region_moments.h).
 *
 * Each row is cut into runs of set bits. A run joins the regions of the
 * previous row's runs it touches (8-connected: overlapping or diagonal);
 * when it touches several, they are merged (the absorbed one forwards to
 * the survivor until the row ends). A region none of whose runs continues
 * on the current row is complete: it is handed to the callback and its
 * slot reused.
 */
#include "analysis/region_moments.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct run {
	int x0, x1; /* inclusive */
	int reg;
};

struct reg {
	fs_region_moments m;
	int parent; /* -1: a live region; else absorbed into parent this row */
	int row;    /* the last row a run joined it */
	int done;
};

struct scan {
	struct reg *regs;
	int nregs, cap;
	int *free_list, nfree;
};

static int find(struct scan *s, int r)
{
	while (s->regs[r].parent >= 0)
		r = s->regs[r].parent;
	return r;
}

static int new_reg(struct scan *s, long long first, int row)
{
	int r;
	if (s->nfree) {
		r = s->free_list[--s->nfree];
	} else {
		if (s->nregs == s->cap) {
			int nc = s->cap ? 2 * s->cap : 256;
			struct reg *p = realloc(s->regs, (size_t)nc * sizeof *p);
			int *f = realloc(s->free_list, (size_t)nc * sizeof *f);
			if (p)
				s->regs = p;
			if (f)
				s->free_list = f;
			if (!p || !f)
				return -1;
			s->cap = nc;
		}
		r = s->nregs++;
	}
	memset(&s->regs[r], 0, sizeof s->regs[r]);
	s->regs[r].m.first = first;
	s->regs[r].parent = -1;
	s->regs[r].row = row;
	return r;
}

static void absorb(struct scan *s, int into, int from)
{
	fs_region_moments *a = &s->regs[into].m;
	const fs_region_moments *b = &s->regs[from].m;
	a->S += b->S;
	a->Sx += b->Sx;
	a->Sy += b->Sy;
	a->Sxx += b->Sxx;
	a->Syy += b->Syy;
	a->Sxy += b->Sxy;
	a->first = b->first < a->first ? b->first : a->first;
	s->regs[from].parent = into;
}

/* sum of k^2 for k = 0..n */
static long long sq_sum(long long n)
{
	return n < 0 ? 0 : n * (n + 1) * (2 * n + 1) / 6;
}

static void add_run(fs_region_moments *m, int x0, int x1, int y)
{
	long long n = x1 - x0 + 1;
	long long sx = (long long)(x0 + x1) * n / 2;
	m->S += (double)n;
	m->Sx += (double)sx;
	m->Sy += (double)n * y;
	m->Sxx += (double)(sq_sum(x1) - sq_sum(x0 - 1));
	m->Syy += (double)n * ((double)y * y);
	m->Sxy += (double)sx * y;
}

static int row_runs(const unsigned char *row, int w, struct run *out)
{
	int n = 0;
	for (int x = 0; x < w;) {
		/* whole empty bytes are skipped at once */
		if (!(x & 7) && !row[x >> 3]) {
			x += 8;
			continue;
		}
		if (!(row[x >> 3] >> (x & 7) & 1)) {
			x++;
			continue;
		}
		int x0 = x;
		while (x < w && (row[x >> 3] >> (x & 7) & 1))
			x++;
		out[n++] = (struct run){x0, x - 1, -1};
	}
	return n;
}

int fs_regions_scan(const unsigned char *bits, size_t stride, int w, int h, fs_region_fn fn, void *ctx, char *err,
		    size_t errlen)
{
	int rc = -1;
	struct scan s = {0};
	/* at most one run in two pixels, plus one */
	struct run *prev = malloc(((size_t)w / 2 + 2) * sizeof *prev);
	struct run *cur = malloc(((size_t)w / 2 + 2) * sizeof *cur);
	int *dead = malloc(((size_t)w + 4) * sizeof *dead); /* absorbed + completed, each at most a run */
	int np = 0, ndead = 0;
	if (!prev || !cur || !dead)
		goto oom;
	for (int y = 0; y <= h; y++) {
		int nc = y < h ? row_runs(bits + (size_t)y * stride, w, cur) : 0;
		int j = 0;
		ndead = 0;
		for (int i = 0; i < nc; i++) {
			struct run *r = &cur[i];
			while (j < np && prev[j].x1 < r->x0 - 1)
				j++;
			int g = -1;
			for (int k = j; k < np && prev[k].x0 <= r->x1 + 1; k++) {
				int q = find(&s, prev[k].reg);
				if (g < 0) {
					g = q;
				} else if (q != g) {
					absorb(&s, g, q);
					dead[ndead++] = q;
				}
			}
			if (g < 0 && (g = new_reg(&s, (long long)y * w + r->x0, y)) < 0)
				goto oom;
			add_run(&s.regs[g].m, r->x0, r->x1, y);
			s.regs[g].row = y;
			r->reg = g;
		}
		/* the previous row's regions that no run continued are complete */
		for (int k = 0; k < np; k++) {
			int q = find(&s, prev[k].reg);
			if (s.regs[q].row == y || s.regs[q].done)
				continue;
			s.regs[q].done = 1;
			int frc = fn(&s.regs[q].m, ctx);
			if (frc) {
				rc = frc;
				goto out;
			}
			dead[ndead++] = q;
		}
		for (int i = 0; i < nc; i++)
			cur[i].reg = find(&s, cur[i].reg);
		for (int k = 0; k < ndead; k++)
			s.free_list[s.nfree++] = dead[k];
		struct run *t = prev;
		prev = cur;
		cur = t;
		np = nc;
	}
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "regions: out of memory");
out:
	free(prev);
	free(cur);
	free(dead);
	free(s.regs);
	free(s.free_list);
	return rc;
}
