/*
 * set_undo.c - undo and redo of each user's own steps, undo of one step
 * from the journal, the journal listing, Save (a checkpoint summed up by
 * net effect), Revert, and the changes that reach every set of an image
 * (its transform steps, its calibration). See sets_store.h for the
 * journal's rules.
 *
 * Every undo, redo, journal undo and revert is applied as a change of its
 * own, fitted to the set as it is (fs_set_diff_fit) and journaled, so the
 * journal replays to the current rows and a step's state says whether its
 * effect is in the set.
 */
#include "store/sets_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/set_frame.h"
#include "store/set_halves.h"
#include "store/set_rows.h"
#include "store/db_bind.h"

#define ERR(...) snprintf(err, errlen, __VA_ARGS__)

/* One journal row. */
typedef struct op {
	long long id, user_id, agent_run_id;
	int state;
	char kind[32], label[160], user[130];
	char *refs; /* malloc'ed JSON array or NULL */
	fs_set_diff d;
	int have_diff;
} op;

static void op_free(op *o)
{
	free(o->refs);
	if (o->have_diff)
		fs_set_diff_free(&o->d);
	memset(o, 0, sizeof *o);
}

#define OP_COLS                                                                                              \
	"o.id, coalesce(o.user_id, 0), coalesce(o.agent_run_id, 0), o.undone, o.kind, o.label, "            \
	"coalesce(u.display_name, ''), o.refs, o.diff, o.diff_blob "
#define OP_FROM "FROM set_ops o LEFT JOIN users u ON u.id = o.user_id "

/* Reads the row st is on (OP_COLS first); the diff only when want_diff. */
static int op_read(sqlite3_stmt *st, int col0, op *o, int want_diff)
{
	memset(o, 0, sizeof *o);
	o->id = sqlite3_column_int64(st, col0);
	o->user_id = sqlite3_column_int64(st, col0 + 1);
	o->agent_run_id = sqlite3_column_int64(st, col0 + 2);
	o->state = sqlite3_column_int(st, col0 + 3);
	fs_db_col_text(st, col0 + 4, o->kind, sizeof o->kind);
	fs_db_col_text(st, col0 + 5, o->label, sizeof o->label);
	fs_db_col_text(st, col0 + 6, o->user, sizeof o->user);
	const char *refs = (const char *)sqlite3_column_text(st, col0 + 7);
	if (refs && !(o->refs = strdup(refs)))
		return FS_DB_ERROR;
	if (want_diff) {
		char *owned;
		const char *text = fs_rows_diff_column(st, col0 + 8, &owned);
		int bad = !text || fs_set_diff_from_json(text, &o->d);
		free(owned);
		if (bad) {
			free(o->refs);
			o->refs = NULL;
			return FS_DB_ERROR;
		}
		o->have_diff = 1;
	}
	return FS_DB_OK;
}

/* The first row of a query bound with set_id (?1) and x (?2). */
static int op_query(fs_db *db, const char *sql, long long set_id, long long x, op *o)
{
	sqlite3_stmt *st = fs_db_stmt(db, sql);
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, set_id);
	fs_bind_int64(&b, 2, x);
	int rc = fs_bind_step(&b);
	if (rc == SQLITE_ROW)
		rc = op_read(st, 0, o, 1);
	else
		rc = fs_db_row_rc(rc);
	fs_db_done(st);
	return rc;
}

/* Does the diff touch tubercle tid? */
static int touches(const fs_set_diff *d, int tid)
{
	const fs_tubercle_list *l[3] = {&d->added, &d->removed, &d->before};
	for (int k = 0; k < 3; k++)
		for (size_t i = 0; i < l[k]->n; i++)
			if (l[k]->items[i].id == tid)
				return 1;
	return 0;
}

/* Appends to why who changed the tubercle named in it since op after:
 * " (by bea: Moved tubercle #2 to (80, 30))". */
static void who_changed(fs_db *db, long long set_id, long long after, char *why, size_t whylen)
{
	const char *h = strchr(why, '#');
	int tid = 0;
	if (!h || sscanf(h + 1, "%d", &tid) != 1)
		return;
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT " OP_COLS OP_FROM "WHERE o.set_id = ? AND o.id > ? ORDER BY o.id DESC");
	if (!st)
		return;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, set_id);
	fs_bind_int64(&b, 2, after);
	while (fs_bind_step(&b) == SQLITE_ROW) {
		op o;
		if (op_read(st, 0, &o, 1))
			break;
		int hit = touches(&o.d, tid);
		if (hit) {
			size_t n = strlen(why);
			snprintf(why + n, whylen - n, " (by %s: %s)", o.user[0] ? o.user : "an agent or tool", o.label);
		}
		op_free(&o);
		if (hit)
			break;
	}
	fs_db_done(st);
}

/* Fits d (stored frame) to the rows as they are at the caller's snapshot;
 * why gets the reason when it does not apply (FS_DB_INVALID). */
static int fit_to_rows(fs_db *db, long long set_id, fs_set_diff *d, char *why, size_t whylen)
{
	fs_set_state now;
	int rc = fs_rows_state(db, set_id, &now);
	if (rc)
		return rc;
	if (fs_set_diff_fit(&now, d, why, whylen))
		rc = FS_DB_INVALID;
	fs_set_state_free(&now);
	return rc;
}

/* Ends the transaction of an undo-like change. */
static int finish(fs_db *db, int rc, long long set_id, const fs_set_diff *d, int full, char *err, size_t errlen)
{
	if (rc) {
		fs_db_rollback(db);
		if (rc == FS_DB_ERROR && !*err)
			ERR("%s", fs_db_errmsg(db));
		return rc;
	}
	fs_set_frame f;
	rc = fs_set_frame_load(db, set_id, &f);
	if (!rc)
		rc = fs_db_commit(db);
	else
		fs_db_rollback(db);
	if (rc)
		ERR("could not commit: %s", fs_db_errmsg(db));
	else
		fs_rows_remember(d, &f, full);
	return rc;
}

/* ---- the two halves of an undo-like change ---- */

/*
 * Undo, redo, a journal step's undo and Revert each write a change fitted
 * to the set as it is, and on a large set that is every tubercle of an
 * extraction twice over: reading the step's diff, fitting it, merging it
 * into the rows and making the journal entry take seconds. SQLite has one
 * writer (issue 15, "one writer, short writes"), so all of that is done at
 * a snapshot, in a read transaction that blocks nobody: prepare() reads
 * the journal and the rows and makes the fitted change, its label and
 * refs; fs_rows_prepare makes the new record and the journal entry. The
 * write transaction then checks that the set's revision is still the
 * snapshot's (every change of the set's rows or journal bumps it, so both
 * are as prepared against) and only stores; after() sets the states of
 * the steps acted on. When the set has moved on meanwhile: with a
 * revision to expect, that is a conflict (FS_DB_STALE, as it would have
 * been had the request come a moment later: never a lost update);
 * without, the preparation is made again, the last time under the lock,
 * so a change that keeps being overtaken still lands.
 */
typedef struct undo_like undo_like;
struct undo_like {
	const char *kind; /* of the journal entry written */
	int full;         /* the response reloads the whole set (Revert) */
	long long op_id;  /* undo_op: the journal entry to undo */
	/* made by prepare, emptied by undo_like_clear */
	fs_set_diff d; /* the change, stored frame, fitted to the snapshot */
	char label[200];
	char cannot[300]; /* "cannot undo your step \"...\"": the start of a refusal */
	char *refs;       /* JSON array of the entries acted on (malloc'ed) */
	op o, t;
	int (*prepare)(fs_db *db, long long set_id, long long user_id, undo_like *u, char *err, size_t errlen);
	int (*after)(fs_db *db, long long set_id, undo_like *u);
};

static void undo_like_clear(undo_like *u)
{
	fs_set_diff_free(&u->d);
	free(u->refs);
	u->refs = NULL;
	op_free(&u->o);
	op_free(&u->t);
	u->label[0] = u->cannot[0] = 0;
}

/* Takes the diff of o over as the change, inverted. */
static void take_inverse(undo_like *u, op *o)
{
	u->d = o->d;
	memset(&o->d, 0, sizeof o->d);
	o->have_diff = 0;
	fs_set_diff_invert(&u->d);
}

/* Fits the change u->d to the set's rows as they are; a refusal says what
 * stands in the way and, when since > 0, who changed it after that entry. */
static int fit_change(fs_db *db, long long set_id, undo_like *u, long long since, char *err, size_t errlen)
{
	char why[300] = "";
	int rc = fit_to_rows(db, set_id, &u->d, why, sizeof why);
	if (rc == FS_DB_INVALID) {
		if (since > 0)
			who_changed(db, set_id, since, why, sizeof why);
		ERR("%s: %s", u->cannot, why);
	}
	return rc;
}

static char *refs_one(long long id)
{
	char buf[32];
	snprintf(buf, sizeof buf, "[%lld]", id);
	return strdup(buf);
}

/* The change takes back step u->o (its diff inverted), names step ref_id
 * as the one it acts on, and is fitted to the rows (fit_change, since). */
static int take_back(fs_db *db, long long set_id, undo_like *u, long long ref_id, long long since, char *err,
		     size_t errlen)
{
	if (!(u->refs = refs_one(ref_id)))
		return FS_DB_ERROR;
	take_inverse(u, &u->o);
	return fit_change(db, set_id, u, since, err, errlen);
}

/* Marks step x with state and, when x itself took other steps back (a
 * revert, an undone step), those with refs_state. */
static int mark_step(fs_db *db, long long set_id, const op *x, int state, int refs_state)
{
	int rc = fs_rows_op_state(db, set_id, x->id, state);
	if (!rc && fs_rows_reverts_refs(x->kind))
		rc = fs_rows_refs_state(db, set_id, x->refs, refs_state);
	return rc;
}

/* What an undo-like change carries between its halves (set_halves.h). */
struct undo_run {
	undo_like *u;
	long long user_id;
	long long *new_rev;
	fs_rows_prepared p;
};

static int undo_prepare(fs_db *db, long long set_id, void *ctx, char *err, size_t errlen)
{
	struct undo_run *r = ctx;
	char why[300] = "";
	int rc = r->u->prepare(db, set_id, r->user_id, r->u, err, errlen);
	if (!rc) {
		rc = fs_rows_prepare(db, set_id, &r->u->d, &r->p, why, sizeof why);
		if (rc == FS_DB_INVALID)
			ERR("%s: %s", r->u->cannot, why);
	}
	return rc;
}

static int undo_write(fs_db *db, long long set_id, int rc, void *ctx, char *err, size_t errlen)
{
	struct undo_run *r = ctx;
	undo_like *u = r->u;
	char why[300] = "";
	if (!rc) {
		rc = fs_rows_write_prepared(db, set_id, &u->d, &r->p, why, sizeof why);
		if (rc == FS_DB_INVALID)
			ERR("%s: %s", u->cannot, why);
	}
	if (!rc)
		rc = fs_rows_journal_add_prepared(db, set_id, r->user_id, u->kind, u->label, &r->p.journal, 0, u->refs,
						  NULL);
	if (!rc)
		rc = fs_rows_bump(db, set_id, r->new_rev);
	if (!rc && u->after)
		rc = u->after(db, set_id, u);
	return finish(db, rc, set_id, &u->d, u->full, err, errlen);
}

/* Nothing of a preparation outlives it: overtaken, it is made again. */
static void undo_discard(void *ctx)
{
	struct undo_run *r = ctx;
	fs_rows_prepared_free(&r->p);
	undo_like_clear(r->u);
}

/* Runs the change u describes (prepared at a snapshot, written under the
 * lock: set_halves.c) and empties u. */
static int run_undo_like(fs_db *db, long long set_id, long long expect_rev, long long user_id, undo_like *u,
			 long long *new_rev, long long *cur_rev, char *err, size_t errlen)
{
	static const fs_set_halves halves = {undo_prepare, undo_write, undo_discard, "change"};
	struct undo_run r = {.u = u, .user_id = user_id, .new_rev = new_rev};
	int rc = fs_set_in_halves(db, set_id, expect_rev, cur_rev, &halves, &r, err, errlen);
	undo_like_clear(u);
	return rc;
}

/* ---- undo and redo of one's own steps ---- */

static int prepare_undo(fs_db *db, long long set_id, long long user_id, undo_like *u, char *err, size_t errlen)
{
	int rc = op_query(db, "SELECT " OP_COLS OP_FROM "WHERE o.set_id = ?1 AND o.user_id = ?2 AND o.undone = 0 "
			      "AND o.kind NOT IN ('undo', 'redo') ORDER BY o.id DESC LIMIT 1",
			  set_id, user_id, &u->o);
	if (rc == FS_DB_NOTFOUND) {
		ERR("nothing to undo: you have no step of your own in this set to take back");
		return FS_DB_INVALID;
	}
	if (rc)
		return rc;
	snprintf(u->label, sizeof u->label, "Undo: %s", u->o.label);
	snprintf(u->cannot, sizeof u->cannot, "cannot undo your step \"%s\"", u->o.label);
	return take_back(db, set_id, u, u->o.id, u->o.id, err, errlen);
}

static int after_undo(fs_db *db, long long set_id, undo_like *u)
{
	return mark_step(db, set_id, &u->o, FS_OP_UNDONE, FS_OP_DONE);
}

int fs_set_undo(fs_db *db, long long set_id, long long expect_rev, long long user_id, long long *new_rev,
		long long *cur_rev, char *err, size_t errlen)
{
	undo_like u = {.kind = "undo", .prepare = prepare_undo, .after = after_undo};
	return run_undo_like(db, set_id, expect_rev, user_id, &u, new_rev, cur_rev, err, errlen);
}

static int prepare_redo(fs_db *db, long long set_id, long long user_id, undo_like *u, char *err, size_t errlen)
{
	/* the step this user undid last that is still undone, by its undo entry */
	int rc = op_query(db, "SELECT " OP_COLS OP_FROM "JOIN set_ops t ON t.set_id = o.set_id "
			      "AND t.id = json_extract(o.refs, '$[0]') WHERE o.set_id = ?1 AND o.user_id = ?2 "
			      "AND o.kind = 'undo' AND t.undone = 1 ORDER BY o.id DESC LIMIT 1",
			  set_id, user_id, &u->o);
	if (rc == FS_DB_NOTFOUND) {
		ERR("nothing to redo");
		return FS_DB_INVALID;
	}
	long long target = 0;
	if (!rc && (!u->o.refs || sscanf(u->o.refs, "[%lld", &target) != 1))
		rc = FS_DB_ERROR;
	if (!rc)
		rc = op_query(db, "SELECT " OP_COLS OP_FROM "WHERE o.set_id = ?1 AND o.id = ?2", set_id, target, &u->t);
	if (rc)
		return rc;
	snprintf(u->label, sizeof u->label, "Redo: %s", u->t.label);
	snprintf(u->cannot, sizeof u->cannot, "cannot redo \"%s\"", u->t.label);
	/* exactly what the undo did, backwards */
	return take_back(db, set_id, u, u->t.id, u->o.id, err, errlen);
}

static int after_redo(fs_db *db, long long set_id, undo_like *u)
{
	return mark_step(db, set_id, &u->t, FS_OP_DONE, FS_OP_REVERTED);
}

int fs_set_redo(fs_db *db, long long set_id, long long expect_rev, long long user_id, long long *new_rev,
		long long *cur_rev, char *err, size_t errlen)
{
	undo_like u = {.kind = "redo", .prepare = prepare_redo, .after = after_redo};
	return run_undo_like(db, set_id, expect_rev, user_id, &u, new_rev, cur_rev, err, errlen);
}

static int exists_where(fs_db *db, const char *sql, long long set_id, long long user_id, int *yes)
{
	sqlite3_stmt *st = fs_db_stmt(db, sql);
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, set_id);
	fs_bind_int64(&b, 2, user_id);
	int rc = fs_bind_step(&b);
	*yes = rc == SQLITE_ROW;
	fs_db_done(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? FS_DB_OK : fs_db_rc_from_sqlite(rc);
}

int fs_set_user_stacks(fs_db *db, long long set_id, long long user_id, int *can_undo, int *can_redo)
{
	int rc = exists_where(db, "SELECT 1 FROM set_ops WHERE set_id = ?1 AND user_id = ?2 AND undone = 0 "
				  "AND kind NOT IN ('undo', 'redo') LIMIT 1", set_id, user_id, can_undo);
	if (!rc)
		rc = exists_where(db, "SELECT 1 FROM set_ops WHERE set_id = ?1 AND user_id = ?2 AND undone = 1 LIMIT 1",
				  set_id, user_id, can_redo);
	return rc;
}

/* ---- one step from the journal ---- */

/* Why o cannot be undone from the journal whatever the set holds, or NULL. */
static const char *never_undoable(const op *o)
{
	if (o->state == FS_OP_UNDONE)
		return "already undone (its author can redo it)";
	if (o->state != FS_OP_DONE)
		return "already undone";
	if (fs_rows_bookkeeping(o->kind))
		return "an undo or redo: take it back with Undo or Redo";
	return NULL;
}

static int prepare_undo_op(fs_db *db, long long set_id, long long user_id, undo_like *u, char *err, size_t errlen)
{
	(void)user_id;
	int rc = op_query(db, "SELECT " OP_COLS OP_FROM "WHERE o.set_id = ?1 AND o.id = ?2", set_id, u->op_id, &u->o);
	if (rc == FS_DB_NOTFOUND)
		ERR("no such step in this set's journal");
	if (rc)
		return rc;
	const char *never = never_undoable(&u->o);
	if (never) {
		ERR("cannot undo this step: %s", never);
		return FS_DB_INVALID;
	}
	snprintf(u->label, sizeof u->label, "Undid: %s", u->o.label);
	snprintf(u->cannot, sizeof u->cannot, "cannot undo this step any more");
	return take_back(db, set_id, u, u->o.id, 0, err, errlen);
}

static int after_undo_op(fs_db *db, long long set_id, undo_like *u)
{
	return mark_step(db, set_id, &u->o, FS_OP_REVERTED, FS_OP_DONE);
}

int fs_set_undo_op(fs_db *db, long long set_id, long long op_id, long long user_id, long long *new_rev,
		   char *err, size_t errlen)
{
	undo_like u = {.kind = "undo_step", .op_id = op_id, .prepare = prepare_undo_op, .after = after_undo_op};
	return run_undo_like(db, set_id, -1, user_id, &u, new_rev, NULL, err, errlen);
}

static void iso(long long t, char *out, size_t n)
{
	time_t s = (time_t)t;
	struct tm tm;
	gmtime_r(&s, &tm);
	strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static cJSON *journal(fs_db *db, long long set_id, int limit, int check, long long viewer)
{
	fs_set_state now;
	memset(&now, 0, sizeof now);
	if (check && fs_rows_state(db, set_id, &now))
		return NULL;
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT o.at, " OP_COLS OP_FROM "WHERE o.set_id = ? ORDER BY o.id DESC LIMIT ?");
	if (!st) {
		fs_set_state_free(&now);
		return NULL;
	}
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, set_id);
	fs_bind_int(&b, 2, limit > 0 ? limit : FS_UNDO_KEEP);
	cJSON *a = cJSON_CreateArray();
	int rc;
	while ((rc = fs_bind_step(&b)) == SQLITE_ROW) {
		op x;
		/* the diff is read only where the answer needs it */
		int state = sqlite3_column_int(st, 4);
		char kind[32];
		fs_db_col_text(st, 5, kind, sizeof kind);
		int need = check && state == FS_OP_DONE && !fs_rows_bookkeeping(kind);
		if (op_read(st, 1, &x, need)) {
			rc = SQLITE_NOMEM;
			break;
		}
		cJSON *o = cJSON_CreateObject();
		char ts[32];
		iso(sqlite3_column_int64(st, 0), ts, sizeof ts);
		cJSON_AddNumberToObject(o, "id", (double)x.id);
		cJSON_AddStringToObject(o, "timestamp", ts);
		cJSON_AddStringToObject(o, "user", x.user);
		if (x.user_id)
			cJSON_AddNumberToObject(o, "user_id", (double)x.user_id);
		else
			cJSON_AddNullToObject(o, "user_id");
		cJSON_AddStringToObject(o, "kind", x.kind);
		cJSON_AddStringToObject(o, "label", x.label);
		cJSON_AddStringToObject(o, "state", x.state == FS_OP_DONE ? "done" : x.state == FS_OP_UNDONE ? "undone"
											       : "reverted");
		if (x.agent_run_id)
			cJSON_AddNumberToObject(o, "agent_run_id", (double)x.agent_run_id);
		else
			cJSON_AddNullToObject(o, "agent_run_id");
		if (check) {
			char why[300] = "";
			const char *never = never_undoable(&x);
			if (never) {
				snprintf(why, sizeof why, "%s", never);
			} else {
				fs_set_diff_invert(&x.d);
				fs_set_diff_fit(&now, &x.d, why, sizeof why);
			}
			cJSON_AddBoolToObject(o, "mine", viewer && x.user_id == viewer);
			cJSON_AddBoolToObject(o, "can_undo", !why[0]);
			if (why[0])
				cJSON_AddStringToObject(o, "why", why);
			else
				cJSON_AddNullToObject(o, "why");
		}
		op_free(&x);
		cJSON_AddItemToArray(a, o);
	}
	fs_db_done(st);
	fs_set_state_free(&now);
	if (rc != SQLITE_DONE) {
		cJSON_Delete(a);
		return NULL;
	}
	return a;
}

cJSON *fs_set_journal(fs_db *db, long long set_id, int limit)
{
	return journal(db, set_id, limit, 0, 0);
}

cJSON *fs_set_journal_for(fs_db *db, long long set_id, int limit, long long viewer_id)
{
	return journal(db, set_id, limit, 1, viewer_id);
}

/* ---- Save and Revert ---- */

/* The steps since the last checkpoint, folded into net (from the step
 * after `from` on, when from > 0). */
static int fold_since_save(fs_db *db, long long set_id, long long from, fs_set_net *net)
{
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT diff, diff_blob FROM set_ops WHERE set_id = ? AND checkpointed = 0 AND id > ? "
					  "ORDER BY id");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, set_id);
	fs_bind_int64(&b, 2, from);
	int rc;
	while ((rc = fs_bind_step(&b)) == SQLITE_ROW) {
		fs_set_diff d;
		char *owned;
		const char *text = fs_rows_diff_column(st, 0, &owned);
		int unreadable = !text || fs_set_diff_from_json(text, &d);
		free(owned);
		if (unreadable) {
			rc = SQLITE_CORRUPT;
			break;
		}
		int bad = fs_set_net_add(net, &d);
		fs_set_diff_free(&d);
		if (bad) {
			rc = SQLITE_NOMEM;
			break;
		}
	}
	fs_db_done(st);
	return rc == SQLITE_DONE ? FS_DB_OK : fs_db_rc_from_sqlite(rc);
}

/* "+3 tubercles, -1 tubercle, 2 moved, +4 connections" (nothing: "") */
static void counts_text(const fs_set_net_counts *c, char *out, size_t n)
{
	struct {
		const char *fmt;
		int v;
		const char *one, *many;
	} parts[] = {
		{"+%d %s", c->added, "tubercle", "tubercles"},
		{"-%d %s", c->deleted, "tubercle", "tubercles"},
		{"%d %s", c->moved, "moved", "moved"},
		{"%d %s", c->resized, "resized", "resized"},
		{"+%d %s", c->edges_added, "connection", "connections"},
		{"-%d %s", c->edges_deleted, "connection", "connections"},
	};
	out[0] = 0;
	size_t k = 0;
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
		if (!parts[i].v)
			continue;
		if (k && k < n)
			k += (size_t)snprintf(out + k, n - k, ", ");
		if (k < n)
			k += (size_t)snprintf(out + k, n - k, parts[i].fmt, parts[i].v,
					      parts[i].v == 1 ? parts[i].one : parts[i].many);
	}
}

/* The steps that replaced the set since the last save, grouped. */
#define MAX_GROUPS 16
struct group {
	char kind[32];
	long long run;
	int count;
};

static void group_name(const struct group *g, char *out, size_t n)
{
	if (g->run) {
		snprintf(out, n, "agent run %lld", g->run);
	} else if (!strcmp(g->kind, "extraction")) {
		if (g->count == 1)
			snprintf(out, n, "extraction");
		else
			snprintf(out, n, "%d extractions", g->count);
	} else if (!strcmp(g->kind, "optimize_step")) {
		if (g->count == 1)
			snprintf(out, n, "optimiser step");
		else
			snprintf(out, n, "%d optimiser steps", g->count);
	} else {
		char k[32];
		snprintf(k, sizeof k, "%s", g->kind);
		for (char *p = k; *p; p++)
			if (*p == '_')
				*p = ' ';
		if (g->count == 1)
			snprintf(out, n, "%s", k);
		else
			snprintf(out, n, "%d × %s", g->count, k);
	}
}

/* Finds the steps in effect that replaced the set since the last save. */
static int replacing_steps(fs_db *db, long long set_id, struct group *g, int *ng, long long *last)
{
	*ng = 0;
	*last = 0;
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT id, kind, coalesce(agent_run_id, 0), diff, diff_blob FROM set_ops "
					  "WHERE set_id = ? AND checkpointed = 0 AND undone = 0 "
					  "AND kind NOT IN ('undo', 'redo', 'undo_step', 'revert') ORDER BY id");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, set_id);
	int rc;
	while ((rc = fs_bind_step(&b)) == SQLITE_ROW) {
		/* a cheap look for the flag before parsing the whole diff */
		char *owned;
		const char *dj = fs_rows_diff_column(st, 3, &owned);
		const char *flag = dj ? strstr(dj, "\"all\":1") : NULL;
		free(owned);
		if (!flag)
			continue;
		char kind[32];
		fs_db_col_text(st, 1, kind, sizeof kind);
		long long run = sqlite3_column_int64(st, 2);
		*last = sqlite3_column_int64(st, 0);
		int found = -1;
		for (int i = 0; i < *ng; i++)
			if (run ? g[i].run == run : !g[i].run && !strcmp(g[i].kind, kind))
				found = i;
		if (found < 0 && *ng < MAX_GROUPS) {
			found = (*ng)++;
			memset(&g[found], 0, sizeof g[found]);
			snprintf(g[found].kind, sizeof g[found].kind, "%s", kind);
			g[found].run = run;
		}
		if (found >= 0)
			g[found].count++;
	}
	fs_db_done(st);
	return rc == SQLITE_DONE ? FS_DB_OK : fs_db_rc_from_sqlite(rc);
}

/* sql: a count(*) with the set id as its parameter (always one row) */
static int count_rows(fs_db *db, const char *sql, long long set_id, int *n)
{
	long long v;
	int rc = fs_db_int_by_id(db, sql, set_id, &v);
	*n = (int)v;
	return rc;
}

/* The manual_edit event of a Save (NULL when nothing changed since the last). */
static int save_event(fs_db *db, long long set_id, double hexagonalness, const fs_set_info *info, cJSON **out)
{
	*out = NULL;
	int n_ops = 0;
	int rc = count_rows(db, "SELECT count(*) FROM set_ops WHERE set_id = ? AND checkpointed = 0", set_id, &n_ops);
	if (rc || !n_ops)
		return rc;
	fs_set_net *all = fs_set_net_new(), *tail = fs_set_net_new();
	struct group g[MAX_GROUPS];
	int ng = 0, t_now = 0, e_now = 0;
	long long last = 0;
	if (!all || !tail)
		rc = FS_DB_ERROR;
	if (!rc)
		rc = fold_since_save(db, set_id, 0, all);
	if (!rc)
		rc = replacing_steps(db, set_id, g, &ng, &last);
	if (!rc && ng)
		rc = fold_since_save(db, set_id, last, tail);
	int packed = 0;
	if (!rc)
		rc = fs_rows_count(db, set_id, NULL, &t_now, &e_now, &packed);
	if (!rc && !packed)
		rc = count_rows(db, "SELECT count(*) FROM tubercles WHERE set_id = ?", set_id, &t_now);
	if (!rc && !packed)
		rc = count_rows(db, "SELECT count(*) FROM edges WHERE set_id = ?", set_id, &e_now);
	if (rc) {
		fs_set_net_free(all);
		fs_set_net_free(tail);
		return rc;
	}
	fs_set_net_counts c, ct;
	fs_set_net_count(all, &c);
	fs_set_net_count(tail, &ct);
	fs_set_net_free(all);
	fs_set_net_free(tail);
	int t_before = t_now - c.added + c.deleted, e_before = e_now - c.edges_added + c.edges_deleted;
	char summary[600], net[200];
	if (ng) {
		/* the set was replaced: name what replaced it, then the counts */
		size_t k = 0;
		summary[0] = 0;
		for (int i = 0; i < ng && k < sizeof summary; i++) {
			char name[64];
			group_name(&g[i], name, sizeof name);
			k += (size_t)snprintf(summary + k, sizeof summary - k, "%s%s", i ? ", " : "", name);
		}
		if (k < sizeof summary)
			k += (size_t)snprintf(summary + k, sizeof summary - k, ": %d → %d tubercles, %d → %d connections",
					      t_before, t_now, e_before, e_now);
		counts_text(&ct, net, sizeof net);
		if (net[0] && k < sizeof summary)
			snprintf(summary + k, sizeof summary - k, "; then %s", net);
	} else {
		counts_text(&c, net, sizeof net);
		snprintf(summary, sizeof summary, "%s", net[0] ? net : "no net change");
	}
	cJSON *h = cJSON_CreateObject();
	cJSON_AddStringToObject(h, "summary", summary);
	cJSON *det = cJSON_AddObjectToObject(h, "details");
	cJSON_AddNumberToObject(det, "added_tubercles", c.added);
	cJSON_AddNumberToObject(det, "deleted_tubercles", c.deleted);
	cJSON_AddNumberToObject(det, "moved_tubercles", c.moved);
	cJSON_AddNumberToObject(det, "resized_tubercles", c.resized);
	cJSON_AddNumberToObject(det, "added_connections", c.edges_added);
	cJSON_AddNumberToObject(det, "deleted_connections", c.edges_deleted);
	cJSON_AddNumberToObject(det, "tubercles_before", t_before);
	cJSON_AddNumberToObject(det, "tubercles_after", t_now);
	cJSON_AddNumberToObject(det, "connections_before", e_before);
	cJSON_AddNumberToObject(det, "connections_after", e_now);
	cJSON_AddNumberToObject(det, "steps_since_save", n_ops);
	cJSON *steps = cJSON_AddArrayToObject(det, "steps");
	for (int i = 0; i < ng; i++) {
		char name[64];
		group_name(&g[i], name, sizeof name);
		cJSON *s = cJSON_CreateObject();
		cJSON_AddStringToObject(s, "kind", g[i].kind);
		cJSON_AddStringToObject(s, "name", name);
		cJSON_AddNumberToObject(s, "count", g[i].count);
		if (g[i].run)
			cJSON_AddNumberToObject(s, "agent_run_id", (double)g[i].run);
		cJSON_AddItemToArray(steps, s);
	}
	cJSON *res = cJSON_AddObjectToObject(h, "result");
	cJSON_AddNumberToObject(res, "n_tubercles", info->n_tubercles);
	cJSON_AddNumberToObject(res, "n_edges", info->n_edges);
	cJSON_AddNumberToObject(res, "hexagonalness", hexagonalness);
	*out = h;
	return FS_DB_OK;
}

/*
 * A Save sums up every step since the last one, and after an extraction
 * that is parsing diffs of every tubercle: the summary is made at a
 * snapshot, outside the write lock (issue 15), and written when the
 * revision is still the snapshot's (every step bumps it), as the undo-like
 * changes above are; the last try is made under the lock (set_halves.c).
 * What a Save carries between its halves: the summary made at the snapshot.
 */
struct save_run {
	long long user_id;
	double hexagonalness;
	long long *cur_rev;
	cJSON *h;
};

static int save_prepare(fs_db *db, long long set_id, void *ctx, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	struct save_run *r = ctx;
	fs_set_info info;
	int rc = fs_set_get_info(db, set_id, &info);
	if (!rc)
		rc = save_event(db, set_id, r->hexagonalness, &info, &r->h);
	return rc;
}

static int save_write(fs_db *db, long long set_id, int rc, void *ctx, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	struct save_run *r = ctx;
	if (!rc && r->h)
		rc = fs_rows_history_add(db, set_id, r->user_id, "manual_edit", r->h);
	if (!rc)
		rc = fs_db_exec_id(db, "UPDATE set_ops SET checkpointed = 1 WHERE set_id = ?", set_id);
	if (!rc)
		rc = fs_rows_bump(db, set_id, r->cur_rev);
	if (!rc)
		rc = fs_db_exec_id(db, "UPDATE sets SET clean_revision = revision WHERE id = ?", set_id);
	return fs_rows_end_tx(db, rc);
}

static void save_discard(void *ctx)
{
	struct save_run *r = ctx;
	cJSON_Delete(r->h);
	r->h = NULL;
}

int fs_set_checkpoint(fs_db *db, long long set_id, long long expect_rev, long long user_id, const char *user_name,
		      double hexagonalness, long long *cur_rev, char *err, size_t errlen)
{
	(void)user_name;
	static const fs_set_halves halves = {save_prepare, save_write, save_discard, "save"};
	struct save_run r = {user_id, hexagonalness, cur_rev, NULL};
	return fs_set_in_halves(db, set_id, expect_rev, cur_rev, &halves, &r, err, errlen);
}

int fs_set_mark_saved(fs_db *db, long long set_id)
{
	int rc = fs_db_begin(db);
	if (rc)
		return rc;
	rc = fs_db_exec_id(db, "UPDATE set_ops SET checkpointed = 1 WHERE set_id = ?", set_id);
	if (!rc)
		rc = fs_db_exec_id(db, "UPDATE sets SET clean_revision = revision WHERE id = ?", set_id);
	return fs_rows_end_tx(db, rc);
}

/* A JSON array of the ids a query bound with set_id returns (malloc'ed). */
static char *ids_json(fs_db *db, const char *sql, long long set_id)
{
	sqlite3_stmt *st = fs_db_stmt(db, sql);
	if (!st)
		return NULL;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, set_id);
	cJSON *a = cJSON_CreateArray();
	while (a && fs_bind_step(&b) == SQLITE_ROW)
		cJSON_AddItemToArray(a, cJSON_CreateNumber((double)sqlite3_column_int64(st, 0)));
	fs_db_done(st);
	char *s = a ? cJSON_PrintUnformatted(a) : NULL;
	cJSON_Delete(a);
	return s;
}

static int prepare_revert(fs_db *db, long long set_id, long long user_id, undo_like *u, char *err, size_t errlen)
{
	(void)user_id;
	fs_set_net *net = fs_set_net_new();
	int rc = net ? fold_since_save(db, set_id, 0, net) : FS_DB_ERROR;
	if (!rc && fs_set_net_diff(net, &u->d))
		rc = FS_DB_ERROR;
	fs_set_net_free(net);
	if (!rc && fs_set_diff_empty(&u->d)) {
		ERR("nothing changed since the last save");
		rc = FS_DB_INVALID;
	}
	/* the steps since the save that are in effect become reverted */
	if (!rc && !(u->refs = ids_json(db, "SELECT id FROM set_ops WHERE set_id = ? AND checkpointed = 0 "
					    "AND undone = 0 AND kind NOT IN ('undo', 'redo') ORDER BY id", set_id)))
		rc = FS_DB_ERROR;
	if (rc)
		return rc;
	snprintf(u->label, sizeof u->label, "Reverted to the last save");
	snprintf(u->cannot, sizeof u->cannot, "cannot revert");
	fs_set_diff_invert(&u->d);
	return fit_change(db, set_id, u, 0, err, errlen);
}

static int after_revert(fs_db *db, long long set_id, undo_like *u)
{
	int rc = fs_rows_refs_state(db, set_id, u->refs, FS_OP_REVERTED);
	if (!rc) {
		/* what could be redone since the save cannot be any more */
		sqlite3_stmt *st = fs_db_stmt(db, "UPDATE set_ops SET undone = 2 WHERE set_id = ? AND checkpointed = 0 "
						  "AND undone = 1");
		if (!st)
			return FS_DB_ERROR;
		fs_bind b = fs_bind_start(db, st);
		fs_bind_int64(&b, 1, set_id);
		rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
		fs_db_done(st);
	}
	/* the set is as saved again: no longer unsaved (after the bump) */
	if (!rc)
		rc = fs_db_exec_id(db, "UPDATE sets SET clean_revision = revision WHERE id = ?", set_id);
	return rc;
}

int fs_set_revert(fs_db *db, long long set_id, long long expect_rev, long long user_id, long long *new_rev,
		  long long *cur_rev, char *err, size_t errlen)
{
	undo_like u = {.kind = "revert", .full = 1, .prepare = prepare_revert, .after = after_revert};
	return run_undo_like(db, set_id, expect_rev, user_id, &u, new_rev, cur_rev, err, errlen);
}

/* ---- image-wide changes ---- */

static int set_ids_of_image(fs_db *db, long long image_id, long long **ids, size_t *n)
{
	*ids = NULL;
	*n = 0;
	sqlite3_stmt *st = fs_db_stmt(db, "SELECT id FROM sets WHERE image_id = ? ORDER BY id");
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, image_id);
	size_t cap = 0;
	int rc;
	while ((rc = fs_bind_step(&b)) == SQLITE_ROW) {
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

int fs_sets_frame_changed(fs_db *db, long long image_id, long long user_id, const char *type, const cJSON *data,
			  char *err, size_t errlen)
{
	err[0] = 0;
	long long *ids;
	size_t n;
	int rc = set_ids_of_image(db, image_id, &ids, &n);
	if (rc)
		return rc;
	for (size_t s = 0; s < n && !rc; s++) {
		fs_set_info info;
		int total = 0;
		rc = fs_set_get_info(db, ids[s], &info);
		int packed = 0, n_e = 0;
		if (!rc)
			rc = fs_rows_count(db, ids[s], NULL, &total, &n_e, &packed);
		if (!rc && !packed)
			rc = count_rows(db, "SELECT count(*) FROM tubercles WHERE set_id = ?", ids[s], &total);
		if (rc)
			break;
		cJSON *h = data ? cJSON_Duplicate(data, 1) : cJSON_CreateObject();
		if (!h) {
			rc = FS_DB_ERROR;
			break;
		}
		cJSON_AddNumberToObject(h, "n_tubercles_visible", info.n_tubercles);
		cJSON_AddNumberToObject(h, "n_tubercles_hidden", total - info.n_tubercles);
		rc = fs_rows_history_add(db, ids[s], user_id, type, h);
		cJSON_Delete(h);
		if (!rc)
			rc = fs_rows_bump_keep_clean(db, ids[s]);
	}
	free(ids);
	if (rc && !*err)
		ERR("could not update the sets: %s", fs_db_errmsg(db));
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
		fs_bind b = fs_bind_start(db, st);
		if (new_um > 0)
			fs_bind_double(&b, 1, new_um);
		else
			fs_bind_null(&b, 1);
		fs_bind_int64(&b, 2, ids[s]);
		rc = fs_db_rc_from_sqlite(fs_bind_step(&b));
		fs_db_done(st);
		if (!rc) {
			cJSON *h = cJSON_CreateObject();
			if (old_um > 0)
				cJSON_AddNumberToObject(h, "old_um_per_px", old_um);
			else
				cJSON_AddNullToObject(h, "old_um_per_px");
			cJSON_AddNumberToObject(h, "new_um_per_px", new_um);
			cJSON_AddStringToObject(h, "method", method ? method : "");
			rc = fs_rows_history_add(db, ids[s], user_id, "calibration_change", h);
			cJSON_Delete(h);
		}
		if (!rc)
			rc = fs_rows_bump(db, ids[s], NULL);
	}
	free(ids);
	if (rc && !*err)
		ERR("could not update the sets' calibration: %s", fs_db_errmsg(db));
	return rc;
}
