/*
 * set_rows.c - rows, revisions and journal entries of annotation sets
 * (see set_rows.h).
 */
#include "store/set_rows.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libdeflate.h>

#include "analysis/params_json.h"
#include "store/set_packed.h"
#include "store/staged_blob.h"
#include "store/sets_store.h"
#include "store/db_bind.h"

#define ERR(...) snprintf(err, errlen, __VA_ARGS__)

/* A tubercle row (tid, x, y, r, circularity, major, minor, orientation,
 * eccentricity, source, fit_quality); NULL r / fit_quality read as NaN. */
static void read_tub(sqlite3_stmt *st, fs_tubercle *t);

long long fs_rows_now(void)
{
	return (long long)time(NULL);
}

int fs_rows_get(fs_db *db, long long set_id, int tid, fs_tubercle *t)
{
	const fs_set_state *pk;
	int prc = fs_packed_state(db, set_id, &pk);
	if (prc)
		return prc;
	if (pk) {
		const fs_tubercle *x = fs_set_state_find(pk, tid);
		if (!x)
			return FS_DB_NOTFOUND;
		*t = *x;
		return FS_DB_OK;
	}
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT tid, x, y, r, circularity, major, minor, orientation, "
					  "eccentricity, source, fit_quality FROM tubercles WHERE set_id = ? AND tid = ?");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, set_id);
	fs_bind_int(&b, 2, tid);
	int rc = fs_bind_step(&b);
	if (rc == SQLITE_ROW)
		read_tub(st, t);
	fs_db_done(st);
	if (rc == SQLITE_DONE)
		return FS_DB_NOTFOUND;
	return rc == SQLITE_ROW ? FS_DB_OK : fs_db_rc_from_sqlite(rc);
}

/* NULL for NaN (an unmeasured radius, an unknown fit quality). */
static void bind_num_or_null(fs_bind *b, int i, double v)
{
	if (isfinite(v))
		fs_bind_double(b, i, v);
	else
		fs_bind_null(b, i);
}

static double col_num_or_nan(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static void read_tub(sqlite3_stmt *st, fs_tubercle *t)
{
	fs_tubercle_init(t);
	t->id = sqlite3_column_int(st, 0);
	t->centroid_x = sqlite3_column_double(st, 1);
	t->centroid_y = sqlite3_column_double(st, 2);
	t->radius_px = col_num_or_nan(st, 3);
	t->circularity = sqlite3_column_double(st, 4);
	if (sqlite3_column_type(st, 5) != SQLITE_NULL) {
		t->has_ellipse = 1;
		t->major_axis_px = sqlite3_column_double(st, 5);
		t->minor_axis_px = sqlite3_column_double(st, 6);
		t->orientation = sqlite3_column_double(st, 7);
		t->eccentricity = sqlite3_column_double(st, 8);
	}
	const char *s = (const char *)sqlite3_column_text(st, 9);
	if (!s || fs_source_parse(s, &t->source))
		t->source = FS_SOURCE_MANUAL;
	t->fit_quality = col_num_or_nan(st, 10);
}

static int bind_tub(fs_bind *b, int first, const fs_tubercle *t)
{
	fs_bind_double(b, first, t->centroid_x);
	fs_bind_double(b, first + 1, t->centroid_y);
	bind_num_or_null(b, first + 2, t->radius_px);
	fs_bind_double(b, first + 3, t->circularity);
	if (t->has_ellipse) {
		fs_bind_double(b, first + 4, t->major_axis_px);
		fs_bind_double(b, first + 5, t->minor_axis_px);
		fs_bind_double(b, first + 6, t->orientation);
		fs_bind_double(b, first + 7, t->eccentricity);
	} else {
		for (int i = 4; i < 8; i++)
			fs_bind_null(b, first + i);
	}
	fs_bind_text(b, first + 8, fs_source_name(t->source), -1, SQLITE_STATIC);
	bind_num_or_null(b, first + 9, t->fit_quality);
	return 0;
}

static int row_insert(fs_db *db, long long set_id, const fs_tubercle *t)
{
	sqlite3_stmt *st = fs_db_stmt(db, "INSERT INTO tubercles (set_id, tid, x, y, r, circularity, major, minor, "
					  "orientation, eccentricity, source, fit_quality) "
					  "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, set_id);
	fs_bind_int(&b, 2, t->id);
	bind_tub(&b, 3, t);
	int rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	return rc;
}

static int row_update(fs_db *db, long long set_id, const fs_tubercle *t)
{
	sqlite3_stmt *st = fs_db_stmt(db, "UPDATE tubercles SET x = ?, y = ?, r = ?, circularity = ?, major = ?, "
					  "minor = ?, orientation = ?, eccentricity = ?, source = ?, fit_quality = ? "
					  "WHERE set_id = ? AND tid = ?");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	bind_tub(&b, 1, t);
	fs_bind_int64(&b, 11, set_id);
	fs_bind_int(&b, 12, t->id);
	int rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	return rc;
}

static int row_delete(fs_db *db, long long set_id, int tid)
{
	sqlite3_stmt *st = fs_db_stmt(db, "DELETE FROM tubercles WHERE set_id = ? AND tid = ?");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, set_id);
	fs_bind_int(&b, 2, tid);
	int rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	return rc;
}

static void edge_norm(fs_edge *e)
{
	if (e->id1 > e->id2) {
		int t = e->id1;
		e->id1 = e->id2;
		e->id2 = t;
	}
}

int fs_rows_edge_exists(fs_db *db, long long set_id, fs_edge e, int *exists)
{
	edge_norm(&e);
	const fs_set_state *pk;
	int prc = fs_packed_state(db, set_id, &pk);
	if (prc)
		return prc;
	if (pk) {
		*exists = fs_set_state_has_edge(pk, e.id1, e.id2);
		return FS_DB_OK;
	}
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT 1 FROM edges WHERE set_id = ? AND id1 = ? AND id2 = ?");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, set_id);
	fs_bind_int(&b, 2, e.id1);
	fs_bind_int(&b, 3, e.id2);
	int rc = fs_bind_step(&b);
	*exists = rc == SQLITE_ROW;
	fs_db_done(st);
	return (rc == SQLITE_ROW || rc == SQLITE_DONE) ? FS_DB_OK : fs_db_rc_from_sqlite(rc);
}

static int edge_write(fs_db *db, long long set_id, fs_edge e, int insert)
{
	edge_norm(&e);
	sqlite3_stmt *st = fs_db_stmt(db, insert ? "INSERT INTO edges (set_id, id1, id2) VALUES (?, ?, ?)"
						 : "DELETE FROM edges WHERE set_id = ? AND id1 = ? AND id2 = ?");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, set_id);
	fs_bind_int(&b, 2, e.id1);
	fs_bind_int(&b, 3, e.id2);
	int rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	return rc;
}

/* The stored tubercle with was's id, in *cur, still as was
 * (fs_set_diff_still): FS_DB_OK, FS_DB_INVALID with the reason, or the
 * error. Both a diff's removed tubercles and its changed ones' before
 * states must be. */
static int still_as_was(fs_db *db, long long set_id, const fs_tubercle *was, fs_tubercle *cur, char *why,
			size_t whylen)
{
	int rc = fs_rows_get(db, set_id, was->id, cur);
	if (rc && rc != FS_DB_NOTFOUND)
		return rc;
	return fs_set_diff_still(rc ? NULL : cur, was, why, whylen) ? FS_DB_INVALID : FS_DB_OK;
}

int fs_rows_diff_applies(fs_db *db, long long set_id, const fs_set_diff *d, char *why, size_t whylen)
{
	fs_tubercle cur;
	int rc;
	for (size_t i = 0; i < d->removed.n; i++)
		if ((rc = still_as_was(db, set_id, &d->removed.items[i], &cur, why, whylen)))
			return rc;
	for (size_t i = 0; i < d->before.n; i++) {
		if ((rc = still_as_was(db, set_id, &d->before.items[i], &cur, why, whylen)))
			return rc;
		if (!fs_tubercle_storable(&d->after.items[i]) || d->after.items[i].id != cur.id) {
			snprintf(why, whylen, "invalid values for tubercle #%d", cur.id);
			return FS_DB_INVALID;
		}
	}
	for (size_t i = 0; i < d->added.n; i++) {
		if (!fs_tubercle_storable(&d->added.items[i])) {
			snprintf(why, whylen, "invalid tubercle (position or radius)");
			return FS_DB_INVALID;
		}
		rc = fs_rows_get(db, set_id, d->added.items[i].id, &cur);
		if (rc == FS_DB_OK) {
			snprintf(why, whylen, "tubercle #%d exists again", cur.id);
			return FS_DB_INVALID;
		}
		if (rc != FS_DB_NOTFOUND)
			return rc;
	}
	for (size_t i = 0; i < d->edges_removed.n; i++) {
		int ex;
		if ((rc = fs_rows_edge_exists(db, set_id, d->edges_removed.items[i], &ex)))
			return rc;
		if (!ex) {
			snprintf(why, whylen, "connection %d-%d no longer exists", d->edges_removed.items[i].id1,
				 d->edges_removed.items[i].id2);
			return FS_DB_INVALID;
		}
	}
	return FS_DB_OK;
}

/* The set's own columns a diff changes: measurement version, parameters,
 * next_tid. */
static int write_set_fields(fs_db *db, long long set_id, const fs_set_diff *d)
{
	int rc = FS_DB_OK;
	sqlite3_stmt *st;
	fs_bind b;
	if (d->version_changed) {
		st = fs_db_stmt(db, "UPDATE sets SET measurement_version = ? WHERE id = ?");
		if (!st)
			return FS_DB_ERROR;
		b = fs_bind_start(db, st);
		fs_bind_int(&b, 1, d->version_after);
		fs_bind_int64(&b, 2, set_id);
		rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
		fs_db_done(st);
		if (rc)
			return rc;
	}
	if (d->params_changed) {
		st = fs_db_stmt(db, "UPDATE sets SET params = ? WHERE id = ?");
		if (!st)
			return FS_DB_ERROR;
		b = fs_bind_start(db, st);
		char *pj = NULL;
		if (d->has_params) {
			cJSON *p = fs_params_to_json(&d->params_after);
			pj = p ? cJSON_PrintUnformatted(p) : NULL;
			cJSON_Delete(p);
			fs_bind_text(&b, 1, pj, -1, SQLITE_TRANSIENT);
		} else {
			fs_bind_null(&b, 1);
		}
		fs_bind_int64(&b, 2, set_id);
		rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
		fs_db_done(st);
		cJSON_free(pj);
		if (rc)
			return rc;
	}
	/* ids are never reused: keep next_tid above every id ever written */
	int maxid = 0;
	for (size_t i = 0; i < d->added.n; i++)
		if (d->added.items[i].id > maxid)
			maxid = d->added.items[i].id;
	if (maxid) {
		st = fs_db_stmt(db, "UPDATE sets SET next_tid = max(next_tid, ?) WHERE id = ?");
		if (!st)
			return FS_DB_ERROR;
		b = fs_bind_start(db, st);
		fs_bind_int(&b, 1, maxid + 1);
		fs_bind_int64(&b, 2, set_id);
		rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
		fs_db_done(st);
	}
	return rc;
}

static int cmp_tub_id(const void *a, const void *b)
{
	int x = ((const fs_tubercle *)a)->id, y = ((const fs_tubercle *)b)->id;
	return (x > y) - (x < y);
}

static int cmp_int_id(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static int cmp_edge_pair(const void *a, const void *b)
{
	const fs_edge *x = a, *y = b;
	if (x->id1 != y->id1)
		return (x->id1 > y->id1) - (x->id1 < y->id1);
	return (x->id2 > y->id2) - (x->id2 < y->id2);
}

static int edge_listed(const fs_edge_list *sorted, fs_edge e)
{
	return sorted->n && bsearch(&e, sorted->items, sorted->n, sizeof e, cmp_edge_pair) != NULL;
}

/* A list's items sorted by id (or pair), in a copy. */
static int sorted_tubs(const fs_tubercle_list *in, fs_tubercle_list *out)
{
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < in->n; i++)
		if (fs_tubercle_list_append(out, &in->items[i]))
			return -1;
	if (out->n > 1)
		qsort(out->items, out->n, sizeof *out->items, cmp_tub_id);
	return 0;
}

static int sorted_edges(const fs_edge_list *in, fs_edge_list *out)
{
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < in->n; i++) {
		fs_edge e = in->items[i];
		edge_norm(&e);
		if (fs_edge_list_append(out, &e))
			return -1;
	}
	if (out->n > 1)
		qsort(out->items, out->n, sizeof *out->items, cmp_edge_pair);
	return 0;
}

/*
 * A diff written to a packed set: applied to its rows in memory and
 * stored again, with the checks the row path gets from its constraints
 * and lookups (an added id that exists, a connection to a missing
 * tubercle or one that exists already, connections left to a removed
 * tubercle), with the same messages. The set's rows are sorted and an
 * edit's diff is small: the new rows are merged in one pass, no sort of
 * the whole set (this runs under the write lock).
 */
static int packed_next(const fs_set_state *cur, const fs_set_diff *d, fs_set_state *out, char *why, size_t whylen)
{
	fs_set_state nx;
	fs_tubercle_list add = {0}, aft = {0};
	fs_edge_list er = {0}, ea = {0};
	int *rm = NULL;
	int rc = FS_DB_OK;
	memset(&nx, 0, sizeof nx);
	if (d->removed.n && !(rm = malloc(d->removed.n * sizeof *rm)))
		rc = FS_DB_ERROR;
	for (size_t i = 0; !rc && i < d->removed.n; i++)
		rm[i] = d->removed.items[i].id;
	if (rm)
		qsort(rm, d->removed.n, sizeof *rm, cmp_int_id);
	if (!rc && (sorted_tubs(&d->added, &add) || sorted_tubs(&d->after, &aft) ||
		    sorted_edges(&d->edges_removed, &er) || sorted_edges(&d->edges_added, &ea)))
		rc = FS_DB_ERROR;
	for (size_t i = 1; !rc && i < add.n; i++)
		if (add.items[i].id == add.items[i - 1].id)
			rc = FS_DB_CONSTRAINT; /* as the primary key would */
	/* tubercles: the set's, less the removed, with the modified ones as
	 * they are after, merged with the added */
	nx.t.cap = cur->t.n + add.n + 1;
	if (!rc && !(nx.t.items = malloc(nx.t.cap * sizeof *nx.t.items)))
		rc = FS_DB_ERROR;
	fs_set_state afts = {aft, {0}};
	size_t i = 0, j = 0;
	while (!rc && (i < cur->t.n || j < add.n)) {
		const fs_tubercle *c = i < cur->t.n ? &cur->t.items[i] : NULL;
		const fs_tubercle *a = j < add.n ? &add.items[j] : NULL;
		if (c && rm && bsearch(&c->id, rm, d->removed.n, sizeof *rm, cmp_int_id)) {
			i++; /* removed (and perhaps added again under its id below) */
			continue;
		}
		if (a && (!c || a->id < c->id)) {
			nx.t.items[nx.t.n++] = *a;
			j++;
		} else if (a && a->id == c->id) {
			rc = FS_DB_CONSTRAINT;
		} else {
			const fs_tubercle *m = aft.n ? fs_set_state_find(&afts, c->id) : NULL;
			nx.t.items[nx.t.n++] = m ? *m : *c;
			i++;
		}
	}
	/* connections: each added one checked, then merged with the set's
	 * less the removed */
	for (size_t k = 0; !rc && k < ea.n; k++) {
		fs_edge e = ea.items[k];
		if (e.id1 == e.id2) {
			snprintf(why, whylen, "a connection needs two different tubercles");
			rc = FS_DB_INVALID;
		} else if (!fs_set_state_find(&nx, e.id1) || !fs_set_state_find(&nx, e.id2)) {
			snprintf(why, whylen, "connection %d-%d refers to a missing tubercle", e.id1, e.id2);
			rc = FS_DB_INVALID;
		} else if ((k && !cmp_edge_pair(&ea.items[k - 1], &e)) ||
			   (edge_listed(&cur->e, e) && !edge_listed(&er, e))) {
			snprintf(why, whylen, "connection %d-%d exists already", e.id1, e.id2);
			rc = FS_DB_INVALID;
		}
	}
	nx.e.cap = cur->e.n + ea.n + 1;
	if (!rc && !(nx.e.items = malloc(nx.e.cap * sizeof *nx.e.items)))
		rc = FS_DB_ERROR;
	i = 0;
	j = 0;
	while (!rc && (i < cur->e.n || j < ea.n)) {
		const fs_edge *c = i < cur->e.n ? &cur->e.items[i] : NULL;
		const fs_edge *a = j < ea.n ? &ea.items[j] : NULL;
		if (c && er.n && edge_listed(&er, *c)) {
			i++;
			continue;
		}
		if (a && (!c || cmp_edge_pair(a, c) < 0)) {
			nx.e.items[nx.e.n++] = *a;
			j++;
		} else {
			nx.e.items[nx.e.n++] = *c;
			i++;
		}
	}
	/* no connection may be left to a removed tubercle */
	for (size_t k = 0; !rc && rm && k < nx.e.n; k++) {
		const fs_edge *e = &nx.e.items[k];
		if ((bsearch(&e->id1, rm, d->removed.n, sizeof *rm, cmp_int_id) && !fs_set_state_find(&nx, e->id1)) ||
		    (bsearch(&e->id2, rm, d->removed.n, sizeof *rm, cmp_int_id) && !fs_set_state_find(&nx, e->id2))) {
			snprintf(why, whylen, "the change would leave connections to missing tubercles");
			rc = FS_DB_INVALID;
		}
	}
	free(rm);
	fs_tubercle_list_free(&add);
	fs_tubercle_list_free(&aft);
	fs_edge_list_free(&er);
	fs_edge_list_free(&ea);
	if (rc) {
		fs_set_state_free(&nx);
		return rc;
	}
	*out = nx;
	return FS_DB_OK;
}

/* The new rows written, kept as the cached state (nx is taken over), and
 * the set's own columns. */
static int packed_store(fs_db *db, long long set_id, fs_packed_rec *rec, fs_set_state *nx, const fs_set_diff *d)
{
	int rc = fs_packed_put_encoded(db, set_id, rec);
	if (!rc)
		fs_packed_cache_keep(db, set_id, nx, rec); /* what was just written: the next edit reads it */
	if (!rc)
		rc = write_set_fields(db, set_id, d);
	return rc;
}

static int packed_write(fs_db *db, long long set_id, const fs_set_state *cur, const fs_set_diff *d, char *why,
			size_t whylen)
{
	fs_set_state nx;
	fs_packed_rec rec;
	memset(&rec, 0, sizeof rec);
	int rc = packed_next(cur, d, &nx, why, whylen);
	if (rc)
		return rc;
	rc = fs_packed_encode_edit(db, set_id, &nx, &rec);
	if (!rc)
		rc = packed_store(db, set_id, &rec, &nx, d);
	fs_packed_rec_free(&rec);
	fs_set_state_free(&nx);
	return rc;
}

int fs_rows_prepare(fs_db *db, long long set_id, const fs_set_diff *d, fs_rows_prepared *p, char *why,
		    size_t whylen)
{
	memset(p, 0, sizeof *p);
	const fs_set_state *pk;
	int rc = fs_packed_state(db, set_id, &pk);
	if (!rc && pk) {
		/* the merge and the encoding of the delta (or the whole
		 * record): the lock then only stores the bytes */
		rc = packed_next(pk, d, &p->next, why, whylen);
		if (!rc)
			rc = fs_packed_encode_edit(db, set_id, &p->next, &p->rec);
		p->packed = !rc;
	}
	if (!rc && fs_rows_journal_prepare(d, &p->journal))
		rc = FS_DB_ERROR;
	if (rc)
		fs_rows_prepared_free(p);
	return rc;
}

int fs_rows_write_prepared(fs_db *db, long long set_id, const fs_set_diff *d, fs_rows_prepared *p, char *why,
			   size_t whylen)
{
	if (p->packed)
		return packed_store(db, set_id, &p->rec, &p->next, d);
	return fs_rows_diff_write(db, set_id, d, why, whylen);
}

static void (*between_fn)(void *);
static void *between_arg;

void fs_set_on_prepared(void (*fn)(void *arg), void *arg)
{
	between_fn = fn;
	between_arg = arg;
}

void fs_rows_between_halves(void)
{
	if (between_fn)
		between_fn(between_arg);
}

void fs_rows_prepared_free(fs_rows_prepared *p)
{
	fs_packed_rec_free(&p->rec);
	fs_set_state_free(&p->next);
	fs_rows_journal_entry_free(&p->journal);
	memset(p, 0, sizeof *p);
}

/* A diff's removals in rows: its connections first, then its tubercles
 * (an edge row refers to both ends) */
static int removals_write(fs_db *db, long long set_id, const fs_set_diff *d)
{
	int rc;
	for (size_t i = 0; i < d->edges_removed.n; i++)
		if ((rc = edge_write(db, set_id, d->edges_removed.items[i], 0)))
			return rc;
	for (size_t i = 0; i < d->removed.n; i++)
		if ((rc = row_delete(db, set_id, d->removed.items[i].id)))
			return rc;
	return 0;
}

/* Every row of the set gone: two statements instead of a lookup per row */
static int rows_delete_all(fs_db *db, long long set_id)
{
	int rc = fs_db_exec_id(db, "DELETE FROM edges WHERE set_id = ?", set_id);
	return rc ? rc : fs_db_exec_id(db, "DELETE FROM tubercles WHERE set_id = ?", set_id);
}

int fs_rows_diff_write(fs_db *db, long long set_id, const fs_set_diff *d, char *why, size_t whylen)
{
	int rc;
	const fs_set_state *pk;
	if ((rc = fs_packed_state(db, set_id, &pk)))
		return rc;
	if (pk)
		return packed_write(db, set_id, pk, d, why, whylen);
	if ((rc = removals_write(db, set_id, d)))
		return rc;
	for (size_t i = 0; i < d->after.n; i++)
		if ((rc = row_update(db, set_id, &d->after.items[i])))
			return rc;
	for (size_t i = 0; i < d->added.n; i++)
		if ((rc = row_insert(db, set_id, &d->added.items[i])))
			return rc;
	for (size_t i = 0; i < d->edges_added.n; i++) {
		fs_edge e = d->edges_added.items[i];
		fs_tubercle t;
		if (e.id1 == e.id2) {
			snprintf(why, whylen, "a connection needs two different tubercles");
			return FS_DB_INVALID;
		}
		if (fs_rows_get(db, set_id, e.id1, &t) || fs_rows_get(db, set_id, e.id2, &t)) {
			snprintf(why, whylen, "connection %d-%d refers to a missing tubercle", e.id1, e.id2);
			return FS_DB_INVALID;
		}
		int ex;
		if ((rc = fs_rows_edge_exists(db, set_id, e, &ex)))
			return rc;
		if (ex) {
			snprintf(why, whylen, "connection %d-%d exists already", e.id1, e.id2);
			return FS_DB_INVALID;
		}
		if ((rc = edge_write(db, set_id, e, 1)))
			return rc;
	}
	/* the safety net the foreign key cannot be: no edge may be left to a
	 * removed tubercle. A few removals are checked by index; many (clear,
	 * area delete) by one scan of the set's edges. */
	if (d->removed.n > 0 && d->removed.n <= 64) {
		for (size_t i = 0; i < d->removed.n; i++) {
			sqlite3_stmt *st = fs_db_stmt(db, "SELECT 1 FROM edges WHERE set_id = ?1 AND id1 = ?2 UNION ALL "
							  "SELECT 1 FROM edges WHERE set_id = ?1 AND id2 = ?2 LIMIT 1");
			if (!st)
				return FS_DB_ERROR;
			fs_bind b = fs_bind_start(db, st);
			fs_bind_int64(&b, 1, set_id);
			fs_bind_int(&b, 2, d->removed.items[i].id);
			rc = fs_bind_step(&b);
			fs_db_done(st);
			if (rc == SQLITE_ROW) {
				snprintf(why, whylen, "the change would leave connections to missing tubercles");
				return FS_DB_INVALID;
			}
			if (rc != SQLITE_DONE)
				return fs_db_rc_from_sqlite(rc);
		}
	} else if (d->removed.n > 64) {
		sqlite3_stmt *st = fs_db_stmt(db, "SELECT count(*) FROM edges e WHERE e.set_id = ?1 AND ("
						  "NOT EXISTS (SELECT 1 FROM tubercles t WHERE t.set_id = ?1 AND t.tid = e.id1) OR "
						  "NOT EXISTS (SELECT 1 FROM tubercles t WHERE t.set_id = ?1 AND t.tid = e.id2))");
		if (!st)
			return FS_DB_ERROR;
		fs_bind b = fs_bind_start(db, st);
		fs_bind_int64(&b, 1, set_id);
		rc = fs_bind_step(&b);
		int dangling = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
		fs_db_done(st);
		if (dangling != 0) {
			snprintf(why, whylen, "the change would leave connections to missing tubercles");
			return dangling < 0 ? FS_DB_ERROR : FS_DB_INVALID;
		}
	}
	return write_set_fields(db, set_id, d);
}

int fs_rows_replace_packs(int whole, int packed, const fs_set_diff *d)
{
	/* large, or packed already: the set is (stays) packed (set_packed.h)
	 * and holds exactly what is added, which is in id order (fresh ids in
	 * sequence) with the edges normalised */
	return whole && (packed || d->added.n >= (size_t)fs_packed_min());
}

int fs_rows_replace_write(fs_db *db, long long set_id, const fs_set_diff *d, int whole, const fs_packed_rec *rec)
{
	int rc, packed;
	const fs_set_state *pk = NULL;
	char why[200];
	/* whether it is packed, not its record: staging the new record in
	 * transactions of its own made the cached one stale, and reading 7 MB
	 * back under the lock only to replace them is what staging avoids */
	if ((rc = fs_packed_exists(db, set_id, &packed)))
		return rc;
	if (fs_rows_replace_packs(whole, packed, d)) {
		if ((rc = rows_delete_all(db, set_id)) ||
		    (rc = rec ? fs_packed_put_encoded(db, set_id, rec)
			      : fs_packed_put(db, set_id, &d->added, &d->edges_added)))
			return rc;
		return write_set_fields(db, set_id, d);
	}
	if (packed && (rc = fs_packed_state(db, set_id, &pk)))
		return rc;
	if (pk)
		return packed_write(db, set_id, pk, d, why, sizeof why);
	if (whole) {
		/* everything goes */
		if ((rc = rows_delete_all(db, set_id)))
			return rc;
	} else {
		if ((rc = removals_write(db, set_id, d)))
			return rc;
	}
	for (size_t i = 0; i < d->added.n; i++)
		if ((rc = row_insert(db, set_id, &d->added.items[i])))
			return rc;
	/* new ids only (fresh, above next_tid), each edge between two of them,
	 * normalised and without duplicates: nothing to look up */
	for (size_t i = 0; i < d->edges_added.n; i++)
		if ((rc = edge_write(db, set_id, d->edges_added.items[i], 1)))
			return rc;
	return write_set_fields(db, set_id, d);
}

int fs_rows_end_tx(fs_db *db, int rc)
{
	if (rc) {
		fs_db_rollback(db);
		return rc;
	}
	return fs_db_commit(db);
}

int fs_rows_read_rev(fs_db *db, long long set_id, long long *rev)
{
	long long v;
	int rc = fs_db_int_by_id(db, "SELECT revision FROM sets WHERE id = ?", set_id, &v);
	if (!rc)
		*rev = v;
	return rc;
}

/* Inside a transaction: the revision check. */
int fs_rows_check_rev(fs_db *db, long long set_id, long long expect_rev, long long *cur_rev, char *err,
		     size_t errlen)
{
	long long rev;
	int rc = fs_rows_read_rev(db, set_id, &rev);
	if (rc == FS_DB_NOTFOUND)
		ERR("no such set");
	if (rc)
		return rc;
	if (cur_rev)
		*cur_rev = rev;
	if (expect_rev >= 0 && expect_rev != rev) {
		ERR("the set has changed (revision %lld, your view is at %lld): reload it first", rev, expect_rev);
		return FS_DB_STALE;
	}
	return FS_DB_OK;
}

int fs_rows_bump(fs_db *db, long long set_id, long long *new_rev)
{
	sqlite3_stmt *st = fs_db_stmt(db, "UPDATE sets SET revision = revision + 1, updated_at = ? WHERE id = ?");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, fs_rows_now());
	fs_bind_int64(&b, 2, set_id);
	int rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	if (!rc && new_rev)
		rc = fs_rows_read_rev(db, set_id, new_rev);
	return rc;
}

int fs_rows_load(fs_db *db, long long set_id, fs_tubercle_list *t, fs_edge_list *e)
{
	sqlite3_stmt *st;
	fs_bind b;
	const fs_set_state *pk;
	int prc = fs_packed_state(db, set_id, &pk);
	if (prc)
		return prc;
	if (pk) {
		for (size_t i = 0; i < pk->t.n; i++)
			if (fs_tubercle_list_append(t, &pk->t.items[i]))
				return FS_DB_ERROR;
		for (size_t i = 0; e && i < pk->e.n; i++)
			if (fs_edge_list_append(e, &pk->e.items[i]))
				return FS_DB_ERROR;
		return FS_DB_OK;
	}
	st = fs_db_stmt(db, "SELECT tid, x, y, r, circularity, major, minor, orientation, eccentricity, source, "
			    "fit_quality FROM tubercles WHERE set_id = ? ORDER BY tid");
	if (!st)
		return FS_DB_ERROR;
	b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, set_id);
	int rc;
	while ((rc = fs_bind_step(&b)) == SQLITE_ROW) {
		fs_tubercle x;
		read_tub(st, &x);
		if (fs_tubercle_list_append(t, &x)) {
			fs_db_done(st);
			return FS_DB_ERROR;
		}
	}
	fs_db_done(st);
	if (rc != SQLITE_DONE)
		return fs_db_rc_from_sqlite(rc);
	if (!e)
		return FS_DB_OK;
	st = fs_db_stmt(db, "SELECT id1, id2 FROM edges WHERE set_id = ? ORDER BY id1, id2");
	if (!st)
		return FS_DB_ERROR;
	b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, set_id);
	while ((rc = fs_bind_step(&b)) == SQLITE_ROW) {
		fs_edge x = {sqlite3_column_int(st, 0), sqlite3_column_int(st, 1)};
		if (fs_edge_list_append(e, &x)) {
			fs_db_done(st);
			return FS_DB_ERROR;
		}
	}
	fs_db_done(st);
	return rc == SQLITE_DONE ? FS_DB_OK : fs_db_rc_from_sqlite(rc);
}

int fs_rows_history_add(fs_db *db, long long set_id, long long user_id, const char *type, const cJSON *data)
{
	sqlite3_stmt *st = fs_db_stmt(db, "INSERT INTO history (set_id, at, user_id, type, data) VALUES (?, ?, ?, ?, ?)");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	char *d = data ? cJSON_PrintUnformatted(data) : NULL;
	fs_bind_int64(&b, 1, set_id);
	fs_bind_int64(&b, 2, fs_rows_now());
	if (user_id)
		fs_bind_int64(&b, 3, user_id);
	fs_bind_text(&b, 4, type, -1, SQLITE_TRANSIENT);
	fs_bind_text(&b, 5, d ? d : "{}", -1, SQLITE_TRANSIENT);
	int rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	cJSON_free(d);
	return rc;
}

int fs_rows_state(fs_db *db, long long set_id, fs_set_state *s)
{
	memset(s, 0, sizeof *s);
	int rc = fs_rows_load(db, set_id, &s->t, &s->e);
	if (rc)
		fs_set_state_free(s);
	else
		fs_edges_normalise(&s->e); /* stored normalised and in order already */
	return rc;
}

int fs_rows_bump_keep_clean(fs_db *db, long long set_id)
{
	sqlite3_stmt *st = fs_db_stmt(db, "UPDATE sets SET clean_revision = CASE WHEN clean_revision = revision "
					  "THEN revision + 1 ELSE clean_revision END, revision = revision + 1, "
					  "updated_at = ? WHERE id = ?");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, fs_rows_now());
	fs_bind_int64(&b, 2, set_id);
	int rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	return rc;
}

int fs_rows_bookkeeping(const char *kind)
{
	return kind && (!strcmp(kind, "undo") || !strcmp(kind, "redo"));
}

int fs_rows_reverts_refs(const char *kind)
{
	return kind && (!strcmp(kind, "undo_step") || !strcmp(kind, "revert"));
}

/* A journal diff this large is stored compressed: "FSZ1", its length
 * (8 bytes, little-endian), then a zlib stream. An extraction's step holds
 * every tubercle it removed and added, megabytes of JSON, written while
 * SQLite's one write lock is held; compressed beforehand it is a third.
 * libdeflate writes and reads the same zlib format as zlib (steps stored
 * before it read back alike), two to three times faster. */
#define JOURNAL_PACK_MIN (256 * 1024)
#define JOURNAL_MAGIC "FSZ1"

int fs_rows_journal_prepare(const fs_set_diff *d, fs_journal_entry *j)
{
	memset(j, 0, sizeof *j);
	fs_buf b = FS_BUF_INIT;
	if (fs_set_diff_to_text(d, &b)) {
		fs_buf_free(&b);
		return -1;
	}
	size_t n = b.len;
	j->text = fs_buf_steal(&b);
	if (n < JOURNAL_PACK_MIN)
		return 0;
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(1);
	size_t zcap = c ? libdeflate_zlib_compress_bound(c, n) : 0;
	unsigned char *z = c ? malloc(12 + zcap) : NULL;
	size_t zlen = z ? libdeflate_zlib_compress(c, j->text, n, z + 12, zcap) : 0;
	if (c)
		libdeflate_free_compressor(c);
	if (!zlen) {
		free(z);
		return 0; /* stored as text: larger, still right */
	}
	memcpy(z, JOURNAL_MAGIC, 4);
	for (int i = 0; i < 8; i++)
		z[4 + i] = (unsigned char)((unsigned long long)n >> (8 * i));
	j->z = z;
	j->zlen = 12 + zlen;
	return 0;
}

void fs_rows_journal_entry_free(fs_journal_entry *j)
{
	free(j->text);
	free(j->z);
	memset(j, 0, sizeof *j);
}

/* The text of a stored compressed diff ("FSZ1", length, zlib stream):
 * *owned, or NULL when it is not one or does not inflate. */
static const char *inflate_diff(const unsigned char *z, size_t zlen, char **owned)
{
	if (!z || zlen < 12 || memcmp(z, JOURNAL_MAGIC, 4))
		return NULL;
	unsigned long long n = 0;
	for (int i = 0; i < 8; i++)
		n |= (unsigned long long)z[4 + i] << (8 * i);
	if (n > (1ull << 34))
		return NULL;
	char *t = malloc((size_t)n + 1);
	struct libdeflate_decompressor *dec = t ? libdeflate_alloc_decompressor() : NULL;
	int ok = dec && libdeflate_zlib_decompress(dec, z + 12, zlen - 12, t, (size_t)n, NULL) == LIBDEFLATE_SUCCESS;
	if (dec)
		libdeflate_free_decompressor(dec);
	if (!ok) {
		free(t);
		return NULL;
	}
	t[n] = 0;
	*owned = t;
	return t;
}

const char *fs_rows_diff_column(sqlite3_stmt *st, int col, char **owned)
{
	*owned = NULL;
	if (sqlite3_column_type(st, col + 1) != SQLITE_NULL) {
		/* staged in chunks (staged_blob.h): always the compressed form */
		unsigned char *z = NULL;
		size_t zlen = 0;
		if (fs_blob_read_conn(sqlite3_db_handle(st), sqlite3_column_int64(st, col + 1), &z, &zlen))
			return NULL;
		const char *t = inflate_diff(z, zlen, owned);
		free(z);
		return t;
	}
	if (sqlite3_column_type(st, col) != SQLITE_BLOB)
		return (const char *)sqlite3_column_text(st, col);
	return inflate_diff(sqlite3_column_blob(st, col), (size_t)sqlite3_column_bytes(st, col), owned);
}

int fs_rows_journal_stage(fs_db *db, fs_journal_entry *j, char *err, size_t errlen)
{
	if (j->blob_id > 0 || !j->z || !fs_blob_worth_staging(j->zlen))
		return FS_DB_OK;
	const unsigned char *parts[1] = {j->z};
	size_t lens[1] = {j->zlen};
	return fs_blob_stage(db, parts, lens, 1, &j->blob_id, err, errlen);
}

int fs_rows_journal_add_prepared(fs_db *db, long long set_id, long long user_id, const char *kind,
				 const char *label, const fs_journal_entry *j, long long agent_run_id, const char *refs,
				 long long *op_id)
{
	sqlite3_stmt *st;
	fs_bind b;
	int rc;
	if (user_id && !fs_rows_bookkeeping(kind)) {
		/* a new step of a user's own gives up what that user could redo */
		st = fs_db_stmt(db, "UPDATE set_ops SET undone = 2 WHERE set_id = ? AND user_id = ? AND undone = 1");
		if (!st)
			return FS_DB_ERROR;
		b = fs_bind_start(db, st);
		fs_bind_int64(&b, 1, set_id);
		fs_bind_int64(&b, 2, user_id);
		rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
		fs_db_done(st);
		if (rc)
			return rc;
	}
	st = fs_db_stmt(db, "INSERT INTO set_ops (set_id, user_id, at, kind, label, diff, agent_run_id, refs, "
			    "diff_blob) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
	if (!st)
		return FS_DB_ERROR;
	if (j->blob_id > 0 && (rc = fs_blob_publish(db, j->blob_id))) {
		fs_db_done(st);
		return rc;
	}
	b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, set_id);
	if (user_id)
		fs_bind_int64(&b, 2, user_id);
	fs_bind_int64(&b, 3, fs_rows_now());
	fs_bind_text(&b, 4, kind, -1, SQLITE_TRANSIENT);
	fs_bind_text(&b, 5, label ? label : kind, -1, SQLITE_TRANSIENT);
	/* static: the entry outlives the statement's step, and a copy of
	 * megabytes would be made under the write lock */
	if (j->blob_id > 0) {
		/* the diff is in the staged blob: this row only refers to it */
		fs_bind_text(&b, 6, "", 0, SQLITE_STATIC);
		fs_bind_int64(&b, 9, j->blob_id);
	} else if (j->z)
		fs_bind_blob64(&b, 6, j->z, j->zlen, SQLITE_STATIC);
	else
		fs_bind_text(&b, 6, j->text, -1, SQLITE_STATIC);
	if (agent_run_id)
		fs_bind_int64(&b, 7, agent_run_id);
	if (refs)
		fs_bind_text(&b, 8, refs, -1, SQLITE_TRANSIENT);
	rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	if (rc)
		return rc;
	if (op_id)
		*op_id = sqlite3_last_insert_rowid(fs_db_handle(db));
	/* keep FS_UNDO_KEEP steps of the users' own, with the undo and redo
	 * entries between them */
	st = fs_db_stmt(db, "DELETE FROM set_ops WHERE set_id = ?1 AND id < (SELECT id FROM set_ops "
			    "WHERE set_id = ?1 AND kind NOT IN ('undo', 'redo') ORDER BY id DESC LIMIT 1 OFFSET ?2)");
	if (!st)
		return FS_DB_ERROR;
	b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, set_id);
	fs_bind_int(&b, 2, FS_UNDO_KEEP - 1);
	rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	return rc;
}

int fs_rows_op_state(fs_db *db, long long set_id, long long op_id, int state)
{
	sqlite3_stmt *st = fs_db_stmt(db, "UPDATE set_ops SET undone = ? WHERE id = ? AND set_id = ?");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int(&b, 1, state);
	fs_bind_int64(&b, 2, op_id);
	fs_bind_int64(&b, 3, set_id);
	int rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	return rc;
}

int fs_rows_refs_state(fs_db *db, long long set_id, const char *refs, int state)
{
	if (!refs || !*refs)
		return FS_DB_OK;
	sqlite3_stmt *st = fs_db_stmt(db, "UPDATE set_ops SET undone = ?1 WHERE set_id = ?2 AND id IN "
					  "(SELECT value FROM json_each(?3))");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int(&b, 1, state);
	fs_bind_int64(&b, 2, set_id);
	fs_bind_text(&b, 3, refs, -1, SQLITE_TRANSIENT);
	int rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	fs_db_done(st);
	return rc;
}

/* ---- the last change, for responses ---- */

static fs_set_diff last_change;
static int last_valid, last_full;

/* d as the client sees it: shown coordinates; a tubercle that a change
 * puts where it is not shown is, for the client, removed. */
static int shown_diff(const fs_set_diff *d, const fs_set_frame *f, fs_set_diff *out)
{
	memset(out, 0, sizeof *out);
	int rc = 0;
	for (size_t i = 0; !rc && i < d->removed.n; i++)
		rc = fs_tubercle_list_append(&out->removed, &d->removed.items[i]);
	for (size_t i = 0; !rc && i < d->added.n; i++) {
		fs_tubercle t = d->added.items[i];
		if (!fs_set_frame_visible(f, t.centroid_x, t.centroid_y))
			continue;
		fs_set_frame_show(f, &t);
		rc = fs_tubercle_list_append(&out->added, &t);
	}
	for (size_t i = 0; !rc && i < d->after.n; i++) {
		fs_tubercle b = d->before.items[i], a = d->after.items[i];
		if (!fs_set_frame_visible(f, a.centroid_x, a.centroid_y)) {
			rc = fs_tubercle_list_append(&out->removed, &b);
			continue;
		}
		fs_set_frame_show(f, &b);
		fs_set_frame_show(f, &a);
		rc = fs_tubercle_list_append(&out->before, &b) || fs_tubercle_list_append(&out->after, &a);
	}
	for (size_t i = 0; !rc && i < d->edges_added.n; i++)
		rc = fs_edge_list_append(&out->edges_added, &d->edges_added.items[i]);
	for (size_t i = 0; !rc && i < d->edges_removed.n; i++)
		rc = fs_edge_list_append(&out->edges_removed, &d->edges_removed.items[i]);
	out->params_changed = d->params_changed;
	out->had_params = d->had_params;
	out->has_params = d->has_params;
	out->params_before = d->params_before;
	out->params_after = d->params_after;
	out->replaces_all = d->replaces_all;
	out->version_changed = d->version_changed;
	out->version_before = d->version_before;
	out->version_after = d->version_after;
	if (rc)
		fs_set_diff_free(out);
	return rc ? -1 : 0;
}

void fs_rows_remember(const fs_set_diff *d, const fs_set_frame *f, int full)
{
	fs_set_diff_free(&last_change);
	memset(&last_change, 0, sizeof last_change);
	last_valid = 1;
	last_full = full || !d;
	if (!last_full && shown_diff(d, f, &last_change))
		last_full = 1;
}

int fs_set_last_change(fs_set_diff *out, int *full)
{
	if (!last_valid)
		return -1;
	*full = last_full;
	return fs_set_diff_copy(out, &last_change);
}

int fs_rows_count(fs_db *db, long long set_id, const fs_set_frame *f, int *n_t, int *n_e, int *packed)
{
	const fs_set_state *pk;
	*packed = 0;
	int rc = fs_packed_state(db, set_id, &pk);
	if (rc || !pk)
		return rc;
	*packed = 1;
	if (!f || !f->bounded) {
		*n_t = (int)pk->t.n;
		*n_e = (int)pk->e.n;
		return FS_DB_OK;
	}
	/* as the frame's SQL condition counts rows (set_frame.h) */
	int nt = 0, ne = 0;
	for (size_t i = 0; i < pk->t.n; i++)
		nt += fs_set_frame_visible(f, pk->t.items[i].centroid_x, pk->t.items[i].centroid_y);
	for (size_t i = 0; i < pk->e.n; i++) {
		const fs_tubercle *a = fs_set_state_find(pk, pk->e.items[i].id1);
		const fs_tubercle *b = fs_set_state_find(pk, pk->e.items[i].id2);
		ne += a && b && fs_set_frame_visible(f, a->centroid_x, a->centroid_y) &&
		      fs_set_frame_visible(f, b->centroid_x, b->centroid_y);
	}
	*n_t = nt;
	*n_e = ne;
	return FS_DB_OK;
}
