/*
 * set_halves.c - the two halves of a set's change (see set_halves.h):
 * prepared at a snapshot, written under the lock if nobody overtook it.
 */
#include "store/set_halves.h"

#include <stdio.h>

#include "store/set_rows.h"

#define ERR(...) (err && errlen ? (void)snprintf(err, errlen, __VA_ARGS__) : (void)0)

int fs_set_in_halves(fs_db *db, long long set_id, long long expect_rev, long long *cur_rev,
		     const fs_set_halves *h, void *ctx, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = 0;
	for (int attempt = 0; attempt < FS_ROWS_PREPARE_TRIES; attempt++) {
		/* the last preparation holds the lock: nobody can overtake it */
		int locked = attempt == FS_ROWS_PREPARE_TRIES - 1;
		long long snap_rev = 0, now_rev = 0;
		int rc = locked ? fs_db_begin(db) : fs_db_begin_read(db);
		if (rc) {
			ERR("the database is busy");
			return rc;
		}
		rc = fs_rows_check_rev(db, set_id, expect_rev, &snap_rev, err, errlen);
		if (cur_rev && snap_rev)
			*cur_rev = snap_rev;
		if (!rc)
			rc = h->prepare(db, set_id, ctx, err, errlen);
		if (!locked) {
			fs_db_end_read(db);
			if (!rc)
				fs_rows_between_halves();
			if (!rc && (rc = fs_db_begin(db)) != FS_DB_OK)
				ERR("the database is busy");
			else if (!rc && !(rc = fs_rows_read_rev(db, set_id, &now_rev)) && now_rev != snap_rev) {
				/* overtaken: nothing of the preparation holds */
				fs_db_rollback(db);
				h->discard(ctx);
				if (expect_rev >= 0) {
					if (cur_rev)
						*cur_rev = now_rev;
					ERR("the set has changed (revision %lld, your view is at %lld): reload it first",
					    now_rev, expect_rev);
					return FS_DB_STALE;
				}
				continue;
			}
		}
		rc = h->write(db, set_id, rc, ctx, err, errlen);
		h->discard(ctx);
		return rc;
	}
	ERR("the set kept changing while the %s was being prepared", h->what);
	return FS_DB_BUSY;
}
