/*
 * set_diff.c - changes of a set without the database (see set_diff.h).
 */
#include "store/set_diff.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/params_json.h"
#include "base/num_format.h"

void fs_set_diff_free(fs_set_diff *d)
{
	if (!d)
		return;
	fs_tubercle_list_free(&d->added);
	fs_tubercle_list_free(&d->removed);
	fs_tubercle_list_free(&d->before);
	fs_tubercle_list_free(&d->after);
	fs_edge_list_free(&d->edges_added);
	fs_edge_list_free(&d->edges_removed);
}

static int copy_tubs(fs_tubercle_list *dst, const fs_tubercle_list *src)
{
	for (size_t i = 0; i < src->n; i++)
		if (fs_tubercle_list_append(dst, &src->items[i]))
			return -1;
	return 0;
}

static int copy_edges(fs_edge_list *dst, const fs_edge_list *src)
{
	for (size_t i = 0; i < src->n; i++)
		if (fs_edge_list_append(dst, &src->items[i]))
			return -1;
	return 0;
}

int fs_set_diff_copy(fs_set_diff *dst, const fs_set_diff *src)
{
	memset(dst, 0, sizeof *dst);
	if (copy_tubs(&dst->added, &src->added) || copy_tubs(&dst->removed, &src->removed) ||
	    copy_tubs(&dst->before, &src->before) || copy_tubs(&dst->after, &src->after) ||
	    copy_edges(&dst->edges_added, &src->edges_added) || copy_edges(&dst->edges_removed, &src->edges_removed)) {
		fs_set_diff_free(dst);
		return -1;
	}
	dst->params_changed = src->params_changed;
	dst->had_params = src->had_params;
	dst->has_params = src->has_params;
	dst->params_before = src->params_before;
	dst->params_after = src->params_after;
	dst->replaces_all = src->replaces_all;
	dst->version_changed = src->version_changed;
	dst->version_before = src->version_before;
	dst->version_after = src->version_after;
	return 0;
}

int fs_set_diff_empty(const fs_set_diff *d)
{
	return !d->added.n && !d->removed.n && !d->before.n && !d->edges_added.n && !d->edges_removed.n &&
	       !d->params_changed && !d->version_changed;
}

/* ---- the journal's form ---- */

/* Journal numbers must read back bit for bit: undo compares the stored
 * rows with the journal exactly, and cJSON prints 15 significant digits
 * whenever they read back "nearly" equal. */
static void add_exact(cJSON *o, const char *key, double v)
{
	char tmp[40];
	if (!isfinite(v)) {
		cJSON_AddNullToObject(o, key);
		return;
	}
	snprintf(tmp, sizeof tmp, "%.17g", v);
	cJSON_AddRawToObject(o, key, tmp);
}

static cJSON *tub_json(const fs_tubercle *t)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "id", t->id);
	add_exact(o, "x", t->centroid_x);
	add_exact(o, "y", t->centroid_y);
	add_exact(o, "r", t->radius_px); /* null: unmeasured */
	add_exact(o, "c", t->circularity);
	if (isfinite(t->fit_quality))
		add_exact(o, "q", t->fit_quality);
	cJSON_AddStringToObject(o, "s", fs_source_name(t->source));
	if (t->has_ellipse) {
		add_exact(o, "ma", t->major_axis_px);
		add_exact(o, "mi", t->minor_axis_px);
		add_exact(o, "o", t->orientation);
		add_exact(o, "e", t->eccentricity);
	}
	return o;
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* A number, or NaN when absent or null (an unmeasured radius, an unknown fit). */
static double num_or_nan(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static void tub_from_json(const cJSON *o, fs_tubercle *t)
{
	fs_tubercle_init(t);
	t->id = (int)num(o, "id");
	t->centroid_x = num(o, "x");
	t->centroid_y = num(o, "y");
	t->radius_px = num_or_nan(o, "r");
	t->fit_quality = num_or_nan(o, "q");
	t->circularity = num(o, "c");
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, "s");
	if (!cJSON_IsString(s) || fs_source_parse(s->valuestring, &t->source))
		t->source = FS_SOURCE_MANUAL;
	if (cJSON_GetObjectItemCaseSensitive(o, "ma")) {
		t->has_ellipse = 1;
		t->major_axis_px = num(o, "ma");
		t->minor_axis_px = num(o, "mi");
		t->orientation = num(o, "o");
		t->eccentricity = num(o, "e");
	}
}

static cJSON *tubs_json(const fs_tubercle_list *l)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < l->n; i++)
		cJSON_AddItemToArray(a, tub_json(&l->items[i]));
	return a;
}

static cJSON *edges_json(const fs_edge_list *l)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < l->n; i++) {
		cJSON *p = cJSON_CreateArray();
		cJSON_AddItemToArray(p, cJSON_CreateNumber(l->items[i].id1));
		cJSON_AddItemToArray(p, cJSON_CreateNumber(l->items[i].id2));
		cJSON_AddItemToArray(a, p);
	}
	return a;
}

cJSON *fs_set_diff_to_json(const fs_set_diff *d)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddItemToObject(o, "add", tubs_json(&d->added));
	cJSON_AddItemToObject(o, "rm", tubs_json(&d->removed));
	cJSON_AddItemToObject(o, "bef", tubs_json(&d->before));
	cJSON_AddItemToObject(o, "aft", tubs_json(&d->after));
	cJSON_AddItemToObject(o, "ea", edges_json(&d->edges_added));
	cJSON_AddItemToObject(o, "er", edges_json(&d->edges_removed));
	if (d->params_changed) {
		cJSON *p = cJSON_AddObjectToObject(o, "p");
		if (d->had_params)
			cJSON_AddItemToObject(p, "before", fs_params_to_json(&d->params_before));
		if (d->has_params)
			cJSON_AddItemToObject(p, "after", fs_params_to_json(&d->params_after));
	}
	if (d->replaces_all)
		cJSON_AddNumberToObject(o, "all", 1);
	if (d->version_changed) {
		cJSON *v = cJSON_AddArrayToObject(o, "mv");
		cJSON_AddItemToArray(v, cJSON_CreateNumber(d->version_before));
		cJSON_AddItemToArray(v, cJSON_CreateNumber(d->version_after));
	}
	return o;
}

/* ---- the same text without the tree ----
 * An extraction's step holds every tubercle it removed and added: 140,000
 * of them for a re-extraction of a 100 MP montage. Building the cJSON tree
 * (ten nodes a tubercle) and printing it, with glibc's printf for each
 * number, took most of the time a job spent storing its result; the text
 * is written straight into a buffer instead, byte for byte what
 * cJSON_PrintUnformatted prints for fs_set_diff_to_json (numbers as
 * add_exact's "%.17g", integers as cJSON's "%d"). */

static int put_key(fs_buf *b, const char *key)
{
	return fs_buf_putc(b, '"') || fs_buf_puts(b, key) || fs_buf_puts(b, "\":");
}

/* As cJSON prints a string: quotes, backslashes and control characters escaped. */
static int put_string(fs_buf *b, const char *s)
{
	int rc = fs_buf_putc(b, '"');
	for (const unsigned char *p = (const unsigned char *)s; !rc && *p; p++) {
		switch (*p) {
		case '"': rc = fs_buf_puts(b, "\\\""); break;
		case '\\': rc = fs_buf_puts(b, "\\\\"); break;
		case '\b': rc = fs_buf_puts(b, "\\b"); break;
		case '\f': rc = fs_buf_puts(b, "\\f"); break;
		case '\n': rc = fs_buf_puts(b, "\\n"); break;
		case '\r': rc = fs_buf_puts(b, "\\r"); break;
		case '\t': rc = fs_buf_puts(b, "\\t"); break;
		default:
			rc = *p < 32 ? fs_buf_printf(b, "\\u%04x", *p) : fs_buf_putc(b, (char)*p);
		}
	}
	return rc || fs_buf_putc(b, '"');
}

static int put_int(fs_buf *b, long long v)
{
	char tmp[24];
	int n = fs_fmt_int(tmp, v);
	return fs_buf_append(b, tmp, (size_t)n);
}

/*
 * The long arrays go through a block of the stack, appended to the buffer
 * a few kilobytes at a time: a member appended at a time (its comma, its
 * key, its number) was a fifth of the journal's time.
 */
#define BLOCK_BYTES 8192
#define BLOCK_ITEM_MAX 700 /* one tubercle's text at most (ten numbers of 40 bytes, keys, its source) */

typedef struct {
	fs_buf *b;
	size_t n;
	char d[BLOCK_BYTES];
} block;

static int block_flush(block *k)
{
	int rc = k->n ? fs_buf_append(k->b, k->d, k->n) : 0;
	k->n = 0;
	return rc;
}

/* Room for one item: flushed first when the block is nearly full. */
static char *block_room(block *k)
{
	if (k->n + BLOCK_ITEM_MAX > BLOCK_BYTES && block_flush(k))
		return NULL;
	return k->d + k->n;
}

/* add_exact's member: ,"key":%.17g (null when not finite); lit is
 * ,"key": and o has room for it and FS_FMT_G17_MAX more. */
static char *num_member(char *o, const char *lit, size_t litlen, double v)
{
	memcpy(o, lit, litlen);
	o += litlen;
	if (!isfinite(v)) {
		memcpy(o, "null", 4);
		return o + 4;
	}
	return o + fs_fmt_g17(o, v);
}
#define NUM(o, lit, v) num_member(o, lit, sizeof lit - 1, v)

/* A source's name as cJSON prints the string: ours need no escaping;
 * NULL for one that would (the caller then writes it with put_string). */
static const char *plain_name(const char *s)
{
	size_t n = strlen(s);
	if (n > 64)
		return NULL;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 32 || *p == '"' || *p == '\\')
			return NULL;
	return s;
}

static int put_tub_into(block *k, const fs_tubercle *t, int comma)
{
	const char *src = plain_name(fs_source_name(t->source));
	char *o = block_room(k), *o0 = o;
	if (!o)
		return -1;
	if (comma)
		*o++ = ',';
	memcpy(o, "{\"id\":", 6);
	o += 6;
	o += fs_fmt_int(o, t->id);
	o = NUM(o, ",\"x\":", t->centroid_x);
	o = NUM(o, ",\"y\":", t->centroid_y);
	o = NUM(o, ",\"r\":", t->radius_px);
	o = NUM(o, ",\"c\":", t->circularity);
	if (isfinite(t->fit_quality))
		o = NUM(o, ",\"q\":", t->fit_quality);
	memcpy(o, ",\"s\":", 5);
	o += 5;
	if (!src) {
		/* a name to escape: through the buffer, as before */
		k->n += (size_t)(o - o0);
		if (block_flush(k) || put_string(k->b, fs_source_name(t->source)))
			return -1;
		o = o0 = block_room(k);
		if (!o)
			return -1;
	} else {
		size_t sn = strlen(src);
		*o++ = '"';
		memcpy(o, src, sn);
		o += sn;
		*o++ = '"';
	}
	if (t->has_ellipse) {
		o = NUM(o, ",\"ma\":", t->major_axis_px);
		o = NUM(o, ",\"mi\":", t->minor_axis_px);
		o = NUM(o, ",\"o\":", t->orientation);
		o = NUM(o, ",\"e\":", t->eccentricity);
	}
	*o++ = '}';
	k->n += (size_t)(o - o0);
	return 0;
}

static int put_tubs(fs_buf *b, const char *key, const fs_tubercle_list *l)
{
	/* about 170 bytes a tubercle: one reservation instead of many regrowths */
	if (put_key(b, key) || fs_buf_reserve(b, l->n * 180 + 2) || fs_buf_putc(b, '['))
		return -1;
	block k;
	k.b = b;
	k.n = 0;
	for (size_t i = 0; i < l->n; i++)
		if (put_tub_into(&k, &l->items[i], i > 0))
			return -1;
	return block_flush(&k) || fs_buf_putc(b, ']') ? -1 : 0;
}

static int put_edges(fs_buf *b, const char *key, const fs_edge_list *l)
{
	if (put_key(b, key) || fs_buf_reserve(b, l->n * 16 + 2) || fs_buf_putc(b, '['))
		return -1;
	block k;
	k.b = b;
	k.n = 0;
	for (size_t i = 0; i < l->n; i++) {
		char *o = block_room(&k), *o0 = o;
		if (!o)
			return -1;
		if (i)
			*o++ = ',';
		*o++ = '[';
		o += fs_fmt_int(o, l->items[i].id1);
		*o++ = ',';
		o += fs_fmt_int(o, l->items[i].id2);
		*o++ = ']';
		k.n += (size_t)(o - o0);
	}
	return block_flush(&k) || fs_buf_putc(b, ']') ? -1 : 0;
}

/* The parameters' few members through cJSON, as fs_set_diff_to_json. */
static int put_params(fs_buf *b, const fs_set_diff *d)
{
	cJSON *p = cJSON_CreateObject();
	if (p && d->had_params)
		cJSON_AddItemToObject(p, "before", fs_params_to_json(&d->params_before));
	if (p && d->has_params)
		cJSON_AddItemToObject(p, "after", fs_params_to_json(&d->params_after));
	char *s = p ? cJSON_PrintUnformatted(p) : NULL;
	cJSON_Delete(p);
	int rc = !s || fs_buf_puts(b, ",\"p\":") || fs_buf_puts(b, s);
	cJSON_free(s);
	return rc ? -1 : 0;
}

int fs_set_diff_to_text(const fs_set_diff *d, fs_buf *out)
{
	if (fs_buf_putc(out, '{') || put_tubs(out, "add", &d->added) || fs_buf_putc(out, ',') ||
	    put_tubs(out, "rm", &d->removed) || fs_buf_putc(out, ',') || put_tubs(out, "bef", &d->before) ||
	    fs_buf_putc(out, ',') || put_tubs(out, "aft", &d->after) || fs_buf_putc(out, ',') ||
	    put_edges(out, "ea", &d->edges_added) || fs_buf_putc(out, ',') || put_edges(out, "er", &d->edges_removed))
		return -1;
	if (d->params_changed && put_params(out, d))
		return -1;
	if (d->replaces_all && fs_buf_puts(out, ",\"all\":1"))
		return -1;
	if (d->version_changed && (fs_buf_puts(out, ",\"mv\":[") || put_int(out, d->version_before) ||
				   fs_buf_putc(out, ',') || put_int(out, d->version_after) || fs_buf_putc(out, ']')))
		return -1;
	return fs_buf_putc(out, '}');
}

static int tubs_from_json(const cJSON *a, fs_tubercle_list *l)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, a)
	{
		fs_tubercle t;
		tub_from_json(it, &t);
		if (fs_tubercle_list_append(l, &t))
			return -1;
	}
	return 0;
}

static int edges_from_json(const cJSON *a, fs_edge_list *l)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, a)
	{
		const cJSON *p = cJSON_GetArrayItem(it, 0), *q = cJSON_GetArrayItem(it, 1);
		if (!cJSON_IsNumber(p) || !cJSON_IsNumber(q))
			return -1;
		fs_edge e = {(int)p->valuedouble, (int)q->valuedouble};
		if (fs_edge_list_append(l, &e))
			return -1;
	}
	return 0;
}

int fs_set_diff_from_json(const char *s, fs_set_diff *d)
{
	memset(d, 0, sizeof *d);
	cJSON *o = s ? cJSON_Parse(s) : NULL;
	if (!o)
		return -1;
	int rc = tubs_from_json(cJSON_GetObjectItem(o, "add"), &d->added) ||
		 tubs_from_json(cJSON_GetObjectItem(o, "rm"), &d->removed) ||
		 tubs_from_json(cJSON_GetObjectItem(o, "bef"), &d->before) ||
		 tubs_from_json(cJSON_GetObjectItem(o, "aft"), &d->after) ||
		 edges_from_json(cJSON_GetObjectItem(o, "ea"), &d->edges_added) ||
		 edges_from_json(cJSON_GetObjectItem(o, "er"), &d->edges_removed);
	if (!rc && d->before.n != d->after.n)
		rc = -1;
	const cJSON *p = cJSON_GetObjectItem(o, "p");
	if (!rc && p) {
		char e[128];
		d->params_changed = 1;
		const cJSON *b = cJSON_GetObjectItem(p, "before"), *a = cJSON_GetObjectItem(p, "after");
		if (b) {
			d->had_params = 1;
			fs_params_default(&d->params_before);
			fs_params_from_json(&d->params_before, b, 1, e, sizeof e);
		}
		if (a) {
			d->has_params = 1;
			fs_params_default(&d->params_after);
			fs_params_from_json(&d->params_after, a, 1, e, sizeof e);
		}
	}
	d->replaces_all = cJSON_GetObjectItem(o, "all") != NULL;
	const cJSON *mv = cJSON_GetObjectItem(o, "mv");
	if (cJSON_IsArray(mv) && cJSON_GetArraySize(mv) == 2) {
		d->version_changed = 1;
		d->version_before = (int)cJSON_GetArrayItem(mv, 0)->valuedouble;
		d->version_after = (int)cJSON_GetArrayItem(mv, 1)->valuedouble;
	}
	cJSON_Delete(o);
	if (rc)
		fs_set_diff_free(d);
	return rc ? -1 : 0;
}

void fs_set_diff_invert(fs_set_diff *d)
{
	fs_tubercle_list t = d->added;
	d->added = d->removed;
	d->removed = t;
	t = d->before;
	d->before = d->after;
	d->after = t;
	fs_edge_list e = d->edges_added;
	d->edges_added = d->edges_removed;
	d->edges_removed = e;
	fs_params p = d->params_before;
	d->params_before = d->params_after;
	d->params_after = p;
	int h = d->had_params;
	d->had_params = d->has_params;
	d->has_params = h;
	int v = d->version_before;
	d->version_before = d->version_after;
	d->version_after = v;
}

/* ---- tubercles and edges ---- */

/* Equal, or both NaN (two unmeasured radii, two unknown fits). */
static int same_num(double a, double b)
{
	return a == b || (isnan(a) && isnan(b));
}

int fs_tubercle_same(const fs_tubercle *a, const fs_tubercle *b)
{
	return a->id == b->id && a->centroid_x == b->centroid_x && a->centroid_y == b->centroid_y &&
	       same_num(a->radius_px, b->radius_px) && same_num(a->fit_quality, b->fit_quality) &&
	       a->circularity == b->circularity && a->source == b->source &&
	       a->has_ellipse == b->has_ellipse &&
	       (!a->has_ellipse || (a->major_axis_px == b->major_axis_px && a->minor_axis_px == b->minor_axis_px &&
				    a->orientation == b->orientation && a->eccentricity == b->eccentricity));
}

int fs_tubercle_storable(const fs_tubercle *t)
{
	/* an unmeasured radius (NaN) may be stored: the centre is what counts */
	return t->id > 0 && isfinite(t->centroid_x) && isfinite(t->centroid_y) &&
	       (isnan(t->radius_px) || (t->radius_px > 0 && t->radius_px < 1e6)) && fabs(t->centroid_x) < 1e7 &&
	       fabs(t->centroid_y) < 1e7 && isfinite(t->circularity) &&
	       (isnan(t->fit_quality) || (t->fit_quality >= 0 && t->fit_quality <= 1));
}

static int cmp_edge(const void *a, const void *b)
{
	const fs_edge *p = a, *q = b;
	if (p->id1 != q->id1)
		return (p->id1 > q->id1) - (p->id1 < q->id1);
	return (p->id2 > q->id2) - (p->id2 < q->id2);
}

static fs_edge edge_norm(fs_edge e)
{
	if (e.id1 > e.id2) {
		int t = e.id1;
		e.id1 = e.id2;
		e.id2 = t;
	}
	return e;
}

void fs_edges_normalise(fs_edge_list *l)
{
	/* a detection's connections come sorted already (the neighbour
	 * graph's order, ids renumbered in order): then the sort, a fifth of
	 * building an extraction's diff, is not needed */
	int sorted = 1;
	for (size_t i = 0; i < l->n; i++) {
		l->items[i] = edge_norm(l->items[i]);
		if (i && sorted && cmp_edge(&l->items[i - 1], &l->items[i]) >= 0)
			sorted = 0;
	}
	if (l->n < 2 || sorted)
		return;
	qsort(l->items, l->n, sizeof *l->items, cmp_edge);
	size_t k = 1;
	for (size_t i = 1; i < l->n; i++)
		if (cmp_edge(&l->items[i], &l->items[k - 1]))
			l->items[k++] = l->items[i];
	l->n = k;
}

/* ---- a set in memory ---- */

void fs_set_state_free(fs_set_state *s)
{
	fs_tubercle_list_free(&s->t);
	fs_edge_list_free(&s->e);
}

const fs_tubercle *fs_set_state_find(const fs_set_state *s, int id)
{
	size_t lo = 0, hi = s->t.n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (s->t.items[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->t.n && s->t.items[lo].id == id ? &s->t.items[lo] : NULL;
}

static int edge_in(const fs_edge_list *l, fs_edge e)
{
	e = edge_norm(e);
	return l->n && bsearch(&e, l->items, l->n, sizeof e, cmp_edge) != NULL;
}

int fs_set_state_has_edge(const fs_set_state *s, int id1, int id2)
{
	return edge_in(&s->e, (fs_edge){id1, id2});
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static int id_in(const int *sorted, size_t n, int id)
{
	return n && bsearch(&id, sorted, n, sizeof id, cmp_int) != NULL;
}

/* Sorted ids of a tubercle list (malloc'ed; NULL with n = 0 is fine). */
static int *ids_of(const fs_tubercle_list *l, int *fail)
{
	if (!l->n)
		return NULL;
	int *v = malloc(l->n * sizeof *v);
	if (!v) {
		*fail = 1;
		return NULL;
	}
	for (size_t i = 0; i < l->n; i++)
		v[i] = l->items[i].id;
	qsort(v, l->n, sizeof *v, cmp_int);
	return v;
}

#define WHY(...) snprintf(why, whylen, __VA_ARGS__)

int fs_set_diff_still(const fs_tubercle *cur, const fs_tubercle *was, char *why, size_t whylen)
{
	if (!cur) {
		WHY("tubercle #%d no longer exists", was->id);
		return -1;
	}
	if (!fs_tubercle_same(cur, was)) {
		WHY("tubercle #%d has changed since", cur->id);
		return -1;
	}
	return 0;
}

int fs_set_diff_fit(const fs_set_state *now, fs_set_diff *d, char *why, size_t whylen)
{
	for (size_t i = 0; i < d->removed.n; i++)
		if (fs_set_diff_still(fs_set_state_find(now, d->removed.items[i].id), &d->removed.items[i], why, whylen))
			return -1;
	for (size_t i = 0; i < d->before.n; i++) {
		const fs_tubercle *cur = fs_set_state_find(now, d->before.items[i].id);
		if (fs_set_diff_still(cur, &d->before.items[i], why, whylen))
			return -1;
		if (!fs_tubercle_storable(&d->after.items[i]) || d->after.items[i].id != cur->id) {
			WHY("invalid values for tubercle #%d", cur->id);
			return -1;
		}
	}
	for (size_t i = 0; i < d->added.n; i++) {
		if (!fs_tubercle_storable(&d->added.items[i])) {
			WHY("invalid tubercle (position or radius)");
			return -1;
		}
		if (fs_set_state_find(now, d->added.items[i].id)) {
			WHY("tubercle #%d exists again", d->added.items[i].id);
			return -1;
		}
	}
	int fail = 0, had_edges = d->edges_added.n || d->edges_removed.n;
	int *rm = ids_of(&d->removed, &fail), *ad = ids_of(&d->added, &fail);
	fs_edge_list er = {0}, ea = {0};
	char dropped[160] = "";
	for (size_t i = 0; !fail && i < d->edges_removed.n; i++) {
		fs_edge e = edge_norm(d->edges_removed.items[i]);
		if (edge_in(&now->e, e))
			fail = fs_edge_list_append(&er, &e) != 0;
		else if (!dropped[0])
			snprintf(dropped, sizeof dropped, "connection %d-%d no longer exists", e.id1, e.id2);
	}
	/* a tubercle goes with every connection it has now, whoever made them */
	for (size_t i = 0; !fail && d->removed.n && i < now->e.n; i++) {
		fs_edge e = now->e.items[i];
		if (id_in(rm, d->removed.n, e.id1) || id_in(rm, d->removed.n, e.id2))
			fail = fs_edge_list_append(&er, &e) != 0;
	}
	if (!fail)
		fs_edges_normalise(&er);
	for (size_t i = 0; !fail && i < d->edges_added.n; i++) {
		fs_edge e = edge_norm(d->edges_added.items[i]);
		int ends[2] = {e.id1, e.id2}, gone = 0;
		for (int k = 0; k < 2 && !gone; k++) {
			int there = (fs_set_state_find(now, ends[k]) && !id_in(rm, d->removed.n, ends[k])) ||
				    id_in(ad, d->added.n, ends[k]);
			if (!there) {
				gone = ends[k];
				if (!dropped[0])
					snprintf(dropped, sizeof dropped, "connection %d-%d cannot come back: #%d is gone",
						 e.id1, e.id2, gone);
			}
		}
		if (gone || e.id1 == e.id2)
			continue;
		if (edge_in(&now->e, e) && !edge_in(&er, e)) {
			if (!dropped[0])
				snprintf(dropped, sizeof dropped, "connection %d-%d exists already", e.id1, e.id2);
			continue;
		}
		fail = fs_edge_list_append(&ea, &e) != 0;
	}
	if (!fail)
		fs_edges_normalise(&ea);
	free(rm);
	free(ad);
	if (fail) {
		fs_edge_list_free(&er);
		fs_edge_list_free(&ea);
		WHY("out of memory");
		return -1;
	}
	fs_edge_list_free(&d->edges_removed);
	fs_edge_list_free(&d->edges_added);
	d->edges_removed = er;
	d->edges_added = ea;
	if (had_edges && fs_set_diff_empty(d)) {
		WHY("%s", dropped[0] ? dropped : "there is nothing left to change");
		return -1;
	}
	return 0;
}

/* ---- net effect ---- */

typedef struct tub_slot {
	int id, used;
	unsigned char was, is; /* present before the run / after it */
	fs_tubercle before, after;
} tub_slot;

typedef struct edge_slot {
	uint64_t key;
	int used;
	unsigned char was, is;
} edge_slot;

struct fs_set_net {
	tub_slot *t;
	size_t tcap, tn;
	edge_slot *e;
	size_t ecap, en;
	int params_seen, had_params, has_params;
	fs_params params_before, params_after;
	int version_seen, version_before, version_after;
};

fs_set_net *fs_set_net_new(void)
{
	return calloc(1, sizeof(fs_set_net));
}

void fs_set_net_free(fs_set_net *n)
{
	if (!n)
		return;
	free(n->t);
	free(n->e);
	free(n);
}

static size_t hash_u64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k;
}

static int grow_t(fs_set_net *n)
{
	size_t cap = n->tcap ? n->tcap * 2 : 256;
	tub_slot *v = calloc(cap, sizeof *v);
	if (!v)
		return -1;
	for (size_t i = 0; i < n->tcap; i++) {
		if (!n->t[i].used)
			continue;
		size_t h = hash_u64((uint64_t)(unsigned)n->t[i].id) & (cap - 1);
		while (v[h].used)
			h = (h + 1) & (cap - 1);
		v[h] = n->t[i];
	}
	free(n->t);
	n->t = v;
	n->tcap = cap;
	return 0;
}

/* The slot of id; *fresh = 1 when it was not there. NULL on OOM. */
static tub_slot *slot_t(fs_set_net *n, int id, int *fresh)
{
	if ((n->tn + 1) * 2 > n->tcap && grow_t(n))
		return NULL;
	size_t h = hash_u64((uint64_t)(unsigned)id) & (n->tcap - 1);
	while (n->t[h].used && n->t[h].id != id)
		h = (h + 1) & (n->tcap - 1);
	*fresh = !n->t[h].used;
	if (*fresh) {
		memset(&n->t[h], 0, sizeof n->t[h]);
		n->t[h].used = 1;
		n->t[h].id = id;
		n->tn++;
	}
	return &n->t[h];
}

static int grow_e(fs_set_net *n)
{
	size_t cap = n->ecap ? n->ecap * 2 : 256;
	edge_slot *v = calloc(cap, sizeof *v);
	if (!v)
		return -1;
	for (size_t i = 0; i < n->ecap; i++) {
		if (!n->e[i].used)
			continue;
		size_t h = hash_u64(n->e[i].key) & (cap - 1);
		while (v[h].used)
			h = (h + 1) & (cap - 1);
		v[h] = n->e[i];
	}
	free(n->e);
	n->e = v;
	n->ecap = cap;
	return 0;
}

static edge_slot *slot_e(fs_set_net *n, fs_edge e, int *fresh)
{
	if ((n->en + 1) * 2 > n->ecap && grow_e(n))
		return NULL;
	e = edge_norm(e);
	uint64_t key = (uint64_t)(uint32_t)e.id1 << 32 | (uint32_t)e.id2;
	size_t h = hash_u64(key) & (n->ecap - 1);
	while (n->e[h].used && n->e[h].key != key)
		h = (h + 1) & (n->ecap - 1);
	*fresh = !n->e[h].used;
	if (*fresh) {
		memset(&n->e[h], 0, sizeof n->e[h]);
		n->e[h].used = 1;
		n->e[h].key = key;
		n->en++;
	}
	return &n->e[h];
}

int fs_set_net_add(fs_set_net *n, const fs_set_diff *d)
{
	int fresh;
	/* in the order the store writes a diff: removals, changes, additions */
	for (size_t i = 0; i < d->edges_removed.n; i++) {
		edge_slot *s = slot_e(n, d->edges_removed.items[i], &fresh);
		if (!s)
			return -1;
		if (fresh)
			s->was = 1;
		s->is = 0;
	}
	for (size_t i = 0; i < d->removed.n; i++) {
		tub_slot *s = slot_t(n, d->removed.items[i].id, &fresh);
		if (!s)
			return -1;
		if (fresh) {
			s->was = 1;
			s->before = d->removed.items[i];
		}
		s->is = 0;
	}
	for (size_t i = 0; i < d->before.n; i++) {
		tub_slot *s = slot_t(n, d->before.items[i].id, &fresh);
		if (!s)
			return -1;
		if (fresh) {
			s->was = 1;
			s->before = d->before.items[i];
		}
		s->is = 1;
		s->after = d->after.items[i];
	}
	for (size_t i = 0; i < d->added.n; i++) {
		tub_slot *s = slot_t(n, d->added.items[i].id, &fresh);
		if (!s)
			return -1;
		s->is = 1;
		s->after = d->added.items[i];
	}
	for (size_t i = 0; i < d->edges_added.n; i++) {
		edge_slot *s = slot_e(n, d->edges_added.items[i], &fresh);
		if (!s)
			return -1;
		s->is = 1;
	}
	if (d->params_changed) {
		if (!n->params_seen) {
			n->params_seen = 1;
			n->had_params = d->had_params;
			n->params_before = d->params_before;
		}
		n->has_params = d->has_params;
		n->params_after = d->params_after;
	}
	if (d->version_changed) {
		if (!n->version_seen) {
			n->version_seen = 1;
			n->version_before = d->version_before;
		}
		n->version_after = d->version_after;
	}
	return 0;
}

void fs_set_net_count(const fs_set_net *n, fs_set_net_counts *c)
{
	memset(c, 0, sizeof *c);
	for (size_t i = 0; i < n->tcap; i++) {
		const tub_slot *s = &n->t[i];
		if (!s->used)
			continue;
		if (!s->was && s->is)
			c->added++;
		else if (s->was && !s->is)
			c->deleted++;
		else if (s->was && s->is) {
			if (s->before.centroid_x != s->after.centroid_x || s->before.centroid_y != s->after.centroid_y)
				c->moved++;
			if (!same_num(s->before.radius_px, s->after.radius_px))
				c->resized++;
		}
	}
	for (size_t i = 0; i < n->ecap; i++) {
		const edge_slot *s = &n->e[i];
		if (s->used && !s->was && s->is)
			c->edges_added++;
		else if (s->used && s->was && !s->is)
			c->edges_deleted++;
	}
}

static int cmp_tub_id(const void *a, const void *b)
{
	const fs_tubercle *p = a, *q = b;
	return (p->id > q->id) - (p->id < q->id);
}

int fs_set_net_diff(const fs_set_net *n, fs_set_diff *out)
{
	memset(out, 0, sizeof *out);
	int rc = 0;
	for (size_t i = 0; !rc && i < n->tcap; i++) {
		const tub_slot *s = &n->t[i];
		if (!s->used)
			continue;
		if (!s->was && s->is)
			rc = fs_tubercle_list_append(&out->added, &s->after);
		else if (s->was && !s->is)
			rc = fs_tubercle_list_append(&out->removed, &s->before);
		else if (s->was && s->is && !fs_tubercle_same(&s->before, &s->after))
			rc = fs_tubercle_list_append(&out->before, &s->before) ||
			     fs_tubercle_list_append(&out->after, &s->after);
	}
	for (size_t i = 0; !rc && i < n->ecap; i++) {
		const edge_slot *s = &n->e[i];
		if (!s->used || s->was == s->is)
			continue;
		fs_edge e = {(int)(s->key >> 32), (int)(s->key & 0xffffffffu)};
		rc = fs_edge_list_append(s->is ? &out->edges_added : &out->edges_removed, &e);
	}
	if (rc) {
		fs_set_diff_free(out);
		return -1;
	}
	/* in id order, so that the result does not depend on the hash */
	if (out->added.n > 1)
		qsort(out->added.items, out->added.n, sizeof *out->added.items, cmp_tub_id);
	if (out->removed.n > 1)
		qsort(out->removed.items, out->removed.n, sizeof *out->removed.items, cmp_tub_id);
	if (out->before.n > 1) {
		qsort(out->before.items, out->before.n, sizeof *out->before.items, cmp_tub_id);
		qsort(out->after.items, out->after.n, sizeof *out->after.items, cmp_tub_id);
	}
	fs_edges_normalise(&out->edges_added);
	fs_edges_normalise(&out->edges_removed);
	if (n->params_seen) {
		out->params_changed = 1;
		out->had_params = n->had_params;
		out->params_before = n->params_before;
		out->has_params = n->has_params;
		out->params_after = n->params_after;
	}
	if (n->version_seen && n->version_before != n->version_after) {
		out->version_changed = 1;
		out->version_before = n->version_before;
		out->version_after = n->version_after;
	}
	return 0;
}
