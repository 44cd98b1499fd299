/*
 * sets_store.h - annotation sets in SQLite, the server's truth.
 *
 * A set belongs to an image and holds tubercles (rows keyed by set and
 * tubercle id), connections (id1 < id2), its extraction parameters, a
 * calibration snapshot, an edit journal (for undo/redo) and an append-only
 * history of events.
 *
 * Concurrency: every change takes the revision the client based it on
 * (expect_rev; -1 skips the check, for agents that hold no view) and fails
 * with FS_DB_STALE when the set has moved on, so no update is lost
 * silently. Each change runs in one BEGIN IMMEDIATE transaction, bumps the
 * revision by one and records one journal entry (one user action = one undo
 * step). Coordinates are pixels; µm values are derived on output.
 *
 * Errors: fs_db_rc values; a human-readable message in err. FS_DB_INVALID
 * for a bad request (unknown tubercle, bad name, last set), FS_DB_STALE for
 * a revision mismatch (*cur_rev, when given, receives the current one).
 *
 * Ownership: lists filled by these functions belong to the caller
 * (fs_tubercle_list_free, fs_edge_list_free, free()); cJSON results are the
 * caller's to delete.
 */
#ifndef FS_SETS_STORE_H
#define FS_SETS_STORE_H

#include <stddef.h>

#include <cJSON.h>

#include "store/db.h"
#include "image/image_transform.h"
#include "analysis/params.h"
#include "image/tubercle.h"

#define FS_SET_NAME_MAX 64
#define FS_UNDO_KEEP 500 /* journal entries kept per set (undo depth) */

typedef struct fs_set_info {
	long long id;
	long long image_id;
	char name[FS_SET_NAME_MAX * 4 + 1];
	int position;
	long long revision;
	long long clean_revision; /* revision at the last checkpoint (Save) */
	int n_tubercles, n_edges;
	int has_params;
	fs_params params;
	double calibration_um_per_px; /* snapshot; 0 = none */
	int can_undo, can_redo;
	long long created_at, updated_at;
} fs_set_info;

/* A change: the tubercles and edges it adds, removes and modifies. */
typedef struct fs_set_diff {
	fs_tubercle_list added;
	fs_tubercle_list removed;
	fs_tubercle_list before; /* modified tubercles as they were ... */
	fs_tubercle_list after;  /* ... and as they become (same order) */
	fs_edge_list edges_added;
	fs_edge_list edges_removed;
	int params_changed;
	int had_params, has_params;
	fs_params params_before, params_after;
} fs_set_diff;

void fs_set_diff_free(fs_set_diff *d);
cJSON *fs_set_diff_to_json(const fs_set_diff *d);

/* Names: trimmed, 1..64 characters, no control characters or / \ : * ? " < > |. */
int fs_set_name_valid(const char *name, char *clean, size_t cleanlen);

int fs_set_create(fs_db *db, long long image_id, const char *name, long long user_id, long long *set_id,
		  char *err, size_t errlen);
int fs_set_get_info(fs_db *db, long long set_id, fs_set_info *out);
/* Sets of an image in display order; *out is malloc'ed (free()). */
int fs_set_list(fs_db *db, long long image_id, fs_set_info **out, size_t *n);
/* Tubercles by id (is_boundary recomputed from the Delaunay hull) and edges. */
int fs_set_load(fs_db *db, long long set_id, fs_tubercle_list *t, fs_edge_list *e);
/* Current revision only (cheap polling). */
int fs_set_revision(fs_db *db, long long set_id, long long *rev);

int fs_set_rename(fs_db *db, long long set_id, long long expect_rev, const char *name, long long user_id,
		  long long *cur_rev, char *err, size_t errlen);
/* Copies tubercles, edges, parameters and calibration; history starts with a clone event. */
int fs_set_duplicate(fs_db *db, long long set_id, const char *name, long long user_id, long long *new_id,
		     char *err, size_t errlen);
/* Refuses to delete an image's last set (FS_DB_INVALID). */
int fs_set_delete(fs_db *db, long long set_id, long long expect_rev, long long *cur_rev, char *err,
		  size_t errlen);

/*
 * Applies a diff as one step: checks expect_rev, validates it against the
 * current rows (added ids free, removed/modified ids present, edges between
 * existing tubercles), writes it, journals it with kind and label, bumps
 * the revision. *new_rev receives the new revision. agent_run_id (0 = none)
 * marks steps an agent made (for selective undo).
 */
int fs_set_apply(fs_db *db, long long set_id, long long expect_rev, long long user_id, const char *kind,
		 const char *label, const fs_set_diff *diff, long long agent_run_id, long long *new_rev,
		 long long *cur_rev, char *err, size_t errlen);

/* Convenience edits, each one journal step. Ids of new tubercles are
 * assigned by the store (t->id ignored; *new_tid receives it). */
int fs_set_add_tubercle(fs_db *db, long long set_id, long long expect_rev, long long user_id,
			const fs_tubercle *t, long long agent_run_id, int *new_tid, long long *new_rev,
			long long *cur_rev, char *err, size_t errlen);
/* Moves/resizes: the tubercle tid becomes *t (id and source kept). */
int fs_set_update_tubercle(fs_db *db, long long set_id, long long expect_rev, long long user_id, int tid,
			   const fs_tubercle *t, const char *kind, long long agent_run_id, long long *new_rev,
			   long long *cur_rev, char *err, size_t errlen);
/* Deletes tubercles (and every edge touching them) and the given edges. */
int fs_set_delete_items(fs_db *db, long long set_id, long long expect_rev, long long user_id, const int *tids,
			size_t n_tids, const fs_edge *edges, size_t n_edges, const char *kind,
			long long agent_run_id, long long *new_rev, long long *cur_rev, char *err, size_t errlen);
int fs_set_add_edge(fs_db *db, long long set_id, long long expect_rev, long long user_id, int id1, int id2,
		    long long agent_run_id, long long *new_rev, long long *cur_rev, char *err, size_t errlen);
/* Replaces everything (extraction result): new ids 1..n, params recorded. */
int fs_set_replace_all(fs_db *db, long long set_id, long long expect_rev, long long user_id,
		       const fs_tubercle_list *t, const fs_edge_list *e, const fs_params *params, const char *kind,
		       long long agent_run_id, long long *new_rev, long long *cur_rev, char *err, size_t errlen);
/* Replaces the edges only (regenerate connections, auto-connect). */
int fs_set_replace_edges(fs_db *db, long long set_id, long long expect_rev, long long user_id,
			 const fs_edge_list *e, const char *kind, long long agent_run_id, long long *new_rev,
			 long long *cur_rev, char *err, size_t errlen);
/* Sets the radius of the given tubercles (all when n == 0). */
int fs_set_set_radius(fs_db *db, long long set_id, long long expect_rev, long long user_id, const int *tids,
		      size_t n, double radius_px, long long *new_rev, long long *cur_rev, char *err,
		      size_t errlen);

/* Undo / redo of the latest step (any user's). FS_DB_INVALID when there is nothing to undo/redo. */
int fs_set_undo(fs_db *db, long long set_id, long long expect_rev, long long user_id, long long *new_rev,
		long long *cur_rev, char *err, size_t errlen);
int fs_set_redo(fs_db *db, long long set_id, long long expect_rev, long long user_id, long long *new_rev,
		long long *cur_rev, char *err, size_t errlen);
/* Undoes one journal entry out of order when it still applies (the
 * tubercles it touched are as it left them); FS_DB_INVALID with the reason
 * otherwise. The undo is itself a new step. */
int fs_set_undo_op(fs_db *db, long long set_id, long long op_id, long long user_id, long long *new_rev,
		   char *err, size_t errlen);

/*
 * Save: a checkpoint. Summarises the steps since the last checkpoint into a
 * manual_edit history event ("+5 tubercles, -2 tubercles, 3 moved, ...")
 * with the resulting counts and hexagonalness, and marks the set clean.
 * Nothing is lost by not saving: every step is already stored.
 */
int fs_set_checkpoint(fs_db *db, long long set_id, long long expect_rev, long long user_id, const char *user_name,
		      double hexagonalness, long long *cur_rev, char *err, size_t errlen);
/* Undoes every step since the last checkpoint (one new step). */
int fs_set_revert(fs_db *db, long long set_id, long long expect_rev, long long user_id, long long *new_rev,
		  long long *cur_rev, char *err, size_t errlen);

/*
 * The change written by the most recent successful edit, undo, redo or
 * revert in this process (a FastCGI worker handles one request at a time),
 * for responses that say what changed. *full is set when the change is
 * better reloaded whole (revert). Returns -1 when there is none. The copy
 * is the caller's (fs_set_diff_free).
 */
int fs_set_last_change(fs_set_diff *out, int *full);

/* Journal listing (newest first): [{id, at, user, kind, label, undone, agent_run_id}]. */
cJSON *fs_set_journal(fs_db *db, long long set_id, int limit);

/* History: append an event (data is an object; type, timestamp and user are added). */
int fs_history_add(fs_db *db, long long set_id, long long user_id, const char *type, const cJSON *data);
/* Newest first: [{id, timestamp, type, user, ...data}]. */
cJSON *fs_history_list(fs_db *db, long long set_id, int limit);
int fs_history_get(fs_db *db, long long set_id, long long history_id, cJSON **event);

/* Every set of an image follows a rotate/crop: coordinates are moved
 * (tubercles cropped away are deleted), a transform history event is added
 * to each set, revisions bump, and undo journals are cleared (their
 * coordinates were in the old frame). Runs inside the caller's transaction
 * when one is open. */
int fs_sets_apply_transform(fs_db *db, long long image_id, const fs_transform *t, long long user_id,
			    char *err, size_t errlen);
/* Calibration changed: every set's snapshot follows, with a calibration_change event. */
int fs_sets_calibration_changed(fs_db *db, long long image_id, double old_um, double new_um, const char *method,
				long long user_id, char *err, size_t errlen);

#endif
