/*
 * comparisons.h - saved comparisons: a user's named choice of annotation
 * sets, each with the group label it was given (specimen, species), shared
 * with the lab or private like images; and the set selections the Compare
 * page offers ("the first set of each of my images").
 *
 * Access, like images: the owner and admins see and manage a comparison;
 * every member sees a shared one. A comparison holds only sets its owner
 * could see when they were added (checked here, in the same transaction);
 * a viewer who cannot see some of them gets them left out by the reader
 * (cgi/routes/route_compare.c), which says how many. A deleted set leaves
 * every comparison that held it.
 *
 * Errors: fs_db_rc values; FS_DB_NOTFOUND for an unknown or invisible
 * comparison or set (ids cannot be probed), FS_DB_FORBIDDEN for a visible
 * comparison the user may not change, FS_DB_INVALID with a message for a
 * bad name, label or set list.
 *
 * Ownership: fs_comparison owns its items (fs_comparison_free, tolerates a
 * zeroed struct); lists from fs_comparison_list and id arrays are malloc'ed
 * (free(); list entries have no items).
 */
#ifndef FS_COMPARISONS_H
#define FS_COMPARISONS_H

#include <stddef.h>

#include "store/db.h"
#include "store/users.h"

#define FS_COMPARISON_NAME_MAX 64  /* characters */
#define FS_COMPARISON_LABEL_MAX 64 /* characters; "" = no group */
#define FS_COMPARISON_SETS_MAX 1000

typedef struct fs_comparison_item {
	long long set_id;
	char label[FS_COMPARISON_LABEL_MAX * 4 + 1];
} fs_comparison_item;

typedef struct fs_comparison {
	long long id, owner_id;
	char owner_login[65];
	char name[FS_COMPARISON_NAME_MAX * 4 + 1];
	int shared;
	long long created_at, updated_at;
	size_t n_sets;             /* sets held (also in listings) */
	fs_comparison_item *items; /* in the order chosen; NULL in listings */
} fs_comparison;

void fs_comparison_free(fs_comparison *c);

/* Trims and checks a comparison name (1..64 characters, no control
 * characters) into clean; 1 when valid. */
int fs_comparison_name_valid(const char *name, char *clean, size_t cleanlen);
/* Trims and checks a group label (0..64 characters, no control characters). */
int fs_comparison_label_valid(const char *label, char *clean, size_t cleanlen);

/*
 * Creates a comparison of u's: name, shared (1) or private (0), items
 * (1..FS_COMPARISON_SETS_MAX sets, each once, each one u may see; labels
 * checked). *id receives it.
 */
int fs_comparison_create(fs_db *db, const fs_user *u, const char *name, int shared,
			 const fs_comparison_item *items, size_t n, long long *id, char *err, size_t errlen);

/* Reads comparison id if u may see it (with its items). */
int fs_comparison_get(fs_db *db, long long id, const fs_user *u, fs_comparison *out);

/* Changes what is given: name (NULL keeps), shared (< 0 keeps), items
 * (NULL keeps; else replaces the list, checked as in create). Owner or
 * admin only. */
int fs_comparison_update(fs_db *db, long long id, const fs_user *u, const char *name, int shared,
			 const fs_comparison_item *items, size_t n, char *err, size_t errlen);

int fs_comparison_delete(fs_db *db, long long id, const fs_user *u);

/* The comparisons u may see, u's own first, then by name. */
int fs_comparison_list(fs_db *db, const fs_user *u, fs_comparison **out, size_t *n);

/* 1 when u may change c (owner or admin). */
int fs_comparison_can_manage(const fs_comparison *c, const fs_user *u);

/* The first set (in display order: "Base" unless renamed or deleted) of
 * each image u owns, oldest image first. */
int fs_compare_first_sets_of_owner(fs_db *db, long long owner_id, long long **ids, size_t *n);

/* A set the Compare page may offer: what the picker lists. */
typedef struct fs_compare_candidate {
	long long set_id, image_id;
	char set_name[257];
	char image_name[256];
	char owner_login[65];
	int n_tubercles;
	int first;        /* the image's first set ("Base") */
	double um_per_px; /* the image's calibration; 0 = uncalibrated */
} fs_compare_candidate;

/*
 * The sets u may see, newest image first and in display order within an
 * image, filtered by q (a case-insensitive substring of the image's or the
 * set's name; NULL or "" = all), image_id (0 = any), mine (only u's own
 * images) and first_only (only each image's first set); at most limit
 * (1..FS_COMPARISON_SETS_MAX) of them, *more = 1 when there were more.
 */
int fs_compare_candidates(fs_db *db, const fs_user *u, const char *q, long long image_id, int mine,
			  int first_only, int limit, fs_compare_candidate **out, size_t *n, int *more);

#endif
