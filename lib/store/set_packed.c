/* set_packed.c - a large set's rows as one record (see set_packed.h). */
#include "store/set_packed.h"

#include "store/staged_blob.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "store/db_bind.h"

#define TUB_BYTES 80 /* id, flags, x, y, r, fit, circularity, major, minor, orientation, eccentricity */
#define EDGE_BYTES 8

static int pack_min = 5000;

int fs_packed_min(void)
{
	return pack_min;
}

void fs_packed_set_min(int n)
{
	pack_min = n > 0 ? n : 1;
}

/* ---- records: little-endian whatever the host ---- */

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_LE 1 /* the records are the host's bytes: copied, not shifted */
#else
#define HOST_LE 0
#endif

static void put_u32(unsigned char *p, uint32_t v)
{
	if (HOST_LE) {
		memcpy(p, &v, 4);
		return;
	}
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *p)
{
	uint32_t v = 0;
	if (HOST_LE) {
		memcpy(&v, p, 4);
		return v;
	}
	for (int i = 0; i < 4; i++)
		v |= (uint32_t)p[i] << (8 * i);
	return v;
}

static void put_f64(unsigned char *p, double d)
{
	uint64_t v;
	memcpy(&v, &d, sizeof v);
	if (HOST_LE) {
		memcpy(p, &v, 8);
		return;
	}
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static double get_f64(const unsigned char *p)
{
	uint64_t v = 0;
	if (HOST_LE) {
		double d;
		memcpy(&d, p, 8);
		return d;
	}
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	double d;
	memcpy(&d, &v, sizeof d);
	return d;
}

/* What a row would hold: a radius or fit quality that is not finite is
 * stored NULL and read back as NaN (set_rows.c), so it is NaN here too. */
static double finite_or_nan(double v)
{
	return isfinite(v) ? v : NAN;
}

static void tub_encode(unsigned char *p, const fs_tubercle *t)
{
	put_u32(p, (uint32_t)t->id);
	put_u32(p + 4, (uint32_t)((t->has_ellipse ? 1u : 0u) | ((uint32_t)t->source << 8)));
	put_f64(p + 8, t->centroid_x);
	put_f64(p + 16, t->centroid_y);
	put_f64(p + 24, finite_or_nan(t->radius_px));
	put_f64(p + 32, finite_or_nan(t->fit_quality));
	put_f64(p + 40, t->circularity);
	put_f64(p + 48, t->has_ellipse ? t->major_axis_px : 0);
	put_f64(p + 56, t->has_ellipse ? t->minor_axis_px : 0);
	put_f64(p + 64, t->has_ellipse ? t->orientation : 0);
	put_f64(p + 72, t->has_ellipse ? t->eccentricity : 0);
}

/* The same fields read_tub (set_rows.c) sets from a row, the rest as
 * fs_tubercle_init leaves them. */
static void tub_decode(const unsigned char *p, fs_tubercle *t)
{
	fs_tubercle_init(t);
	t->id = (int)get_u32(p);
	uint32_t flags = get_u32(p + 4);
	t->centroid_x = get_f64(p + 8);
	t->centroid_y = get_f64(p + 16);
	t->radius_px = get_f64(p + 24);
	t->fit_quality = get_f64(p + 32);
	t->circularity = get_f64(p + 40);
	if (flags & 1u) {
		t->has_ellipse = 1;
		t->major_axis_px = get_f64(p + 48);
		t->minor_axis_px = get_f64(p + 56);
		t->orientation = get_f64(p + 64);
		t->eccentricity = get_f64(p + 72);
	}
	t->source = (fs_source)(flags >> 8);
}

/* ---- the edits since the record: the delta ----
 *
 * The set is its record (the base) with its delta applied. A delta holds,
 * after a header (the base's counts of tubercles and connections, then
 * the counts of the four lists), the tubercles that are new or differ from
 * the base's (80-byte records, by id), the ids of the base's tubercles that
 * are gone or differ (4 bytes each, sorted), the connections added and
 * removed (8 bytes each, sorted): the set less the base's removed
 * tubercles and connections, with the new ones merged in. It is made by
 * comparing the set after an edit with the base, so it never grows with
 * edits that undo each other.
 */

#define DELTA_HEAD 24

static size_t delta_max = 64 * 1024;

size_t fs_packed_delta_max(void)
{
	return delta_max;
}

void fs_packed_set_delta_max(size_t bytes)
{
	delta_max = bytes;
}

/* A record's bytes, as read or as written: own[] holds them (one buffer
 * read, or the written record's two), tub and edges point into them. */
typedef struct base_rec {
	unsigned char *own[2];
	const unsigned char *tub, *edges;
	size_t nt, ne;
} base_rec;

static int cmp_edge(const fs_edge *x, const fs_edge *y)
{
	if (x->id1 != y->id1)
		return x->id1 < y->id1 ? -1 : 1;
	return (x->id2 > y->id2) - (x->id2 < y->id2);
}

static fs_edge edge_at(const unsigned char *p)
{
	return (fs_edge){(int)get_u32(p), (int)get_u32(p + 4)};
}

/* A growing byte list (the delta's four lists while it is made). */
typedef struct bytes {
	unsigned char *p;
	size_t n, cap;
} bytes;

static int bytes_add(bytes *b, const void *src, size_t n)
{
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 1024;
		while (cap < b->n + n)
			cap *= 2;
		unsigned char *q = realloc(b->p, cap);
		if (!q)
			return -1;
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->n, src, n);
	b->n += n;
	return 0;
}

static int add_u32(bytes *b, uint32_t v)
{
	unsigned char q[4];
	put_u32(q, v);
	return bytes_add(b, q, 4);
}

static int add_edge(bytes *b, fs_edge e)
{
	unsigned char q[EDGE_BYTES];
	put_u32(q, (uint32_t)e.id1);
	put_u32(q + 4, (uint32_t)e.id2);
	return bytes_add(b, q, EDGE_BYTES);
}

/* The delta from base to next (sorted as a set's state is), or *out NULL
 * when it would be larger than the limit: then the whole record is
 * written again, and becomes the base. */
static int delta_make(const base_rec *base, const fs_set_state *next, unsigned char **out, size_t *len)
{
	*out = NULL;
	*len = 0;
	bytes up = {0}, rm = {0}, ea = {0}, er = {0};
	unsigned char rec[TUB_BYTES];
	int rc = 0;
	size_t i = 0, j = 0;
	while (!rc && (i < base->nt || j < next->t.n)) {
		long long bid = i < base->nt ? (long long)get_u32(base->tub + i * TUB_BYTES) : -1;
		const fs_tubercle *x = j < next->t.n ? &next->t.items[j] : NULL;
		if (x && (bid < 0 || x->id < bid)) {
			tub_encode(rec, x);
			rc = bytes_add(&up, rec, TUB_BYTES);
			j++;
		} else if (!x || bid < x->id) {
			rc = add_u32(&rm, (uint32_t)bid);
			i++;
		} else {
			tub_encode(rec, x);
			if (memcmp(rec, base->tub + i * TUB_BYTES, TUB_BYTES))
				rc = add_u32(&rm, (uint32_t)bid) || bytes_add(&up, rec, TUB_BYTES);
			i++;
			j++;
		}
		if (!rc && up.n + rm.n > delta_max)
			goto too_large;
	}
	i = j = 0;
	while (!rc && (i < base->ne || j < next->e.n)) {
		fs_edge be = i < base->ne ? edge_at(base->edges + i * EDGE_BYTES) : (fs_edge){0, 0};
		int c = i >= base->ne ? 1 : j >= next->e.n ? -1 : cmp_edge(&be, &next->e.items[j]);
		if (c < 0)
			rc = add_edge(&er, be), i++;
		else if (c > 0)
			rc = add_edge(&ea, next->e.items[j++]);
		else
			i++, j++;
		if (!rc && up.n + rm.n + ea.n + er.n > delta_max)
			goto too_large;
	}
	size_t n = DELTA_HEAD + up.n + rm.n + ea.n + er.n;
	unsigned char *d = rc ? NULL : malloc(n);
	if (d) {
		put_u32(d, (uint32_t)base->nt);
		put_u32(d + 4, (uint32_t)base->ne);
		put_u32(d + 8, (uint32_t)(up.n / TUB_BYTES));
		put_u32(d + 12, (uint32_t)(rm.n / 4));
		put_u32(d + 16, (uint32_t)(ea.n / EDGE_BYTES));
		put_u32(d + 20, (uint32_t)(er.n / EDGE_BYTES));
		unsigned char *q = d + DELTA_HEAD;
		const bytes *parts[4] = {&up, &rm, &ea, &er};
		for (int k = 0; k < 4; k++) {
			if (parts[k]->n)
				memcpy(q, parts[k]->p, parts[k]->n);
			q += parts[k]->n;
		}
		*out = d;
		*len = n;
	}
	rc = d ? FS_DB_OK : FS_DB_ERROR;
too_large:
	free(up.p);
	free(rm.p);
	free(ea.p);
	free(er.p);
	return rc;
}

/* The delta's header: its base's counts; -1 when it is not a delta. */
static int delta_head(const unsigned char *d, size_t len, size_t *base_nt, size_t *base_ne)
{
	if (len < DELTA_HEAD)
		return -1;
	size_t nu = get_u32(d + 8), nr = get_u32(d + 12), na = get_u32(d + 16), ne = get_u32(d + 20);
	if (len != DELTA_HEAD + nu * TUB_BYTES + nr * 4 + (na + ne) * EDGE_BYTES)
		return -1;
	*base_nt = get_u32(d);
	*base_ne = get_u32(d + 4);
	return 0;
}

/* The base's rows (s) with the delta applied, in place: the merge of
 * delta_make's lists. A delta that does not fit its base (an id twice,
 * a removal of what is not there, lists out of order) is an error. */
static int delta_apply(fs_set_state *s, const unsigned char *d)
{
	size_t nu = get_u32(d + 8), nr = get_u32(d + 12), na = get_u32(d + 16), ne = get_u32(d + 20);
	const unsigned char *up = d + DELTA_HEAD, *rm = up + nu * TUB_BYTES, *ea = rm + nr * 4,
			    *er = ea + na * EDGE_BYTES;
	fs_set_state o;
	memset(&o, 0, sizeof o);
	o.t.cap = s->t.n + nu + 1;
	o.e.cap = s->e.n + na + 1;
	o.t.items = malloc(o.t.cap * sizeof *o.t.items);
	o.e.items = malloc(o.e.cap * sizeof *o.e.items);
	int rc = o.t.items && o.e.items ? FS_DB_OK : FS_DB_ERROR;
	size_t i = 0, j = 0, k = 0;
	long long last = -1;
	while (!rc && (i < s->t.n || j < nu)) {
		const fs_tubercle *b = i < s->t.n ? &s->t.items[i] : NULL;
		if (b && k < nr && (long long)get_u32(rm + 4 * k) < b->id) {
			rc = FS_DB_ERROR; /* removes what the base does not have */
			break;
		}
		if (b && k < nr && get_u32(rm + 4 * k) == (uint32_t)b->id) {
			i++;
			k++;
			continue;
		}
		fs_tubercle x;
		if (j < nu && (!b || (long long)get_u32(up + j * TUB_BYTES) < b->id))
			tub_decode(up + j++ * TUB_BYTES, &x);
		else
			x = s->t.items[i++];
		if (x.id <= last)
			rc = FS_DB_ERROR; /* an id twice, or out of order */
		last = x.id;
		o.t.items[o.t.n++] = x;
	}
	if (k != nr)
		rc = FS_DB_ERROR;
	i = j = k = 0;
	while (!rc && (i < s->e.n || j < na)) {
		const fs_edge *b = i < s->e.n ? &s->e.items[i] : NULL;
		if (b && k < ne) {
			fs_edge r = edge_at(er + k * EDGE_BYTES);
			int c = cmp_edge(&r, b);
			if (c < 0) {
				rc = FS_DB_ERROR;
				break;
			}
			if (c == 0) {
				i++;
				k++;
				continue;
			}
		}
		fs_edge a = j < na ? edge_at(ea + j * EDGE_BYTES) : (fs_edge){0, 0};
		int c = !b ? -1 : j < na ? cmp_edge(&a, b) : 1;
		if (c == 0) {
			rc = FS_DB_ERROR; /* added twice */
			break;
		}
		o.e.items[o.e.n++] = c < 0 ? (j++, a) : s->e.items[i++];
	}
	if (!rc && k != ne)
		rc = FS_DB_ERROR;
	if (rc) {
		fs_set_state_free(&o);
		return rc;
	}
	fs_set_state_free(s);
	*s = o;
	return FS_DB_OK;
}

/* ---- the cache of the last packed set read ---- */

static struct {
	int valid;
	const fs_db *db;
	unsigned long long opened; /* fs_db_open_serial: another handle at the same address is another db */
	long long set_id;
	long long data_version; /* other connections' commits */
	int total_changes;      /* this connection's changes (a set deleted, its id reused) */
	int kept_in_tx;         /* written by this connection's open transaction: stamped at commit */
	int packed;
	fs_set_state s;
	base_rec base; /* the record s was made from (base.buf NULL: not known) */
} cache;

static void base_free(base_rec *b)
{
	free(b->own[0]);
	free(b->own[1]);
	memset(b, 0, sizeof *b);
}

static void cache_drop(void)
{
	fs_set_state_free(&cache.s);
	base_free(&cache.base);
	memset(&cache, 0, sizeof cache);
}

/* A rollback undoes this connection's changes without a trace in
 * total_changes: what was read inside the transaction is gone. */
static void on_rollback(void *arg)
{
	(void)arg;
	cache_drop();
}

/* The transaction that wrote the cached state commits: from now on any
 * further change of this connection's invalidates it. */
static int on_commit(void *arg)
{
	fs_db *db = arg;
	if (cache.valid && cache.kept_in_tx && cache.db == db) {
		/* the commit's own changes are counted already */
		cache.total_changes = sqlite3_total_changes(fs_db_handle(db));
		cache.kept_in_tx = 0;
	}
	return 0;
}

static int data_version(fs_db *db, long long *v)
{
	sqlite3_stmt *st = fs_db_stmt(db, "PRAGMA data_version");
	if (!st)
		return FS_DB_ERROR;
	int rc = sqlite3_step(st);
	*v = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	fs_db_done(st);
	return rc == SQLITE_ROW ? FS_DB_OK : fs_db_rc_from_sqlite(rc);
}

/* The set's packed rows into s, and the record they were made from into
 * base (the caller's: base_free). */
static int load(fs_db *db, long long set_id, fs_set_state *s, base_rec *base, int *packed)
{
	memset(s, 0, sizeof *s);
	memset(base, 0, sizeof *base);
	*packed = 0;
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT n_tubercles, n_edges, tubercles, edges, blob_id, delta FROM set_packed "
					  "WHERE set_id = ?");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, set_id);
	int rc = fs_bind_step(&b);
	if (rc != SQLITE_ROW) {
		fs_db_done(st);
		return rc == SQLITE_DONE ? FS_DB_OK : fs_db_rc_from_sqlite(rc);
	}
	size_t nt = (size_t)sqlite3_column_int64(st, 0), ne = (size_t)sqlite3_column_int64(st, 1);
	const unsigned char *tb = sqlite3_column_blob(st, 2);
	size_t tlen = (size_t)sqlite3_column_bytes(st, 2);
	const unsigned char *eb = sqlite3_column_blob(st, 3);
	size_t elen = (size_t)sqlite3_column_bytes(st, 3);
	const unsigned char *delta = sqlite3_column_blob(st, 5);
	size_t dlen = (size_t)sqlite3_column_bytes(st, 5);
	rc = FS_DB_OK;
	/* the counts are the set's; with a delta, its header has the base's */
	if (delta && delta_head(delta, dlen, &nt, &ne))
		rc = FS_DB_ERROR;
	if (!rc && sqlite3_column_type(st, 4) != SQLITE_NULL) {
		/* written in chunks (staged_blob.h): the tubercles' records, then
		 * the edges' */
		size_t len = 0;
		rc = fs_blob_read(db, sqlite3_column_int64(st, 4), &base->own[0], &len);
		if (rc == FS_DB_NOTFOUND)
			rc = FS_DB_ERROR;
		tlen = len >= nt * TUB_BYTES ? nt * TUB_BYTES : len;
		elen = len - tlen;
	} else if (!rc && (base->own[0] = malloc(tlen + elen + 1))) {
		/* kept: the next edit's delta is made against it */
		if (tlen)
			memcpy(base->own[0], tb, tlen);
		if (elen)
			memcpy(base->own[0] + tlen, eb, elen);
	} else if (!rc) {
		rc = FS_DB_ERROR;
	}
	if (!rc && (tlen != nt * TUB_BYTES || elen != ne * EDGE_BYTES))
		rc = FS_DB_ERROR; /* a damaged record is an error, never half a set */
	if (!rc) {
		base->tub = base->own[0];
		base->edges = base->own[0] + tlen;
		base->nt = nt;
		base->ne = ne;
		s->t.items = malloc((nt ? nt : 1) * sizeof *s->t.items);
		s->e.items = malloc((ne ? ne : 1) * sizeof *s->e.items);
		if (!s->t.items || !s->e.items)
			rc = FS_DB_ERROR;
	}
	for (size_t i = 0; !rc && i < nt; i++)
		tub_decode(base->tub + i * TUB_BYTES, &s->t.items[i]);
	for (size_t i = 0; !rc && i < ne; i++)
		s->e.items[i] = edge_at(base->edges + i * EDGE_BYTES);
	if (!rc) {
		s->t.n = s->t.cap = nt;
		s->e.n = s->e.cap = ne;
	}
	if (!rc && delta)
		rc = delta_apply(s, delta);
	if (!rc && (s->t.n != (size_t)sqlite3_column_int64(st, 0) || s->e.n != (size_t)sqlite3_column_int64(st, 1)))
		rc = FS_DB_ERROR;
	fs_db_done(st);
	if (rc) {
		fs_set_state_free(s);
		base_free(base);
		return rc;
	}
	*packed = 1;
	return FS_DB_OK;
}

int fs_packed_exists(fs_db *db, long long set_id, int *packed)
{
	*packed = 0;
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT 1 FROM set_packed WHERE set_id = ?");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, set_id);
	int rc = fs_bind_step(&b);
	*packed = rc == SQLITE_ROW;
	fs_db_done(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? FS_DB_OK : fs_db_rc_from_sqlite(rc);
}

int fs_packed_state(fs_db *db, long long set_id, const fs_set_state **state)
{
	*state = NULL;
	long long dv;
	int rc = data_version(db, &dv);
	if (rc)
		return rc;
	sqlite3 *h = fs_db_handle(db);
	if (cache.valid && cache.db == db && cache.opened == fs_db_open_serial(db) && cache.set_id == set_id &&
	    cache.data_version == dv && (cache.kept_in_tx || cache.total_changes == sqlite3_total_changes(h))) {
		*state = cache.packed ? &cache.s : NULL;
		return FS_DB_OK;
	}
	cache_drop();
	fs_set_state s;
	base_rec base;
	int packed;
	rc = load(db, set_id, &s, &base, &packed);
	if (rc)
		return rc;
	sqlite3_rollback_hook(h, on_rollback, NULL);
	cache.valid = 1;
	cache.db = db;
	cache.opened = fs_db_open_serial(db);
	cache.set_id = set_id;
	cache.data_version = dv;
	cache.total_changes = sqlite3_total_changes(h);
	cache.packed = packed;
	cache.s = s;
	cache.base = base;
	*state = packed ? &cache.s : NULL;
	return FS_DB_OK;
}

int fs_packed_encode(const fs_tubercle_list *t, const fs_edge_list *e, fs_packed_rec *out)
{
	memset(out, 0, sizeof *out);
	out->tub = malloc(t->n * TUB_BYTES + 1);
	out->edges = malloc(e->n * EDGE_BYTES + 1);
	if (!out->tub || !out->edges) {
		fs_packed_rec_free(out);
		return FS_DB_ERROR;
	}
	for (size_t i = 0; i < t->n; i++)
		tub_encode(out->tub + i * TUB_BYTES, &t->items[i]);
	for (size_t i = 0; i < e->n; i++) {
		put_u32(out->edges + i * EDGE_BYTES, (uint32_t)e->items[i].id1);
		put_u32(out->edges + i * EDGE_BYTES + 4, (uint32_t)e->items[i].id2);
	}
	out->n_tub = t->n;
	out->n_edges = e->n;
	return FS_DB_OK;
}

int fs_packed_stage(fs_db *db, fs_packed_rec *r, char *err, size_t errlen)
{
	size_t tlen = r->n_tub * TUB_BYTES, elen = r->n_edges * EDGE_BYTES;
	if (r->blob_id > 0 || !fs_blob_worth_staging(tlen + elen))
		return FS_DB_OK;
	const unsigned char *parts[2] = {r->tub, r->edges};
	size_t lens[2] = {tlen, elen};
	return fs_blob_stage(db, parts, lens, 2, &r->blob_id, err, errlen);
}

int fs_packed_encode_edit(fs_db *db, long long set_id, const fs_set_state *next, fs_packed_rec *out)
{
	memset(out, 0, sizeof *out);
	if (cache.db == db && cache.opened == fs_db_open_serial(db) && cache.set_id == set_id && cache.base.own[0]) {
		int rc = delta_make(&cache.base, next, &out->delta, &out->delta_len);
		if (rc || out->delta) {
			out->n_tub = next->t.n;
			out->n_edges = next->e.n;
			return rc;
		}
	}
	return fs_packed_encode(&next->t, &next->e, out);
}

void fs_packed_rec_free(fs_packed_rec *r)
{
	free(r->tub);
	free(r->edges);
	free(r->delta);
	memset(r, 0, sizeof *r);
}

/* The statement of a write of r with the set and its counts bound (?1 to
 * ?3). */
static sqlite3_stmt *put_stmt(fs_db *db, const char *sql, long long set_id, const fs_packed_rec *r, fs_bind *b)
{
	sqlite3_stmt *st = fs_db_stmt(db, sql);
	if (st) {
		*b = fs_bind_start(db, st);
		fs_bind_int64(b, 1, set_id);
		fs_bind_int64(b, 2, (sqlite3_int64)r->n_tub);
		fs_bind_int64(b, 3, (sqlite3_int64)r->n_edges);
	}
	return st;
}

/* A delta (fs_packed_encode_edit) over the record the set has. */
static int put_delta(fs_db *db, long long set_id, const fs_packed_rec *r)
{
	fs_bind b;
	sqlite3_stmt *st = put_stmt(
		db, "UPDATE set_packed SET n_tubercles = ?2, n_edges = ?3, delta = ?4 WHERE set_id = ?1", set_id, r, &b);
	if (!st)
		return FS_DB_ERROR;
	fs_bind_blob64(&b, 4, r->delta, r->delta_len, SQLITE_STATIC);
	int rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	if (!rc && sqlite3_changes(fs_db_handle(db)) != 1)
		rc = FS_DB_ERROR; /* no record to change */
	return rc;
}

int fs_packed_put_encoded(fs_db *db, long long set_id, const fs_packed_rec *r)
{
	if (r->delta)
		return put_delta(db, set_id, r); /* the cached record stays the base */
	cache_drop();
	/* an upsert, not INSERT OR REPLACE: the replaced row's delete would
	 * not fire the trigger that counts its blob's references */
	fs_bind b;
	sqlite3_stmt *st = put_stmt(db,
				    "INSERT INTO set_packed (set_id, n_tubercles, n_edges, tubercles, edges, blob_id, "
				    "delta) VALUES (?1, ?2, ?3, ?4, ?5, ?6, NULL) ON CONFLICT (set_id) DO UPDATE SET "
				    "n_tubercles = ?2, n_edges = ?3, tubercles = ?4, edges = ?5, blob_id = ?6, delta = NULL",
				    set_id, r, &b);
	if (!st)
		return FS_DB_ERROR;
	int rc = FS_DB_OK;
	if (r->blob_id > 0) {
		/* the bytes are in the staged blob already: only refer to it */
		fs_bind_blob64(&b, 4, "", 0, SQLITE_STATIC);
		fs_bind_blob64(&b, 5, "", 0, SQLITE_STATIC);
		fs_bind_int64(&b, 6, r->blob_id);
		rc = fs_blob_publish(db, r->blob_id);
	} else {
		/* static: the record outlives this one step (no copy of megabytes) */
		fs_bind_blob64(&b, 4, r->tub, r->n_tub * TUB_BYTES, SQLITE_STATIC);
		fs_bind_blob64(&b, 5, r->edges, r->n_edges * EDGE_BYTES, SQLITE_STATIC);
		fs_bind_null(&b, 6);
	}
	if (!rc)
		rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	return rc;
}

void fs_packed_cache_keep(fs_db *db, long long set_id, fs_set_state *s, fs_packed_rec *rec)
{
	long long dv;
	base_rec base;
	memset(&base, 0, sizeof base);
	if (rec->delta) {
		/* the base is the record already cached for this set: without it
		 * nothing is kept (the next read loads both) */
		if (!(cache.db == db && cache.opened == fs_db_open_serial(db) && cache.set_id == set_id &&
		      cache.base.own[0])) {
			cache_drop();
			return;
		}
		base = cache.base;
		memset(&cache.base, 0, sizeof cache.base);
	} else {
		/* the record written is the base now */
		base.own[0] = rec->tub;
		base.own[1] = rec->edges;
		base.tub = rec->tub;
		base.edges = rec->edges;
		base.nt = rec->n_tub;
		base.ne = rec->n_edges;
		rec->tub = rec->edges = NULL;
	}
	cache_drop();
	if (data_version(db, &dv)) {
		base_free(&base);
		return;
	}
	sqlite3_rollback_hook(fs_db_handle(db), on_rollback, NULL);
	sqlite3_commit_hook(fs_db_handle(db), on_commit, db);
	cache.valid = 1;
	cache.db = db;
	cache.opened = fs_db_open_serial(db);
	cache.set_id = set_id;
	cache.data_version = dv;
	cache.kept_in_tx = 1;
	cache.packed = 1;
	cache.s = *s;
	cache.base = base;
	memset(s, 0, sizeof *s);
}

int fs_packed_put(fs_db *db, long long set_id, const fs_tubercle_list *t, const fs_edge_list *e)
{
	fs_packed_rec r;
	int rc = fs_packed_encode(t, e, &r);
	if (!rc)
		rc = fs_packed_put_encoded(db, set_id, &r);
	fs_packed_rec_free(&r);
	return rc;
}
