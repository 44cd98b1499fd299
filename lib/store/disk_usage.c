/* disk_usage.c - bytes of originals and derived files per first uploader (see disk_usage.h). */
#include "store/disk_usage.h"

#include <stdlib.h>
#include <string.h>

#include "store/image_files.h"
#include "store/db_bind.h"

/*
 * One row per counted file: the owner of the first entry holding it, the
 * original's size (or -1 for a work key, whose size is on the disk) and its
 * key. Work keys are an image's working image and the base its transforms
 * start from (kept so they can be undone). Ordered by owner so totals come
 * out in one pass.
 */
static const char *const usage_sql =
	"SELECT i.owner_id, f.size, f.sha256 FROM image_files f"
	" JOIN images i ON i.id = (SELECT min(id) FROM images WHERE file_sha256 = f.sha256)"
	" WHERE ?1 = 0 OR i.owner_id = ?1"
	" UNION ALL "
	"SELECT i.owner_id, -1, k.key FROM"
	" (SELECT work_key AS key FROM images UNION SELECT base_key FROM images WHERE base_key != '') k"
	" JOIN images i ON i.id = (SELECT min(id) FROM images WHERE work_key = k.key OR base_key = k.key)"
	" WHERE ?1 = 0 OR i.owner_id = ?1"
	" ORDER BY 1";

static int walk(fs_db *db, const char *data_dir, long long only_user,
		int (*fn)(long long user_id, long long bytes, void *ud), void *ud)
{
	sqlite3_stmt *st = fs_db_stmt(db, usage_sql);
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, only_user);
	long long cur = -1, sum = 0;
	int rc, stop = 0;
	while ((rc = fs_bind_step(&b)) == SQLITE_ROW) {
		long long uid = sqlite3_column_int64(st, 0);
		long long size = sqlite3_column_int64(st, 1);
		char key[65];
		fs_db_col_text(st, 2, key, sizeof key);
		if (uid != cur) {
			if (cur >= 0 && (stop = fn(cur, sum, ud)) != 0)
				break;
			cur = uid;
			sum = 0;
		}
		sum += size >= 0 ? size : fs_files_derived_bytes(data_dir, key);
	}
	if (!stop && rc == SQLITE_DONE && cur >= 0)
		stop = fn(cur, sum, ud);
	fs_db_done(st);
	if (stop)
		return stop;
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? FS_DB_OK : fs_db_rc_from_sqlite(rc);
}

static int add_to(long long user_id, long long bytes, void *ud)
{
	(void)user_id;
	*(long long *)ud += bytes;
	return 0;
}

int fs_disk_usage_user(fs_db *db, const char *data_dir, long long user_id, long long *bytes)
{
	*bytes = 0;
	if (user_id <= 0)
		return FS_DB_OK;
	return walk(db, data_dir, user_id, add_to, bytes);
}

int fs_disk_usage_each(fs_db *db, const char *data_dir, int (*fn)(long long user_id, long long bytes, void *ud),
		       void *ud)
{
	return walk(db, data_dir, 0, fn, ud);
}
