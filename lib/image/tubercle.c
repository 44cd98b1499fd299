/* tubercle.c - growable tubercle and edge lists (see tubercle.h). */
#include "image/tubercle.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int grow(void **items, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 64;
	while (ncap < need)
		ncap *= 2;
	if (ncap > SIZE_MAX / elem)
		return -1;
	void *p = realloc(*items, ncap * elem);
	if (!p)
		return -1;
	*items = p;
	*cap = ncap;
	return 0;
}

void fs_tubercle_init(fs_tubercle *t)
{
	memset(t, 0, sizeof *t);
	t->fit_quality = NAN;
}

int fs_tubercle_measured(const fs_tubercle *t)
{
	return isfinite(t->radius_px) && t->radius_px > 0;
}

void fs_tubercle_set_unmeasured(fs_tubercle *t)
{
	t->radius_px = NAN;
	t->circularity = FS_UNMEASURED_CIRCULARITY;
	t->has_ellipse = 0;
	t->major_axis_px = t->minor_axis_px = t->orientation = t->eccentricity = 0;
}

void fs_tubercle_take_size(fs_tubercle *t, const fs_tubercle *m)
{
	t->radius_px = m->radius_px;
	t->circularity = m->circularity;
	t->has_ellipse = m->has_ellipse;
	t->major_axis_px = m->major_axis_px;
	t->minor_axis_px = m->minor_axis_px;
	t->orientation = m->orientation;
	t->eccentricity = m->eccentricity;
}

double fs_tubercle_circularity(const fs_tubercle *t)
{
	return isnan(t->radius_px) ? NAN : t->circularity;
}

int fs_tubercle_list_append(fs_tubercle_list *l, const fs_tubercle *t)
{
	if (grow((void **)&l->items, &l->cap, l->n + 1, sizeof *l->items))
		return -1;
	l->items[l->n++] = *t;
	return 0;
}

void fs_tubercle_list_free(fs_tubercle_list *l)
{
	if (!l)
		return;
	free(l->items);
	memset(l, 0, sizeof *l);
}

int fs_edge_list_append(fs_edge_list *l, const fs_edge *e)
{
	if (grow((void **)&l->items, &l->cap, l->n + 1, sizeof *l->items))
		return -1;
	l->items[l->n++] = *e;
	return 0;
}

void fs_edge_list_free(fs_edge_list *l)
{
	if (!l)
		return;
	free(l->items);
	memset(l, 0, sizeof *l);
}

static const char *const source_names[] = {"extracted", "manual", "lattice", "agent"};

const char *fs_source_name(fs_source s)
{
	if ((unsigned)s < sizeof source_names / sizeof source_names[0])
		return source_names[s];
	return "extracted";
}

int fs_source_parse(const char *name, fs_source *out)
{
	for (size_t i = 0; i < sizeof source_names / sizeof source_names[0]; i++) {
		if (name && strcmp(name, source_names[i]) == 0) {
			*out = (fs_source)i;
			return 0;
		}
	}
	return -1;
}

struct fs_tubercle_index {
	size_t n;
	struct id_pos {
		int id;
		int pos;
	} v[];
};

static int cmp_id(const void *a, const void *b)
{
	const struct id_pos *p = a, *q = b;
	return (p->id > q->id) - (p->id < q->id);
}

fs_tubercle_index *fs_tubercle_index_new(const fs_tubercle_list *t)
{
	fs_tubercle_index *ix = malloc(sizeof *ix + (t->n ? t->n : 1) * sizeof ix->v[0]);
	if (!ix)
		return NULL;
	ix->n = t->n;
	for (size_t i = 0; i < t->n; i++) {
		ix->v[i].id = t->items[i].id;
		ix->v[i].pos = (int)i;
	}
	qsort(ix->v, ix->n, sizeof ix->v[0], cmp_id);
	return ix;
}

int fs_tubercle_index_find(const fs_tubercle_index *ix, int id)
{
	/* ids are most often 1..n: then id's entry is at id - 1 */
	if (id >= 1 && (size_t)id <= ix->n && ix->v[id - 1].id == id)
		return ix->v[id - 1].pos;
	size_t lo = 0, hi = ix->n; /* the sorted ids: binary search in [lo, hi) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ix->v[mid].id < id)
			lo = mid + 1;
		else if (ix->v[mid].id > id)
			hi = mid;
		else
			return ix->v[mid].pos;
	}
	return -1;
}

void fs_tubercle_index_free(fs_tubercle_index *ix)
{
	free(ix);
}
