/*
 * set_halves.h - one change of a set in two halves (issue 15, "one writer,
 * short writes"), the loop shared by the set store's edits (sets_store.c),
 * its undo-like changes and its Save (set_undo.c). Not for use outside the
 * set store.
 *
 * The change is prepared at a snapshot, a read transaction that blocks
 * nobody; the write transaction then only checks that the set's revision
 * is still the snapshot's (every change bumps it, so the rows are those
 * the preparation saw) and stores. Moved on meanwhile: with a revision to
 * expect (expect_rev >= 0) that is a conflict (FS_DB_STALE, *cur_rev the
 * new revision), as it would have been a moment later, never a lost
 * update; without (-1, agents), the change is prepared again, the last
 * time under the lock, so it lands however busy the set is.
 *
 * The caller's ctx holds what the preparation makes; the three callbacks
 * own it between them: prepare fills it, write stores it and ends the
 * write transaction, discard empties it (after a write, and when the
 * preparation was overtaken). Messages go into err (may be NULL).
 */
#ifndef FS_SET_HALVES_H
#define FS_SET_HALVES_H

#include <stddef.h>

#include "store/db.h"

typedef struct fs_set_halves {
	/* At the snapshot, inside a transaction the loop opened and ends. */
	int (*prepare)(fs_db *db, long long set_id, void *ctx, char *err, size_t errlen);
	/* Inside the write transaction (rc: the result so far; a failure
	 * still reaches here so that the write rolls back and says why);
	 * commits or rolls back, and returns the change's result. */
	int (*write)(fs_db *db, long long set_id, int rc, void *ctx, char *err, size_t errlen);
	/* Empties ctx; run once after each preparation. */
	void (*discard)(void *ctx);
	/* Named in the message when the set never stood still ("change"). */
	const char *what;
} fs_set_halves;

/* Runs the change h describes on the set; returns an fs_db_rc. cur_rev
 * (may be NULL) receives the revision the change was checked against, or
 * on a conflict the one the caller must reload. */
int fs_set_in_halves(fs_db *db, long long set_id, long long expect_rev, long long *cur_rev,
		     const fs_set_halves *h, void *ctx, char *err, size_t errlen);

#endif
