/*
 * extraction_result.h - storing the result of an extraction (detection +
 * neighbour graph) in an annotation set as one journal step, with the
 * set's "extraction" history event and the user's "extraction_complete"
 * event-log entry. The web route and the background job (fishscale-job)
 * both store through here, so a result looks the same whichever ran it.
 *
 * Errors: fs_db_rc values with a message in err. The lists stay the
 * caller's.
 */
#ifndef FS_EXTRACTION_RESULT_H
#define FS_EXTRACTION_RESULT_H

#include <stddef.h>

#include "analysis/metrics.h"
#include "analysis/params.h"
#include "image/tubercle.h"
#include "store/db.h"
#include "store/images_store.h"

/*
 * Replaces set_id's tubercles and connections by t and e, expecting
 * revision expect_rev (0 = whatever the set holds when the write starts: a
 * background job's result lands on top of the edits made meanwhile, as one
 * step that can be undone). *new_rev / *cur_rev as fs_set_replace_all;
 * *stats (may be NULL) receives the statistics of the result with the
 * user's hexagonalness weights.
 */
int fs_extraction_store(fs_db *db, const fs_image_rec *image, long long set_id, long long expect_rev,
			long long user_id, const fs_params *p, const fs_tubercle_list *t, const fs_edge_list *e,
			fs_stats *stats, long long *new_rev, long long *cur_rev, char *err, size_t errlen);

#endif
