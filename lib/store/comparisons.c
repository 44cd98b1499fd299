/*
 * comparisons.c - saved comparisons (see comparisons.h).
 */
#include "store/comparisons.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "store/db_bind.h"

#define ERR(...) (err && errlen ? (void)snprintf(err, errlen, __VA_ARGS__) : (void)0)

void fs_comparison_free(fs_comparison *c)
{
	if (!c)
		return;
	free(c->items);
	c->items = NULL;
	c->n_sets = 0;
}

static int text_valid(const char *s, size_t min_chars, size_t max_chars, char *clean, size_t cleanlen)
{
	if (!s)
		return 0;
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n >= cleanlen)
		return 0;
	size_t chars = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f)
			return 0;
		chars += (c & 0xc0) != 0x80;
	}
	if (chars < min_chars || chars > max_chars)
		return 0;
	memcpy(clean, s, n);
	clean[n] = 0;
	return 1;
}

int fs_comparison_name_valid(const char *name, char *clean, size_t cleanlen)
{
	return text_valid(name, 1, FS_COMPARISON_NAME_MAX, clean, cleanlen);
}

int fs_comparison_label_valid(const char *label, char *clean, size_t cleanlen)
{
	return text_valid(label ? label : "", 0, FS_COMPARISON_LABEL_MAX, clean, cleanlen);
}

int fs_comparison_can_manage(const fs_comparison *c, const fs_user *u)
{
	return u && (u->is_admin || u->id == c->owner_id);
}

#define COLS "c.id, c.owner_id, u.login, c.name, c.visibility, c.created_at, c.updated_at, " \
	     "(SELECT count(*) FROM comparison_sets s WHERE s.comparison_id = c.id)"

static void read_row(sqlite3_stmt *st, void *out)
{
	fs_comparison *c = out;
	memset(c, 0, sizeof *c);
	c->id = sqlite3_column_int64(st, 0);
	c->owner_id = sqlite3_column_int64(st, 1);
	fs_db_col_text(st, 2, c->owner_login, sizeof c->owner_login);
	fs_db_col_text(st, 3, c->name, sizeof c->name);
	const unsigned char *vis = sqlite3_column_text(st, 4);
	c->shared = vis && !strcmp((const char *)vis, "shared");
	c->created_at = sqlite3_column_int64(st, 5);
	c->updated_at = sqlite3_column_int64(st, 6);
	c->n_sets = (size_t)sqlite3_column_int64(st, 7);
}

static int visible(const fs_comparison *c, const fs_user *u)
{
	return c->shared || fs_comparison_can_manage(c, u);
}

/* The row alone (no items), whoever may see it. */
static int get_row(fs_db *db, long long id, fs_comparison *out)
{
	return fs_db_row_by_id(db,
			       "SELECT " COLS " FROM comparisons c JOIN users u ON u.id = c.owner_id "
			       "WHERE c.id = ?",
			       id, read_row, out);
}

static int read_items(fs_db *db, fs_comparison *c)
{
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT set_id, label FROM comparison_sets WHERE comparison_id = ? "
					  "ORDER BY position");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, c->id);
	size_t cap = c->n_sets ? c->n_sets : 1, n = 0;
	fs_comparison_item *items = calloc(cap, sizeof *items);
	int rc = items ? SQLITE_ROW : SQLITE_NOMEM;
	while (items && (rc = fs_bind_step(&b)) == SQLITE_ROW) {
		if (n == cap) {
			fs_comparison_item *p = realloc(items, 2 * cap * sizeof *p);
			if (!p) {
				rc = SQLITE_NOMEM;
				break;
			}
			items = p;
			cap *= 2;
		}
		items[n].set_id = sqlite3_column_int64(st, 0);
		fs_db_col_text(st, 1, items[n].label, sizeof items[n].label);
		n++;
	}
	fs_db_done(st);
	if (rc != SQLITE_DONE) {
		free(items);
		return rc == SQLITE_NOMEM ? FS_DB_ERROR : fs_db_rc_from_sqlite(rc);
	}
	c->items = items;
	c->n_sets = n;
	return FS_DB_OK;
}

int fs_comparison_get(fs_db *db, long long id, const fs_user *u, fs_comparison *out)
{
	int rc = get_row(db, id, out);
	if (rc)
		return rc;
	if (!visible(out, u)) {
		memset(out, 0, sizeof *out);
		return FS_DB_NOTFOUND;
	}
	return read_items(db, out);
}

/* Each set exists, appears once, and u may see its image; labels clean. */
static int check_items(fs_db *db, const fs_user *u, const fs_comparison_item *items, size_t n, char *err,
		       size_t errlen)
{
	if (n < 1 || n > FS_COMPARISON_SETS_MAX) {
		ERR("a comparison holds 1 to %d sets", FS_COMPARISON_SETS_MAX);
		return FS_DB_INVALID;
	}
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT i.owner_id, i.visibility FROM sets s JOIN images i "
					  "ON i.id = s.image_id WHERE s.id = ?");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	for (size_t k = 0; k < n; k++) {
		char clean[sizeof items[k].label];
		if (!fs_comparison_label_valid(items[k].label, clean, sizeof clean)) {
			fs_db_done(st);
			ERR("a group label is at most %d characters, without control characters",
			    FS_COMPARISON_LABEL_MAX);
			return FS_DB_INVALID;
		}
		for (size_t j = 0; j < k; j++)
			if (items[j].set_id == items[k].set_id) {
				fs_db_done(st);
				ERR("set %lld is listed twice", items[k].set_id);
				return FS_DB_INVALID;
			}
		sqlite3_reset(st);
		fs_bind_int64(&b, 1, items[k].set_id);
		int rc = fs_bind_step(&b);
		int ok = 0;
		if (rc == SQLITE_ROW) {
			const unsigned char *vis = sqlite3_column_text(st, 1);
			ok = u->is_admin || sqlite3_column_int64(st, 0) == u->id ||
			     (vis && !strcmp((const char *)vis, "shared"));
		} else if (rc != SQLITE_DONE) {
			fs_db_done(st);
			return fs_db_rc_from_sqlite(rc);
		}
		if (!ok) {
			fs_db_done(st);
			ERR("no such set: %lld", items[k].set_id);
			return FS_DB_NOTFOUND;
		}
	}
	fs_db_done(st);
	return FS_DB_OK;
}

static int write_items(fs_db *db, long long id, const fs_comparison_item *items, size_t n)
{
	int rc = fs_db_exec_id(db, "DELETE FROM comparison_sets WHERE comparison_id = ?", id);
	if (rc)
		return rc;
	sqlite3_stmt *st = fs_db_stmt(db, "INSERT INTO comparison_sets (comparison_id, position, set_id, label) "
					  "VALUES (?, ?, ?, ?)");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	for (size_t k = 0; k < n && !rc; k++) {
		char clean[sizeof items[k].label];
		fs_comparison_label_valid(items[k].label, clean, sizeof clean);
		sqlite3_reset(st);
		fs_bind_int64(&b, 1, id);
		fs_bind_int64(&b, 2, (long long)k);
		fs_bind_int64(&b, 3, items[k].set_id);
		fs_bind_text(&b, 4, clean, -1, SQLITE_TRANSIENT);
		rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
	}
	fs_db_done(st);
	return rc;
}

static int end_tx(fs_db *db, int rc)
{
	if (rc) {
		fs_db_rollback(db);
		return rc;
	}
	return fs_db_commit(db);
}

int fs_comparison_create(fs_db *db, const fs_user *u, const char *name, int shared,
			 const fs_comparison_item *items, size_t n, long long *id, char *err, size_t errlen)
{
	char clean[FS_COMPARISON_NAME_MAX * 4 + 1];
	if (!fs_comparison_name_valid(name, clean, sizeof clean)) {
		ERR("a comparison name is 1 to %d characters, without control characters", FS_COMPARISON_NAME_MAX);
		return FS_DB_INVALID;
	}
	int rc = fs_db_begin(db);
	if (rc)
		return rc;
	rc = check_items(db, u, items, n, err, errlen);
	if (!rc) {
		sqlite3_stmt *st = fs_db_stmt(db, "INSERT INTO comparisons (owner_id, name, visibility, created_at, "
						  "updated_at) VALUES (?, ?, ?, ?, ?)");
		if (!st) {
			rc = FS_DB_ERROR;
		} else {
			long long now = (long long)time(NULL);
			fs_bind b = fs_bind_start(db, st);
			fs_bind_int64(&b, 1, u->id);
			fs_bind_text(&b, 2, clean, -1, SQLITE_TRANSIENT);
			fs_bind_text(&b, 3, shared ? "shared" : "private", -1, SQLITE_STATIC);
			fs_bind_int64(&b, 4, now);
			fs_bind_int64(&b, 5, now);
			rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
			fs_db_done(st);
			if (!rc)
				*id = sqlite3_last_insert_rowid(fs_db_handle(db));
		}
	}
	if (!rc)
		rc = write_items(db, *id, items, n);
	return end_tx(db, rc);
}

int fs_comparison_update(fs_db *db, long long id, const fs_user *u, const char *name, int shared,
			 const fs_comparison_item *items, size_t n, char *err, size_t errlen)
{
	char clean[FS_COMPARISON_NAME_MAX * 4 + 1];
	if (name && !fs_comparison_name_valid(name, clean, sizeof clean)) {
		ERR("a comparison name is 1 to %d characters, without control characters", FS_COMPARISON_NAME_MAX);
		return FS_DB_INVALID;
	}
	int rc = fs_db_begin(db);
	if (rc)
		return rc;
	fs_comparison c;
	rc = get_row(db, id, &c);
	if (!rc && !visible(&c, u))
		rc = FS_DB_NOTFOUND;
	if (!rc && !fs_comparison_can_manage(&c, u))
		rc = FS_DB_FORBIDDEN;
	if (!rc && items)
		rc = check_items(db, u, items, n, err, errlen);
	if (!rc) {
		sqlite3_stmt *st = fs_db_stmt(db, "UPDATE comparisons SET name = coalesce(?2, name), "
						  "visibility = CASE WHEN ?3 < 0 THEN visibility WHEN ?3 = 1 THEN "
						  "'shared' ELSE 'private' END, updated_at = ?4 WHERE id = ?1");
		if (!st) {
			rc = FS_DB_ERROR;
		} else {
			fs_bind b = fs_bind_start(db, st);
			fs_bind_int64(&b, 1, id);
			if (name)
				fs_bind_text(&b, 2, clean, -1, SQLITE_TRANSIENT);
			fs_bind_int(&b, 3, shared < 0 ? -1 : !!shared);
			fs_bind_int64(&b, 4, (long long)time(NULL));
			rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
			fs_db_done(st);
		}
	}
	if (!rc && items)
		rc = write_items(db, id, items, n);
	return end_tx(db, rc);
}

int fs_comparison_delete(fs_db *db, long long id, const fs_user *u)
{
	fs_comparison c;
	int rc = get_row(db, id, &c);
	if (!rc && !visible(&c, u))
		return FS_DB_NOTFOUND;
	if (!rc && !fs_comparison_can_manage(&c, u))
		return FS_DB_FORBIDDEN;
	return rc ? rc : fs_db_exec_id(db, "DELETE FROM comparisons WHERE id = ?", id);
}

int fs_comparison_list(fs_db *db, const fs_user *u, fs_comparison **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT " COLS " FROM comparisons c JOIN users u ON u.id = c.owner_id "
					  "WHERE ?1 OR c.owner_id = ?2 OR c.visibility = 'shared' "
					  "ORDER BY c.owner_id != ?2, c.name COLLATE NOCASE, c.id");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int(&b, 1, u->is_admin ? 1 : 0);
	fs_bind_int64(&b, 2, u->id);
	size_t cap = 0;
	fs_comparison *list = NULL;
	int rc;
	while ((rc = fs_bind_step(&b)) == SQLITE_ROW) {
		if (*n == cap) {
			size_t nc = cap ? cap * 2 : 16;
			fs_comparison *p = realloc(list, nc * sizeof *p);
			if (!p) {
				rc = SQLITE_NOMEM;
				break;
			}
			list = p;
			cap = nc;
		}
		read_row(st, &list[(*n)++]);
	}
	fs_db_done(st);
	if (rc != SQLITE_DONE) {
		free(list);
		*n = 0;
		return rc == SQLITE_NOMEM ? FS_DB_ERROR : fs_db_rc_from_sqlite(rc);
	}
	*out = list;
	return FS_DB_OK;
}

int fs_compare_first_sets_of_owner(fs_db *db, long long owner_id, long long **ids, size_t *n)
{
	*ids = NULL;
	*n = 0;
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT (SELECT s.id FROM sets s WHERE s.image_id = i.id "
					  "ORDER BY s.position, s.id LIMIT 1) FROM images i WHERE i.owner_id = ? "
					  "ORDER BY i.created_at, i.id");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, owner_id);
	size_t cap = 0;
	long long *list = NULL;
	int rc;
	while ((rc = fs_bind_step(&b)) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) == SQLITE_NULL)
			continue; /* an image without sets */
		if (*n == cap) {
			size_t nc = cap ? cap * 2 : 64;
			long long *p = realloc(list, nc * sizeof *p);
			if (!p) {
				rc = SQLITE_NOMEM;
				break;
			}
			list = p;
			cap = nc;
		}
		list[(*n)++] = sqlite3_column_int64(st, 0);
	}
	fs_db_done(st);
	if (rc != SQLITE_DONE) {
		free(list);
		*n = 0;
		return rc == SQLITE_NOMEM ? FS_DB_ERROR : fs_db_rc_from_sqlite(rc);
	}
	*ids = list;
	return FS_DB_OK;
}

int fs_compare_candidates(fs_db *db, const fs_user *u, const char *q, long long image_id, int mine,
			  int first_only, int limit, fs_compare_candidate **out, size_t *n, int *more)
{
	*out = NULL;
	*n = 0;
	*more = 0;
	if (limit < 1 || limit > FS_COMPARISON_SETS_MAX)
		limit = FS_COMPARISON_SETS_MAX;
	/* instr on lower() rather than LIKE: a % or _ in q is then plain text */
	sqlite3_stmt *st = fs_db_stmt(
		db, "SELECT s.id, s.image_id, s.name, i.original_name, u.login, "
		    "(SELECT count(*) FROM tubercles t WHERE t.set_id = s.id) + "
		    "coalesce((SELECT n_tubercles FROM set_packed p WHERE p.set_id = s.id), 0), "
		    "s.position = (SELECT min(position) FROM sets f WHERE f.image_id = s.image_id), "
		    "coalesce(i.um_per_px, 0) "
		    "FROM sets s JOIN images i ON i.id = s.image_id JOIN users u ON u.id = i.owner_id "
		    "WHERE (?1 OR i.owner_id = ?2 OR i.visibility = 'shared') "
		    "AND (?3 = '' OR instr(lower(i.original_name), lower(?3)) OR instr(lower(s.name), lower(?3))) "
		    "AND (?4 = 0 OR i.id = ?4) AND (?5 = 0 OR i.owner_id = ?2) "
		    "AND (?6 = 0 OR s.position = (SELECT min(position) FROM sets f WHERE f.image_id = s.image_id)) "
		    "ORDER BY i.created_at DESC, i.id DESC, s.position LIMIT ?7");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int(&b, 1, u->is_admin ? 1 : 0);
	fs_bind_int64(&b, 2, u->id);
	fs_bind_text(&b, 3, q ? q : "", -1, SQLITE_TRANSIENT);
	fs_bind_int64(&b, 4, image_id);
	fs_bind_int(&b, 5, mine ? 1 : 0);
	fs_bind_int(&b, 6, first_only ? 1 : 0);
	fs_bind_int(&b, 7, limit + 1);
	fs_compare_candidate *list = calloc((size_t)limit, sizeof *list);
	int rc = list ? SQLITE_ROW : SQLITE_NOMEM;
	while (list && (rc = fs_bind_step(&b)) == SQLITE_ROW) {
		if (*n == (size_t)limit) {
			*more = 1;
			rc = SQLITE_DONE;
			break;
		}
		fs_compare_candidate *c = &list[(*n)++];
		c->set_id = sqlite3_column_int64(st, 0);
		c->image_id = sqlite3_column_int64(st, 1);
		fs_db_col_text(st, 2, c->set_name, sizeof c->set_name);
		fs_db_col_text(st, 3, c->image_name, sizeof c->image_name);
		fs_db_col_text(st, 4, c->owner_login, sizeof c->owner_login);
		c->n_tubercles = sqlite3_column_int(st, 5);
		c->first = sqlite3_column_int(st, 6);
		c->um_per_px = sqlite3_column_double(st, 7);
	}
	fs_db_done(st);
	if (rc != SQLITE_DONE) {
		free(list);
		*n = 0;
		return rc == SQLITE_NOMEM ? FS_DB_ERROR : fs_db_rc_from_sqlite(rc);
	}
	*out = list;
	return FS_DB_OK;
}
