/*
 * rows_json.h - a query's result rows as a JSON array: the loop every
 * listing of the store ends with (events, jobs, batches, a set's history),
 * each row made an item by the caller's function.
 *
 * Ownership: the binder and its statement (a cached one, fs_db_stmt) are
 * the caller's; fs_db_rows_json steps the statement to its end and
 * finishes it (fs_db_done) whatever happens. The array it returns in *out
 * is the caller's (cJSON_Delete); each item row() returns is handed over
 * to it. ctx is only passed on.
 */
#ifndef FS_ROWS_JSON_H
#define FS_ROWS_JSON_H

#include <cJSON.h>
#include <sqlite3.h>

#include "store/db_bind.h"

/* One row of st as a new JSON item (NULL when it cannot be made); st is
 * lent for the call and must not be stepped. */
typedef cJSON *(*fs_db_row_json)(sqlite3_stmt *st, void *ctx);

/* Steps the bound statement of b through its rows, each row(st, ctx)
 * appended in order: FS_DB_OK with the array in *out; FS_DB_ERROR when the
 * array or an item could not be made, or the failed step's fs_db_rc, with
 * *out left as it was. */
int fs_db_rows_json(fs_bind *b, fs_db_row_json row, void *ctx, cJSON **out);

#endif
