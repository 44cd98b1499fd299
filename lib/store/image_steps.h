/*
 * image_steps.h - an image's transform steps: rotate, crop and autocrop as
 * steps of the image's own history, and their undo (newest first, or back
 * to the original).
 *
 * A step never touches a set's rows or journal: the sets keep their
 * tubercles in the frame of the image's base and show them through the
 * steps (set_frame.h). A crop hides what lies outside; undoing it shows it
 * again exactly as it was, and edits made in between follow.
 *
 * Files: a step writes the derived files of its new work key (content
 * keys, image_files.h) before its transaction, and removes the previous
 * key's files once nothing uses them (the base's files stay while the
 * image exists). Undo puts back the files of the key it returns to,
 * computing them from the base when they are gone. A failed call leaves
 * nothing behind.
 *
 * These are whole operations (load, compute, write files, one transaction
 * for the image row, every set's history and the event log), callable
 * from a request handler or a background job alike. They check no access
 * rights: callers let only the owner or an admin in.
 *
 * Errors: FS_DB_NOTFOUND (no such image), FS_DB_STALE (the image is not at
 * expect_revision, or changed meanwhile), FS_DB_INVALID (nothing to crop,
 * nothing to undo, a bad rectangle), FS_DB_ERROR; a message in err.
 */
#ifndef FS_IMAGE_STEPS_H
#define FS_IMAGE_STEPS_H

#include <stddef.h>

#include <cJSON.h>

#include "store/db.h"
#include "image/image_transform.h"

typedef enum fs_step_kind {
	FS_STEP_ROTATE_LEFT = 0,
	FS_STEP_ROTATE_RIGHT,
	FS_STEP_CROP,
	FS_STEP_AUTOCROP
} fs_step_kind;

typedef struct fs_step_request {
	fs_step_kind kind;
	fs_rect rect;        /* crop: the rectangle wanted (clamped to the image) */
	int expect_revision; /* the image revision the caller saw; -1 skips the check */
} fs_step_request;

/* Applies one step to image_id for user_id. */
int fs_image_step_apply(fs_db *db, const char *data_dir, long long image_id, long long user_id,
			const fs_step_request *req, char *err, size_t errlen);

/* Undoes steps, newest first, until keep of them are left (keep < 0: the
 * newest one only; 0: back to the original). Steps made before transforms
 * could be undone are never undone. */
int fs_image_step_undo(fs_db *db, const char *data_dir, long long image_id, long long user_id, int keep,
		       int expect_revision, char *err, size_t errlen);

/* {revision, transforms: [{index, kind, label, user, user_id, timestamp,
 * undoable}]}, oldest first (caller deletes; NULL on error). */
cJSON *fs_image_steps_list(fs_db *db, long long image_id);

#endif
