/*
 * rows_json.c - a query's result rows as a JSON array (rows_json.h).
 */
#include "store/rows_json.h"

int fs_db_rows_json(fs_bind *b, fs_db_row_json row, void *ctx, cJSON **out)
{
	sqlite3_stmt *st = b->st;
	cJSON *arr = cJSON_CreateArray();
	int rc = SQLITE_DONE;
	while (arr && (rc = fs_bind_step(b)) == SQLITE_ROW) {
		cJSON *item = row(st, ctx);
		/* a list short of a row would pass for the whole list */
		if (!item || !cJSON_AddItemToArray(arr, item)) {
			cJSON_Delete(item);
			cJSON_Delete(arr);
			arr = NULL;
		}
	}
	fs_db_done(st);
	if (!arr)
		return FS_DB_ERROR;
	if (rc != SQLITE_DONE) {
		cJSON_Delete(arr);
		return fs_db_rc_from_sqlite(rc);
	}
	*out = arr;
	return FS_DB_OK;
}
