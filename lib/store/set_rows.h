/*
 * set_rows.h - the rows under the annotation set store, shared by
 * sets_store.c (sets and edits) and set_undo.c (undo, redo, journal, Save,
 * Revert, image-wide changes). Not for use outside the set store.
 *
 * Rows are in the stored frame (set_frame.h). Functions run inside the
 * caller's transaction and return fs_db_rc values; messages meant for the
 * user go into the caller's buffer. Lists filled here are the caller's.
 */
#ifndef FS_SET_ROWS_H
#define FS_SET_ROWS_H

#include <stddef.h>

#include <cJSON.h>

#include "store/db.h"
#include "store/set_diff.h"
#include "store/set_frame.h"
#include "store/set_packed.h"

/* Journal entry states (set_ops.undone). */
enum { FS_OP_DONE = 0, FS_OP_UNDONE = 1, FS_OP_REVERTED = 2 };

long long fs_rows_now(void);

int fs_rows_get(fs_db *db, long long set_id, int tid, fs_tubercle *t);
/* Every stored tubercle (by id) and edge (by id1, id2) of the set; e may be NULL. */
int fs_rows_load(fs_db *db, long long set_id, fs_tubercle_list *t, fs_edge_list *e);
int fs_rows_state(fs_db *db, long long set_id, fs_set_state *s);
int fs_rows_edge_exists(fs_db *db, long long set_id, fs_edge e, int *exists);

/* Strict check of a stored-frame diff against the rows (normal edits). */
int fs_rows_diff_applies(fs_db *db, long long set_id, const fs_set_diff *d, char *why, size_t whylen);
/* Writes a checked diff; refuses one that would leave connections to missing tubercles. */
int fs_rows_diff_write(fs_db *db, long long set_id, const fs_set_diff *d, char *why, size_t whylen);

/*
 * The same write in two halves, so that a change of a large set holds
 * SQLite's one write lock only while its bytes are stored (issue 15, "one
 * writer, short writes"). fs_rows_prepare runs at a snapshot (a read
 * transaction, or the write transaction itself) and makes everything that
 * needs no lock: for a packed set the new record (the diff merged into
 * the rows and encoded), and the journal entry. fs_rows_write_prepared
 * then writes it inside a write transaction that has found the set's
 * revision still that of the snapshot (every change of rows bumps it), so
 * the rows are those the preparation saw; a set stored as rows is written
 * row by row there (such sets are small). The caller journals p->journal
 * (fs_rows_journal_add_prepared). p's contents are the caller's
 * (fs_rows_prepared_free; the write takes p->next over for the cache).
 */
typedef struct fs_journal_entry fs_journal_entry;
struct fs_journal_entry {
	char *text;       /* the diff's JSON (free) */
	unsigned char *z; /* NULL, or the stored compressed form (free) */
	size_t zlen;
	long long blob_id; /* > 0: z staged (fs_rows_journal_stage), stored by reference */
};
typedef struct fs_rows_prepared {
	int packed;         /* the set is packed: rec is its new record, next its rows */
	fs_packed_rec rec;
	fs_set_state next;
	fs_journal_entry journal;
} fs_rows_prepared;
int fs_rows_prepare(fs_db *db, long long set_id, const fs_set_diff *d, fs_rows_prepared *p, char *why,
		    size_t whylen);
int fs_rows_write_prepared(fs_db *db, long long set_id, const fs_set_diff *d, fs_rows_prepared *p, char *why,
			   size_t whylen);
void fs_rows_prepared_free(fs_rows_prepared *p);
/* How often a change is prepared at a snapshot before it is prepared
 * under the lock (where nobody can overtake it). */
#define FS_ROWS_PREPARE_TRIES 3
/* Called by the set store between the two halves (fs_set_on_prepared). */
void fs_rows_between_halves(void);

/*
 * Writes a replacement (fs_set_replace_all) prepared from a snapshot taken
 * at the revision the caller's transaction has just found unchanged, so
 * the diff holds against the rows without a lookup per row: whole = the
 * diff removes every row the set has (deleted with one statement each for
 * tubercles and edges); added tubercles have fresh ids and the added edges
 * join two of them, normalised and without duplicates.
 */
int fs_rows_replace_write(fs_db *db, long long set_id, const fs_set_diff *d, int whole, const fs_packed_rec *rec);
/* Whether that write stores the set packed (packed: it is already), so
 * that the caller can encode rec (may be NULL) before taking the lock. */
int fs_rows_replace_packs(int whole, int packed, const fs_set_diff *d);

/* The counts of a packed set (set_packed.h): tubercles and edges shown
 * through f (NULL: all), *packed = 1; for a set stored as rows *packed = 0
 * and the caller counts with SQL. */
int fs_rows_count(fs_db *db, long long set_id, const fs_set_frame *f, int *n_t, int *n_e, int *packed);

int fs_rows_read_rev(fs_db *db, long long set_id, long long *rev);
int fs_rows_check_rev(fs_db *db, long long set_id, long long expect_rev, long long *cur_rev, char *err,
		      size_t errlen);
int fs_rows_bump(fs_db *db, long long set_id, long long *new_rev);
/* A bump that keeps a saved set saved (image-wide changes). */
int fs_rows_bump_keep_clean(fs_db *db, long long set_id);
/* Commits when rc is OK, else rolls back. */
int fs_rows_end_tx(fs_db *db, int rc);

/* 1 for the journal's own bookkeeping kinds (undo, redo). */
int fs_rows_bookkeeping(const char *kind);
/* 1 for kinds whose refs are reverted while they are in effect (undo_step, revert). */
int fs_rows_reverts_refs(const char *kind);
/*
 * Adds a journal entry (refs: a JSON array of op ids, or NULL); *op_id
 * (may be NULL) receives its id. A step of a user's own (not undo or redo)
 * gives up what that user could redo. Keeps FS_UNDO_KEEP steps. In two
 * halves, so that a large step's journal entry is made (its JSON,
 * compressed when large) before the write lock is taken.
 */
/* fs_journal_entry: above, with fs_rows_prepare. */
int fs_rows_journal_prepare(const fs_set_diff *d, fs_journal_entry *j);
void fs_rows_journal_entry_free(fs_journal_entry *j);
int fs_rows_journal_add_prepared(fs_db *db, long long set_id, long long user_id, const char *kind,
				 const char *label, const fs_journal_entry *j, long long agent_run_id, const char *refs,
				 long long *op_id);
/* Before the write transaction, outside any: a large compressed entry
 * is written in chunks of short transactions (staged_blob.h); adding it
 * then only refers to it. The caller drops j->blob_id (fs_blob_drop) if
 * the entry is not added. */
int fs_rows_journal_stage(fs_db *db, fs_journal_entry *j, char *err, size_t errlen);
/* The JSON text of a journal diff column (set_ops.diff, with
 * set_ops.diff_blob selected right after it at col + 1), inflated when it
 * was stored compressed or staged (*owned then holds it: free() it); NULL
 * when it cannot be read. */
const char *fs_rows_diff_column(sqlite3_stmt *st, int col, char **owned);
int fs_rows_op_state(fs_db *db, long long set_id, long long op_id, int state);
/* Sets the state of every op named in refs. */
int fs_rows_refs_state(fs_db *db, long long set_id, const char *refs, int state);

/* The last change, for responses (fs_set_last_change): d in the stored
 * frame, kept as shown through f; d NULL or full = reload the whole set. */
void fs_rows_remember(const fs_set_diff *d, const fs_set_frame *f, int full);

int fs_rows_history_add(fs_db *db, long long set_id, long long user_id, const char *type, const cJSON *data);

#endif
