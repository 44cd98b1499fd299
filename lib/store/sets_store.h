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
 * silently. Each change is written in one BEGIN IMMEDIATE transaction,
 * bumps the revision by one and records one journal entry (one user action
 * = one undo step). Edits, undo, redo, a journal step's undo, Revert and
 * replacements are prepared before that, at a snapshot, and written only
 * when the revision is still the snapshot's (fs_set_on_prepared), so that
 * a change of a large set holds SQLite's one write lock briefly (issue 15).
 * Coordinates are pixels; µm values are derived on output.
 *
 * Frames: rows are stored in the frame of the image's base and every
 * function here takes and gives coordinates as shown on the image as it is
 * now (set_frame.h): after a crop, what lies outside is not shown, not
 * counted and not touched by edits, and it is shown again when the crop is
 * undone. Image transforms change no row and no journal entry.
 *
 * The journal is a log of every change applied, in order, each with its
 * author (an agent's steps carry the user who started the run) and state:
 * done, undone (by its author's Undo; that author may Redo it) or reverted
 * (undone from the journal, by Revert, or its redo given up). Undo, Redo,
 * undoing one step from the journal and Revert each add an entry of their
 * own (kinds undo, redo, undo_step, revert; refs names the steps they act
 * on), so the log replays to the set as it is and a Save can sum it up.
 * Undo and Redo act on the caller's own steps only. A step can be undone
 * while the tubercles it touched are as it left them (set_diff.h:
 * fs_set_diff_fit); its connections follow.
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
#include "store/set_diff.h"
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
	int can_undo, can_redo;       /* for anyone; fs_set_user_stacks for one user */
	int measurement_version;      /* of its diameters (analysis/measurement.h); 0 = before versioning */
	long long created_at, updated_at;
} fs_set_info;

/* Names: trimmed, 1..64 characters, no control characters or / \ : * ? " < > |. */
int fs_set_name_valid(const char *name, char *clean, size_t cleanlen);

int fs_set_create(fs_db *db, long long image_id, const char *name, long long user_id, long long *set_id,
		  char *err, size_t errlen);
int fs_set_get_info(fs_db *db, long long set_id, fs_set_info *out);
/* Sets of an image in display order; *out is malloc'ed (free()). */
int fs_set_list(fs_db *db, long long image_id, fs_set_info **out, size_t *n);
/* Tubercles shown, by id (is_boundary recomputed from the Delaunay hull),
 * and the edges between them. */
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
/* Replaces everything (extraction result): new ids 1..n, params recorded.
 * The set's measurement version becomes FS_MEASUREMENT_VERSION (the
 * content was measured just now), except for kind "import" (0, "before
 * versioning"); fs_set_replace_all_version gives it explicitly (an import
 * whose file says; -1 leaves it). */
int fs_set_replace_all_version(fs_db *db, long long set_id, long long expect_rev, long long user_id,
			       const fs_tubercle_list *t, const fs_edge_list *e, const fs_params *params,
			       const char *kind, int measurement_version, long long agent_run_id, long long *new_rev,
			       long long *cur_rev, char *err, size_t errlen);
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

/*
 * Re-measure: the shown tubercles get the sizes of measured (the same ids,
 * shown coordinates, e.g. from fs_measure_centres) and the set the
 * measurement version, as one undoable step (kind "remeasure"): centres,
 * ids, sources and connections stay; undo restores the old sizes and
 * version exactly. *n_changed / *n_unmeasured (may be NULL) count the
 * tubercles whose size changed and those left without one. FS_DB_INVALID
 * when an id is not shown, or when nothing would change.
 */
int fs_set_remeasure(fs_db *db, long long set_id, long long expect_rev, long long user_id,
		     const fs_tubercle_list *measured, int version, int *n_changed, int *n_unmeasured,
		     long long *new_rev, long long *cur_rev, char *err, size_t errlen);

/*
 * Undo of user_id's newest step that is done (their agent runs' steps
 * included), and redo of the step they undid last. FS_DB_INVALID with the
 * reason when there is none, or when the step no longer applies (naming
 * who changed its tubercles since).
 */
int fs_set_undo(fs_db *db, long long set_id, long long expect_rev, long long user_id, long long *new_rev,
		long long *cur_rev, char *err, size_t errlen);
int fs_set_redo(fs_db *db, long long set_id, long long expect_rev, long long user_id, long long *new_rev,
		long long *cur_rev, char *err, size_t errlen);
/* Whether user_id has a step to undo / to redo in the set. */
int fs_set_user_stacks(fs_db *db, long long set_id, long long user_id, int *can_undo, int *can_redo);
/* Undoes one journal entry, anyone's, out of order when it still applies;
 * FS_DB_INVALID with the reason otherwise. The undo is a step of user_id's. */
int fs_set_undo_op(fs_db *db, long long set_id, long long op_id, long long user_id, long long *new_rev,
		   char *err, size_t errlen);

/*
 * Save: a checkpoint. Sums the steps since the last checkpoint up by their
 * net effect into a manual_edit history event: "+3 tubercles, 2 moved,
 * +4 connections" per tubercle and connection; when extractions, optimiser
 * steps, agent runs or imports replaced the set meanwhile, they are named
 * with the counts before and after ("extraction: 375 → 429 tubercles,
 * 1012 → 1069 connections; then +1 tubercle"). With the resulting counts
 * and hexagonalness; marks the set clean. Nothing is lost by not saving:
 * every step is already stored.
 */
int fs_set_checkpoint(fs_db *db, long long set_id, long long expect_rev, long long user_id, const char *user_name,
		      double hexagonalness, long long *cur_rev, char *err, size_t errlen);
/* Undoes every change since the last checkpoint, as one new step. */
int fs_set_revert(fs_db *db, long long set_id, long long expect_rev, long long user_id, long long *new_rev,
		  long long *cur_rev, char *err, size_t errlen);

/* The set as it is now becomes its saved state, with no history event
 * (an imported file is saved work, not unsaved changes): steps so far are
 * checkpointed, so Revert has nothing to take back, and Undo still can. */
int fs_set_mark_saved(fs_db *db, long long set_id);

/*
 * Changes are prepared outside SQLite's one write lock (issue 15: a
 * change of a 70,000-tubercle set is built, checked and encoded at a
 * snapshot, then stored in a short write transaction that finds the
 * revision unchanged; see set_rows.h). For tests: fn(arg) is called
 * between the two halves, after the preparation and before the write lock
 * is taken, so that a test can land another change there. NULL (the
 * default) calls nothing.
 */
void fs_set_on_prepared(void (*fn)(void *arg), void *arg);

/*
 * The change written by the most recent successful edit, undo, redo or
 * revert in this process (a FastCGI worker handles one request at a time),
 * for responses that say what changed. *full is set when the change is
 * better reloaded whole (revert). Returns -1 when there is none. The copy
 * is the caller's (fs_set_diff_free).
 */
int fs_set_last_change(fs_set_diff *out, int *full);

/* Journal listing (newest first): [{id, timestamp, user, user_id, kind,
 * label, state ("done", "undone", "reverted"), agent_run_id}]. */
cJSON *fs_set_journal(fs_db *db, long long set_id, int limit);
/* The same for viewer: each entry also says mine, can_undo (from the
 * journal, now) and why (the reason it cannot, or null). */
cJSON *fs_set_journal_for(fs_db *db, long long set_id, int limit, long long viewer_id);

/* History: append an event (data is an object; type, timestamp and user are added). */
int fs_history_add(fs_db *db, long long set_id, long long user_id, const char *type, const cJSON *data);
/* Newest first: [{id, timestamp, type, user, ...data}]. */
cJSON *fs_history_list(fs_db *db, long long set_id, int limit);
int fs_history_get(fs_db *db, long long set_id, long long history_id, cJSON **event);

/*
 * The image's transform steps changed (one added or undone): no row moves,
 * since rows are kept in the base's frame, and no journal is touched. Each
 * set gets a history event of the given type with data plus
 * n_tubercles_visible / n_tubercles_hidden, and its revision bumps (so
 * open views reload) without marking it unsaved. Runs inside the caller's
 * transaction, after the image row has changed.
 */
int fs_sets_frame_changed(fs_db *db, long long image_id, long long user_id, const char *type, const cJSON *data,
			  char *err, size_t errlen);
/* Calibration changed: every set's snapshot follows, with a calibration_change event. */
int fs_sets_calibration_changed(fs_db *db, long long image_id, double old_um, double new_um, const char *method,
				long long user_id, char *err, size_t errlen);

#endif
