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
} cache;

static void cache_drop(void)
{
	fs_set_state_free(&cache.s);
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

static int load(fs_db *db, long long set_id, fs_set_state *s, int *packed)
{
	memset(s, 0, sizeof *s);
	*packed = 0;
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT n_tubercles, n_edges, tubercles, edges, blob_id FROM set_packed "
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
	rc = FS_DB_OK;
	unsigned char *staged = NULL;
	if (sqlite3_column_type(st, 4) != SQLITE_NULL) {
		/* written in chunks (staged_blob.h): the tubercles' records, then
		 * the edges' */
		size_t len = 0;
		rc = fs_blob_read(db, sqlite3_column_int64(st, 4), &staged, &len);
		if (rc == FS_DB_NOTFOUND)
			rc = FS_DB_ERROR;
		tb = staged;
		tlen = len >= nt * TUB_BYTES ? nt * TUB_BYTES : len;
		eb = staged ? staged + tlen : NULL;
		elen = len - tlen;
	}
	if (!rc && (tlen != nt * TUB_BYTES || elen != ne * EDGE_BYTES))
		rc = FS_DB_ERROR; /* a damaged record is an error, never half a set */
	if (!rc) {
		s->t.items = malloc((nt ? nt : 1) * sizeof *s->t.items);
		s->e.items = malloc((ne ? ne : 1) * sizeof *s->e.items);
		if (!s->t.items || !s->e.items)
			rc = FS_DB_ERROR;
	}
	for (size_t i = 0; !rc && i < nt; i++)
		tub_decode(tb + i * TUB_BYTES, &s->t.items[i]);
	for (size_t i = 0; !rc && i < ne; i++) {
		s->e.items[i].id1 = (int)get_u32(eb + i * EDGE_BYTES);
		s->e.items[i].id2 = (int)get_u32(eb + i * EDGE_BYTES + 4);
	}
	fs_db_done(st);
	free(staged);
	if (rc) {
		fs_set_state_free(s);
		return rc;
	}
	s->t.n = s->t.cap = nt;
	s->e.n = s->e.cap = ne;
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
	int packed;
	rc = load(db, set_id, &s, &packed);
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

void fs_packed_rec_free(fs_packed_rec *r)
{
	free(r->tub);
	free(r->edges);
	memset(r, 0, sizeof *r);
}

int fs_packed_put_encoded(fs_db *db, long long set_id, const fs_packed_rec *r)
{
	cache_drop();
	/* an upsert, not INSERT OR REPLACE: the replaced row's delete would
	 * not fire the trigger that counts its blob's references */
	sqlite3_stmt *st = fs_db_stmt(db, "INSERT INTO set_packed (set_id, n_tubercles, n_edges, tubercles, edges, "
					  "blob_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (set_id) DO UPDATE SET "
					  "n_tubercles = ?2, n_edges = ?3, tubercles = ?4, edges = ?5, blob_id = ?6");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, set_id);
	fs_bind_int64(&b, 2, (sqlite3_int64)r->n_tub);
	fs_bind_int64(&b, 3, (sqlite3_int64)r->n_edges);
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

void fs_packed_cache_keep(fs_db *db, long long set_id, fs_set_state *s)
{
	long long dv;
	cache_drop();
	if (data_version(db, &dv)) {
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
