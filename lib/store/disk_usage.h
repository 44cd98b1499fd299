/*
 * disk_usage.h - how much of the data directory each user's images take,
 * for the per-user disk quota.
 *
 * What counts: the uploaded originals and the derived files (working image,
 * display copy, thumbnail) of the images a user owns. A content-addressed
 * file shared by several library entries counts once, for its first
 * uploader (the entry with the smallest id holding it); when that entry is
 * deleted, the next one's owner becomes the first. The same holds for the
 * derived files of a work key.
 *
 * Errors: fs_db_rc values. Sizes of derived files come from the disk
 * (stat), originals from the image_files table.
 */
#ifndef FS_DISK_USAGE_H
#define FS_DISK_USAGE_H

#include "store/db.h"

/* Bytes counted against user_id. */
int fs_disk_usage_user(fs_db *db, const char *data_dir, long long user_id, long long *bytes);

/* Calls fn(user_id, bytes, ud) for every user who owns an image, in
 * user id order; a non-zero return of fn stops and is returned. */
int fs_disk_usage_each(fs_db *db, const char *data_dir, int (*fn)(long long user_id, long long bytes, void *ud),
		       void *ud);

#endif
