/*
 * sets_store.c - annotation sets in SQLite: sets, loading, edits (see
 * sets_store.h). Undo, redo, the journal, Save, Revert and image-wide
 * changes are in set_undo.c; the rows under both in set_rows.c.
 *
 * Every change is expressed as a diff (fs_set_diff) in the stored frame,
 * so that one code path writes it, journals it, and can apply its inverse
 * for undo. Tubercle ids are never reused within a set (next_tid only
 * grows), so a redo can put a tubercle back under the id it had. Edits
 * arrive in shown coordinates and touch only what is shown
 * (set_frame.h).
 */
#include "store/sets_store.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/graph.h"
#include "analysis/measurement.h"
#include "analysis/params_json.h"
#include "store/images_store.h"
#include "store/scale_regions.h"
#include "store/set_frame.h"
#include "store/set_halves.h"
#include "store/set_rows.h"
#include "store/db_bind.h"
#include "store/rows_json.h"
#include "store/staged_blob.h"

#define ERR(...) snprintf(err, errlen, __VA_ARGS__)

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

int fs_set_revision(fs_db *db, long long set_id, long long *rev)
{
	return fs_rows_read_rev(db, set_id, rev);
}

/* ---- one change ---- */

/*
 * Builds a change's diff (stored frame) from the rows at the caller's
 * snapshot. The builder gets the frame: it takes shown coordinates in and
 * puts stored ones out. It may run more than once for one change (when
 * the set moves on meanwhile), so it keeps no count across runs.
 */
typedef int (*diff_builder)(fs_db *db, long long set_id, const fs_set_frame *f, void *ctx, fs_set_diff *d, char *err,
			    size_t errlen);

/* Ends a change's transaction; remembers the change for the response. */
static int finish(fs_db *db, int rc, const fs_set_diff *d, const fs_set_frame *f, char *err, size_t errlen)
{
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
		fs_rows_remember(d, f, 0);
	return rc;
}

/* What one edit carries between its two halves (set_halves.h). */
struct edit_run {
	const char *kind, *label;
	long long user_id, agent_run_id;
	diff_builder build;
	void *build_ctx;
	long long *new_rev;
	fs_set_diff d;
	fs_set_frame f;
	fs_rows_prepared p;
};

/* At the snapshot: the diff built, checked against the rows, merged into
 * the set's record and journaled, everything that needs no lock. */
static int edit_prepare(fs_db *db, long long set_id, void *ctx, char *err, size_t errlen)
{
	struct edit_run *r = ctx;
	int rc = fs_set_frame_load(db, set_id, &r->f);
	if (!rc)
		rc = r->build(db, set_id, &r->f, r->build_ctx, &r->d, err, errlen);
	if (!rc)
		rc = fs_rows_diff_applies(db, set_id, &r->d, err, errlen);
	if (!rc)
		rc = fs_rows_prepare(db, set_id, &r->d, &r->p, err, errlen);
	return rc;
}

static int edit_write(fs_db *db, long long set_id, int rc, void *ctx, char *err, size_t errlen)
{
	struct edit_run *r = ctx;
	if (!rc)
		rc = fs_rows_write_prepared(db, set_id, &r->d, &r->p, err, errlen);
	if (!rc)
		rc = fs_rows_journal_add_prepared(db, set_id, r->user_id, r->kind, r->label, &r->p.journal,
						  r->agent_run_id, NULL, NULL);
	if (!rc)
		rc = fs_rows_bump(db, set_id, r->new_rev);
	return finish(db, rc, &r->d, &r->f, err, errlen);
}

static void edit_discard(void *ctx)
{
	struct edit_run *r = ctx;
	fs_rows_prepared_free(&r->p);
	fs_set_diff_free(&r->d);
	memset(&r->d, 0, sizeof r->d);
}

/*
 * One change as one step, in two halves (issue 15, "one writer, short
 * writes"; the loop in set_halves.c): a large set's change (Re-measure, a
 * radius for all, clearing, regenerated connections: every tubercle or
 * connection of 70,000) is built, checked against the rows, merged into
 * the set's record and journaled at a snapshot, and only stored under the
 * write lock.
 */
static int edit(fs_db *db, long long set_id, long long expect_rev, long long user_id, const char *kind,
		const char *label, long long agent_run_id, diff_builder build, void *ctx, long long *new_rev,
		long long *cur_rev, char *err, size_t errlen)
{
	static const fs_set_halves halves = {edit_prepare, edit_write, edit_discard, "change"};
	struct edit_run r = {.kind = kind,
			     .label = label,
			     .user_id = user_id,
			     .agent_run_id = agent_run_id,
			     .build = build,
			     .build_ctx = ctx,
			     .new_rev = new_rev};
	return fs_set_in_halves(db, set_id, expect_rev, cur_rev, &halves, &r, err, errlen);
}

/* ---- loading ---- */

/* The shown part of stored rows, in shown coordinates: edges between shown tubercles. */
static int shown_rows(const fs_set_frame *f, fs_tubercle_list *t, fs_edge_list *e)
{
	if (f->identity && !f->bounded)
		return 0;
	size_t k = 0;
	for (size_t i = 0; i < t->n; i++) {
		fs_tubercle x = t->items[i];
		if (!fs_set_frame_visible(f, x.centroid_x, x.centroid_y))
			continue;
		fs_set_frame_show(f, &x);
		t->items[k++] = x;
	}
	t->n = k;
	if (!e || !f->bounded)
		return 0;
	size_t m = 0;
	fs_set_state s = {*t, {0}};
	for (size_t i = 0; i < e->n; i++)
		if (fs_set_state_find(&s, e->items[i].id1) && fs_set_state_find(&s, e->items[i].id2))
			e->items[m++] = e->items[i];
	e->n = m;
	return 0;
}

/* Tubercles at the inner edge of the image's scale region are boundary
 * ones too (scale_regions.h; the region stored for the working image, so
 * no image is read here: none stored yet means the hull alone). */
static void region_boundary(fs_db *db, long long set_id, fs_tubercle_list *t)
{
	fs_set_info info;
	fs_image_rec rec;
	fs_scale_region r;
	if (!t->n || fs_set_get_info(db, set_id, &info) || fs_image_get(db, info.image_id, &rec))
		return;
	if (fs_scale_region_for(db, rec.id, rec.work_key, NULL, &r, NULL, NULL, 0))
		return;
	fs_scale_region_mark_boundary(&r, t, r.cell);
	fs_scale_region_free(&r);
}

int fs_set_load(fs_db *db, long long set_id, fs_tubercle_list *t, fs_edge_list *e)
{
	fs_set_frame f;
	int rc = fs_set_frame_load(db, set_id, &f);
	if (rc)
		return rc;
	rc = fs_rows_load(db, set_id, t, e);
	if (rc) {
		fs_tubercle_list_free(t);
		if (e)
			fs_edge_list_free(e);
		return rc;
	}
	shown_rows(&f, t, e);
	fs_graph_boundary(t);
	region_boundary(db, set_id, t);
	return FS_DB_OK;
}

/* ---- set rows ---- */

/* A count query bound with the set id (?1) and the frame's parameters. */
static int count_shown(fs_db *db, const char *sql, long long id, const fs_set_frame *f, int *n)
{
	sqlite3_stmt *st = fs_db_stmt(db, sql);
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, id);
	if (f)
		fs_set_frame_bind(&b, f);
	int rc = fs_bind_step(&b);
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
	o->measurement_version = sqlite3_column_int(st, 10);
	(void)db;
	return 0;
}

static int fill_counts(fs_db *db, fs_set_info *o)
{
	fs_set_frame f;
	int rc = fs_set_frame_load(db, o->id, &f);
	if (rc)
		return rc;
	int packed = 0;
	rc = fs_rows_count(db, o->id, &f, &o->n_tubercles, &o->n_edges, &packed);
	if (rc || packed) {
		/* counted from the packed record (set_packed.h) */
	} else if (!f.bounded) {
		rc = count_shown(db, "SELECT count(*) FROM tubercles WHERE set_id = ?1", o->id, NULL, &o->n_tubercles);
		if (!rc)
			rc = count_shown(db, "SELECT count(*) FROM edges WHERE set_id = ?1", o->id, NULL, &o->n_edges);
	} else {
		rc = count_shown(db, "SELECT count(*) FROM tubercles a WHERE a.set_id = ?1 AND " FS_SET_FRAME_SQL("a"),
				 o->id, &f, &o->n_tubercles);
		if (!rc)
			rc = count_shown(db, "SELECT count(*) FROM edges e "
					     "JOIN tubercles a ON a.set_id = e.set_id AND a.tid = e.id1 "
					     "JOIN tubercles b ON b.set_id = e.set_id AND b.tid = e.id2 "
					     "WHERE e.set_id = ?1 AND " FS_SET_FRAME_SQL("a") " AND " FS_SET_FRAME_SQL("b"),
					 o->id, &f, &o->n_edges);
	}
	if (!rc)
		rc = count_shown(db, "SELECT count(*) FROM set_ops WHERE set_id = ?1 AND undone = 0 "
				     "AND kind NOT IN ('undo', 'redo')", o->id, NULL, &o->can_undo);
	if (!rc)
		rc = count_shown(db, "SELECT count(*) FROM set_ops WHERE set_id = ?1 AND undone = 1", o->id, NULL,
				 &o->can_redo);
	o->can_undo = o->can_undo > 0;
	o->can_redo = o->can_redo > 0;
	return rc;
}

#define SET_COLS "id, image_id, name, position, revision, clean_revision, params, " \
		 "coalesce(calibration_um_per_px, 0), created_at, updated_at, measurement_version"

int fs_set_get_info(fs_db *db, long long set_id, fs_set_info *out)
{
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT " SET_COLS " FROM sets WHERE id = ?");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, set_id);
	int rc = fs_bind_step(&b);
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
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, image_id);
	size_t cap = 0;
	int rc;
	while ((rc = fs_bind_step(&b)) == SQLITE_ROW) {
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
					  "updated_at, calibration_um_per_px, measurement_version) SELECT ?1, ?2, "
					  "coalesce((SELECT max(position) FROM sets WHERE image_id = ?1), 0) + 1, ?3, ?4, ?4, "
					  "um_per_px, ?5 FROM images WHERE id = ?1");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, image_id);
	fs_bind_text(&b, 2, name, -1, SQLITE_TRANSIENT);
	if (user_id)
		fs_bind_int64(&b, 3, user_id);
	fs_bind_int64(&b, 4, fs_rows_now());
	/* a new set holds nothing measured by an older rule */
	fs_bind_int(&b, 5, FS_MEASUREMENT_VERSION);
	int rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
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
	rc = fs_rows_check_rev(db, set_id, expect_rev, cur_rev, err, errlen);
	if (!rc) {
		sqlite3_stmt *st = fs_db_stmt(db, "UPDATE sets SET name = ? WHERE id = ?");
		if (!st) {
			rc = FS_DB_ERROR;
		} else {
			fs_bind b = fs_bind_start(db, st);
			fs_bind_text(&b, 1, clean, -1, SQLITE_TRANSIENT);
			fs_bind_int64(&b, 2, set_id);
			rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
			fs_db_done(st);
			if (rc == FS_DB_CONSTRAINT)
				ERR("a set named '%s' exists already", clean);
		}
	}
	if (!rc)
		rc = fs_rows_bump(db, set_id, cur_rev);
	return fs_rows_end_tx(db, rc);
}

int fs_history_add(fs_db *db, long long set_id, long long user_id, const char *type, const cJSON *data)
{
	return fs_rows_history_add(db, set_id, user_id, type, data);
}

static void iso(long long t, char *out, size_t n)
{
	time_t s = (time_t)t;
	struct tm tm;
	gmtime_r(&s, &tm);
	strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static cJSON *history_row(sqlite3_stmt *st, void *ctx)
{
	(void)ctx;
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
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, set_id);
	fs_bind_int(&b, 2, limit > 0 ? limit : 1000);
	cJSON *a = NULL;
	return fs_db_rows_json(&b, history_row, NULL, &a) ? NULL : a;
}

int fs_history_get(fs_db *db, long long set_id, long long history_id, cJSON **event)
{
	*event = NULL;
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT h.id, h.at, h.type, coalesce(u.display_name, ''), h.data "
					  "FROM history h LEFT JOIN users u ON u.id = h.user_id "
					  "WHERE h.set_id = ? AND h.id = ?");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, set_id);
	fs_bind_int64(&b, 2, history_id);
	int rc = fs_bind_step(&b);
	if (rc == SQLITE_ROW)
		*event = history_row(st, NULL);
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
		"next_tid = (SELECT next_tid FROM sets WHERE id = ?1), "
		"measurement_version = (SELECT measurement_version FROM sets WHERE id = ?1) WHERE id = ?2",
		"INSERT INTO tubercles (set_id, tid, x, y, r, circularity, major, minor, orientation, eccentricity, "
		"is_boundary, source, fit_quality) SELECT ?2, tid, x, y, r, circularity, major, minor, orientation, "
		"eccentricity, is_boundary, source, fit_quality FROM tubercles WHERE set_id = ?1",
		"INSERT INTO edges (set_id, id1, id2) SELECT ?2, id1, id2 FROM edges WHERE set_id = ?1",
		/* a staged record (blob_id) is shared, not copied: the trigger
		 * counts the copy's reference */
		"INSERT INTO set_packed (set_id, n_tubercles, n_edges, tubercles, edges, blob_id, delta) "
		"SELECT ?2, n_tubercles, n_edges, tubercles, edges, blob_id, delta FROM set_packed WHERE set_id = ?1",
	};
	for (size_t i = 0; !rc && i < sizeof copies / sizeof copies[0]; i++) {
		sqlite3_stmt *st = fs_db_stmt(db, copies[i]);
		if (!st) {
			rc = FS_DB_ERROR;
			break;
		}
		fs_bind b = fs_bind_start(db, st);
		fs_bind_int64(&b, 1, set_id);
		fs_bind_int64(&b, 2, *new_id);
		rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
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
	return fs_rows_end_tx(db, rc);
}

int fs_set_delete(fs_db *db, long long set_id, long long expect_rev, long long *cur_rev, char *err,
		  size_t errlen)
{
	int rc = fs_db_begin(db);
	if (rc)
		return rc;
	rc = fs_rows_check_rev(db, set_id, expect_rev, cur_rev, err, errlen);
	int n = 0;
	if (!rc)
		rc = count_shown(db, "SELECT count(*) FROM sets WHERE image_id = (SELECT image_id FROM sets WHERE id = ?1)",
				 set_id, NULL, &n);
	if (!rc && n <= 1) {
		ERR("the last set of an image cannot be deleted");
		rc = FS_DB_INVALID;
	}
	if (!rc)
		rc = fs_db_exec_id(db, "DELETE FROM sets WHERE id = ?", set_id);
	return fs_rows_end_tx(db, rc);
}

/* ---- convenience edits ---- */

static int next_tid(fs_db *db, long long set_id, int *tid)
{
	long long v;
	int rc = fs_db_int_by_id(db, "SELECT next_tid FROM sets WHERE id = ?", set_id, &v);
	if (!rc)
		*tid = (int)v;
	return rc;
}

/* The stored row of shown tubercle tid; "no tubercle #tid" when it is
 * missing or not shown. */
static int shown_row(fs_db *db, long long set_id, const fs_set_frame *f, int tid, fs_tubercle *row, char *err,
		     size_t errlen)
{
	int rc = fs_rows_get(db, set_id, tid, row);
	if (rc == FS_DB_NOTFOUND || (!rc && !fs_set_frame_visible(f, row->centroid_x, row->centroid_y))) {
		ERR("no tubercle #%d in this set", tid);
		return FS_DB_INVALID;
	}
	return rc;
}

struct add_ctx {
	const fs_tubercle *t;
	int tid;
	char label[96]; /* filled once the id is known, before the step is journaled */
};

static int build_add(fs_db *db, long long set_id, const fs_set_frame *f, void *vctx, fs_set_diff *d, char *err,
		     size_t errlen)
{
	struct add_ctx *c = vctx;
	int rc = next_tid(db, set_id, &c->tid);
	if (rc)
		return rc;
	fs_tubercle shown = *c->t, t;
	shown.id = c->tid;
	snprintf(c->label, sizeof c->label, "Added tubercle #%d at (%.0f, %.0f)", shown.id, shown.centroid_x,
		 shown.centroid_y);
	if (!fs_tubercle_storable(&shown)) {
		ERR("invalid tubercle: the position must be finite and the radius positive");
		return FS_DB_INVALID;
	}
	fs_set_frame_store(f, &shown, NULL, &t);
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

static int build_update(fs_db *db, long long set_id, const fs_set_frame *f, void *vctx, fs_set_diff *d, char *err,
			size_t errlen)
{
	struct upd_ctx *c = vctx;
	fs_tubercle cur, after;
	int rc = shown_row(db, set_id, f, c->tid, &cur, err, errlen);
	if (rc)
		return rc;
	fs_tubercle shown = *c->t;
	shown.id = cur.id;
	fs_set_frame_store(f, &shown, &cur, &after);
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
	if (e.id1 > e.id2) {
		int t = e.id1;
		e.id1 = e.id2;
		e.id2 = t;
	}
	return fs_edge_list_append(l, &e);
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

/* The stored rows and edges of a set, and which rows are shown. */
struct rows {
	fs_set_state s;
	char *shown; /* per row of s.t */
};

static void rows_free(struct rows *r)
{
	fs_set_state_free(&r->s);
	free(r->shown);
}

static int rows_load(fs_db *db, long long set_id, const fs_set_frame *f, struct rows *r)
{
	memset(r, 0, sizeof *r);
	int rc = fs_rows_state(db, set_id, &r->s);
	if (rc)
		return rc;
	r->shown = malloc(r->s.t.n + 1);
	if (!r->shown) {
		rows_free(r);
		return FS_DB_ERROR;
	}
	for (size_t i = 0; i < r->s.t.n; i++)
		r->shown[i] = (char)fs_set_frame_visible(f, r->s.t.items[i].centroid_x, r->s.t.items[i].centroid_y);
	return FS_DB_OK;
}

/* The row of shown tubercle id, or NULL. */
static const fs_tubercle *rows_shown(const struct rows *r, int id)
{
	const fs_tubercle *t = fs_set_state_find(&r->s, id);
	return t && r->shown[t - r->s.t.items] ? t : NULL;
}

static int build_delete(fs_db *db, long long set_id, const fs_set_frame *f, void *vctx, fs_set_diff *d, char *err,
			size_t errlen)
{
	struct del_ctx *c = vctx;
	struct rows r;
	int rc = rows_load(db, set_id, f, &r);
	if (rc)
		return rc;
	char *gone = calloc(r.s.t.n + 1, 1);
	int *ids = NULL;
	if (!gone) {
		rc = FS_DB_ERROR;
		goto out;
	}
	for (size_t k = 0; rc == FS_DB_OK && (k < c->n_tids || (c->all && k < r.s.t.n)); k++) {
		if (c->all && !r.shown[k])
			continue; /* a clear takes what is shown */
		const fs_tubercle *t = c->all ? &r.s.t.items[k] : rows_shown(&r, c->tids[k]);
		if (!t) {
			ERR("no tubercle #%d in this set", c->tids[k]);
			rc = FS_DB_INVALID;
			break;
		}
		size_t at = (size_t)(t - r.s.t.items);
		if (!gone[at]) {
			gone[at] = 1;
			if (fs_tubercle_list_append(&d->removed, t))
				rc = FS_DB_ERROR;
		}
	}
	/* edges touching a deleted tubercle (shown or not at their other end), and the edges asked for */
	ids = malloc((d->removed.n + 1) * sizeof *ids);
	if (!ids && rc == FS_DB_OK)
		rc = FS_DB_ERROR;
	for (size_t j = 0; rc == FS_DB_OK && j < d->removed.n; j++)
		ids[j] = d->removed.items[j].id;
	if (rc == FS_DB_OK)
		qsort(ids, d->removed.n, sizeof *ids, cmp_int);
	for (size_t i = 0; rc == FS_DB_OK && d->removed.n && i < r.s.e.n; i++) {
		fs_edge e = r.s.e.items[i];
		if ((id_in(ids, d->removed.n, e.id1) || id_in(ids, d->removed.n, e.id2)) && add_edge(&d->edges_removed, e))
			rc = FS_DB_ERROR;
	}
	for (size_t k = 0; rc == FS_DB_OK && k < c->n_edges; k++) {
		fs_edge e = c->edges[k];
		if (!fs_set_state_has_edge(&r.s, e.id1, e.id2) || !rows_shown(&r, e.id1) || !rows_shown(&r, e.id2)) {
			ERR("no connection %d-%d in this set", e.id1, e.id2);
			rc = FS_DB_INVALID;
			break;
		}
		if (add_edge(&d->edges_removed, e))
			rc = FS_DB_ERROR;
	}
	fs_edges_normalise(&d->edges_removed);
out:
	free(ids);
	free(gone);
	rows_free(&r);
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

static int build_add_edge(fs_db *db, long long set_id, const fs_set_frame *f, void *vctx, fs_set_diff *d, char *err,
			  size_t errlen)
{
	const fs_edge *e = vctx;
	fs_tubercle t;
	int rc = shown_row(db, set_id, f, e->id1, &t, err, errlen);
	if (!rc)
		rc = shown_row(db, set_id, f, e->id2, &t, err, errlen);
	if (rc == FS_DB_INVALID)
		ERR("connection %d-%d refers to a missing tubercle", e->id1, e->id2);
	if (rc)
		return rc;
	return fs_edge_list_append(&d->edges_added, e) ? FS_DB_ERROR : FS_DB_OK;
}

int fs_set_add_edge(fs_db *db, long long set_id, long long expect_rev, long long user_id, int id1, int id2,
		    long long agent_run_id, long long *new_rev, long long *cur_rev, char *err, size_t errlen)
{
	fs_edge e = {id1 < id2 ? id1 : id2, id1 < id2 ? id2 : id1};
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
	int version; /* measurement version of the new content; -1 = leave it */
	int whole;   /* out: every stored row was shown, so the diff removes them all */
};

/* The set's measurement version now. */
static int read_version(fs_db *db, long long set_id, int *v)
{
	long long x;
	int rc = fs_db_int_by_id(db, "SELECT measurement_version FROM sets WHERE id = ?", set_id, &x);
	*v = (int)x;
	return rc;
}

/* The diff sets the measurement version to v (nothing when it is v already). */
static int diff_version(fs_db *db, long long set_id, int v, fs_set_diff *d)
{
	int cur;
	int rc = read_version(db, set_id, &cur);
	if (rc || cur == v)
		return rc;
	d->version_changed = 1;
	d->version_before = cur;
	d->version_after = v;
	return FS_DB_OK;
}

static int build_replace(fs_db *db, long long set_id, const fs_set_frame *f, void *vctx, fs_set_diff *d, char *err,
			 size_t errlen)
{
	struct replace_ctx *c = vctx;
	struct rows r;
	int *map_from = NULL;
	struct idmap {
		int from, to;
	} *map = NULL;
	int rc = rows_load(db, set_id, f, &r);
	if (rc)
		return rc;
	if (c->edges_only) {
		/* the connections among what is shown are replaced */
		for (size_t i = 0; rc == FS_DB_OK && i < r.s.e.n; i++) {
			fs_edge e = r.s.e.items[i];
			if (rows_shown(&r, e.id1) && rows_shown(&r, e.id2) && fs_edge_list_append(&d->edges_removed, &e))
				rc = FS_DB_ERROR;
		}
		for (size_t i = 0; rc == FS_DB_OK && i < c->e->n; i++) {
			fs_edge e = c->e->items[i];
			if (!rows_shown(&r, e.id1) || !rows_shown(&r, e.id2)) {
				ERR("connection %d-%d refers to a missing tubercle", e.id1, e.id2);
				rc = FS_DB_INVALID;
			} else if (add_edge(&d->edges_added, e)) {
				rc = FS_DB_ERROR;
			}
		}
		fs_edges_normalise(&d->edges_added);
		goto out;
	}
	/* everything shown is replaced, with the connections it has; what a
	 * crop hides stays */
	d->replaces_all = 1;
	c->whole = 1;
	for (size_t i = 0; i < r.s.t.n; i++)
		if (!r.shown[i])
			c->whole = 0;
	for (size_t i = 0; rc == FS_DB_OK && i < r.s.t.n; i++)
		if (r.shown[i] && fs_tubercle_list_append(&d->removed, &r.s.t.items[i]))
			rc = FS_DB_ERROR;
	for (size_t i = 0; rc == FS_DB_OK && i < r.s.e.n; i++) {
		fs_edge e = r.s.e.items[i];
		if ((rows_shown(&r, e.id1) || rows_shown(&r, e.id2)) && fs_edge_list_append(&d->edges_removed, &e))
			rc = FS_DB_ERROR;
	}
	/* new tubercles get fresh ids after every id this set has used, so
	 * an undo can restore the old ones without a clash; edges follow */
	int base = 0;
	if (rc == FS_DB_OK)
		rc = next_tid(db, set_id, &base);
	map_from = malloc((c->t->n + 1) * sizeof *map_from);
	map = malloc((c->t->n + 1) * sizeof *map);
	if (rc == FS_DB_OK && (!map_from || !map))
		rc = FS_DB_ERROR;
	for (size_t i = 0; rc == FS_DB_OK && i < c->t->n; i++) {
		fs_tubercle shown = c->t->items[i], t;
		map_from[i] = shown.id;
		shown.id = base + (int)i;
		if (!fs_tubercle_storable(&shown)) {
			ERR("invalid tubercle in the result (position or radius)");
			rc = FS_DB_INVALID;
			break;
		}
		fs_set_frame_store(f, &shown, NULL, &t);
		if (fs_tubercle_list_append(&d->added, &t))
			rc = FS_DB_ERROR;
	}
	/* old id -> new id through a sorted table: a scan per edge would be
	 * quadratic for an extraction of thousands of tubercles */
	for (size_t i = 0; rc == FS_DB_OK && i < c->t->n; i++) {
		map[i].from = map_from[i];
		map[i].to = base + (int)i;
	}
	if (rc == FS_DB_OK)
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
	fs_edges_normalise(&d->edges_added);
	if (rc == FS_DB_OK && c->version >= 0)
		rc = diff_version(db, set_id, c->version, d);
	if (rc == FS_DB_OK && c->params) {
		sqlite3_stmt *st = fs_db_stmt(db, "SELECT params FROM sets WHERE id = ?");
		if (!st) {
			rc = FS_DB_ERROR;
			goto out;
		}
		fs_bind b = fs_bind_start(db, st);
		fs_bind_int64(&b, 1, set_id);
		if (fs_bind_step(&b) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
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
	free(map);
	free(map_from);
	rows_free(&r);
	return rc;
}

int fs_set_replace_all(fs_db *db, long long set_id, long long expect_rev, long long user_id,
		       const fs_tubercle_list *t, const fs_edge_list *e, const fs_params *params, const char *kind,
		       long long agent_run_id, long long *new_rev, long long *cur_rev, char *err, size_t errlen)
{
	/* everything but an import was measured just now, by this build */
	int v = kind && !strcmp(kind, "import") ? 0 : FS_MEASUREMENT_VERSION;
	return fs_set_replace_all_version(db, set_id, expect_rev, user_id, t, e, params, kind, v, agent_run_id,
					  new_rev, cur_rev, err, errlen);
}

int fs_set_replace_all_version(fs_db *db, long long set_id, long long expect_rev, long long user_id,
			       const fs_tubercle_list *t, const fs_edge_list *e, const fs_params *params,
			       const char *kind, int measurement_version, long long agent_run_id, long long *new_rev,
			       long long *cur_rev, char *err, size_t errlen)
{
	struct replace_ctx c = {t, e, params, 0, measurement_version, 0};
	char label[96];
	snprintf(label, sizeof label, "Replaced with %zu tubercles and %zu connections", t->n, e->n);
	if (err && errlen)
		err[0] = 0;
	/*
	 * SQLite has one writer, and a replacement can be an image's 70,000
	 * tubercles and 200,000 connections: everything that can be is done
	 * before the write lock is taken. The diff is built, and its journal
	 * text made, from a snapshot (a read transaction, which blocks
	 * nobody); the write transaction then only checks that the revision is
	 * still the snapshot's (every change of rows bumps it) and writes,
	 * without a lookup per row. Moved on meanwhile: with a revision to
	 * expect that is a conflict as always; without (-1, "on top of what is
	 * there") the preparation is made again from the new state.
	 */
	int rc = FS_DB_BUSY;
	for (int attempt = 0; attempt < 4; attempt++) {
		fs_set_diff d;
		fs_set_frame f;
		long long snap_rev = 0, now_rev = 0;
		fs_journal_entry journal;
		int have_journal = 0;
		memset(&d, 0, sizeof d);
		memset(&journal, 0, sizeof journal);
		fs_db_phase(db, "diff");
		rc = fs_db_begin_read(db);
		if (!rc)
			rc = fs_rows_check_rev(db, set_id, expect_rev, &snap_rev, err, errlen);
		if (cur_rev && snap_rev)
			*cur_rev = snap_rev;
		if (!rc)
			rc = fs_set_frame_load(db, set_id, &f);
		if (!rc)
			rc = build_replace(db, set_id, &f, &c, &d, err, errlen);
		const fs_set_state *packed = NULL;
		if (!rc)
			rc = fs_packed_state(db, set_id, &packed);
		int pack = !rc && fs_rows_replace_packs(c.whole, packed != NULL, &d);
		fs_db_end_read(db);
		fs_packed_rec rec;
		memset(&rec, 0, sizeof rec);
		fs_db_phase(db, "journal");
		if (pack && !rc)
			rc = fs_packed_encode(&d.added, &d.edges_added, &rec);
		if (!rc) {
			if (fs_rows_journal_prepare(&d, &journal))
				rc = FS_DB_ERROR;
			else
				have_journal = 1;
		}
		/* a large record and journal step are written now, in chunks of
		 * short transactions that nobody sees (staged_blob.h): the write
		 * transaction below then only refers to them, and an edit of
		 * another set waits for a chunk at most, not for megabytes */
		fs_db_phase(db, "stage");
		if (!rc && pack)
			rc = fs_packed_stage(db, &rec, err, errlen);
		if (!rc)
			rc = fs_rows_journal_stage(db, &journal, err, errlen);
		int staged = rec.blob_id > 0 || (have_journal && journal.blob_id > 0);
		if (rc) {
			fs_blob_drop(db, rec.blob_id);
			if (have_journal) {
				fs_blob_drop(db, journal.blob_id);
				fs_rows_journal_entry_free(&journal);
			}
			fs_packed_rec_free(&rec);
			fs_set_diff_free(&d);
			return rc;
		}
		fs_db_phase(db, "write");
		rc = fs_db_begin(db);
		if (rc) {
			ERR("the database is busy");
			fs_blob_drop(db, rec.blob_id);
			fs_blob_drop(db, journal.blob_id);
			fs_rows_journal_entry_free(&journal);
			fs_packed_rec_free(&rec);
			fs_set_diff_free(&d);
			return rc;
		}
		rc = fs_rows_read_rev(db, set_id, &now_rev);
		if (!rc && now_rev != snap_rev) {
			fs_db_rollback(db);
			fs_blob_drop(db, rec.blob_id);
			fs_blob_drop(db, journal.blob_id);
			fs_rows_journal_entry_free(&journal);
			fs_packed_rec_free(&rec);
			fs_set_diff_free(&d);
			if (expect_rev >= 0) {
				if (cur_rev)
					*cur_rev = now_rev;
				ERR("the set has changed (revision %lld, your view is at %lld): reload it first", now_rev,
				    expect_rev);
				return FS_DB_STALE;
			}
			rc = FS_DB_STALE;
			continue;
		}
		if (!rc)
			rc = fs_rows_replace_write(db, set_id, &d, c.whole, pack ? &rec : NULL);
		if (!rc)
			rc = fs_rows_journal_add_prepared(db, set_id, user_id, kind ? kind : "extraction", label,
							  &journal, agent_run_id, NULL, NULL);
		if (!rc)
			rc = fs_rows_bump(db, set_id, new_rev);
		rc = finish(db, rc, &d, &f, err, errlen);
		if (rc) {
			/* rolled back: the staged blobs were never referred to */
			fs_blob_drop(db, rec.blob_id);
			fs_blob_drop(db, journal.blob_id);
		} else if (staged && !fs_db_sweep_later(db)) {
			/* what this replaced (the previous record, journal steps
			 * trimmed) is garbage now: deleted a chunk at a time too */
			fs_db_phase(db, "sweep");
			(void)fs_blob_sweep(db, NULL);
		}
		fs_rows_journal_entry_free(&journal);
		fs_packed_rec_free(&rec);
		fs_set_diff_free(&d);
		return rc;
	}
	ERR("the set kept changing while the result was being stored");
	return rc;
}

int fs_set_replace_edges(fs_db *db, long long set_id, long long expect_rev, long long user_id,
			 const fs_edge_list *e, const char *kind, long long agent_run_id, long long *new_rev,
			 long long *cur_rev, char *err, size_t errlen)
{
	struct replace_ctx c = {NULL, e, NULL, 1, -1, 0};
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

static int build_radius(fs_db *db, long long set_id, const fs_set_frame *f, void *vctx, fs_set_diff *d, char *err,
			size_t errlen)
{
	struct radius_ctx *c = vctx;
	if (!(c->r > 0 && c->r < 1e5)) {
		ERR("the radius must be a positive number of pixels");
		return FS_DB_INVALID;
	}
	struct rows r;
	int rc = rows_load(db, set_id, f, &r);
	if (rc)
		return rc;
	for (size_t k = 0; rc == FS_DB_OK && k < c->n; k++)
		if (!rows_shown(&r, c->tids[k])) {
			ERR("no tubercle #%d in this set", c->tids[k]);
			rc = FS_DB_INVALID;
		}
	int *want = NULL;
	if (rc == FS_DB_OK && c->n) {
		want = malloc(c->n * sizeof *want);
		if (!want)
			rc = FS_DB_ERROR;
		else {
			memcpy(want, c->tids, c->n * sizeof *want);
			qsort(want, c->n, sizeof *want, cmp_int);
		}
	}
	for (size_t i = 0; rc == FS_DB_OK && i < r.s.t.n; i++) {
		const fs_tubercle *t = &r.s.t.items[i];
		if (!r.shown[i] || (c->n && !id_in(want, c->n, t->id)) || t->radius_px == c->r)
			continue;
		fs_tubercle after = *t;
		after.radius_px = c->r;
		after.has_ellipse = 0; /* a resized tubercle is a circle of the new size */
		if (fs_tubercle_list_append(&d->before, t) || fs_tubercle_list_append(&d->after, &after))
			rc = FS_DB_ERROR;
	}
	free(want);
	rows_free(&r);
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

/* ---- Re-measure ---- */

struct remeasure_ctx {
	const fs_tubercle_list *t; /* shown coordinates, the new sizes */
	int version;
	int changed, unmeasured;
};

static int build_remeasure(fs_db *db, long long set_id, const fs_set_frame *f, void *vctx, fs_set_diff *d,
			   char *err, size_t errlen)
{
	struct remeasure_ctx *c = vctx;
	struct rows r;
	c->changed = c->unmeasured = 0; /* counted afresh when built again */
	int rc = rows_load(db, set_id, f, &r);
	if (rc)
		return rc;
	for (size_t i = 0; rc == FS_DB_OK && i < c->t->n; i++) {
		const fs_tubercle *m = &c->t->items[i];
		const fs_tubercle *cur = rows_shown(&r, m->id);
		if (!cur) {
			ERR("tubercle #%d no longer exists", m->id);
			rc = FS_DB_INVALID;
			break;
		}
		c->unmeasured += !fs_tubercle_measured(m);
		/* only the size and shape change: the centre, id and source stay
		 * exactly as stored */
		fs_tubercle after = *cur;
		after.radius_px = m->radius_px;
		after.circularity = m->circularity;
		after.fit_quality = m->fit_quality;
		after.has_ellipse = m->has_ellipse;
		after.major_axis_px = m->major_axis_px;
		after.minor_axis_px = m->minor_axis_px;
		after.eccentricity = m->eccentricity;
		after.orientation = cur->orientation;
		if (m->has_ellipse) {
			/* the orientation comes in shown coordinates */
			fs_tubercle shown = *cur, stored;
			fs_set_frame_show(f, &shown);
			shown.has_ellipse = 1;
			shown.orientation = m->orientation;
			fs_set_frame_store(f, &shown, cur, &stored);
			after.orientation = stored.orientation;
		}
		if (fs_tubercle_same(&after, cur))
			continue;
		c->changed++;
		if (fs_tubercle_list_append(&d->before, cur) || fs_tubercle_list_append(&d->after, &after))
			rc = FS_DB_ERROR;
	}
	if (rc == FS_DB_OK)
		rc = diff_version(db, set_id, c->version, d);
	if (rc == FS_DB_OK && fs_set_diff_empty(d)) {
		ERR("nothing to re-measure: the diameters are those of measurement version %d already", c->version);
		rc = FS_DB_INVALID;
	}
	rows_free(&r);
	return rc;
}

int fs_set_remeasure(fs_db *db, long long set_id, long long expect_rev, long long user_id,
		     const fs_tubercle_list *measured, int version, int *n_changed, int *n_unmeasured,
		     long long *new_rev, long long *cur_rev, char *err, size_t errlen)
{
	struct remeasure_ctx c = {measured, version, 0, 0};
	char label[96];
	snprintf(label, sizeof label, "Re-measured %zu tubercles (measurement version %d)", measured->n, version);
	int rc = edit(db, set_id, expect_rev, user_id, "remeasure", label, 0, build_remeasure, &c, new_rev, cur_rev,
		      err, errlen);
	if (n_changed)
		*n_changed = c.changed;
	if (n_unmeasured)
		*n_unmeasured = c.unmeasured;
	return rc;
}
