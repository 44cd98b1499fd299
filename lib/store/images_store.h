/*
 * images_store.h - images in the library: the uploaded file (stored once
 * per content hash), the float working image after the recorded transforms,
 * the display PNG and thumbnail, metadata, visibility and calibration, and
 * who may do what with them.
 *
 * Files live under the data directory in paths made only from hex keys the
 * server computed:
 *   originals/<sha256>            the uploaded bytes
 *   work/<key>.f32               the working image (header + float samples)
 *   display/<key>.png            8-bit display copy
 *   thumbs/<key>.png             thumbnail (at most 256 px a side)
 * Every file is written to a temporary name, fsynced and renamed.
 *
 * Access rules: an image is visible to its owner, to admins, and to every
 * member when its visibility is "shared". Visible users may read it and edit
 * its annotation sets; only the owner and admins may manage it (visibility,
 * delete, rotate/crop and their undo, calibration).
 *
 * Transforms (rotate, crop, autocrop) are the image's own steps, kept in
 * images.transforms oldest first, one object per step:
 *   {"kind": "rotate_left" | "rotate_right" | "crop",
 *    "src_width", "src_height",      size of the image the step was applied to
 *    "x", "y", "width", "height",    crop: the rectangle; rotations: 0, 0, new size
 *    "from_key",                     work key before the step
 *    "event",                        image_rotated, image_cropped, image_autocropped
 *    "label", "user_id", "at"}
 * Steps from base_step on can be undone; the working image before them is
 * base_key (the upload itself, for images uploaded since undo exists), and
 * the sets keep their rows in base_key's frame, shown through the map of
 * the steps after it (fs_affine_of_steps over steps[base_step ..]).
 * Steps before base_step were made before transforms could be undone:
 * they are history only, their from_key is missing.
 */
#ifndef FS_IMAGES_STORE_H
#define FS_IMAGES_STORE_H

#include <stddef.h>

#include <cJSON.h>

#include "store/db.h"
#include "image/image.h"
#include "image/image_io.h"
#include "image/image_transform.h"
#include "store/users.h"

typedef struct fs_image_rec {
	long long id;
	long long owner_id;
	char owner_login[65];
	char file_sha256[65];
	char work_key[65];
	char original_name[256];
	char format[16];
	int width, height, bit_depth, channels, n_pages;
	int shared;                 /* visibility "shared" (else "private") */
	double um_per_px;           /* 0 = uncalibrated */
	char calibration_method[32];
	double suggested_um_per_px; /* from file metadata; 0 = none */
	char suggested_source[64];
	int rotation;               /* 0, 90, 180, 270 (accumulated) */
	long long created_at, updated_at;
	int revision;               /* grows with every transform and every undo of one */
	int n_sets;                 /* annotation sets of the image */
	char base_key[65];          /* working image before the undoable steps */
	int base_step;              /* first undoable step */
	int n_steps;                /* steps in images.transforms */
} fs_image_rec;

/* One transform step as stored (see above). */
typedef struct fs_image_step {
	fs_transform t;
	char from_key[65];  /* "" for steps made before undo existed */
	char event[32];
	char label[96];     /* "rotate 90° clockwise", "crop x,y w×h", "autocrop x,y w×h" */
	long long user_id;
	long long at;
} fs_image_step;

/* Parses images.transforms; *steps is malloc'ed (free()), NULL when n = 0.
 * Entries without a known kind are refused (-1). */
int fs_image_steps_parse(const char *json, fs_image_step **steps, size_t *n);
/* The stored form of one step (caller deletes). */
cJSON *fs_image_step_json(const fs_image_step *s);
/* Writes s->label from s->t and s->event. */
void fs_image_step_label(fs_image_step *s);
/* The steps of an image, oldest first (*steps malloc'ed, free()). */
int fs_image_steps(fs_db *db, long long image_id, fs_image_step **steps, size_t *n);

enum fs_access { FS_ACCESS_READ = 1, FS_ACCESS_MANAGE = 2 };

int fs_image_get(fs_db *db, long long id, fs_image_rec *out);

/*
 * Looks the image up for user u. Returns 0 and fills out (may be NULL) when
 * u may do `want`; FS_DB_NOTFOUND when it does not exist or u may not see it
 * (so ids cannot be probed); FS_DB_FORBIDDEN when u sees it but may not
 * manage it.
 */
int fs_image_check_access(fs_db *db, long long image_id, const fs_user *u, int want, fs_image_rec *out);

/* Reads the working image of rec from the data directory (caller frees). */
fs_image *fs_image_load_work(const char *data_dir, const fs_image_rec *rec, char *err, size_t errlen);
/* The same as a compact image when the working file is 8 or 16 bits
 * (work_file.h, image.h): for the extraction job, whose consumers (the
 * scale region, the detection) read compact images. */
fs_image *fs_image_load_work_compact(const char *data_dir, const fs_image_rec *rec, char *err, size_t errlen);

/*
 * Below: the writes and listings behind the image routes. Functions that
 * change rows run inside the caller's transaction (fs_db_begin) so that
 * files, rows and sets move together; they return fs_db_rc values.
 */

/* The owner's own library entry for a file (dedupe), or FS_DB_NOTFOUND. */
int fs_image_find_owned(fs_db *db, long long owner_id, const char *sha256, fs_image_rec *out);

/* Fills the file-derived fields of rec (owner, hash, work key of page,
 * original name, format, size, depth, channels, pages, suggested
 * calibration) from a loaded file; the others are left as they are. */
void fs_image_rec_from_loaded(fs_image_rec *rec, long long owner_id, const char *file_sha256, int page,
			      const char *original_name, const fs_loaded *ld);

/* The "image_loaded" event of a new image rec (its name, size and format;
 * background_job when an import job stored it); an FS_DB_* code. */
int fs_image_log_loaded(fs_db *db, long long user_id, const fs_image_rec *rec, int background_job);

/* Records the file (once per hash) and inserts the image with no steps
 * (its base is its work key); rec->id, created_at and updated_at are set.
 * owner_login, revision, n_sets and the step fields are ignored. */
int fs_image_insert(fs_db *db, fs_image_rec *rec, long long file_size);

/* Changes visibility (shared < 0 keeps it) and/or the display name (NULL keeps it). */
int fs_image_update_meta(fs_db *db, long long id, int shared, const char *original_name);

/* Deletes the image (sets, tubercles, history go with it by cascade) and,
 * when no other image uses them, the file record. *original_unused and
 * *work_unused / *base_unused say whether the original / derived files of
 * its work key / of its base key may be removed. */
int fs_image_delete(fs_db *db, long long id, int *original_unused, int *work_unused, int *base_unused);

/* *in_use = 1 when some image's working files or base are those of key /
 * some image was uploaded from the file sha256. */
int fs_image_work_key_in_use(fs_db *db, const char *key, int *in_use);
int fs_image_file_in_use(fs_db *db, const char *sha256, int *in_use);

/*
 * Records a change of the image's steps: work_key old_key -> new_key, the
 * new size and rotation, images.transforms replaced by steps (an array),
 * the revision bumped. FS_DB_STALE when the image no longer has old_key
 * (someone transformed it meanwhile).
 */
int fs_image_set_steps(fs_db *db, long long id, const char *old_key, const char *new_key, int width, int height,
		       int rotation, const cJSON *steps);

/* Sets the calibration (um_per_px <= 0 clears it). */
int fs_image_set_calibration(fs_db *db, long long id, double um_per_px, const char *method);

/* Opening an image: remembered per user, FS_RECENT_MAX kept. */
#define FS_RECENT_MAX 10
int fs_image_touch_recent(fs_db *db, long long user_id, long long image_id);

enum fs_image_sort { FS_SORT_DATE = 0, FS_SORT_NAME, FS_SORT_OWNER };

typedef struct fs_image_query {
	const char *q;   /* substring of the name, case-insensitive; NULL/"" = all */
	int sort;        /* enum fs_image_sort */
	int desc;        /* 1 = descending */
	int page;        /* 1-based */
	int per_page;    /* 1..FS_PER_PAGE_MAX */
} fs_image_query;
#define FS_PER_PAGE_MAX 100

/* Images u may see, filtered, sorted and paged; *out malloc'ed (free()),
 * *total = matches over all pages. */
int fs_image_list(fs_db *db, const fs_user *u, const fs_image_query *q, fs_image_rec **out, size_t *n,
		  long long *total);
/* u's recently opened images that u may still see, most recent first. */
int fs_image_recent(fs_db *db, const fs_user *u, fs_image_rec **out, size_t *n);

/* 1 when u may manage rec (owner or admin). */
int fs_image_can_manage(const fs_image_rec *rec, const fs_user *u);

/* The API view of rec (caller deletes): urls below base_path, owner,
 * visibility, calibration or null, suggested calibration or null, ... */
cJSON *fs_image_to_json(const fs_image_rec *rec, const char *base_path, const fs_user *viewer);

/* A client's file name made fit for display: the last path component,
 * control characters and invalid UTF-8 replaced, trimmed, at most outlen-1
 * bytes on a character boundary; "image" when nothing is left. Never used
 * as a path. */
void fs_image_name_sanitise(const char *in, char *out, size_t outlen);

#endif
