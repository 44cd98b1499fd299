/*
 * base_readings.c - the dome rule's base readings kept by point (see
 * base_readings.h).
 */
#include "analysis/base_readings.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/stable_sort.h"

/* A key's doubles as their bits: -0.0 and 0.0 are different starts for
 * the reading's arithmetic, so they are different points here. */
static uint64_t bits(double v)
{
	uint64_t u;
	memcpy(&u, &v, sizeof u);
	return u;
}

/* Keys compare by their bits, word by word: a stored value is found only
 * where every double is the same to the bit (base_readings.h). */
static int cmp_words(const uint64_t a[5], const uint64_t k[5])
{
	for (int i = 0; i < 5; i++)
		if (a[i] != k[i])
			return a[i] < k[i] ? -1 : 1;
	return 0;
}

static int cmp_key(int on, double x, double y, double r0, double r1, const fs_base_reading_at *b)
{
	uint64_t a[5] = {(uint64_t)on, bits(y), bits(x), bits(r0), bits(r1)};
	uint64_t k[5] = {(uint64_t)b->on, bits(b->y), bits(b->x), bits(b->r0), bits(b->r1)};
	return cmp_words(a, k);
}

static int cmp_at(const void *pa, const void *pb)
{
	const fs_base_reading_at *a = pa;
	return cmp_key(a->on, a->x, a->y, a->r0, a->r1, pb);
}

/* items (n entries of `size` bytes, room for *cap) with room for one
 * more, the room doubled from 64 where it is full; NULL on out of memory
 * (items and *cap unchanged). One growth for the readings and the step
 * contrasts alike. */
static void *grow(void *items, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return items;
	size_t c = *cap ? 2 * *cap : 64;
	void *q = realloc(items, c * size);
	if (q)
		*cap = c;
	return q;
}

int fs_base_readings_add(fs_base_readings *s, int on, double x, double y, double r0, double r1,
			 const fs_dome_reading *r)
{
	fs_base_reading_at *q = grow(s->items, s->n, &s->cap, sizeof *q);
	if (!q)
		return -1;
	s->items = q;
	s->items[s->n++] = (fs_base_reading_at){x, y, r0, r1, on, *r};
	return 0;
}

static int cmp_step_key(double x, double y, double r, double r0, double r1, const fs_base_step_at *b)
{
	uint64_t a[5] = {bits(y), bits(x), bits(r), bits(r0), bits(r1)};
	uint64_t k[5] = {bits(b->y), bits(b->x), bits(b->r), bits(b->r0), bits(b->r1)};
	return cmp_words(a, k);
}

static int cmp_step(const void *pa, const void *pb)
{
	const fs_base_step_at *a = pa;
	return cmp_step_key(a->x, a->y, a->r, a->r0, a->r1, pb);
}

int fs_base_readings_add_step(fs_base_readings *s, double x, double y, double r, double r0, double r1, double c)
{
	fs_base_step_at *q = grow(s->steps, s->nsteps, &s->capsteps, sizeof *q);
	if (!q)
		return -1;
	s->steps = q;
	s->steps[s->nsteps++] = (fs_base_step_at){x, y, r, r0, r1, c};
	return 0;
}

static int cmp_fit_key(double x, double y, const fs_base_fit_at *b)
{
	uint64_t a[2] = {bits(y), bits(x)}, k[2] = {bits(b->y), bits(b->x)};
	for (int i = 0; i < 2; i++)
		if (a[i] != k[i])
			return a[i] < k[i] ? -1 : 1;
	return 0;
}

static int cmp_fit(const void *pa, const void *pb)
{
	const fs_base_fit_at *a = pa;
	return cmp_fit_key(a->x, a->y, pb);
}

int fs_base_readings_add_fit(fs_base_readings *s, const fs_base_fit_at *f)
{
	fs_base_fit_at *q = grow(s->fits, s->nfits, &s->capfits, sizeof *q);
	if (!q)
		return -1;
	s->fits = q;
	s->fits[s->nfits++] = *f;
	return 0;
}

const fs_base_fit_at *fs_base_readings_find_fit(const fs_base_readings *s, double x, double y)
{
	if (!s)
		return NULL;
	size_t lo = 0, hi = s->fsorted;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int d = cmp_fit_key(x, y, &s->fits[mid]);
		if (!d)
			return &s->fits[mid];
		if (d < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* The three sorts with their comparators inlined, in qsort's order (a
 * stable sort: keys read twice keep the order they were added in). The
 * readings are large (a whole reading each), so they are ordered through
 * pointers and copied once into a new array; qsort's three sorts were
 * 3.1 M instructions of the 2048 x 1536 lattice's dome rule (h53d). */
typedef const fs_base_reading_at *reading_ref;

static int cmp_at_ref(const void *pa, const void *pb)
{
	return cmp_at(*(const reading_ref *)pa, *(const reading_ref *)pb);
}

FS_STABLE_SORT_DEFINE(sort_fits, fs_base_fit_at, cmp_fit)
FS_STABLE_SORT_DEFINE(sort_steps, fs_base_step_at, cmp_step)
FS_STABLE_SORT_DEFINE(sort_refs, reading_ref, cmp_at_ref)

static void sort_items(fs_base_readings *s)
{
	size_t n = s->n;
	reading_ref *ref = malloc(n * sizeof *ref);
	fs_base_reading_at *out = malloc(n * sizeof *out);
	if (!ref || !out) {
		free(ref);
		free(out);
		qsort(s->items, n, sizeof *s->items, cmp_at);
		return;
	}
	for (size_t i = 0; i < n; i++)
		ref[i] = &s->items[i];
	sort_refs(ref, n);
	for (size_t i = 0; i < n; i++)
		out[i] = *ref[i];
	/* the sorted copy becomes the set's array (room for n: grow() makes
	 * more when the next is added) */
	free(s->items);
	s->items = out;
	s->cap = n;
	free(ref);
}

void fs_base_readings_seal(fs_base_readings *s)
{
	if (s->fsorted != s->nfits) {
		sort_fits(s->fits, s->nfits);
		s->fsorted = s->nfits;
	}
	if (s->sorted != s->n) {
		sort_items(s);
		s->sorted = s->n;
	}
	if (s->ssorted != s->nsteps) {
		sort_steps(s->steps, s->nsteps);
		s->ssorted = s->nsteps;
	}
}

const fs_dome_reading *fs_base_readings_find(const fs_base_readings *s, int on, double x, double y, double r0,
					     double r1)
{
	if (!s)
		return NULL;
	size_t lo = 0, hi = s->sorted;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_key(on, x, y, r0, r1, &s->items[mid]);
		if (!c)
			return &s->items[mid].r;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

int fs_base_readings_find_step(const fs_base_readings *s, double x, double y, double r, double r0, double r1,
			       double *c)
{
	if (!s)
		return 0;
	size_t lo = 0, hi = s->ssorted;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int d = cmp_step_key(x, y, r, r0, r1, &s->steps[mid]);
		if (!d) {
			*c = s->steps[mid].contrast;
			return 1;
		}
		if (d < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return 0;
}

void fs_base_readings_free(fs_base_readings *s)
{
	free(s->items);
	free(s->steps);
	free(s->fits);
	memset(s, 0, sizeof *s);
}
