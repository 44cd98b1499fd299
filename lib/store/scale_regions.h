/*
 * scale_regions.h - an image's scale region as stored (migration 9,
 * table scale_regions): per working image (work_key), either the automatic
 * region cached so that set views need not read the image, or a person's
 * correction (source "user"), which wins over the automatic one. A region
 * belongs to the working image it was found or drawn on: after a rotate or
 * crop the new working image gets its own (automatic until corrected), and
 * undoing the step brings the old one back with its correction.
 *
 * A person's change (save or reset to automatic) is one transaction: the
 * row, an image-level `scale_region_changed` event in the event log, and a
 * `scale_region_changed` entry in every set's history (whose revision
 * bumps, so open views reload their boundary flags).
 *
 * Ownership: regions written into *out belong to the caller
 * (fs_scale_region_free). Errors are fs_db_rc values with a message.
 */
#ifndef FS_SCALE_REGIONS_H
#define FS_SCALE_REGIONS_H

#include <stddef.h>

#include "analysis/scale_region.h"
#include "image/image.h"
#include "store/db.h"

typedef struct fs_scale_region_meta {
	int user;               /* 1: a person's correction */
	long long user_id;      /* who made it (0: automatic or deleted user) */
	long long updated_at;   /* unix seconds */
} fs_scale_region_meta;

/* The stored region of image_id for work_key: FS_DB_OK, FS_DB_NOTFOUND
 * (none stored, or stored for another frame size), or an error. meta may be
 * NULL. */
int fs_scale_region_stored(fs_db *db, long long image_id, const char *work_key, int width, int height,
			   fs_scale_region *out, fs_scale_region_meta *meta);

/*
 * The region in force for the image now: the stored one for work_key, else
 * the automatic one computed from img and cached (a failed cache write is
 * not an error: the region is still returned). img may be NULL, then only a
 * stored region is found (FS_DB_NOTFOUND otherwise).
 */
int fs_scale_region_for(fs_db *db, long long image_id, const char *work_key, const fs_image *img,
			fs_scale_region *out, fs_scale_region_meta *meta, char *err, size_t errlen);

/*
 * A person's change: stores r (r->width/height must be the working image's
 * size, which the caller checked) as the user's region for work_key, or with
 * r NULL removes the correction (back to automatic). details (may be NULL)
 * is added to the event and history entries. FS_DB_OK or an error.
 */
int fs_scale_region_change(fs_db *db, long long image_id, const char *work_key, long long user_id,
			   const fs_scale_region *r, const char *what, char *err, size_t errlen);

#endif
