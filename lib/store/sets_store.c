/*
 * sets_store.c - annotation sets in SQLite (see sets_store.h).
 *
 * Every change is expressed as a diff (fs_set_diff) so that one code path
 * writes it, journals it, and can apply its inverse for undo. Tubercle ids
 * are never reused within a set (next_tid only grows), so a redo can put a
 * tubercle back under the id it had.
 */
#include "store/sets_store.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/graph.h"
#include "analysis/params_json.h"

#define ERR(...) snprintf(err, errlen, __VA_ARGS__)

static long long now_s(void)
{
	return (long long)time(NULL);
}

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

/* ---- the last change, for responses ---- */

static fs_set_diff last_change;
static int last_valid, last_full;

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

static int diff_copy(fs_set_diff *dst, const fs_set_diff *src)
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
	return 0;
}

static void remember(const fs_set_diff *d, int full)
{
	fs_set_diff_free(&last_change);
	last_valid = d ? diff_copy(&last_change, d) == 0 : 1;
	last_full = full || !d || !last_valid;
	last_valid = 1;
}

int fs_set_last_change(fs_set_diff *out, int *full)
{
	if (!last_valid)
		return -1;
	*full = last_full;
	return diff_copy(out, &last_change);
}

/* ---- names ---- */

int fs_set_name_valid(const char *name, char *clean, size_t cleanlen)
{
	if (!name)
		return 0;
	while (isspace((unsigned char)*name))
		name++;
	size_t n = strlen(name);
	while (n && isspace((unsigned char)name[n - 1]))
		n--;
	if (n == 0 || n >= cleanlen)
		return 0;
	size_t chars = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];
		if (c < 0x20 || c == 0x7f || strchr("/\\:*?\"<>|", c))
			return 0;
		if ((c & 0xc0) != 0x80)
			chars++;
	}
	if (chars > FS_SET_NAME_MAX)
		return 0;
	memcpy(clean, name, n);
	clean[n] = 0;
	return 1;
}

/* ---- JSON of tubercles and diffs (the journal's storage format) ---- */

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
	add_exact(o, "r", t->radius_px);
	add_exact(o, "c", t->circularity);
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

static void tub_from_json(const cJSON *o, fs_tubercle *t)
{
	memset(t, 0, sizeof *t);
	t->id = (int)num(o, "id");
	t->centroid_x = num(o, "x");
	t->centroid_y = num(o, "y");
	t->radius_px = num(o, "r");
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
	return o;
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
		fs_edge e = {(int)cJSON_GetArrayItem(it, 0)->valuedouble, (int)cJSON_GetArrayItem(it, 1)->valuedouble};
		if (fs_edge_list_append(l, &e))
			return -1;
	}
	return 0;
}

static int diff_from_json(const char *s, fs_set_diff *d)
{
	memset(d, 0, sizeof *d);
	cJSON *o = cJSON_Parse(s);
	if (!o)
		return -1;
	int rc = tubs_from_json(cJSON_GetObjectItem(o, "add"), &d->added) ||
		 tubs_from_json(cJSON_GetObjectItem(o, "rm"), &d->removed) ||
		 tubs_from_json(cJSON_GetObjectItem(o, "bef"), &d->before) ||
		 tubs_from_json(cJSON_GetObjectItem(o, "aft"), &d->after) ||
		 edges_from_json(cJSON_GetObjectItem(o, "ea"), &d->edges_added) ||
		 edges_from_json(cJSON_GetObjectItem(o, "er"), &d->edges_removed);
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
	cJSON_Delete(o);
	if (rc)
		fs_set_diff_free(d);
	return rc ? -1 : 0;
}

/* The inverse swaps what is added and removed, before and after. */
static void diff_invert(fs_set_diff *d)
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
}

/* ---- rows ---- */

static int row_get(fs_db *db, long long set_id, int tid, fs_tubercle *t)
{
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT tid, x, y, r, circularity, major, minor, orientation, "
					  "eccentricity, source FROM tubercles WHERE set_id = ? AND tid = ?");
	if (!st)
		return FS_DB_ERROR;
	sqlite3_bind_int64(st, 1, set_id);
	sqlite3_bind_int(st, 2, tid);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		memset(t, 0, sizeof *t);
		t->id = sqlite3_column_int(st, 0);
		t->centroid_x = sqlite3_column_double(st, 1);
		t->centroid_y = sqlite3_column_double(st, 2);
		t->radius_px = sqlite3_column_double(st, 3);
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
	}
	fs_db_done(st);
	if (rc == SQLITE_DONE)
		return FS_DB_NOTFOUND;
	return rc == SQLITE_ROW ? FS_DB_OK : fs_db_rc_from_sqlite(rc);
}

static int bind_tub(sqlite3_stmt *st, int first, const fs_tubercle *t)
{
	sqlite3_bind_double(st, first, t->centroid_x);
	sqlite3_bind_double(st, first + 1, t->centroid_y);
	sqlite3_bind_double(st, first + 2, t->radius_px);
	sqlite3_bind_double(st, first + 3, t->circularity);
	if (t->has_ellipse) {
		sqlite3_bind_double(st, first + 4, t->major_axis_px);
		sqlite3_bind_double(st, first + 5, t->minor_axis_px);
		sqlite3_bind_double(st, first + 6, t->orientation);
		sqlite3_bind_double(st, first + 7, t->eccentricity);
	} else {
		for (int i = 4; i < 8; i++)
			sqlite3_bind_null(st, first + i);
	}
	sqlite3_bind_text(st, first + 8, fs_source_name(t->source), -1, SQLITE_STATIC);
	return 0;
}

static int row_insert(fs_db *db, long long set_id, const fs_tubercle *t)
{
	sqlite3_stmt *st = fs_db_stmt(db, "INSERT INTO tubercles (set_id, tid, x, y, r, circularity, major, minor, "
					  "orientation, eccentricity, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	if (!st)
		return FS_DB_ERROR;
	sqlite3_bind_int64(st, 1, set_id);
	sqlite3_bind_int(st, 2, t->id);
	bind_tub(st, 3, t);
	int rc = fs_db_rc_from_sqlite(sqlite3_step(st));
	fs_db_done(st);
	return rc;
}

static int row_update(fs_db *db, long long set_id, const fs_tubercle *t)
{
	sqlite3_stmt *st = fs_db_stmt(db, "UPDATE tubercles SET x = ?, y = ?, r = ?, circularity = ?, major = ?, "
					  "minor = ?, orientation = ?, eccentricity = ?, source = ? "
					  "WHERE set_id = ? AND tid = ?");
	if (!st)
		return FS_DB_ERROR;
	bind_tub(st, 1, t);
	sqlite3_bind_int64(st, 10, set_id);
	sqlite3_bind_int(st, 11, t->id);
	int rc = fs_db_rc_from_sqlite(sqlite3_step(st));
	fs_db_done(st);
	return rc;
}

static int row_delete(fs_db *db, long long set_id, int tid)
{
	sqlite3_stmt *st = fs_db_stmt(db, "DELETE FROM tubercles WHERE set_id = ? AND tid = ?");
	if (!st)
		return FS_DB_ERROR;
	sqlite3_bind_int64(st, 1, set_id);
	sqlite3_bind_int(st, 2, tid);
	int rc = fs_db_rc_from_sqlite(sqlite3_step(st));
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

static int edge_exists(fs_db *db, long long set_id, fs_edge e, int *exists)
{
	edge_norm(&e);
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT 1 FROM edges WHERE set_id = ? AND id1 = ? AND id2 = ?");
	if (!st)
		return FS_DB_ERROR;
	sqlite3_bind_int64(st, 1, set_id);
	sqlite3_bind_int(st, 2, e.id1);
	sqlite3_bind_int(st, 3, e.id2);
	int rc = sqlite3_step(st);
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
	sqlite3_bind_int64(st, 1, set_id);
	sqlite3_bind_int(st, 2, e.id1);
	sqlite3_bind_int(st, 3, e.id2);
	int rc = fs_db_rc_from_sqlite(sqlite3_step(st));
	fs_db_done(st);
	return rc;
}

static int tub_equal(const fs_tubercle *a, const fs_tubercle *b)
{
	return a->id == b->id && a->centroid_x == b->centroid_x && a->centroid_y == b->centroid_y &&
	       a->radius_px == b->radius_px && a->circularity == b->circularity && a->source == b->source &&
	       a->has_ellipse == b->has_ellipse &&
	       (!a->has_ellipse || (a->major_axis_px == b->major_axis_px && a->minor_axis_px == b->minor_axis_px &&
				    a->orientation == b->orientation && a->eccentricity == b->eccentricity));
}

static int tub_valid(const fs_tubercle *t)
{
	return t->id > 0 && isfinite(t->centroid_x) && isfinite(t->centroid_y) && isfinite(t->radius_px) &&
	       t->radius_px > 0 && t->radius_px < 1e6 && fabs(t->centroid_x) < 1e7 && fabs(t->centroid_y) < 1e7 &&
	       isfinite(t->circularity);
}

/*
 * Checks that the diff applies to the current rows: removed and modified
 * tubercles are exactly as the diff says, added ids are free, edges exist
 * or not as needed. Writes the reason into why.
 */
static int diff_applies(fs_db *db, long long set_id, const fs_set_diff *d, char *why, size_t whylen)
{
	fs_tubercle cur;
	int rc;
	for (size_t i = 0; i < d->removed.n; i++) {
		rc = row_get(db, set_id, d->removed.items[i].id, &cur);
		if (rc == FS_DB_NOTFOUND) {
			snprintf(why, whylen, "tubercle #%d no longer exists", d->removed.items[i].id);
			return FS_DB_INVALID;
		}
		if (rc)
			return rc;
		if (!tub_equal(&cur, &d->removed.items[i])) {
			snprintf(why, whylen, "tubercle #%d has changed since", cur.id);
			return FS_DB_INVALID;
		}
	}
	for (size_t i = 0; i < d->before.n; i++) {
		rc = row_get(db, set_id, d->before.items[i].id, &cur);
		if (rc == FS_DB_NOTFOUND) {
			snprintf(why, whylen, "tubercle #%d no longer exists", d->before.items[i].id);
			return FS_DB_INVALID;
		}
		if (rc)
			return rc;
		if (!tub_equal(&cur, &d->before.items[i])) {
			snprintf(why, whylen, "tubercle #%d has changed since", cur.id);
			return FS_DB_INVALID;
		}
		if (!tub_valid(&d->after.items[i]) || d->after.items[i].id != cur.id) {
			snprintf(why, whylen, "invalid values for tubercle #%d", cur.id);
			return FS_DB_INVALID;
		}
	}
	for (size_t i = 0; i < d->added.n; i++) {
		if (!tub_valid(&d->added.items[i])) {
			snprintf(why, whylen, "invalid tubercle (position or radius)");
			return FS_DB_INVALID;
		}
		rc = row_get(db, set_id, d->added.items[i].id, &cur);
		if (rc == FS_DB_OK) {
			snprintf(why, whylen, "tubercle #%d exists again", cur.id);
			return FS_DB_INVALID;
		}
		if (rc != FS_DB_NOTFOUND)
			return rc;
	}
	for (size_t i = 0; i < d->edges_removed.n; i++) {
		int ex;
		if ((rc = edge_exists(db, set_id, d->edges_removed.items[i], &ex)))
			return rc;
		if (!ex) {
			snprintf(why, whylen, "connection %d-%d no longer exists", d->edges_removed.items[i].id1,
				 d->edges_removed.items[i].id2);
			return FS_DB_INVALID;
		}
	}
	return FS_DB_OK;
}

/* Writes a diff whose validity was checked; edges last so that they can
 * refer to tubercles the same diff adds. */
static int diff_write(fs_db *db, long long set_id, const fs_set_diff *d, char *why, size_t whylen)
{
	int rc;
	for (size_t i = 0; i < d->edges_removed.n; i++)
		if ((rc = edge_write(db, set_id, d->edges_removed.items[i], 0)))
			return rc;
	for (size_t i = 0; i < d->removed.n; i++)
		if ((rc = row_delete(db, set_id, d->removed.items[i].id)))
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
		if (row_get(db, set_id, e.id1, &t) || row_get(db, set_id, e.id2, &t)) {
			snprintf(why, whylen, "connection %d-%d refers to a missing tubercle", e.id1, e.id2);
			return FS_DB_INVALID;
		}
		int ex;
		if ((rc = edge_exists(db, set_id, e, &ex)))
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
			sqlite3_bind_int64(st, 1, set_id);
			sqlite3_bind_int(st, 2, d->removed.items[i].id);
			rc = sqlite3_step(st);
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
		sqlite3_bind_int64(st, 1, set_id);
		rc = sqlite3_step(st);
		int dangling = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
		fs_db_done(st);
		if (dangling != 0) {
			snprintf(why, whylen, "the change would leave connections to missing tubercles");
			return dangling < 0 ? FS_DB_ERROR : FS_DB_INVALID;
		}
	}
	rc = FS_DB_OK;
	sqlite3_stmt *st;
	if (d->params_changed) {
		st = fs_db_stmt(db, "UPDATE sets SET params = ? WHERE id = ?");
		if (!st)
			return FS_DB_ERROR;
		char *pj = NULL;
		if (d->has_params) {
			cJSON *p = fs_params_to_json(&d->params_after);
			pj = p ? cJSON_PrintUnformatted(p) : NULL;
			cJSON_Delete(p);
			sqlite3_bind_text(st, 1, pj, -1, SQLITE_TRANSIENT);
		} else {
			sqlite3_bind_null(st, 1);
		}
		sqlite3_bind_int64(st, 2, set_id);
		rc = fs_db_rc_from_sqlite(sqlite3_step(st));
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
		sqlite3_bind_int(st, 1, maxid + 1);
		sqlite3_bind_int64(st, 2, set_id);
		rc = fs_db_rc_from_sqlite(sqlite3_step(st));
		fs_db_done(st);
	}
	return rc;
}

/* Ends a write transaction: commit when rc is OK, else roll back. */
static int end_tx(fs_db *db, int rc)
{
	if (rc) {
		fs_db_rollback(db);
		return rc;
	}
	return fs_db_commit(db);
}

/* ---- revisions, journal ---- */

static int read_rev(fs_db *db, long long set_id, long long *rev)
{
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT revision FROM sets WHERE id = ?");
	if (!st)
		return FS_DB_ERROR;
	sqlite3_bind_int64(st, 1, set_id);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*rev = sqlite3_column_int64(st, 0);
	fs_db_done(st);
	if (rc == SQLITE_DONE)
		return FS_DB_NOTFOUND;
	return rc == SQLITE_ROW ? FS_DB_OK : fs_db_rc_from_sqlite(rc);
}

int fs_set_revision(fs_db *db, long long set_id, long long *rev)
{
	return read_rev(db, set_id, rev);
}

/* Inside a transaction: the revision check. */
static int check_rev(fs_db *db, long long set_id, long long expect_rev, long long *cur_rev, char *err,
		     size_t errlen)
{
	long long rev;
	int rc = read_rev(db, set_id, &rev);
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

static int bump(fs_db *db, long long set_id, long long *new_rev)
{
	sqlite3_stmt *st = fs_db_stmt(db, "UPDATE sets SET revision = revision + 1, updated_at = ? WHERE id = ?");
	if (!st)
		return FS_DB_ERROR;
	sqlite3_bind_int64(st, 1, now_s());
	sqlite3_bind_int64(st, 2, set_id);
	int rc = fs_db_rc_from_sqlite(sqlite3_step(st));
	fs_db_done(st);
	if (!rc && new_rev)
		rc = read_rev(db, set_id, new_rev);
	return rc;
}

static int journal_add(fs_db *db, long long set_id, long long user_id, const char *kind, const char *label,
		       const fs_set_diff *d, long long agent_run_id)
{
	/* a new step discards what could be redone */
	sqlite3_stmt *st = fs_db_stmt(db, "DELETE FROM set_ops WHERE set_id = ? AND undone = 1");
	if (!st)
		return FS_DB_ERROR;
	sqlite3_bind_int64(st, 1, set_id);
	int rc = fs_db_rc_from_sqlite(sqlite3_step(st));
	fs_db_done(st);
	if (rc)
		return rc;
	cJSON *dj = fs_set_diff_to_json(d);
	char *ds = dj ? cJSON_PrintUnformatted(dj) : NULL;
	cJSON_Delete(dj);
	if (!ds)
		return FS_DB_ERROR;
	st = fs_db_stmt(db, "INSERT INTO set_ops (set_id, user_id, at, kind, label, diff, agent_run_id) "
			    "VALUES (?, ?, ?, ?, ?, ?, ?)");
	if (!st) {
		cJSON_free(ds);
		return FS_DB_ERROR;
	}
	sqlite3_bind_int64(st, 1, set_id);
	if (user_id)
		sqlite3_bind_int64(st, 2, user_id);
	sqlite3_bind_int64(st, 3, now_s());
	sqlite3_bind_text(st, 4, kind, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, label ? label : kind, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 6, ds, -1, SQLITE_TRANSIENT);
	if (agent_run_id)
		sqlite3_bind_int64(st, 7, agent_run_id);
	rc = fs_db_rc_from_sqlite(sqlite3_step(st));
	fs_db_done(st);
	cJSON_free(ds);
	if (rc)
		return rc;
	st = fs_db_stmt(db, "DELETE FROM set_ops WHERE set_id = ?1 AND id <= (SELECT id FROM set_ops "
			    "WHERE set_id = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?2)");
	if (!st)
		return FS_DB_ERROR;
	sqlite3_bind_int64(st, 1, set_id);
	sqlite3_bind_int(st, 2, FS_UNDO_KEEP);
	rc = fs_db_rc_from_sqlite(sqlite3_step(st));
	fs_db_done(st);
	return rc;
}

/* Wraps one change in a transaction: check, validate, write, journal, bump. */
static int commit_diff(fs_db *db, long long set_id, long long expect_rev, long long user_id, const char *kind,
		       const char *label, const fs_set_diff *d, long long agent_run_id, long long *new_rev,
		       long long *cur_rev, char *err, size_t errlen, int in_tx)
{
	int rc = in_tx ? FS_DB_OK : fs_db_begin(db);
	if (rc) {
		ERR("the database is busy");
		return rc;
	}
	rc = check_rev(db, set_id, expect_rev, cur_rev, err, errlen);
	if (!rc)
		rc = diff_applies(db, set_id, d, err, errlen);
	if (!rc)
		rc = diff_write(db, set_id, d, err, errlen);
	if (!rc)
		rc = journal_add(db, set_id, user_id, kind, label, d, agent_run_id);
	if (!rc)
		rc = bump(db, set_id, new_rev);
	if (in_tx)
		return rc;
	if (rc) {
		fs_db_rollback(db);
		if (rc == FS_DB_ERROR && !*err)
			ERR("%s", fs_db_errmsg(db));
		return rc;
	}
	rc = fs_db_commit(db);
	if (rc)
		ERR("could not commit: %s", fs_db_errmsg(db));
	else
		remember(d, 0);
	return rc;
}

int fs_set_apply(fs_db *db, long long set_id, long long expect_rev, long long user_id, const char *kind,
		 const char *label, const fs_set_diff *diff, long long agent_run_id, long long *new_rev,
		 long long *cur_rev, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = 0;
	return commit_diff(db, set_id, expect_rev, user_id, kind, label, diff, agent_run_id, new_rev, cur_rev, err,
			   errlen, 0);
}

/* ---- loading ---- */

static int load_rows(fs_db *db, long long set_id, fs_tubercle_list *t, fs_edge_list *e)
{
	sqlite3_stmt *st;
	st = fs_db_stmt(db, "SELECT tid, x, y, r, circularity, major, minor, orientation, eccentricity, source "
			    "FROM tubercles WHERE set_id = ? ORDER BY tid");
	if (!st)
		return FS_DB_ERROR;
	sqlite3_bind_int64(st, 1, set_id);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		fs_tubercle x;
		memset(&x, 0, sizeof x);
		x.id = sqlite3_column_int(st, 0);
		x.centroid_x = sqlite3_column_double(st, 1);
		x.centroid_y = sqlite3_column_double(st, 2);
		x.radius_px = sqlite3_column_double(st, 3);
		x.circularity = sqlite3_column_double(st, 4);
		if (sqlite3_column_type(st, 5) != SQLITE_NULL) {
			x.has_ellipse = 1;
			x.major_axis_px = sqlite3_column_double(st, 5);
			x.minor_axis_px = sqlite3_column_double(st, 6);
			x.orientation = sqlite3_column_double(st, 7);
			x.eccentricity = sqlite3_column_double(st, 8);
		}
		const char *s = (const char *)sqlite3_column_text(st, 9);
		if (!s || fs_source_parse(s, &x.source))
			x.source = FS_SOURCE_MANUAL;
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
	sqlite3_bind_int64(st, 1, set_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		fs_edge x = {sqlite3_column_int(st, 0), sqlite3_column_int(st, 1)};
		if (fs_edge_list_append(e, &x)) {
			fs_db_done(st);
			return FS_DB_ERROR;
		}
	}
	fs_db_done(st);
	return rc == SQLITE_DONE ? FS_DB_OK : fs_db_rc_from_sqlite(rc);
}

int fs_set_load(fs_db *db, long long set_id, fs_tubercle_list *t, fs_edge_list *e)
{
	long long rev;
	int rc = read_rev(db, set_id, &rev);
	if (rc)
		return rc;
	rc = load_rows(db, set_id, t, e);
	if (rc) {
		fs_tubercle_list_free(t);
		if (e)
			fs_edge_list_free(e);
		return rc;
	}
	fs_graph_boundary(t);
	return FS_DB_OK;
}

/* ---- set rows ---- */

static int count_of(fs_db *db, const char *sql, long long id, int *n)
{
	sqlite3_stmt *st = fs_db_stmt(db, sql);
	if (!st)
		return FS_DB_ERROR;
	sqlite3_bind_int64(st, 1, id);
	int rc = sqlite3_step(st);
	*n = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	fs_db_done(st);
	return rc == SQLITE_ROW ? FS_DB_OK : fs_db_rc_from_sqlite(rc);
}

static int fill_info(fs_db *db, sqlite3_stmt *st, fs_set_info *o)
{
	memset(o, 0, sizeof *o);
	o->id = sqlite3_column_int64(st, 0);
	o->image_id = sqlite3_column_int64(st, 1);
	fs_db_col_text(st, 2, o->name, sizeof o->name);
	o->position = sqlite3_column_int(st, 3);
	o->revision = sqlite3_column_int64(st, 4);
	o->clean_revision = sqlite3_column_int64(st, 5);
	const char *pj = (const char *)sqlite3_column_text(st, 6);
	if (pj) {
		cJSON *p = cJSON_Parse(pj);
		char e[128];
		fs_params_default(&o->params);
		o->has_params = p && fs_params_from_json(&o->params, p, 1, e, sizeof e) == 0;
		cJSON_Delete(p);
	}
	o->calibration_um_per_px = sqlite3_column_double(st, 7);
	o->created_at = sqlite3_column_int64(st, 8);
	o->updated_at = sqlite3_column_int64(st, 9);
	(void)db;
	return 0;
}

static int fill_counts(fs_db *db, fs_set_info *o)
{
	int rc = count_of(db, "SELECT count(*) FROM tubercles WHERE set_id = ?", o->id, &o->n_tubercles);
	if (!rc)
		rc = count_of(db, "SELECT count(*) FROM edges WHERE set_id = ?", o->id, &o->n_edges);
	if (!rc)
		rc = count_of(db, "SELECT count(*) FROM set_ops WHERE set_id = ? AND undone = 0", o->id, &o->can_undo);
	if (!rc)
		rc = count_of(db, "SELECT count(*) FROM set_ops WHERE set_id = ? AND undone = 1", o->id, &o->can_redo);
	o->can_undo = o->can_undo > 0;
	o->can_redo = o->can_redo > 0;
	return rc;
}

#define SET_COLS "id, image_id, name, position, revision, clean_revision, params, " \
		 "coalesce(calibration_um_per_px, 0), created_at, updated_at"

int fs_set_get_info(fs_db *db, long long set_id, fs_set_info *out)
{
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT " SET_COLS " FROM sets WHERE id = ?");
	if (!st)
		return FS_DB_ERROR;
	sqlite3_bind_int64(st, 1, set_id);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		fill_info(db, st, out);
	fs_db_done(st);
	if (rc == SQLITE_DONE)
		return FS_DB_NOTFOUND;
	if (rc != SQLITE_ROW)
		return fs_db_rc_from_sqlite(rc);
	return fill_counts(db, out);
}

int fs_set_list(fs_db *db, long long image_id, fs_set_info **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT " SET_COLS " FROM sets WHERE image_id = ? ORDER BY position, id");
	if (!st)
		return FS_DB_ERROR;
	sqlite3_bind_int64(st, 1, image_id);
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 8;
			fs_set_info *p = realloc(*out, cap * sizeof *p);
			if (!p) {
				rc = SQLITE_NOMEM;
				break;
			}
			*out = p;
		}
		fill_info(db, st, &(*out)[(*n)++]);
	}
	fs_db_done(st);
	if (rc != SQLITE_DONE) {
		free(*out);
		*out = NULL;
		*n = 0;
		return fs_db_rc_from_sqlite(rc);
	}
	for (size_t i = 0; i < *n; i++)
		if ((rc = fill_counts(db, &(*out)[i])))
			return rc;
	return FS_DB_OK;
}

static int insert_set(fs_db *db, long long image_id, const char *name, long long user_id, long long *set_id,
		      char *err, size_t errlen)
{
	sqlite3_stmt *st = fs_db_stmt(db, "INSERT INTO sets (image_id, name, position, created_by, created_at, "
					  "updated_at, calibration_um_per_px) SELECT ?1, ?2, "
					  "coalesce((SELECT max(position) FROM sets WHERE image_id = ?1), 0) + 1, ?3, ?4, ?4, "
					  "um_per_px FROM images WHERE id = ?1");
	if (!st)
		return FS_DB_ERROR;
	sqlite3_bind_int64(st, 1, image_id);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
	if (user_id)
		sqlite3_bind_int64(st, 3, user_id);
	sqlite3_bind_int64(st, 4, now_s());
	int rc = fs_db_rc_from_sqlite(sqlite3_step(st));
	fs_db_done(st);
	if (rc == FS_DB_CONSTRAINT) {
		ERR("a set named '%s' exists already", name);
		return rc;
	}
	if (rc)
		return rc;
	if (sqlite3_changes(fs_db_handle(db)) == 0) {
		ERR("no such image");
		return FS_DB_NOTFOUND;
	}
	*set_id = sqlite3_last_insert_rowid(fs_db_handle(db));
	return FS_DB_OK;
}

int fs_set_create(fs_db *db, long long image_id, const char *name, long long user_id, long long *set_id,
		  char *err, size_t errlen)
{
	char clean[FS_SET_NAME_MAX * 4 + 1];
	if (!fs_set_name_valid(name, clean, sizeof clean)) {
		ERR("a set name is 1 to %d characters without / \\ : * ? \" < > |", FS_SET_NAME_MAX);
		return FS_DB_INVALID;
	}
	return insert_set(db, image_id, clean, user_id, set_id, err, errlen);
}

int fs_set_rename(fs_db *db, long long set_id, long long expect_rev, const char *name, long long user_id,
		  long long *cur_rev, char *err, size_t errlen)
{
	(void)user_id;
	char clean[FS_SET_NAME_MAX * 4 + 1];
	if (!fs_set_name_valid(name, clean, sizeof clean)) {
		ERR("a set name is 1 to %d characters without / \\ : * ? \" < > |", FS_SET_NAME_MAX);
		return FS_DB_INVALID;
	}
	int rc = fs_db_begin(db);
	if (rc)
		return rc;
	rc = check_rev(db, set_id, expect_rev, cur_rev, err, errlen);
	if (!rc) {
		sqlite3_stmt *st = fs_db_stmt(db, "UPDATE sets SET name = ? WHERE id = ?");
		if (!st) {
			rc = FS_DB_ERROR;
		} else {
			sqlite3_bind_text(st, 1, clean, -1, SQLITE_TRANSIENT);
			sqlite3_bind_int64(st, 2, set_id);
			rc = fs_db_rc_from_sqlite(sqlite3_step(st));
			fs_db_done(st);
			if (rc == FS_DB_CONSTRAINT)
				ERR("a set named '%s' exists already", clean);
		}
	}
	if (!rc)
		rc = bump(db, set_id, cur_rev);
	return end_tx(db, rc);
}

int fs_history_add(fs_db *db, long long set_id, long long user_id, const char *type, const cJSON *data)
{
	sqlite3_stmt *st = fs_db_stmt(db, "INSERT INTO history (set_id, at, user_id, type, data) VALUES (?, ?, ?, ?, ?)");
	if (!st)
		return FS_DB_ERROR;
	char *d = data ? cJSON_PrintUnformatted(data) : NULL;
	sqlite3_bind_int64(st, 1, set_id);
	sqlite3_bind_int64(st, 2, now_s());
	if (user_id)
		sqlite3_bind_int64(st, 3, user_id);
	sqlite3_bind_text(st, 4, type, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 5, d ? d : "{}", -1, SQLITE_TRANSIENT);
	int rc = fs_db_rc_from_sqlite(sqlite3_step(st));
	fs_db_done(st);
	cJSON_free(d);
	return rc;
}

static void iso(long long t, char *out, size_t n)
{
	time_t s = (time_t)t;
	struct tm tm;
	gmtime_r(&s, &tm);
	strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static cJSON *history_row(sqlite3_stmt *st)
{
	const char *d = (const char *)sqlite3_column_text(st, 4);
	cJSON *o = d ? cJSON_Parse(d) : NULL;
	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		o = cJSON_CreateObject();
	}
	char ts[32];
	iso(sqlite3_column_int64(st, 1), ts, sizeof ts);
	cJSON_DeleteItemFromObject(o, "id");
	cJSON_DeleteItemFromObject(o, "timestamp");
	cJSON_DeleteItemFromObject(o, "type");
	cJSON_DeleteItemFromObject(o, "user");
	cJSON_AddNumberToObject(o, "id", (double)sqlite3_column_int64(st, 0));
	cJSON_AddStringToObject(o, "timestamp", ts);
	cJSON_AddStringToObject(o, "type", (const char *)sqlite3_column_text(st, 2));
	cJSON_AddStringToObject(o, "user", (const char *)sqlite3_column_text(st, 3));
	return o;
}

cJSON *fs_history_list(fs_db *db, long long set_id, int limit)
{
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT h.id, h.at, h.type, coalesce(u.display_name, ''), h.data "
					  "FROM history h LEFT JOIN users u ON u.id = h.user_id "
					  "WHERE h.set_id = ? ORDER BY h.id DESC LIMIT ?");
	if (!st)
		return NULL;
	sqlite3_bind_int64(st, 1, set_id);
	sqlite3_bind_int(st, 2, limit > 0 ? limit : 1000);
	cJSON *a = cJSON_CreateArray();
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		cJSON_AddItemToArray(a, history_row(st));
	fs_db_done(st);
	if (rc != SQLITE_DONE) {
		cJSON_Delete(a);
		return NULL;
	}
	return a;
}

int fs_history_get(fs_db *db, long long set_id, long long history_id, cJSON **event)
{
	*event = NULL;
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT h.id, h.at, h.type, coalesce(u.display_name, ''), h.data "
					  "FROM history h LEFT JOIN users u ON u.id = h.user_id "
					  "WHERE h.set_id = ? AND h.id = ?");
	if (!st)
		return FS_DB_ERROR;
	sqlite3_bind_int64(st, 1, set_id);
	sqlite3_bind_int64(st, 2, history_id);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*event = history_row(st);
	fs_db_done(st);
	if (rc == SQLITE_DONE)
		return FS_DB_NOTFOUND;
	return rc == SQLITE_ROW ? FS_DB_OK : fs_db_rc_from_sqlite(rc);
}

int fs_set_duplicate(fs_db *db, long long set_id, const char *name, long long user_id, long long *new_id,
		     char *err, size_t errlen)
{
	char clean[FS_SET_NAME_MAX * 4 + 1];
	if (!fs_set_name_valid(name, clean, sizeof clean)) {
		ERR("a set name is 1 to %d characters without / \\ : * ? \" < > |", FS_SET_NAME_MAX);
		return FS_DB_INVALID;
	}
	fs_set_info src;
	int rc = fs_db_begin(db);
	if (rc)
		return rc;
	rc = fs_set_get_info(db, set_id, &src);
	if (rc == FS_DB_NOTFOUND)
		ERR("no such set");
	if (!rc)
		rc = insert_set(db, src.image_id, clean, user_id, new_id, err, errlen);
	static const char *const copies[] = {
		"UPDATE sets SET params = (SELECT params FROM sets WHERE id = ?1), "
		"calibration_um_per_px = (SELECT calibration_um_per_px FROM sets WHERE id = ?1), "
		"next_tid = (SELECT next_tid FROM sets WHERE id = ?1) WHERE id = ?2",
		"INSERT INTO tubercles (set_id, tid, x, y, r, circularity, major, minor, orientation, eccentricity, "
		"is_boundary, source) SELECT ?2, tid, x, y, r, circularity, major, minor, orientation, eccentricity, "
		"is_boundary, source FROM tubercles WHERE set_id = ?1",
		"INSERT INTO edges (set_id, id1, id2) SELECT ?2, id1, id2 FROM edges WHERE set_id = ?1",
	};
	for (size_t i = 0; !rc && i < sizeof copies / sizeof copies[0]; i++) {
		sqlite3_stmt *st = fs_db_stmt(db, copies[i]);
		if (!st) {
			rc = FS_DB_ERROR;
			break;
		}
		sqlite3_bind_int64(st, 1, set_id);
		sqlite3_bind_int64(st, 2, *new_id);
		rc = fs_db_rc_from_sqlite(sqlite3_step(st));
		fs_db_done(st);
	}
	if (!rc) {
		cJSON *h = cJSON_CreateObject();
		cJSON_AddNumberToObject(h, "source_set_id", (double)set_id);
		cJSON_AddStringToObject(h, "source_set_name", src.name);
		cJSON_AddNumberToObject(h, "n_tubercles", src.n_tubercles);
		cJSON_AddNumberToObject(h, "n_edges", src.n_edges);
		rc = fs_history_add(db, *new_id, user_id, "clone", h);
		cJSON_Delete(h);
	}
	return end_tx(db, rc);
}

int fs_set_delete(fs_db *db, long long set_id, long long expect_rev, long long *cur_rev, char *err,
		  size_t errlen)
{
	int rc = fs_db_begin(db);
	if (rc)
		return rc;
	rc = check_rev(db, set_id, expect_rev, cur_rev, err, errlen);
	int n = 0;
	if (!rc)
		rc = count_of(db, "SELECT count(*) FROM sets WHERE image_id = (SELECT image_id FROM sets WHERE id = ?)",
			      set_id, &n);
	if (!rc && n <= 1) {
		ERR("the last set of an image cannot be deleted");
		rc = FS_DB_INVALID;
	}
	if (!rc)
		rc = fs_db_exec_id(db, "DELETE FROM sets WHERE id = ?", set_id);
	return end_tx(db, rc);
}

/* ---- convenience edits ---- */

static int next_tid(fs_db *db, long long set_id, int *tid)
{
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT next_tid FROM sets WHERE id = ?");
	if (!st)
		return FS_DB_ERROR;
	sqlite3_bind_int64(st, 1, set_id);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*tid = sqlite3_column_int(st, 0);
	fs_db_done(st);
	if (rc == SQLITE_DONE)
		return FS_DB_NOTFOUND;
	return rc == SQLITE_ROW ? FS_DB_OK : fs_db_rc_from_sqlite(rc);
}

/* Runs build() inside the transaction (so that it reads the rows it
 * changes under the write lock), then commits its diff. */
typedef int (*diff_builder)(fs_db *db, long long set_id, void *ctx, fs_set_diff *d, char *err, size_t errlen);

static int edit(fs_db *db, long long set_id, long long expect_rev, long long user_id, const char *kind,
		const char *label, long long agent_run_id, diff_builder build, void *ctx, long long *new_rev,
		long long *cur_rev, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = 0;
	fs_set_diff d;
	memset(&d, 0, sizeof d);
	int rc = fs_db_begin(db);
	if (rc) {
		ERR("the database is busy");
		return rc;
	}
	rc = check_rev(db, set_id, expect_rev, cur_rev, err, errlen);
	if (!rc)
		rc = build(db, set_id, ctx, &d, err, errlen);
	if (!rc)
		rc = commit_diff(db, set_id, -1, user_id, kind, label, &d, agent_run_id, new_rev, NULL, err, errlen, 1);
	if (rc) {
		fs_set_diff_free(&d);
		fs_db_rollback(db);
		if (rc == FS_DB_ERROR && !*err)
			ERR("%s", fs_db_errmsg(db));
		return rc;
	}
	rc = fs_db_commit(db);
	if (rc)
		ERR("could not commit");
	else
		remember(&d, 0);
	fs_set_diff_free(&d);
	return rc;
}

struct add_ctx {
	const fs_tubercle *t;
	int tid;
	char label[96]; /* filled once the id is known, before the step is journaled */
};

static int build_add(fs_db *db, long long set_id, void *vctx, fs_set_diff *d, char *err, size_t errlen)
{
	struct add_ctx *c = vctx;
	int rc = next_tid(db, set_id, &c->tid);
	if (rc)
		return rc;
	fs_tubercle t = *c->t;
	t.id = c->tid;
	snprintf(c->label, sizeof c->label, "Added tubercle #%d at (%.0f, %.0f)", t.id, t.centroid_x, t.centroid_y);
	if (!tub_valid(&t)) {
		ERR("invalid tubercle: the position must be finite and the radius positive");
		return FS_DB_INVALID;
	}
	return fs_tubercle_list_append(&d->added, &t) ? FS_DB_ERROR : FS_DB_OK;
}

int fs_set_add_tubercle(fs_db *db, long long set_id, long long expect_rev, long long user_id,
			const fs_tubercle *t, long long agent_run_id, int *new_tid, long long *new_rev,
			long long *cur_rev, char *err, size_t errlen)
{
	struct add_ctx c = {t, 0, "Added tubercle"};
	int rc = edit(db, set_id, expect_rev, user_id, "add_tubercle", c.label, agent_run_id, build_add, &c, new_rev,
		      cur_rev, err, errlen);
	if (!rc && new_tid)
		*new_tid = c.tid;
	return rc;
}

struct upd_ctx {
	int tid;
	const fs_tubercle *t;
};

static int build_update(fs_db *db, long long set_id, void *vctx, fs_set_diff *d, char *err, size_t errlen)
{
	struct upd_ctx *c = vctx;
	fs_tubercle cur;
	int rc = row_get(db, set_id, c->tid, &cur);
	if (rc == FS_DB_NOTFOUND) {
		ERR("no tubercle #%d in this set", c->tid);
		return FS_DB_INVALID;
	}
	if (rc)
		return rc;
	fs_tubercle after = *c->t;
	after.id = cur.id;
	if (fs_tubercle_list_append(&d->before, &cur) || fs_tubercle_list_append(&d->after, &after))
		return FS_DB_ERROR;
	return FS_DB_OK;
}

int fs_set_update_tubercle(fs_db *db, long long set_id, long long expect_rev, long long user_id, int tid,
			   const fs_tubercle *t, const char *kind, long long agent_run_id, long long *new_rev,
			   long long *cur_rev, char *err, size_t errlen)
{
	struct upd_ctx c = {tid, t};
	char label[96];
	if (kind && !strcmp(kind, "resize_tubercle"))
		snprintf(label, sizeof label, "Resized tubercle #%d to radius %.1f px", tid, t->radius_px);
	else
		snprintf(label, sizeof label, "Moved tubercle #%d to (%.0f, %.0f)", tid, t->centroid_x, t->centroid_y);
	return edit(db, set_id, expect_rev, user_id, kind ? kind : "move_tubercle", label, agent_run_id, build_update,
		    &c, new_rev, cur_rev, err, errlen);
}

struct del_ctx {
	const int *tids;
	size_t n_tids;
	const fs_edge *edges;
	size_t n_edges;
	int all;
};

static int add_edge(fs_edge_list *l, fs_edge e)
{
	edge_norm(&e);
	return fs_edge_list_append(l, &e);
}

static int cmp_edge(const void *a, const void *b)
{
	const fs_edge *p = a, *q = b;
	if (p->id1 != q->id1)
		return (p->id1 > q->id1) - (p->id1 < q->id1);
	return (p->id2 > q->id2) - (p->id2 < q->id2);
}

/* Edges are collected with add_edge and made unique once at the end:
 * checking each against the list would be quadratic in big sets. */
static void edges_unique(fs_edge_list *l)
{
	if (l->n < 2)
		return;
	qsort(l->items, l->n, sizeof *l->items, cmp_edge);
	size_t k = 1;
	for (size_t i = 1; i < l->n; i++)
		if (cmp_edge(&l->items[i], &l->items[k - 1]))
			l->items[k++] = l->items[i];
	l->n = k;
}

/* The id of a removed tubercle, looked up in the sorted list of removed ids. */
static int id_in(const int *sorted, size_t n, int id)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (sorted[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && sorted[lo] == id;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static int build_delete(fs_db *db, long long set_id, void *vctx, fs_set_diff *d, char *err, size_t errlen)
{
	struct del_ctx *c = vctx;
	fs_tubercle_list all = {0};
	fs_edge_list edges = {0};
	int rc = load_rows(db, set_id, &all, &edges);
	if (rc)
		goto out;
	/* mark the tubercles to delete */
	char *gone = calloc(all.n + 1, 1);
	if (!gone) {
		rc = FS_DB_ERROR;
		goto out;
	}
	for (size_t k = 0; k < c->n_tids || (c->all && k < all.n); k++) {
		int want = c->all ? all.items[k].id : c->tids[k];
		size_t lo = 0, hi = all.n;
		while (lo < hi) { /* rows are ordered by id */
			size_t mid = (lo + hi) / 2;
			if (all.items[mid].id < want)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == all.n || all.items[lo].id != want) {
			ERR("no tubercle #%d in this set", want);
			rc = FS_DB_INVALID;
			free(gone);
			goto out;
		}
		if (!gone[lo]) {
			gone[lo] = 1;
			if (fs_tubercle_list_append(&d->removed, &all.items[lo])) {
				rc = FS_DB_ERROR;
				free(gone);
				goto out;
			}
		}
	}
	/* edges touching a deleted tubercle, and the edges asked for */
	int *ids = malloc((d->removed.n + 1) * sizeof *ids);
	if (!ids) {
		rc = FS_DB_ERROR;
		free(gone);
		goto out;
	}
	for (size_t j = 0; j < d->removed.n; j++)
		ids[j] = d->removed.items[j].id;
	qsort(ids, d->removed.n, sizeof *ids, cmp_int);
	for (size_t i = 0; i < edges.n && rc == FS_DB_OK; i++) {
		int hit = id_in(ids, d->removed.n, edges.items[i].id1) || id_in(ids, d->removed.n, edges.items[i].id2);
		if (hit && add_edge(&d->edges_removed, edges.items[i]))
			rc = FS_DB_ERROR;
	}
	free(ids);
	for (size_t k = 0; k < c->n_edges && rc == FS_DB_OK; k++) {
		int ex;
		if ((rc = edge_exists(db, set_id, c->edges[k], &ex)))
			break;
		if (!ex) {
			ERR("no connection %d-%d in this set", c->edges[k].id1, c->edges[k].id2);
			rc = FS_DB_INVALID;
			break;
		}
		if (add_edge(&d->edges_removed, c->edges[k]))
			rc = FS_DB_ERROR;
	}
	edges_unique(&d->edges_removed);
	free(gone);
out:
	fs_tubercle_list_free(&all);
	fs_edge_list_free(&edges);
	return rc;
}

int fs_set_delete_items(fs_db *db, long long set_id, long long expect_rev, long long user_id, const int *tids,
			size_t n_tids, const fs_edge *edges, size_t n_edges, const char *kind,
			long long agent_run_id, long long *new_rev, long long *cur_rev, char *err, size_t errlen)
{
	struct del_ctx c = {tids, n_tids, edges, n_edges, kind && !strcmp(kind, "clear_all")};
	char label[96];
	if (c.all)
		snprintf(label, sizeof label, "Cleared all tubercles and connections");
	else if (n_tids == 1 && n_edges == 0)
		snprintf(label, sizeof label, "Deleted tubercle #%d", tids[0]);
	else if (n_tids == 0 && n_edges == 1)
		snprintf(label, sizeof label, "Deleted connection %d-%d", edges[0].id1, edges[0].id2);
	else
		snprintf(label, sizeof label, "Deleted %zu tubercles and %zu connections", n_tids, n_edges);
	if (!c.all && n_tids == 0 && n_edges == 0) {
		ERR("nothing to delete");
		return FS_DB_INVALID;
	}
	return edit(db, set_id, expect_rev, user_id, kind ? kind : "delete", label, agent_run_id, build_delete, &c,
		    new_rev, cur_rev, err, errlen);
}

static int build_add_edge(fs_db *db, long long set_id, void *vctx, fs_set_diff *d, char *err, size_t errlen)
{
	(void)db;
	(void)set_id;
	(void)err;
	(void)errlen;
	return fs_edge_list_append(&d->edges_added, vctx) ? FS_DB_ERROR : FS_DB_OK;
}

int fs_set_add_edge(fs_db *db, long long set_id, long long expect_rev, long long user_id, int id1, int id2,
		    long long agent_run_id, long long *new_rev, long long *cur_rev, char *err, size_t errlen)
{
	fs_edge e = {id1, id2};
	edge_norm(&e);
	char label[96];
	snprintf(label, sizeof label, "Connected #%d and #%d", e.id1, e.id2);
	return edit(db, set_id, expect_rev, user_id, "add_connection", label, agent_run_id, build_add_edge, &e,
		    new_rev, cur_rev, err, errlen);
}

struct replace_ctx {
	const fs_tubercle_list *t;
	const fs_edge_list *e;
	const fs_params *params;
	int edges_only;
};

static int build_replace(fs_db *db, long long set_id, void *vctx, fs_set_diff *d, char *err, size_t errlen)
{
	struct replace_ctx *c = vctx;
	fs_tubercle_list all = {0};
	fs_edge_list edges = {0};
	int rc = load_rows(db, set_id, &all, &edges);
	if (rc)
		goto out;
	for (size_t i = 0; i < edges.n; i++)
		if (fs_edge_list_append(&d->edges_removed, &edges.items[i])) {
			rc = FS_DB_ERROR;
			goto out;
		}
	if (c->edges_only) {
		for (size_t i = 0; i < c->e->n; i++) {
			if (add_edge(&d->edges_added, c->e->items[i])) {
				rc = FS_DB_ERROR;
				goto out;
			}
		}
		edges_unique(&d->edges_added);
		goto out;
	}
	d->removed = all;
	memset(&all, 0, sizeof all);
	/* new tubercles get fresh ids after every id this set has used, so
	 * an undo can restore the old ones without a clash; edges follow */
	int base;
	if ((rc = next_tid(db, set_id, &base)))
		goto out;
	int *map_from = malloc((c->t->n + 1) * sizeof *map_from);
	if (!map_from) {
		rc = FS_DB_ERROR;
		goto out;
	}
	for (size_t i = 0; i < c->t->n; i++) {
		fs_tubercle t = c->t->items[i];
		map_from[i] = t.id;
		t.id = base + (int)i;
		if (!tub_valid(&t)) {
			ERR("invalid tubercle in the result (position or radius)");
			rc = FS_DB_INVALID;
			break;
		}
		if (fs_tubercle_list_append(&d->added, &t)) {
			rc = FS_DB_ERROR;
			break;
		}
	}
	/* old id -> new id through a sorted table: a scan per edge would be
	 * quadratic for an extraction of thousands of tubercles */
	struct idmap {
		int from, to;
	} *map = malloc((c->t->n + 1) * sizeof *map);
	if (!map)
		rc = FS_DB_ERROR;
	for (size_t i = 0; rc == FS_DB_OK && i < c->t->n; i++) {
		map[i].from = map_from[i];
		map[i].to = base + (int)i;
	}
	if (map)
		qsort(map, c->t->n, sizeof *map, cmp_int); /* sorts by .from, the first member */
	for (size_t k = 0; rc == FS_DB_OK && k < c->e->n; k++) {
		fs_edge e = c->e->items[k];
		int ab[2] = {0, 0}, want[2] = {e.id1, e.id2};
		for (int s2 = 0; s2 < 2; s2++) {
			size_t lo = 0, hi = c->t->n;
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;
				if (map[mid].from < want[s2])
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < c->t->n && map[lo].from == want[s2])
				ab[s2] = map[lo].to;
		}
		if (!ab[0] || !ab[1] || ab[0] == ab[1]) {
			ERR("connection %d-%d refers to a missing tubercle", e.id1, e.id2);
			rc = FS_DB_INVALID;
			break;
		}
		fs_edge ne = {ab[0], ab[1]};
		if (add_edge(&d->edges_added, ne))
			rc = FS_DB_ERROR;
	}
	edges_unique(&d->edges_added);
	free(map);
	free(map_from);
	if (rc == FS_DB_OK && c->params) {
		sqlite3_stmt *st = fs_db_stmt(db, "SELECT params FROM sets WHERE id = ?");
		if (!st) {
			rc = FS_DB_ERROR;
			goto out;
		}
		sqlite3_bind_int64(st, 1, set_id);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
			cJSON *p = cJSON_Parse((const char *)sqlite3_column_text(st, 0));
			char e[128];
			fs_params_default(&d->params_before);
			d->had_params = p && fs_params_from_json(&d->params_before, p, 1, e, sizeof e) == 0;
			cJSON_Delete(p);
		}
		fs_db_done(st);
		d->params_changed = 1;
		d->has_params = 1;
		d->params_after = *c->params;
	}
out:
	fs_tubercle_list_free(&all);
	fs_edge_list_free(&edges);
	return rc;
}

int fs_set_replace_all(fs_db *db, long long set_id, long long expect_rev, long long user_id,
		       const fs_tubercle_list *t, const fs_edge_list *e, const fs_params *params, const char *kind,
		       long long agent_run_id, long long *new_rev, long long *cur_rev, char *err, size_t errlen)
{
	struct replace_ctx c = {t, e, params, 0};
	char label[96];
	snprintf(label, sizeof label, "Replaced with %zu tubercles and %zu connections", t->n, e->n);
	return edit(db, set_id, expect_rev, user_id, kind ? kind : "extraction", label, agent_run_id, build_replace,
		    &c, new_rev, cur_rev, err, errlen);
}

int fs_set_replace_edges(fs_db *db, long long set_id, long long expect_rev, long long user_id,
			 const fs_edge_list *e, const char *kind, long long agent_run_id, long long *new_rev,
			 long long *cur_rev, char *err, size_t errlen)
{
	struct replace_ctx c = {NULL, e, NULL, 1};
	char label[96];
	snprintf(label, sizeof label, "Regenerated connections (%zu)", e->n);
	return edit(db, set_id, expect_rev, user_id, kind ? kind : "auto_connect", label, agent_run_id,
		    build_replace, &c, new_rev, cur_rev, err, errlen);
}

struct radius_ctx {
	const int *tids;
	size_t n;
	double r;
};

static int build_radius(fs_db *db, long long set_id, void *vctx, fs_set_diff *d, char *err, size_t errlen)
{
	struct radius_ctx *c = vctx;
	if (!(c->r > 0 && c->r < 1e5)) {
		ERR("the radius must be a positive number of pixels");
		return FS_DB_INVALID;
	}
	fs_tubercle_list all = {0};
	int rc = load_rows(db, set_id, &all, NULL);
	for (size_t i = 0; rc == FS_DB_OK && i < all.n; i++) {
		int want = c->n == 0;
		for (size_t k = 0; k < c->n && !want; k++)
			want = c->tids[k] == all.items[i].id;
		if (!want || all.items[i].radius_px == c->r)
			continue;
		fs_tubercle after = all.items[i];
		after.radius_px = c->r;
		if (after.has_ellipse) {
			/* a resized tubercle is a circle of the new size */
			after.has_ellipse = 0;
		}
		if (fs_tubercle_list_append(&d->before, &all.items[i]) || fs_tubercle_list_append(&d->after, &after))
			rc = FS_DB_ERROR;
	}
	for (size_t k = 0; rc == FS_DB_OK && k < c->n; k++) {
		fs_tubercle t;
		int g = row_get(db, set_id, c->tids[k], &t);
		if (g == FS_DB_NOTFOUND) {
			ERR("no tubercle #%d in this set", c->tids[k]);
			rc = FS_DB_INVALID;
		} else if (g) {
			rc = g;
		}
	}
	fs_tubercle_list_free(&all);
	return rc;
}

int fs_set_set_radius(fs_db *db, long long set_id, long long expect_rev, long long user_id, const int *tids,
		      size_t n, double radius_px, long long *new_rev, long long *cur_rev, char *err, size_t errlen)
{
	struct radius_ctx c = {tids, n, radius_px};
	char label[96];
	snprintf(label, sizeof label, "Set radius %.1f px on %s", radius_px, n ? "selected tubercles" : "all tubercles");
	return edit(db, set_id, expect_rev, user_id, "set_radius", label, 0, build_radius, &c, new_rev, cur_rev, err,
		    errlen);
}

/* ---- undo / redo ---- */

static int load_op(fs_db *db, const char *sql, long long set_id, long long *op_id, fs_set_diff *d)
{
	sqlite3_stmt *st = fs_db_stmt(db, sql);
	if (!st)
		return FS_DB_ERROR;
	sqlite3_bind_int64(st, 1, set_id);
	int rc = sqlite3_step(st);
	int out = FS_DB_NOTFOUND;
	if (rc == SQLITE_ROW) {
		*op_id = sqlite3_column_int64(st, 0);
		out = diff_from_json((const char *)sqlite3_column_text(st, 1), d) ? FS_DB_ERROR : FS_DB_OK;
	} else if (rc != SQLITE_DONE) {
		out = fs_db_rc_from_sqlite(rc);
	}
	fs_db_done(st);
	return out;
}

static int mark_op(fs_db *db, long long op_id, int undone)
{
	sqlite3_stmt *st = fs_db_stmt(db, "UPDATE set_ops SET undone = ? WHERE id = ?");
	if (!st)
		return FS_DB_ERROR;
	sqlite3_bind_int(st, 1, undone);
	sqlite3_bind_int64(st, 2, op_id);
	int rc = fs_db_rc_from_sqlite(sqlite3_step(st));
	fs_db_done(st);
	return rc;
}

/* Inside a transaction: undo (inverse) or redo (forward) the given op. */
static int replay(fs_db *db, long long set_id, fs_set_diff *d, int inverse, char *err, size_t errlen)
{
	if (inverse)
		diff_invert(d);
	int rc = diff_applies(db, set_id, d, err, errlen);
	if (!rc)
		rc = diff_write(db, set_id, d, err, errlen);
	return rc;
}

static int undo_redo(fs_db *db, long long set_id, long long expect_rev, long long *new_rev, long long *cur_rev,
		     char *err, size_t errlen, int redo)
{
	err[0] = 0;
	int rc = fs_db_begin(db);
	if (rc)
		return rc;
	rc = check_rev(db, set_id, expect_rev, cur_rev, err, errlen);
	fs_set_diff d;
	memset(&d, 0, sizeof d);
	long long op = 0;
	if (!rc) {
		rc = load_op(db,
			     redo ? "SELECT id, diff FROM set_ops WHERE set_id = ? AND undone = 1 ORDER BY id LIMIT 1"
				  : "SELECT id, diff FROM set_ops WHERE set_id = ? AND undone = 0 ORDER BY id DESC LIMIT 1",
			     set_id, &op, &d);
		if (rc == FS_DB_NOTFOUND) {
			ERR("nothing to %s", redo ? "redo" : "undo");
			rc = FS_DB_INVALID;
		}
	}
	if (!rc)
		rc = replay(db, set_id, &d, !redo, err, errlen);
	if (!rc)
		rc = mark_op(db, op, redo ? 0 : 1);
	if (!rc)
		rc = bump(db, set_id, new_rev);
	if (!rc && (rc = fs_db_commit(db)) == FS_DB_OK)
		remember(&d, 0);
	fs_set_diff_free(&d);
	if (rc)
		fs_db_rollback(db);
	return rc;
}

int fs_set_undo(fs_db *db, long long set_id, long long expect_rev, long long user_id, long long *new_rev,
		long long *cur_rev, char *err, size_t errlen)
{
	(void)user_id;
	return undo_redo(db, set_id, expect_rev, new_rev, cur_rev, err, errlen, 0);
}

int fs_set_redo(fs_db *db, long long set_id, long long expect_rev, long long user_id, long long *new_rev,
		long long *cur_rev, char *err, size_t errlen)
{
	(void)user_id;
	return undo_redo(db, set_id, expect_rev, new_rev, cur_rev, err, errlen, 1);
}

int fs_set_undo_op(fs_db *db, long long set_id, long long op_id, long long user_id, long long *new_rev,
		   char *err, size_t errlen)
{
	err[0] = 0;
	int rc = fs_db_begin(db);
	if (rc)
		return rc;
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT diff, undone, label FROM set_ops "
					  "WHERE id = ? AND set_id = ?");
	fs_set_diff d;
	memset(&d, 0, sizeof d);
	char label[160] = "";
	if (!st) {
		rc = FS_DB_ERROR;
	} else {
		sqlite3_bind_int64(st, 1, op_id);
		sqlite3_bind_int64(st, 2, set_id);
		int s = sqlite3_step(st);
		if (s == SQLITE_ROW) {
			if (sqlite3_column_int(st, 1) != 0) {
				ERR("that step is already undone");
				rc = FS_DB_INVALID;
			} else if (diff_from_json((const char *)sqlite3_column_text(st, 0), &d)) {
				rc = FS_DB_ERROR;
			}
			snprintf(label, sizeof label, "Undid: %s", (const char *)sqlite3_column_text(st, 2));
		} else {
			ERR("no such step in this set's journal");
			rc = s == SQLITE_DONE ? FS_DB_NOTFOUND : fs_db_rc_from_sqlite(s);
		}
		fs_db_done(st);
	}
	if (!rc) {
		diff_invert(&d);
		char why[200] = "";
		rc = diff_applies(db, set_id, &d, why, sizeof why);
		if (rc == FS_DB_INVALID)
			ERR("cannot undo this step any more: %s", why);
	}
	/* the out-of-order undo is a step of its own; the original is marked
	 * as reverted (2) so that plain undo/redo leave it alone */
	if (!rc)
		rc = diff_write(db, set_id, &d, err, errlen);
	if (!rc)
		rc = journal_add(db, set_id, user_id, "undo_step", label, &d, 0);
	if (!rc)
		rc = mark_op(db, op_id, 2);
	if (!rc)
		rc = bump(db, set_id, new_rev);
	if (!rc && (rc = fs_db_commit(db)) == FS_DB_OK)
		remember(&d, 0);
	fs_set_diff_free(&d);
	if (rc)
		fs_db_rollback(db);
	return rc;
}

cJSON *fs_set_journal(fs_db *db, long long set_id, int limit)
{
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT o.id, o.at, coalesce(u.display_name, ''), o.kind, o.label, o.undone, "
					  "coalesce(o.agent_run_id, 0) FROM set_ops o LEFT JOIN users u ON u.id = o.user_id "
					  "WHERE o.set_id = ? ORDER BY o.id DESC LIMIT ?");
	if (!st)
		return NULL;
	sqlite3_bind_int64(st, 1, set_id);
	sqlite3_bind_int(st, 2, limit > 0 ? limit : FS_UNDO_KEEP);
	cJSON *a = cJSON_CreateArray();
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		cJSON *o = cJSON_CreateObject();
		char ts[32];
		iso(sqlite3_column_int64(st, 1), ts, sizeof ts);
		cJSON_AddNumberToObject(o, "id", (double)sqlite3_column_int64(st, 0));
		cJSON_AddStringToObject(o, "timestamp", ts);
		cJSON_AddStringToObject(o, "user", (const char *)sqlite3_column_text(st, 2));
		cJSON_AddStringToObject(o, "kind", (const char *)sqlite3_column_text(st, 3));
		cJSON_AddStringToObject(o, "label", (const char *)sqlite3_column_text(st, 4));
		int u = sqlite3_column_int(st, 5);
		cJSON_AddStringToObject(o, "state", u == 0 ? "done" : u == 1 ? "undone" : "reverted");
		long long run = sqlite3_column_int64(st, 6);
		if (run)
			cJSON_AddNumberToObject(o, "agent_run_id", (double)run);
		else
			cJSON_AddNullToObject(o, "agent_run_id");
		cJSON_AddItemToArray(a, o);
	}
	fs_db_done(st);
	if (rc != SQLITE_DONE) {
		cJSON_Delete(a);
		return NULL;
	}
	return a;
}

/* ---- checkpoint (Save) and revert ---- */

struct summary {
	int added, deleted, moved, resized, edges_added, edges_deleted;
};

static void summarise(const fs_set_diff *d, struct summary *s)
{
	s->added += (int)d->added.n;
	s->deleted += (int)d->removed.n;
	for (size_t i = 0; i < d->before.n; i++) {
		const fs_tubercle *b = &d->before.items[i], *a = &d->after.items[i];
		if (b->centroid_x != a->centroid_x || b->centroid_y != a->centroid_y)
			s->moved++;
		if (b->radius_px != a->radius_px)
			s->resized++;
	}
	s->edges_added += (int)d->edges_added.n;
	s->edges_deleted += (int)d->edges_removed.n;
}

int fs_set_checkpoint(fs_db *db, long long set_id, long long expect_rev, long long user_id, const char *user_name,
		      double hexagonalness, long long *cur_rev, char *err, size_t errlen)
{
	(void)user_name;
	err[0] = 0;
	int rc = fs_db_begin(db);
	if (rc)
		return rc;
	rc = check_rev(db, set_id, expect_rev, cur_rev, err, errlen);
	struct summary s = {0};
	int n_ops = 0;
	if (!rc) {
		sqlite3_stmt *st = fs_db_stmt(db, "SELECT diff FROM set_ops WHERE set_id = ? AND undone = 0 "
						  "AND checkpointed = 0 ORDER BY id");
		if (!st) {
			rc = FS_DB_ERROR;
		} else {
			sqlite3_bind_int64(st, 1, set_id);
			int r;
			while ((r = sqlite3_step(st)) == SQLITE_ROW) {
				fs_set_diff d;
				if (diff_from_json((const char *)sqlite3_column_text(st, 0), &d) == 0) {
					summarise(&d, &s);
					fs_set_diff_free(&d);
					n_ops++;
				}
			}
			fs_db_done(st);
			if (r != SQLITE_DONE)
				rc = fs_db_rc_from_sqlite(r);
		}
	}
	fs_set_info info;
	if (!rc)
		rc = fs_set_get_info(db, set_id, &info);
	if (!rc && n_ops > 0) {
		char summary[256];
		snprintf(summary, sizeof summary, "+%d tubercles, -%d tubercles, %d moved, %d resized, +%d connections, "
			 "-%d connections", s.added, s.deleted, s.moved, s.resized, s.edges_added, s.edges_deleted);
		cJSON *h = cJSON_CreateObject();
		cJSON_AddStringToObject(h, "summary", summary);
		cJSON *det = cJSON_AddObjectToObject(h, "details");
		cJSON_AddNumberToObject(det, "added_tubercles", s.added);
		cJSON_AddNumberToObject(det, "deleted_tubercles", s.deleted);
		cJSON_AddNumberToObject(det, "moved_tubercles", s.moved);
		cJSON_AddNumberToObject(det, "resized_tubercles", s.resized);
		cJSON_AddNumberToObject(det, "added_connections", s.edges_added);
		cJSON_AddNumberToObject(det, "deleted_connections", s.edges_deleted);
		cJSON *res = cJSON_AddObjectToObject(h, "result");
		cJSON_AddNumberToObject(res, "n_tubercles", info.n_tubercles);
		cJSON_AddNumberToObject(res, "n_edges", info.n_edges);
		cJSON_AddNumberToObject(res, "hexagonalness", hexagonalness);
		rc = fs_history_add(db, set_id, user_id, "manual_edit", h);
		cJSON_Delete(h);
	}
	if (!rc)
		rc = fs_db_exec_id(db, "UPDATE set_ops SET checkpointed = 1 WHERE set_id = ?", set_id);
	if (!rc)
		rc = bump(db, set_id, cur_rev);
	if (!rc)
		rc = fs_db_exec_id(db, "UPDATE sets SET clean_revision = revision WHERE id = ?", set_id);
	return end_tx(db, rc);
}

int fs_set_revert(fs_db *db, long long set_id, long long expect_rev, long long user_id, long long *new_rev,
		  long long *cur_rev, char *err, size_t errlen)
{
	(void)user_id;
	err[0] = 0;
	int rc = fs_db_begin(db);
	if (rc)
		return rc;
	rc = check_rev(db, set_id, expect_rev, cur_rev, err, errlen);
	int n = 0;
	while (!rc) {
		fs_set_diff d;
		memset(&d, 0, sizeof d);
		long long op;
		rc = load_op(db, "SELECT id, diff FROM set_ops WHERE set_id = ? AND undone = 0 AND checkpointed = 0 "
				 "ORDER BY id DESC LIMIT 1", set_id, &op, &d);
		if (rc == FS_DB_NOTFOUND) {
			rc = FS_DB_OK;
			break;
		}
		if (!rc)
			rc = replay(db, set_id, &d, 1, err, errlen);
		if (!rc)
			rc = mark_op(db, op, 1);
		fs_set_diff_free(&d);
		n++;
	}
	if (!rc && n == 0) {
		ERR("nothing changed since the last save");
		rc = FS_DB_INVALID;
	}
	if (!rc)
		rc = bump(db, set_id, new_rev);
	if (rc) {
		fs_db_rollback(db);
		return rc;
	}
	rc = fs_db_commit(db);
	if (!rc)
		remember(NULL, 1);
	return rc;
}

/* ---- image-wide changes ---- */

static int set_ids_of_image(fs_db *db, long long image_id, long long **ids, size_t *n)
{
	*ids = NULL;
	*n = 0;
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT id FROM sets WHERE image_id = ? ORDER BY id");
	if (!st)
		return FS_DB_ERROR;
	sqlite3_bind_int64(st, 1, image_id);
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 8;
			long long *p = realloc(*ids, cap * sizeof *p);
			if (!p) {
				rc = SQLITE_NOMEM;
				break;
			}
			*ids = p;
		}
		(*ids)[(*n)++] = sqlite3_column_int64(st, 0);
	}
	fs_db_done(st);
	if (rc != SQLITE_DONE) {
		free(*ids);
		*ids = NULL;
		*n = 0;
		return fs_db_rc_from_sqlite(rc);
	}
	return FS_DB_OK;
}

static int clear_journal(fs_db *db, long long set_id)
{
	return fs_db_exec_id(db, "DELETE FROM set_ops WHERE set_id = ?", set_id);
}

static const char *transform_name(fs_transform_kind k)
{
	return k == FS_TRANSFORM_ROTATE_LEFT ? "rotate_left" : k == FS_TRANSFORM_ROTATE_RIGHT ? "rotate_right" : "crop";
}

int fs_sets_apply_transform(fs_db *db, long long image_id, const fs_transform *t, long long user_id, char *err,
			    size_t errlen)
{
	err[0] = 0;
	long long *ids;
	size_t n;
	int rc = set_ids_of_image(db, image_id, &ids, &n);
	if (rc)
		return rc;
	for (size_t s = 0; s < n && !rc; s++) {
		fs_tubercle_list all = {0};
		fs_edge_list edges = {0};
		rc = load_rows(db, ids[s], &all, &edges);
		int dropped = 0;
		for (size_t i = 0; i < all.n && !rc; i++) {
			fs_tubercle tb = all.items[i];
			double nx, ny;
			fs_transform_point(t, tb.centroid_x, tb.centroid_y, &nx, &ny);
			int outside = t->kind == FS_TRANSFORM_CROP &&
				      (nx < 0 || ny < 0 || nx >= t->rect.width || ny >= t->rect.height);
			if (outside) {
				dropped++;
				sqlite3_stmt *st = fs_db_stmt(db, "DELETE FROM edges WHERE set_id = ?1 AND (id1 = ?2 OR id2 = ?2)");
				if (!st) {
					rc = FS_DB_ERROR;
					break;
				}
				sqlite3_bind_int64(st, 1, ids[s]);
				sqlite3_bind_int(st, 2, tb.id);
				rc = fs_db_rc_from_sqlite(sqlite3_step(st));
				fs_db_done(st);
				if (!rc)
					rc = row_delete(db, ids[s], tb.id);
				continue;
			}
			tb.centroid_x = nx;
			tb.centroid_y = ny;
			if (tb.has_ellipse && t->kind != FS_TRANSFORM_CROP) {
				/* y points down: a left turn adds a quarter turn to every angle */
				tb.orientation += t->kind == FS_TRANSFORM_ROTATE_LEFT ? M_PI / 2 : -M_PI / 2;
				while (tb.orientation > M_PI / 2)
					tb.orientation -= M_PI;
				while (tb.orientation <= -M_PI / 2)
					tb.orientation += M_PI;
			}
			rc = row_update(db, ids[s], &tb);
		}
		if (!rc)
			rc = clear_journal(db, ids[s]);
		if (!rc) {
			cJSON *h = cJSON_CreateObject();
			cJSON_AddStringToObject(h, "transform", transform_name(t->kind));
			cJSON_AddNumberToObject(h, "from_width", t->src_width);
			cJSON_AddNumberToObject(h, "from_height", t->src_height);
			cJSON *r = cJSON_AddObjectToObject(h, "rect");
			cJSON_AddNumberToObject(r, "x", t->rect.x);
			cJSON_AddNumberToObject(r, "y", t->rect.y);
			cJSON_AddNumberToObject(r, "width", t->rect.width);
			cJSON_AddNumberToObject(r, "height", t->rect.height);
			cJSON_AddNumberToObject(h, "n_tubercles_moved", (double)(all.n - (size_t)dropped));
			cJSON_AddNumberToObject(h, "n_tubercles_removed", dropped);
			rc = fs_history_add(db, ids[s], user_id, "transform", h);
			cJSON_Delete(h);
		}
		if (!rc)
			rc = bump(db, ids[s], NULL);
		/* the clean state refers to the old frame too */
		fs_tubercle_list_free(&all);
		fs_edge_list_free(&edges);
	}
	free(ids);
	if (rc && !*err)
		ERR("could not move the sets' coordinates: %s", fs_db_errmsg(db));
	return rc;
}

int fs_sets_calibration_changed(fs_db *db, long long image_id, double old_um, double new_um, const char *method,
				long long user_id, char *err, size_t errlen)
{
	err[0] = 0;
	long long *ids;
	size_t n;
	int rc = set_ids_of_image(db, image_id, &ids, &n);
	if (rc)
		return rc;
	for (size_t s = 0; s < n && !rc; s++) {
		sqlite3_stmt *st = fs_db_stmt(db, "UPDATE sets SET calibration_um_per_px = ? WHERE id = ?");
		if (!st) {
			rc = FS_DB_ERROR;
			break;
		}
		if (new_um > 0)
			sqlite3_bind_double(st, 1, new_um);
		else
			sqlite3_bind_null(st, 1);
		sqlite3_bind_int64(st, 2, ids[s]);
		rc = fs_db_rc_from_sqlite(sqlite3_step(st));
		fs_db_done(st);
		if (!rc) {
			cJSON *h = cJSON_CreateObject();
			if (old_um > 0)
				cJSON_AddNumberToObject(h, "old_um_per_px", old_um);
			else
				cJSON_AddNullToObject(h, "old_um_per_px");
			cJSON_AddNumberToObject(h, "new_um_per_px", new_um);
			cJSON_AddStringToObject(h, "method", method ? method : "");
			rc = fs_history_add(db, ids[s], user_id, "calibration_change", h);
			cJSON_Delete(h);
		}
		if (!rc)
			rc = bump(db, ids[s], NULL);
	}
	free(ids);
	if (rc && !*err)
		ERR("could not update the sets' calibration: %s", fs_db_errmsg(db));
	return rc;
}
